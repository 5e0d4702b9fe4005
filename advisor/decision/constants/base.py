"""A named constant of the decision model: its value, unit, source and the range the sensitivity
analysis searches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

# The field reports, as a reader cites them (never by file name).
SEED_SAME_TASK = '"MindSpore vs PyTorch, measured on the same task"'
SEED_ASCEND_PRACTICE = '"Ascend 910 and MindSpore in practice"'
SEED_RELEASED_TOGETHER = '"Chips and framework released together"'


@dataclass(frozen=True)
class Constant:
    name: str
    value: float
    unit: str
    source: str
    what: str = ""
    """How the sensitivity analysis words it: '<what> were <value>'."""
    search: Optional[tuple[float, float]] = None
    """Range the sensitivity analysis searches for a value that flips the verdict (None: not searched)."""
    projection: bool = False
    """It moves the projections (worked out before the scores): the sensitivity search re-runs them."""
    acts_when: Optional[str] = None
    """The Context field (e.g. `deploy`) without which it moves nothing: the search skips it then."""
