"""The memory model's arithmetic, worked by hand: bytes per parameter, the shardings each published formula
offers, model states and activations per device, the overhead a layout is ranked by, and the layout
search on a job small enough to follow. Each expected number is written out with where it comes from, so a
changed operator, constant or bound in advisor/decision/memory.py fails by an assertion."""

from __future__ import annotations

from dataclasses import replace

import pytest

from advisor.decision.constants import DEFAULT
from advisor.decision.memory import (
    MemoryJob,
    StateBytes,
    allreduce_share,
    best_layout,
    bytes_per_parameter,
    fewest_devices,
    fitting_layouts,
    overhead,
    shardings,
    state_bytes,
    states_per_device,
    transformer_activations,
)
from advisor.decision.workload import Shape
from kill_inputs import h100_team


def test_the_constants_the_overheads_are_worked_with():
    assert (
        DEFAULT["TP_OVERHEAD_PER_DOUBLING"],
        DEFAULT["ZERO3_OVERHEAD"],
        DEFAULT["RECOMPUTE_SELECTIVE_SHARE"],
        DEFAULT["DEVICES_PER_HOST"],
    ) == (0.05, 0.1, 0.1, 8.0)


# ---- bytes per trained parameter (ZeRO paper §3) --------------------------------------------------------


@pytest.mark.parametrize(
    "precision, optimizer, low, parts, total, replicated",
    [
        # 16-bit weights and gradients, fp32 master copy + two fp32 Adam moments: 2 + 2 + (4 + 8) = 16
        ("bf16", "adam", False, (2.0, 2.0, 12.0, 2.0), 16.0, 4.0),
        ("mixed", "sgd-momentum", False, (2.0, 2.0, 8.0, 2.0), 12.0, 4.0),  # master + one moment
        ("bf16", "sgd", False, (2.0, 2.0, 4.0, 2.0), 8.0, 4.0),  # the master copy only
        # low-precision states: no master, 16-bit moments: 2 + 2 + 2 x 2 = 8
        ("bf16", "adam", True, (2.0, 2.0, 4.0, 2.0), 8.0, 4.0),
        # fp32: everything 4 bytes, the weights are their own master: 4 + 4 + 4 x 2 = 16
        ("fp32", "adam", False, (4.0, 4.0, 8.0, 4.0), 16.0, 8.0),
        ("fp32", "sgd-momentum", True, (4.0, 4.0, 4.0, 4.0), 12.0, 8.0),  # fp32 ignores low-precision
    ],
)
def test_bytes_per_parameter_of_each_precision_and_optimizer(precision, optimizer, low, parts, total, replicated):
    b = state_bytes(precision, optimizer, low)
    assert (b.weights, b.gradients, b.optimizer, b.frozen) == parts
    assert b.total == total
    assert bytes_per_parameter(precision, optimizer, low) == (total, replicated)


def test_a_frozen_width_given_is_kept_in_every_precision():
    assert state_bytes("bf16", "adam", False, 0.5).frozen == 0.5
    assert state_bytes("bf16", "adam", True, 1.0).frozen == 1.0
    assert state_bytes("fp32", "adam", False, 0.5).frozen == 0.5


# ---- the shardings each formula offers ----------------------------------------------------------------
_BF16_ADAM = StateBytes(2.0, 2.0, 12.0, 2.0)
_FP32_ADAM = StateBytes(4.0, 4.0, 8.0, 4.0)


def _table(formula: str, b: StateBytes, precision: str) -> list[tuple]:
    return [
        (sh.formula, sh.stage, sh.replicated, sh.sharded, sh.frozen_sharded, sh.gathered_layers)
        for sh in shardings(formula, b, precision)
    ]


def test_the_zero_paper_stages_for_mixed_precision_adam():
    """ZeRO paper, Figure 1: 16, 4 + 12/N, 2 + 14/N, 16/N (+ DeepSpeed's 4 x the largest layer gathered)."""
    assert _table("zero-paper", _BF16_ADAM, "bf16") == [
        ("zero-paper", 0, 16.0, 0.0, False, 0.0),
        ("zero-paper", 1, 4.0, 12.0, False, 0.0),
        ("zero-paper", 2, 2.0, 14.0, False, 0.0),
        ("zero-paper", 3, 0.0, 16.0, True, 4.0),
    ]
    assert _table("none", _BF16_ADAM, "bf16") == [("none", 0, 16.0, 0.0, False, 0.0)]


