"""The app's state, in one dataclass the screens read (pure: no Textual): the host check, the
requirements, one Measurement per probe kind of the registry (probes.base.KINDS: training, scaling,
deploy, accuracy, pipeline, gpt) with its live runs, and the report. Only the training and scaling
results are cached per host (as the CLI caches them). The app changes it in its message handlers
only, then tells the screens with a message."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional, Union, get_args

from pydantic import BaseModel, ConfigDict

from probes.base import KINDS
from probes.training.models import Quality, StepTime

if TYPE_CHECKING:
    from advisor.progress import ProbeProgress
    from advisor.report import Report
    from probes.check.models import CheckReport
    from probes.launcher import Cancel

# What crosses the boundary from a runner or a provider: a kind's result (ProbeSuite, ScalingResult,
# DeployResult, AccuracySuite, PipelineSuite, GptResult) or a row event and its run, as a pydantic model
# or as a mapping (a result read back from JSON; tui.providers' plain event dicts). The state keeps
# models only: Measurement.result and RunProgress.run validate a mapping where it enters.
Result = Union[BaseModel, dict]

GRADES = get_args(Quality)  # the noise grades of a run that measured (probes.quality)
SPARK_POINTS = 60  # step times kept per run for the sparkline


@dataclass
class HostState:
    report: Optional[CheckReport] = None
    error: str | None = None
    checking: bool = False
    progress: str = ""  # the latest part of the check that finished
    cancel: Optional[Cancel] = None


@dataclass
class RequirementsState:
    model: Optional[BaseModel] = None  # a validated advisor.requirements.Requirements, or None (`problem` says why)
    data: dict | None = None  # what the form holds (may be invalid)
    problem: str | None = None
    path: str | None = None  # the file loaded or saved last


@dataclass
class Measurement:
    """One kind of probe (training suite or scaling): its live runs while it measures, its result
    (this session's or the cache's) and how to cancel it."""

    kind: str  # the registry's name: "training" | "scaling" | "deploy" | "accuracy" | "pipeline" | "gpt"
    result: Optional[BaseModel] = None  # the kind's Result model (probes.base.KINDS[kind].Result)
    cached: bool = False  # the result came from the per-host cache
    running: bool = False
    cancel: Optional[Cancel] = None
    runs: dict[str, RunProgress] = field(default_factory=dict)  # run id -> its live row
    total: int = 0  # runs planned (the plan, then the runner's events)
    fraction: float = 0.0  # of the whole measurement (the scaling runner says)
    clock: Optional[ProbeProgress] = None  # the one progress model: planned total and a countdown ETA
    # the time the plan said at Start ('about 39 s', or a first run's range): the end is told against it, not a re-plan
    promised: Optional[str] = None
    config: Optional[BaseModel] = None  # what the latest measurement was started with
    began: Optional[float] = None  # monotonic seconds when the latest measurement of this session started
    ended: Optional[float] = None  # ... and when it ended (finished, cancelled or failed)

    def __setattr__(self, name: str, value: object) -> None:
        # Where a result enters the state: a mapping (a result read back from JSON) becomes the kind's
        # Result model here, once, so every screen and panel reads typed fields.
        if name == "result" and isinstance(value, dict):
            value = KINDS[self.kind].Result.model_validate(value)
        super().__setattr__(name, value)


@dataclass
class AppState:
    host: HostState = field(default_factory=HostState)
    requirements: RequirementsState = field(default_factory=RequirementsState)
    kinds: dict[str, Measurement] = field(default_factory=lambda: {name: Measurement(name) for name in KINDS})
    report: Optional[Report] = None  # the Report built from all of the above
    report_error: str | None = None
    report_generation: int = 0  # a report built from older inputs is dropped
    report_for: int = 0  # the generation the report (or its error) shown was built for

    @property
    def report_stale(self) -> bool:
        """The inputs changed since the report shown was built: a new one is being computed."""
        return self.report_for != self.report_generation

    # Shorthands for the kinds the screens and tests name; any kind of the registry is kinds[name]
    # (a kind registered later needs no line here: the screens loop over `kinds`).
    probes = property(lambda self: self.kinds["training"])  # the training probe suite
    scaling = property(lambda self: self.kinds["scaling"])
    deploy = property(lambda self: self.kinds["deploy"])
    accuracy = property(lambda self: self.kinds["accuracy"])
    pipeline = property(lambda self: self.kinds["pipeline"])
    gpt = property(lambda self: self.kinds["gpt"])

    @property
    def measurements(self) -> tuple[Measurement, ...]:
        return tuple(self.kinds.values())

    @property
    def measuring(self) -> bool:
        """A probe of any kind is running: one at a time, or they would time each other."""
        return any(m.running for m in self.measurements)


# A finished run's words for how it ended, when a runner says it as the done event's message (the GPT probe).
END_STATUSES = ("ok", "failed", "timeout", "unavailable", "cancelled", "skipped")


class StepEnd(BaseModel):
    """How a step without a run model of its own ended (a deployment step, the Normalize check): the
    {"status", "error"} mapping tui.providers' adapters put in a done event, validated once here."""

    model_config = ConfigDict(extra="ignore")

    status: str
    error: Optional[str] = None


