"""The transformer probe's estimate (advisor.estimates.gpt_plan) and what it learns (advisor.host_timings):
the cold torch.compile counted from its own inductor folder, the dynamic-shape children from their ways'
widths and tokens, the runner's announced total the plan's, and the --quick profile."""

from __future__ import annotations

import argparse

import pytest

from advisor.estimates import (
    DYNAMIC_PARTS,
    GPT_DYNAMIC_S,
    GPT_S,
    Figures,
    Load,
    dynamic_work,
    new_shapes,
    plan_for,
)
from advisor.progress import ProbeProgress
from probes.base import _adapter
from probes.transformer.models import GPT_QUICK, DynamicRun, GptConfig, GptEvent, GptRun

QUIET = Load(2, 0.0)


@pytest.fixture(autouse=True)
def quiet_host(monkeypatch):
    monkeypatch.setattr("advisor.estimates.load_now", lambda window=None: QUIET)


def _config(tmp_path, **kw) -> GptConfig:
    base = dict(frameworks=["pytorch"], modes=["compile"], repeat=1, max_repeat=1, dynamic=False)
    return GptConfig(**{**base, "compile_cache_dir": str(tmp_path), **kw})


def _step(plan, rid):
    return next(s for s in plan.steps if s.id == rid)


def test_a_cold_torch_compile_is_planned_until_the_timed_runs_folder_has_kernels(tmp_path):
    """The plan read the mode's first-step figure into the name of the cache's state, so a compile run
    was never planned cold (the GPT estimate's largest miss)."""
    from probes.transformer.runner import _cache_root

    startup, warm, cold, _ = GPT_S[("pytorch", "compile")]
    config = _config(tmp_path, modes=["eager", "compile"])
    plan = plan_for("gpt", config, load=QUIET)
    run = _step(plan, "pytorch-compile-gpt")
    assert run.fixed_s == pytest.approx(startup + cold) and plan.cold == ["pytorch-compile-gpt"]
    # kernels of the dynamic children do not make the timed runs warm: each has its own folder
    (tmp_path / _cache_root(config).split("/")[-1] / "dynamic" / "compile-padded").mkdir(parents=True)
    (tmp_path / _cache_root(config).split("/")[-1] / "dynamic" / "compile-padded" / "k.py").write_text("")
    assert plan_for("gpt", config, load=QUIET).cold == ["pytorch-compile-gpt"]
    timed = tmp_path / _cache_root(config).split("/")[-1] / "timed" / "fxgraph"
    timed.mkdir(parents=True)
    (timed / "k.py").write_text("")
    plan = plan_for("gpt", config, load=QUIET)
    assert _step(plan, "pytorch-compile-gpt").fixed_s == pytest.approx(startup + warm) and plan.cold == []


def test_the_dynamic_ways_are_counted_by_their_widths_and_tokens(tmp_path):
    config = _config(tmp_path, seq=128, batch_size=8, dynamic_steps=8, dynamic_distinct=3, dynamic_passes=2)
    work = dict((way, (widths, tokens)) for way, widths, tokens in dynamic_work(config))
    # lengths 32, 80, 128 (each used) padded to 128, to the buckets 32, 96, 128, or kept
    assert work["padded"] == (1, 2 * 8 * 8 * 128)
    assert work["bucketed"][0] == 3 and work["variable"][0] == 3
    assert work["variable"][1] < work["bucketed"][1] < work["padded"][1]
    assert [new_shapes(v, 4) for v in ("graph", "compile", "compile-dynamic", "graph-dynamic", "eager")] == [
        4,
        2,
        1,
        1,
        4,
    ]


def test_a_dynamic_childs_estimate_is_its_start_up_its_new_shapes_and_its_tokens(tmp_path):
    config = _config(tmp_path, frameworks=["mindspore"], modes=["graph"], dynamic=True,
                     dynamic_variants=["graph"], dynamic_steps=8, dynamic_distinct=4, dynamic_passes=2)  # fmt: skip
    startup, per_shape, _, token_us = GPT_DYNAMIC_S["graph"]
    shapes = sum(new_shapes("graph", w) for _, w, _ in dynamic_work(config))
    tokens = sum(t for _, _, t in dynamic_work(config))
    step = _step(plan_for("gpt", config, load=QUIET), "mindspore-graph-dynamic")
    assert shapes == 1 + 4 + 4
    # the start-up until the child reports its first way; the shapes and the tokens after, by its steps
    assert step.fixed_s == pytest.approx(startup)
    assert step.timed_s == pytest.approx(shapes * per_shape + tokens * token_us * 1e-6)
    busy = _step(plan_for("gpt", config, load=Load(2, 2.0)), "mindspore-graph-dynamic")
    assert busy.fixed_s == pytest.approx(startup * Load(2, 2.0).slowdown)
    assert busy.timed_s == pytest.approx(
        shapes * per_shape * Load(2, 2.0).slowdown + tokens * token_us * 1e-6 * Load(2, 2.0).slowdown
    )


