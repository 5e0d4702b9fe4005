"""advisor.progress.ProbeProgress: one progress model for every probe kind, with a planned total, an
ETA that only counts down, and a re-plan said in words when the run adds work."""

from __future__ import annotations

import re

import io
from types import SimpleNamespace

import pytest

from advisor.estimates import Load
from advisor.progress import ProbeProgress, duration, probe_progress
from probes.base import ProbeEvent


@pytest.fixture(autouse=True)
def quiet_host(monkeypatch):
    """The plan's contention is this test's, not the machine's at the moment it runs."""
    monkeypatch.setattr("advisor.estimates.load_now", lambda window=None: Load(2, 0.0))


def ev(run_id: str, kind: str, **extra) -> ProbeEvent:
    return ProbeEvent(kind_name="x", run_id=run_id, kind=kind, **extra)


def two_runs(a: float = 10.0, b: float = 10.0) -> ProbeProgress:
    return ProbeProgress("training", [("a", a), ("b", b)], now=0.0)


def test_the_eta_counts_down_and_rises_only_when_said_in_words():
    p = two_runs()
    assert p.view(now=0.0).text == "0 of 2 runs finished, about 20 s left (estimate)"
    p.on_event(ev("a", "start"), now=0.0)
    shown = [p.remaining_seconds(now=t) for t in (1.0, 5.0, 9.0)]
    assert shown == [19.0, 15.0, 11.0]  # by the clock: a's 10 s less what passed, plus b's 10
    # a took 12 s instead of 10: b now looks like 11 s ((12 + 10) / (10 + 10), the correction shrunk
    # toward the plan by SCALE_PRIOR_S), less than the countdown's 8 s + the re-estimate's margin: no rise
    p.on_event(ev("a", "done"), now=12.0)
    assert p.raw_remaining(now=12.0) == pytest.approx(10.0 * (12 + 10) / (10 + 10))
    assert p.remaining_seconds(now=12.0) == 8.0 and p.reestimated is None
    q = two_runs()
    q.on_event(ev("a", "start"), now=0.0)
    assert q.remaining_seconds(now=1.0) == 19.0
    q.on_event(ev("a", "done"), now=30.0)  # three times its estimate: the host is much slower than planned
    assert q.remaining_seconds(now=30.0) == pytest.approx(10.0 * (30 + 10) / (10 + 10))  # risen, and said
    view = q.view(now=30.0)
    assert view.text.endswith("re-estimated: this host runs 2.0x slower than planned")


def test_a_run_beyond_the_plan_re_plans_visibly_and_only_then_may_the_eta_rise():
    p = two_runs()
    for rid, t in (("a", 0.0), ("b", 10.0)):
        p.on_event(ev(rid, "start"), now=t)
        p.on_event(ev(rid, "done"), now=t + 10.0)
    assert p.view(now=20.0).text == "2 of 2 runs finished"
    p.on_event(ev("a", "start"), now=20.0)  # the stop rule asked for another round of a
    view = p.view(now=20.0)
    assert (view.planned, view.finished, view.replanned_from) == (3, 2, 2)
    assert view.eta_seconds == 10.0  # rose from 0: the one time it may, and the text says why
    assert view.text == "2 of 3 runs finished, about 10 s left (estimate); re-planned: 3 runs (was 2)"


def test_fractions_move_the_eta_down_and_never_back_up():
    p = ProbeProgress("accuracy", [("r", 80.0)], now=0.0)
    p.on_event(ev("r", "start"), now=0.0)
    p.on_event(ev("r", "progress", fraction=0.5), now=1.0)
    assert p.remaining_seconds(now=1.0) == 40.0
    p.on_event(ev("r", "progress", fraction=0.25), now=2.0)  # a lower fraction (out of order) is ignored
    assert p.remaining_seconds(now=2.0) == 39.0


