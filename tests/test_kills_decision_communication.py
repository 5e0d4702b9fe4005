"""The communication arithmetic, worked by hand: the link speeds read from the knowledge base's words, one
step's communication time over its compute time (comm_compute), the scaling model's kept fraction within
and between hosts, and the factor a projection multiplies by. Each expected number is written out with
where it comes from, so a changed operator, constant or bound in advisor/decision/communication.py fails
by an assertion."""

from __future__ import annotations

import pytest

from advisor.decision.communication import (
    CommPlan,
    Communication,
    Curve,
    InterHostMeasurement,
    ScalingModel,
    ScalingSpread,
    StepSplit,
    carried_loss,
    comm_compute,
    device_link,
    link_gbs,
)
from advisor.decision.constants import DEFAULT
from advisor.decision.evidence import Evidence, Span
from advisor.requirements import parse_requirements
from kill_inputs import h100_team


def test_the_constants_the_links_are_worked_with():
    assert (
        DEFAULT["NETWORK_ROCE_IB_GBS"],
        DEFAULT["NETWORK_ETHERNET_GBS"],
        DEFAULT["PCIE_GEN4_GBS"],
        DEFAULT["EFFECTIVE_PEAK_SHARE"],
        DEFAULT["DEVICES_PER_HOST"],
    ) == (25.0, 3.0, 32.0, 0.5, 8.0)


# ---- link speeds from the interconnect's words ---------------------------------------------------------


@pytest.mark.parametrize(
    "text, gbs",
    [
        ("HCCS 3 x 240 Gbps", 90.0),  # 3 x 240 Gbit/s / 8 bits
        ("7 x 56.25 gbps", 49.21875),
        ("NVLink 4.0, 900 GB/s (NVSwitch)", 900.0),
        ("NVLink 3.0, 600.5 GB/s", 600.5),
        ("PCIe 4.0", 32.0),  # PCIE_GEN4_GBS
        ("PCIe Gen5", 64.0),  # twice per generation
        ("pcie 3.0 x16", 16.0),
        ("HCCS, 8 NPUs full mesh", None),
        (None, None),
    ],
)
def test_link_speed_from_the_interconnect_text(text, gbs):
    assert link_gbs(text) == gbs


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


@pytest.fixture(scope="module")
def h100(kb):
    """989.4 TFLOPS of 16-bit peak (fp16_tflops), NVLink 900 GB/s within a host."""
    (acc,) = [a for a in kb.accelerators if a.id == "h100"]
    assert (acc.fp16_tflops.value, link_gbs(acc.interconnect)) == (989.4, 900.0)
    return acc


def _req(devices: int = 8, network=None, model: dict | None = None, workload: dict | None = None):
    return h100_team(
        name="comm",
        devices=devices,
        network=network,
        model={"family": "transformer", "parameters_millions": 1000, "source": "pytorch-code", **(model or {})},
        workload={"model": "transformer", "tokens": 1e10, "global_batch": 64, **(workload or {})},
    )


def test_the_link_between_hosts_is_the_networks_and_within_one_the_accelerators(h100, kb):
    assert device_link(h100, _req(), DEFAULT, kb, between=True)[0] == 25.0  # roce-ib assumed
    assert device_link(h100, _req(network="roce-ib"), DEFAULT, kb, between=True)[0] == 25.0
    assert device_link(h100, _req(network="ethernet"), DEFAULT, kb, between=True)[0] == 3.0
    assert device_link(h100, _req(), DEFAULT, kb, between=False)[0] == 900.0


# ---- one step's communication against its compute ------------------------------------------------------
# 1e9 parameters, 64 sequences a step of 1e4 GFLOPs each, on H100s at half of 989.4 TFLOPS: 4.947e14 FLOP/s.
_RATE = 989.4e12 * 0.5


