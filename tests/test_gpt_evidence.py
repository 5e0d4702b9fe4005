"""The GPT probe's result as report evidence (advisor.decision.transformer_evidence): what it cites,
where it applies, and the dynamic-shape move of the migration risk, by hand from a real result.

The fixture is a real run on this 2-vCPU VM (`advisor probe --models gpt --gpt-layers 2 --gpt-hidden 64
--gpt-heads 4 --gpt-seq 32 --gpt-vocab 512 --gpt-batch 4 --budget 2 --repeat 2 --dynamic-steps 8
--dynamic-distinct 4 --dynamic-passes 2 --no-cache --json -o FILE`); the tests set its dynamic-way
throughputs and its graph run's grade where a case needs other numbers, and recompute the probe's own
verdicts from them, so the arithmetic below is checked against the module, not copied from it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from advisor.decision import transformer_evidence as te
from advisor.decision.constants import Consts
from advisor.requirements import parse_requirements
from probes.transformer import verdicts
from probes.transformer.models import GptResult

FIXTURE = Path(__file__).parent / "fixtures" / "report" / "gpt-2vcpu.json"


def _raw() -> dict:
    return json.loads(FIXTURE.read_text())


def _doc(hardware: dict, model: dict):
    return parse_requirements(
        {"name": "gpt-evidence", "deployment": {"targets": ["ascend-server"]}, "hardware": hardware, "model": model}
    )


def _req(**model):
    hw = {"available": ["nvidia", "ascend"], "training_target": "ascend", "accelerator": "Ascend 910B"}
    return _doc(hw, {"family": "transformer", "parameters_millions": 125.0, **model})


def _result(graph_quality: str = "stable", e2e: dict | None = None, drop: tuple = ()) -> GptResult:
    """The fixture with the MindSpore graph run graded `graph_quality`, the dynamic ways' end-to-end
    tokens/s set from `e2e` {(variant, way): tokens/s}, `drop`ped (variant, way)s removed, and the
    probe's verdicts recomputed."""
    raw = copy.deepcopy(_raw())
    for r in raw["runs"]:
        if r["framework"] == "mindspore" and r["mode"] == "graph":
            r["quality"], r["quality_reasons"] = graph_quality, [] if graph_quality == "stable" else ["made noisy"]
    for d in raw["dynamic"]:
        d["ways"] = [w for w in d["ways"] if (d["variant"], w["way"]) not in drop]
        for w in d["ways"]:
            if e2e and (d["variant"], w["way"]) in e2e:
                w["end_to_end_tokens_per_second"] = e2e[(d["variant"], w["way"])]
    res = GptResult.model_validate(raw)
    res.dynamic_verdicts = [v for v in (verdicts.dynamic_verdict(d) for d in res.dynamic if d.status == "ok") if v]
    return res


# ------------------------------------------------------------------ the fixture is a real, complete run


def test_fixture_is_a_real_run_in_all_four_modes():
    res = GptResult.model_validate(_raw())
    assert {(r.framework, r.mode) for r in res.runs} == {
        ("pytorch", "eager"),
        ("pytorch", "compile"),
        ("mindspore", "graph"),
        ("mindspore", "pynative"),
    }
    assert all(r.status == "ok" and r.tokens_per_second > 0 for r in res.runs)
    variants = {d.variant for d in res.dynamic}
    assert {"graph", "graph-dynamic"} <= variants
    graph = {w.way: w for d in res.dynamic if d.variant == "graph" for w in d.ways}
    assert graph["variable"].compiles == graph["variable"].distinct_lengths == 4  # one graph per length


# ------------------------------------------------------------------ the evidence it cites


def test_not_measured():
    ev = te.transformer_evidence(None, _req())
    assert ev.source == "none" and ev.evidence == [] and "--gpt FILE" in ev.note
    assert ev.adjustment("hybrid") is None


def test_evidence_cites_each_run_measured_here_on_this_host_and_not_for_the_target():
    res = GptResult.model_validate(_raw())
    ev = te.transformer_evidence(res, _req(), file="gpt.json")
    assert ev.source == "file" and ev.file == "gpt.json" and ev.hardware_class == "cpu"
    assert ev.workload and not ev.same_hardware_class
    assert [e.ref for e in ev.evidence] == [f"gpt:{r.id}" for r in res.runs]
    for e, r in zip(ev.evidence, res.runs):
        assert e.kind == "measured" and e.value == pytest.approx(r.tokens_per_second, abs=5e-4)  # rounded to 3 places
        assert e.ci95 == pytest.approx(r.ci95, abs=5e-4)
        assert "measured here" in e.detail and res.host.cpu_model in e.detail
        assert f"step {r.step_time_ms.median:.1f} ms" in e.detail and f"MFU {r.mfu:.1%}" in e.detail
        assert (r.quality or "not graded") in e.detail
        assert "not a projection for the training target (ascend, Ascend 910B)" in e.detail
    assert ev.parity is not None and ev.parity.startswith("parity passed") and "derived bound" in ev.parity
    assert any("PyTorch" in a and "kernel" in a for a in ev.attention)
    assert any("MindSpore" in a and "Ascend-only" in a for a in ev.attention)


