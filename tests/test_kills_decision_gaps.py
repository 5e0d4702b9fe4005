"""The decision arithmetic's corners no bundled figure reaches, worked by hand: a reference without its
shape or size, the communication bound's 1% tolerance and its rounding, the time to train's rounding,
which published runs an image projection is drawn from (single- or multi-device), the serving
capacity's per-token latency span, the fp32 gradient bytes in the layout search, and the scan's risk in
the migration score of the workflows that port PyTorch code."""

from __future__ import annotations

import pytest

from advisor.decision.communication import CommCheck
from advisor.decision.constants import DEFAULT
from advisor.decision.criteria.deployment import deployment_fit, deployment_score
from advisor.decision.criteria.migration import migration_parts, migration_score
from advisor.decision.memory import _step_terms
from advisor.decision.prepare import prepare
from advisor.decision.projections import Projection, _communication_bound, _time_and_cost
from advisor.decision.serving_capacity import judge
from advisor.decision.throughput import reference_mfu
from advisor.decision.workload import Shape
from advisor.requirements import parse_requirements
from advisor.scan.models import ScanResult
from kill_inputs import h100_team


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


@pytest.fixture(scope="module")
def accs(kb):
    return {a.id: a for a in kb.accelerators}


def test_the_constants_the_gaps_are_worked_with():
    assert [
        DEFAULT[n]
        for n in (
            "SERVING_BANDWIDTH_EFFICIENCY_LOW",
            "SERVING_BANDWIDTH_EFFICIENCY_HIGH",
            "SERVING_PREFILL_MFU_LOW",
            "SERVING_PREFILL_MFU_HIGH",
            "SCAN_RISK_HIGH_PENALTY",
            "SCAN_RISK_MEDIUM_PENALTY",
        )
    ] == [0.5, 0.8, 0.3, 0.5, 10.0, 5.0]


# ---- a reference's MFU without its shape or size -------------------------------------------------------


def test_a_reference_without_shape_or_size_counts_one_layer_one_wide_one_long_and_no_parameters(kb):
    """The MindFormers Llama-2 7B run on 910Bs (4,160 tokens/s per device, 280 TFLOPS first-listed peak)
    with its layers, width, sequence and size left out: 6 x 0 + 12 x 1 x 1 x 1 = 12 FLOPs a token, so
    4,160 x 12 / 280e12."""
    (ref,) = [r for r in kb.mfu_references if r.id == "mindformers-llama2-7b-910b"]
    assert ref.tokens_per_second_per_device.value == 4160 and ref.mfu is None
    bare = ref.model_copy(
        update={"layers": None, "hidden": None, "sequence": None, "parameters_b": None, "active_parameters_b": None}
    )
    assert reference_mfu(bare, kb) == (pytest.approx(4160 * 12 / 280e12), pytest.approx(4160 * 12 / 280e12))


# ---- the communication bound -----------------------------------------------------------------------------


def _projection() -> Projection:
    return Projection(
        workflow="pytorch",
        framework="pytorch",
        path="pytorch-cuda",
        target="nvidia",
        devices=8,
        native=True,
        basis="peak",
        basis_detail="",
    )


_CHECK = CommCheck(ratio=0.5, note="", kept_low=0.123456, kept_high=0.654321)


def test_a_projection_past_its_communication_bound_is_capped_and_the_factor_kept_to_4_places():
    """Compute-only 100 samples/s: the bound is 12.3456-65.4321; 20-70 is past it by more than 1% (and by
    less than 2.02x): capped at the bound, the factor 0.1235-0.6543."""
    proj, factors = _projection(), []
    assert _communication_bound(proj, 20.0, 70.0, _CHECK, (100.0, 100.0), factors) == (
        pytest.approx(12.3456),
        pytest.approx(65.4321),
    )
    assert [(f.name, f.low, f.high) for f in factors] == [("communication-bound", 0.1235, 0.6543)]