def test_the_accuracy_plan_counts_every_seed_and_the_normalize_check():
    from probes.accuracy.models import AccuracyConfig

    config = AccuracyConfig(frameworks=["pytorch", "mindspore"], modes=["eager", "graph"], seeds=3, epochs=4)
    p = ProbeProgress.for_config("accuracy", config)
    # 3 seeds x (pytorch eager, mindspore graph) + the Normalize check, by the runner's run ids
    assert p.planned == 7 and set(p.slots) >= {"pytorch-eager-seed0", "mindspore-graph-seed2", "normalize-check"}
    p.on_event("pytorch-eager-seed0", {"kind": "start"})
    p.on_event("pytorch-eager-seed0", {"epoch": 2, "epochs": 4, "accuracy": 0.5})  # the worker's message
    assert p.fraction["pytorch-eager-seed0#0"] == 0.5


def test_the_pipeline_plan_names_the_runners_ids_and_ignores_nothing_it_runs():
    from probes.pipeline.models import PipelineConfig

    p = ProbeProgress.for_config("pipeline", PipelineConfig(frameworks=["pytorch", "mindspore"], workers=2))
    # two PyTorch loaders (0 and 2 workers) and three MindSpore ones
    assert sorted(p.slots) == sorted(
        [
            "pytorch-dataloader-w0",
            "pytorch-dataloader-w2",
            "mindspore-generator-w2",
            "mindspore-vision-w2",
            "mindspore-generator-mp-w2",
        ]
    )


def test_the_pipeline_plans_every_pass_and_counts_each_as_its_child_ends():
    """The runner starts each loader once and ends each child with a "pass" event: the plan held one
    step per loader, all five running at once by the clock, and learned the whole probe's time for each."""
    from probes.pipeline.models import PipelineConfig

    config = PipelineConfig(frameworks=["pytorch"], workers=2, passes=3)
    p = ProbeProgress.for_config("pipeline", config, now=0.0, load=Load(2, 0.0))
    ids = ["pytorch-dataloader-w0", "pytorch-dataloader-w2"]
    each = p.order[0].step.seconds
    assert p.planned == 6 and p.estimate_seconds() == pytest.approx(6 * each)
    t = 0.0
    for rnd in range(3):
        for rid in ids:
            if rnd == 0:
                p.on_event(rid, {"kind": "start"}, now=t)
            if rid == ids[1] and rnd == 1:  # a silent child counts down by the clock from the last end
                assert p.raw_remaining(now=t + 4.0) == pytest.approx(p.raw_remaining(now=t) - 4.0)
            t += 10.0
            if rnd == 2:  # the registry's adapter (the TUI, the benchmark) keeps the kind as native_kind
                p.on_event(ProbeEvent(kind_name="pipeline", run_id=rid, kind="progress", native_kind="pass"), now=t)
            else:
                p.on_event(rid, {"kind": "pass", "epoch": rnd + 1, "epochs": 3}, now=t)
            assert p.finished == rnd * 2 + ids.index(rid) + 1
    for rid in ids:
        p.on_event(rid, {"kind": "done", "run": None}, now=t)
    assert (p.planned, p.finished, p.replanned_from) == (6, 6, None)
    assert [round(taken) for _, taken, _ in p.actuals()] == [10] * 6  # each child's own time, to learn from


def test_deploy_steps_are_planned_from_the_runners_announced_total():
    p = ProbeProgress.for_config("deploy", None)
    assert p.view().eta_seconds is None and p.view().planned == 0
    p.on_event(ev("export-a", "start", index=0, total=4), now=0.0)
    assert p.view(now=0.0).planned == 4 and p.view(now=0.0).replanned_from is None  # the first total is the plan
    p.on_event(ev("export-a", "done", index=0, total=4), now=5.0)
    p.on_event(ev("serve-a", "start", index=1, total=6), now=5.0)  # two more steps announced
    view = p.view(now=5.0)
    assert (view.planned, view.finished, view.replanned_from) == (6, 1, 4) and "steps" in view.text


