"""The workload arithmetic, second round: every formula against figures written out by hand here (never
the production function's output): device memory in GiB, the model-state formula each route's
sharding names, the layout search, LoRA/QLoRA bases, MoE, the per-device batch in every column, the
step batch, each MFU reference scaled from its own device count once, a peak's spread counted once,
recompute and QLoRA factors, the communication bound and `hardware.network`, fused attention, tokens/s
for every sequence model, the failure allowance and energy from the server's power."""

from __future__ import annotations

import copy
import math

import pytest

from advisor.decision.memory import shardings, state_bytes, transformer_activations
from advisor.decision.power import fleet_power, power_budget_kw
from advisor.decision.projections import project
from advisor.decision.workflows import routes
from advisor.decision.workload import shape_for
from advisor.requirements import parse_requirements
from knowledge.models import Route as StackRoute

GB, GIB = 1e9, 2**30


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def team(params_m: float, accelerator: str, devices: int, target: str = "ascend", **model) -> dict:
    return {
        "name": "llm",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "basic", "size": 6},
        "hardware": {
            "available": [target],
            "training_target": target,
            "accelerator": accelerator,
            "devices": devices,
            "network": "roce-ib",
        },
        "deployment": {"targets": [f"{target}-server"]},
        "model": {"family": "transformer", "parameters_millions": params_m, "source": "pytorch-code", **model},
        "needs": {"distributed_training": devices > 1},
        "workload": {"model": "transformer", "tokens": 1e10},
    }


def training_route(sharding: list[str], parallelism: list[str]) -> StackRoute:
    return StackRoute(
        id="test-route",
        name="a training stack built in the test",
        stage="training",
        workflows=["pytorch"],
        vendor="huawei",
        framework="torch_npu",
        supports={
            "families": ["transformer"],
            "parallelism": parallelism,
            "optimizer_sharding": sharding,
            "fine_tune": ["full", "lora", "qlora"],
            "precisions": ["bf16", "fp16"],
        },
        source="test",
        confidence="assumption",
    )


def projected(kb, data, workflow="pytorch", training=None):
    req = parse_requirements(copy.deepcopy(data))
    r = routes(req, kb)[workflow]
    if training is not None:
        import dataclasses

        r = dataclasses.replace(r, training=training)
    return project(workflow, req, kb, [], route=r)


# --- memory ---------------------------------------------------------------------------------------------


def test_device_memory_is_read_as_gib_and_every_figure_is_gb(kb):
    """The 910B's usable 60.8 is GiB (npu-smi: 65,536 MB total): 60.8 x 2^30 = 65.28 GB, not 60.8 GB (the
    old reading understated it by 7.4%). An H100 with no usable figure: 80 GiB x 0.93."""
    fit = projected(kb, team(7000, "Ascend 910B", 8)).memory
    assert fit.usable_gb == pytest.approx(60.8 * GIB / GB, abs=0.01)
    h100 = projected(kb, team(7000, "H100", 8, "nvidia"), "pytorch").memory
    assert h100.usable_gb == pytest.approx(80 * GIB / GB * 0.93, abs=0.01)
    assert fit.states_gb == pytest.approx(7e9 * 16 / GB)  # model states in GB: 16 bytes x 7e9


def test_a_stated_width_sets_the_depth_even_near_a_published_size():
    """1,329 M parameters is within 15% of GPT-3 XL (1.3 B: 24 layers of 2048), but at a stated width of 4096
    12 x L x 4096^2 = 1.329e9 gives 7 layers; 24 layers of 4096 would be a 4.8 B model (and once made a
    1.33 B model cost more FLOPs per token than a 1.5 B one)."""
    assert shape_for(1329, hidden=4096).layers == round(1.329e9 / (12 * 4096**2)) == 7
    assert shape_for(1329).layers == 24  # no width stated: the published row whole


