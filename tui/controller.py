"""One controller for every probe kind of the registry (probes.base.KINDS: the training probe suite,
the scaling probe on one host or across hosts, the deployment, accuracy, input-pipeline and
transformer probes): start it in a thread worker with a cancel flag, turn the runner's events into
throttled RunProgressed messages, keep its state (tui.state.Measurement), save a finished result to
the cache. The app owns one per kind and lets only one measure at a time. What differs between kinds
is words and event fields, read from each kind's registry line (kind_row)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional

from pydantic import BaseModel
from textual.app import App

from probes import base

from tui.messages import (
    MeasurementChanged,
    MeasurementFinished,
    RunChanged,
    RunProgressed,
    WorkFailed,
)
from tui.state import Measurement, Result, RunProgress, as_run

from advisor.progress import duration

if TYPE_CHECKING:
    from advisor.progress import ProbeProgress
    from probes.launcher import Cancel
    from tui.providers import Launcher

PROGRESS_INTERVAL = 0.1  # seconds between progress messages per run: smooth but cheap
# A runner's event: a pydantic model (ProbeEvent, ScalingEvent, GptEvent, ...) or a mapping.
Event = Result


@dataclass(frozen=True)
class Kind:
    """What differs between measurements: their words, and the names their runners give the fields."""

    name: str  # the registry's name (probes.base.KINDS), also the AppState.kinds key
    title: str  # "Probes" | "Scaling probe" | ...
    cancelling: str  # the notification when cancel is pressed
    cancelled: str  # ... when it stopped
    fractions: tuple[str, str]  # event attributes: (this run's fraction, the whole measurement's)
    plan: Optional[Callable[[BaseModel], ProbeProgress]] = None  # config -> the ETA model, or None
    rate: tuple[str, str] = ("images_per_second", "img/s")  # the event's throughput attribute and its unit


class Throttle:
    """A runner's events as at most one RunProgressed per run every `interval` seconds, keeping every
    step time (for the sparkline) and never dropping start/done events."""

    def __init__(self, post: Callable[[RunProgressed], None], kind: Kind, interval: float = PROGRESS_INTERVAL) -> None:
        self.post = post
        self.kind = kind
        self.interval = interval
        self.lock = threading.Lock()
        self.pending: dict[str, dict] = {}
        self.last_sent: dict[str, float] = {}

    def on_event(self, event: Event) -> None:
        get = event.get if isinstance(event, dict) else lambda k: getattr(event, k, None)
        run_id = str(get("run_id") or "?")
        # a child of a run ended (the pipeline probe's passes: the registry keeps the runner's own kind
        # apart): the progress model counts it as a step, so it is sent at once like a start or a done
        kind = "pass" if get("native_kind") == "pass" else str(get("kind") or "progress")
        run_fraction, overall = self.kind.fractions
        with self.lock:
            slot = self.pending.setdefault(run_id, {"steps": []})
            if get("step_ms") is not None:
                slot["steps"].append(float(get("step_ms")))
            for key, name in (
                ("fraction", run_fraction),
                ("overall", overall),
                ("total", "total"),
                ("rate", self.kind.rate[0]),
                ("message", "message"),
            ):
                if name and get(name) is not None:
                    slot[key] = get(name)
            now = time.monotonic()
            if kind == "progress" and now - self.last_sent.get(run_id, 0.0) < self.interval:
                return
            self.last_sent[run_id] = now
            self.pending.pop(run_id)
        self.post(self._message(run_id, kind, slot, get("run")))

    def flush(self) -> None:
        with self.lock:
            pending, self.pending = self.pending, {}
        for run_id, slot in pending.items():
            self.post(self._message(run_id, "progress", slot, None))

    def _message(self, run_id: str, kind: str, slot: dict, run: Optional[Result]) -> RunProgressed:
        message = slot.get("message")
        if message and message.startswith(run_id + ": "):
            message = message[len(run_id) + 2 :]  # the row already names the run
        return RunProgressed(
            self.kind.name,
            run_id,
            kind,
            slot.get("fraction"),
            slot["steps"],
            slot.get("rate"),
            message,
            run,
            slot.get("total"),
            slot.get("overall"),
        )


class MeasurementController:
    def __init__(
        self,
        app: App,
        kind: Kind,
        state: Measurement,
        launcher: Callable[[], Launcher],
        save: Callable[[], Callable[[Result], None] | None],
        new_cancel: Callable[[], Cancel],
        broadcast: Callable[..., None],
    ) -> None:
        self.app = app
        self.kind = kind
        self.state = state
        self.launcher = launcher  # read at start: a test may swap the provider in between
        self.save = save
        self.new_cancel = new_cancel
        self.broadcast = broadcast

    def start(self, config: BaseModel) -> bool:
        try:
            cancel = self.new_cancel()
        except Exception as exc:  # noqa: BLE001 - the launcher package is missing or broken
            self.app.notify(_one_line(exc), title=f"Cannot start: {self.kind.title}", severity="error")
            return False
        state = self.state
        state.running, state.cancel, state.runs, state.fraction = True, cancel, {}, 0.0
        state.config = config
        state.began, state.ended = time.monotonic(), None
        state.clock = _plan(self.kind, config)
        state.total = state.clock.total if state.clock is not None else 0
        state.promised = state.clock.promise() if state.clock is not None else None
        self.broadcast(MeasurementChanged, self.kind.name)
        self.app.run_worker(
            lambda: self._work(self.launcher(), config, cancel),
            thread=True,
            exclusive=True,
            exit_on_error=False,
            group=self.kind.name,
            description=self.kind.title,
        )
        return True

    def _work(self, launcher: Launcher, config: BaseModel, cancel: Cancel) -> None:
        throttle = Throttle(self.app.post_message, self.kind)
        try:
            result = launcher(config, throttle.on_event, cancel)
        except Exception as exc:  # noqa: BLE001 - a crashing launcher: a notification, its open rows failed
            throttle.flush()
            self.app.post_message(WorkFailed(self.kind.title.lower(), _one_line(exc)))
            self.app.post_message(
                MeasurementFinished(self.kind.name, None, bool(cancel.is_set()), error=_one_line(exc))
            )
            return
        throttle.flush()
        self.app.post_message(MeasurementFinished(self.kind.name, result, bool(cancel.is_set())))

    def cancel(self) -> None:
        if self.state.running and self.state.cancel is not None:
            self.state.cancel.set()
            self.app.notify(self.kind.cancelling, title=self.kind.title)

    def load_cached(self, read: Callable[[], Optional[Result]]) -> None:
        def work() -> None:
            try:
                result = read()
            except Exception as exc:  # noqa: BLE001 - an unreadable cache is a notice, not a crash
                self.app.post_message(WorkFailed(f"{self.kind.title} cache", _one_line(exc)))
                return
            if result is not None:
                self.app.post_message(MeasurementFinished(self.kind.name, result, from_cache=True))

        self.app.run_worker(
            work,
            thread=True,
            exit_on_error=False,
            group=f"{self.kind.name}-cache",
            description=f"cached {self.kind.title}",
        )

    def progressed(self, message: RunProgressed) -> None:
        state = self.state
        run = state.runs.get(message.run_id)
        if run is None:
            run = state.runs[message.run_id] = RunProgress(message.run_id)
        run.apply(message.event, message.fraction, message.step_ms, message.rate, message.message, message.run)
        run.unit = self.kind.rate[1]
        if message.total:
            state.total = message.total
        if message.overall is not None:
            state.fraction = max(state.fraction, float(message.overall))
        if state.clock is not None:
            state.clock.on_event(
                message.run_id, message.event, fraction=message.fraction, total=message.total, run=as_run(message.run)
            )
        self.broadcast(RunChanged, self.kind.name, run)

    def finished(self, message: MeasurementFinished) -> bool:
        """The state after a measurement (or a cached result); True when the report must follow."""
        state = self.state
        from_run = state.running and not message.from_cache
        if message.from_cache and state.running:
            return False  # a cache read landing while measuring: the measurement is the news
        state.running = False if from_run else state.running
        if from_run:
            state.ended = time.monotonic()
        if from_run and state.clock is not None:
            state.clock.finish()
            self._learn(state.clock, state.config)
        if from_run and message.error:  # the launcher crashed: what was still running failed with it
            for run in state.runs.values():
                if run.status in ("running", "waiting"):
                    run.status, run.message = "failed", message.error
        if message.result is not None and from_run and message.cancelled:
            # A cancel keeps every earlier good result: what was measured before stays where this run
            # did not measure it, and a run the cancel stopped is not a failure (it never ran).
            state.result = kept_after_cancel(message.result, state.result)
            state.cached = False
        elif message.result is not None:
            state.result, state.cached = message.result, not from_run
            save = self.save()
            if from_run and save is not None and not message.cancelled:
                self._save(save, message.result)
        if from_run and not message.cancelled and not message.error and state.result is not None:
            for run in getattr(state.result, "runs", None) or []:
                row = state.runs.get(getattr(run, "id", None))
                if row is not None and row.status not in ("running", "waiting"):
                    row.settle(run)  # one status per run: the row ends as the results table says it
        if from_run:
            if message.cancelled:
                self.app.notify(self.kind.cancelled, title=self.kind.title, severity="warning")
            elif message.result is not None and getattr(self.app, "current_mode", None) != "probes":
                # on the Probes screen its status line says it (a toast would cover the results)
                took = f" in {duration(state.ended - state.began)}" if state.began is not None else ""
                self.app.notify(f"{self.kind.title} finished{took}", title=self.kind.title, timeout=4)
        self.broadcast(MeasurementChanged, self.kind.name)
        return message.result is not None

    def _learn(self, clock: ProbeProgress, config: Optional[BaseModel]) -> None:
        """What the steps took teaches this host's figures (advisor.host_timings), off the UI thread."""

        def work() -> None:
            try:
                from advisor import host_timings

                host_timings.learn(self.kind.name, config, clock)
            except Exception:  # noqa: BLE001 - a read-only cache never ends the session: the defaults stay
                return
            try:  # the next plan reads what was just learned: the screens redraw it
                self.app.call_from_thread(self.broadcast, MeasurementChanged, self.kind.name)
            except RuntimeError:  # the app closed meanwhile
                pass

        self.app.run_worker(
            work, thread=True, exit_on_error=False, group=f"{self.kind.name}-cache", description="probe timings"
        )

    def _save(self, save: Callable[[Result], None], result: Result) -> None:
        def work() -> None:
            try:
                save(result)
            except Exception as exc:  # noqa: BLE001 - a full disk must not end the session
                self.app.post_message(WorkFailed(f"saving the {self.kind.title} result", _one_line(exc)))

        self.app.run_worker(
            work,
            thread=True,
            exit_on_error=False,
            group=f"{self.kind.name}-cache",
            description=f"save {self.kind.title}",
        )


