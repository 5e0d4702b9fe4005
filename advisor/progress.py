"""How long a training-probe suite takes: an estimate before Start and an ETA while it runs, shared
by the TUI's Probes screen and the CLI (a rich progress bar on stderr).

The per-run cost is start-up (interpreter + framework import + the first optimizer) + the first step
(compile) + the measurement budget; the constants come from shared/reference/measured-here.md on a
2-vCPU host and are ranges, not promises: a faster host finishes sooner, a loaded one later.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Callable

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


def planned_runs(config: Any) -> list[tuple[str, str, str, str]]:
    """(run id, framework, mode, model) of every run the suite makes, in order (the runner's plan)."""
    from probes.training.runner import plan_jobs

    return [(job.id, job.framework, job.mode, job.model) for job in plan_jobs(config)]


def suite_estimate(config: Any) -> Estimate:
    """The whole suite: the aux children (when GEMM or parity is on) and every planned run."""
    total = Estimate(0.0, 0.0)
    if getattr(config, "gemm", True) or getattr(config, "parity", True):
        for _ in config.frameworks:
            total += Estimate(*AUX_S)
    for _, fw, mode, model in planned_runs(config):
        total += run_estimate(fw, mode, model, float(config.budget))
    return total


@dataclass
class SuiteClock:
    """Suite-level ETA from the runner's events: the estimates of the runs not finished, the running
    one scaled by its own fraction, corrected by how the finished runs compared with their estimate."""

    config: Any
    started: float = field(default_factory=time.monotonic)
    estimates: dict = field(default_factory=dict)  # run id -> Estimate
    fraction: dict = field(default_factory=dict)  # run id -> 0..1 (1: finished)
    taken: dict = field(default_factory=dict)  # run id -> seconds it took
    _began: dict = field(default_factory=dict)
    # A run id recurs once per interleaved round: each occurrence is a slot "<id>#<k>" of its own.
    _slots: dict = field(default_factory=dict)  # run id -> its slots, in plan order
    _current: dict = field(default_factory=dict)  # run id -> the slot its latest start opened

    def __post_init__(self) -> None:
        budget = float(self.config.budget)
        for rid, fw, mode, model in planned_runs(self.config):
            self._add_slot(rid, run_estimate(fw, mode, model, budget))

    def _add_slot(self, rid: str, estimate: Any) -> str:
        slots = self._slots.setdefault(rid, [])
        key = f"{rid}#{len(slots)}"
        slots.append(key)
        self.estimates[key] = estimate
        self.fraction[key] = 0.0
        return key

    def _slot(self, rid: str, kind: str) -> str:
        if kind == "start" or rid not in self._current:
            free = [k for k in self._slots[rid] if k not in self._began and self.fraction[k] < 1.0]
            # an extra round beyond the plan (the stop rule asked for one): a slot like the last
            self._current[rid] = free[0] if free else self._add_slot(rid, self.estimates[self._slots[rid][-1]])
        return self._current[rid]

    @property
    def total(self) -> int:
        return len(self.estimates)

    @property
    def finished(self) -> int:
        return sum(1 for f in self.fraction.values() if f >= 1.0)

    def on_event(self, run_id: str, kind: str, fraction: float | None = None, now: float | None = None) -> None:
        if run_id not in self._slots:
            return  # the aux children: not runs
        now = time.monotonic() if now is None else now
        run_id = self._slot(run_id, kind)
        if kind == "start":
            self._began[run_id] = now
        elif kind == "done":
            self.fraction[run_id] = 1.0
            if run_id in self._began:
                self.taken[run_id] = now - self._began[run_id]
        elif fraction is not None:
            self.fraction[run_id] = max(self.fraction[run_id], min(0.99, float(fraction)))

    def remaining_seconds(self) -> float:
        # Finished runs that took longer (or shorter) than estimated scale the rest alike.
        est_done = sum(self.estimates[r].mid for r in self.taken)
        scale = (sum(self.taken.values()) / est_done) if est_done > 0 else 1.0
        left = sum(self.estimates[r].mid * (1.0 - f) for r, f in self.fraction.items())
        return max(0.0, left * scale)

    def status(self) -> str:
        """'2 of 6 runs finished, about 40 s left'."""
        text = f"{self.finished} of {self.total} runs finished"
        if self.finished < self.total:
            text += f", about {duration(self.remaining_seconds())} left (estimate)"
        return text


def _get(event: Any, name: str) -> Any:
    return event.get(name) if isinstance(event, dict) else getattr(event, name, None)


@contextlib.contextmanager
def suite_progress(config: Any, stream: Any = None, enabled: bool | None = None) -> Iterator[Callable[[Any], None]]:
    """A rich progress display on stderr for `run_suite(config, on_event=...)`: one bar for the
    suite with its ETA, the current run named. Yields the on_event callback. When stderr is not a
    terminal (or enabled=False) it prints one line per finished run instead.

    Usage (advisor/commands/probe.py):
        with suite_progress(config) as on_event:
            suite = run_suite(config, on_event=on_event)
    """
    stream = stream or sys.stderr
    clock = SuiteClock(config)
    if enabled is None:
        enabled = bool(getattr(stream, "isatty", lambda: False)())
    runs = f"{clock.total} run{'s' if clock.total != 1 else ''}"
    print(f"advisor: {runs}, estimated {suite_estimate(config).text()}", file=stream)
    if not enabled:

        def plain(event: Any) -> None:
            rid, kind = str(_get(event, "run_id")), str(_get(event, "kind"))
            clock.on_event(rid, kind, _get(event, "fraction"))
            if kind == "done" and rid in clock._slots:
                print(f"advisor: {rid}: {_get(event, 'message') or 'done'} ({clock.status()})", file=stream)

        yield plain
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn

    console = Console(file=stream)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[status]}"),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("preparing", total=max(1, clock.total), status="")

        def rich_event(event: Any) -> None:
            rid, kind = str(_get(event, "run_id")), str(_get(event, "kind"))
            clock.on_event(rid, kind, _get(event, "fraction"))
            done = sum(clock.fraction.values())
            bar.update(
                task, completed=done, status=clock.status(), description=rid if rid in clock._slots else "preparing"
            )
            if kind == "done" and rid in clock._slots:
                bar.console.print(f"{rid}: {_get(event, 'message') or 'done'}")

        yield rich_event