def test_each_sharding_follows_its_published_formula():
    """Bytes per trained parameter kept whole / cut over the data-parallel ranks, mixed-precision Adam."""
    b = state_bytes("bf16", "adam")
    split = {
        f: {s.label: (s.replicated, s.sharded) for s in shardings(f, b, "bf16")}
        for f in ("zero-paper", "deepspeed", "megatron", "mindspore")
    }
    assert split["zero-paper"] == {"no sharding": (16, 0), "ZeRO-1": (4, 12), "ZeRO-2": (2, 14), "ZeRO-3": (0, 16)}
    # DeepSpeed's estimate_zero2_model_states_mem_needs: 4 + 16/N; ZeRO-3: 18/N (+ 4 x the largest layer)
    assert split["deepspeed"]["ZeRO-2"] == (4, 16) and split["deepspeed"]["ZeRO-3"] == (0, 18)
    # Megatron Core, "Distributed Optimizer": bf16 parameters with fp32 main gradients, 18 and 6 + 12/d
    assert split["megatron"] == {"no sharding (Megatron DDP)": (18, 0), "distributed optimizer": (6, 12)}
    fp16 = {s.label: (s.replicated, s.sharded) for s in shardings("megatron", state_bytes("mixed", "adam"), "mixed")}
    assert fp16["distributed optimizer"] == (4, 16)  # fp16 parameters and gradients: 4 + 16/d
    assert split["mindspore"]["optimizer parallel"] == (4, 12)


def test_the_layout_search_finds_tensor_parallel_before_full_recompute_under_megatron(kb):
    """14B continued pretraining on 64 x 910B on a MindSpeed-style route (the distributed optimizer):
    TP 1 x DP 64 holds 14e9 x (6 + 12/64) = 86.6 GB of states alone, over the 65.28 GB usable, with or
    without recompute. TP 2 x DP 32: 7e9 x (6 + 12/32) = 44.63 GB of states + (40 x 34 x 4096 x 5120 +
    4 x 4096 x (5120 + 32000)) / 2 = 14.57 GB of activations (fused attention, no recompute) = 59.19 GB:
    it fits, and costs an estimated 5% (one tensor-parallel doubling) where full recompute would cost 33%."""
    data = team(14000, "Ascend 910B", 64, from_checkpoint=True)
    fit = projected(kb, data, training=training_route(["distributed-optimizer"], ["dp", "tp", "pp"])).memory
    lay = fit.layout
    assert (lay.tensor_parallel, lay.pipeline_parallel, lay.data_parallel, lay.recompute) == (2, 1, 32, "none")
    assert lay.sharding == "distributed optimizer" and "Megatron" in fit.formula
    assert lay.states_gb == pytest.approx(7e9 * (6 + 12 / 32) / GB, abs=1e-3)
    act = (40 * 34 * 4096 * 5120 + 4 * 4096 * (5120 + 32000)) / 2
    assert lay.activations_gb == pytest.approx(act / GB, abs=1e-3)
    assert lay.overhead == pytest.approx(0.05) and "over TP" in fit.layout_why
    # a route with data parallelism only cannot split the model: the same job does not fit 64 devices
    alone = projected(kb, data, training=training_route(["distributed-optimizer"], ["dp"])).memory
    assert alone.strategy == "does-not-fit"