def test_the_cli_prints_the_plan_a_line_per_run_and_the_re_plan():
    from probes.training.models import ProbeConfig

    config = ProbeConfig(frameworks=["pytorch"], models=["lenet"], modes=["eager"], repeat=1, max_repeat=None)
    rid = "pytorch-eager-lenet-bs32"
    stream = io.StringIO()
    with probe_progress("training", config, stream=stream) as on_event:
        on_event(ev("pytorch-aux", "start"))  # not a run: no line
        on_event(ev(rid, "start"))
        on_event(ev(rid, "done", message="ok"))
        on_event(ev(rid, "start"))  # another round
    lines = [line for line in stream.getvalue().splitlines() if not line.startswith(" ")]  # a wrapped rest indents
    assert re.match(r"advisor: training: 1 runs planned, \d+ s to \d+ s \(estimate: a first run here", lines[0])
    assert lines[1] == f"advisor: {rid}: ok (1 of 1 runs finished)"
    assert lines[2].startswith("advisor: training: 1 of 2 runs finished") and lines[2].endswith("(was 1)")
    assert lines[3].startswith("advisor: training: finished in ")


def test_the_training_plan_and_its_estimate_follow_the_runners_plan():
    """The suite's runs are the runner's plan, in its ids, after its preparation steps."""
    from advisor.estimates import plan_for
    from probes.training.models import ProbeConfig

    config = ProbeConfig(
        frameworks=["pytorch"], models=["lenet"], modes=["eager", "compile"], budget=2, repeat=1, max_repeat=None
    )
    plan = plan_for("training", config, load=Load(2, 0.0))
    assert [s.id for s in plan.steps] == [
        "host-summary",
        "pytorch-aux",
        "round-lenet-0",
        "pytorch-eager-lenet-bs32",
        "pytorch-compile-lenet-bs32",
    ]
    assert [s.id for s in plan.runs] == ["pytorch-eager-lenet-bs32", "pytorch-compile-lenet-bs32"]
    p = ProbeProgress.for_config("training", config, now=0.0)
    assert p.planned == 2 and p.view(now=0.0).text.startswith("0 of 2 runs finished, about ")
    first = p.remaining_seconds(now=0.0)
    p.on_event("pytorch-eager-lenet-bs32", "start", now=0.0)
    p.on_event("pytorch-eager-lenet-bs32", "done", now=1.0)
    assert p.finished == 1 and p.remaining_seconds(now=1.0) < first
    p.on_event("pytorch-compile-lenet-bs32", "done", now=2.0)
    assert p.view(now=2.0).text == "2 of 2 runs finished"


def test_without_a_terminal_a_line_per_finished_run_with_what_it_measured():
    """(was test_tui_cli's suite_progress test) the aux child is not a run: no line of its own."""
    from probes.training.models import ProbeConfig

    config = ProbeConfig(frameworks=["pytorch"], models=["lenet"], modes=["eager"], budget=1, repeat=1, max_repeat=None)
    stream = io.StringIO()
    with probe_progress("training", config, stream=stream) as on_event:
        on_event({"run_id": "pytorch-aux", "kind": "start"})
        on_event({"run_id": "pytorch-eager-lenet-bs32", "kind": "start"})
        on_event({"run_id": "pytorch-eager-lenet-bs32", "kind": "done", "message": "ok", "images_per_second": 812.25})
    lines = [line for line in stream.getvalue().splitlines() if not line.startswith(" ")]  # a wrapped rest indents
    assert re.match(r"advisor: training: 1 runs planned, \d+ s to \d+ s \(estimate: a first run here", lines[0])
    assert lines[1] == "advisor: pytorch-eager-lenet-bs32: ok, 812.2 img/s (1 of 1 runs finished)"
    assert lines[2].startswith("advisor: training: finished in ")


