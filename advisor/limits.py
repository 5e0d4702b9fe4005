"""The one table of plausible ranges for the numbers the tool reads: result files (probe, scaling,
deploy, accuracy, pipeline), knowledge-base entries and overrides, requirements and the config file.

A value outside its range is bad input (one line naming the file and field, exit 2), never a number
carried into a score: a knowledge-base `fp16_tflops: {value: .inf}` put `Infinity` into --json, a
`usable_memory_gb: 0` divided by zero, `throughput 1e300` or `memory -100 MB` were accepted.

Each bound is far outside anything real (so it refuses typos and hostile files, never a real
host): the comment says what real values are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterator, Optional


@dataclass(frozen=True)
class Limit:
    low: float
    high: float
    unit: str
    low_open: bool = False  # True: the value must be > low (a divisor, a size)

    def problem(self, value: Any) -> Optional[str]:
        """None when `value` is inside the range, else what is expected (for the error line)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None  # the models check types; this table checks magnitudes
        if isinstance(value, int) and abs(value) > 10**18:
            return f"expected {self.describe()} (got an integer of {len(str(abs(value)))} digits)"
        if not math.isfinite(value):
            return f"expected a finite number, {self.describe()} (got {value})"
        if value < 0 <= self.low:
            return f"{float(value)!r} is negative: expected {self.describe()}"
        too_low = value <= self.low if self.low_open else value < self.low
        if too_low or value > self.high:
            return f"expected {self.describe()} (got {value:g})"
        return None

    def describe(self) -> str:
        if self.low_open:
            return f"more than {self.low:g} and at most {self.high:g} {self.unit}".strip()
        return f"{self.low:g} to {self.high:g} {self.unit}".strip()


# field name -> its range, for every file kind. A name means the same quantity wherever it appears.
LIMITS: dict[str, Limit] = {
    # --- measurements (result files)
    "images_per_second": Limit(0, 1e9, "images/s"),  # an H200 trains LeNet at ~1e6 images/s
    "images_per_second_median": Limit(0, 1e9, "images/s"),
    "samples_per_second": Limit(0, 1e9, "samples/s"),
    "tokens_per_second": Limit(0, 1e12, "tokens/s"),
    "peak_memory_mb": Limit(0, 1e8, "MB"),  # 100 TB
    "host_peak_rss_mb": Limit(0, 1e8, "MB"),
    "first_step_seconds": Limit(0, 1e6, "s"),
    "compile_seconds": Limit(0, 1e6, "s"),
    "import_seconds": Limit(0, 1e6, "s"),
    "build_seconds": Limit(0, 1e6, "s"),
    "seconds": Limit(0, 1e7, "s"),  # a suite's wall time: under four months
    "efficiency": Limit(0, 2, "(a fraction; super-linear up to 2)"),
    "accuracy": Limit(0, 1, "(a fraction)"),
    "achieved_gflops": Limit(0, 1e9, "GFLOP/s"),
    "latency_ms": Limit(0, 1e7, "ms"),
    "step_ms": Limit(0, 1e9, "ms"),  # a scaling step: milliseconds to seconds
    "nosync_step_ms": Limit(0, 1e9, "ms"),
    "ranks": Limit(1, 1e6, "ranks"),  # the largest clusters run ~1e5 accelerators
    "world_size": Limit(1, 1e6, "ranks"),
    "workers": Limit(0, 4096, "loader workers"),  # 0: the loader in the training process
    "samples": Limit(0, 1e12, "samples"),
    "size_bytes": Limit(0, 1e13, "bytes"),  # an exported model: MB to hundreds of GB
    # --- knowledge base (accelerators, links, prices)
    # one chip: ~1e3 dense FP16 today, an edge part ~1; below a GFLOP/s is a typo (5e-324 underflowed rates)
    "fp32_tflops": Limit(1e-3, 1e5, "TFLOPS"),
    "fp16_tflops": Limit(1e-3, 1e5, "TFLOPS"),
    "bf16_tflops": Limit(1e-3, 1e5, "TFLOPS"),
    "int8_tops": Limit(1e-3, 1e6, "TOPS"),
    "memory_gb": Limit(0, 1e5, "GB", low_open=True),  # a divisor in the memory fit
    "usable_memory_gb": Limit(0, 1e5, "GB", low_open=True),
    "bandwidth_gbs": Limit(0, 1e6, "GB/s", low_open=True),
    "tdp_w": Limit(0, 1e5, "W", low_open=True),
    "usd": Limit(0, 1e7, "USD", low_open=True),
    "effort_hours": Limit(0, 1e5, "hours"),
    "year": Limit(1990, 2100, ""),
    # --- requirements (advisor/requirements.py: see WIRING)
    "parameters_millions": Limit(0, 1e7, "million parameters", low_open=True),  # 10 T parameters
    "dataset_samples": Limit(1, 1e13, "samples"),
    "epochs": Limit(0, 1e5, "epochs", low_open=True),
    "batch_size": Limit(1, 1e7, "samples"),
    "devices": Limit(1, 1e6, "devices"),
    "gflops_per_sample": Limit(0, 1e9, "GFLOP per sample", low_open=True),
    "deadline_weeks": Limit(1 / 7, 520, "weeks"),  # a day to ten years (5e-324 weeks is a typo, not a plan)
    # --- config file
    "budget": Limit(0.1, 3600, "s"),
    "threads": Limit(1, 1024, "threads"),
}


def problem(field: str, value: Any) -> Optional[str]:
    """What is wrong with `value` for `field` (None when fine or when the table has no range)."""
    limit = LIMITS.get(field)
    if limit is None:
        if isinstance(value, float) and not math.isfinite(value):
            return f"expected a finite number (got {value})"
        return None
    return limit.problem(value)


def problems(doc: Any, where: str = "", max_depth: int = 64) -> Iterator[tuple[str, str]]:
    """(path, what is expected) for every value in `doc` (dicts and lists, iteratively) that breaks its
    range; a sourced value `{value: 3}` is checked under the name of the field that holds it, and
    a two-number interval (`ci95: [low, high]`) must be ordered."""
    stack: list[tuple[Any, str, str, int]] = [(doc, where, "", 0)]
    while stack:
        value, at, name, depth = stack.pop()
        if depth > max_depth:
            yield at or "the document", f"nested deeper than {max_depth} levels"
            continue
        if isinstance(value, dict):
            for key, child in reversed(list(value.items())):
                key = str(key)
                inherited = name if key in ("value", "low", "high") else key
                stack.append((child, f"{at}.{key}" if at else key, inherited, depth + 1))
        elif isinstance(value, list):
            if name in ("ci95", "range") and len(value) != 2:
                parent = at.rsplit(".", 1)[0] if "." in at else at
                yield parent, f"expected {name} [low, high], two numbers (got {len(value)})"
                continue
            if (
                name in ("ci95", "range")
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
                and value[0] > value[1]
            ):
                yield at, f"expected [low, high] with low <= high (got [{value[0]:g}, {value[1]:g}])"
            for i, child in reversed(list(enumerate(value))):
                stack.append((child, f"{at}[{i}]", name if name not in ("ci95", "range") else "", depth + 1))
        else:
            found = problem(name, value)
            if found:
                yield at or name or "the value", found


def first_problem(doc: Any, where: str = "") -> Optional[str]:
    """'path: what is expected' for the first value out of range, else None."""
    for path, what in problems(doc, where):
        return f"{path}: {what}"
    return None