def test_a_route_naming_zero_is_held_to_deepspeeds_estimator(kb):
    """The same 14B under DeepSpeed's ZeRO-2 estimator at TP 1 x DP 64: 14e9 x (4 + 16/64) = 59.5 GB of
    states; with full recompute's 2 s b h per layer: + (40 x 2 x 4096 x 5120 + 4 x 4096 x 37120) = 2.29 GB
    = 61.8 GB, which fits, but TP 2 (7e9 x (4 + 16/32) = 31.5 GB + 14.57 GB) fits at 5% instead of 33%."""
    fit = projected(kb, team(14000, "Ascend 910B", 64), training=training_route(["zero"], ["dp", "tp"])).memory
    assert "DeepSpeed" in fit.formula
    # at TP 2 ZeRO-1 (DeepSpeed has no ZeRO-1 estimator: the paper's 4 + 12/N) fits as cheaply and shards less
    assert (fit.layout.tensor_parallel, fit.layout.sharding, fit.layout.recompute) == (2, "ZeRO-1", "none")
    assert fit.layout.states_gb == pytest.approx(7e9 * (4 + 12 / 32) / GB, abs=1e-3)
    # the optimizer-sharding column at TP 1 x DP 64, no recompute: the smaller of ZeRO-1 and the ZeRO-2 estimator
    act = (40 * 34 * 4096 * 5120 + 4 * 4096 * 37120) / GB
    z = {s.strategy: s.per_device_gb for s in fit.strategies}
    assert z["optimizer-sharding"] == pytest.approx(14e9 * min(4 + 12 / 64, 4 + 16 / 64) / GB + act, abs=1e-3)


def test_lora_and_qlora_hold_the_frozen_base_at_its_width(kb):
    """7B with 1% trained: the adapters at 16 bytes/parameter, the base at its width. QLoRA's NF4 with
    double quantisation is 4.127 bits (Dettmers et al. 2023): 7e9 x (0.01 x 16 + 0.99 x 4.127 / 8)."""

    def states(fine_tune, **extra):
        data = team(7000, "H100", 1, "nvidia", fine_tune=fine_tune, trainable_share=0.01, **extra)
        return projected(kb, data).memory

    qlora, lora = states("qlora"), states("lora")
    assert qlora.states_gb == pytest.approx(7e9 * (0.01 * 16 + 0.99 * 4.127 / 8) / GB, abs=1e-3)
    assert lora.states_gb == pytest.approx(7e9 * (0.01 * 16 + 0.99 * 2) / GB, abs=1e-3)
    assert states("lora", base_weights_precision="int8").states_gb == pytest.approx(7e9 * (0.16 + 0.99) / GB, abs=1e-3)
    assert qlora.base_weights_precision == "int4" and lora.base_weights_precision == "bf16"
    # a checkpoint of a LoRA run is its adapters: 7e7 x (2 + 12) bytes
    assert lora.checkpoint_gb == pytest.approx(7e7 * 14 / GB, abs=1e-4)


def test_a_mixture_of_experts_holds_every_expert_and_computes_with_the_active_ones(kb):
    """Mixtral-like: 46.7B in all, 12.9B active, 8 experts, top 2: each expert X = (46.7 - 12.9) / 6 =
    5.633B, the shared S = 46.7 - 8 X = 1.633B. Memory: 46.7e9 x 16 bytes. FLOPs: the 12.9B's dense
    shape (Llama-2 13B: 40 layers, hidden 5120, sequence 4096): 6 x 12.9e9 + 12 x 40 x 4096 x 5120."""
    data = team(46700, "H100", 16, "nvidia", experts=8, experts_per_token=2, active_parameters_millions=12900)
    p = projected(kb, data)
    assert p.memory.states_gb == pytest.approx(46.7e9 * 16 / GB, abs=1e-3)
    per_token = 6 * 12.9e9 + 12 * 40 * 4096 * 5120
    seconds = 1e10 / p.tokens_per_second.high
    assert p.mfu.high == pytest.approx(1e10 * per_token / seconds / (16 * 989.4e12), rel=2e-3)
    lay = p.memory.layout
    x = (46.7e9 - 12.9e9) / 6
    shared = 46.7e9 - 8 * x
    t, pp, dp, ep = lay.tensor_parallel, lay.pipeline_parallel, lay.data_parallel, lay.expert_parallel
    sh = next(s for s in shardings("zero-paper", state_bytes("bf16", "adam"), "bf16") if s.label == lay.sharding)
    by_hand = shared / (t * pp) * (sh.replicated + sh.sharded / dp) + 8 * x / (t * pp * ep) * (
        sh.replicated + sh.sharded / (dp / ep)
    )
    by_hand += sh.gathered_layers * max(32000 * 5120, 4 * 5120**2) / t
    assert lay.states_gb == pytest.approx(by_hand / GB, abs=1e-3)


