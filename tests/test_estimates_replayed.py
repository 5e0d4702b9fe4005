"""Estimates judged on real runs: the progress events of probes recorded on this project's loaded 2-core
machine kind (benchmarks/probe_estimates.py --record, then --export into tests/fixtures/eta_records: six
kinds, a first run on an empty cache and a second with this host's figures, at 1-minute loads of 1.6-11),
fed again at their recorded times to this checkout's progress model, as the benchmark's --replay does.
Deterministic: no probe runs and no clock is read. Each recording's opening estimate must be within
0.67-1.5x of the time the run took, and 90% of the ETAs shown while it ran within 0.67-1.5x of the time
really left. The model before this change held 71% of them (accuracy 43-61%, a quick probe's extra round
57%, a loaded deployment 12%) and opened three of the nine runs outside the goal (1.87-2.14x). Twelve later
runs kept what their plan read of the host (the run queue with the 1-minute average): by the average
alone one opened 1.55x, and their ETAs held 88% (a GPT probe's 78%, a scaling run's 84%); then 95%.

Since the defaults became quiet-host figures and the contention was refitted (2026-12-04: a quiet first
run had opened 1.5-2.4x high, tests/test_estimates_quiet.py), these loaded runs keep their openings inside
and 92.1% of their ETAs (94.1% before): the one opening left outside (a deployment's second run, 1.52x) had
learned its figure by the rule before one figure per run (advisor.host_timings.fold: relearned below, 1.33x).
A loaded run's steps are not its quiet steps slowed alike (PyTorch's accuracy epochs 0.4 s quiet, 16-28 s
loaded), so the early ETAs of a loaded run move more than they did from loaded figures (the GEMM / parity
children, the runs' start-ups and each framework's accuracy child have their own weights: 88.1% without)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor import estimates, host_timings
from advisor.estimates import Figures, Load, LoadReading
from advisor.progress import ProbeProgress
from probes.base import KINDS

GOAL = (0.67, 1.5)
SAMPLE_S = 2.0  # the benchmark's: an ETA read every 2 s between events
MIN_LEFT_S = 10.0  # the benchmark's: ETAs with less than this really left are not judged
FOLDER = Path(__file__).parent / "fixtures" / "eta_records"


def load_of(rec: dict) -> Load | None:
    """The plan's load: by this checkout's rule from what the plan read (recordings that kept it), else
    the load the recorded plan used."""
    if rec.get("reading"):
        return LoadReading(**rec["reading"]).load()
    return Load(*rec["load"]) if rec["load"] else None


def figures_of(rec: dict) -> Figures:
    """The host's figures the recorded plan started from, read as this checkout reads a file of their
    version (the recordings before version 2 kept version 1's: advisor.host_timings.migrated)."""
    if rec.get("figures_version", 1) < host_timings.VERSION:
        return Figures(host_timings.migrated(rec["figures"]))
    return Figures(rec["figures"])


def replay(rec: dict, monkeypatch=None) -> tuple[float, list[float]]:
    """(the opening estimate, each judged ETA over the time really left)."""
    opening, trace = replay_run(rec)
    return opening, [ratio for _, ratio in trace]


def replay_trace(rec: dict) -> list[tuple[float, float]]:
    """(when, the ETA over the time really left) of each judged ETA."""
    return [(at, ratio) for at, ratio, _ in replay_ranges(rec)]


def replay_run(rec: dict) -> tuple[float, list[tuple[float, float]]]:
    opening, etas = replay_all(rec)
    return opening, [(at, ratio) for at, ratio, _ in etas]


def replay_ranges(rec: dict) -> list[tuple[float, float, float]]:
    """(when, the ETA over the time really left, the ETA if another round is needed over it) of each
    judged ETA; the two ratios equal when no extra round is named."""
    return replay_all(rec)[1]


def planned(rec: dict) -> ProbeProgress:
    """The recorded run's progress model as its plan opened it: the compile cache as it was then, and the
    install it read (the recordings that kept none: both frameworks, a CPU build of torch, as on this host)."""
    warm = {(folder, model): w for folder, model, w in rec["warm"]}
    real = estimates.compile_cache_warm, estimates.missing_frameworks, estimates.torch_cuda_build
    estimates.compile_cache_warm = lambda folder, model: warm.get((folder, model), False)
    installed = set(rec.get("installed", ("pytorch", "mindspore")))
    estimates.missing_frameworks = lambda frameworks: frozenset(frameworks or []) - installed
    estimates.torch_cuda_build = lambda: bool(rec.get("cuda_build", False))
    try:
        config = KINDS[rec["name"]].Config(**rec["config"])
        return ProbeProgress.for_config(rec["name"], config, now=0.0, figures=figures_of(rec), load=load_of(rec))
    finally:
        estimates.compile_cache_warm, estimates.missing_frameworks, estimates.torch_cuda_build = real


# The kinds whose steps share one figure per key (a deployment's steps, a scaling run's launches per
# framework, a pipeline's passes): until 2026-12-04 each step's own quotient was folded in one after the other,
# so the last few steps decided (a deployment's two short ONNX Runtime serves came last and taught a full step
# 1.7x its time). Their second runs' figures are learned again from the run before by today's rule.
RELEARNED_KINDS = ("deploy", "scaling", "pipeline")


def relearned(runs: list[dict], kinds: tuple[str, ...] = RELEARNED_KINDS) -> list[dict]:
    """One recording file's runs in order (they shared a cache), each later run of a RELEARNED_KINDS kind with
    its kind's figures learned again (advisor.host_timings.fold) from the run of its kind before it, at the
    load that learning divided by (the figures' recorded foreign_cores: every step of it put the same)."""
    out: list[dict] = []
    before: dict[str, dict] = {}
    for rec in runs:
        earlier, table = before.get(rec["kind"]), rec["figures"].get(rec["name"]) or {}
        entry = next((e for e in table.values() if isinstance(e, dict) and "foreign_cores" in e), None)
        # Only where that load is today's rule's: figures of version 2 (since 2026-12-04), or above the cores (it
        # counted a saturated host's run queue, since 2026-12-03 17:01; busy CPU alone reads at most the cores).
        # The earlier recordings divided by busy CPU alone, which today's rule does not repeat: their figures
        # stay as recorded, read in today's units.
        today = entry is not None and (
            rec.get("figures_version", 1) >= host_timings.VERSION or entry["foreign_cores"] > entry.get("cores", 2)
        )
        if rec["name"] in kinds and earlier is not None and today:
            data = {rec["name"]: json.loads(json.dumps(figures_of(earlier).measured.get(rec["name"], {})))}
            progress = planned(earlier)
            for at, event in earlier["events"]:
                progress.on_event(event, now=at)
            config = KINDS[earlier["name"]].Config(**earlier["config"])
            host_timings.fold(data, rec["name"], config, progress, Load(entry.get("cores", 2), entry["foreign_cores"]))
            measured = {**figures_of(rec).measured, rec["name"]: data[rec["name"]]}
            rec = {**rec, "figures": measured, "figures_version": host_timings.VERSION}
        before[rec["kind"]] = rec
        out.append(rec)
    return out


def replay_all(rec: dict) -> tuple[float, list[tuple[float, float, float]]]:
    opening, etas, _ = replay_run_of(rec)
    return opening, etas


def replay_stated(rec: dict) -> list[float]:
    """Each judged progress line's estimate over the time really left, as the line states it: the ETA, or,
    where the line names the time if another round is needed and that round came later, that time."""
    _, etas, extra_began = replay_run_of(rec)
    return [high if extra_began is not None and extra_began > at else ratio for at, ratio, high in etas]


def replay_run_of(rec: dict) -> tuple[float, list[tuple[float, float, float]], float | None]:
    """(the opening, each judged ETA as replay_ranges gives it, when the first extra round began or None)."""
    progress = planned(rec)
    opening = progress.estimate_seconds()
    extra_slots = [s for s in progress.order if s.step.chance < 1.0 and not s.step.setup]
    actual, etas, clock = rec["actual"], [], 0.0

    def sample(now: float) -> None:
        view = progress.view(now)
        if view.eta_seconds is not None and view.finished < view.planned and actual - now >= MIN_LEFT_S:
            high = view.eta_high_seconds or view.eta_seconds
            etas.append((now, view.eta_seconds / (actual - now), high / (actual - now)))

    for at, event in rec["events"]:
        while clock + SAMPLE_S < at:
            clock += SAMPLE_S
            sample(clock)
        progress.on_event(event, now=at)
        sample(at)
        clock = max(clock, at)
    while clock + SAMPLE_S < actual:
        clock += SAMPLE_S
        sample(clock)
    began = [s.began for s in extra_slots if s.began is not None]
    return opening, etas, min(began) if began else None


# the nine runs the change was judged on (before and after); then twelve fresh ones after it, their
# openings not held to the goal: a second run when the host turned quieter under the same load reading
# opened 1.5x high (and 1.5-2.7x before learning counted a saturated host's run queue: README); then
# twelve whose plan sampled the run queue too (advisor.estimates.LoadReading: replayed by this checkout's
# rule), every kind once on an empty cache and the cheap kinds twice more, at 1-minute loads of 2.9-8.8
RECORDINGS = relearned(json.loads((FOLDER / "loaded-2-cores.json").read_text()))
FRESH = relearned(json.loads((FOLDER / "fresh-runs.json").read_text()))
QUEUED = relearned(json.loads((FOLDER / "queue-sampled.json").read_text()))
# and six fresh runs with this model (the cheap kinds on an empty cache, then again), not used to fit it
QUEUED += relearned(json.loads((FOLDER / "final-model.json").read_text()))
# ten runs of 2026-12-04 on a quiet host with CPU burners, each in a session of its own (training --quick and
# a deployment; none, 2 at nice 10, 2 at nice 0, 4 at nice 19, 3 at nice 0; one cache through them all), not
# used to fit: their deployments' figures learned by the rule before this one opened 1.27-2.19x
BURNERS = relearned(json.loads((FOLDER / "burners.json").read_text()))
# twelve runs planned and learned live by the rules of 2026-12-04 (one figure per run, the others counted by
# session: tests/test_estimates_sessions.py), so replayed as they learned: quick, deployment and accuracy,
# quiet, then twice beside one session of six spinners, then beside three burners in sessions of their own
LIVE = json.loads((FOLDER / "sessions-live.json").read_text())
# The accuracy probe's children took every core until 2026-12-04 17:00, and beside a busy session its time
# was not one number (beside the same six spinners 25 s once and 53 s the next pass, beside three burners
# 105-117 s against 77 s beside four); they take the cores found idle since. The recordings above time the
# probe before (learning from them still holds: STEP_COUNTED), these twelve the probe now: LeNet-5 on the
# digits, two passes each quiet, beside one burner, one session of six spinners, then two, three and four
# burners in sessions of their own; each file's second pass learned again from its first by today's rule.
EVERY_CORE = "accuracy"
IDLE_THREADS_RUNS = json.loads((FOLDER / "idle-threads.json").read_text())
IDLE_THREADS = [
    rec for i in range(0, 12, 2) for rec in relearned(IDLE_THREADS_RUNS[i : i + 2], (*RELEARNED_KINDS, "accuracy"))
]


# A second host of this kind (2026-12-04 19:00, quiet: run queue 0.0), every cheap kind but the GPT probe on
# an empty cache with the frameworks' libraries in the page cache (`warm`), then the quick, accuracy and
# deployment probes again with the page cache dropped before each (`cold`): its start-ups ran 1.6-1.9x faster
# than the first host's, and its first accuracy and deployment runs opened 1.61x and 1.88x by the first host's
# figures (advisor.estimates.HOST_MIDDLE).
SECOND_HOST = json.loads((FOLDER / "second-host.json").read_text())


def judged(runs: list[dict]) -> list[dict]:
    """The recordings of probes that still run as recorded."""
    return [rec for rec in runs if rec["kind"] != EVERY_CORE]


def label(rec: dict) -> str:
    return f"{rec['kind']}-{rec['label']}-load{rec['loadavg'][0]:.1f}"


def test_the_fixtures_hold_every_cheap_kind_cold_and_warm():
    kinds = {rec["kind"] for rec in judged(RECORDINGS) + IDLE_THREADS}
    assert {"quick", "accuracy", "deploy", "scaling", "pipeline", "gpt-quick"} <= kinds and len(RECORDINGS) >= 9
    assert len(IDLE_THREADS) == 12 and {rec["kind"] for rec in IDLE_THREADS} == {"accuracy"}


@pytest.mark.parametrize("rec", judged(RECORDINGS + QUEUED + BURNERS + LIVE) + IDLE_THREADS + SECOND_HOST, ids=label)
def test_the_opening_estimate_is_within_the_goal(rec, monkeypatch):
    opening, _ = replay(rec, monkeypatch)
    assert GOAL[0] <= opening / rec["actual"] <= GOAL[1], f"{opening:.0f} s planned, {rec['actual']:.0f} s taken"


@pytest.mark.parametrize(
    "runs",
    [
        judged(RECORDINGS),
        judged(RECORDINGS + FRESH),
        judged(QUEUED),
        judged(RECORDINGS + FRESH + QUEUED + BURNERS + LIVE) + IDLE_THREADS + SECOND_HOST,
    ],
    ids=["judged", "judged-and-fresh", "queue-sampled", "all"],
)
def test_nine_in_ten_mid_run_etas_are_within_the_goal(runs, monkeypatch):
    """Judged as each progress line states it: its ETA, or, where it names the time if another round is
    needed and that round came, that time (the ETA weighs a round that may not run by its chance, so before
    one it reads low by design). 91.0-96.3% now; by the ETA alone 89.8-96.3%."""
    ratios = [r for rec in runs for r in replay_stated(rec)]
    inside = sum(1 for r in ratios if GOAL[0] <= r <= GOAL[1])
    assert len(ratios) > 700 and inside / len(ratios) >= 0.90, f"{inside} of {len(ratios)}"


def test_the_eta_alone_holds_nearly_as_many():
    ratios = [r for rec in judged(RECORDINGS + FRESH + QUEUED + BURNERS + LIVE) + IDLE_THREADS + SECOND_HOST
              for r in replay(rec)[1]]  # fmt: skip
    inside = sum(1 for r in ratios if GOAL[0] <= r <= GOAL[1])
    assert inside / len(ratios) >= 0.88, f"{inside} of {len(ratios)}"  # 89.9% now


def test_an_eta_that_reads_low_before_an_extra_round_names_the_round_that_covers_it(monkeypatch):
    """The ETA weighs an extra round that may not run by its chance, so just before one starts it reads low
    until the re-plan; the progress line names the ETA if that round is needed beside it. Judged on the
    range the line states (the time left inside the goal around the ETA or the ETA with the round), the
    recordings' ETAs before such a round hold: 2,865 of 3,080 by the ETA alone, 2,935 with the range (the
    rest run low inside a round that already runs, or high at the end: load the plan could not see)."""
    held = point = total = 0
    for rec in judged(RECORDINGS + FRESH + QUEUED + BURNERS):
        for _, ratio, high in replay_ranges(rec):
            total += 1
            point += GOAL[0] <= ratio <= GOAL[1]
            held += ratio <= GOAL[1] and high >= GOAL[0]
            assert high >= ratio
    assert held >= point + 10 and held / total >= 0.92, f"{point} / {held} of {total}"


def test_the_run_queue_rule_opens_a_second_run_on_a_quieter_host_inside_the_goal():
    """The deployment's second run, planned at a 1-minute average of 5.8 other tasks on 2 cores while the
    run queue read 3.5: by the average alone (the rule before) it opened 1.55x the time it took."""
    rec = next(r for r in QUEUED if r["kind"] == "deploy" and r["reading"]["queue"] < 4.0 < r["reading"]["average"])
    opening, _ = replay(rec)
    assert opening / rec["actual"] <= 1.35
    assert load_of(rec).foreign < rec["reading"]["average"]


STEP_COUNTED = [
    rec for rec in RECORDINGS + FRESH + QUEUED + BURNERS + IDLE_THREADS if rec["name"] in (*RELEARNED_KINDS, "accuracy")
]


@pytest.mark.parametrize("rec", STEP_COUNTED, ids=label)
def test_a_figure_learned_from_a_run_plans_that_run_back_at_its_own_time(rec):
    """Learned from a recorded run at its plan's load (host_timings.fold into an empty file) and planned
    again at that load, a deployment, a scaling run, a pipeline or an accuracy run opens at the time it took
    (0.97-1.00 over every recording; an accuracy run 0.95-1.07: the waits between its children are nobody's
    figure, and its data step is planned as a fresh process's).
    By the rule before (each step's own quotient folded in one by one) deployments planned back 1.03-1.51x:
    their last steps, two short ONNX Runtime serves, decided the figure of every step."""
    first = {**rec, "figures": {}, "figures_version": host_timings.VERSION}
    progress = planned(first)
    for at, event in rec["events"]:
        progress.on_event(event, now=at)
    data: dict = {}
    host_timings.fold(data, rec["name"], KINDS[rec["name"]].Config(**rec["config"]), progress, load_of(rec))
    again = planned({**first, "figures": data}).estimate_seconds()
    # an accuracy run's data step is planned at a fresh process's second (ACCURACY_DATA_S): a second run in
    # one process (the benchmark's second pass) found the digits loaded and took 0.1-0.2 s
    high = 1.07 if rec["kind"] == "accuracy" else 1.02
    assert 0.95 <= again / rec["actual"] <= high, f"{again:.1f} s planned back, {rec['actual']:.1f} s taken"
