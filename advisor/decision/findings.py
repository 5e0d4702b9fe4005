"""A finding as the decision model states it: a stable dotted code ("schedule.over_deadline") and the
numbers and names it rests on (numbers as numbers). The words live in one catalogue,
`advisor.wording.catalogue`; `said` words a finding there for the records whose JSON carries text."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from advisor.wording import CATALOGUE, word


@dataclass(frozen=True)
class Finding:
    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return word(self)


def finding(code: str, **params: Any) -> Finding:
    return Finding(code, params)


# The sensitivity searches evaluate the same workflows a hundred times over and state the same findings
# each time (about 21,000 wordings in one report of the bundled example, most of them repeats): a finding
# whose parameters are all hashable is worded once. The catalogue's entries are pure functions of their
# parameters, so a repeat reads the same words.
_WORDED: dict[tuple, str] = {}
_WORDED_MAX = 50_000  # entries before the memo starts again (a long-running TUI edits requirements for hours)


def said(code: str, **params: Any) -> str:
    """The finding `code` with `params`, worded by the catalogue."""
    # the entry itself is in the key, so a catalogue reworded while running words afresh; the types too,
    # so 1, 1.0 and True word apart. A call site passes its keywords in one order: no sorting needed.
    key = (code, CATALOGUE.get(code), tuple(params.items()), tuple(map(type, params.values())))
    try:
        got = _WORDED.get(key)
    except TypeError:  # a list or a nested finding among the parameters: worded each time
        return word(Finding(code, params))
    if got is None:
        if len(_WORDED) >= _WORDED_MAX:
            _WORDED.clear()
        got = _WORDED[key] = word(Finding(code, params))
    return got