def test_every_strategy_column_counts_the_same_per_device_batch(kb):
    """A 1B CNN-like model (1 MB of activations a sample) on 8 x 910B with a step of 512: 64 samples a
    device in every column. Optimizer sharding 2 + 14/8 bytes x 1e9 + 64 MB; the old fully-sharded and
    sharded columns counted one sample where the data-parallel one counted 64."""
    data = team(1000, "Ascend 910B", 8, precision="mixed", optimizer="adam", activation_mb_per_sample=1.0)
    data["workload"] = {"model": "custom", "gflops_per_sample": 10, "dataset_samples": 1000, "batch_size": 512}
    z = {s.strategy: s.per_device_gb for s in projected(kb, data, "mindspore").memory.strategies}
    act = 64 * 1e6 / GB
    assert z["data-parallel"] == pytest.approx(16 + act, abs=1e-3)
    assert z["optimizer-sharding"] == pytest.approx(2 + 14 / 8 + act, abs=1e-3)
    assert z["model-parallel"] == pytest.approx(16 / 8 + 4 * 0.02 + act, abs=1e-3)
    data["workload"]["global_batch"] = 1024  # the step batch, where given: 128 a device
    z = {s.strategy: s.per_device_gb for s in projected(kb, data, "mindspore").memory.strategies}
    assert z["optimizer-sharding"] == pytest.approx(2 + 14 / 8 + 128 * 1e6 / GB, abs=1e-3)


def test_flash_attention_drops_the_score_term_from_the_activations():
    """model.flash_attention: Korthikanti's 5 a s / h score term per layer goes with fused attention:
    Llama-2 7B, micro-batch 1: 32 x 5 x 32 x 4096^2 bytes = 85.9 GB more without it."""
    shape = shape_for(6740)
    fused = transformer_activations(shape, 1, 1, "none", True)
    plain = transformer_activations(shape, 1, 1, "none", False)
    assert plain - fused == pytest.approx(32 * 5 * 32 * 4096 * 4096, rel=1e-9)


def test_model_flash_attention_reaches_the_memory_fit(kb):
    """The same field through the requirements: the activations per sample differ by the score term."""
    on = projected(kb, team(7000, "H100", 8, "nvidia", recompute="none")).memory
    off = projected(kb, team(7000, "H100", 8, "nvidia", recompute="none", flash_attention=False)).memory
    assert off.activation_gb_per_sample - on.activation_gb_per_sample == pytest.approx(
        32 * 5 * 32 * 4096 * 4096 / GB, abs=1e-3
    )


# --- throughput and time ----------------------------------------------------------------------------------


def mfu_910b() -> dict[str, float]:
    """Each 910B reference's tokens/s x its FLOPs per token over the first-listed 280 TFLOPS."""
    return {
        "mf-7b": 4160 * (6 * 6.74e9 + 12 * 32 * 4096 * 4096) / 280e12,
        "mf-13b": 1691 * (6 * 13e9 + 12 * 40 * 4096 * 5120) / 280e12,
        "mf-70b": 337 * (6 * 69e9 + 12 * 80 * 4096 * 8192) / 280e12,
        "mf-8b": 2581 * (6 * 8.03e9 + 12 * 32 * 8192 * 4096) / 280e12,
        "ms-7b": 2730 * (6 * 6.74e9 + 12 * 32 * 4096 * 4096) / 280e12,
    }


def test_a_peak_spread_is_counted_once_on_the_references_own_accelerator(kb):
    """Llama-2 7B on 8 x 910B: its own 4160 tokens/s/device row runs the same model on the same 8 cards,
    so the fast end is exactly 4160 per device: the 280-320 TFLOPS spread of the 910B does not enter (it
    cancels: MFU against 280 x 280). The old reading took MFU against 280 and applied it to 320 (4754)."""
    data = team(6740, "Ascend 910B", 8)
    p = projected(kb, data, "mindspore")
    assert p.tokens_per_second.high / 8 == pytest.approx(4160, rel=1e-3)
    assert p.tokens_per_second.low / 8 == pytest.approx(min(mfu_910b().values()) * 280e12 / 46.93e9, rel=2e-3)


