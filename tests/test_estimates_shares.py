"""The plan's named figures, one fabricated event stream each (no probe runs, no clock): an extra round
the runner announces is counted once; a run graded unusable makes the extra round it forces certain; an
accuracy run counts its start-up by the clock and its epochs by their share; an ONNX Runtime serve and a
launch of more ranks are planned by their share of a full step; the contention's slowdown stops growing
where it saturated here. Each test fails on the model before."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from advisor import host_timings
from advisor.estimates import (
    ACCURACY_RUN_S,
    CONTENTION_MAX_PER_CORE,
    CONTENTION_WEIGHT,
    DEPLOY_ORT_SERVE_SHARE,
    DEPLOY_STEP_S,
    EXTRA_ROUND_PRIOR_RUNS,
    SCALING_LAUNCH_S,
    SCALING_RANK_EXTRA,
    Load,
    plan_for,
)
from advisor.progress import ProbeProgress
from probes.base import ProbeEvent

QUIET = Load(2, 0.0)


@pytest.fixture(autouse=True)
def own_cache(monkeypatch, tmp_path):
    monkeypatch.setattr("advisor.estimates.load_now", lambda window=None: QUIET)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def ev(run_id: str, kind: str, **extra) -> ProbeEvent:
    return ProbeEvent(kind_name="x", run_id=run_id, kind=kind, **extra)


def quick(tmp_path):
    from probes.training.models import QUICK, ProbeConfig

    return ProbeConfig(**QUICK, frameworks=["pytorch", "mindspore"], compile_cache_dir=str(tmp_path))


IDS = ("pytorch-eager-lenet-bs32", "mindspore-graph-lenet-bs32")


def two_rounds(p: ProbeProgress, grades: list[str]) -> float:
    """The set-up and two rounds of the quick profile, each run taking as planned; returns the time."""
    now = 0.0
    for slot in p.order[:3]:  # host summary and both aux children
        if slot.step.id.endswith("-aux"):
            p.on_event(ev(slot.step.id, "start"), now=now)
            now += slot.step.seconds
            p.on_event(ev(slot.step.id, "done"), now=now)
    grade = iter(grades)
    for n in range(4):
        rid = IDS[n % 2]
        p.on_event(ev(rid, "start", index=n + 1, total=4), now=now)
        now += p.order[p.slots[rid][n // 2]].step.seconds
        p.on_event(ev(rid, "done", index=n + 1, total=4, run={"status": "ok", "quality": next(grade)}), now=now)
    return now


def test_the_extra_round_the_runner_announces_is_counted_once(tmp_path):
    """The runner's total (6) counted the extra round's two runs as new steps on top of the plan's own
    slots for them: the ETA jumped to 2x the time left (58 s against 27 s at a load of 11)."""
    p = ProbeProgress.for_config("training", quick(tmp_path), now=0.0, load=QUIET)
    now = two_rounds(p, ["noisy", "noisy", "noisy", "noisy"])
    rid = IDS[0]
    p.on_event(ev(rid, "start", index=5, total=6), now=now)
    assert p.anonymous == 0 and p.planned == 6
    extra = [s for s in p.order if not s.step.setup and s.step.group == "lenet"]
    left = sum(s.step.seconds for s in extra)
    assert p.raw_remaining(now=now) == pytest.approx(left, rel=0.05)  # both extra runs, once


def test_a_run_graded_unusable_makes_the_extra_round_certain_in_the_plan(tmp_path):
    """With two rounds, an unusable run leaves one usable pair: the runner will run the extra round. Weighed
    by its chance (0.5) until it started, the ETA ran out a round early (0.56-0.67x of the time left)."""
    p = ProbeProgress.for_config("training", quick(tmp_path), now=0.0, load=QUIET)
    before = p.planned
    two_rounds(p, ["unusable", "noisy", "noisy", "noisy"])
    assert p.planned == before + 2 and p.replanned_from == before  # said in the text: re-planned
    q = ProbeProgress.for_config("training", quick(tmp_path), now=0.0, load=QUIET)
    two_rounds(q, ["noisy", "noisy", "noisy", "noisy"])
    assert q.planned == before  # usable rounds: the extra one stays a chance


def test_an_accuracy_run_counts_its_start_up_by_the_clock_and_its_epochs_by_their_share():
    """Planned from one run's total at a load of 9-10, MindSpore's child was planned at 6.4 s quiet and
    took 38.8 s at 2.9 other cores busy (24.5 s quiet-equivalent)."""
    from probes.accuracy.models import AccuracyConfig

    config = AccuracyConfig(frameworks=["mindspore"], modes=["graph"], seeds=1, epochs=2)
    plan = plan_for("accuracy", config, load=QUIET)
    step = next(s for s in plan.steps if s.id == "mindspore-graph-seed0")
    startup, epoch = ACCURACY_RUN_S["mindspore"]
    assert step.fixed_s == pytest.approx(startup) and step.timed_s == pytest.approx(2 * epoch)
    assert step.per_fraction_s == pytest.approx(2 * epoch)
    p = ProbeProgress("accuracy", plan, now=0.0, load=QUIET)
    p.on_event(ev(step.id, "start"), now=0.0)
    p.on_event(ev(step.id, "progress", fraction=0.5), now=startup + epoch)  # the first epoch reported
    slot = p.order[p.slots[step.id][0]]
    assert p._left(slot, now=startup + epoch, scale=1.0) == pytest.approx(epoch)


def test_an_accuracy_run_teaches_its_start_up_and_its_epoch():
    from probes.accuracy.models import AccuracyConfig

    config = AccuracyConfig(frameworks=["pytorch"], modes=["eager"], seeds=1, epochs=2)
    p = ProbeProgress.for_config("accuracy", config, now=0.0, load=QUIET)
    run = SimpleNamespace(status="ok", epoch_seconds=[7.0, 11.0])
    p.on_event(ev("pytorch-eager-seed0", "start"), now=0.0)
    p.on_event(ev("pytorch-eager-seed0", "done", run=run), now=26.0)
    p.finish(now=26.0)
    host_timings.learn("accuracy", config, p)
    entry = host_timings.figures().measured["accuracy"]["pytorch-eager"]
    slow = (p.measured_load() or QUIET).slowdown
    assert entry["startup"] == pytest.approx(8.0 / slow, rel=1e-3)  # 26 s less its epochs
    assert entry["epoch"] == pytest.approx(9.0 / slow, rel=1e-3)


def test_an_onnx_runtime_serve_is_planned_at_its_share_of_a_deploy_step():
    """Planned at the mean, the last steps (two ORT serves of 3 s among 12 s steps) kept the ETA 1.6-1.8x high."""
    from probes.deploy.models import DeployConfig

    plan = plan_for("deploy", DeployConfig(models=["lenet"]), load=QUIET)
    full = DEPLOY_STEP_S["lenet"]
    assert plan.each_for("pytorch-onnx-lenet@onnxruntime-cpu") == pytest.approx(full * DEPLOY_ORT_SERVE_SHARE)
    assert plan.each_for("pytorch-torch.export-lenet@torch.export") == pytest.approx(full)
    assert plan.announced * plan.each == pytest.approx(8 * full + 2 * full * DEPLOY_ORT_SERVE_SHARE)


def test_a_launch_of_two_ranks_is_planned_above_one_of_one_rank():
    from probes.scaling.models import ScalingConfig

    config = ScalingConfig(frameworks=["mindspore"], models=["lenet"], repeat=1)
    plan = plan_for("scaling", config, load=QUIET)
    one = SCALING_LAUNCH_S["msrun"]
    assert plan.each_for("mindspore-lenet-r1-rep1") == pytest.approx(one)
    assert plan.each_for("mindspore-lenet-r2-rep1") == pytest.approx(one * (1 + SCALING_RANK_EXTRA))
    assert plan.announced * plan.each == pytest.approx(one * (2 + SCALING_RANK_EXTRA))


def test_the_contention_slowdown_stops_growing_where_it_saturated_here():
    """Uncapped, 11 other cores busy on 2 planned the runs 3.2x their quiet time; they took 1.9-2.1x."""
    cap = 1.0 + CONTENTION_WEIGHT * CONTENTION_MAX_PER_CORE
    assert Load(2, 11.0).slowdown == pytest.approx(cap) == Load(2, 40.0).slowdown
    assert Load(2, 2.0).slowdown == pytest.approx(1.0 + CONTENTION_WEIGHT * 1.0)  # below the cap: as before


def test_a_saturated_host_is_learned_at_the_load_the_plan_reads(monkeypatch):
    """Every core busy: the busy CPU shows at most the cores (1 other core here, the probe on the other),
    while the plan reads the run queue (the 1-minute load: 8). A figure divided by the first and planned
    again at the second read 1.5-2.7x high in the second run of a kind here."""
    from advisor.estimates import measured_load

    monkeypatch.setattr("advisor.estimates.os.cpu_count", lambda: 2)
    monkeypatch.setattr("probes.hostfacts.usable_cores", lambda: 2)
    start = (1000.0, 50.0, 500.0)
    end = (start[0] + 2.0 * 60.0, start[1] + 1.0 * 60.0, start[2] + 60.0)  # 2 busy cores, 1 the probe's own
    assert measured_load(start, end).foreign == pytest.approx(1.0)  # no demand known: the busy CPU alone
    assert measured_load(start, end, demand=8.0).foreign == pytest.approx(7.0)  # the queue, less the probe
    idle = (start[0] + 1.2 * 60.0, start[1] + 1.0 * 60.0, start[2] + 60.0)  # a core mostly idle: not saturated
    assert measured_load(start, idle, demand=8.0).foreign == pytest.approx(0.2)


def test_how_often_the_extra_round_ran_is_learned_whether_or_not_it_ran(tmp_path):
    """The runner's announcement makes an extra round certain in the plan, and the share was read from the
    rounds still uncertain at the end: a round that ran was never counted, so this host's share could only
    be learned as 0 (from runs without one) and the plan came to weigh no extra round at all."""
    config = quick(tmp_path)
    p = ProbeProgress.for_config("training", config, now=0.0, load=QUIET)
    now = two_rounds(p, ["noisy", "noisy", "noisy", "noisy"])
    for n, rid in enumerate(IDS):
        p.on_event(ev(rid, "start", index=5 + n, total=6), now=now)
        now += 5.0
        p.on_event(ev(rid, "done", index=5 + n, total=6, run={"status": "ok", "quality": "stable"}), now=now)
    p.finish(now)
    host_timings.learn("training", config, p)
    assert host_timings.figures().measured["training"]["extra_round_share"]["share"] == 1.0
    # read beside the default as EXTRA_ROUND_PRIOR_RUNS runs: one run's round does not make the next certain
    prior = EXTRA_ROUND_PRIOR_RUNS
    assert host_timings.figures().share("training", 0.5) == pytest.approx((1.0 + 0.5 * prior) / (1 + prior))
    assert all(s.chance < 1.0 for s in plan_for("training", config, host_timings.figures(), QUIET).steps[-3:])

    q = ProbeProgress.for_config("training", config, now=0.0, load=QUIET)
    q.finish(two_rounds(q, ["stable", "stable", "stable", "stable"]))
    host_timings.learn("training", config, q)
    assert host_timings.figures().measured["training"]["extra_round_share"]["share"] == 0.5  # one with, one without