def test_deepspeeds_estimators_for_mixed_adam_and_the_paper_otherwise():
    """estimate_zero2_model_states_mem_needs: 4 + 16/N; ZeRO-3: 18/N; fp32 Adam is not what they are
    written for, so the paper's split of 4 + 4 + 8 is used."""
    assert _table("deepspeed", _BF16_ADAM, "bf16") == [
        ("deepspeed", 0, 16.0, 0.0, False, 0.0),
        ("deepspeed", 1, 4.0, 12.0, False, 0.0),
        ("deepspeed", 2, 4.0, 16.0, False, 0.0),
        ("deepspeed", 3, 0.0, 18.0, True, 4.0),
    ]
    assert _table("deepspeed", _FP32_ADAM, "fp32") == [
        ("deepspeed", 0, 16.0, 0.0, False, 0.0),
        ("deepspeed", 1, 8.0, 8.0, False, 0.0),
        ("deepspeed", 2, 4.0, 12.0, False, 0.0),
        ("deepspeed", 3, 0.0, 16.0, True, 4.0),
    ]


@pytest.mark.parametrize(
    "b, precision, plain, sharded",
    [
        (_BF16_ADAM, "bf16", 18.0, (6.0, 12.0)),  # bf16 parameters, fp32 main gradients: 6 + 12/d
        (_BF16_ADAM, "mixed", 20.0, (4.0, 16.0)),  # fp16: 4 + 16/d
        (_FP32_ADAM, "fp32", 16.0, (8.0, 8.0)),  # fp32: 8 + 8/d
        (StateBytes(2.0, 2.0, 4.0, 2.0), "bf16", 8.0, (4.0, 4.0)),  # not Adam: the ZeRO-1 split of 2 + 2 + 4
    ],
)
def test_megatrons_distributed_optimizer(b, precision, plain, sharded):
    assert _table("megatron", b, precision) == [
        ("megatron", 0, plain, 0.0, False, 0.0),
        ("megatron", 1, *sharded, False, 0.0),
    ]


def test_mindspores_optimizer_parallel_levels():
    assert _table("mindspore", _BF16_ADAM, "bf16") == [
        ("mindspore", 0, 16.0, 0.0, False, 0.0),
        ("mindspore", 1, 4.0, 12.0, False, 0.0),
        ("mindspore", 2, 2.0, 14.0, False, 0.0),
        ("mindspore", 3, 0.0, 16.0, True, 4.0),
    ]


# ---- model states per device ---------------------------------------------------------------------------


def test_model_states_per_device_under_each_zero_stage():
    """1e9 parameters cut TP 2 x PP 2 ways: 2.5e8 per device; over 4 data-parallel ranks: stage 0 16 bytes
    each, stage 1 4 + 12/4, stage 2 2 + 14/4, stage 3 16/4."""
    per = [states_per_device(1e9, _BF16_ADAM, 1.0, 2, 2, 4, zero) for zero in range(4)]
    assert per == [pytest.approx(x) for x in (4.0e9, 1.75e9, 1.375e9, 1.0e9)]


def test_model_states_per_device_with_a_frozen_base():
    """A quarter trained: 6.25e7 trained parameters per device at the stage's bytes, 1.875e8 frozen at 2
    bytes, cut 4 ways only at stage 3 (where the weights are sharded): stage 1 6.25e7 x 7 + 3.75e8; stage
    3 6.25e7 x 4 + 3.75e8 / 4."""
    assert states_per_device(1e9, _BF16_ADAM, 0.25, 2, 2, 4, 1) == pytest.approx(4.375e8 + 3.75e8)
    assert states_per_device(1e9, _BF16_ADAM, 0.25, 2, 2, 4, 3) == pytest.approx(2.5e8 + 9.375e7)