def test_a_data_parallel_step_within_one_host():
    """8 devices: compute 64 x 1e13 / 8 / 4.947e14 s; the ring all-reduce of 2e9 bytes of gradients,
    2 x 7/8 x 2e9 / 900e9 s; kept 1 / (1 + ratio) without overlap, all of it with (ratio < 1)."""
    import knowledge

    kb = knowledge.load()
    (acc,) = [a for a in kb.accelerators if a.id == "h100"]
    check = comm_compute(acc, _req(8), 1e4, kb=kb)
    t_compute, t_comm = 64 * 1e13 / 8 / _RATE, 2 * 7 / 8 * 2e9 / 900e9
    assert check.ratio == pytest.approx(t_comm / t_compute, rel=1e-12)
    assert (check.kept_low, check.kept_high) == (pytest.approx(1 / (1 + t_comm / t_compute), rel=1e-12), 1.0)
    # at a quarter of peak the compute takes twice as long
    slow = comm_compute(acc, _req(8), 1e4, kb=kb, peak_share=0.25)
    assert slow.ratio == pytest.approx(check.ratio / 2, rel=1e-12)
    fp32_grads = comm_compute(acc, _req(8), 1e4, kb=kb, grad_bytes=4.0)
    assert fp32_grads.ratio == pytest.approx(check.ratio * 2, rel=1e-12)


def test_a_data_parallel_step_across_hosts_is_communication_bound(h100, kb):
    """16 devices, over the 25 GB/s network: 2 x 15/16 x 2e9 / 25e9 = 0.15 s against 64 x 1e13 / 16 /
    4.947e14 = 0.0809 s: ratio 1.855, kept 1 / 2.855 to 1 / 1.855."""
    check = comm_compute(h100, _req(16), 1e4, kb=kb)
    ratio = 0.15 / (64 * 1e13 / 16 / _RATE)
    assert check.ratio == pytest.approx(ratio, rel=1e-12)
    assert (check.kept_low, check.kept_high) == (
        pytest.approx(1 / (1 + ratio), rel=1e-12),
        pytest.approx(1 / ratio, rel=1e-12),
    )
    ethernet = comm_compute(h100, _req(16, network="ethernet"), 1e4, kb=kb)
    assert ethernet.ratio == pytest.approx(ratio * 25 / 3, rel=1e-12)


def test_model_parallelism_cuts_the_gradients_and_zero3_moves_half_as_much_again(h100, kb):
    """TP 2 x PP 2 x DP 2 on 8: 1e9 / 4 x 2 bytes = 5e8 bytes, 2 x 1/2 x 5e8 / 900e9 s; ZeRO-3 x 1.5."""
    t_compute = 64 * 1e13 / 8 / _RATE
    split = StepSplit(tensor=2, pipeline=2, data=2)
    check = comm_compute(h100, _req(8), 1e4, kb=kb, split=split)
    assert check.ratio == pytest.approx(5e8 / 900e9 / t_compute, rel=1e-12)
    z3 = comm_compute(h100, _req(8), 1e4, kb=kb, split=StepSplit(tensor=2, pipeline=2, data=2, gathers_weights=True))
    assert z3.ratio == pytest.approx(1.5 * check.ratio, rel=1e-12)
    alone = comm_compute(h100, _req(8), 1e4, kb=kb, split=StepSplit(tensor=8, data=1))
    assert alone.ratio == 0.0 and (alone.kept_low, alone.kept_high) == (1.0, 1.0)


def test_lora_exchanges_only_the_adapters_gradients(h100, kb):
    """LORA_TRAINABLE_SHARE 1%: 2e7 bytes instead of 2e9."""
    full = comm_compute(h100, _req(8), 1e4, kb=kb)
    lora = comm_compute(h100, _req(8, model={"fine_tune": "lora"}), 1e4, kb=kb)
    assert lora.ratio == pytest.approx(full.ratio * DEFAULT["LORA_TRAINABLE_SHARE"], rel=1e-12)


