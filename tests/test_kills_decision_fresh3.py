"""The decision arithmetic, for the real gaps the fresh draw after test_kills_decision_fresh2.py (seed 2031)
found: the energy cost's low end on a workload large enough to show it, a team's prototype fluency, the
basis all workflows share, a serving latency exactly at its target, the all-to-all of expert parallelism
over two ranks, and the memory fit's finding that no workload was given. Each expected value is worked out
in its docstring; a finding is asserted by its code, worded through the catalogue."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from advisor.decision.communication import StepSplit, comm_compute
from advisor.decision.constants import DEFAULT
from advisor.decision.criteria.ecosystem import prototype_fluency
from advisor.decision.findings import said
from advisor.decision.memory import memory_fit
from advisor.decision.projections import common_basis, project
from advisor.decision.serving_capacity import Point, _meets
from advisor.decision.tco import total_cost
from advisor.requirements import parse_requirements
from kill_inputs import h100_team


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


@pytest.fixture(scope="module")
def h100(kb):
    (acc,) = [a for a in kb.accelerators if a.id == "h100"]
    return acc


def test_owned_energy_is_the_kwh_times_the_pue_times_the_price_at_each_end(kb, h100):
    """A workload of 1e9 samples of 1,000 GFLOPs on 8 owned H100s draws hundreds of kWh, enough that the
    cent rounding cannot hide a factor: the energy part is kWh x PUE x $/kWh, 1.2 x 0.04 at the low end
    and 1.5 x 0.18 at the high end (the knowledge base's figures, asserted in the TCO kill tests)."""
    req = h100_team(
        name="vision",
        model={"family": "cnn", "parameters_millions": 25.6, "source": "pytorch-code"},
        workload={"model": "custom", "gflops_per_sample": 1000, "dataset_samples": 1_000_000_000},
        constraints={"compute_pricing": "owned"},
    )
    proj = project("pytorch", req, kb, [], basis_cap="peak")
    e = proj.energy_kwh
    assert e.low > 100
    (energy,) = [p for p in total_cost(proj, [40.0, 80.0], req, kb, h100).parts if p.name == "energy"]
    assert (energy.usd.low, energy.usd.high, energy.counted) == (
        round(e.low * 1.2 * 0.04, 2),
        round(e.high * 1.5 * 0.18, 2),
        True,
    )


@pytest.mark.parametrize(
    ("pytorch", "mindspore", "share"),
    [
        ("expert", "none", 1.0),  # 0.5 + 0.25 x 3 = 1.25, kept to 1
        ("expert", "basic", 1.0),  # 0.5 + 0.25 x 2
        ("proficient", "basic", 0.75),
        ("basic", "basic", 0.5),
        ("basic", "proficient", 0.25),
        ("basic", "expert", 0.0),  # 0.5 - 0.25 x 2
        ("none", "expert", 0.0),  # 0.5 - 0.25 x 3 = -0.25, kept to 0
    ],
)
def test_prototype_fluency_is_half_plus_a_step_a_level_kept_between_0_and_1(pytorch, mindspore, share):
    """PROTOTYPE_FLUENCY_STEP (0.25) a level of PyTorch skill over MindSpore skill, from 0.5 at equal skill."""
    assert DEFAULT["PROTOTYPE_FLUENCY_STEP"] == 0.25
    req = SimpleNamespace(team=SimpleNamespace(pytorch=pytorch, mindspore=mindspore))
    assert prototype_fluency(req, DEFAULT) == share


def test_the_shared_basis_is_the_weakest_of_the_supported_workflows():
    """Measured (3), reference (2) and peak (1) among the supported: they share the peak; an unsupported
    workflow's basis does not count; nothing supported: none."""

    def p(basis: str, supported: bool = True):
        return SimpleNamespace(basis=basis, supported=supported)

    assert common_basis({"a": p("measured"), "b": p("reference"), "c": p("peak")}) == "peak"
    assert common_basis({"a": p("measured"), "b": p("reference"), "c": p("none", False)}) == "reference"
    assert common_basis({"a": p("measured", False)}) == "none"


def test_a_latency_exactly_at_its_target_meets_it():
    """A point of 250 ms to the first token and 20 ms a token at 10 requests/s meets targets of exactly
    250 ms, 20 ms and 10 requests/s; 249 ms to the first token misses, by the finding serving.miss.ttft
    with both figures."""
    pt = Point(t=1, n=2, batch=8, ttft_s=0.25, tpot_s=0.02, rps=10.0)

    def req(ttft_ms: float):
        return SimpleNamespace(serving=SimpleNamespace(ttft_ms=ttft_ms, tpot_ms=20.0, requests_per_second=10.0))

    assert _meets(pt, req(250.0)) is None
    assert _meets(pt, req(249.0)) == said("serving.miss.ttft", ttft_ms=250.0, target_ms=249.0)


def test_expert_parallelism_over_two_ranks_adds_its_all_to_all(h100, kb):
    """The communication kill tests' mixture of experts (9e9 parameters, 8 experts of 1e9, top-2, 32
    layers, hidden 4096, 2048 tokens) with expert parallel 2 within data parallel 8: gradients (1e9 + 8e9 /
    2) x 2 bytes = 1e10, 2 x 7/8 x 1e10 / 900e9 s; the all-to-all moves 64 x 2048 / 8 = 16,384 tokens per
    device, 32 layers x 4 x top-2 x 4096 x 2 bytes x 1/2, over the host's 900 GB/s. The compute: 64 x 1e13
    FLOPs / 8 devices at half of 989.4 TFLOPS."""
    moe = {
        "family": "transformer",
        "source": "pytorch-code",
        "parameters_millions": 9000,
        "active_parameters_millions": 3000,
        "experts": 8,
        "experts_per_token": 2,
        "layers": 32,
        "hidden_size": 4096,
        "attention_heads": 32,
        "sequence_length": 2048,
    }
    req = h100_team(
        name="comm",
        devices=8,
        model=moe,
        workload={"model": "transformer", "tokens": 1e10, "global_batch": 64},
    )
    check = comm_compute(h100, req, 1e4, kb=kb, split=StepSplit(data=8, expert=2))
    t_dp = 2 * 7 / 8 * 1e10 / 900e9
    moved = 16384 * 32 * 4 * 2 * 4096 * 2.0 * 1 / 2
    assert check.ratio == pytest.approx((t_dp + moved / 900e9) / (64 * 1e13 / 8 / (989.4e12 * 0.5)), rel=1e-12)


def test_a_memory_fit_without_a_workload_says_so_and_one_with_a_workload_does_not(kb, h100):
    """The finding mem.no_workload stands in the fit's notes exactly when the requirements give no
    workload."""
    base = {
        "name": "vision",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
        "hardware": {"available": ["nvidia"], "training_target": "nvidia", "accelerator": "H100", "devices": 8},
        "deployment": {"targets": ["nvidia-server"]},
        "model": {"family": "cnn", "parameters_millions": 25.6, "source": "pytorch-code"},
    }
    route = SimpleNamespace(accelerator=h100, training=None)
    without = memory_fit(route, parse_requirements(base), kb)
    with_one = memory_fit(
        route, parse_requirements({**base, "workload": {"model": "resnet50", "dataset_samples": 1281167}}), kb
    )
    assert said("mem.no_workload") in without.notes
    assert said("mem.no_workload") not in with_one.notes


def test_the_adapter_ratio_and_its_evidence_from_the_operator_coverage_loss(kb):
    """The operator-coverage derating loses 10-30%: an adapter keeps the upper half of the loss against the
    first party's lower end, (1 - 0.3) / (1 - 0.1) = 0.7778 to (1 - 0.2) / (1 - 0.1) = 0.8889, and its
    evidence states the finding proj.evidence.adapter_ratio with those four figures."""
    from advisor.decision.projections import _adapter_ratio, _derating

    d = _derating(kb, "operator_coverage")
    assert (d.loss.low, d.loss.high) == (0.1, 0.3)
    low, high, ev = _adapter_ratio(kb)
    assert (low, high) == (pytest.approx(0.7 / 0.9), pytest.approx(0.8 / 0.9))
    kept_high = (1 - (0.1 + 0.3) / 2) / (1 - 0.1)
    assert ev.detail == said(
        "proj.evidence.adapter_ratio", loss_low=0.1, loss_high=0.3, kept_low=(1 - 0.3) / (1 - 0.1), kept_high=kept_high
    )


def test_the_capacity_shown_is_at_the_slow_end_of_the_efficiencies(kb, h100):
    """The 7B service of the serving kill tests (Llama-2 7B shape, 1,000 prompt and 200 output tokens) at
    2 requests/s on one H100: at the slow efficiencies b / (1.6096 + 0.0635 b) >= 2 first at b = 4 (their
    worked figures); the optimistic end would need only 3 in flight. The capacity states the slow end's
    batch: 4."""
    from advisor.decision.serving_capacity import judge

    req = h100_team(
        name="llm service",
        devices=1,
        model={"family": "transformer", "parameters_millions": 6740, "source": "pytorch-code"},
        workload={"model": "transformer", "kind": "inference"},
        serving={"prompt_tokens": 1000, "output_tokens": 200, "requests_per_second": 2.0},
    )
    j = judge(req, h100, 1, None)
    assert (j.verdict, j.devices_needed) == ("meets", 1)
    assert (j.capacity.instance_devices, j.capacity.instances, j.capacity.batch) == (1, 1, 4)