def kept_after_cancel(new: Result, old: Optional[BaseModel]) -> BaseModel:
    """A cancelled measurement's result, keeping every earlier good result: the training suite without
    the runs the cancel stopped (never run: not a failure the report would count) merged with the earlier
    suite by the cache's own rules (advisor.cache.merge_suites: a run, parity or peak measured before stays
    where this one did not measure it); the scaling probe by merge_scaling; any other kind keeps the
    earlier result when the cancelled one measured nothing (their summaries belong to their own runs)."""
    from advisor import cache
    from probes.scaling.models import ScalingResult
    from probes.training.models import ProbeSuite

    if isinstance(new, ProbeSuite):
        new = new.model_copy(update={"runs": [r for r in new.runs if r.status != "cancelled"]})
        return cache.merge_suites(new, old) if isinstance(old, ProbeSuite) else new
    if old is None or type(old) is not type(new):
        return new
    if isinstance(new, ScalingResult):
        return cache.merge_scaling(new, old)
    runs = getattr(new, "runs", None)
    if isinstance(runs, list) and not any(getattr(r, "status", None) == "ok" for r in runs):
        return old
    return new


def _plan(kind: Kind, config: BaseModel) -> Optional[ProbeProgress]:
    if kind.plan is None:
        return None
    try:
        return kind.plan(config)
    except Exception:  # noqa: BLE001 - a config it cannot plan (a test's stand-in): no ETA
        return None