def test_a_mixture_of_experts_adds_the_all_to_all(h100, kb):
    """9e9 parameters, 3e9 active, 8 experts, top-2: each expert (9e9 - 3e9) / (8 - 2) = 1e9, 8e9 held in
    experts, 1e9 shared. Expert parallel 4 within DP 8: gradients (1e9 + 8e9 / 4) x 2 bytes = 6e9, 2 x 7/8 x
    6e9 / 900e9 s. The all-to-all: 64 x 2048 / 8 = 16,384 tokens per device, 32 layers x 4 x top-2 x 4096
    x 2 bytes x 3/4, over the host's 900 GB/s."""
    moe = {
        "parameters_millions": 9000,
        "active_parameters_millions": 3000,
        "experts": 8,
        "experts_per_token": 2,
        "layers": 32,
        "hidden_size": 4096,
        "attention_heads": 32,
        "sequence_length": 2048,
    }
    check = comm_compute(h100, _req(8, model=moe), 1e4, kb=kb, split=StepSplit(data=8, expert=4))
    t_dp = 2 * 7 / 8 * 6e9 / 900e9
    moved = 16384 * 32 * 4 * 2 * 4096 * 2.0 * 3 / 4
    assert check.ratio == pytest.approx((t_dp + moved / 900e9) / (64 * 1e13 / 8 / _RATE), rel=1e-12)
    # 16 devices: the gradients cross the 25 GB/s network, the all-to-all of expert parallel 4 stays on a
    # host's 900 GB/s: 2 x 15/16 x 6e9 / 25e9 s + half the tokens per device (64 x 2048 / 16) over NVLink
    wide = comm_compute(h100, _req(16, model=moe), 1e4, kb=kb, split=StepSplit(data=16, expert=4))
    t_wide = 2 * 15 / 16 * 6e9 / 25e9 + moved / 2 / 900e9
    assert wide.ratio == pytest.approx(t_wide / (64 * 1e13 / 16 / _RATE), rel=1e-12)
    no_ep = comm_compute(h100, _req(8, model=moe), 1e4, kb=kb, split=StepSplit(data=8, expert=1))
    assert no_ep.ratio == pytest.approx(2 * 7 / 8 * 18e9 / 900e9 / (64 * 1e13 / 8 / _RATE), rel=1e-12)


def test_no_check_without_several_devices_a_figure_or_an_accelerator(h100, kb):
    assert comm_compute(h100, _req(1), 1e4, kb=kb) is None
    assert comm_compute(h100, _req(8), None, kb=kb) is None
    assert comm_compute(h100, _req(8), 0.0, kb=kb) is None
    assert comm_compute(None, _req(8), 1e4, kb=kb) is None
    assert comm_compute(h100, _req(2), 1e4, kb=kb) is not None


# ---- the scaling model ---------------------------------------------------------------------------------
_EV = Evidence(kind="knowledge", ref="test", detail="built in the test")
_HOST = Curve(id="host", link="nvlink", points=((2, 0.98, 0.99), (8, 0.90, 0.95)), evidence=_EV)
_NET = Curve(id="net", link="roce-ib", points=((16, 0.80, 0.90), (128, 0.50, 0.70)), evidence=_EV)
_ETH = Curve(id="eth", link="ethernet", points=((16, 0.60, 0.85), (128, 0.30, 0.60)), evidence=_EV)


def test_within_a_host_only_the_host_curve_counts():
    """4 devices is halfway from 2 to 8 in log n: 0.98 - 0.08 / 2 = 0.94, 0.99 - 0.04 / 2 = 0.97."""
    model = ScalingModel(host=_HOST, networks=(_NET,), per_host=8)
    assert model.network_at(8) is None
    assert model.at(4) == (pytest.approx(0.94), pytest.approx(0.97))
    assert model.at(8) == (pytest.approx(0.90), pytest.approx(0.95))


