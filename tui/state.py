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
            self.fraction = 1.0
            self.run = run
            # The last word on a finished run: why it failed, or why it stopped.
            self.message = ((_get(run, "error") or _get(run, "stop_reason") or "") if run
                            else (message or ""))
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