def test_same_hardware_class_when_the_team_trains_on_cpu():
    req = _doc({"available": ["cpu"], "training_target": "cpu"}, {"family": "transformer"})
    ev = te.transformer_evidence(_raw(), req)  # the JSON dict is validated at this boundary
    assert ev.same_hardware_class and "the class the team trains on" in ev.applies_where


def test_not_a_transformer_workload_is_context_only():
    req = _doc({"available": ["cpu"]}, {"family": "cnn"})
    ev = te.transformer_evidence(_raw(), req)
    assert not ev.workload and "context only" in ev.note


# ------------------------------------------------------------------ the dynamic-shape adjustment


def _costs(res: GptResult) -> tuple[float, str]:
    by = {(d.variant, w.way): w.end_to_end_tokens_per_second for d in res.dynamic for w in d.ways}
    best = max(("padded", "bucketed"), key=lambda w: by.get(("graph", w)) or 0)
    return 1 - by[("graph", "variable")] / by[("graph", best)], best


E2E_COSTLY = {("graph", "padded"): 1000.0, ("graph", "bucketed"): 800.0, ("graph", "variable"): 600.0}


def test_measured_cost_raises_the_risk_by_the_stated_amount_without_a_working_mitigation():
    # variable 40% below padded; bucketing 20% and set_inputs 25% below it: neither within the 10% floor
    res = _result(e2e={**E2E_COSTLY, ("graph-dynamic", "variable"): 750.0})
    ev = te.transformer_evidence(res, _req(dynamic_shapes=True))
    f = ev.dynamic
    assert f.usable and f.best_way == "padded"
    assert f.cost == pytest.approx(0.4) and f.bucketed_cost == pytest.approx(0.2)
    assert f.set_inputs_cost == pytest.approx(0.25)
    assert f.residual == pytest.approx(0.2) and f.mitigation == "bucketing"
    for wf in ("hybrid", "mindspore"):
        a = ev.adjustment(wf)
        assert a.direction == "rises" and a.likelihood == 0.95 and a.likelihood_before == 0.9  # risks.RULES
        assert "likelihood 0.9 -> 0.95" in a.line
        assert a.unmitigated_points == pytest.approx(20 * 0.4)
        assert a.penalty_points == pytest.approx(20 * 0.2)  # the team takes the best measured option
        assert "DYNAMIC_SHAPE_PENALTY" in a.line and "DYNAMIC_MEASURED_HIT" in a.line
    assert ev.adjustment("pytorch") is None


def test_no_mitigation_measured_charges_the_whole_cost():
    res = _result(e2e=E2E_COSTLY, drop=(("graph", "bucketed"), ("graph-dynamic", "variable")))
    a = te.transformer_evidence(res, _req(dynamic_shapes=True)).adjustment("hybrid")
    assert a.direction == "rises" and a.penalty_points == pytest.approx(20 * 0.4)
    assert "no mitigation was measured" in a.line


def test_bucketing_that_recovers_the_cost_lowers_the_risk():
    e2e = {("graph", "padded"): 900.0, ("graph", "bucketed"): 1000.0, ("graph", "variable"): 700.0}
    res = _result(e2e=e2e)
    ev = te.transformer_evidence(res, _req(dynamic_shapes=True))
    assert ev.dynamic.best_way == "bucketed" and ev.dynamic.residual == pytest.approx(0.0)
    a = ev.adjustment("mindspore")
    assert a.direction == "falls" and a.likelihood == 0.3 and a.penalty_points == 0
    assert a.unmitigated_points == pytest.approx(20 * 0.3)  # what it would have cost: 1 - 700/1000
    assert "bucketing the lengths measured 0%" in a.line and "likelihood 0.9 -> 0.3" in a.line


def test_set_inputs_that_recovers_the_cost_lowers_the_risk():
    e2e = {**E2E_COSTLY, ("graph-dynamic", "variable"): 950.0}  # 5% below padded: inside the floor
    res = _result(e2e=e2e, drop=(("graph", "bucketed"),))
    a = te.transformer_evidence(res, _req(dynamic_shapes=True)).adjustment("hybrid")
    assert a.direction == "falls" and a.penalty_points == pytest.approx(20 * 0.05)
    assert "Cell.set_inputs" in a.line


