"""Judging the input-pipeline probe: does the loader keep the training step fed, here and on the
target accelerator?

The seeds name the data pipeline as the bottleneck that leaves an NPU at 30% (the Ascend field
report, its data-pipeline section; the migration-route report on performance tuning): a pipeline
delivering fewer samples/s than the step consumes starves the step, and a host pipeline that keeps a
CPU step fed can still starve eight accelerators.
"""

from __future__ import annotations

from typing import Any, Optional


def starved(run: Any) -> Optional[bool]:
    """True when the pipeline alone delivers fewer samples/s than the step alone consumes."""
    if run.status != "ok" or not run.alone or not run.step_only:
        return None
    if not run.alone.samples_per_second or not run.step_only.samples_per_second:
        return None
    return run.alone.samples_per_second < run.step_only.samples_per_second


def best_rate(suite: Any, framework: str) -> Optional[tuple[float, str]]:
    """The fastest loader variant of `framework` (samples/s alone, run id)."""
    rates = [
        (r.alone.samples_per_second, r.id)
        for r in suite.runs
        if r.framework == framework and r.status == "ok" and r.alone and r.alone.samples_per_second
    ]
    return max(rates) if rates else None


def feed_fraction(pipeline_rate: float, device_rate: float, devices: int) -> float:
    """Share of `devices` accelerators, each consuming `device_rate` samples/s, that one host's
    pipeline delivering `pipeline_rate` samples/s keeps busy (at most 1)."""
    need = device_rate * max(1, devices)
    return min(1.0, pipeline_rate / need) if need > 0 else 1.0


def verdict(run: Any) -> str:
    s = starved(run)
    if s is None:
        return run.error or run.status
    alone, step = run.alone.samples_per_second, run.step_only.samples_per_second
    if s:
        return f"starved: the pipeline delivers {alone:,.0f} samples/s, the step alone takes {step:,.0f}"
    return f"keeps up: {alone:,.0f} samples/s against a step of {step:,.0f} ({alone / step:.1f}x headroom)"