def test_beyond_a_host_the_network_curve_multiplies_the_full_host():
    """16 devices: the host at 8 (0.90, 0.95) x the network at 16 (0.80, 0.90) = (0.72, 0.855); with two
    network classes, the lower low and the higher high."""
    one = ScalingModel(host=_HOST, networks=(_NET,), per_host=8)
    assert one.network_at(16) == (0.80, 0.90)
    assert one.at(16) == (pytest.approx(0.72), pytest.approx(0.855))
    both = ScalingModel(host=_HOST, networks=(_NET, _ETH), per_host=8)
    assert both.network_at(16) == (0.60, 0.90)
    assert ScalingModel(host=_HOST, networks=(), per_host=8).network_at(16) is None
    assert (one.reach, both.reach, ScalingModel(host=_HOST, networks=(), per_host=8).reach) == (128, 128, None)


def _inter_host(link_share, world: int = 16) -> InterHostMeasurement:
    return InterHostMeasurement(
        id="inter-host:pytorch-gpt-2x8",
        framework="pytorch",
        model="gpt",
        nnodes=2,
        ranks_per_node=world // 2,
        world_size=world,
        link="eth0",
        link_share=link_share,
    )


def test_a_measured_link_share_replaces_the_network_curve():
    """The link adds 10-20% of the cross-host step: extra time x = s / (1 - s), 0.111 and 0.25; kept
    1 / (1 + x g) with g = the ring's 2 (N - 1) / N relative to the measured world of 16: at 16, g = 1:
    (0.8, 0.9); at 32, g = (31/32) / (15/16)."""
    measured = _inter_host(ScalingSpread(median=0.15, min=0.1, max=0.2, n=3))
    model = ScalingModel(host=_HOST, networks=(_NET,), per_host=8, measured=measured)
    assert model.network_at(16) == (pytest.approx(0.8), pytest.approx(0.9))
    g = (31 / 32) / (15 / 16)
    assert model.network_at(32) == (pytest.approx(1 / (1 + 0.25 * g)), pytest.approx(1 / (1 + g / 9)))
    assert model.reach is None
    capped = ScalingModel(
        host=_HOST, networks=(), per_host=8, measured=_inter_host(ScalingSpread(median=1.0, min=0.5, max=1.5, n=3))
    )  # a share past 1 is read as 0.99: x = 99
    assert capped.network_at(16) == (pytest.approx(1 / 100), pytest.approx(0.5))
    small = ScalingModel(
        host=_HOST,
        networks=(),
        per_host=1,
        measured=_inter_host(ScalingSpread(median=0.15, min=0.1, max=0.2, n=3), world=1),
    )  # a world of 1 is read as 2
    assert small.network_at(2) == (pytest.approx(0.8), pytest.approx(0.9))


def test_the_curve_points_are_the_powers_of_two_and_the_target():
    model = ScalingModel(host=_HOST, networks=(_NET,), per_host=8)
    points = model.points(16)
    assert [p.devices for p in points] == [1, 2, 4, 8, 16, 32]
    assert [p.devices for p in points if p.target] == [16]
    assert (points[4].low, points[4].high) == (0.72, 0.855)
    assert [p.devices for p in model.points(3)] == [1, 2, 3, 4, 8, 16]
    assert [p.devices for p in model.points(64)] == [1, 2, 4, 8, 16, 32, 64, 128]


# ---- the factor a projection multiplies by -------------------------------------------------------------


def _plan(devices: int = 16, kept=(0.6, 0.8), basis: str = "knowledge", model=None) -> CommPlan:
    span = Span(low=kept[0], high=kept[1], unit="fraction") if kept else None
    comm = Communication(devices=devices, basis=basis, basis_detail="", kept=span)
    return CommPlan(comm, (_EV,), ("a note",), model=model)


def test_a_single_device_reference_takes_the_whole_kept_range():
    assert _plan().factor(1) == (0.6, 0.8, True)
    assert _plan().span() == (0.6, 0.8, [_EV], ["a note"])