def as_run(run: Optional[Result]) -> Optional[BaseModel]:
    """A done event's run as a model: the kind's run model as the runner sent it, or a StepEnd."""
    return StepEnd.model_validate(run) if isinstance(run, dict) else run


@dataclass
class RunProgress:
    run_id: str
    status: str = "waiting"  # waiting | running | done | <the run's status>
    fraction: float = 0.0
    rate: float | None = None  # the kind's throughput: images/s, or tokens/s for the GPT
    unit: str = "img/s"
    message: str | None = None
    step_ms: deque = field(default_factory=lambda: deque(maxlen=SPARK_POINTS))
    run: Optional[BaseModel] = None  # the finished run: ProbeRun, ScalingRun, AccuracyRun, ... or a StepEnd

    def apply(
        self,
        kind: str,
        fraction: float | None,
        step_ms: list[float],
        rate: float | None,
        message: str | None,
        run: Optional[Result],
    ) -> None:
        run = as_run(run)
        if kind == "start":
            self.status = "running"
        elif kind == "done":
            said = message if run is None and message in END_STATUSES else None
            self.status = _status_of(run) or said or "done"
            if self.status in ("ok", "done", *GRADES):
                self.fraction = 1.0  # a cancelled or failed run keeps the bar where it stopped
            self.run = run
            self.message = done_message(run) if run is not None else ("" if said else message or "")
        elif self.status == "waiting":
            self.status = "running"
        if fraction is not None and kind != "done":
            self.fraction = max(0.0, min(1.0, float(fraction)))
        self.step_ms.extend(step_ms)
        if rate is not None:
            self.rate = rate
        elif run is not None and _field(run, "images_per_second") is not None:
            self.rate = _field(run, "images_per_second")
        if message and kind != "done":
            self.message = message

    def settle(self, run: BaseModel) -> None:
        """The run as the finished result holds it: its grade over every round (a row ends on its last
        round's grade, which the suite's spread between rounds may change), with its numbers."""
        self.run = run
        self.status = _status_of(run) or self.status
        self.message = done_message(run)


def _field(run: BaseModel, name: str) -> Optional[object]:
    """A field only some kinds' run models have (images_per_second, stop_reason, step_time_ms): None
    where this kind's model has none. The row is shared by every kind, so it asks rather than assumes."""
    return getattr(run, name, None)


def _status_of(run: Optional[BaseModel]) -> str | None:
    """One status per run, as the results table says it: its noise grade when it measured, else how it
    ended (a run graded unusable is not "ok")."""
    if run is None:
        return None
    status, grade = _field(run, "status"), _field(run, "quality")
    return grade if status == "ok" and grade in GRADES else status


def run_title(run_id: str) -> str:
    """What a live row is called: the runner's aux children are preparation, not runs."""
    if run_id.endswith("-aux"):
        return f"{run_id.removesuffix('-aux')}: GEMM peak and parity arrays (preparation)"
    return run_id


def done_message(run: BaseModel) -> str:
    """The last word on a finished run: the numbers the results table shows, or why it stopped."""
    stop_reason = _field(run, "stop_reason")
    if _field(run, "status") != "ok":
        return str(_field(run, "error") or stop_reason or "")
    steps = _field(run, "step_time_ms")  # the training probe's StepTime
    median = steps.median if isinstance(steps, StepTime) else None
    parts = []
    if isinstance(steps, StepTime) and median is not None:
        parts.append(f"median step {median:.1f} ms over {steps.n or '?'} samples")
    if stop_reason:
        parts.append(f"stopped: {stop_reason}")
    return "; ".join(parts)