# ---- activations (Korthikanti et al. 2022) -------------------------------------------------------------
_SHAPE = Shape(layers=4, hidden=1024, heads=8, sequence=2048, vocabulary=32000, derived=[])
# s b h = 2048 x 1024 = 2,097,152 per sample; the output layer 4 s (h + v) = 8192 x 33,024 = 270,532,608.
_SBH, _OUT = 2048 * 1024, 4 * 2048 * (1024 + 32000)


def test_activations_without_recompute_keep_the_attention_scores():
    """s b h (34 + 5 a s / h) = 2,097,152 x (34 + 5 x 8 x 2048 / 1024 = 80) per layer, 4 layers, + the
    output layer: 1,226,833,920 bytes; tensor parallel 2 halves all of it."""
    assert _SBH * (34 + 80) * 4 + _OUT == 1_226_833_920
    assert transformer_activations(_SHAPE, 1, 1, "none", False) == 1_226_833_920
    assert transformer_activations(_SHAPE, 1, 2, "none", False) == 613_416_960
    assert transformer_activations(_SHAPE, 2, 1, "none", False) == 2 * 1_226_833_920  # linear in the micro-batch


def test_activations_with_selective_recompute_or_flash_attention_drop_the_score_term():
    """34 s b h per layer: 71,303,168 x 4 + 270,532,608 = 555,745,280 bytes."""
    assert transformer_activations(_SHAPE, 1, 1, "selective", False) == 555_745_280
    assert transformer_activations(_SHAPE, 1, 1, "none", True) == 555_745_280
    assert transformer_activations(_SHAPE, 1, 4, "selective", True) == 555_745_280 / 4


def test_activations_with_full_recompute_keep_each_layers_input():
    """2 s b h per layer: 4,194,304 x 4 + 270,532,608 = 287,309,824 bytes."""
    assert transformer_activations(_SHAPE, 1, 1, "full", False) == 287_309_824
    assert transformer_activations(_SHAPE, 1, 1, "full", True) == 287_309_824


# ---- the overhead a layout is ranked by ----------------------------------------------------------------
# A 1e9-parameter job, bf16 Adam, 64 sequences a step; one step is 6.4e15 FLOPs and a device does 1e14 FLOP/s;
# 1e11 bytes/s per device within a host (8 devices), 1e10 between hosts; 2-byte gradients.
_JOB = MemoryJob(
    params=1e9,
    bytes=_BF16_ADAM,
    trainable_share=1.0,
    shape=_SHAPE,
    micro_batch=1,
    recompute=None,
    flash_attention=False,
    largest_layer=32000 * 1024,  # the embedding, v x h, is larger than a layer's 4 h^2
    max_tp=8,
    global_batch=64,
    formulas=("zero-paper",),
    tensor=False,
    pipeline=False,
    step_flops=6.4e15,
    device_flops=1e14,
    link_within=1e11,
    link_between=1e10,
)


def test_the_all_reduce_share_within_one_host():
    """8 ranks in one host: 2 x 7/8 x 2e9 bytes of gradients / 1e11 B/s = 0.035 s against 6.4e15 / 8 /
    1e14 = 8 s of compute: 0.004375. A sharding that gathers the weights moves 1.5 x that."""
    assert allreduce_share(_JOB, 1, 1, 8) == pytest.approx(0.004375)
    assert allreduce_share(_JOB, 1, 1, 8, gathers_weights=True) == pytest.approx(0.004375 * 1.5)


def test_the_all_reduce_share_across_hosts_and_with_experts():
    """TP 2 x DP 8 = 16 devices, past one host: 1e9 / 2 x 2 bytes = 1e9 bytes, 2 x 7/8 x 1e9 / 1e10 =
    0.175 s against 6.4e15 / 16 / 1e14 = 4 s: 0.04375. With 4e8 of the parameters in experts cut 4 ways:
    (6e8 + 1e8) x 2 bytes on one host of 8: 2 x 7/8 x 1.4e9 / 1e11 = 0.0245 s / 8 s."""
    assert allreduce_share(_JOB, 2, 1, 8) == pytest.approx(0.04375)
    assert allreduce_share(_JOB, 1, 2, 8) == pytest.approx(0.04375)
    moe = replace(_JOB, expert_params=4e8, experts=8)
    assert allreduce_share(moe, 1, 1, 8, ep=4) == pytest.approx(0.0245 / 8)
    lora = replace(_JOB, trainable_share=0.5, grad_bytes=4.0)  # half the gradients at twice the width
    assert allreduce_share(lora, 1, 1, 8) == pytest.approx(0.004375)