def _dynamic_run(variant="graph", framework="mindspore", seconds=40.0) -> DynamicRun:
    way = dict(steps=16, passes=2, distinct_lengths=4, compiles_source="framework counter", padding_share=0.0)
    return DynamicRun(
        id=f"{framework}-{variant}-dynamic", framework=framework, variant=variant, status="ok", seconds=seconds,
        ways=[
            {**way, "way": "padded", "shapes": [128], "compiles": 1, "compile_seconds": 5.0, "total_seconds": 9.0,
             "end_to_end_tokens_per_second": 2 * 8 * 8 * 128 / 9.0},
            {**way, "way": "variable", "shapes": [32, 64, 96, 128], "compiles": 4, "compile_seconds": 15.0,
             "stall_seconds": 1.0, "total_seconds": 20.0, "end_to_end_tokens_per_second": 1000.0,
             "padding_share": 0.5},
        ],
    )  # fmt: skip


def test_a_finished_runs_parts_are_learned_and_planned_next_time(tmp_path, monkeypatch):
    """The GPT runner's done events carry their run (they did not: this host's GPT figures were never
    learned), the timed runs by their breakdown, the dynamic children by their ways."""
    from advisor import host_timings

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    host_timings._memo.clear()
    config = _config(tmp_path, frameworks=["mindspore"], modes=["graph"], dynamic=True, dynamic_variants=["graph"],
                     dynamic_ways=["padded", "variable"], dynamic_steps=8, dynamic_distinct=4, dynamic_passes=2,
                     gemm=False, parity=False, attention=False)  # fmt: skip
    p = ProbeProgress.for_config("gpt", config, now=0.0, load=QUIET)
    timed = GptRun(
        id="mindspore-graph-gpt", framework="mindspore", mode="graph", status="ok", seconds=30.0,
        first_step_seconds=8.0, warmup_seconds=2.0, measured_seconds=6.0, step_time_ms={"n": 7, "median": 900.0},
        settings={"foreign_cores": 0.0, "threads": 2},
    )  # fmt: skip
    p.on_event(GptEvent(run_id=timed.id, kind="start"), now=0.0)
    p.on_event(GptEvent(run_id=timed.id, kind="done", run=timed), now=30.0)
    dyn = _dynamic_run()
    p.on_event(GptEvent(run_id=dyn.id, kind="start"), now=30.0)
    # through the probe registry's adapter (the TUI, the benchmark) a done event's run stays its model (as
    # the model's dict, the TUI read it as a bare status and learned nothing from it)
    adapted = []
    _adapter("gpt", adapted.append)(GptEvent(run_id=dyn.id, kind="done", run=dyn))
    assert adapted[0].run is dyn
    p.on_event(adapted[0], now=70.0)
    p.finish(now=70.0)
    host_timings.learn("gpt", config, p)
    got = host_timings.figures().measured["gpt"]
    assert got[timed.id]["startup"] == pytest.approx(30.0 - 8.0 - 2.0 - 6.0) and got[timed.id]["first_cold"] == 8.0
    learned = got[dyn.id]
    assert learned["startup"] == pytest.approx(40.0 - 29.0)
    assert learned["shape_cold"] == pytest.approx((5.0 + 15.0 + 1.0) / (1 + 4)) == learned["shape_warm"]
    computed = 2 * 8 * 8 * 128 + 1000.0 * 20.0 / 0.5
    assert learned["token_us"] == pytest.approx((9.0 - 5.0 + 20.0 - 16.0) / computed * 1e6)
    plan = plan_for("gpt", config, figures=host_timings.figures(), load=QUIET)
    step = _step(plan, dyn.id)
    shapes = sum(new_shapes("graph", w) for _, w, _ in dynamic_work(config))
    assert step.fixed_s + step.timed_s == pytest.approx(
        learned["startup"]
        + shapes * learned["shape_cold"]
        + sum(t for _, _, t in dynamic_work(config)) * learned["token_us"] * 1e-6,
        abs=1e-3,
    )
    assert set(learned) - {"n", "foreign_cores", "cores"} == set(DYNAMIC_PARTS)  # and the load it met
    host_timings._memo.clear()