def test_what_a_finished_run_measured_in_words():
    from advisor.progress import done_text

    run = SimpleNamespace(status="ok", error=None, images_per_second=1234.5, stop_reason="converged")
    assert done_text(ev("r", "done", run=run)) == "ok, 1,234 img/s (converged)"  # one number format
    failed = SimpleNamespace(status="timeout", error="killed after 60 s", images_per_second=None)
    assert done_text("r", {"kind": "done", "run": failed}) == "timeout: killed after 60 s"
    assert done_text({"step_id": "s", "status": "failed", "message": "no onnx"}) == "failed: no onnx"
    assert done_text({"run_id": "a-r1", "message": "a-r1: 321 img/s total"}) == "321 img/s total"
    assert done_text({"run_id": "g", "message": "ok", "tokens_per_second": 901.4}) == "ok, 901.4 tokens/s"
    # one status: a measured run says its grade, and an unusable one is never "ok"
    graded = SimpleNamespace(
        status="ok", error=None, images_per_second=2216.04, stop_reason="budget", quality="unusable"
    )
    assert done_text(ev("r", "done", run=graded)) == "unusable, 2,216 img/s, never scored (budget)"


def test_deploy_plans_every_export_and_serve_before_it_starts():
    from probes.deploy.models import DeployConfig

    p = ProbeProgress.for_config("deploy", DeployConfig(frameworks=["pytorch", "mindspore"], models=["lenet"]))
    # 4 exports (onnx, torch.export; mindir, onnx), 2 source baselines, 4 served artefacts
    assert p.planned == 10 and p.view().eta_seconds and p.view().replanned_from is None
    only_onnx = DeployConfig(frameworks=["pytorch"], models=["lenet", "resnet18"], formats=["onnx"])
    assert ProbeProgress.for_config("deploy", only_onnx).planned == 2 * (1 + 1 + 1)


def test_scaling_reads_the_launchs_own_fraction_not_the_probes():
    from probes.scaling.models import ScalingEvent

    p = ProbeProgress.for_config("scaling", None)
    p.on_event(ScalingEvent(kind="start", run_id="l1", fraction=0.5, message="", index=3, total=4), now=0.0)
    p.on_event(ScalingEvent(kind="progress", run_id="l1", fraction=0.6, run_fraction=0.25, message=""), now=0.0)
    assert p.planned == 4 and p.fraction["l1#0"] == 0.25


def test_every_event_shape_is_read_once_into_the_same_fields():
    """advisor.progress.seen: a ProbeEvent (its extra fields included), a runner's
    typed event, a mapping and a runner's (run_id, dict) give the same Seen; a Seen passes through."""
    from advisor.progress import Seen, seen
    from probes.training.models import ProbeEvent as TrainingEvent

    run = SimpleNamespace(status="ok", error=None, images_per_second=812.25, stop_reason="converged")
    shapes = [
        ev("r", "done", fraction=1.0, total=3, run=run),
        TrainingEvent.model_construct(run_id="r", kind="done", fraction=1.0, total=3, run=run),
        {"run_id": "r", "kind": "done", "fraction": 1.0, "total": 3, "run": run},
    ]
    read = [seen(s) for s in shapes] + [seen("r", {"kind": "done", "fraction": 1.0, "total": 3, "run": run})]
    want = Seen("r", "done", 1.0, 3, "ok", "", None, 812.25, None, "converged")
    assert read == [want] * 4
    assert seen(want) is want
    # the accuracy workers' epochs, a deploy step's id, an unknown kind counted as progress
    assert seen("a", {"kind": "epoch", "epoch": 2, "epochs": 8}) == Seen(
        "a", "progress", 0.25, None, None, "", None, None, None, None
    )
    assert seen({"step_id": "export-onnx", "kind": "start"}).run_id == "export-onnx"


# ---- the plan counts what a probe spends -------------------------------------------------------


def _config(**kw):
    from probes.training.models import ProbeConfig

    base = dict(frameworks=["pytorch"], models=["lenet"], modes=["compile"], budget=2, repeat=1, max_repeat=None)
    return ProbeConfig(**{**base, **kw})


