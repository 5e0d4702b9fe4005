"""Progress of any probe kind: the plan (advisor.estimates: every step with its estimate, this host's
figures and the contention now), how far it has come from the runner's events, and an ETA that moves
during every step and only counts down except at a visible re-plan; shared by the TUI's Probes screen
and the CLI (a rich progress bar on stderr, or plain lines when not on a terminal).

The time since a step started counts down its start-up part until the step reports a fraction of its
timed part; a step the runner announces nothing for (the host summary, the idle-core sample before a
round) counts by the clock between its neighbours. Finished steps correct the rest by how they compared
with their estimate, shrunk toward 1 by SCALE_PRIOR_S seconds of the plan's own belief.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, TextIO

from advisor.estimates import (
    FIRST_RUN_HIGH,
    FIRST_RUN_LOW,
    FIRST_RUN_LOW_OF,
    SILENT_STEPS,
    Figures,
    Load,
    Plan,
    Step,
    mean_sessions,
    plan_for,
)
from advisor.render.tables import rate_text

OnEvent = Callable[..., None]  # (event) or (run_id, payload): see probe_progress

SCALE_BOUNDS = (0.2, 5.0)  # how far finished steps may move the estimate of the rest (assumption)
# Seconds of the plan's own estimate a correction is shrunk toward, by how alike the steps it learns from
# are (assumption, fitted on benchmarks/probe_estimates.py's recorded runs): the same step's earlier round
# says most, its family (set-up, timed runs, one framework's dynamic-shape children, the rest) less, all
# steps least. The
# last was 30 s: in a GPT probe recorded here on 2026-12-03 (load 8.8 on 2 cores) the timed runs took half
# their plan (MindSpore graph's first step) and pulled the dynamic-shape children's ETA to 0.56-0.67x of
# the time left; at 120 s nine recordings of six kinds hold 95% of their ETAs (92% at 30 s).
SCALE_PRIOR_S = {"id": 5.0, "family": 10.0, "all": 120.0}
# A step past its estimate is expected to take this share of its time so far again (assumption: a step
# counted by the clock alone; without it the ETA sat at 0 while the last step ran on).
OVERRUN_SHARE = 0.25
# The countdown may rise, said in words, when the fresh estimate is this much above it (assumption:
# small drifts are absorbed by the countdown, a real misestimate is re-estimated visibly).
REESTIMATE_FACTOR = 1.2
REESTIMATE_MIN_S = 3.0
# An extra round that may still run is named beside the ETA when it would add at least this much
# (seconds, and a share of the ETA): a few seconds either way is inside the estimate's own spread.
EXTRA_SHOWN_S = 5.0
EXTRA_SHOWN_SHARE = 0.1
# A run looks at the sessions its steps compete with at most this often (an event's moment; 4-12 ms a look
# here), so its figures are learned at the load the plan reads (advisor.estimates.competing_sessions).
SESSIONS_LOOK_S = 2.0


DURATION_STEP_S = 10  # minutes are shown with seconds rounded to this: a countdown moves every 10 s


def duration(seconds: float) -> str:
    """12 s, 2 min 30 s, 1 h 5 min: whole minutes alone would hold a countdown still for a minute
    ('about 2 min left' from 150 s down to 90 s), so under an hour the seconds show, by tens."""
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 3600 - DURATION_STEP_S / 2:
        minutes, rest = divmod(int(round(seconds / DURATION_STEP_S)) * DURATION_STEP_S, 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60)} min"


# The progress model consumes probes.base.ProbeEvent (or the runners' (run_id, dict) and the TUI's
# mappings: the same fields); ProgressView is the plain data the TUI draws; probe_progress the display
# the CLI prints.

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
    "native_kind",
)


@dataclass(frozen=True)
class Seen:
    """One progress event, read once (`seen`) into what the displays use, whatever its shape."""

    run_id: str  # the run's id (a deploy step's step_id); "" when the event names none
    kind: str  # start | progress | done | replan | pass (one child of a run ended; any other: progress)
    fraction: float | None  # of this run: the scaling launch's own, or epochs done (the accuracy workers)
    total: int | None  # the planned total the runner announces
    status: str | None  # the event's, else its run's
    message: str
    error: str | None  # why its run failed
    images_per_second: float | None  # the event's, else its run's
    tokens_per_second: float | None
    stop_reason: str | None  # why its run stopped measuring
    run: object = field(default=None, compare=False)  # the finished run itself (its timings teach the plan)


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
    if kind == "progress" and data.get("native_kind") == "pass":
        kind = "pass"  # the registry's events keep a runner's own kind apart (probes.base._adapter)
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
        kind=kind if kind in ("start", "progress", "done", "replan", "pass") else "progress",
        fraction=None if fraction is None else float(fraction),
        total=None if total is None else int(total),
        status=data.get("status") or getattr(run, "status", None),
        message=str(data.get("message") or ""),
        error=getattr(run, "error", None),
        images_per_second=data.get("images_per_second") or getattr(run, "images_per_second", None),
        tokens_per_second=data.get("tokens_per_second"),
        stop_reason=getattr(run, "stop_reason", None),
        run=run,
    )


def done_text(event: object, payload: object = None) -> str:
    """What a finished run measured, in a few words, with one status: its grade when it measured
    ('noisy, 2,216 img/s (budget)'; an unusable run is never called ok), else how it ended."""
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
    grade = getattr(ev.run, "quality", None)
    text = grade if isinstance(grade, str) and grade else "ok"
    if ev.images_per_second:
        text += f", {rate_text(float(ev.images_per_second))} img/s"
    elif ev.tokens_per_second:
        text += f", {rate_text(float(ev.tokens_per_second))} tokens/s"
    if grade == "unusable":
        text += ", never scored"
    return text + (f" ({ev.stop_reason})" if ev.stop_reason else "")


@dataclass
class ProgressView:
    """What a progress display shows, as plain data (the TUI draws it, the CLI prints it)."""

    planned: int  # runs planned now (after any re-plan; preparation and rounds that may not run left out)
    finished: int
    fraction: float  # of the planned work, by the estimates (0..1)
    eta_seconds: float | None  # None: nothing planned yet (deploy before its first event)
    over_estimate: bool  # the countdown reached 0 with runs left: the host is slower than estimated
    replanned_from: int | None  # the planned total before the latest re-plan, or None
    text: str  # '3 of 8 runs finished, about 2 min left (estimate)'
    elapsed: float = 0.0  # seconds since the measurement started
    doing: str = ""  # what runs now, when it is preparation ("GEMM peak and parity arrays")
    # the ETA if every extra round still possible runs (None: none is, or it adds little): the ETA weighs
    # such a round by its chance, so just before one starts it reads low until the re-plan
    eta_high_seconds: float | None = None


@dataclass
class _Slot:
    step: Step
    began: Optional[float] = None
    fraction: float = 0.0  # of the timed part (or of the whole, for a step without one)
    reported: Optional[float] = None  # when the step first sent a fraction: its start-up was behind it
    last_step: Optional[float] = None  # when it reported all its steps done: its tail (teardown) began
    done: bool = False
    dropped: bool = False  # an extra round the runner did not run
    extra: bool = False  # planned as an extra round (by its chance), even once the runner announced it
    taken: Optional[float] = None
    run: object = None  # the finished run, as the done event carried it


class ProbeProgress:
    """The planned steps of one probe kind and how far they are, from its events. Each start of a run
    id takes the next free slot of that id in plan order (the training suite repeats ids round by round);
    a start of an extra round's slot, one beyond the plan, a `total` above it or a "replan" event
    re-plans. The ETA shown never rises except at a re-plan: between re-plans it is the lower of the
    fresh estimate and the last one shown minus the time since."""

    def __init__(
        self,
        kind_name: str,
        plan: Plan | list,
        named: bool = True,
        unit: str = "runs",
        default_s: float | None = None,
        now: float | None = None,
        load: Optional[Load] = None,
    ) -> None:
        if not isinstance(plan, Plan):  # [(id, seconds)]: a plain list of steps
            plan = Plan([Step(rid, 0.0, seconds) if not isinstance(rid, Step) else rid for rid, seconds in plan], named)
        self.kind_name = kind_name
        self.plan = plan
        self.named = plan.named  # the plan names its steps: other ids are not steps of it
        self.unit = unit
        longest = max((s.seconds for s in plan.steps if not s.setup), default=10.0)
        self.default_s = default_s if default_s is not None else (plan.each if plan.each is not None else longest)
        self.load = load
        self.lock = threading.RLock()  # the CLI's bar reads the view from its own thread
        self.order: list[_Slot] = []
        self.slots: dict[str, list[int]] = {}  # step id -> its slots' indexes in plan order
        self.current: dict[str, int] = {}
        self.anonymous = plan.announced  # planned steps not yet given an id (deploy: the announced total)
        self.replanned_from: int | None = None
        self.replans = 0
        self._shown: float | None = None
        self._shown_at = 0.0
        self.reestimated: float | None = None  # how much slower than planned, once the ETA was raised for it
        self.started = time.monotonic() if now is None else now
        self.ended: float | None = None
        self.cpu_marks = [_cpu_mark()]  # the host's CPU at the start and the end: the load the steps met
        self.demand: Optional[float] = None  # the run queue at the end (finish): see measured_load
        self.sessions_seen: list[Optional[float]] = []  # the sessions its steps competed with (_look)
        self._looked = -SESSIONS_LOOK_S
        for step in plan.steps:
            self._add(step)

    @classmethod
    def for_config(
        cls,
        kind_name: str,
        config: object,
        now: float | None = None,
        figures: Optional[Figures] = None,
        load: Optional[Load] = None,
    ) -> ProbeProgress:
        plan = plan_for(kind_name, config, figures, load) if config is not None else plan_for(kind_name, None)
        unit = {"deploy": "steps", "scaling": "launches", "pipeline": "passes"}.get(kind_name, "runs")
        return cls(kind_name, plan, unit=unit, now=now, load=load)

    # ---- the plan ------------------------------------------------------------------------------

    def _counted(self, slot: _Slot) -> bool:
        return not slot.step.setup and not slot.dropped and (slot.step.chance >= 1.0 or slot.began is not None)

    @property
    def planned(self) -> int:
        return sum(1 for s in self.order if self._counted(s)) + self.anonymous

    @property
    def finished(self) -> int:
        return sum(1 for s in self.order if s.done and not s.step.setup)

    @property
    def fraction(self) -> dict[str, float]:
        """slot name ('<id>#<n>') -> how far it is (1: finished)."""
        out = {}
        for rid, indexes in self.slots.items():
            for n, i in enumerate(indexes):
                slot = self.order[i]
                out[f"{rid}#{n}"] = 1.0 if slot.done else slot.fraction
        return out

    def _add(self, step: Step) -> int:
        self.order.append(_Slot(step, extra=step.chance < 1.0))
        index = len(self.order) - 1
        self.slots.setdefault(step.id, []).append(index)
        return index

    def _replan(self, before: int) -> None:
        if self.planned > before:
            self.replanned_from, self.replans = before, self.replans + 1
            self._shown = None  # the one time the ETA may rise: said so in the text

    def _slot(self, rid: str, kind: str, now: float) -> Optional[int]:
        if rid not in self.slots and self.named:
            return None  # not a planned step (a child the plan does not name)
        if kind == "start" or rid not in self.current:
            before = self.planned
            free = [i for i in self.slots.get(rid, []) if self.order[i].began is None and not self.order[i].done]
            free = [i for i in free if not self.order[i].dropped]
            if free:
                index = free[0]
            else:
                if self.anonymous:
                    self.anonymous -= 1  # an announced step arrives: no growth
                same = self.slots.get(rid)
                seconds = self.order[same[-1]].step.seconds if same else (self.plan.each_for(rid) or self.default_s)
                one_off = self._first_extra()  # the first announced step's one-off cost
                seconds += one_off
                tail, steps = self.plan.tail_for(rid)
                tail, steps = min(seconds, tail), min(seconds - min(seconds, tail), steps)
                step = Step(
                    rid, 0.0, seconds, by_clock=self.plan.by_clock, tail_s=tail, steps_s=steps, one_off_s=one_off
                )
                index = self._add(step)
            self.current[rid] = index
            self.order[index].began = now  # an extra round's slot counts as planned from here
            self._passed(index, now)
            self._replan(before)
        return self.current[rid]

    def _passed(self, index: int, now: float) -> None:
        """A step starts: the silent steps before it are behind us, and so are the extra rounds the
        runner went past without running."""
        for slot in self.order[:index]:
            if slot.done or slot.dropped:
                continue
            if slot.began is None and slot.step.chance < 1.0:
                slot.dropped = True
            elif slot.step.setup and slot.began is None:
                slot.done, slot.began, slot.taken = True, now, None  # silent: no events of its own
            elif slot.step.setup:  # preparation the runner left without a word: it is over
                slot.done = True

    # ---- events --------------------------------------------------------------------------------

    def on_event(
        self,
        event: object,
        payload: object = None,
        *,
        fraction: float | None = None,
        total: int | None = None,
        now: float | None = None,
        run: object = None,
    ) -> None:
        """A ProbeEvent / mapping, a runner's (run_id, dict), an event already `seen`, or (run_id, kind)
        with fraction/total/run."""
        if isinstance(event, str) and isinstance(payload, str):  # (run_id, kind): the TUI's messages
            rid, kind = event, payload
        else:
            ev = seen(event, payload)
            rid, kind, fraction, total, run = ev.run_id or "?", ev.kind, ev.fraction, ev.total, ev.run
        now = time.monotonic() if now is None else now
        with self.lock:
            self._look(now)
            if total is not None and int(total) > self.planned:
                before = self.planned
                # the runner's total counts the extra round it starts: the plan's own slots for it, not
                # new steps (counted twice, an extra round of the quick profile read 2x its time)
                self.anonymous += int(total) - before - self._promote(int(total) - before)
                if before > 0 or any(s.began is not None for s in self.order):  # the first total is the plan
                    self._replan(before)
            if kind == "replan":
                return
            if kind == "pass":
                self._pass(rid, now)
                return
            if kind == "done" and rid in self.slots and all(self.order[i].done for i in self.slots[rid]):
                self.order[self.slots[rid][-1]].run = run  # its passes were steps: the merged run ends them
                return
            index = self._slot(rid, kind, now)
            if index is None:
                return
            slot = self.order[index]
            if kind == "start" or slot.began is None:
                slot.began = now if slot.began is None else slot.began
            if kind == "done":
                slot.done, slot.fraction, slot.taken, slot.run = True, 1.0, now - slot.began, run
                if _grade(run) == "unusable":
                    self._unusable(slot.step.id)
            elif kind == "progress" and fraction is not None:
                # a child's first step ends its start-up, not its first word: a dynamic-shape child says 0
                # as it builds its first way's model (10 s of a GPT probe's 18 s child on a 16-core host,
                # whose ETA then read 0.05x); a launch's word at 0 does end its start-up
                if slot.reported is None and (float(fraction) > 0.0 or slot.step.by_clock):
                    slot.reported = now
                slot.fraction = max(slot.fraction, min(0.99, float(fraction)))
                if float(fraction) >= 1.0 and slot.last_step is None:
                    slot.last_step = now

    def _promote(self, wanted: int) -> int:
        """Up to `wanted` slots of the extra rounds the plan weighs by their chance, first first, made
        certain (the runner announced that it runs them); returns how many."""
        pending = [
            s for s in self.order if not s.step.setup and not s.dropped and s.began is None and s.step.chance < 1.0
        ]
        for slot in pending[:wanted]:
            slot.step = replace(slot.step, chance=1.0)
        return min(wanted, len(pending))

    def _unusable(self, rid: str) -> None:
        """A run came back graded unusable: the round it belongs to gives its comparisons no pair. When
        the rounds planned can no longer give MIN_PAIRS usable pairs, the runner runs the extra round the
        plan weighed by its chance (probes.training.runner: while a comparison is undecided): that round
        is made certain now, a visible re-plan, not a countdown that runs out before it starts."""
        from probes.quality import MIN_PAIRS

        pending = [s for s in self.order if s.began is None and not s.dropped and s.step.chance < 1.0]
        first = next((s for s in pending if s.step.id == rid), None)
        if first is None:
            return
        ids = {s.step.id for s in self.order if s.step.group == first.step.group and not s.step.setup}
        certain = {i: [s for s in self.order if s.step.id == i and s.step.chance >= 1.0] for i in ids}
        spoiled = {
            n for slots in certain.values() for n, s in enumerate(slots) if s.done and _grade(s.run) == "unusable"
        }
        if max(len(slots) for slots in certain.values()) - len(spoiled) >= MIN_PAIRS:
            return  # enough rounds left to pair: the runner may stop without another
        before, group, chance = self.planned, first.step.group, first.step.chance  # the next extra round's
        for slot in pending:
            if slot.step.group == group and slot.step.chance == chance:
                slot.step = replace(slot.step, chance=1.0)
        self._replan(before)

    def _pass(self, rid: str, now: float) -> None:
        """One child of a run with several (the pipeline probe's passes) ended: its next step of that id
        is done, begun when the step before it ended if the runner announced no start for it."""
        free = [i for i in self.slots.get(rid, []) if not self.order[i].done]
        if not free:
            return
        slot = self.order[free[0]]
        if slot.began is None:
            ends = [s.began + s.taken for s in self.order if s.done and s.began is not None and s.taken is not None]
            slot.began = max(ends, default=self.started)
        slot.done, slot.fraction, slot.taken = True, 1.0, max(0.0, now - slot.began)

    def finish(self, now: float | None = None) -> None:
        """The measurement ended (finished, cancelled or failed): the clock stops."""
        with self.lock:
            self.ended = time.monotonic() if now is None else now
            self.cpu_marks = self.cpu_marks[:1] + [_cpu_mark()]
            self.demand = _demand()
            self._look(self.ended, always=True)

    def _look(self, now: float, always: bool = False) -> None:
        """One look at the sessions the steps compete with (this process's and its children's left out), at
        most every SESSIONS_LOOK_S of the run (an event's moment), for the load it is learned under."""
        if always or now - self._looked >= SESSIONS_LOOK_S:
            self._looked = now
            self.sessions_seen.append(_competing_sessions())

    @property
    def sessions(self) -> Optional[float]:
        """The mean of the sessions seen while it ran; None where a look could not tell or none was taken."""
        return mean_sessions(self.sessions_seen)

    def measured_load(self) -> Optional[Load]:
        """The other processes' load while it ran (after finish; advisor.estimates.measured_load): the
        load its steps' times were taken under, which the plan's load, read before, may miss."""
        from advisor.estimates import measured_load

        if len(self.cpu_marks) != 2:
            return None
        return measured_load(self.cpu_marks[0], self.cpu_marks[-1], self.demand, self.sessions)

    # ---- the estimate --------------------------------------------------------------------------

    def _ratios(self, now: float | None) -> dict[tuple, tuple[float, float]]:
        """(seconds taken, seconds estimated) of the steps behind us, summed per step (its id without a
        seed), per family of steps (set-up, timed runs, dynamic-shape children, the rest) and over all;
        a running step already past its estimate counts by the time it has taken so far (the rest is
        re-estimated while it overruns, not only after it ends)."""
        seen: list[tuple[Step, float]] = [(s.step, s.taken) for s in self.order if s.done and s.taken is not None]
        if now is not None:
            for slot in self.order:
                if slot.began is not None and not slot.done and not slot.dropped:
                    if now - slot.began > slot.step.seconds > 0:
                        seen.append((slot.step, now - slot.began))
        sums: dict[tuple, tuple[float, float]] = {}
        for step, took in seen:
            if step.seconds <= 0:
                continue
            # a one-off cost may or may not have come: a step that took less than its estimate with it and
            # more than without it was as planned (a warm page cache's first export took no longer than
            # the next: compared with the one-off counted, it read the host 0.6x and held the ETA low)
            estimate = min(step.seconds, max(step.seconds - step.one_off_s, took))
            for key in (("id", _same(step)), ("family", _family(step)), ("all",)):
                t, e = sums.get(key, (0.0, 0.0))
                sums[key] = (t + took, e + estimate)
        return sums

    def _ratio(self, step: Step, sums: dict[tuple, tuple[float, float]]) -> float:
        """How the steps most like this one compared with their estimate (1: as estimated): the same
        step's earlier rounds, else its family's, else all, each shrunk toward 1 by its prior and bounded.
        One global ratio moved a GPT probe's dynamic-shape children by what its timed runs showed (0.5x)."""
        for key in (("id", _same(step)), ("family", _family(step)), ("all",)):
            if key in sums:
                took, est = sums[key]
                prior = SCALE_PRIOR_S[key[0]]
                return min(SCALE_BOUNDS[1], max(SCALE_BOUNDS[0], (took + prior) / (est + prior)))
        return 1.0

    def scale(self, now: float | None = None) -> float:
        """How all the steps so far compared with their estimate (1: as estimated), shrunk and bounded."""
        sums = self._ratios(now)
        took, est = sums.get(("all",), (0.0, 0.0))
        ratio = (took + SCALE_PRIOR_S["family"]) / (est + SCALE_PRIOR_S["family"])
        return min(SCALE_BOUNDS[1], max(SCALE_BOUNDS[0], ratio))

    def _left(self, slot: _Slot, now: float, scale: float) -> float:
        step = slot.step
        fixed, timed = step.fixed_s * scale, step.timed_s * scale
        if slot.began is None:
            return (fixed + timed) * min(1.0, step.chance)
        if slot.reported is not None and not step.by_clock:
            # its start-up is behind it: what is left of the timed part, by its fraction or by the clock
            # since it first reported, whichever went further (a fraction of the budget stops at 1 while
            # the protocol's minimum samples go on)
            part = timed or fixed
            per = (step.per_fraction_s * scale) if step.per_fraction_s else part
            went = max(slot.fraction * per, now - slot.reported)
            return max(part - went, OVERRUN_SHARE * (now - slot.reported))
        # by the clock until it says more; past its estimate, a share of its time so far again
        elapsed = now - slot.began
        left = max(fixed + timed - elapsed, OVERRUN_SHARE * elapsed)
        if (step.tail_s or step.steps_s) and slot.reported is not None:
            # its start-up is behind it: what its fraction leaves of its steps, then its teardown by the
            # clock from its last step (by the clock alone, a launch's last 20 s read 0.5-0.65x when it
            # ran over its estimate, 1.5-1.95x when it ran under)
            if slot.last_step is None:
                return (step.steps_s * (1.0 - slot.fraction) + step.tail_s) * scale
            since = now - slot.last_step
            return max(step.tail_s * scale - since, OVERRUN_SHARE * since)
        return left

    def _done_part(self, slot: _Slot, now: float) -> float:
        """The planned seconds of a step behind us: all of a finished one; of a running one, what its
        fraction or its clock says, whichever went further (a step counted by the clock, as the GEMM
        peak / parity child, moves the bar too), never all of it until it ends."""
        step = slot.step
        if slot.done:
            return step.seconds
        by_fraction = 0.0 if step.by_clock else (step.timed_s or step.fixed_s) * slot.fraction
        by_clock = step.seconds - (
            step.seconds - (now - slot.began) if slot.reported is None else self._left(slot, now, 1.0)
        )
        return min(0.99 * step.seconds, max(by_fraction, by_clock))

    def raw_remaining(self, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        with self.lock:
            sums = self._ratios(now)
            left = (self.anonymous * self.default_s + self._first_extra()) * self._ratio(Step("", self.default_s), sums)
            previous_end = self.started
            for slot in self.order:
                if slot.done:
                    previous_end = max(previous_end, (slot.began or 0.0) + (slot.taken or 0.0))
                    continue
                if slot.dropped:
                    continue
                if slot.began is None and (slot.step.silent or slot.step.setup and not self.slots_with_events(slot)):
                    # a silent step right after the last one that ended: counts by the clock
                    left += max(0.0, slot.step.seconds * self._ratio(slot.step, sums) - max(0.0, now - previous_end))
                    previous_end = now
                    continue
                left += self._left(slot, now, self._ratio(slot.step, sums))
            return left

    def slots_with_events(self, slot: _Slot) -> bool:
        """Whether the runner names this step in its events (not the SILENT_STEPS)."""
        return not slot.step.id.startswith(SILENT_STEPS)

    def remaining_seconds(self, now: float | None = None) -> float:
        """The ETA shown: it counts down, below the fresh estimate by at most REESTIMATE_FACTOR and
        REESTIMATE_MIN_S; further below, it rises to the fresh estimate and says so in words (a re-plan
        or a re-estimate). A countdown held while the steps ran over reached 0 minutes before the end."""
        now = time.monotonic() if now is None else now
        with self.lock:
            fresh = self.raw_remaining(now)
            if self._shown is not None:
                countdown = max(0.0, self._shown - (now - self._shown_at))
                if fresh > countdown * REESTIMATE_FACTOR + REESTIMATE_MIN_S:
                    self.reestimated = self.scale(now)  # said in the text: the one other time it rises
                else:
                    fresh = min(fresh, countdown)
            self._shown, self._shown_at = fresh, now
            return fresh

    def estimate_seconds(self) -> float:
        """The whole plan as estimated before it started (extra rounds by their share)."""
        planned = sum(s.step.seconds * min(1.0, s.step.chance) for s in self.order)
        return planned + self.anonymous * self.default_s + self._first_extra()

    def estimate_range(self) -> Optional[tuple[float, float]]:
        """(fastest, slowest) seconds a plan with figures this host has not measured yet may take: the plan
        without its extra rounds times FIRST_RUN_LOW (its kind's, FIRST_RUN_LOW_OF) to the plan with all of
        them times FIRST_RUN_HIGH; None when every figure is this host's own (one figure is stated then)."""
        if not self.plan.unmeasured:
            return None
        whole = self.estimate_seconds()
        chance = sum(s.step.seconds * s.step.chance for s in self.order if s.step.chance < 1.0)
        low = (whole - chance) * FIRST_RUN_LOW_OF.get(self.kind_name, FIRST_RUN_LOW)
        return low, (whole + self.if_extra_rounds(self.started)) * FIRST_RUN_HIGH

    def promise(self) -> str:
        """The plan's time in words, as the opening states it: 'about 39 s', or a range for a plan this host
        has not run yet ('20 s to 70 s')."""
        span = self.estimate_range()
        if span is None:
            return f"about {duration(self.estimate_seconds())}"
        return f"{duration(span[0])} to {duration(span[1])}"

    def if_extra_rounds(self, now: float | None = None) -> float:
        """The seconds the extra rounds that may still run add beyond the share the ETA gives them."""
        now = time.monotonic() if now is None else now
        with self.lock:
            sums = self._ratios(now)
            return sum(
                s.step.seconds * (1.0 - s.step.chance) * self._ratio(s.step, sums)
                for s in self.order
                if s.began is None and not s.dropped and s.step.chance < 1.0
            )

    def _first_extra(self) -> float:
        """The plan's one-off cost of its first announced step, until a step has started."""
        if not self.anonymous or any(s.began is not None for s in self.order):
            return 0.0
        return self.plan.first_extra_s

    def doing(self) -> str:
        """The preparation step running now, in words ("" when a run is running)."""
        for slot in self.order:
            if slot.began is not None and not slot.done and slot.step.setup:
                fw = slot.step.id.removesuffix("-aux")
                return f"{fw}: GEMM peak and parity arrays" if slot.step.id.endswith("-aux") else ""
        return ""

    def view(self, now: float | None = None) -> ProgressView:
        now = time.monotonic() if now is None else now
        with self.lock:
            planned, finished = self.planned, self.finished
            elapsed = (self.ended or now) - self.started
            if planned == 0:
                return ProgressView(
                    0,
                    0,
                    0.0,
                    None,
                    False,
                    None,
                    f"preparing (the {self.unit} are announced as they start)",
                    elapsed,
                )
            done_all = finished >= planned and not any(
                not s.done and not s.dropped and s.began is not None for s in self.order
            )
            eta = 0.0 if done_all else self.remaining_seconds(now)
            total_est = sum(
                s.step.seconds * (1.0 if s.began is not None else min(1.0, s.step.chance))
                for s in self.order
                if not s.dropped
            )
            total_est += self.anonymous * self.default_s + self._first_extra()
            done_est = sum(self._done_part(s, now) for s in self.order if not s.dropped and s.began is not None)
            over = not done_all and eta < 0.5
            doing = self.doing()
            extra = 0.0 if done_all else self.if_extra_rounds(now)
            high = eta + extra if extra >= max(EXTRA_SHOWN_S, EXTRA_SHOWN_SHARE * eta) else None
            text = f"{finished} of {planned} {self.unit} finished"
            if not done_all:
                if over:
                    text += ", running over the estimate (this host is slower than planned)"
                else:
                    text += f", about {duration(eta)} left (estimate)"
                    if high is not None and duration(high) != duration(eta):
                        text += f", up to {duration(high)} if another round is needed"
            if self.replanned_from is not None:
                text += f"; re-planned: {planned} {self.unit} (was {self.replanned_from})"
            if self.reestimated is not None and not done_all:
                text += (
                    f"; re-estimated: this host runs {self.reestimated:.1f}x slower than planned"
                    if self.reestimated >= 1.1
                    else "; re-estimated from the steps so far"
                )
            return ProgressView(
                planned=planned,
                finished=finished,
                fraction=min(1.0, done_est / total_est) if total_est > 0 else 0.0,
                eta_seconds=eta,
                over_estimate=over,
                replanned_from=self.replanned_from,
                text=text,
                elapsed=elapsed,
                doing=doing,
                eta_high_seconds=high,
            )

    def opening(self) -> str:
        """The plan in one line, before anything runs: how many runs, how long, what it counted, and how
        long if every extra round the comparisons may need runs."""
        view = self.view(self.started)
        if not view.planned:
            return f"{self.unit} announced as they start"
        counted = []
        setup = [s for s in self.order if s.step.setup and s.step.id.endswith("-aux")]
        if setup:
            counted.append(f"{len(setup)} set-up step{'s' if len(setup) != 1 else ''}")
        if self.plan.cold:
            counted.append(f"{len(self.plan.cold)} cold torch.compile")
        if self.load is not None:
            counted.append(self.load.text())
        eta, ranged = self.estimate_seconds(), self.estimate_range() is not None
        if ranged:  # why one figure would not hold: the host's own times are not known yet
            counted.insert(0, "a first run here")
        text = f"{view.planned} {self.unit} planned, {self.promise()} (estimate"
        text += f": {', '.join(counted)})" if counted else ")"
        extra = sum(1 for s in self.order if not s.step.setup and s.step.chance < 1.0)
        if extra and ranged:
            text += f"; the longer time counts up to {extra} more if the comparisons need another round"
        elif extra:
            every = duration(eta + self.if_extra_rounds(self.started))
            text += f"; up to {extra} more if the comparisons need another round ({every} in all)"
        return text

    # the TUI's SuiteClock interface (tui.controller, tui.screens.probes)
    @property
    def total(self) -> int:
        return self.planned

    def status(self, now: float | None = None) -> str:
        return self.view(now).text

    def actuals(self) -> list[tuple[Step, float, object]]:
        """Every finished step: its plan, the seconds it took and the run it carried (host_timings learns
        this host's figures from them)."""
        with self.lock:
            return [(s.step, s.taken, s.run) for s in self.order if s.done and s.taken is not None]


def _same(step: Step) -> str:
    """The steps that are one another's rounds: the same id (the accuracy runs' without their seed, the
    scaling launches' without their rank count and repetition: one framework's launches)."""
    import re

    return re.sub(r"(-seed\d+|-r\d+-rep\d+)$", "", step.id)


def _grade(run: object) -> Optional[str]:
    """The noise grade a finished run carries (its model, or its dict through the probe registry)."""
    return run.get("quality") if isinstance(run, Mapping) else getattr(run, "quality", None)


def _family(step: Step) -> str:
    """The steps alike enough to learn from one another. A dynamic-shape child's family is its framework's:
    PyTorch eager's stalls and MindSpore's per-shape graph compiles are unlike work (in a GPT probe here on
    2026-12-03 eager's child took 1.45x its plan and MindSpore's then 0.76x, its ETA 1.5-3.9x the time left
    while it learned from eager's; in the earlier recording they took 1.12x and 0.87x)."""
    if step.setup:
        return "setup"
    if step.per_fraction_s:
        return "timed"
    return f"dynamic-{step.id.split('-', 1)[0]}" if step.id.endswith("-dynamic") else "step"


def _cpu_mark():
    from advisor.estimates import cpu_mark

    try:
        return cpu_mark()
    except (OSError, ValueError):  # no /proc/stat, no rusage: the plan's load stands in
        return None


def _competing_sessions() -> Optional[float]:
    from advisor.estimates import competing_sessions

    try:
        return competing_sessions()
    except (OSError, ValueError):  # /proc unreadable: the load average stands in
        return None


def _demand() -> Optional[float]:
    """The host's runnable demand now (the 1-minute load average), or None where unreadable."""
    from probes import hostfacts

    avg = hostfacts.loadavg()
    return float(avg[0]) if avg else None


def _terminal(stream: TextIO) -> bool:
    """A terminal that can redraw a line (TERM=dumb cannot: plain lines there, as when piped)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def planned(kind_name: str, config: object, window: Optional[float] = None) -> ProbeProgress:
    """The progress model of `config` with this host's figures and the contention now."""
    from advisor import host_timings
    from advisor.estimates import load_now

    try:
        load = load_now(window)
    except Exception:  # noqa: BLE001 - /proc unreadable: plan for a quiet host
        load = None
    return ProbeProgress.for_config(kind_name, config, figures=host_timings.figures(), load=load)


@contextlib.contextmanager
def probe_progress(
    kind_name: str, config: object, stream: TextIO | None = None, enabled: bool | None = None
) -> Iterator[OnEvent]:
    """The CLI's progress for every probe kind: `with probe_progress("accuracy", config) as on_event:`
    then hand `on_event` to the runner (it takes a ProbeEvent or any runner's typed event, a mapping,
    or a runner's (run_id, dict)). On a terminal a rich bar with the planned total and an ETA that
    moves every second; otherwise one line when it starts, one per finished run and one per re-plan,
    with the same words. Everything goes to `stream` (stderr): stdout keeps the result alone. What the
    steps took teaches this host's figures (advisor.host_timings) when the measurement ends."""
    stream = stream or sys.stderr
    progress = planned(kind_name, config, window=0.5 if config is not None else None)
    if enabled is None:
        enabled = _terminal(stream)
    width = _width(stream)
    print(_wrapped(f"advisor: {kind_name}: {progress.opening()}", width), file=stream, flush=True)
    try:
        if not enabled:

            def plain(event: object, payload: object = None) -> None:
                ev = seen(event, payload)
                rid = ev.run_id or "?"
                was = progress.replans
                progress.on_event(ev)
                if ev.kind == "done" and rid in progress.slots and not _setup(progress, rid):
                    line = f"advisor: {_named(rid, ev)}: {done_text(ev)} ({progress.view().text})"
                    print(_wrapped(line, width), file=stream, flush=True)
                elif progress.replans > was:
                    print(_wrapped(f"advisor: {kind_name}: {progress.view().text}", width), file=stream, flush=True)

            yield plain
        else:
            yield from _bar(kind_name, progress, stream)
    finally:
        progress.finish()
        _learn(kind_name, config, progress)
    elapsed = progress.view().elapsed
    print(_wrapped(f"advisor: {kind_name}: finished in {duration(elapsed)}{unscored_text(progress)}", width),
          file=stream, flush=True)  # fmt: skip


def _bar(kind_name: str, progress: ProbeProgress, stream: TextIO) -> Iterator[OnEvent]:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn
    from rich.text import Text

    class Status(ProgressColumn):
        """The ETA read again at every refresh (ten a second), not only when an event arrives."""

        def render(self, task) -> Text:
            return Text(progress.view().text, overflow="fold")

    with Progress(
        TextColumn("{task.description}", markup=False),  # run ids and errors are text, not rich markup
        BarColumn(),
        Status(),
        console=Console(file=stream),
        transient=True,
    ) as bar:
        task = bar.add_task(kind_name, total=1.0)

        def rich_event(event: object, payload: object = None) -> None:
            ev = seen(event, payload)
            rid = ev.run_id or "?"
            progress.on_event(ev)
            view = progress.view()
            # a child that is not a run (the GEMM peak / parity child) is named by what it does
            what = (
                _named(rid, ev)
                if rid in progress.slots and not _setup(progress, rid)
                else (view.doing or ev.message or kind_name)
            )
            bar.update(task, completed=view.fraction, description=what)
            if ev.kind == "done" and rid in progress.slots and not _setup(progress, rid):
                line = _wrapped(f"{_named(rid, ev)}: {done_text(ev)}", bar.console.width)
                bar.console.print(line, markup=False, highlight=False, soft_wrap=True)  # wrapped here, indented

        yield rich_event


def unscored_text(progress: ProbeProgress) -> str:
    """'; not scored: <runs> ...' when a run measured in every round was graded unusable in each (a busy
    host): the last progress line, right above the result, says so and what to do; "" otherwise."""
    graded: dict[str, list[Optional[str]]] = {}
    for slot in progress.order:
        grade = _grade(slot.run) if slot.done and not slot.step.setup else None  # graded: it measured
        if grade is not None:
            graded.setdefault(slot.step.id, []).append(grade)
    bad = [rid for rid, grades in graded.items() if all(g == "unusable" for g in grades)]
    if not bad:
        return ""
    return (
        f"; not scored: {', '.join(bad)} graded unusable in every round (the host was busy): rerun when it is "
        "quieter, or measure longer (a longer --budget, more rounds with --max-repeat)"
    )


def _setup(progress: ProbeProgress, rid: str) -> bool:
    return all(progress.order[i].step.setup for i in progress.slots.get(rid, [])) and rid in progress.slots


def _named(rid: str, ev: Seen) -> str:
    """A run's name with its round, when it has one: its numbers are that round's, not the merged run's."""
    rnd = getattr(ev.run, "settings", None)
    rnd = rnd.get("round") if isinstance(rnd, Mapping) else None
    return f"{rid} (round {int(rnd) + 1})" if isinstance(rnd, int) else rid


def _width(stream: TextIO) -> int:
    import shutil

    return max(60, min(shutil.get_terminal_size((100, 24)).columns, 160)) if _terminal(stream) else 100


def _wrapped(text: str, width: int) -> str:
    """A long progress line wrapped at words, its continuation indented under the text (never cut)."""
    import textwrap

    return textwrap.fill(text, width, subsequent_indent="    ", break_long_words=False, break_on_hyphens=False)


def _learn(kind_name: str, config: object, progress: ProbeProgress) -> None:
    if config is None:
        return
    try:
        from advisor import host_timings

        host_timings.learn(kind_name, config, progress)
    except Exception:  # noqa: BLE001 - a full disk or a read-only cache never fails the probe
        pass