def test_a_projection_within_1_percent_of_its_bound_is_left_as_it_is():
    """0.5% over the bound at both ends: inside the precision of its own inputs, no factor."""
    proj, factors = _projection(), []
    low, high = 12.3456 * 1.005, 65.4321 * 1.005
    assert _communication_bound(proj, low, high, _CHECK, (100.0, 100.0), factors) == (low, high)
    assert factors == []


@pytest.mark.parametrize(("low", "high"), [(12.3456 * 1.005, 70.0), (20.0, 65.4321 * 1.005)])
def test_one_end_past_its_bound_by_more_than_1_percent_caps_both(low, high):
    """One end within 1% of the bound, the other 7% (or 62%) past it: both capped at the bound."""
    proj, factors = _projection(), []
    assert _communication_bound(proj, low, high, _CHECK, (100.0, 100.0), factors) == (
        pytest.approx(12.3456),
        pytest.approx(65.4321),
    )
    assert [f.name for f in factors] == ["communication-bound"]


# ---- the time to train -----------------------------------------------------------------------------------


def _vision_req(accelerator: str = "910B", target: str = "ascend", devices: int = 8, **model):
    return parse_requirements(
        {
            "name": "vision",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
            "hardware": {
                "available": ["ascend", "nvidia"],
                "training_target": target,
                "accelerator": accelerator,
                "devices": devices,
            },
            "deployment": {"targets": ["ascend-server", "nvidia-server"]},
            "model": {"family": "cnn", "parameters_millions": 25.6, "source": "pytorch-code", **model},
            "workload": {"model": "resnet50", "dataset_samples": 1281167, "epochs": 90},
        }
    )


def test_the_compute_time_is_the_samples_over_the_rate_to_4_places():
    """ResNet-50, 1,281,167 images x 90 epochs at 1,234.5-4,321.5 images/s: 115,305,030 / 4,321.5 / 3600 =
    7.41157 h to 115,305,030 / 1,234.5 / 3600 = 25.94487 h, kept to 4 places."""
    proj = _projection()
    _time_and_cost(proj, _vision_req(), None, None, 8, 1234.5, 4321.5, DEFAULT)
    samples = 1281167 * 90
    assert (proj.training_hours.low, proj.training_hours.high) == (
        round(samples / 4321.5 / 3600, 4),
        round(samples / 1234.5 / 3600, 4),
    )
    assert proj.training_hours.low != round(samples / 4321.5 / 3600, 5)


def test_the_time_to_train_adds_the_failure_allowance_to_4_places(kb, accs):
    """Past RELIABILITY_MIN_HOURS on 8 devices the failure and checkpoint allowance is added end by end, the
    sum kept to 4 places."""
    proj = _projection()
    _time_and_cost(proj, _vision_req(), kb, accs["ascend-910b"], 8, 12.345, 43.21, DEFAULT)
    compute, extra = proj.training_hours, proj.failure_allowance_hours
    assert extra is not None and extra.low > 0
    assert (proj.time_to_train_hours.low, proj.time_to_train_hours.high) == (
        round(compute.low + extra.low, 4),
        round(compute.high + extra.high, 4),
    )


# ---- which published runs an image projection is drawn from ---------------------------------------------


def test_eight_devices_are_projected_from_the_eight_device_runs(kb):
    """A100 80GB, PyTorch: DeepLearningExamples ResNet-50 on 1 and on 8 GPUs. Eight devices draw on the
    8-GPU runs only (their per-device rate carries the communication loss): 8 x 906 (TF32) to 8 x 2,077.625
    (AMP) images/s."""
    ctx, _ = prepare(_vision_req("A100 80GB", "nvidia"), None, [], kb, None, None, False)
    proj = ctx.compared["pytorch"]
    assert proj.basis == "reference" and proj.accelerator == "a100-80gb"
    refs = sorted(e.ref for e in proj.evidence if e.ref.startswith("dle-rn50-"))
    assert refs == ["dle-rn50-a100-80gb-8x-amp", "dle-rn50-a100-80gb-8x-tf32"]
    # their communication loss is in the rate: the knowledge-base range did not enter, nor its evidence
    assert proj.communication.basis == "in-reference" and proj.communication.evidence == []


