"""The app's state, in one dataclass the screens read (pure: no Textual): the host check, the
requirements, one Measurement per kind of probe (training, scaling) with its live runs, and the report.
The deployment, accuracy and input-pipeline probes (issues 17, 18) are Measurements too; they are not
cached per host (the CLI does not cache them either). The app changes it in its message handlers
only, then tells the screens with a message."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

SPARK_POINTS = 60  # step times kept per run for the sparkline


@dataclass
class HostState:
    report: Any = None  # a CheckReport (or an equivalent mapping)
    error: str | None = None
    checking: bool = False
    progress: str = ""  # the latest part of the check that finished
    cancel: Any = None


@dataclass
class RequirementsState:
    model: Any = None  # a validated Requirements, or None (then `problem` says why)
    data: dict | None = None  # what the form holds (may be invalid)
    problem: str | None = None
    path: str | None = None  # the file loaded or saved last


@dataclass
class Measurement:
    """One kind of probe (training suite or scaling): its live runs while it measures, its result
    (this session's or the cache's) and how to cancel it."""

    kind: str  # "probes" | "scaling" | "deploy" | "accuracy" | "pipeline"
    result: Any = None  # ProbeSuite / ScalingResult / DeployResult / AccuracySuite / PipelineSuite
    cached: bool = False  # the result came from the per-host cache
    running: bool = False
    cancel: Any = None
    runs: dict = field(default_factory=dict)  # run id -> RunProgress
    total: int = 0  # runs planned (the plan, then the runner's events)
    fraction: float = 0.0  # of the whole measurement (the scaling runner says)
    clock: Any = None  # advisor.progress.SuiteClock: the ETA


@dataclass
class AppState:
    host: HostState = field(default_factory=HostState)
    requirements: RequirementsState = field(default_factory=RequirementsState)
    probes: Measurement = field(default_factory=lambda: Measurement("probes"))
    scaling: Measurement = field(default_factory=lambda: Measurement("scaling"))
    deploy: Measurement = field(default_factory=lambda: Measurement("deploy"))
    accuracy: Measurement = field(default_factory=lambda: Measurement("accuracy"))
    pipeline: Measurement = field(default_factory=lambda: Measurement("pipeline"))
    report: Any = None  # the Report built from all of the above
    report_error: str | None = None
    report_generation: int = 0  # a report built from older inputs is dropped

    @property
    def measurements(self) -> tuple[Measurement, ...]:
        return (self.probes, self.scaling, self.deploy, self.accuracy, self.pipeline)

    @property
    def measuring(self) -> bool:
        """A probe of any kind is running: one at a time, or they would time each other."""
        return any(m.running for m in self.measurements)


@dataclass
class RunProgress:
    run_id: str
    status: str = "waiting"  # waiting | running | done | <ProbeRun status>
    fraction: float = 0.0
    images_per_second: float | None = None
    message: str | None = None
    step_ms: deque = field(default_factory=lambda: deque(maxlen=SPARK_POINTS))
    run: Any = None

    def apply(
        self,
        kind: str,
        fraction: float | None,
        step_ms: list[float],
        images_per_second: float | None,
        message: str | None,
        run: Any,
    ) -> None:
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


def _status_of(run: Any) -> str | None:
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