def test_nothing_to_apply_on_one_device_without_a_range_or_past_the_reference():
    assert _plan(devices=1).factor(1) == (1.0, 1.0, False)
    assert _plan(kept=None).factor(1) == (1.0, 1.0, False)
    assert _plan().factor(16) == (1.0, 1.0, False)
    assert _plan().factor(32) == (1.0, 1.0, False)
    assert _plan(devices=1).span() == (1.0, 1.0, [], [])
    assert _plan(kept=None).span() == (1.0, 1.0, [], [])


def test_a_smaller_reference_without_a_curve_keeps_low_over_high_at_worst():
    assert _plan().factor(4) == (pytest.approx(0.75), 1.0, True)
    model = ScalingModel(host=_HOST, networks=(_NET,), per_host=8)
    assert _plan(basis="measured", model=model).factor(4) == (pytest.approx(0.75), 1.0, True)


def test_a_smaller_reference_on_the_curve_divides_by_what_the_curve_keeps_there():
    """The reference on 4 devices already kept (0.94, 0.97): 0.6 / 0.94 and 0.8 / 0.97, each at most 1."""
    model = ScalingModel(host=_HOST, networks=(_NET,), per_host=8)
    low, high, applied = _plan(model=model).factor(4)
    assert (low, high, applied) == (pytest.approx(0.6 / 0.94), pytest.approx(0.8 / 0.97), True)
    assert _plan(kept=(0.95, 0.99), model=model).factor(4)[:2] == (1.0, 1.0)  # capped at 1
    far = ScalingModel(host=_HOST, networks=(_NET,), per_host=8)
    assert _plan(devices=512, model=far).factor(128) == (1.0, 1.0, False)  # past the curve's last point
    assert _plan(devices=512, model=far).factor(64)[2] is True


@pytest.mark.parametrize(
    "devices, ref, carried", [(8, 1, False), (8, 4, False), (8, 8, True), (8, 16, True), (1, 2, True), (1, 1, False)]
)
def test_a_reference_carries_the_loss_of_as_many_devices_or_more(devices, ref, carried):
    assert carried_loss(devices, ref) is carried


# ---- the plan a projection follows, from the knowledge base's curves -----------------------------------
# Host curves: NVLink (1: 1.0, 2: 0.90-0.98, 8: 0.78-0.95), PCIe (2: 0.80-0.92, 8: 0.60-0.78); network
# curves from 8 devices: RoCE/IB (16: 0.85-0.95), Ethernet (16: 0.60-0.85); the communication derating
# loses 15-50%.


def _plan_req(target: str, devices: int, accelerator=None, network=None):
    hw = {"available": [target], "training_target": target, "devices": devices}
    if accelerator:
        hw["accelerator"] = accelerator
    if network:
        hw["network"] = network
    return parse_requirements(
        {
            "name": "plan",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
            "hardware": hw,
            "deployment": {"targets": [f"{target}-server"]},
            "model": {"family": "cnn", "parameters_millions": 25.6, "source": "pytorch-code"},
            "needs": {"distributed_training": devices > 1},
        }
    )


def test_the_curves_the_plans_are_worked_with(kb):
    curves = {c.id: [(p.devices, p.efficiency.low, p.efficiency.high) for p in c.points] for c in kb.scaling_curves}
    assert curves["host-nvlink"] == [(1, 1.0, 1.0), (2, 0.9, 0.98), (8, 0.78, 0.95)]
    assert curves["host-pcie"] == [(1, 1.0, 1.0), (2, 0.8, 0.92), (8, 0.6, 0.78)]
    assert curves["network-roce-ib"][:2] == [(8, 1.0, 1.0), (16, 0.85, 0.95)]
    assert curves["network-ethernet"][:2] == [(8, 1.0, 1.0), (16, 0.6, 0.85)]
    (d,) = [x for x in kb.derating if x.factor == "communication"]
    assert (d.loss.low, d.loss.high) == (0.15, 0.5)


