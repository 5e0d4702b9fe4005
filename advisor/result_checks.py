"""What a probe kind's result file must hold beyond its model and the range table (advisor.limits):
checks that tie one value to another or hold only for one kind. A kind with no entry here is read
with the generic checks alone (its model, the range table, the bounded reader), so a newly
registered kind needs nothing in this module.

Each check takes the validated result and returns 'path: what is expected' for the first problem,
or None.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Optional


def _first(found: Iterator[str]) -> Optional[str]:
    return next(found, None)


def _accuracy(suite: Any) -> Optional[str]:
    def problems() -> Iterator[str]:
        for i, gap in enumerate(suite.gaps):
            if len(gap.ci95) != 2 or not gap.per_seed:
                yield f"gaps[{i}]: expected ci95 [low, high] and per_seed values"
            elif any(abs(x) > 1 for x in [*gap.ci95, *gap.per_seed, gap.mean]):
                yield f"gaps[{i}]: an accuracy gap beyond 1 (accuracies are fractions 0-1)"
        for i, run in enumerate(suite.runs):
            if run.final_accuracy is not None and not 0 <= run.final_accuracy <= 1:
                yield f"runs[{i}].final_accuracy: {run.final_accuracy} is not a fraction 0-1"

    return _first(problems())


def _gpt(result: Any) -> Optional[str]:
    """A rate of zero tokens/s is no measurement (the projections divide by it)."""

    def problems() -> Iterator[str]:
        for i, run in enumerate(result.runs):
            if run.tokens_per_second is not None and not run.tokens_per_second > 0:
                yield f"runs[{i}].tokens_per_second: {run.tokens_per_second}: expected a positive rate"
        for i, dyn in enumerate(result.dynamic):
            for j, way in enumerate(dyn.ways):
                for name in ("end_to_end_tokens_per_second", "steady_tokens_per_second"):
                    value = getattr(way, name)
                    if value is not None and not value > 0:
                        yield f"dynamic[{i}].ways[{j}].{name}: {value}: expected a positive rate"

    return _first(problems())


CHECKS: dict[str, Callable[[Any], Optional[str]]] = {"accuracy": _accuracy, "gpt": _gpt}


def first_problem(kind: str, result: Any) -> Optional[str]:
    """The first problem of `result` (the kind's validated Result) that its model does not catch."""
    check = CHECKS.get(kind)
    return check(result) if check is not None else None
