"""How long a training-probe suite takes: an estimate before Start and an ETA while it runs, shared
by the TUI's Probes screen and the CLI (a rich progress bar on stderr).

The per-run cost is start-up (interpreter + framework import + the first optimizer) + the first step
(compile) + the measurement budget; the constants come from shared/reference/measured-here.md on a
2-vCPU host and are ranges, not promises: a faster host finishes sooner, a loaded one later.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Callable, TextIO

OnEvent = Callable[..., None]  # (event) or (run_id, payload): see probe_progress

# measured-here.md "Start-up and memory": import torch ~1.1 s, mindspore ~1.2 s, first SGD ~0.9 s,
# interpreter shutdown ~0.4 s. The high end doubles it (assumption: a busy 2-core host).
STARTUP_S = {"pytorch": (2.4, 5.0), "mindspore": (2.5, 5.0)}
# measured-here.md "Step times", first-step column (cold/warm compile cache), seconds.
FIRST_STEP_S = {
    ("pytorch", "compile", "lenet"): (1.2, 15.0),
    ("pytorch", "compile", "resnet18"): (2.0, 18.6),
    ("pytorch", "compile", "resnet50"): (4.0, 28.4),
    ("mindspore", "graph", "lenet"): (0.66, 1.5),
    ("mindspore", "graph", "resnet18"): (2.0, 4.0),
    ("mindspore", "graph", "resnet50"): (4.8, 11.2),
}
FIRST_STEP_DEFAULT_S = (0.3, 2.0)  # eager / PyNative: no compile (measured-here.md: 0.31-1.9 s)
# The measurement stops when the stop rule holds (can be well before the budget) or at the budget;
# it keeps sampling past it for the hard minimum of samples (probe-protocol.md): 0.5x-1.5x, assumption.
BUDGET_FACTOR = (0.5, 1.5)
AUX_S = (4.0, 12.0)  # GEMM peak + parity arrays child per framework (assumption: import + 2-3 s work)


@dataclass
class Estimate:
    low: float
    high: float

    @property
    def mid(self) -> float:
        return (self.low + self.high) / 2

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(self.low + other.low, self.high + other.high)

    def text(self) -> str:
        return f"{duration(self.low)} to {duration(self.high)}"


def duration(seconds: float) -> str:
    """12 s, 3 min, 1 h 5 min: coarse on purpose (these are estimates)."""
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60)} min"


def run_estimate(framework: str, mode: str, model: str, budget: float) -> Estimate:
    start = STARTUP_S.get(framework, (2.5, 5.0))
    first = FIRST_STEP_S.get((framework, mode, model), FIRST_STEP_DEFAULT_S)
    return Estimate(start[0] + first[0] + BUDGET_FACTOR[0] * budget, start[1] + first[1] + BUDGET_FACTOR[1] * budget)


def planned_runs(config: object) -> list[tuple[str, str, str, str]]:
    """(run id, framework, mode, model) of every run the suite makes, in order (the runner's plan)."""
    from probes.training.runner import plan_jobs

    return [(job.id, job.framework, job.mode, job.model) for job in plan_jobs(config)]


def suite_estimate(config: object) -> Estimate:
    """The whole suite: the aux children (when GEMM or parity is on) and every planned run."""
    total = Estimate(0.0, 0.0)
    if getattr(config, "gemm", True) or getattr(config, "parity", True):
        for _ in config.frameworks:
            total += Estimate(*AUX_S)
    for _, fw, mode, model in planned_runs(config):
        total += run_estimate(fw, mode, model, float(config.budget))
    return total


# ==================================================================================================
# One progress model for every probe kind (issue 29 item 4): a planned total, an ETA that only counts
# down, and a visible re-plan when the run adds work (the adaptive protocol's extra rounds, a deploy
# step count that grows). It consumes probes.base.ProbeEvent (or the runners' (run_id, dict) and the
# TUI's mappings: the same fields); ProgressView is the plain data the TUI draws; probe_progress the
# rich display the CLI prints.

# Per-run estimates of the other kinds (assumptions, corrected by the runs that finish: see `scale`).
# Accuracy: start-up + epochs x per-epoch wall time of LeNet-5 on the digits (2-vCPU host: 2-8 s).
ACCURACY_EPOCH_S = (2.0, 8.0)
# Pipeline: start-up + one timed pass per loader variant (a few seconds; worker pools start slower).
PIPELINE_RUN_S = (3.0, 10.0)
# Deploy: one export or serve child (import + export/compile + timed calls).
DEPLOY_STEP_S = (4.0, 20.0)
SCALE_BOUNDS = (0.2, 5.0)  # how far finished runs may move the estimate of the rest (assumption)


def _mid(pair: tuple[float, float]) -> float:
    return (pair[0] + pair[1]) / 2


# The fields a progress display reads, whatever shape the runner sends them in.
_FIELDS = (
    "run_id",
    "step_id",
    "kind",
    "fraction",
    "run_fraction",
    "epoch",
    "epochs",
    "total",
    "status",
    "message",
    "images_per_second",
    "tokens_per_second",
    "run",
)


@dataclass(frozen=True)
class Seen:
    """One progress event, read once (`seen`) into what the displays use, whatever its shape."""

    run_id: str  # the run's id (a deploy step's step_id); "" when the event names none
    kind: str  # start | progress | done | replan (any other kind counts as progress)
    fraction: float | None  # of this run: the scaling launch's own, or epochs done (the accuracy workers)
    total: int | None  # the planned total the runner announces
    status: str | None  # the event's, else its run's
    message: str
    error: str | None  # why its run failed
    images_per_second: float | None  # the event's, else its run's
    tokens_per_second: float | None
    stop_reason: str | None  # why its run stopped measuring


def seen(event: object, payload: object = None) -> Seen:
    """The one read of an event (one already read is returned as it is): a ProbeEvent or a runner's typed event (its fields, extra ones
    included), a mapping, or a runner's (run_id, dict). The run a "done" event carries is a result
    of its own kind's model (training, accuracy, pipeline), read for the fields they share."""
    if isinstance(event, Seen):
        return event
    if payload is not None or isinstance(event, str):
        data = dict(payload) if isinstance(payload, Mapping) else {}
        data.setdefault("run_id", event)
    elif isinstance(event, Mapping):
        data = dict(event)
    else:
        data = {name: getattr(event, name, None) for name in _FIELDS}
    kind = str(data.get("kind") or "progress")
    # the scaling probe's `fraction` is of the whole probe; `run_fraction` is of the launch
    fraction = data.get("run_fraction")
    if fraction is None:
        fraction = data.get("fraction")
    epoch, epochs = data.get("epoch"), data.get("epochs")
    if fraction is None and epoch is not None and epochs:
        fraction = float(epoch) / float(epochs)  # the accuracy workers
    total, run = data.get("total"), data.get("run")
    return Seen(
        run_id=str(data.get("run_id") or data.get("step_id") or ""),
        kind=kind if kind in ("start", "progress", "done", "replan") else "progress",
        fraction=None if fraction is None else float(fraction),
        total=None if total is None else int(total),
        status=data.get("status") or getattr(run, "status", None),
        message=str(data.get("message") or ""),
        error=getattr(run, "error", None),
        images_per_second=data.get("images_per_second") or getattr(run, "images_per_second", None),
        tokens_per_second=data.get("tokens_per_second"),
        stop_reason=getattr(run, "stop_reason", None),
    )


def done_text(event: object, payload: object = None) -> str:
    """What a finished run measured, in a few words: 'ok, 1,234.5 img/s (stable)', 'failed: <why>'."""
    ev = seen(event, payload)
    status, message = ev.status, ev.message
    if ev.run_id and message.startswith(f"{ev.run_id}: "):
        message = message[len(ev.run_id) + 2 :]  # the scaling probe names the launch in its message
    if status is None and message in ("ok", "failed", "timeout", "cancelled", "unavailable"):
        status = message
    why = ev.error or (message if message != status else "")
    if status not in (None, "ok"):
        return f"{status}: {why}" if why else str(status)
    if message and message != "ok":
        return message  # the runner's own words (the scaling launch's total img/s, an aux child's)
    text = "ok"
    if ev.images_per_second:
        text += f", {float(ev.images_per_second):,.1f} img/s"
    elif ev.tokens_per_second:
        text += f", {float(ev.tokens_per_second):,.0f} tokens/s"
    return text + (f" ({ev.stop_reason})" if ev.stop_reason else "")


def _deploy_steps(config: object) -> int:
    """The deployment probe's steps if every export succeeds with one ONNX Runtime provider: per model,
    each framework's exports, its source baseline, and one serve per artefact (probes.deploy.runner).
    A failed export serves less, a second provider more: the display re-plans when it sees more."""
    from probes.deploy.models import FORMATS

    wanted = getattr(config, "formats", None)
    frameworks = list(getattr(config, "frameworks", []))
    exports = sum(1 for fw in frameworks for fmt in FORMATS.get(fw, ()) if not wanted or fmt in wanted)
    return len(list(getattr(config, "models", []))) * (2 * exports + len(frameworks))


@dataclass
class Plan:
    """What a kind plans before it starts: named runs with their estimates, or a count of steps the
    runner announces as it goes (`named` False), each estimated at `each` seconds."""

    runs: list[tuple[str, float]]
    named: bool = True
    announced: int = 0
    each: float | None = None


def planned_for(kind_name: str, config: object) -> Plan:
    """The plan of `config` for the kind: named runs (training, accuracy, pipeline) or counted steps
    (deploy, scaling, gpt and any other registered kind: their runners announce a `total` or start ids
    the plan cannot name)."""
    if kind_name in ("training", "probes"):
        budget = float(config.budget)
        return Plan([(rid, run_estimate(fw, mode, model, budget).mid) for rid, fw, mode, model in planned_runs(config)])
    if kind_name == "accuracy":
        from probes.accuracy.runner import plan

        start = _mid(STARTUP_S["pytorch"])
        each = start + int(config.epochs) * _mid(ACCURACY_EPOCH_S)
        runs = [(f"{fw}-{mode}-seed{s}", each) for s in range(int(config.seeds)) for fw, mode in plan(config)]
        if "mindspore" in config.frameworks:
            runs.append(("normalize-check", start + _mid(PIPELINE_RUN_S)))  # the Normalize 0-1 vs 0-255 check
        return Plan(runs)
    if kind_name == "pipeline":
        from probes.pipeline.runner import plan

        return Plan([(f"{fw}-{variant}-w{workers}", _mid(PIPELINE_RUN_S)) for fw, variant, workers in plan(config)])
    if kind_name == "deploy":
        return Plan([], named=False, announced=_deploy_steps(config) if config is not None else 0)
    if kind_name in ("scaling", "gpt"):  # counted as announced (events with `total`)
        budget = getattr(config, "budget", None)
        each = _mid(STARTUP_S["pytorch"]) + float(budget) if budget else None  # a GPT child: start-up + budget
        return Plan([], named=False, each=each)
    # a kind with no plan of its own (probes.base.KINDS, issue 28): counted as its runner announces its runs
    return Plan([], named=False, each=None)


@dataclass
class ProgressView:
    """What a progress display shows, as plain data (the TUI draws it, the CLI prints it)."""

    planned: int  # runs planned now (after any re-plan)
    finished: int
    fraction: float  # of the planned work, by the estimates (0..1)
    eta_seconds: float | None  # None: nothing planned yet (deploy before its first event)
    over_estimate: bool  # the countdown reached 0 with runs left: the host is slower than estimated
    replanned_from: int | None  # the planned total before the latest re-plan, or None
    text: str  # '3 of 8 runs finished, about 2 min left (estimate)'


class ProbeProgress:
    """The planned runs of one probe kind and how far they are, from its events. Each start of a run
    id takes the next free slot of that id (the training suite repeats ids round by round); a start
    beyond the plan, a `total` above it or a "replan" event re-plans. The ETA shown never rises
    except at a re-plan: between re-plans it is the lower of the fresh estimate and the last one
    shown minus the time since."""

    def __init__(
        self,
        kind_name: str,
        plan: list[tuple[str, float]],
        named: bool = True,
        unit: str = "runs",
        default_s: float | None = None,
        now: float | None = None,
    ) -> None:
        self.kind_name = kind_name
        self.named = named  # the plan names its runs: other ids (aux children) are not runs
        self.unit = unit
        self.default_s = default_s if default_s is not None else (max(e for _, e in plan) if plan else 10.0)
        self.estimates: dict[str, float] = {}  # slot -> seconds
        self.fraction: dict[str, float] = {}  # slot -> 0..1 (1: finished)
        self.began: dict[str, float] = {}
        self.taken: dict[str, float] = {}
        self.slots: dict[str, list[str]] = {}  # run id -> its slots in plan order
        self.current: dict[str, str] = {}
        self.anonymous = 0  # planned slots not yet given an id (deploy: the announced total)
        self.replanned_from: int | None = None
        self.replans = 0
        self._shown: float | None = None
        self._shown_at = 0.0
        self.started = time.monotonic() if now is None else now
        for rid, seconds in plan:
            self._add(rid, seconds)

    @classmethod
    def for_config(cls, kind_name: str, config: object, now: float | None = None) -> ProbeProgress:
        plan = planned_for(kind_name, config)
        unit = {"deploy": "steps", "scaling": "launches"}.get(kind_name, "runs")
        default = plan.each if plan.each is not None else (None if plan.runs else _mid(DEPLOY_STEP_S))
        progress = cls(kind_name, plan.runs, named=plan.named, unit=unit, default_s=default, now=now)
        progress.anonymous = plan.announced
        return progress

    # ---- the plan ------------------------------------------------------------------------------

    @property
    def planned(self) -> int:
        return len(self.estimates) + self.anonymous

    @property
    def finished(self) -> int:
        return sum(1 for f in self.fraction.values() if f >= 1.0)

    def _add(self, rid: str, seconds: float) -> str:
        slots = self.slots.setdefault(rid, [])
        key = f"{rid}#{len(slots)}"
        slots.append(key)
        self.estimates[key] = float(seconds)
        self.fraction[key] = 0.0
        return key

    def _replan(self, before: int) -> None:
        if self.planned > before:
            self.replanned_from, self.replans = before, self.replans + 1
            self._shown = None  # the one time the ETA may rise: said so in the text

    def _slot(self, rid: str, kind: str) -> str | None:
        if rid not in self.slots and self.named:
            return None  # not a planned run (the training suite's GEMM / parity children)
        if kind == "start" or rid not in self.current:
            free = [k for k in self.slots.get(rid, []) if k not in self.began and self.fraction[k] < 1.0]
            if free:
                self.current[rid] = free[0]
            else:
                before = self.planned
                if self.anonymous:
                    self.anonymous -= 1  # an announced run arrives: no growth
                last = self.slots.get(rid)
                self.current[rid] = self._add(rid, self.estimates[last[-1]] if last else self.default_s)
                self._replan(before)
        return self.current[rid]

    # ---- events --------------------------------------------------------------------------------

    def on_event(
        self,
        event: object,
        payload: object = None,
        *,
        fraction: float | None = None,
        total: int | None = None,
        now: float | None = None,
    ) -> None:
        """A ProbeEvent / mapping, a runner's (run_id, dict), an event already `seen`, or (run_id, kind)
        with fraction/total."""
        if isinstance(event, str) and isinstance(payload, str):  # (run_id, kind): the TUI's messages
            rid, kind = event, payload
        else:
            ev = seen(event, payload)
            rid, kind, fraction, total = ev.run_id or "?", ev.kind, ev.fraction, ev.total
        now = time.monotonic() if now is None else now
        if total is not None and int(total) > self.planned:
            before = self.planned
            self.anonymous += int(total) - before
            if before > 0 or self.began:  # the first announcement is the plan, a later one re-plans
                self._replan(before)
        if kind == "replan":
            return
        slot = self._slot(rid, kind)
        if slot is None:
            return
        if kind == "start":
            self.began[slot] = now
        elif kind == "done":
            self.fraction[slot] = 1.0
            if slot in self.began:
                self.taken[slot] = now - self.began[slot]
        elif fraction is not None:
            self.fraction[slot] = max(self.fraction[slot], min(0.99, float(fraction)))

    # ---- the estimate --------------------------------------------------------------------------

    def scale(self) -> float:
        """How the finished runs compared with their estimate (1: as estimated), bounded."""
        est = sum(self.estimates[s] for s in self.taken)
        if est <= 0:
            return 1.0
        return min(SCALE_BOUNDS[1], max(SCALE_BOUNDS[0], sum(self.taken.values()) / est))

    def raw_remaining(self, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        scale = self.scale()
        left = self.anonymous * self.default_s * scale
        for slot, f in self.fraction.items():
            if f >= 1.0:
                continue
            est = self.estimates[slot] * scale
            if slot in self.began and f <= 0.0:
                left += max(0.0, est - (now - self.began[slot]))  # no fraction reported: by the clock
            else:
                left += est * (1.0 - f)
        return left

    def remaining_seconds(self, now: float | None = None) -> float:
        """The ETA shown: never above the last one shown minus the time since (except after a re-plan)."""
        now = time.monotonic() if now is None else now
        fresh = self.raw_remaining(now)
        if self._shown is not None:
            fresh = min(fresh, max(0.0, self._shown - (now - self._shown_at)))
        self._shown, self._shown_at = fresh, now
        return fresh

    def view(self, now: float | None = None) -> ProgressView:
        planned, finished = self.planned, self.finished
        if planned == 0:
            return ProgressView(
                0, 0, 0.0, None, False, None, f"preparing (the {self.unit} are announced as they start)"
            )
        eta = self.remaining_seconds(now) if finished < planned else 0.0
        total_est = sum(self.estimates.values()) + self.anonymous * self.default_s
        done_est = sum(self.estimates[s] * f for s, f in self.fraction.items())
        over = finished < planned and eta < 0.5
        text = f"{finished} of {planned} {self.unit} finished"
        if finished < planned:
            text += (
                ", running over the estimate (this host is slower than planned)"
                if over
                else f", about {duration(eta)} left (estimate)"
            )
        if self.replanned_from is not None:
            text += f"; re-planned: {planned} {self.unit} (was {self.replanned_from})"
        return ProgressView(
            planned=planned,
            finished=finished,
            fraction=min(1.0, done_est / total_est) if total_est > 0 else 0.0,
            eta_seconds=eta,
            over_estimate=over,
            replanned_from=self.replanned_from,
            text=text,
        )

    # the TUI's SuiteClock interface (tui.controller, tui.screens.probes)
    @property
    def total(self) -> int:
        return self.planned

    def status(self, now: float | None = None) -> str:
        return self.view(now).text


def _terminal(stream: TextIO) -> bool:
    """A terminal that can redraw a line (TERM=dumb cannot: plain lines there, as when piped)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


@contextlib.contextmanager
def probe_progress(
    kind_name: str, config: object, stream: TextIO | None = None, enabled: bool | None = None
) -> Iterator[OnEvent]:
    """The CLI's progress for every probe kind: `with probe_progress("accuracy", config) as on_event:`
    then hand `on_event` to the runner (it takes a ProbeEvent or any runner's typed event, a mapping,
    or a runner's (run_id, dict)). On a terminal a rich bar with the planned total and the ETA;
    otherwise one line when it starts, one per finished run and one per re-plan, with the same words.
    Everything goes to `stream` (stderr): stdout keeps the result alone."""
    stream = stream or sys.stderr
    progress = ProbeProgress.for_config(kind_name, config)
    if enabled is None:
        enabled = _terminal(stream)
    first = progress.view()
    planned = (
        f"{first.planned} {progress.unit} planned" if first.planned else f"{progress.unit} announced as they start"
    )
    eta = f", about {duration(first.eta_seconds)} (estimate)" if first.eta_seconds else ""
    print(f"advisor: {kind_name}: {planned}{eta}", file=stream, flush=True)
    if not enabled:

        def plain(event: object, payload: object = None) -> None:
            ev = seen(event, payload)
            rid = ev.run_id or "?"
            was = progress.replans
            progress.on_event(ev)
            if ev.kind == "done" and rid in progress.slots:
                print(f"advisor: {rid}: {done_text(ev)} ({progress.view().text})", file=stream, flush=True)
            elif progress.replans > was:
                print(f"advisor: {kind_name}: {progress.view().text}", file=stream, flush=True)

        yield plain
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn

    with Progress(
        TextColumn("{task.description}", markup=False),  # run ids and errors are text, not rich markup
        BarColumn(),
        TextColumn("{task.fields[status]}", markup=False),
        console=Console(file=stream),
        transient=True,
    ) as bar:
        task = bar.add_task(kind_name, total=1.0, status=first.text)

        def rich_event(event: object, payload: object = None) -> None:
            ev = seen(event, payload)
            rid = ev.run_id or "?"
            progress.on_event(ev)
            view = progress.view()
            # a child that is not a run (the GEMM peak / parity child) is named by what it does
            what = rid if rid in progress.slots else (ev.message or kind_name)
            bar.update(task, completed=view.fraction, status=view.text, description=what)
            if ev.kind == "done" and rid in progress.slots:
                bar.console.print(f"{rid}: {done_text(ev)}", markup=False, highlight=False)

        yield rich_event