def progress_of(kind_name: str) -> Callable[[BaseModel], ProbeProgress]:
    """config -> the one progress model (advisor.progress.ProbeProgress) of a probe kind, the CLI's: a
    kind the model has no plan of its own for (advisor.progress.planned_for) is counted as its runner
    announces its runs (each event carries the planned `total`, as the deployment probe's do)."""

    def plan(config: BaseModel) -> ProbeProgress:
        from advisor.progress import planned

        return planned(kind_name, config)  # this host's figures and its load now (no wait: the 1-min average)

    return plan


def kind_row(kind: base.ProbeKind) -> Kind:
    """A registered kind's row: its words and event fields are data on its registry line."""
    return Kind(
        kind.name,
        kind.label,
        f"Cancelling: stopping {kind.processes}",
        f"{kind.label} cancelled; finished {kind.rows} are kept",
        kind.fractions,
        plan=progress_of(kind.name) if kind.planned else None,
        rate=kind.rate,
    )


def rows() -> tuple[Kind, ...]:
    """The registry's rows as it stands now (the app makes its controllers from them when it starts)."""
    return tuple(kind_row(k) for k in base.KINDS.values())


KINDS: tuple[Kind, ...] = rows()
suite_clock = progress_of("training")


def _one_line(exc: BaseException | None) -> str:
    if exc is None:
        return "unknown error"
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]
