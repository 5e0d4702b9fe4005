"""Live state of probe runs as the TUI shows them (pure: no Textual)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Optional

SPARK_POINTS = 60  # step times kept per run for the sparkline


@dataclass
class RunProgress:
    run_id: str
    status: str = "waiting"  # waiting | running | done | <ProbeRun status>
    fraction: float = 0.0
    images_per_second: Optional[float] = None
    message: Optional[str] = None
    step_ms: deque = field(default_factory=lambda: deque(maxlen=SPARK_POINTS))
    run: Any = None

    def apply(self, kind: str, fraction: Optional[float], step_ms: list[float],
              images_per_second: Optional[float], message: Optional[str], run: Any) -> None:
        if kind == "start":
            self.status = "running"
        elif kind == "done":
            self.status = _status_of(run) or "done"
            if self.status in ("ok", "done"):
                self.fraction = 1.0  # a cancelled or failed run keeps the bar where it stopped
            self.run = run
            self.message = done_message(run) if run is not None else (message or "")
        elif self.status == "waiting":
            self.status = "running"
        if fraction is not None and kind != "done":
            self.fraction = max(0.0, min(1.0, float(fraction)))
        self.step_ms.extend(step_ms)
        if images_per_second is not None:
            self.images_per_second = images_per_second
        elif run is not None and _get(run, "images_per_second") is not None:
            self.images_per_second = _get(run, "images_per_second")
        if message and kind != "done":
            self.message = message


def _get(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _status_of(run: Any) -> Optional[str]:
    return _get(run, "status") if run is not None else None


def run_title(run_id: str) -> str:
    """What a live row is called: the runner's aux children are preparation, not runs."""
    if run_id.endswith("-aux"):
        return f"{run_id.removesuffix('-aux')}: GEMM peak and parity arrays (preparation)"
    return run_id


def done_message(run: Any) -> str:
    """The last word on a finished run: the numbers the results table shows, or why it stopped."""
    if _get(run, "status") != "ok":
        return str(_get(run, "error") or _get(run, "stop_reason") or "")
    steps = _get(run, "step_time_ms") or {}
    median = _get(steps, "median")
    parts = []
    if median is not None:
        parts.append(f"median step {float(median):.1f} ms over {_get(steps, 'n') or '?'} samples")
    if _get(run, "stop_reason"):
        parts.append(f"stopped: {_get(run, 'stop_reason')}")
    return "; ".join(parts)