def test_no_all_reduce_share_without_data_parallelism_or_what_it_needs():
    assert allreduce_share(_JOB, 8, 1, 1) == 0.0
    assert allreduce_share(replace(_JOB, step_flops=0.0), 1, 1, 8) == 0.0
    assert allreduce_share(replace(_JOB, device_flops=0.0), 1, 1, 8) == 0.0
    assert allreduce_share(replace(_JOB, link_within=0.0), 1, 1, 8) == 0.0


def _sharding(stage: int):
    return shardings("zero-paper", _BF16_ADAM, "bf16")[stage]


def test_the_overhead_of_recompute_tensor_and_pipeline_parallelism():
    """TP 2, PP 2, DP 4, selective recompute: recompute 0.1 x 1/3 (RECOMPUTE_SELECTIVE_SHARE of a forward
    pass, a third of a step); TP one doubling, 0.05; 64 / (4 x 1) = 16 micro-batches, bubble 1/16;
    the all-reduce (0.0153) overlaps entirely: (1 + 1/30) x 1.05 x 1.0625 - 1."""
    cost, rec = overhead(_JOB, 2, 2, 4, _sharding(1), "selective")
    assert rec == pytest.approx(1 / 30)
    assert cost == pytest.approx((1 + 1 / 30) * 1.05 * 1.0625 - 1)
    cost, rec = overhead(_JOB, 4, 1, 2, _sharding(3), "full")  # 2 doublings of TP, ZeRO-3's 0.1
    assert (cost, rec) == (pytest.approx((1 + 1 / 3) * 1.1 * 1.1 - 1), pytest.approx(1 / 3))
    assert overhead(_JOB, 1, 1, 8, _sharding(0), "none") == (0.0, 0.0)


def test_the_pipeline_bubble_with_fewer_sequences_than_ranks_counts_one_micro_batch():
    """4 sequences over 8 data-parallel ranks: max(1, 4 / 8) = 1 micro-batch, bubble (4 - 1) / 1 = 3."""
    few = replace(_JOB, global_batch=4)
    assert overhead(few, 1, 4, 8, _sharding(0), "none")[0] == pytest.approx(3.0, abs=0.05)
    assert overhead(replace(few, step_flops=0.0), 1, 4, 8, _sharding(0), "none")[0] == 3.0


def test_an_all_reduce_longer_than_the_compute_shows_beyond_it():
    """A 1e8 B/s link: 2 x 7/8 x 2e9 / 1e8 = 35 s against 8 s of compute, share 4.375: 3.375 exposed."""
    slow = replace(_JOB, link_within=1e8)
    assert overhead(slow, 1, 1, 8, _sharding(0), "none") == (pytest.approx(3.375), 0.0)


# ---- the layout search ---------------------------------------------------------------------------------


def test_the_layouts_on_a_given_device_count_ranked_by_overhead():
    """Data parallel only, 2 devices, room for everything: 4 stages x 3 recompute modes. Ranked by overhead
    (none 0, selective 1/30, full 1/3, ZeRO-3 x 1.1 on top), then the sharding stage; the all-reduce
    overlaps."""
    found = fitting_layouts(_JOB, 2, 100e9)
    assert [(lay.zero_stage, lay.recompute) for lay in found] == [
        (0, "none"),
        (1, "none"),
        (2, "none"),
        (0, "selective"),
        (1, "selective"),
        (2, "selective"),
        (3, "none"),
        (3, "selective"),
        (0, "full"),
        (1, "full"),
        (2, "full"),
        (3, "full"),
    ]
    assert [lay.overhead for lay in found[6:9]] == [0.1, round(1.1 * 31 / 30 - 1, 4), round(1 / 3, 4)]
    assert len(fitting_layouts(_JOB, 2, 100e9, limit=5)) == 5


