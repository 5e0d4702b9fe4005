"""The plan reads the install: a framework this interpreter cannot import is not planned (the training runner
ends its runs at once as unavailable, the GPT runner leaves them out), and a CUDA build of torch starts its
children later than the CPU build's defaults say. Judged on seven probes recorded on an H200 host with 16
cores (2026-12-04, benchmarks/probe_estimates.py --record; torch 2.11 with CUDA 13, no MindSpore): two
passes of the quick training probe and the GPT probe planned as before (the fixture names the install, which
those four recordings kept only in the run's output), then the quick, GPT and accuracy probes on an empty
cache with the plan reading the install. Planned as before, the GPT probe opened 2.73x and 2.80x the time it
took, none of its ETAs inside 0.67-1.5x; read without the bigger host's cores it opened 1.57x, and the
accuracy probe, its MindSpore child planned, 2.03x. Each test fails on the model before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor import estimates
from advisor.estimates import CUDA_BUILD_STARTUP_S, Figures, Load, plan_for
from advisor.progress import ProbeProgress
from probes import hostfacts
from probes.base import ProbeEvent
from probes.training.models import QUICK, ProbeConfig
from probes.transformer.models import GPT_QUICK, GptConfig

from test_estimates_replayed import GOAL, label, replay_all

QUIET = Load(2, 0.0)
GPU_HOST = json.loads((Path(__file__).parent / "fixtures" / "eta_records" / "gpu-host.json").read_text())


def without_mindspore(monkeypatch) -> None:
    monkeypatch.setattr(estimates, "missing_frameworks", lambda fws: frozenset(fws or []) & {"mindspore"})


def test_a_framework_that_is_not_installed_plans_no_set_up_child_and_its_runs_at_no_time(monkeypatch, tmp_path):
    config = ProbeConfig(**QUICK, compile_cache_dir=str(tmp_path))
    both = plan_for("training", config, Figures(), QUIET)
    without_mindspore(monkeypatch)
    plan = plan_for("training", config, Figures(), QUIET)
    ids = [s.id for s in plan.steps]
    assert "mindspore-aux" in [s.id for s in both.steps] and "mindspore-aux" not in ids
    mindspore = [s for s in plan.steps if s.id.startswith("mindspore-")]
    assert mindspore and all(s.seconds == 0.0 for s in mindspore)  # still announced: still counted as runs
    assert len(plan.runs) == len(both.runs)
    certain = [s.seconds for s in plan.steps if s.id.startswith("pytorch-") and s.chance >= 1.0]
    assert certain == [s.seconds for s in both.steps if s.id.startswith("pytorch-") and s.chance >= 1.0]
    # and no extra round: no comparison has both its sides (a lone framework chosen on its own still may)
    assert any(s.chance < 1.0 for s in both.steps) and not any(s.chance < 1.0 for s in plan.steps)
    alone = plan_for("training", ProbeConfig(**{**QUICK, "frameworks": ["pytorch"]}, compile_cache_dir=str(tmp_path)))
    assert any(s.chance < 1.0 for s in alone.steps)


def test_the_gpt_probe_plans_only_the_frameworks_its_runner_keeps(monkeypatch, tmp_path):
    config = GptConfig(**GPT_QUICK, compile_cache_dir=str(tmp_path))
    without_mindspore(monkeypatch)
    plan = plan_for("gpt", config, Figures(), QUIET)
    assert plan.steps and not [s.id for s in plan.steps if "mindspore" in s.id]
    assert any(s.id.startswith("pytorch-") and "dynamic" in s.id for s in plan.steps) == bool(config.dynamic)


def test_a_cuda_build_of_torch_adds_its_start_up_to_the_defaults_not_to_a_hosts_own_figures(monkeypatch, tmp_path):
    config = ProbeConfig(**QUICK, compile_cache_dir=str(tmp_path))
    cpu = {s.id: s.fixed_s for s in plan_for("training", config, Figures(), QUIET).steps}
    monkeypatch.setattr(estimates, "torch_cuda_build", lambda: True)
    cuda = {s.id: s.fixed_s for s in plan_for("training", config, Figures(), QUIET).steps}
    assert cuda["pytorch-aux"] == pytest.approx(cpu["pytorch-aux"] + CUDA_BUILD_STARTUP_S)
    assert cuda["pytorch-eager-lenet-bs32"] == pytest.approx(cpu["pytorch-eager-lenet-bs32"] + CUDA_BUILD_STARTUP_S)
    assert cuda["mindspore-graph-lenet-bs32"] == cpu["mindspore-graph-lenet-bs32"]
    own = {"training": {"pytorch-eager-lenet-bs32": {"startup": 11.1, "first_warm": 0.5, "first_cold": 0.5}}}
    learned = {s.id: s.fixed_s for s in plan_for("training", config, Figures(own), QUIET).steps}
    assert learned["pytorch-eager-lenet-bs32"] == pytest.approx(11.1 + 0.5)


def test_torch_is_read_as_a_cuda_build_from_its_libraries_without_importing_it(monkeypatch, tmp_path):
    import importlib.util
    from types import SimpleNamespace

    (tmp_path / "torch" / "lib").mkdir(parents=True)
    (tmp_path / "torch" / "lib" / "libtorch_cpu.so").write_bytes(b"")
    found = SimpleNamespace(submodule_search_locations=[str(tmp_path / "torch")])
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: found if name == "torch" else None)
    assert hostfacts.torch_cuda_build() is False
    (tmp_path / "torch" / "lib" / "libtorch_cuda.so").write_bytes(b"")
    assert hostfacts.torch_cuda_build() is True
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert hostfacts.torch_cuda_build() is False


def test_this_hosts_tested_set_is_a_cpu_build_with_both_frameworks():
    """The tested set (constraints.txt: torch 2.13.0+cpu, mindspore 2.10.0): what the replays of this host's
    recordings assume when a recording names no install."""
    assert hostfacts.torch_cuda_build() is False
    assert hostfacts.installed("torch") and hostfacts.installed("mindspore")


@pytest.mark.parametrize("rec", GPU_HOST, ids=label)
def test_a_probe_on_a_gpu_host_without_mindspore_opens_within_the_goal(rec):
    opening, _ = replay_all(rec)
    assert GOAL[0] <= opening / rec["actual"] <= GOAL[1], f"{opening:.0f} s planned, {rec['actual']:.0f} s taken"


def test_most_of_the_gpu_hosts_mid_run_etas_are_within_the_goal():
    """185 of 215 now (the first GPT run's dynamic-shape child built its first model for 10 s, which no
    figure of a 2-core host foresees: 29 of 43 there; its second run, with this host's figures, 43 of 43)."""
    ratios = [ratio for rec in GPU_HOST for _, ratio, _ in replay_all(rec)[1]]
    inside = sum(1 for r in ratios if GOAL[0] <= r <= GOAL[1])
    assert len(ratios) > 200 and inside / len(ratios) >= 0.8, f"{inside} of {len(ratios)}"


def test_the_gpt_probes_default_compute_is_shared_by_a_bigger_hosts_cores(monkeypatch, tmp_path):
    config = GptConfig(**GPT_QUICK, compile_cache_dir=str(tmp_path))
    two = {s.id: s for s in plan_for("gpt", config, Figures(), Load(2, 0.0)).steps}
    sixteen = {s.id: s for s in plan_for("gpt", config, Figures(), Load(16, 0.0)).steps}
    dynamic = next(k for k in two if k.endswith("-dynamic"))
    assert sixteen[dynamic].fixed_s == two[dynamic].fixed_s  # a start-up is not shared
    assert sixteen[dynamic].timed_s < two[dynamic].timed_s / 2


def test_planned_as_if_every_framework_ran_the_gpu_hosts_gpt_probes_opened_far_outside_the_goal():
    for rec in (r for r in GPU_HOST if r["kind"] == "gpt-quick"):
        as_before = {k: v for k, v in rec.items() if k not in ("installed", "cuda_build")}
        opening, _ = replay_all(as_before)
        assert opening / rec["actual"] > 2.0  # 2.06-2.41x (2.73x and 2.80x as recorded, before the cores)


def test_a_childs_word_at_zero_leaves_its_start_up_counting_by_the_clock():
    """A GPT probe's dynamic-shape child says 0 as it builds its first way's model: on the H200 host that
    build took 10 s of the child's 18 s, and with the word taken for the end of its start-up the ETA read
    0.6 s with 12 s left (0.05x)."""
    config = GptConfig(frameworks=["pytorch"], modes=["eager"], repeat=1, max_repeat=1, dynamic=True,
                       dynamic_variants=["eager"])  # fmt: skip
    p = ProbeProgress.for_config("gpt", config, now=0.0, load=QUIET)
    rid = "pytorch-eager-dynamic"
    step = next(s.step for s in p.order if s.step.id == rid)
    p.on_event(ProbeEvent(kind_name="gpt", run_id=rid, kind="start"), now=0.0)
    p.on_event(ProbeEvent(kind_name="gpt", run_id=rid, kind="progress", fraction=0.0), now=1.0)
    slot = p.order[p.slots[rid][0]]
    assert p._left(slot, now=1.0, scale=1.0) == pytest.approx(step.seconds - 1.0)
    p.on_event(ProbeEvent(kind_name="gpt", run_id=rid, kind="progress", fraction=0.5), now=step.fixed_s)
    assert p._left(slot, now=step.fixed_s, scale=1.0) == pytest.approx(step.timed_s * 0.5)


def test_an_accuracy_run_plans_no_time_for_a_framework_it_cannot_import(monkeypatch):
    from probes.accuracy.models import AccuracyConfig

    config = AccuracyConfig(epochs=2, seeds=1)
    both = {s.id: s.seconds for s in plan_for("accuracy", config, Figures(), QUIET).steps}
    without_mindspore(monkeypatch)
    plan = {s.id: s.seconds for s in plan_for("accuracy", config, Figures(), QUIET).steps}
    assert both["normalize-check"] > 0 and "normalize-check" not in plan
    assert both["mindspore-graph-seed0"] > 0 and plan["mindspore-graph-seed0"] == 0.0
    assert plan["pytorch-eager-seed0"] == both["pytorch-eager-seed0"]


def test_a_pipeline_run_plans_no_time_for_a_framework_it_cannot_import(monkeypatch):
    from probes.pipeline.models import PipelineConfig

    config = PipelineConfig(batches=20, passes=2)
    both = [(s.id, s.seconds) for s in plan_for("pipeline", config, Figures(), QUIET).steps]
    without_mindspore(monkeypatch)
    plan = [(s.id, s.seconds) for s in plan_for("pipeline", config, Figures(), QUIET).steps]
    assert [i for i, _ in plan] == [i for i, _ in both]  # each still announced (a pass each)
    assert all(s == 0.0 for i, s in plan if i.startswith("mindspore-"))
    assert all(s > 0.0 for i, s in both if i.startswith("mindspore-"))


def test_a_scaling_run_plans_no_launch_for_a_framework_it_cannot_import(monkeypatch):
    from probes.scaling.models import ScalingConfig

    config = ScalingConfig(models=["lenet"], repeat=1)
    both = plan_for("scaling", config, Figures(), QUIET)
    without_mindspore(monkeypatch)
    plan = plan_for("scaling", config, Figures(), QUIET)
    assert both.announced == 2 * plan.announced and plan.announced == 2  # PyTorch at 1 and 2 ranks
    monkeypatch.setattr(estimates, "missing_frameworks", lambda fws: frozenset(fws or []))
    assert plan_for("scaling", config, Figures(), QUIET).announced == 0


PYTORCH_ONLY = json.loads((Path(__file__).parent / "fixtures" / "eta_records" / "pytorch-only.json").read_text())


@pytest.mark.parametrize("rec", PYTORCH_ONLY, ids=label)
def test_a_pytorch_only_first_run_on_the_faster_host_opens_within_the_goal(rec):
    """The quick training probe with MindSpore hidden from the interpreter, on the second 2-core host
    (2026-12-04 19:15, quiet, an empty cache each): planned at 24 s, it took 11-13 s (1.89-2.15x). Its
    GEMM child took 3.4-4.3 s against 6.8 s planned and its runs 3-4.4 s against 5.6 s, and no extra round
    could run (no comparison had both sides), which the plan weighed at half. Planned now without that round
    and with PyTorch's start-ups at the middle of the two hosts (advisor.estimates.HOST_MIDDLE): 1.30-1.47x.
    Then three runs as `advisor probe --quick` takes them (PyTorch alone chosen, so a lone run's extra round
    is weighed at half; the benchmark takes the installed frameworks since): 1.12-1.35x, each with
    the extra round (two more through the CLI, not recorded, took 12.6 and 12.7 s against "about 20 s")."""
    opening, _ = replay_all(rec)
    assert GOAL[0] <= opening / rec["actual"] <= GOAL[1], f"{opening:.0f} s planned, {rec['actual']:.0f} s taken"


def test_a_deployment_plans_no_time_for_a_framework_it_cannot_import(monkeypatch):
    """Its exports and its source baseline are announced and end at once as unavailable; nothing of it is
    served (probes.deploy.runner.serve_plan serves what exported)."""
    from probes.deploy.models import DeployConfig

    config = DeployConfig(models=["lenet"])
    both = plan_for("deploy", config, Figures(), QUIET)
    without_mindspore(monkeypatch)
    plan = plan_for("deploy", config, Figures(), QUIET)
    assert plan.each_for("mindspore-mindir-lenet") == 0.0 and plan.each_for("mindspore-source-lenet@x") == 0.0
    assert plan.each_for("pytorch-onnx-lenet") == both.each_for("pytorch-onnx-lenet") > 0
    mindspore_served = 2  # its two exports (ONNX, MindIR), each served once
    assert plan.announced == both.announced - mindspore_served
    assert plan.seconds < both.seconds * 0.75