def test_within_a_host_the_plan_keeps_the_host_curve(kb, h100):
    from advisor.decision.communication import communication_for

    plan = communication_for("pytorch", "nvidia", h100, _plan_req("nvidia", 8, "H100"), kb)
    assert (plan.comm.basis, plan.comm.kept.low, plan.comm.kept.high) == ("knowledge", 0.78, 0.95)
    assert plan.comm.knowledge_loss == [0.05, 0.22]
    assert [(p.devices, p.low, p.high) for p in plan.comm.curve] == [
        (1, 1.0, 1.0),
        (2, 0.9, 0.98),
        (4, 0.84, 0.965),  # halfway from 2 to 8 in log n
        (8, 0.78, 0.95),
        (16, 0.468, 0.9025),
    ]
    assert plan.span()[:2] == (0.78, 0.95)


def test_across_hosts_an_unknown_network_spans_both_network_curves(kb, h100):
    """16 H100s: the host at 8 (0.78, 0.95) x the lower RoCE/Ethernet low (0.60) and the higher high (0.95):
    0.468-0.9025, a loss of 9.75-53.2%; on Ethernet only, 0.95 x 0.85 = 0.8075 at the fast end."""
    from advisor.decision.communication import communication_for

    any_net = communication_for("pytorch", "nvidia", h100, _plan_req("nvidia", 16, "H100"), kb)
    assert (any_net.comm.kept.low, any_net.comm.kept.high, any_net.comm.knowledge_loss) == (
        0.468,
        0.9025,
        [0.0975, 0.532],
    )
    eth = communication_for("pytorch", "nvidia", h100, _plan_req("nvidia", 16, "H100", "ethernet"), kb)
    assert (eth.comm.kept.low, eth.comm.kept.high) == (0.468, 0.8075)


def test_one_device_keeps_everything(kb, h100):
    from advisor.decision.communication import communication_for

    plan = communication_for("pytorch", "nvidia", h100, _plan_req("nvidia", 1, "H100"), kb)
    assert (plan.comm.basis, plan.comm.kept.low, plan.comm.kept.high) == ("single-device", 1.0, 1.0)
    assert plan.factor(1) == (1.0, 1.0, False)


def test_without_a_curve_the_derating_and_without_a_knowledge_base_an_assumption(kb, h100):
    """No curves: the derating's 15-50% loss keeps 0.50-0.85 (knowledge); no knowledge base at all: the
    same 0.50-0.85 assumed."""
    from advisor.decision.communication import communication_for

    bare = kb.model_copy(update={"scaling_curves": []})
    plan = communication_for("pytorch", "nvidia", h100, _plan_req("nvidia", 8, "H100"), bare)
    assert (plan.comm.basis, plan.comm.kept.low, plan.comm.kept.high) == ("knowledge", 0.5, 0.85)
    assert (plan.comm.knowledge_loss, plan.comm.curve) == ([0.15, 0.5], [])
    none = communication_for("pytorch", "nvidia", h100, _plan_req("nvidia", 8, "H100"), None)
    assert (none.comm.basis, none.comm.kept.low, none.comm.kept.high, none.comm.knowledge_loss) == (
        "assumed",
        0.5,
        0.85,
        None,
    )


# ---- the scaling probe's figures ----------------------------------------------------------------------
# tests/fixtures/scaling/scaling-2vcpu-lenet.json: LeNet on 2 ranks of this 2-vCPU host (CPU contention):
# PyTorch keeps 42.9-51.5% of linear (median 49.3%), its all-reduce takes 26.7-38.7% of a step; MindSpore
# 19.6-71.5%.


@pytest.fixture(scope="module")
def scaling():
    import json
    from pathlib import Path

    path = Path(__file__).parent / "fixtures" / "scaling" / "scaling-2vcpu-lenet.json"
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_probes_figures_at_its_largest_rank_count_to_4_places(scaling):
    from advisor.decision.communication import scaling_measurements

    got = {m.framework: m for m in scaling_measurements(scaling)}
    pt = got["pytorch"]
    assert (pt.id, pt.ranks, pt.device_scaling, pt.hardware) == ("scaling:pytorch-lenet-r2", 2, False, "cpu")
    assert (pt.efficiency.median, pt.efficiency.min, pt.efficiency.max, pt.efficiency.n) == (0.4935, 0.4289, 0.5149, 3)
    assert (pt.allreduce_share.min, pt.allreduce_share.max) == (0.2668, 0.3869)
    assert (got["mindspore"].efficiency.min, got["mindspore"].efficiency.max) == (0.1964, 0.7149)


