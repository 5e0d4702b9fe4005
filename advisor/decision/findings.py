"""A finding as the decision model states it: a stable dotted code ("schedule.over_deadline") and the
numbers and names it rests on (numbers as numbers). The words live in one catalogue,
`advisor.wording.catalogue`; `said` words a finding there for the records whose JSON carries text."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from advisor.wording import word


@dataclass(frozen=True)
class Finding:
    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return word(self)


def finding(code: str, **params: Any) -> Finding:
    return Finding(code, params)


def said(code: str, **params: Any) -> str:
    """The finding `code` with `params`, worded by the catalogue."""
    return word(Finding(code, params))