def test_a_layout_holds_its_states_and_activations_per_device():
    """Stage 0 on 2 devices: 16 bytes x 1e9 = 16 GB of states + 1.2268 GB of activations = 17.227 GB.
    It fits 17.3 GB, not 17.2 GB (the sum is compared, not either part)."""
    first = fitting_layouts(_JOB, 2, 100e9)[0]
    assert (first.states_gb, first.activations_gb, first.per_device_gb) == (16.0, 1.227, 17.227)
    assert (first.data_parallel, first.devices, first.fits, first.micro_batch) == (2, 2, True, 1)
    assert first.overhead == 0.0  # the all-reduce (2 x 1/2 x 2e9 / 1e11 s against 32 s) overlaps
    alone = replace(_JOB, formulas=("none",), recompute="none")
    assert [lay.per_device_gb for lay in fitting_layouts(alone, 2, 17.3e9)] == [17.227]
    assert fitting_layouts(alone, 2, 17.2e9) == []
    assert best_layout(alone, 2, 17.2e9) is None


def test_the_fewest_devices_take_the_least_overhead_among_the_layouts_that_fit_them():
    """10 GB usable. ZeRO-2 with selective recompute needs 2 + 14/d GB of states + 0.5557 GB: d = 2 gives
    9.5557 GB (fits); ZeRO-1 needs 4 + 12/d + 0.5557: d = 3; ZeRO-3 fits d = 2 too, but costs 0.1 where
    selective recompute costs 1/30. On 2 devices: 9 GB of states + 0.556 GB."""
    least = fewest_devices(_JOB, 10e9)
    assert (least.devices, least.zero_stage, least.recompute) == (2, 2, "selective")
    assert (least.states_gb, least.activations_gb, least.per_device_gb) == (9.0, 0.556, 9.556)
    assert (least.overhead, least.recompute_overhead, least.fits) == (0.0333, 0.0333, True)
    assert best_layout(_JOB, 1, 10e9) is None  # 16 GB of states alone on one device


def test_the_fewest_devices_of_a_sharding_solve_the_per_device_need_for_the_data_parallel_degree():
    """ZeRO-1 only (Megatron's distributed optimizer for fp32-free 2 + 2 + 12: 6 + 12/d), no recompute
    choice ("none": 1.2268 GB): 6 + 12/d + 1.2268 <= 10 first at d = ceil(12 / 2.7732) = 5."""
    megatron = replace(_JOB, formulas=("megatron",), recompute="none")
    least = fewest_devices(megatron, 10e9)
    assert (least.devices, least.zero_stage) == (5, 1)
    assert least.states_gb == pytest.approx(6 + 12 / 5)
    assert fewest_devices(replace(megatron, formulas=("none",)), 10e9) is None  # 17.2 GB whole, never less


def test_tensor_parallelism_stays_inside_a_host_and_divides_the_heads():
    """No sharding, no recompute: 17.2268 GB / t per device; in 3 GB only t = 8 fits (2.153 GB), with its
    three doublings' overhead 0.15. Not with max_tp 4, nor with 6 heads (8 does not divide them)."""
    tp = replace(_JOB, formulas=("none",), recompute="none", tensor=True)
    (only,) = fitting_layouts(tp, 8, 3e9)
    assert (only.tensor_parallel, only.data_parallel, only.states_gb, only.per_device_gb) == (8, 1, 2.0, 2.153)
    assert only.overhead == 0.15
    least = fewest_devices(tp, 3e9)
    assert (least.tensor_parallel, least.devices) == (8, 8)
    assert fitting_layouts(replace(tp, max_tp=4), 8, 3e9) == []
    assert fitting_layouts(replace(tp, shape=replace(_SHAPE, heads=6)), 8, 3e9) == []


def test_pipeline_stages_are_at_most_the_layers():
    """PP only, no sharding: 17.2268 GB / p of states and activations (the first stage keeps L layers'
    worth of activations: Korthikanti §4.2.3, so only the states shrink): 16/p + 1.2268 <= 6 GB first at
    p = 4 = the layers; 8 stages would be more than the 4 layers."""
    pp = replace(_JOB, formulas=("none",), recompute="none", pipeline=True)
    least = fewest_devices(pp, 6e9)
    assert (least.pipeline_parallel, least.devices, least.states_gb) == (4, 4, 4.0)
    assert fewest_devices(pp, 3e9) is None  # 16/4 + 1.2268 > 3 GB, and p = 8 > 4 layers


