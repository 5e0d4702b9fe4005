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

# Scoring first, then the workload arithmetic: the order the sensitivity analysis lists them in.
_ALL: list[Constant] = [*SCORING, *WORKLOAD]

CONSTANTS: dict[str, Constant] = {c.name: c for c in _ALL}


class Consts:
    """The constants' values, with some moved (the sensitivity analysis re-scores through this)."""

    def __init__(self, overrides: Optional[Mapping[str, float]] = None):
        unknown = set(overrides or {}) - set(CONSTANTS)
        if unknown:
            raise KeyError(f"unknown constants: {', '.join(sorted(unknown))}")
        self.overrides = dict(overrides or {})

    def __getitem__(self, name: str) -> float:
        return self.overrides.get(name, CONSTANTS[name].value)

    def moved(self, name: str, value: float) -> "Consts":
        return Consts({**self.overrides, name: value})


DEFAULT = Consts()


def searched() -> list[Constant]:
    return [c for c in _ALL if c.search is not None]