def test_the_runners_total_counts_runs_not_its_preparation(monkeypatch):
    """The GPT runner announced its GEMM / parity children in its total: every GPT run re-planned
    ('6 runs (was 4)') at its first event."""
    from probes.transformer import runner

    def child(args, **kw):
        return runner.launcher.ChildOutcome(status="failed", error="not run")

    monkeypatch.setattr(runner.launcher, "run_child", child)
    installed = {fw: {"installed": True, "version": "1"} for fw in ("pytorch", "mindspore")}
    monkeypatch.setattr(runner.training, "installed_frameworks", lambda: installed)
    config = GptConfig(repeat=1, max_repeat=1, dynamic_variants=["eager"])
    p = ProbeProgress.for_config("gpt", config, now=0.0, load=QUIET)
    totals = []

    def on_event(event):
        totals.append(event.total)
        p.on_event(event, now=0.0)

    runner.run(config, on_event=on_event)
    assert set(totals) == {p.planned} == {len(config.modes) + 1}
    assert p.replanned_from is None


def _args(**kw) -> argparse.Namespace:
    from advisor.commands.probe_common import MODES
    from probes.training.models import QUICK, ProbeConfig

    defaults = ProbeConfig()
    base = dict(models="gpt", frameworks="pytorch,mindspore", modes=",".join(MODES), batch_size=32, budget=6.0,
                device="auto", threads=None, data=None, repeat=defaults.repeat, max_repeat=defaults.max_repeat,
                no_parity=False, no_tune=False, max_steps=None, quick=True, gpt_layers=None, gpt_hidden=None,
                gpt_heads=None, gpt_seq=None, gpt_vocab=None, gpt_batch=None, dynamic=None, dynamic_ways=None,
                dynamic_steps=None, dynamic_distinct=None, dynamic_passes=None)  # fmt: skip
    base["_quick_defaults"] = {k: base[k] for k in QUICK}
    base.update(kw)
    return argparse.Namespace(**base)


def test_quick_is_the_transformer_probes_profile_too_and_a_flag_given_wins(monkeypatch):
    from advisor.commands import probe_gpt

    monkeypatch.setattr("advisor.config.value", lambda key: 6.0)
    c = probe_gpt.build_config(_args())
    for field, value in GPT_QUICK.items():
        assert getattr(c, field) == value, field
    c = probe_gpt.build_config(_args(budget=4.0, dynamic="pynative", dynamic_steps=10, modes="eager,pynative"))
    assert (c.budget, c.dynamic_variants, c.dynamic_steps, c.modes) == (4.0, ["pynative"], 10, ["eager", "pynative"])
    assert c.dynamic_ways == GPT_QUICK["dynamic_ways"] and c.repeat == GPT_QUICK["repeat"]
    full = probe_gpt.build_config(_args(quick=False))
    assert full.dynamic_variants != GPT_QUICK["dynamic_variants"] and full.budget == 6.0


def test_the_quick_plan_is_a_fraction_of_the_default_one(tmp_path):
    """On this machine kind's figures the quick profile plans a few minutes and the default a sensible
    budget (the default planned ~88 min under load before)."""
    quick = plan_for("gpt", GptConfig(**GPT_QUICK, compile_cache_dir=str(tmp_path)), Figures(), QUIET)
    full = plan_for("gpt", GptConfig(compile_cache_dir=str(tmp_path)), Figures(), QUIET)
    assert quick.seconds < 0.5 * full.seconds


def test_the_default_dynamic_variants_leave_out_the_two_costliest_and_all_brings_them():
    from advisor.commands import probe_gpt
    from probes.transformer.models import DEFAULT_VARIANTS, VARIANTS

    assert probe_gpt.build_config(_args(quick=False)).dynamic_variants == list(DEFAULT_VARIANTS)
    assert probe_gpt.build_config(_args(quick=False, dynamic="all")).dynamic_variants == list(VARIANTS)
    assert {"compile", "pynative"} == set(VARIANTS) - set(DEFAULT_VARIANTS)