def test_dynamic_control_flow_alone_is_not_what_the_shape_measurement_speaks_to():
    # the probe's GPT has no data-dependent branches: its variable-length cost moves the dynamic-shape
    # pitfall only, never graph-dynamic-control-flow
    e2e = {("graph", "padded"): 900.0, ("graph", "bucketed"): 1000.0, ("graph", "variable"): 700.0}
    req = _req(dynamic_control_flow=True)
    ev = te.transformer_evidence(_result(e2e=e2e), req)
    assert ev.adjustment("hybrid") is None
    a = te.risk_adjustment("hybrid", req, ev.dynamic)
    assert not a.applies and a.penalty_points == 0 and a.likelihood is None
    assert te.PITFALL == "graph-dynamic-shapes"


def test_a_cost_below_the_floor_moves_nothing():
    e2e = {("graph", "padded"): 1000.0, ("graph", "bucketed"): 900.0, ("graph", "variable"): 950.0}
    a = te.transformer_evidence(_result(e2e=e2e), _req(dynamic_shapes=True)).adjustment("hybrid")
    assert a.applies and a.direction == "none" and a.penalty_points == 0 and a.likelihood is None


@pytest.mark.parametrize("grade", ["noisy", "unusable"])
def test_a_noisy_or_unusable_measurement_never_moves_anything(grade):
    ev = te.transformer_evidence(_result(graph_quality=grade, e2e=E2E_COSTLY), _req(dynamic_shapes=True))
    assert not ev.dynamic.usable and grade in ev.dynamic.reason and "Not used" in ev.dynamic.text
    assert ev.adjustment("hybrid") is None and ev.adjustment("mindspore") is None
    assert all(a.penalty_points == 0 and a.likelihood is None for a in ev.adjustments)


def test_the_real_loaded_run_moves_nothing():
    """The fixture as measured: 2 vCPUs shared with six other jobs, every run graded unusable."""
    ev = te.transformer_evidence(_raw(), _req(dynamic_shapes=True))
    assert not ev.dynamic.usable and "graded unusable" in ev.dynamic.reason and "contention" in ev.dynamic.reason
    assert ev.adjustment("hybrid") is None and ev.adjustment("mindspore") is None
    assert "0 of 4 runs graded stable" in ev.note


def test_fixed_shape_requirements_move_nothing():
    ev = te.transformer_evidence(_result(e2e=E2E_COSTLY), _req())
    assert ev.adjustment("hybrid") is None and ev.adjustment("mindspore") is None
    assert "fixed shapes" in next(a.line for a in ev.adjustments if a.workflow == "hybrid")


def test_the_real_fixture_numbers_by_hand():
    """The real run as measured (its own grades): the cost is the probe's own verdict, recomputed here."""
    res = _result(graph_quality="stable")
    cost, best = _costs(res)
    f = te.dynamic_finding(res)
    assert f.best_way == best and f.cost == pytest.approx(cost, abs=1e-4)  # rounded to 4 places
    assert f.compiles["variable"] == 4 and f.set_inputs_compiles == 1


def test_constants_named_sourced_and_moved_by_the_sensitivity_search():
    for c in te.CONSTANTS.values():
        assert c.source and c.search is not None and c.search[0] <= c.value <= c.search[1]
        assert "assumption" in c.source or "advisor.decision" in c.source
    res = _result(e2e=E2E_COSTLY, drop=(("graph", "bucketed"), ("graph-dynamic", "variable")))
    moved = te.transformer_evidence(res, _req(dynamic_shapes=True), k={"DYNAMIC_SHAPE_PENALTY": 40.0})
    assert moved.adjustment("hybrid").penalty_points == pytest.approx(40 * 0.4)
    # the decision model's Consts does not know these names yet: the module's values stand
    plain = te.transformer_evidence(res, _req(dynamic_shapes=True), k=Consts())
    assert plain.adjustment("hybrid").penalty_points == pytest.approx(20 * 0.4)
    # a higher floor than the cost: nothing moves
    high = te.transformer_evidence(res, _req(dynamic_shapes=True), k={"DYNAMIC_COST_FLOOR": 0.5})
    assert high.adjustment("hybrid").direction == "none"


def test_lines_a_renderer_prints():
    assert te.transformer_evidence(None, _req()).lines() == [te.NOT_MEASURED]
    ev = te.transformer_evidence(_result(e2e=E2E_COSTLY), _req(dynamic_shapes=True))
    lines = ev.lines()
    assert (
        lines[0] == ev.note and len(lines) == 1 + 4 + 1 + 2 + 1 + 2
    )  # note, runs, parity, kernels, dynamic, hybrid+ms
    assert lines[-2].startswith("hybrid: ") and lines[-1].startswith("mindspore: ")
    assert any(x.startswith("Dynamic shapes: truly variable lengths cost 40%") for x in lines)