def test_a_cold_torch_compile_is_counted_from_the_inductor_cache_state(tmp_path):
    from advisor.estimates import TRAINING_S, plan_for

    startup, warm, cold, _ = TRAINING_S[("pytorch", "compile", "lenet")]
    quiet = Load(2, 0.0)
    cold_plan = plan_for("training", _config(compile_cache_dir=str(tmp_path)), load=quiet)
    run = next(s for s in cold_plan.steps if s.id == "pytorch-compile-lenet-bs32")
    assert run.fixed_s == pytest.approx(startup + cold) and cold_plan.cold == [run.id]
    (tmp_path / "lenet-bs32-auto" / "fxgraph").mkdir(parents=True)  # the runner's folder for this workload
    (tmp_path / "lenet-bs32-auto" / "fxgraph" / "kernel.py").write_text("")
    warm_plan = plan_for("training", _config(compile_cache_dir=str(tmp_path)), load=quiet)
    run = next(s for s in warm_plan.steps if s.id == "pytorch-compile-lenet-bs32")
    assert run.fixed_s == pytest.approx(startup + warm) and warm_plan.cold == []


def test_the_contention_now_slows_the_plan_by_the_named_weight():
    from advisor.estimates import CONTENTION_WEIGHT, plan_for, timed_s

    assert Load(2, 0.0).slowdown == 1.0
    assert Load(2, 2.0).slowdown == pytest.approx(1 + CONTENTION_WEIGHT * 2 / 2)  # two burners on 2 cores
    assert Load(2, 2.0).threads == 1 and Load(2, 2.0).step_slowdown == pytest.approx(Load(2, 2.0).slowdown * 2)
    quiet = plan_for("training", _config(), load=Load(2, 0.0)).seconds
    busy = plan_for("training", _config(), load=Load(2, 2.0)).seconds
    assert busy > quiet
    # the timed part: the budget, the protocol's 2 warmup + 5 samples when steps are slow, at most 3 budgets
    assert timed_s(2.0, 0.01) == 2.0 and timed_s(6.0, 0.5) == 6.0
    assert timed_s(2.0, 0.5) == pytest.approx(3.5) and timed_s(2.0, 1.2) == pytest.approx(3 * 2.0 + 1.2)


def test_the_extra_round_is_planned_by_its_share_and_dropped_when_the_runner_moves_on():
    from advisor.estimates import EXTRA_ROUND_SHARE, plan_for

    config = _config(models=["lenet", "resnet18"], modes=["eager"], repeat=2, max_repeat=3)
    plan = plan_for("training", config, load=Load(2, 0.0))
    extras = [s for s in plan.steps if not s.setup and s.chance < 1.0]
    assert [s.id for s in extras] == ["pytorch-eager-lenet-bs32", "pytorch-eager-resnet18-bs32"]
    assert all(s.chance == EXTRA_ROUND_SHARE for s in extras)
    p = ProbeProgress("training", plan, now=0.0)
    assert p.planned == 4  # the rounds that will run; the extra ones are counted by their share only
    lenet = "pytorch-eager-lenet-bs32"
    for t in (0.0, 10.0):
        p.on_event(ev(lenet, "start"), now=t)
        p.on_event(ev(lenet, "done"), now=t + 10.0)
    p.on_event(ev("pytorch-eager-resnet18-bs32", "start"), now=20.0)  # no third lenet round: it is dropped
    assert p.planned == 4 and p.replanned_from is None
    for _ in range(2):
        p.on_event(ev("pytorch-eager-resnet18-bs32", "done"), now=30.0)
        p.on_event(ev("pytorch-eager-resnet18-bs32", "start"), now=30.0)  # the second, then a third round
    assert p.planned == 5 and p.replanned_from == 4  # the extra resnet18 round ran: a visible re-plan