def test_each_reference_is_scaled_from_its_own_device_count_once(kb):
    """The same 7B on 64 x 910B: the 8-card references keep kept(64) / kept(8) of their per-device rate on
    the knowledge-base curves (HCCS host curve 0.75-0.93 at 8; x the RoCE network curve 0.70-0.90 at 64):
    0.70-0.90; the 64-card 70B reference already carries its loss (x1). The old path applied nothing."""
    eight = projected(kb, team(6740, "Ascend 910B", 8), "mindspore").tokens_per_second
    many = projected(kb, team(6740, "Ascend 910B", 64), "mindspore")
    flops = 6 * 6.74e9 + 12 * 32 * 4096 * 4096
    m = mfu_910b()
    scaled = [m[k] * f for k in ("mf-7b", "mf-13b", "mf-8b", "ms-7b") for f in (0.70, 0.90)] + [m["mf-70b"]]
    assert many.tokens_per_second.high == pytest.approx(max(scaled) * 280e12 * 64 / flops, rel=2e-3)
    # the slow end also meets the step's communication bound without overlap, 1 / (1 + T_comm / T_compute):
    # T_comm = 2 x 63/64 x 6.74e9 x 2 bytes / 25 GB/s, T_compute = 128 x 4096 x flops / 64 / (280e12 x MFU_high)
    ratio = (2 * 63 / 64 * 6.74e9 * 2 / 25e9) / (128 * 4096 * flops / 64 / (280e12 * max(m.values())))
    low = min(min(scaled), min(m.values()) / (1 + ratio))
    assert many.tokens_per_second.low == pytest.approx(low * 280e12 * 64 / flops, rel=2e-3)
    assert many.tokens_per_second.high < 8 * eight.high
    factor = next(f for f in many.time_factors if f.name == "device-scaling")
    assert (factor.low, factor.high) == (pytest.approx(0.70), pytest.approx(0.90))


def test_recompute_the_reference_did_not_use_divides_the_rate(kb):
    """model.recompute: full on the 7B (8 x 910B): one more forward pass, 2N + 4Lsh over 6N + 12Lsh = 1/3
    more compute, so the fast end is 4160 / (4/3) = 3120 tokens/s per device."""
    p = projected(kb, team(6740, "Ascend 910B", 8, recompute="full"), "mindspore")
    assert p.tokens_per_second.high / 8 == pytest.approx(4160 * 3 / 4, rel=1e-3)
    f = next(f for f in p.time_factors if f.name == "recompute")
    assert f.low == pytest.approx(0.75)


def test_qlora_with_full_recompute_pays_half_a_step_and_its_dequantisation(kb):
    """QLoRA of a 7B on 1 x H100, full recompute: model FLOPs per token (4 + 2 x 0.01) x 7e9 + 12 L s h; full
    recompute adds a forward pass (2N + 4Lsh) = 49.8% of that; dequantising the 4-bit base x 1/1.3
    (QLORA_DEQUANT_OVERHEAD). MFU: Llama 3's H100 row 38-43%, widened +-25% as a single reference."""
    data = team(7000, "H100", 1, "nvidia", fine_tune="qlora", trainable_share=0.01, recompute="full")
    p = projected(kb, data)
    attn = 12 * 32 * 4096 * 4096
    train = 4.02 * 7e9 + attn
    extra = (2 * 7e9 + attn / 3) / train
    fast = 0.405 * 1.25 * 989.4e12 / train / (1 + extra) / 1.3
    assert p.tokens_per_second.high == pytest.approx(fast, rel=2e-3)
    assert {f.name for f in p.time_factors} >= {"recompute", "qlora-dequantisation"}