# ---- the fit of a model with a per-sample activation figure --------------------------------------------
# An H100 has no usable_memory_gb in the knowledge base: 80 GiB x USABLE_MEMORY_NVIDIA 0.93 = 79.886 GB.
_H100_USABLE = 80 * 2**30 / 1e9 * 0.93


@pytest.fixture(scope="module")
def h100_route():
    from types import SimpleNamespace

    import knowledge

    (acc,) = [a for a in knowledge.load().accelerators if a.id == "h100"]
    assert (acc.usable_memory_gb, acc.memory_gb.value, DEFAULT["USABLE_MEMORY_NVIDIA"]) == (None, 80.0, 0.93)
    return SimpleNamespace(accelerator=acc, training=None)


def _fit(route, family: str, params_m: float, devices: int, batch: int):
    import knowledge

    from advisor.decision.memory import memory_fit

    req = h100_team(
        name="vision",
        devices=devices,
        model={"family": family, "parameters_millions": params_m, "source": "pytorch-code"},
        workload={"model": "custom", "gflops_per_sample": 10.0, "dataset_samples": 100000, "batch_size": batch},
    )
    return memory_fit(route, req, knowledge.load())


def test_a_small_cnn_fits_plain_data_parallel(h100_route):
    """25.6 M parameters, a CNN's defaults fp32 SGD with momentum (4 + 4 + 4 = 12 bytes) and 100 MB a
    sample: 0.3072 GB of states; 256 a step over 8 devices is 32 each: 0.3072 + 3.2 = 3.507 GB. ZeRO-2
    keeps the 4-byte weights whole and cuts 8 bytes 8 ways: 0.1024 + 0.2048 / 8 + 3.2 = 3.328; ZeRO-3 keeps
    4 x LARGEST_LAYER_SHARE (2%) of the parameters whole: 0.002048 + 0.3072 / 8 + 3.2 = 3.24."""
    fit = _fit(h100_route, "cnn", 25.6, 8, 256)
    assert (fit.precision, fit.optimizer, fit.bytes_per_parameter) == ("fp32", "sgd-momentum", 12.0)
    assert (fit.usable_gb, fit.states_gb, fit.activation_gb_per_sample) == (round(_H100_USABLE, 2), 0.307, 0.1)
    assert (fit.batch_per_device, fit.data_parallel_gb, fit.checkpoint_gb) == (32, 3.507, 0.205)  # 4 + 4 bytes
    assert [(s.strategy, s.per_device_gb, s.fits, s.min_devices) for s in fit.strategies] == [
        ("data-parallel", 3.507, True, 1),
        ("optimizer-sharding", 3.328, True, 1),
        ("model-parallel", 3.24, True, 1),
    ]
    assert (fit.strategy, fit.min_devices, fit.must_split, fit.micro_batch) == ("data-parallel", 1, False, None)


def test_a_large_model_is_sharded_and_its_fewest_devices_solved_for(h100_route):
    """10,000 M parameters of fp32 Adam (16 bytes): 160 GB, more than one device (must split). ZeRO-2 on
    8: 40 GB whole + 120 / 8 + 16 samples x 0.1 = 56.6 GB; its fewest devices ceil(120 / (79.886 - 40 -
    0.1)) = 4. ZeRO-3: 0.8 + 160 / 8 + 1.6 = 22.4 GB, fewest ceil(160 / (79.886 - 0.8 - 0.1)) = 3."""
    fit = _fit(h100_route, "other", 10000, 8, 128)
    assert (fit.states_gb, fit.must_split, fit.strategy, fit.min_devices) == (160.0, True, "optimizer-sharding", 3)
    assert [(s.strategy, s.per_device_gb, s.fits, s.min_devices) for s in fit.strategies] == [
        ("data-parallel", 161.6, False, None),
        ("optimizer-sharding", 56.6, True, 4),
        ("model-parallel", 22.4, True, 3),
    ]
    assert fit.micro_batch is None