def test_one_device_is_projected_from_the_one_device_runs(kb):
    ctx, _ = prepare(_vision_req("A100 80GB", "nvidia", devices=1), None, [], kb, None, None, False)
    proj = ctx.compared["pytorch"]
    refs = sorted(e.ref for e in proj.evidence if e.ref.startswith("dle-rn50-"))
    assert refs == ["dle-rn50-a100-80gb-1x-amp", "dle-rn50-a100-80gb-1x-tf32"]


# ---- the serving capacity's per-token latency ------------------------------------------------------------


def _llm_req(devices: int = 8, **serving):
    return h100_team(
        name="llm service",
        devices=devices,
        model={"family": "transformer", "parameters_millions": 6740, "source": "pytorch-code"},
        workload={"model": "transformer", "kind": "inference"},
        serving={"prompt_tokens": 1000, "output_tokens": 200, **serving},
    )


def test_the_time_per_output_token_spans_the_fast_and_the_slow_efficiencies(accs):
    """Llama-2 7B on one H100 (989.4 TFLOPS bf16, 3,350 GB/s), one request in flight: a decode step reads
    13.48e9 weight bytes and 131,072 x 1,100 KV bytes at 0.5 (slow) or 0.8 (fast) of the bandwidth, plus the
    request's prefill (2 x 6.74e9 x 1000 + 2 x 32 x 1000^2 x 4096 FLOPs at 0.3 or 0.5 of peak) spread over
    its 200 output tokens."""
    cap = judge(_llm_req(requests_per_second=2.0), accs["h100"], 8, None).capacity
    assert cap.batch == 1

    def tpot(bandwidth: float, prefill: float) -> float:
        step = (13.48e9 + 131072 * 1100) / (3350e9 * bandwidth)
        first = (2 * 6.74e9 * 1000 + 2 * 32 * 1e6 * 4096) / (989.4e12 * prefill)
        return step * 1000 + first * 1000 / 200

    assert cap.tpot_ms.low == pytest.approx(round(tpot(0.8, 0.5), 3))
    assert cap.tpot_ms.high == pytest.approx(round(tpot(0.5, 0.3), 3))


# ---- the layout search's gradient bytes ------------------------------------------------------------------


@pytest.mark.parametrize(("precision", "grad_bytes"), [("fp32", 4.0), ("bf16", 2.0), ("mixed", 2.0)])
def test_the_gradients_all_reduced_are_4_bytes_in_fp32_and_2_otherwise(kb, accs, precision, grad_bytes):
    shape = Shape(32, 4096, 32, 4096, 0, [])
    terms = _step_terms(_vision_req(), accs["h100"], kb, 6.74e9, shape, 1.0, precision, DEFAULT)
    assert terms["grad_bytes"] == grad_bytes


# ---- the scan's risk in the migration score --------------------------------------------------------------


def _scanned_ctx(kb, risk: str):
    scan = ScanResult(path="src", risk=risk)
    ctx, _ = prepare(_vision_req(), None, [], kb, scan, None, False)
    return ctx


@pytest.mark.parametrize(("risk", "penalty"), [("high", 10.0), ("medium", 5.0), ("low", 0.0)])
def test_the_scans_risk_costs_the_workflows_that_port_pytorch_code(kb, risk, penalty):
    """The hybrid ports its PyTorch prototype, MindSpore ports the team's existing PyTorch code: each loses
    SCAN_RISK_HIGH_PENALTY (10) for a high-risk scan, SCAN_RISK_MEDIUM_PENALTY (5) for a medium one; PyTorch
    ports nothing and loses nothing."""
    ctx = _scanned_ctx(kb, risk)
    free = DEFAULT.moved("SCAN_RISK_HIGH_PENALTY", 0.0).moved("SCAN_RISK_MEDIUM_PENALTY", 0.0)
    for wf, lost in (("hybrid", penalty), ("mindspore", penalty), ("pytorch", 0.0)):
        with_risk = migration_score(wf, ctx, DEFAULT)[0][0]
        without = migration_score(wf, ctx, free)[0][0]
        assert without - with_risk == pytest.approx(lost), wf