def _on_gpus(scaling):
    import copy

    gpu = copy.deepcopy(scaling)
    gpu["label"] = "device-scaling"
    for f in gpu["frameworks"]:
        f["device"] = "cuda"
    return gpu


def _lenet(devices: int):
    return h100_team(
        name="lenet",
        devices=devices,
        model={"family": "cnn", "parameters_millions": 0.06, "source": "pytorch-code"},
        workload={"model": "lenet", "dataset_samples": 60000},
        needs={"distributed_training": True},
    )


def test_device_scaling_of_the_targets_shape_is_the_range(kb, h100, scaling):
    """The same figures as one rank per GPU, 2 devices asked for: the measured 0.4289-0.5149 is the range;
    the curve's 2-10% loss stays beside it."""
    from advisor.decision.communication import communication_for

    plan = communication_for("pytorch", "nvidia", h100, _lenet(2), kb, _on_gpus(scaling), True)
    assert (plan.comm.basis, plan.comm.kept.low, plan.comm.kept.high) == ("measured", 0.4289, 0.5149)
    assert plan.comm.knowledge_loss == [0.02, 0.1]
    assert plan.factor(1) == (0.4289, 0.5149, True)
    ms = communication_for("mindspore", "nvidia", h100, _lenet(2), kb, _on_gpus(scaling), True)
    assert (ms.comm.kept.low, ms.comm.kept.high) == (0.1964, 0.7149)


def test_a_probe_of_another_rank_count_stands_beside_the_curve(kb, h100, scaling):
    """4 devices asked for, 2 ranks measured: the curve's 0.84-0.965 at 4, the probe as evidence."""
    from advisor.decision.communication import communication_for

    plan = communication_for("pytorch", "nvidia", h100, _lenet(4), kb, _on_gpus(scaling), True)
    assert (plan.comm.basis, plan.comm.kept.low, plan.comm.kept.high) == ("measured+knowledge", 0.84, 0.965)
    assert plan.comm.measured.id == "scaling:pytorch-lenet-r2"
    cpu = communication_for("pytorch", "nvidia", h100, _lenet(2), kb, scaling, True)  # CPU contention, not GPUs
    assert (cpu.comm.basis, cpu.comm.kept.low, cpu.comm.kept.high) == ("measured+knowledge", 0.9, 0.98)


def test_a_measured_link_share_at_or_past_1_is_read_as_099_at_both_ends():
    """Shares of 1.1-1.5 (a noisy probe): both ends read as 0.99, x = 99: kept 1 / 100 at 16 devices."""
    both = ScalingModel(
        host=_HOST,
        networks=(),
        per_host=8,
        measured=_inter_host(ScalingSpread(median=1.2, min=1.1, max=1.5, n=3)),
    )
    assert both.network_at(16) == (pytest.approx(0.01), pytest.approx(0.01))


def test_a_measured_efficiency_past_linear_is_kept_at_1(kb, h100, scaling):
    """A probe repetition faster than linear (1.2): the range's fast end is 1.0."""
    from advisor.decision.communication import communication_for

    gpu = _on_gpus(scaling)
    (pt,) = [f for f in gpu["frameworks"] if f["framework"] == "pytorch"]
    (two,) = [rc for rc in pt["rank_counts"] if rc["ranks"] == 2]
    two["efficiency"]["max"] = 1.2
    plan = communication_for("pytorch", "nvidia", h100, _lenet(2), kb, gpu, True)
    assert (plan.comm.basis, plan.comm.kept.low, plan.comm.kept.high) == ("measured", 0.4289, 1.0)