def test_a_custom_transformer_is_projected_in_tokens_per_second_from_llm_references(kb):
    """A team that states its FLOPs (`workload.model: custom`) with `model.family: transformer` is a
    sequence model: MFU references and tokens/s, never the ResNet-50 rows in images/s. 7B, 8 x H20."""
    data = team(7000, "H20", 8, "nvidia")
    data["workload"] = {"model": "custom", "gflops_per_sample": 48.44 * 4096, "dataset_samples": 1_000_000}
    p = projected(kb, data)
    assert p.images_per_second.unit == "sequences/s" and p.tokens_per_second is not None
    assert "MFU" in p.basis_detail and not any("resnet" in e.ref for e in p.evidence)


def test_a_family_without_references_is_not_projectable_and_says_how_to_measure(kb):
    data = team(500, "H100", 8, "nvidia")
    data["model"] = {"family": "other", "parameters_millions": 500, "source": "pytorch-code"}
    data["workload"] = {"model": "custom", "gflops_per_sample": 3, "dataset_samples": 1_000_000}
    p = projected(kb, data)
    assert p.basis == "none" and p.time_to_train_hours is None
    assert "not projectable" in p.basis_detail and "measure a training step" in p.basis_detail
    # the probe that would measure it, and why no probe of the suite stands in
    assert "advisor probe --scaling" in p.basis_detail and "recommender's embedding lookups" in p.basis_detail


# --- communication ------------------------------------------------------------------------------------------


def comm_ratio(kb, network: str, **workload) -> float:
    data = team(6740, "Ascend 910B", 64)
    data["hardware"]["network"] = network
    data["workload"].update(workload)
    return projected(kb, data, "mindspore").communication.comm_compute_ratio


def test_hardware_network_enters_the_communication_check(kb):
    """Between hosts the all-reduce runs over `hardware.network`: 25 GB/s on RoCE/InfiniBand
    (NETWORK_ROCE_IB_GBS), 3 GB/s on Ethernet (NETWORK_ETHERNET_GBS); the same step on the same split
    (plain data parallel over 64) has its ratio grow 25/3."""
    from advisor.decision.communication import StepSplit, comm_compute
    from advisor.decision.projections import workload_gflops

    def ratio(network):
        data = team(6740, "Ascend 910B", 64)
        data["hardware"]["network"] = network
        req = parse_requirements(data)
        acc = kb.find_accelerator("Ascend 910B")
        return comm_compute(acc, req, workload_gflops(req), kb=kb, split=StepSplit(data=64)).ratio

    assert ratio("ethernet") / ratio("roce-ib") == pytest.approx(25 / 3, rel=1e-3)


def test_the_layout_search_weighs_the_all_reduce_it_cannot_hide(kb):
    """7B on 64 x 910B over Ethernet (3 GB/s), 128 sequences a step. At EFFECTIVE_PEAK_SHARE (50% of 280
    TFLOPS) a step computes 128 x 4096 x 46.93 GFLOP / 64 / 140 TFLOP/s = 2.746 s. Plain DP 64 all-reduces
    2 x 63/64 x 6.74e9 x 2 bytes / 3e9 = 8.85 s: 6.1 s beyond the compute, +222%. TP 4 x DP 16 all-reduces a
    quarter of the gradients over 16 ranks, 2 x 15/16 x 1.685e9 x 2 / 3e9 = 2.11 s, all of it under the
    compute: +10% (two tensor-parallel doublings). The search took plain DP 64 before it weighed the
    all-reduce."""
    data = team(6740, "Ascend 910B", 64)
    data["hardware"]["network"] = "ethernet"
    lay = projected(kb, data, "mindspore").memory.layout
    assert (lay.tensor_parallel, lay.pipeline_parallel, lay.data_parallel) == (4, 1, 16)
    t_compute = 128 * 4096 * (6 * 6.74e9 + 12 * 32 * 4096 * 4096) / 64 / (280e12 * 0.5)
    assert 2 * 15 / 16 * 6.74e9 / 4 * 2 / 3e9 < t_compute < 2 * 63 / 64 * 6.74e9 * 2 / 3e9
    assert lay.overhead == pytest.approx(2 * 0.05)