def test_a_per_device_batch_too_large_runs_in_micro_batches(h100_route):
    """2048 a step over 8 is 256 samples, 25.6 GB: ZeRO-2's 55 GB + 25.6 > 79.886 GB, so micro-batches of
    (79.886 - 55) / 0.1 = 248 samples with gradient accumulation."""
    fit = _fit(h100_route, "other", 10000, 8, 2048)
    assert fit.strategy == "optimizer-sharding"
    assert fit.micro_batch == int((_H100_USABLE * 1e9 - 55e9) // 1e8) == 248


def test_too_few_devices_do_not_fit_and_say_how_many_would(h100_route):
    """On 2: ZeRO-2 40 + 60 GB, ZeRO-3 0.8 + 80 GB, both past 79.886: does not fit, at least 3."""
    from advisor.decision.memory import blocks

    fit = _fit(h100_route, "other", 10000, 2, 128)
    assert (fit.strategy, fit.min_devices) == ("does-not-fit", 3)
    assert [s.fits for s in fit.strategies] == [False, False, False]
    assert blocks(fit) is not None and blocks(_fit(h100_route, "other", 10000, 8, 128)) is None


# ---- the fit of a transformer through its route ---------------------------------------------------------


def _llm_fit(route, devices: int = 8, **model):
    import knowledge

    from advisor.decision.memory import memory_fit

    req = h100_team(
        name="llm",
        devices=devices,
        model={
            "family": "transformer",
            "parameters_millions": 1300,
            "source": "pytorch-code",
            "layers": 24,
            "hidden_size": 2048,
            "attention_heads": 16,
            "sequence_length": 2048,
            "vocabulary": 50257,
            **model,
        },
        workload={"model": "transformer", "tokens": 1e10, "global_batch": 64},
    )
    return memory_fit(route, req, knowledge.load())


# 1.3e9 parameters of bf16 Adam: 16 bytes, 20.8 GB of states; a checkpoint keeps the 2-byte weights and the
# 12 bytes of master and moments: 18.2 GB. Activations of one sequence with fused (flash) attention, the
# default: 34 x 2048 x 2048 x 24 layers + 4 x 2048 x (2048 + 50,257) = 3,422,552,064 + 428,482,560 = 3.851 GB.


def test_a_transformer_that_fits_one_device_trains_data_parallel(h100_route):
    """On 8: whole replicas, 20.8 + 3.851 = 24.651 GB; ZeRO-2 would hold 1.3 x (2 + 14 / 8) = 4.875 GB of
    states, 8.726 GB; the least overhead is plain data parallel, no recompute; one device holds it."""
    fit = _llm_fit(h100_route)
    assert (fit.bytes_per_parameter, fit.states_gb, fit.checkpoint_gb) == (16.0, 20.8, 18.2)
    assert (fit.activation_gb_per_sample, fit.batch_per_device, fit.data_parallel_gb) == (3.851, 1, 24.651)
    assert [(s.strategy, s.per_device_gb, s.fits) for s in fit.strategies] == [
        ("data-parallel", 24.651, True),
        ("optimizer-sharding", 8.726, True),
        ("model-parallel", 24.651, True),
    ]
    lay = fit.layout
    assert (lay.tensor_parallel, lay.pipeline_parallel, lay.data_parallel, lay.zero_stage, lay.recompute) == (
        1,
        1,
        8,
        0,
        "none",
    )
    assert (fit.strategy, fit.must_split, fit.min_devices, fit.min_layout.devices) == ("data-parallel", False, 1, 1)
    assert fit.shape.layers == 24 and fit.shape.derived == []


def test_a_transformer_too_large_for_one_device_must_split(h100_route):
    """13,000 M parameters hold 208 GB of states: more than one H100's 79.886 GB, so the model must be split
    (at least 3 devices), and plain data parallel does not fit."""
    fit = _llm_fit(h100_route, parameters_millions=13000, recompute="full")
    assert (fit.states_gb, fit.must_split) == (208.0, True)
    assert fit.layout is not None and fit.layout.per_device_gb <= round(_H100_USABLE, 3)
    assert fit.min_devices is not None and fit.min_devices * 79.886 > 208.0
    assert (fit.strategies[0].strategy, fit.strategies[0].fits) == ("data-parallel", False)
