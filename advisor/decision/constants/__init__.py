"""Every constant the decision model uses, named, with where it comes from.

A source is a field report by its title and section, a knowledge-base entry id, or `assumption:`
with the reasoning. Constants with a `search` range take part in the sensitivity analysis next to the
weights ("hybrid would lose if migration took 1.6x the estimate"); the scoring code reads them through
`Consts` so that analysis can re-score with one of them moved.
"""

from __future__ import annotations

from typing import Mapping, Optional

from advisor.decision.constants.base import SEED_ASCEND_PRACTICE, SEED_RELEASED_TOGETHER, SEED_SAME_TASK, Constant
from advisor.decision.constants.scoring import SCORING
from advisor.decision.constants.weights import WEIGHTS
from advisor.decision.constants.workload import WORKLOAD

__all__ = [
    "CONSTANTS",
    "DEFAULT",
    "SEED_ASCEND_PRACTICE",
    "SEED_RELEASED_TOGETHER",
    "SEED_SAME_TASK",
    "Constant",
    "Consts",
    "searched",
]

# Scoring first, then the workload arithmetic, then the criteria's default weights: the order the
# sensitivity analysis lists them in.
_ALL: list[Constant] = [*SCORING, *WORKLOAD, *WEIGHTS]

CONSTANTS: dict[str, Constant] = {c.name: c for c in _ALL}


class Consts:
    """The constants' values, with some moved (the sensitivity analysis re-scores through this)."""

    def __init__(self, overrides: Optional[Mapping[str, float]] = None, reads: Optional[set[str]] = None):
        unknown = set(overrides or {}) - set(CONSTANTS)
        if unknown:
            raise KeyError(f"unknown constants: {', '.join(sorted(unknown))}")
        self.overrides = dict(overrides or {})
        self.reads = reads
        """The names read through this view (None: not noted): a constant a computation never read
        cannot change its result, so the sensitivity search re-runs only what reads a moved one."""

    def __getitem__(self, name: str) -> float:
        if self.reads is not None:
            self.reads.add(name)
        return self.overrides.get(name, CONSTANTS[name].value)

    def moved(self, name: str, value: float) -> "Consts":
        return Consts({**self.overrides, name: value})

    def noting(self, reads: set[str]) -> "Consts":
        """The same values, noting each name read into `reads`."""
        return Consts(self.overrides, reads)

    def differ(self, other: "Consts") -> set[str]:
        """The names whose values differ between the two."""
        value = lambda c, n: c.overrides.get(n, CONSTANTS[n].value)  # noqa: E731 (no read noted)
        return {n for n in set(self.overrides) | set(other.overrides) if value(self, n) != value(other, n)}


DEFAULT = Consts()


def searched() -> list[Constant]:
    return [c for c in _ALL if c.search is not None]