def test_the_eta_names_what_a_possible_extra_round_adds_until_the_runner_moves_past_it():
    """An extra round is weighed by its chance, so the ETA alone reads low just before one runs: the line
    says what it would add, the opening how long it all takes if it runs, and neither once it is dropped."""
    from advisor.estimates import plan_for

    from advisor.estimates import FIRST_RUN_HIGH, FIRST_RUN_LOW

    config = _config(modes=["eager"], repeat=2, max_repeat=3, budget=6)  # a round of 6 s: worth naming
    first = ProbeProgress("training", plan_for("training", config, load=Load(2, 0.0)), now=0.0)
    plan = plan_for("training", config, load=Load(2, 0.0))
    plan.unmeasured = ()  # as on a host that has run these steps: one figure, not a first run's range
    p = ProbeProgress("training", plan, now=0.0)
    extra = [s for s in plan.steps if s.chance < 1.0]  # the round's idle-core sample and its run
    assert [s.setup for s in extra] == [True, False]
    more = sum(s.seconds * (1.0 - s.chance) for s in extra)  # beyond the share the ETA already counts
    view = p.view(now=0.0)
    assert view.eta_high_seconds == pytest.approx(view.eta_seconds + more)
    assert view.text.endswith(f"left (estimate), up to {duration(view.eta_high_seconds)} if another round is needed")
    every = duration(p.estimate_seconds() + more)
    assert p.opening().endswith(f"; up to 1 more if the comparisons need another round ({every} in all)")
    # a first run states the range: without the round at its fastest to with it at its slowest
    low = duration((p.estimate_seconds() - sum(s.seconds * s.chance for s in extra)) * FIRST_RUN_LOW)
    high = duration((p.estimate_seconds() + more) * FIRST_RUN_HIGH)
    assert first.opening().startswith(f"2 runs planned, {low} to {high} (estimate: a first run here")
    assert first.opening().endswith("; the longer time counts up to 1 more if the comparisons need another round")
    lenet = "pytorch-eager-lenet-bs32"
    for t in (0.0, 10.0):
        p.on_event(ev(lenet, "start"), now=t)
        p.on_event(ev(lenet, "done"), now=t + 10.0)
    p.on_event(ev("mindspore-graph-lenet-bs32", "start"), now=20.0)  # the runner moved past the extra round
    assert p.view(now=20.0).eta_high_seconds is None and "another round" not in p.view(now=20.0).text


def test_this_hosts_figures_are_learned_from_a_runs_breakdown_and_used_next_time(tmp_path, monkeypatch):
    from advisor import host_timings
    from advisor.estimates import kind_slowdown, plan_for
    from probes.training.models import ProbeRun

    config = _config(modes=["eager"])
    p = ProbeProgress.for_config("training", config, now=0.0, load=Load(2, 0.0))
    rid = "pytorch-eager-lenet-bs32"
    run = ProbeRun(
        id=rid, framework="pytorch", mode="eager", model="lenet", batch_size=32, status="ok", seconds=20.0,
        first_step_seconds=1.0, warmup_seconds=1.0, measured_seconds=2.0, step_time_ms={"n": 40, "median": 5.0},
        settings={"foreign_cores": 2.0, "threads": 1},
    )  # fmt: skip
    p.on_event(ev(rid, "start"), now=0.0)
    p.on_event(ev(rid, "done", run=run), now=20.0)
    p.finish(now=20.0)
    host_timings.learn("training", config, p)
    got = host_timings.figures().measured["training"][rid]
    slow = Load(2, 2.0).slowdown  # what the run measured for itself: the figures are quiet-equivalent
    start = kind_slowdown("training", Load(2, 2.0), part="startup")  # a run's start-up: RUN_WEIGHT
    assert got["startup"] == pytest.approx((20.0 - 1.0 - 1.0 - 2.0) / start, abs=1e-4)
    assert got["step"] == pytest.approx(0.005 / (slow * 2 / 1), abs=1e-4)
    plan = plan_for("training", config, figures=host_timings.figures(), load=Load(2, 0.0))
    step = next(s for s in plan.steps if s.id == rid)
    assert step.fixed_s == pytest.approx(got["startup"] + got["first_warm"], abs=1e-3)  # this host's, not the defaults