def test_the_communication_check_reads_the_global_batch(kb):
    """`workload.global_batch` is the step's batch: 1,024 sequences compute 8 x longer than the 128 of
    `batch_size`, and the ratio is 8 x smaller."""
    small = comm_ratio(kb, "roce-ib", batch_size=128)
    large = comm_ratio(kb, "roce-ib", batch_size=128, global_batch=1024)
    assert small / large == pytest.approx(8, rel=1e-3)


def test_the_communication_ratio_by_hand(kb):
    """7B, TP 1 x DP 64 over RoCE (25 GB/s): T_comm = 2 x 63/64 x 6.74e9 x 2 bytes / 25e9 = 1.0616 s;
    T_compute = 128 x 4096 x 46.93 GFLOP / 64 / (280e12 x MFU_high) with MFU_high = 0.6965 (the 7B row)."""
    p = projected(kb, team(6740, "Ascend 910B", 64), "mindspore")
    lay = p.memory.layout
    assert (lay.tensor_parallel, lay.pipeline_parallel, lay.data_parallel) == (1, 1, 64)
    flops = 6 * 6.74e9 + 12 * 32 * 4096 * 4096
    t_comm = 2 * 63 / 64 * 6.74e9 * 2 / 25e9
    t_compute = 128 * 4096 * flops / 64 / (280e12 * mfu_910b()["mf-7b"])
    assert p.communication.comm_compute_ratio == pytest.approx(t_comm / t_compute, rel=1e-3)


def test_the_mfu_never_exceeds_the_steps_own_communication_bound(kb):
    """On Ethernet the same 7B on 64 cards stays communication-bound at the references' MFU (ratio > 1 on
    its TP 4 x DP 16 layout): the fast end is at most the compute-only rate x 1 / ratio (full overlap)."""
    data = team(6740, "Ascend 910B", 64)
    data["hardware"]["network"] = "ethernet"
    p = projected(kb, data, "mindspore")
    ratio = p.communication.comm_compute_ratio
    assert ratio > 1
    compute_high = mfu_910b()["mf-7b"]
    assert p.mfu.high <= compute_high / ratio + 1e-4


def test_the_bound_is_a_share_of_the_rate_with_the_teams_recompute(kb):
    """One reference (Megatron's 1.7B-1T runs, MFU 33-39% with full recompute, widened +-25% around 36% as
    a single reference: 27-45%) for a 13B on 64 x A100 over Ethernet, no recompute: the team's compute-only
    rate is the reference's x (1 + 1/3) / (1 + the layout's recompute). The slow end is capped at that rate
    x 1 / (1 + ratio) (no overlap); the bound once took the reference's MFU without the correction."""
    held = kb.model_copy(update={"mfu_references": [r for r in kb.mfu_references if r.id == "megatron-1t-a100-fp16"]})
    data = team(13000, "A100 80GB", 64, "nvidia")
    data["hardware"]["network"] = "ethernet"
    p = projected(held, data, "pytorch")
    rec = (1 + 1 / 3) / (1 + p.memory.layout.recompute_overhead)
    ratio = p.communication.comm_compute_ratio
    assert any(f.name == "communication-bound" for f in p.time_factors)
    assert p.mfu.low == pytest.approx(0.36 * 0.75 * rec / (1 + ratio), abs=2e-4)


def test_a_reference_past_the_curves_last_point_is_not_scaled_along_it(kb):
    """Megatron's 2,240- and 3,072-device runs projected to 8,192 A100s: both are past the network curve's
    last point (512), where the curve knows nothing; a ring all-reduce's time does not grow with the ranks.
    No device-scaling factor (it once extrapolated the curve down to 12% of the references' rate); what
    the team's own step costs is its communication bound."""
    data = team(70000, "A100 80GB", 8192, "nvidia")
    p = projected(kb, data, "pytorch")
    assert not any(f.name == "device-scaling" for f in p.time_factors)
    assert p.communication.basis == "in-reference"