# ---- setting up the parallelism of a model that must be split --------------------------------------------


def test_a_model_that_must_be_split_adds_the_parallelism_set_up_hours(kb):
    """70B parameters on 16 910Bs must be split: PyTorch sets it up by hand, PARALLEL_SETUP_PYTORCH 40-160 h;
    MindSpore (and the hybrid, which trains there) with its automatic parallelism, PARALLEL_SETUP_MINDSPORE
    16-80 h."""
    names = ("PARALLEL_SETUP_PYTORCH_LOW", "PARALLEL_SETUP_PYTORCH_HIGH")
    names += ("PARALLEL_SETUP_MINDSPORE_LOW", "PARALLEL_SETUP_MINDSPORE_HIGH")
    assert [DEFAULT[n] for n in names] == [40.0, 160.0, 16.0, 80.0]
    req = parse_requirements(
        {
            "name": "llm",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
            "hardware": {"available": ["ascend"], "training_target": "ascend", "accelerator": "910B", "devices": 16},
            "deployment": {"targets": ["ascend-server"]},
            "model": {"family": "transformer", "parameters_millions": 70000, "source": "pytorch-code"},
            "workload": {"model": "transformer", "tokens": 1e9},
        }
    )
    ctx, _ = prepare(req, None, [], kb, None, None, False)
    none = DEFAULT
    for n in names:
        none = none.moved(n, 0.0)
    for wf, added in (("pytorch", (40.0, 160.0)), ("mindspore", (16.0, 80.0)), ("hybrid", (16.0, 80.0))):
        assert ctx.best[wf].memory.must_split, wf
        with_setup, without = migration_parts(wf, ctx, DEFAULT)[0], migration_parts(wf, ctx, none)[0]
        assert (sum(p[1] for p in with_setup) - sum(p[1] for p in without)) == pytest.approx(added[0]), wf
        assert (sum(p[2] for p in with_setup) - sum(p[2] for p in without)) == pytest.approx(added[1]), wf


# ---- the deployment score's evidence ---------------------------------------------------------------------


def test_the_deployment_score_rests_on_the_targets_and_each_targets_fit(kb):
    """Its evidence: the requirement's targets, then what each target's fit rests on, target by target."""
    ctx, _ = prepare(_vision_req(), None, [], kb, None, None, False)
    for wf in ("pytorch", "mindspore", "hybrid"):
        route = ctx.routes[wf]
        fits = [
            deployment_fit(route.framework, t, ctx, DEFAULT, route.serving_for(t))[1]
            for t in ctx.req.deployment.targets
        ]
        assert all(fits), wf
        ev = deployment_score(wf, ctx, DEFAULT)[1]
        assert [(e.kind, e.ref) for e in ev] == [("requirement", "deployment.targets")] + [
            (e.kind, e.ref) for tev in fits for e in tev
        ], wf


# ---- one custom kernel beyond the pitfall's first --------------------------------------------------------


def test_one_kernel_beyond_the_pitfalls_first_costs_one_kernels_hours(kb):
    """2 custom CUDA kernels on MindSpore: the custom-ops pitfall charges the first, the second
    CUSTOM_KERNEL_HOURS 8-40 h; with 1 kernel the pitfall charges it and nothing is added."""
    assert (DEFAULT["CUSTOM_KERNEL_HOURS_LOW"], DEFAULT["CUSTOM_KERNEL_HOURS_HIGH"]) == (8.0, 40.0)

    def hours(kernels: int) -> tuple[float, float]:
        req = _vision_req(custom_cuda_ops=True, custom_cuda_kernels=kernels)
        ctx, _ = prepare(req, None, [], kb, None, None, False)
        parts = migration_parts("mindspore", ctx, DEFAULT)[0]
        return sum(p[1] for p in parts), sum(p[2] for p in parts)

    one, two = hours(1), hours(2)
    assert (two[0] - one[0], two[1] - one[1]) == (pytest.approx(8.0), pytest.approx(40.0))