def test_the_countdown_text_moves_every_ten_seconds_not_every_minute():
    """'about 2 min left' stood from 150 s down to 90 s: the text of a countdown held still for a minute."""
    from advisor.progress import duration

    texts = [duration(s) for s in range(150, 89, -10)]
    assert len(set(texts)) == len(texts)
    assert duration(150) == "2 min 30 s" and duration(120) == "2 min" and duration(45) == "45 s"
    assert duration(3 * 3600 + 120) == "3 h 2 min"


def _setup_then_run(aux: float = 30.0, run: float = 30.0) -> ProbeProgress:
    from advisor.estimates import Plan, Step

    plan = Plan([Step("pytorch-aux", aux, setup=True), Step("pytorch-eager-gpt", 0.0, run)])
    return ProbeProgress("gpt", plan, now=0.0)


def test_a_preparation_step_moves_the_bar_and_the_eta_by_the_clock():
    """The GEMM peak / parity child sends no fraction: the TUI's bar sat at 0% through it."""
    p = _setup_then_run()
    p.on_event(ev("pytorch-aux", "start"), now=0.0)
    views = [p.view(now=t) for t in (0.0, 10.0, 20.0)]
    assert views[0].fraction < views[1].fraction < views[2].fraction < 0.5
    assert views[0].eta_seconds > views[1].eta_seconds > views[2].eta_seconds
    assert views[1].doing == "pytorch: GEMM peak and parity arrays"


def test_a_step_past_its_estimate_re_estimates_the_rest_visibly_before_it_ends():
    """A step that overran held the ETA at the other steps' share, then at 'running over the estimate',
    though the time it took said the host was slower than planned."""
    p = _setup_then_run()
    p.on_event(ev("pytorch-aux", "start"), now=0.0)
    for t in range(0, 121, 5):
        view = p.view(now=float(t))
    assert not view.over_estimate and "re-estimated: this host runs" in view.text
    assert view.eta_seconds > 30.0  # the run still ahead, at the pace the overrun shows


def test_a_deploy_step_is_planned_by_its_models_and_learned_per_set_of_models():
    """One figure (12 s) for every step of every model: a LeNet-5 deploy planned 1.9x its actual time."""
    from advisor.estimates import DEPLOY_STEP_S, deploy_key, plan_for
    from probes.deploy.models import DeployConfig

    lenet = plan_for("deploy", DeployConfig(models=["lenet"]), load=Load(2, 0.0))
    both = plan_for("deploy", DeployConfig(models=["lenet", "resnet18"]), load=Load(2, 0.0))
    assert lenet.each_for("x") == DEPLOY_STEP_S["lenet"]  # a full step (an ONNX Runtime serve: its share)
    assert both.each_for("x") == pytest.approx(sum(DEPLOY_STEP_S.values()) / 2)
    assert deploy_key(DeployConfig(models=["resnet18", "lenet"])) == "step-lenet+resnet18"


def test_the_scaling_launches_are_planned_before_the_first_one_starts():
    """The plan had no launches until the runner announced them: the opening said no time at all."""
    from probes.scaling.models import ScalingConfig

    config = ScalingConfig(frameworks=["pytorch", "mindspore"], models=["lenet"], repeat=3)
    p = ProbeProgress.for_config("scaling", config, now=0.0, load=Load(2, 0.0))
    assert p.planned == 3 * 2 * 2 and p.estimate_seconds() > 0
    assert re.search(r"12 launches planned, .+ to .+ \(estimate: a first run here", p.opening())
    p.on_event(ev("pytorch-lenet-r1-rep1", "start", total=12), now=0.0)  # the runner's total: the same plan
    assert p.planned == 12 and p.replanned_from is None
