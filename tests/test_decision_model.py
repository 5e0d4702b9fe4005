"""Advice that survives an architecture review. One test per case the review raised: memory
fit, scaling by devices and interconnect, inference chips as bad input, like with like for undecided,
total cost of ownership, three-part confidence, the deadline as a continuous function, named
constants in the sensitivity analysis, magnitudes, domestic hardware vs framework, and the probe
quality fields (fabricated suites: the noise helper's `quality` / `comparisons`). Bundled knowledge base."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.decision.constants import CONSTANTS, searched
from advisor.decision.memory import bytes_per_parameter
from advisor.render.decision_sections import sections
from advisor.report import SCHEMA_VERSION, build_report
from advisor.measurements import Measured, Measurements
from advisor.requirements import load_requirements, parse_requirements
from advisor.decision.scoring import score
from advisor.validation import kb_problems

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def ascend(**over) -> dict:
    data = {
        "name": "t",
        "stage": "production",
        "team": {"pytorch": "proficient", "mindspore": "basic", "size": 8},
        "hardware": {"available": ["ascend"], "training_target": "ascend", "accelerator": "Ascend 910B", "devices": 8},
        "deployment": {"targets": ["ascend-server"]},
        "model": {"family": "transformer", "parameters_millions": 70000, "source": "pytorch-code"},
        "needs": {"distributed_training": True},
        "workload": {
            "model": "custom",
            "gflops_per_sample": 420000,
            "dataset_samples": 1_000_000,
            "epochs": 1,
            "batch_size": 512,
        },
    }
    for path, value in over.items():
        node = data
        *parents, leaf = path.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return data


def decide(kb, data, **kw):
    return score(parse_requirements(copy.deepcopy(data)), None, None, kb, **kw)


def wf(card, name):
    return next(s for s in card.scores if s.workflow == name)


def proj(card, name):
    return next(p for p in card.projections if p.workflow == name)


# --- 1. memory fit ----------------------------------------------------------------------------------


def test_70b_on_8_cards_is_blocked_with_the_minimum_device_count(kb):
    """Each workflow's minimum follows the sharding its training route runs. Llama-2 70B shape (80
    layers, hidden 8192, seq 4096, vocab 32000); the 910B's usable memory is the knowledge base's 60.8 GiB
    (64 GiB less an assumed 5% reserve) = 65.28 GB."""
    card = decide(kb, ascend(), sensitivity=False)
    assert not any(s.eligible for s in card.scores)
    need = {"mindspore": 20, "hybrid": 20, "pytorch": 32}
    for s in card.scores:
        assert any(
            b.startswith("model.parameters_millions=70000") and f"at least {need[s.workflow]} " in b
            for b in s.blocked_by
        ), (s.workflow, s.blocked_by)
    usable = 60.8 * 2**30 / 1e9
    fit = proj(card, "mindspore").memory
    # bf16 Adam: 16 bytes/param x 70e9 = 1,120 GB
    assert fit.states_gb == 1120 and fit.usable_gb == pytest.approx(usable, abs=0.01) and fit.strategy == "does-not-fit"
    # MindSpore Transformers: MindSpore's optimizer parallel at level 3 (weights, gradients and optimizer
    # states over the data-parallel group, the weights gathered again for the backward): 16/d + 4 bytes x the
    # largest layer (the MLP's 4h x h = 268M), full recompute leaving 2 s h per layer + the output layer's
    # 4 s (h + v). TP 1 x DP 20: 1120/20 + 4 x 268M = 57.07 GB + (80 x 2 x 4096 x 8192 + 4 x 4096 x 40192)
    # = 6.03 GB: 63.1 <= 65.28. On 19 (prime: TP 1 x DP 19 only) 58.9 + 1.07 + 6.03 = 66.0 does not fit;
    # on 18, TP 2 x DP 9: 62.2 + 0.54 + 3.01 = 65.8 neither.
    assert fit.min_devices == 20
    lay = fit.min_layout
    assert (lay.tensor_parallel, lay.data_parallel, lay.zero_stage, lay.recompute) == (1, 20, 3, "full")
    assert lay.states_gb == pytest.approx(1120 / 20 + 4 * (4 * 8192 * 8192) / 1e9, abs=1e-3)
    assert lay.activations_gb == pytest.approx((80 * 2 * 4096 * 8192 + 4 * 4096 * 40192) / 1e9, abs=1e-3)
    # MindSpeed-LLM: Megatron's distributed optimizer shards only the optimizer states (bf16 with fp32 main
    # gradients: 6 + 12/d bytes, 18 with d = 1), no ZeRO-3. Cut t x p ways (p a power of two): t p = 16 needs
    # d = 2 (4.375e9 x 12 = 52.5 GB + activations), 32 devices; t p = 8 would need d >= 9 (8.75e9 x
    # (6 + 12/9) = 64.2 GB + activations > 65.28 at d = 8), 72. So 32, as MindSpeed-LLM's own model table runs
    # a 72B at 4K (Qwen2-72B, "4x8"). On 32 the least overhead is TP 4 x PP 8 with no sharding: 70e9 / 32 x
    # 18 = 39.375 GB + (80 x 34 x 4096 x 8192 + 4 x 4096 x 40192) / 4 = 22.98 GB of activations (fused
    # attention, no recompute; the first 1F1B stage holds L layers' worth).
    mega = proj(card, "pytorch").memory
    assert mega.min_devices == 32 and "Megatron" in mega.formula
    m = mega.min_layout
    assert (m.tensor_parallel, m.pipeline_parallel, m.data_parallel, m.recompute) == (4, 8, 1, "none")
    assert m.states_gb == pytest.approx(70e9 / 32 * 18 / 1e9, abs=1e-3)
    assert m.activations_gb == pytest.approx((80 * 34 * 4096 * 8192 + 4 * 4096 * 40192) / 4 / 1e9, abs=1e-3)
    assert card.recommendation.confidence == "low"


def test_enough_devices_split_the_model_and_credit_mindspore_auto_parallel(kb):
    card = decide(kb, ascend(**{"hardware.devices": 64}), sensitivity=False)
    assert all(s.eligible for s in card.scores)
    fit = proj(card, "hybrid").memory
    assert fit.must_split and fit.strategy == "model-parallel"
    ms_note = next(c.note for c in wf(card, "mindspore").criteria if c.name == "migration")
    pt_note = next(c.note for c in wf(card, "pytorch").criteria if c.name == "migration")
    assert "auto-parallel credit" in ms_note and "auto-parallel limits" in ms_note
    assert "auto-parallel" not in pt_note
    assert any(
        ph.name.startswith("parallelism set-up by hand")
        for ph in next(s for s in card.schedules if s.workflow == "pytorch").phases
    )


def test_a_model_that_fits_one_card_gets_no_parallelism_credit_or_hours(kb):
    card = decide(
        kb,
        ascend(**{"model.parameters_millions": 25.6, "model.family": "cnn", "workload.model": "resnet50"}),
        sensitivity=False,
    )
    fit = proj(card, "mindspore").memory
    assert not fit.must_split and fit.strategy == "data-parallel" and fit.min_devices == 1
    for s in card.scores:
        assert "parallel" not in next(c.note for c in s.criteria if c.name == "migration")


def test_memory_arithmetic_matches_deepspeed_zero(kb):
    assert bytes_per_parameter("mixed", "adam") == (16.0, 4.0)  # ZeRO paper: 2 + 2 + 12
    assert bytes_per_parameter("bf16", "adam") == (16.0, 4.0)  # bf16 keeps the fp32 master and moments too
    assert bytes_per_parameter("bf16", "adam", low_precision_states=True)[0] == 8.0  # accelerate's bf16 count
    assert bytes_per_parameter("fp32", "adam")[0] == 16.0  # accelerate estimate-memory: 4 x model size at fp32
    assert bytes_per_parameter("fp32", "sgd-momentum")[0] == 12.0
    data = ascend(
        **{
            "model.parameters_millions": 1000,
            "model.precision": "mixed",
            "model.optimizer": "adam",
            "model.activation_mb_per_sample": 1.0,
        }
    )
    fit = proj(decide(kb, data, sensitivity=False), "mindspore").memory
    z = {s.strategy: s.per_device_gb for s in fit.strategies}
    # every column at the per-device batch: 512 samples over 8 devices = 64 samples of 1 MB each
    act = 64 * 1e6 / 1e9
    # ZeRO paper, Figure 1: P_os+g = 2 + 14/N (DeepSpeed's estimator keeps 4 + 16/N: full 16-bit gradients)
    assert z["optimizer-sharding"] == pytest.approx(2 + 14 / 8 + act, abs=1e-3)
    assert z["model-parallel"] == pytest.approx(16 / 8 + 4 * 0.02 + act, abs=1e-3)  # P_os+g+p 16/N + 4 x largest layer


def test_a_bigger_model_needs_more_devices(kb):
    mins = [
        proj(decide(kb, ascend(**{"model.parameters_millions": p}), sensitivity=False), "mindspore").memory.min_devices
        for p in (1000, 7000, 70000, 400000)
    ]
    assert mins == sorted(mins) and mins[0] == 1 and mins[-1] > mins[-2]


# --- 2. scaling ---------------------------------------------------------------------------------------


def prototype(**over) -> dict:
    data = load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml").model_dump(
        mode="json", exclude_none=True
    )
    for path, value in over.items():
        node = data
        *parents, leaf = path.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return data


def test_512_cards_of_resnet18_carry_a_warning_and_the_curve(kb):
    card = decide(kb, prototype(**{"hardware.devices": 512}), sensitivity=False)
    p = proj(card, "mindspore")
    assert any("under a minute" in w for w in p.warnings)
    assert any("input pipeline" in w for w in p.warnings)
    assert any("under a minute" in a for a in card.assumptions)
    curve = p.communication.curve
    assert [pt.devices for pt in curve if pt.target] == [512]
    at = {pt.devices: pt for pt in curve}
    assert at[512].high < at[8].high and at[512].low < at[8].low


def test_weak_interconnect_follows_seed_004(kb):
    data = {
        "name": "w",
        "hardware": {
            "available": ["nvidia"],
            "training_target": "nvidia",
            "accelerator": "L40S",
            "devices": 64,
            "network": "ethernet",
        },
        "deployment": {"targets": ["nvidia-server"]},
        "needs": {"distributed_training": True},
        "workload": {"model": "resnet50", "dataset_samples": 1_281_167, "epochs": 1},
    }
    c = proj(decide(kb, data, sensitivity=False), "pytorch").communication
    at = {pt.devices: pt for pt in c.curve}
    assert c.interconnect.startswith("pcie")  # 'PCIe Gen4 x16 (no NVLink)'
    assert 0.6 <= at[8].low <= 0.7 <= at[8].high  # seed 004 §2.1: ~70% at 8 cards
    assert at[64].high <= 0.32  # below 30% at 64 (up to the curve's rounding)


def test_beyond_a_year_is_a_warning(kb):
    card = decide(kb, ascend(**{"hardware.devices": 32, "workload.epochs": 300}), sensitivity=False)
    assert any("beyond a year" in w for w in proj(card, "mindspore").warnings)


# --- 3. inference chips as training hardware ----------------------------------------------------------


def test_inference_only_accelerator_is_bad_input(kb):
    req = parse_requirements(ascend(**{"hardware.accelerator": "Ascend 310"}))
    problems = kb_problems(req, kb)
    assert (
        len(problems) == 1
        and problems[0].startswith("hardware.accelerator: 'Ascend 310'")
        and "inference-only" in problems[0]
    )
    assert kb_problems(parse_requirements(ascend()), kb) == []


def test_inference_only_accelerator_exits_2_on_one_line(tmp_path):
    import yaml

    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump(ascend(**{"hardware.accelerator": "Ascend 310"})))
    out = tmp_path / "out.json"
    proc = subprocess.run(
        [sys.executable, "-m", "advisor", "report", str(path), "--json", "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 2 and not out.exists()
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "hardware.accelerator" in lines[0] and "inference-only" in lines[0], proc.stderr


# --- 4. like with like for undecided ------------------------------------------------------------------


def test_undecided_places_each_workflow_where_its_route_does_best(kb):
    """Undecided target: each workflow trains where its route does best. PyTorch may train on either
    vendor (CUDA, or torch_npu on the named 910B) and is placed on the faster; MindSpore on the named
    Ascend chip. The NVIDIA chip for a team that names none is the current one with references, never
    one picked for being nearest in peak to the Ascend chip."""
    from advisor.decision.workflows import current_chip

    data = {
        "name": "u",
        "team": {"pytorch": "proficient", "mindspore": "basic"},
        "hardware": {"available": ["nvidia", "ascend"], "training_target": "undecided", "accelerator": "Ascend 910B"},
        "deployment": {"targets": ["cpu-server"]},
        "workload": {"model": "resnet50", "dataset_samples": 1_281_167, "epochs": 1},
    }
    card = decide(kb, data, sensitivity=False)
    pt, ms = proj(card, "pytorch"), proj(card, "mindspore")
    assert ms.accelerator == "ascend-910b"
    assert pt.accelerator == current_chip(kb, "nvidia").id and pt.target == "nvidia"
    placement = wf(card, "pytorch").route.placement
    assert placement.startswith("placed on 1 x NVIDIA") and "Ascend 910B" in placement  # both places weighed
    assert (
        card.hardware_basis
        and "undecided" in card.hardware_basis
        and "placed where its route does best" in card.hardware_basis
    )
    assert any("undecided" in a for a in card.assumptions)


# --- 5. total cost of ownership -------------------------------------------------------------------------


def test_tco_has_its_parts_with_sources_and_the_cost_criterion_scores_the_total(kb):
    card = decide(kb, prototype(), sensitivity=False)
    for c in card.costs:
        parts = {p.name: p for p in c.parts}
        assert set(parts) == {"team", "compute", "energy", "engineering"}
        assert parts["energy"].usd is not None and not parts["energy"].counted  # cloud price includes energy
        assert parts["engineering"].usd.high > 0 and any(e.ref == "engineer-day" for e in parts["engineering"].evidence)
        assert c.total_usd.low == pytest.approx(sum(p.usd.low for p in c.parts if p.counted), abs=0.05)
        # 8 x 910B at the knowledge base's 310-400 W x 1.8 for the server around each card (no server datasheet:
        # SERVER_POWER_PER_CARD_POWER, the share the energy uses): 4.464-5.76 kW, provisioned at the high end
        # (the range, not its low end: a budget sized at the low end trips)
        assert c.power_budget_kw_range.low == pytest.approx(8 * 0.310 * 1.8, abs=0.005)  # rounded to 0.01 kW
        assert c.power_budget_kw_range.high == pytest.approx(8 * 0.400 * 1.8)
        assert c.power_budget_kw == pytest.approx(8 * 0.400 * 1.8)
    cost = {s.workflow: next(c for c in s.criteria if c.name == "cost") for s in card.scores}
    assert all("total cost" in c.note for c in cost.values())
    # a few dollars of compute no longer move the criterion 20 points: engineering and the team dominate
    assert max(c.score for c in cost.values()) - min(c.score for c in cost.values()) < 10
    owned = decide(kb, prototype(**{"constraints.compute_pricing": "owned"}), sensitivity=False)
    assert all(next(p for p in c.parts if p.name == "energy").counted for c in owned.costs)


def test_engineering_cost_follows_migration_hours(kb):
    card = decide(kb, prototype(), sensitivity=False)
    eng = {c.workflow: next(p for p in c.parts if p.name == "engineering").usd for c in card.costs}
    hours = {s.workflow: s.migration_hours for s in card.scores}
    for name in eng:
        assert eng[name].low == pytest.approx(hours[name][0] / 8 * 300, rel=1e-3)
        assert eng[name].high == pytest.approx(hours[name][1] / 8 * 1000, rel=1e-3)


def test_budget_blocks_on_the_cost_in_its_scope(kb):
    # budget_scope total: the team's time counts, and $1,000 pays for none of it
    card = decide(
        kb, prototype(**{"constraints.budget_usd": 1000, "constraints.budget_scope": "total"}), sensitivity=False
    )
    for s in card.scores:
        assert any("budget_usd" in b and "team" in b and "budget_scope=total" in b for b in s.blocked_by), s.blocked_by
    # the default scope is compute: a few hours of 910B time fit
    card = decide(kb, prototype(**{"constraints.budget_usd": 1000}), sensitivity=False)
    assert not any("budget_usd" in b for s in card.scores for b in s.blocked_by)


# --- 6. confidence ------------------------------------------------------------------------------------------


def test_confidence_shows_its_three_parts(kb):
    card = decide(kb, prototype())
    parts = card.recommendation.confidence_parts
    assert parts.decided_by == "scores" and parts.margin == card.recommendation.margin
    assert parts.evidence.label in ("good", "fair", "weak") and parts.evidence.counts
    assert parts.nearest_flip is not None and parts.nearest_flip.relative_change > 0


def test_a_tie_is_never_high_and_says_tie(kb):
    card = decide(kb, ascend(**{"hardware.devices": 64}))
    rec = card.recommendation
    if abs(rec.margin) < CONSTANTS["TIE_MARGIN"].value:
        assert rec.confidence == "low" and rec.confidence_parts.tie and "tied with" in rec.summary
    assert not (rec.margin <= 0 and rec.confidence == "high")


def test_a_hard_constraint_verdict_says_so(kb):
    # PyTorch scores best for a PyTorch team on NVIDIA, but a required domestic mandate rules it out
    data = {
        "name": "bank",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "none", "size": 6},
        "hardware": {"available": ["nvidia", "ascend"], "training_target": "undecided"},
        "deployment": {"targets": ["cpu-server"]},
        "needs": {"huggingface": "essential", "domestic_substitution": "required", "debugging_intensity": "high"},
    }
    card = decide(kb, data, sensitivity=False)
    parts = card.recommendation.confidence_parts
    assert card.recommendation.workflow != "pytorch"
    assert parts.decided_by == "hard-constraint" and "pytorch" in parts.decided_note
    assert "decided by hard constraints" in card.recommendation.summary


def test_weak_evidence_lowers_a_high_margin(kb):
    # ascend-production has a high margin (8 points) on fair evidence (2.9/5). Move the evidence bars
    # (constants EVIDENCE_GOOD / EVIDENCE_FAIR) so the same evidence grades good, then weak: good gives
    # high confidence, weak one level lower, with the step saying why.
    data = load_requirements(ROOT / "examples" / "ascend-production.yaml").model_dump(mode="json", exclude_none=True)
    good = decide(kb, data, sensitivity=False, constants={"EVIDENCE_GOOD": 1.0, "EVIDENCE_FAIR": 0.5}).recommendation
    weak = decide(kb, data, sensitivity=False, constants={"EVIDENCE_GOOD": 6.0, "EVIDENCE_FAIR": 5.5}).recommendation
    assert good.confidence_parts.margin_level == weak.confidence_parts.margin_level == "high"
    assert good.confidence_parts.evidence.label == "good" and good.confidence == "high"
    assert weak.confidence_parts.evidence.label == "weak" and weak.confidence == "medium"
    assert any("weak decisive evidence" in step for step in weak.confidence_parts.steps)


# --- 7. deadline -------------------------------------------------------------------------------------------


def test_deadline_is_continuous_and_the_schedule_says_when_it_cannot_fit(kb):
    base = prototype()
    mig = []
    for weeks in (1, 2, 4, 8, 16):
        card = decide(kb, prototype(**{"constraints.deadline_weeks": weeks}), sensitivity=False)
        mig.append(next(c.score for c in wf(card, "hybrid").criteria if c.name == "migration"))
    assert mig == sorted(mig) and len(set(mig)) == len(mig), mig  # 1 week no longer scores like 4
    tight = decide(kb, prototype(**{"constraints.deadline_weeks": 0.2, "team.size": 1}), sensitivity=False)
    sched = next(s for s in tight.schedules if s.workflow == "hybrid")
    assert sched.fits == "no" and "cannot fit" in sched.finding
    assert any("deadline_weeks" in b for b in wf(tight, "hybrid").blocked_by)
    # The example itself has a 16-week deadline: the last point of the sweep is the example as shipped.
    assert base["constraints"]["deadline_weeks"] == 16
    assert mig[-1] == next(
        c.score for c in wf(decide(kb, base, sensitivity=False), "hybrid").criteria if c.name == "migration"
    )


# --- 8. constants in the sensitivity analysis ----------------------------------------------------------------


def test_every_searched_constant_is_named_with_a_source_and_its_flips_really_flip(kb):
    assert all(c.source.strip() for c in CONSTANTS.values())
    card = decide(kb, prototype())
    names = [c.name for c in card.constant_sensitivity]
    assert names == [c.name for c in searched()]
    flips = [c for c in card.constant_sensitivity if c.threshold is not None]
    # With the power pitfall charged only for owned hardware, the example's margin (3.8) holds across every
    # constant's range: then each says so, and a constant that does flip it must really flip it.
    if not flips:
        assert all("stays on top" in (c.note or "") for c in card.constant_sensitivity)
    for item in flips:
        moved = decide(kb, prototype(), constants={item.name: item.threshold})
        assert moved.recommendation.workflow == item.new_top, item


def test_migration_factor_phrasing(kb):
    card = decide(kb, prototype(**{"constraints.deadline_weeks": 6}))
    item = next(c for c in card.constant_sensitivity if c.name == "MIGRATION_HOURS_FACTOR")
    if item.threshold is not None:
        assert item.note.endswith("x the estimate") and "would lose to" in item.note


# --- 9. magnitudes ---------------------------------------------------------------------------------------------


def test_more_custom_kernels_cost_more_migration_off_cuda_only(kb):
    def mig(kernels, name):
        card = decide(
            kb, prototype(**{"model.custom_cuda_ops": True, "model.custom_cuda_kernels": kernels}), sensitivity=False
        )
        return wf(card, name).migration_hours

    one, ten = mig(1, "hybrid"), mig(10, "hybrid")
    assert ten[0] - one[0] == pytest.approx(9 * CONSTANTS["CUSTOM_KERNEL_HOURS_LOW"].value)
    nvidia = {
        "name": "n",
        "hardware": {"available": ["nvidia"], "training_target": "nvidia"},
        "deployment": {"targets": ["nvidia-server"]},
        "model": {"custom_cuda_ops": True, "custom_cuda_kernels": 10},
    }
    pt = wf(decide(kb, nvidia, sensitivity=False), "pytorch")
    assert not any(
        "custom CUDA kernel" in e.detail
        for c in pt.criteria
        for e in c.evidence
        if e.ref == "model.custom_cuda_kernels"
    )


def test_dynamic_control_flow_moves_mindspore_performance(kb):
    plain = decide(kb, prototype(), sensitivity=False)
    dyn = decide(kb, prototype(**{"model.dynamic_control_flow": True}), sensitivity=False)

    def perf(c, n):
        return next(x.score for x in wf(c, n).criteria if x.name == "performance")

    keep = CONSTANTS["DYNAMIC_GRAPH_KEEP"].value
    # the factor slows MindSpore's runs; performance scores the share of the schedule they take, so on a
    # short run it moves little, and never up
    assert perf(dyn, "mindspore") <= perf(plain, "mindspore") and perf(dyn, "pytorch") >= perf(plain, "pytorch")
    assert wf(plain, "hybrid").total > wf(dyn, "hybrid").total
    assert any(f"/{keep:g}" in x.note for x in wf(dyn, "mindspore").criteria if x.name == "performance")


# --- 10. domestic hardware vs framework ------------------------------------------------------------------------


def test_hardware_only_mandate_is_met_by_torch_npu(kb):
    data = ascend(
        **{
            "model.parameters_millions": 25.6,
            "model.family": "cnn",
            "workload.model": "resnet50",
            "needs.domestic_hardware": "required",
        }
    )
    card = decide(kb, data, sensitivity=False)
    assert wf(card, "pytorch").eligible
    fw = ascend(
        **{
            "model.parameters_millions": 25.6,
            "model.family": "cnn",
            "workload.model": "resnet50",
            "needs.domestic_framework": "required",
        }
    )
    pt = wf(decide(kb, fw, sensitivity=False), "pytorch")
    assert not pt.eligible and any(b.startswith("needs.domestic_framework=required") for b in pt.blocked_by)
    old = ascend(
        **{
            "model.parameters_millions": 25.6,
            "model.family": "cnn",
            "workload.model": "resnet50",
            "needs.domestic_substitution": "required",
        }
    )
    pt = wf(decide(kb, old, sensitivity=False), "pytorch")
    assert not pt.eligible and any(b.startswith("needs.domestic_substitution=required") for b in pt.blocked_by)


# --- probe quality from the measurement (fabricated suites) ------------------------------------------------------


def cpu_suite(quality_a=None, comparisons=None) -> dict:
    runs = [
        {
            "id": "pt",
            "framework": "pytorch",
            "mode": "eager",
            "model": "resnet18",
            "batch_size": 32,
            "device": "cpu",
            "status": "ok",
            "images_per_second": 50.0,
            "ci95": [47.0, 53.0],
            "train_flops_per_image": 3.3e9,
        },
        {
            "id": "ms",
            "framework": "mindspore",
            "mode": "graph",
            "model": "resnet18",
            "batch_size": 32,
            "device": "cpu",
            "status": "ok",
            "images_per_second": 45.0,
            "ci95": [40.0, 50.0],
            "train_flops_per_image": 3.3e9,
        },
    ]
    if quality_a:
        runs[0].update(quality=quality_a, quality_reasons=["steal time 40%"])
    suite = {"host": {"hostname": "box"}, "runs": runs}
    if comparisons is not None:
        suite["comparisons"] = comparisons
    return suite


CPU_REQ = {
    "name": "c",
    "hardware": {"available": ["cpu"], "training_target": "cpu"},
    "deployment": {"targets": ["cpu-server"]},
    "workload": {"model": "resnet18", "gflops_per_sample": 3.3, "dataset_samples": 50000, "epochs": 1},
}


def test_an_unusable_run_never_enters_the_scores(kb):
    req = parse_requirements(CPU_REQ)
    card = score(req, None, [cpu_suite("unusable")], kb, sensitivity=False)
    assert proj(card, "pytorch").basis == "none"
    assert any("pt is marked unusable" in a and "steal time" in a for a in card.assumptions)
    report = build_report(
        req,
        Measurements(probes={"training": Measured([cpu_suite("unusable")])}),
        kb=kb,
        created_at="2026-01-01T00:00:00Z",
    )
    assert next(r for r in report.probes.runs if r.id == "pt").quality == "unusable"
    assert proj(score(req, None, [cpu_suite("noisy")], kb, sensitivity=False), "pytorch").basis == "measured"


def test_a_comparison_that_is_not_decidable_is_not_scored_as_a_difference(kb):
    req = parse_requirements(CPU_REQ)
    comp = [
        {
            "model": "resnet18",
            "a": "pt",
            "b": "ms",
            "ratio": 1.11,
            "ci95": [0.9, 1.3],
            "pairs": 6,
            "quality": "noisy",
            "decidable": False,
        }
    ]
    plain = score(req, None, [cpu_suite()], kb, sensitivity=False)
    undecided = score(req, None, [cpu_suite(comparisons=comp)], kb, sensitivity=False)

    def perf(c, n):
        return next(x for x in wf(c, n).criteria if x.name == "performance")

    assert perf(plain, "pytorch").score > perf(plain, "mindspore").score
    assert perf(undecided, "pytorch").score == perf(undecided, "mindspore").score
    assert "not decidable here" in perf(undecided, "mindspore").note
    comp[0]["decidable"] = True
    decided = score(req, None, [cpu_suite(comparisons=comp)], kb, sensitivity=False)
    assert perf(decided, "pytorch").score > perf(decided, "mindspore").score


# --- the report document and its Markdown -------------------------------------------------------------------------


def test_report_json_and_markdown_carry_the_decision_parts(kb):
    from advisor.render import render

    report = build_report(
        load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml"),
        Measurements(),
        kb=kb,
        created_at="2026-01-01T00:00:00Z",
    )
    doc = json.loads(report.model_dump_json())
    assert doc["schema_version"] == SCHEMA_VERSION == "1.7"
    for key in ("memory", "costs", "schedules", "constant_sensitivity"):
        assert doc[key], key
    assert doc["recommendation"]["confidence_parts"]["evidence"]["label"]
    assert any(p["communication"]["curve"] for p in doc["projections"])
    lines = sections(doc)
    for head in ("## Memory fit", "## Scaling curve", "## Total cost of ownership", "## Confidence", "## Schedule"):
        assert head in lines, head
    text = render(report, "markdown")
    assert "## Total cost of ownership" in text and "## Confidence" in text


def test_comm_compute_ratio_follows_seed_004_method(kb):
    def ratio(devices):
        data = {
            "name": "n",
            "hardware": {
                "available": ["nvidia"],
                "training_target": "nvidia",
                "accelerator": "A100 80GB",
                "devices": devices,
            },
            "deployment": {"targets": ["nvidia-server"]},
            "model": {"family": "transformer", "parameters_millions": 1300},
            "needs": {"distributed_training": True},
            "workload": {
                "model": "custom",
                "gflops_per_sample": 7800,
                "dataset_samples": 1_000_000,
                "epochs": 1,
                "batch_size": 64,
            },
        }
        return proj(decide(kb, data, sensitivity=False), "pytorch").communication

    eight, many = ratio(8), ratio(64)
    # 8 A100s on NVLink 600 GB/s: 2 x 7/8 x 2.6 GB / 600 GB/s = 7.6 ms vs 8 x 7.8 TFLOP at the projection's
    # highest MFU (the A100 references' 54.2%, Korthikanti et al. 2022) of 312 TFLOPS = 369 ms
    assert eight.comm_compute_ratio == pytest.approx((2 * 7 / 8 * 2.6 / 600) / (8 * 7.8 / (312 * 0.542)), abs=1e-4)
    assert many.comm_compute_ratio > 1 and any("communication-bound" in n for n in many.notes)


def _fake(workflow, total, quality="assumption", eligible=True, perf=None):
    from advisor.decision.evidence import Evidence
    from advisor.requirements import CRITERIA
    from advisor.decision.scorecard import Criterion, WorkflowScore

    ev = [Evidence(kind="knowledge", ref="x", detail="d", source="s", confidence=quality)]
    crit = [
        Criterion(
            name=n, weight=1 / len(CRITERIA), score=total if perf is None or n != "performance" else perf, evidence=ev
        )
        for n in CRITERIA
    ]
    return WorkflowScore(
        workflow=workflow, total=total, eligible=eligible, criteria=crit, blocked_by=[] if eligible else ["x"]
    )


def test_high_margin_on_assumptions_is_not_high():
    from advisor.decision.constants import DEFAULT
    from advisor.decision.confidence import judge_confidence as _confidence

    top, runner = _fake("pytorch", 80, "assumption"), _fake("hybrid", 71, "assumption")
    weak = _confidence([top, runner], runner, 9.0, False, [], [], DEFAULT)
    assert weak.margin_level == "high" and weak.evidence.label == "weak" and weak.level == "medium"
    top, runner = _fake("pytorch", 80, "vendor"), _fake("hybrid", 71, "vendor")
    good = _confidence([top, runner], runner, 9.0, False, [], [], DEFAULT)
    assert good.level == "high" and good.evidence.label == "good"


def test_a_hundredth_of_a_point_is_a_tie_not_a_win():
    from advisor.decision.constants import DEFAULT
    from advisor.decision.confidence import judge_confidence as _confidence

    top, runner = _fake("pytorch", 75.04, "vendor"), _fake("hybrid", 75.0, "vendor")
    parts = _confidence([top, runner], runner, 0.04, False, [], [], DEFAULT)
    assert parts.tie and parts.level == "low"


def test_a_higher_scoring_blocked_workflow_makes_it_a_hard_constraint_verdict():
    from advisor.decision.constants import DEFAULT
    from advisor.decision.confidence import judge_confidence as _confidence

    top, blocked = _fake("mindspore", 70, "vendor"), _fake("pytorch", 90, "vendor", eligible=False)
    parts = _confidence([top, blocked], None, 70.0, False, [], [], DEFAULT)
    assert parts.decided_by == "hard-constraint" and "pytorch scored higher" in parts.decided_note


def test_a_wide_margin_on_fair_evidence_is_not_high_confidence(kb):
    """'High' on a margin of 8 points when most decisive evidence is assumption or blog. A
    high margin needs good decisive evidence too; fair evidence caps the verdict at medium, saying so."""
    from advisor.requirements import load_requirements
    from advisor.decision.scoring import score

    card = score(load_requirements(ROOT / "examples" / "ascend-production.yaml"), kb=kb, sensitivity=False)
    parts = card.recommendation.confidence_parts
    # on the one evidence scale the deciding criteria rest on rules over the requirements (1.5/5): weak
    assert parts.margin_level == "high" and parts.evidence.label == "weak"
    assert card.recommendation.confidence == "medium"
    assert any(step.startswith("weak decisive evidence") for step in parts.steps)
    fair = score(
        load_requirements(ROOT / "examples" / "ascend-production.yaml"),
        kb=kb,
        sensitivity=False,
        constants={"EVIDENCE_FAIR": 1.0},
    ).recommendation
    assert fair.confidence_parts.evidence.label == "fair" and fair.confidence == "medium"
    assert any(step.startswith("high needs good decisive evidence") for step in fair.confidence_parts.steps)


# --- the risk register reads the decision model's memory fit --------------------------------------


def _register_for(kb, params_m):
    from advisor.review.risks import project, register

    data = prototype(**{"model.family": "transformer", "model.parameters_millions": params_m})
    report = build_report(parse_requirements(data), Measurements(), kb=kb, created_at="2026-01-01T00:00:00Z")
    return report, project(report), register(report)


def test_risk_register_sees_that_the_model_must_be_split(kb):
    # 5,000 M parameters in bf16 Adam: 5e9 x 16 = 80 GB of model states > the 910B's 60.8 GB usable.
    # The register read `report.memory_fit` (no such field), so it judged "size unknown" at 0.4.
    from advisor.decision.likelihood import RULES
    from advisor.review.risks import project

    report, p, reg = _register_for(kb, 5000)
    fit = next(q.memory for q in report.projections if q.workflow == "hybrid")
    assert fit.states_gb == pytest.approx(80.0) and fit.must_split
    assert p.must_split is True and project(report, "hybrid").must_split is True
    # the pitfall applies to the MindSpore-based workflows (the verdict here is PyTorch through torch_npu)
    likelihood, why = RULES["auto-parallel-limits"](project(report, "hybrid"))
    assert likelihood == 0.7 and "must be split" in why


def test_risk_register_sees_that_a_large_model_fits_one_card(kb):
    # 1,500 M parameters: 24 GB of states fit one 910B; above LARGE_MODEL_M, so without the memory fit
    # the register called it "large" (0.4); with it, data parallelism suffices (0.05).
    from advisor.decision.likelihood import RULES
    from advisor.review.risks import project

    report, p, _ = _register_for(kb, 1500)
    assert p.must_split is False and project(report, "hybrid").must_split is False
    assert RULES["auto-parallel-limits"](project(report, "hybrid"))[0] == 0.05


def test_the_communication_cross_check_covers_the_910b(kb):
    # the 910B's interconnect text has no figure; its HCCS entry (392 GB/s) is used
    card = decide(kb, prototype(), sensitivity=False)
    comm = proj(card, "mindspore").communication
    t_comm = 2 * 7 / 8 * 11.7e6 * 4 / 392e9  # ring all-reduce of fp32 gradients over 8 NPUs
    t_compute = 128 / 8 * 10.9e9 / (280e12 * 0.5)  # 16 ResNet-18 samples at EFFECTIVE_PEAK_SHARE of peak
    assert comm.comm_compute_ratio == pytest.approx(t_comm / t_compute, rel=1e-3)
    assert any("hccs-910b" in n for n in comm.notes)


def test_expected_migration_hours_agree_with_the_risk_register(kb):
    # the full range charges every pitfall in full; the expected hours weigh them by the
    # register's likelihoods, so for the recommended workflow they are its exposure + the other parts' middle
    from advisor.review.risks import register

    report = build_report(load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml"), Measurements(), kb=kb)
    wf = report.recommendation.workflow
    reg = register(report)
    sched = next(s for s in report.schedules if s.workflow == wf)
    others = sum((p.hours[0] + p.hours[1]) / 2 for p in sched.phases if p.name != "known pitfalls")
    exposure = sum(r.exposure for r in reg.risks + reg.also_known)
    assert sched.expected_hours == pytest.approx(exposure + others, abs=0.05)
    assert sched.hours[0] < sched.expected_hours < sched.hours[1]


def test_a_schedule_that_fits_only_at_the_fast_end_lowers_the_confidence(kb):
    # with a 1-week deadline every workflow's migration fits only at its low end
    card = decide(kb, prototype(**{"constraints.deadline_weeks": 1}), sensitivity=False)
    sched = next(s for s in card.schedules if s.workflow == card.recommendation.workflow)
    assert sched.fits == "maybe"
    parts = card.recommendation.confidence_parts
    assert any(step.startswith("the deadline: ") and "low end" in step for step in parts.steps)
    assert card.recommendation.confidence == "low"
    # a schedule that says "no" rules the workflow out: the headline never recommends it as eligible
    for s in card.schedules:
        score_of = next(x for x in card.scores if x.workflow == s.workflow)
        assert (s.fits == "no") == any("deadline_weeks" in b for b in score_of.blocked_by)
