"""Mid-run ETAs that hold (benchmarks/probe_estimates.py --replay judges recorded runs): a step running
over its estimate keeps a share of its time so far ahead instead of an ETA sat at 0; each step learns
from the steps most like it; a scaling launch is planned by its own launcher and counted by the clock;
a dynamic-shape child reports the share of its steps done. Each test fails on the model before."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from advisor.estimates import SCALING_STEPS_S, SCALING_TEARDOWN_S, Load, Plan, Step, plan_for
from advisor.progress import OVERRUN_SHARE, REESTIMATE_FACTOR, REESTIMATE_MIN_S, SCALE_PRIOR_S, ProbeProgress
from probes.base import ProbeEvent

QUIET = Load(2, 0.0)


@pytest.fixture(autouse=True)
def quiet_host(monkeypatch, tmp_path):
    monkeypatch.setattr("advisor.estimates.load_now", lambda window=None: QUIET)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def ev(run_id: str, kind: str, **extra) -> ProbeEvent:
    return ProbeEvent(kind_name="x", run_id=run_id, kind=kind, **extra)


def test_a_step_past_its_estimate_keeps_a_share_of_its_time_so_far_ahead_and_the_eta_rises_to_it():
    """The GPT probe's last child ran 100 s past the countdown's 0 ('running over the estimate')."""
    p = ProbeProgress("gpt", [("a", 10.0), ("b", 40.0)], now=0.0)
    p.on_event(ev("a", "start"), now=0.0)
    p.on_event(ev("a", "done"), now=5.0)  # faster than planned: the rest looks shorter
    p.on_event(ev("b", "start"), now=5.0)
    family = (5 + SCALE_PRIOR_S["family"]) / (10 + SCALE_PRIOR_S["family"])
    assert p.remaining_seconds(now=5.0) == pytest.approx(40.0 * family)
    for t in range(6, 121):
        p.remaining_seconds(now=float(t))  # the displays read it every second
    # b has run 115 s against ~30 planned: a quarter of its time so far is still ahead, said in words
    ahead = OVERRUN_SHARE * 115.0
    assert p.raw_remaining(now=120.0) == pytest.approx(ahead)
    # the countdown shown rises to it whenever it fell further below than the re-estimate's margin
    assert (ahead - REESTIMATE_MIN_S) / REESTIMATE_FACTOR <= p.remaining_seconds(now=120.0) <= ahead
    view = p.view(now=120.0)
    assert not view.over_estimate and "re-estimated" in view.text


def test_a_step_learns_from_its_own_earlier_round_more_than_from_other_steps():
    """One ratio over every step moved the GPT probe's dynamic-shape children by what its timed runs
    showed (0.5x): each step now learns from its own earlier rounds, then its family, then all."""
    timed = dict(per_fraction_s=2.0)
    plan = Plan(
        [
            Step("r", 10.0, 0.0, **timed),
            Step("s", 10.0, 0.0, **timed),
            Step("r", 10.0, 0.0, **timed),
            Step("x-dynamic", 0.0, 100.0),
        ]
    )
    p = ProbeProgress("gpt", plan, now=0.0)
    for rid, took in (("r", 20.0), ("s", 10.0)):
        p.on_event(ev(rid, "start"), now=0.0)
        p.on_event(ev(rid, "done"), now=took)
    sums = p._ratios(now=None)
    same = (20.0 + SCALE_PRIOR_S["id"]) / (10.0 + SCALE_PRIOR_S["id"])  # r's first round: 2x
    assert p._ratio(plan.steps[2], sums) == pytest.approx(same)  # was (30 + 10) / (20 + 10) for every step
    overall = (30.0 + SCALE_PRIOR_S["all"]) / (20.0 + SCALE_PRIOR_S["all"])
    assert p._ratio(plan.steps[3], sums) == pytest.approx(overall)  # another family: the weakest pull


def test_scaling_launches_are_planned_by_their_launcher_and_counted_by_the_clock():
    """One mean of torchrun's and msrun's launch planned both; the launch's fraction (its ~2 s of timed
    steps) dropped the whole launch from the ETA while its teardown ran on."""
    from advisor.estimates import SCALING_LAUNCH_S
    from probes.scaling.models import ScalingConfig

    config = ScalingConfig(frameworks=["pytorch", "mindspore"], models=["lenet"], repeat=1)
    plan = plan_for("scaling", config, load=QUIET)
    assert plan.each_for("pytorch-lenet-r1-rep1") == SCALING_LAUNCH_S["torchrun"]
    assert plan.each_for("mindspore-lenet-r1-rep1") == SCALING_LAUNCH_S["msrun"]
    p = ProbeProgress.for_config("scaling", config, now=0.0, load=QUIET)
    p.on_event(ev("mindspore-lenet-r1-rep1", "start", total=4), now=0.0)
    p.on_event(ev("mindspore-lenet-r1-rep1", "progress", fraction=1.0), now=10.0)  # its timed steps ended
    left = p.raw_remaining(now=10.0)
    assert left == pytest.approx(SCALING_TEARDOWN_S["msrun"] + 3 * plan.each)  # its teardown, then the rest


def test_a_launch_over_its_estimate_still_counts_its_steps_left_and_its_teardown():
    """A launch counted by the clock alone ran out of clock while its steps and its teardown (msrun's
    ranks leave the process group and exit: ~11 s here, no event says so) were still to come: the last
    launch read 0.5-0.65x of its last 20 s. Past its estimate, what its fraction leaves of its steps and
    its teardown are ahead; after its last step, its teardown counts down by the clock."""
    from probes.scaling.models import ScalingConfig

    config = ScalingConfig(frameworks=["mindspore"], models=["lenet"], repeat=1, ranks=[2])
    p = ProbeProgress.for_config("scaling", config, now=0.0, load=QUIET)
    rid = "mindspore-lenet-r2-rep1"
    planned = p.plan.each_for(rid)
    p.on_event(ev(rid, "start", total=1), now=0.0)
    p.on_event({"run_id": rid, "kind": "progress", "run_fraction": 0.0}, now=planned - 4.0)  # its first step, late
    p.on_event({"run_id": rid, "kind": "progress", "run_fraction": 0.5}, now=planned + 1.0)
    steps = 2 * SCALING_STEPS_S["msrun"]  # two ranks
    slot = p.order[p.current[rid]]
    assert (slot.step.steps_s, slot.step.tail_s) == pytest.approx((steps, SCALING_TEARDOWN_S["msrun"]))
    # past its estimate: half its steps and its teardown (by its own pace so far), not a share of its clock
    scale = p._ratio(slot.step, p._ratios(planned + 1.0))
    left = p.raw_remaining(now=planned + 1.0)
    assert left == pytest.approx((0.5 * steps + SCALING_TEARDOWN_S["msrun"]) * scale)  # was 25% of its clock
    p.on_event({"run_id": rid, "kind": "progress", "run_fraction": 1.0}, now=planned + 4.0)
    scale = p._ratio(slot.step, p._ratios(planned + 6.0))
    assert p.raw_remaining(now=planned + 6.0) == pytest.approx(SCALING_TEARDOWN_S["msrun"] * scale - 2.0)


def test_a_recorded_scaling_runs_last_launch_holds_its_last_20_s():
    """The recorded scaling run (tests/fixtures/eta_records: msrun's two-rank launch last, ~11 s of
    teardown after its last step) replayed: every ETA of its last launch within the goal (0.52-0.65x
    while its steps ran and its teardown followed, before)."""
    import json
    from pathlib import Path

    from tests.test_estimates_replayed import replay_trace

    folder = Path(__file__).parent / "fixtures" / "eta_records"
    rec = next(r for r in json.loads((folder / "loaded-2-cores.json").read_text()) if r["kind"] == "scaling")
    last = max(at for at, e in rec["events"] if e["kind"] == "start")
    ratios = [r for at, r in replay_trace(rec) if at > last]
    assert len(ratios) >= 20 and all(0.67 <= r <= 1.5 for r in ratios), [round(r, 2) for r in ratios]


def test_a_dynamic_shape_child_reports_the_share_of_its_steps_done():
    from probes.transformer import worker_common

    heard = []
    args = SimpleNamespace(ways="padded,variable", steps=4, distinct=2, passes=2, batch_size=2)
    shape = SimpleNamespace(seq=16, vocab=64)
    worker_common.drive_ways(
        lambda way: lambda batch: 0.0, lambda: None, args, shape, on_way=lambda w, f: heard.append((w, f))
    )
    fractions = [f for _, f in heard]
    assert heard[0] == ("padded", 0.0) and fractions[-1] == 1.0
    assert fractions == sorted(fractions) and len(heard) == 2 + 2 * 2 * 4  # each way's start, each step


def test_a_dynamic_childs_steps_are_moved_by_its_fraction_after_its_start_up(tmp_path):
    from probes.transformer.models import GptConfig

    config = GptConfig(frameworks=["mindspore"], modes=["graph"], repeat=1, max_repeat=1, dynamic=True,
                       dynamic_variants=["graph"], compile_cache_dir=str(tmp_path))  # fmt: skip
    p = ProbeProgress.for_config("gpt", config, now=0.0, load=QUIET)
    rid = "mindspore-graph-dynamic"
    step = next(s.step for s in p.order if s.step.id == rid)
    p.on_event(ev(rid, "start"), now=0.0)
    p.on_event(ev(rid, "progress", fraction=0.5), now=step.fixed_s)  # its first way began, half its steps done
    slot = p.order[p.slots[rid][0]]
    assert p._left(slot, now=step.fixed_s, scale=1.0) == pytest.approx(step.timed_s * 0.5)


def test_the_first_deploy_step_carries_the_exporters_one_off_cost():
    """The first export took twice the others here (13 s against 6.6 s): planned at `each`, its overrun
    taught every later step the same 2x and the ETA read ~2x high for most of the run."""
    from advisor.estimates import DEPLOY_FIRST_EXTRA_S

    config = SimpleNamespace(models=["lenet"], frameworks=["pytorch"], formats=["onnx"])
    p = ProbeProgress.for_config("deploy", config, now=0.0, load=QUIET)
    each, n = p.default_s, p.anonymous
    assert p.estimate_seconds() == pytest.approx(n * each + DEPLOY_FIRST_EXTRA_S)
    first = p.plan.each_for("pytorch-onnx-lenet") + DEPLOY_FIRST_EXTRA_S
    p.on_event(ev("pytorch-onnx-lenet", "start"), now=0.0)
    p.on_event(ev("pytorch-onnx-lenet", "done"), now=first)  # as planned
    p.on_event(ev("pytorch-source-lenet@torch-eager", "start"), now=first)
    second = p.order[p.slots["pytorch-source-lenet@torch-eager"][0]].step
    assert second.seconds == pytest.approx(p.plan.each_for("pytorch-source-lenet@torch-eager"))  # the one-off once
    assert p.scale(now=first) == pytest.approx(1.0)  # nothing to correct


def test_a_first_deploy_step_without_its_one_off_cost_does_not_read_the_host_fast():
    """A second run's first export (a warm page cache) took no longer than the next (6.8 s and 6.7 s here,
    load 3.9): compared with its plan's one-off cost counted, it read the host 0.6x and held the ETA at
    0.41-0.7x of the time left. A first step between its plan without the one-off and with it was as
    planned; faster or slower than both, it teaches as any step."""
    config = SimpleNamespace(models=["lenet"], frameworks=["pytorch"], formats=["onnx"])
    p = ProbeProgress.for_config("deploy", config, now=0.0, load=QUIET)
    rid, nxt = "pytorch-onnx-lenet", "pytorch-source-lenet@torch-eager"
    each = p.plan.each_for(rid)
    p.on_event(ev(rid, "start"), now=0.0)
    p.on_event(ev(rid, "done"), now=each)  # no one-off came
    p.on_event(ev(nxt, "start"), now=each)
    step = p.order[p.slots[nxt][0]].step
    assert p._ratio(step, p._ratios(each)) == pytest.approx(1.0)  # was (each + 10) / (each + 6 + 10)
    fast = ProbeProgress.for_config("deploy", config, now=0.0, load=QUIET)
    fast.on_event(ev(rid, "start"), now=0.0)
    fast.on_event(ev(rid, "done"), now=each / 2)  # faster than even without it: the host is fast
    assert fast._ratio(step, fast._ratios(each / 2)) < 1.0


def test_a_dynamic_child_does_not_learn_from_another_frameworks():
    """A GPT probe's PyTorch eager dynamic-shape child took 1.45x its plan here, then MindSpore's graph
    child 0.76x of its own: learning from eager's (one "dynamic" family) its ETA read 1.5-3.9x the time
    left. Each framework's dynamic children are a family of their own; another framework's count only
    among all the steps, the weakest pull."""
    plan = Plan([Step("pytorch-eager-dynamic", 10.0, 50.0), Step("mindspore-graph-dynamic", 10.0, 130.0)])
    p = ProbeProgress("gpt", plan, now=0.0)
    p.on_event(ev("pytorch-eager-dynamic", "start"), now=0.0)
    p.on_event(ev("pytorch-eager-dynamic", "done"), now=90.0)  # 1.5x its plan
    sums = p._ratios(now=None)
    overall = (90.0 + SCALE_PRIOR_S["all"]) / (60.0 + SCALE_PRIOR_S["all"])
    assert p._ratio(plan.steps[1], sums) == pytest.approx(overall)  # was (90 + 10) / (60 + 10): 1.43x