# --- failures, checkpoints, energy ------------------------------------------------------------------------------


def test_a_long_run_gets_its_failure_and_checkpoint_allowance_by_hand(kb):
    """14B on 64 x 910B for 2e11 tokens: rate = 419 / (54 x 24 x 16384) per device-hour (Llama 3) x 64;
    a checkpoint of 14e9 x 14 bytes (bf16 weights + fp32 master and moments) written by 8 hosts at 2 GB/s;
    Young's interval sqrt(2 C M); allowance = T x C / interval + (T / M) x (0.5 h + interval / 2)."""
    data = team(14000, "Ascend 910B", 64)
    data["workload"]["tokens"] = 2e11
    p = projected(kb, data, "mindspore")
    t = p.training_hours
    rate = 419 / (54 * 24 * 16384) * 64
    mtbi = 1 / rate
    c = 14e9 * 14 / GB / (8 * 2.0) / 3600
    interval = math.sqrt(2 * c * mtbi)

    def extra(hours):
        return hours * c / interval + hours / mtbi * (0.5 + interval / 2)

    assert p.failure_allowance_hours.low == pytest.approx(extra(t.low), rel=1e-3)
    assert p.failure_allowance_hours.high == pytest.approx(extra(t.high), rel=1e-3)
    assert p.time_to_train_hours.high == pytest.approx(t.high + extra(t.high), abs=2e-4)
    assert p.reliability.checkpoint_gb == pytest.approx(14e9 * 14 / GB)
    short = projected(kb, team(14000, "Ascend 910B", 64), "mindspore")  # 1e10 tokens: under three days
    assert short.failure_allowance_hours is None and short.time_to_train_hours == short.training_hours


def test_energy_is_the_servers_datasheet_power_at_a_typical_draw(kb):
    """8 x H100 in a DGX H100: 10.2 kW maximum (NVIDIA's user guide), drawn at 65-85% while training;
    never a one-point range, and twice the cards' own 8 x 700 W at the top."""
    p = projected(kb, team(7000, "H100", 8, "nvidia"))
    hours = p.time_to_train_hours
    assert p.energy_kwh.low == pytest.approx(10.2 * 0.65 * hours.low, rel=1e-3)
    assert p.energy_kwh.high == pytest.approx(10.2 * 0.85 * hours.high, rel=1e-3)
    assert p.energy_kwh.low < p.energy_kwh.high
    h100 = kb.find_accelerator("H100")
    assert power_budget_kw(fleet_power(h100), 16) == pytest.approx(20.4)
    # without a server figure: the cards x SERVER_POWER_PER_CARD_POWER (910B: 310 W x 1.8)
    assert fleet_power(kb.find_accelerator("Ascend 910B")).per_device_w == pytest.approx(310 * 1.8)


def test_references_measured_on_the_workflows_own_route_come_first(kb):
    """With the MindSpeed-LLM route named, the 7B on 8 x 910B is projected from the reference measured on that
    route (ModelLink/MindSpeed-LLM, 2,730 tokens/s/device), widened +-25% as a single reference; without a
    route, from every 910B reference (up to MindFormers' 4,160)."""
    mindspeed = training_route(["distributed-optimizer"], ["dp", "tp", "pp"]).model_copy(update={"id": "mindspeed-llm"})
    p = projected(kb, team(6740, "Ascend 910B", 8), training=mindspeed)
    assert p.tokens_per_second.high / 8 == pytest.approx(2730 * 1.25, rel=1e-3)
    assert p.tokens_per_second.low / 8 == pytest.approx(2730 * 0.75, rel=2e-3)
    assert projected(kb, team(6740, "Ascend 910B", 8)).tokens_per_second.high / 8 == pytest.approx(4160, rel=1e-3)
