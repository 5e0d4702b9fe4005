"""Memory fit: does the model train on the target's devices, and how must it be split?

From `model.parameters_millions` (and the optional `precision`, `optimizer`, `optimizer_states`,
`fine_tune`, `base_weights_precision`, the mixture-of-experts fields, the transformer shape and
`activation_mb_per_sample`, with per-family defaults), the training memory per device (model states,
activations at the micro-batch) against the device's *usable* memory.

Units: every figure here is in GB (10^9 bytes). Device capacities are binary: the knowledge base's
`memory_gb` and `usable_memory_gb` are the vendor's figure in GiB (an "80 GB" HBM part holds 80 GiB,
npu-smi prints a 910B's 64 GB as 65,536 MB), converted once, here (`usable_memory`).

Model states: mixed-precision Adam, fp16 or bf16, keeps 2 (weights) + 2 (gradients) + 12 (fp32
master, momentum, variance) = 16 bytes per trained parameter (Rajbhandari et al. 2020, the ZeRO paper,
§3); how much of it each data-parallel rank holds depends on the sharding the route uses, each under
its own published formula (`shardings`), and the report names the one it used (`MemoryFit.formula`):
- the ZeRO paper (Figure 1): ZeRO-1 4 + 12/N, ZeRO-2 2 + 14/N, ZeRO-3 16/N (no route stated);
- DeepSpeed's estimators (`estimate_zero2_model_states_mem_needs`: 4 + 16/N; ZeRO-3: 18/N + 4 x the
  largest layer), for routes that shard with ZeRO (DeepSpeed, FSDP);
- Megatron's distributed optimizer (Megatron Core developer guide, "Distributed Optimizer": bf16
  parameters with fp32 main gradients 6 + 12/d, fp16 4 + 16/d, fp32 8 + 8/d; 18, 20, 16 without it),
  for Megatron and MindSpeed routes;
- MindSpore's optimizer parallel (MindSpore docs, "Optimizer Parallel", `AutoParallel.hsdp`'s
  `optimizer_level`: level1 shards the weights and optimizer states over the data-parallel group, the
  16-bit weights gathered whole for the forward and kept for the backward, 4 + 12/d as ZeRO-1; level2
  shards the gradients too, 2 + 14/d; level3 gathers the weights again before the backward so that
  only the layers in flight are whole, 16/d + the gathered layers as ZeRO-3), for MindSpore
  Transformers routes.
LoRA and QLoRA: the frozen base at its own width (`base_weights_precision`: int4 at 4.127 bits with
QLoRA's double quantisation, int8 1 byte, bf16/fp16 2) and the adapters' share at the full count.
A mixture of experts holds every expert (`parameters_millions`); expert parallelism cuts the experts
over the data-parallel ranks and their states over the rest.

Transformer activations follow Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
Transformer Models", §4 and Table 2), per layer and 16-bit activations: s b h (34 + 5 a s / h) bytes
without recompute, the 5 a s / h score term gone with selective recompute or fused (flash) attention,
2 s b h with full recompute (the layer's input only); tensor parallel with sequence parallel divides
all of it by t; 1F1B pipeline parallel keeps the first stage at p micro-batches of L/p layers, the
same L layers' worth (§4.2.3); plus the output layer's 4 s b (h + v) / t. A mixture of experts is
counted as the dense model of its active size. Other families keep a per-sample figure
(`activation_mb_per_sample`, with per-family defaults).

The layout search tries tensor x pipeline x data (x expert) parallel, every sharding the route
supports and each recompute mode, and keeps the fitting layout with the least estimated step-time
overhead (`overhead`): full recompute adds a forward pass (a third of a dense step's FLOPs, half of a
LoRA step's), selective a tenth of that, each tensor-parallel doubling TP_OVERHEAD_PER_DOUBLING, the
pipeline its 1F1B bubble (p - 1) / m, ZeRO-3 ZERO3_OVERHEAD, and the data-parallel all-reduce the part
of its time beyond the step's compute (`allreduce_share`; the rest overlaps the backward pass): without
it the search took the widest data parallelism, ZeRO-3 over thousands of ranks each exchanging the whole
model's gradients. It says which it chose and what it beat.

The seeds' first criterion for the full-stack route is whether the model fits one device (seed "Chips
and framework released together" §4.1): `must_split` says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.findings import said
from advisor.decision.constants import CONSTANTS, DEFAULT, Consts
from advisor.decision.evidence import Evidence, req_evidence, sourced_evidence
from advisor.decision.workload import Shape, active_parameters, inference_flops_per_token, model_shape
from advisor.decision.workload import train_flops_per_token, trainable_share
from advisor.requirements import ModelSpec, Requirements
from knowledge.models import Accelerator

Precision = Literal["fp32", "mixed", "bf16"]
Optimizer = Literal["adam", "sgd-momentum", "sgd"]
Recompute = Literal["none", "selective", "full"]
Strategy = Literal["data-parallel", "optimizer-sharding", "model-parallel", "does-not-fit", "unknown"]

# Bytes per trained parameter: weights, gradients, fp32 master copy, optimizer states. 16-bit
# training (mixed = fp16 with loss scaling, bf16) keeps the fp32 master and fp32 moments (ZeRO paper
# K = 12); `low-precision` optimizer states drop the master and keep 16-bit moments.
_OPTIMIZER_MOMENTS = {"adam": 2, "sgd-momentum": 1, "sgd": 0}
# Per-family defaults, all `assumption` (set the model fields to override):
#   precision/optimizer: transformers train 16-bit with Adam(W); CNNs in the seeds' runs fp32 SGD+momentum;
#   activations per sample for the non-transformer families: ResNet-50 at 224x224 fp32 ~100 MB/image
#   (batch 256 needs a 32 GB card), the others an order-of-magnitude guess. Transformers: Korthikanti.
FAMILY_DEFAULTS: dict[str, tuple[Precision, Optimizer, float]] = {
    "cnn": ("fp32", "sgd-momentum", 100.0),
    "transformer": ("bf16", "adam", 430.0),
    "rnn": ("fp32", "adam", 50.0),
    "gnn": ("fp32", "adam", 200.0),
    "other": ("fp32", "adam", 100.0),
}
GB = 1e9
GIB = 2**30
TP_DEGREES = (1, 2, 4, 8)
# ZeRO-3 moves 1.5x the data of a data-parallel all-reduce (Rajbhandari et al. 2020, §7.2.3)
ZERO3_VOLUME = 1.5
RECOMPUTE_ORDER: tuple[Recompute, ...] = ("none", "selective", "full")
# the sharding a route names (knowledge.models.RouteSupports.optimizer_sharding) -> the formula it follows
ROUTE_FORMULA = {"zero": "deepspeed", "distributed-optimizer": "megatron", "optimizer-parallel": "mindspore"}
# each formula's citation, worded by the catalogue
FORMULA_CODE = {
    "zero-paper": "mem.formula.zero_paper",
    "deepspeed": "mem.formula.deepspeed",
    "megatron": "mem.formula.megatron",
    "mindspore": "mem.formula.mindspore",
    "none": "mem.formula.none",
}


class StrategyFit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    strategy: Literal["data-parallel", "optimizer-sharding", "model-parallel"]
    per_device_gb: float = Field(
        description="training memory per device at the requirements' device count, every column at the same "
        "per-device batch (the micro-batch for transformers)"
    )
    fits: bool
    min_devices: Optional[int] = Field(None, description="fewest devices on which this strategy fits (null: none)")


class Layout(BaseModel):
    """A parallel layout and what it holds per device."""

    model_config = ConfigDict(extra="forbid")

    tensor_parallel: int
    pipeline_parallel: int
    data_parallel: int
    expert_parallel: int = Field(1, description="experts cut over this many data-parallel ranks (mixture of experts)")
    zero_stage: int = Field(
        description="0 none, 1 optimizer states, 2 + gradients, 3 + weights sharded over data parallel "
        "(the distributed optimizer and MindSpore's optimizer parallel count as 1)"
    )
    sharding: str = Field("none", description="how the model states are sharded, in the route's own words")
    formula: str = Field("zero-paper", description="zero-paper | deepspeed | megatron | mindspore | none")
    recompute: Recompute
    micro_batch: int
    states_gb: float = Field(description="model states per device")
    activations_gb: float = Field(description="activations per device at the micro-batch")
    per_device_gb: float
    fits: bool
    overhead: float = Field(0.0, description="estimated step-time overhead the search ranked by (0.05 = 5% slower)")
    recompute_overhead: float = Field(0.0, description="the recompute part of it: extra compute per step")

    @property
    def devices(self) -> int:
        return self.tensor_parallel * self.pipeline_parallel * self.data_parallel

    @property
    def text(self) -> str:
        return said(
            "mem.layout",
            tp=self.tensor_parallel,
            pp=self.pipeline_parallel,
            dp=self.data_parallel,
            ep=self.expert_parallel,
            sharding=self.sharding,
            recompute=self.recompute,
            micro_batch=self.micro_batch,
        )


class TransformerShapeFit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    layers: int
    hidden: int
    heads: int
    sequence: int
    vocabulary: int
    derived: list[str] = Field(default_factory=list, description="fields derived from the size, with their source")


class MemoryFit(BaseModel):
    """Training memory per device against the device's usable memory (all figures GB, 10^9 bytes)."""

    model_config = ConfigDict(extra="forbid")

    accelerator: Optional[str] = None
    devices: int
    usable_gb: Optional[float] = Field(None, description="usable memory per device (GB, 10^9 bytes)")
    usable_basis: str = ""
    parameters_millions: float
    precision: str
    optimizer: str
    bytes_per_parameter: float = Field(description="model-state bytes per parameter (trainable and frozen averaged)")
    states_gb: float = Field(description="model states of the whole model (GB)")
    activation_gb_per_sample: float
    batch_per_device: int
    data_parallel_gb: float = Field(description="per device with full replicas at the per-device batch")
    strategies: list[StrategyFit] = Field(default_factory=list)
    strategy: Strategy = Field(description="the simplest strategy that fits the requirements' devices")
    min_devices: Optional[int] = Field(None, description="fewest devices that hold the model at all")
    must_split: bool = Field(False, description="model states do not fit one device: sharding or model parallelism")
    micro_batch: Optional[int] = Field(
        None, description="largest per-device batch that fits under data parallelism, when below the batch"
    )
    fine_tune: str = Field("none", description="none, full, lora or qlora")
    trainable_share: float = Field(1.0, description="share of the parameters with gradients and optimizer states")
    base_weights_precision: Optional[str] = Field(None, description="lora/qlora: width of the frozen base")
    experts: Optional[int] = Field(None, description="mixture of experts: routed experts per MoE layer")
    formula: str = Field("", description="the model-state formula the figures follow, named for the footnote")
    checkpoint_gb: float = Field(
        0.0, description="a checkpoint: weights and optimizer states of the trained parameters"
    )
    shape: Optional[TransformerShapeFit] = Field(None, description="the transformer's shape (given or derived)")
    layout: Optional[Layout] = Field(None, description="recommended layout on the requirements' devices (transformers)")
    layout_why: str = Field("", description="why this layout: its overhead against the best one it beat")
    min_layout: Optional[Layout] = Field(None, description="the layout on min_devices (transformers)")
    notes: list[str] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)


@dataclass(frozen=True)
class StateBytes:
    """Bytes per parameter of each model-state part (trainable parameters), and of frozen ones."""

    weights: float
    gradients: float
    optimizer: float  # fp32 master copy + moments
    frozen: float

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer


def defaults_for(family: str) -> tuple[Precision, Optimizer, float]:
    return FAMILY_DEFAULTS.get(family, FAMILY_DEFAULTS["other"])


def state_bytes(
    precision: str, optimizer: str, low_precision_states: bool = False, frozen: Optional[float] = None
) -> StateBytes:
    moments = _OPTIMIZER_MOMENTS[optimizer]
    if precision == "fp32":
        return StateBytes(4.0, 4.0, 4.0 * moments, 4.0 if frozen is None else frozen)
    if low_precision_states:
        return StateBytes(2.0, 2.0, 2.0 * moments, 2.0 if frozen is None else frozen)
    return StateBytes(2.0, 2.0, 4.0 + 4.0 * moments, 2.0 if frozen is None else frozen)


def bytes_per_parameter(precision: str, optimizer: str, low_precision_states: bool = False) -> tuple[float, float]:
    """(model-state bytes per parameter, bytes replicated under ZeRO-2: the 16-bit weights and gradients
    as DeepSpeed's estimator counts them)."""
    b = state_bytes(precision, optimizer, low_precision_states)
    return b.total, b.weights + b.gradients


def base_weight_bytes(m: ModelSpec, precision: str, k: Consts = DEFAULT) -> tuple[float, Optional[str]]:
    """Bytes per frozen base parameter and its width: QLoRA's NF4 with double quantisation 4.127 bits
    (QLORA_NF4_BITS), int8 1 byte, bf16/fp16 2; full training has no frozen base."""
    if m.fine_tune not in ("lora", "qlora"):
        return (4.0 if precision == "fp32" else 2.0), None
    width = m.base_weights_precision or (
        "int4" if m.fine_tune == "qlora" else ("fp32" if precision == "fp32" else "bf16")
    )
    return {"int4": k["QLORA_NF4_BITS"] / 8, "int8": 1.0, "bf16": 2.0, "fp16": 2.0, "fp32": 4.0}[width], width


# --- how model states are held over the data-parallel ranks ------------------------------------------


@dataclass(frozen=True)
class Sharding:
    """One way of holding model states over data-parallel ranks, under one published formula: bytes per
    trained parameter every rank keeps whole and bytes cut dp ways, whether the frozen weights are cut
    too, and the largest layers gathered whole (ZeRO-3)."""

    formula: str
    stage: int
    label: str
    replicated: float
    sharded: float
    frozen_sharded: bool = False
    gathered_layers: float = 0.0


def _paper(b: StateBytes, formula: str = "zero-paper", stages: tuple[int, ...] = (0, 1, 2, 3)) -> list[Sharding]:
    w, g, o = b.weights, b.gradients, b.optimizer
    table = {
        0: Sharding(formula, 0, said("mem.sharding.none"), w + g + o, 0.0),
        1: Sharding(formula, 1, "ZeRO-1", w + g, o),
        2: Sharding(formula, 2, "ZeRO-2", w, g + o),
        3: Sharding(formula, 3, "ZeRO-3", 0.0, w + g + o, True, 4.0),
    }
    return [table[s] for s in stages]


def _mixed_adam(b: StateBytes) -> bool:
    return (b.weights, b.gradients, b.optimizer) == (2.0, 2.0, 12.0)


def shardings(formula: str, b: StateBytes, precision: str) -> list[Sharding]:
    """The shardings a formula offers, stage by stage (stage 0: every rank holds everything)."""
    if formula == "none":
        return _paper(b, "none", (0,))
    if formula == "deepspeed":
        if not _mixed_adam(b):  # the estimators are written for mixed-precision Adam only
            return _paper(b, "deepspeed")
        return [
            *_paper(b, "deepspeed", (0, 1)),
            Sharding("deepspeed", 2, "ZeRO-2", 4.0, 16.0),
            Sharding("deepspeed", 3, "ZeRO-3", 0.0, 18.0, True, 4.0),
        ]
    if formula == "megatron":
        if b.optimizer != 12.0 and not (precision == "fp32" and b.optimizer == 8.0):
            plain, sharded = b.total, (b.weights + b.gradients, b.optimizer)  # not Adam: the ZeRO-1 split
        elif precision == "fp32":
            plain, sharded = 16.0, (8.0, 8.0)
        elif precision == "mixed":
            plain, sharded = 20.0, (4.0, 16.0)
        else:  # bf16 parameters with fp32 main gradients (Megatron's default for bf16)
            plain, sharded = 18.0, (6.0, 12.0)
        return [
            Sharding("megatron", 0, said("mem.sharding.megatron_ddp"), plain, 0.0),
            Sharding("megatron", 1, said("mem.sharding.distributed_optimizer"), *sharded),
        ]
    if formula == "mindspore":
        w, g, o = b.weights, b.gradients, b.optimizer
        return [
            Sharding("mindspore", 0, said("mem.sharding.none"), w + g + o, 0.0),
            Sharding("mindspore", 1, said("mem.sharding.optimizer_parallel"), w + g, o),
            Sharding("mindspore", 2, said("mem.sharding.optimizer_parallel_gradients"), w, g + o),
            # level 3: the 16-bit weights gathered again before the backward pass instead of kept from the
            # forward one, so only the layers being computed are whole (counted as DeepSpeed's ZeRO-3
            # estimator counts them: 4 bytes x the largest layer)
            Sharding(
                "mindspore",
                3,
                said("mem.sharding.optimizer_parallel_weights"),
                0.0,
                w + g + o,
                True,
                4.0,
            ),
        ]
    return _paper(b)


def formulas_for(route: object) -> list[str]:
    """The formulas the workflow's training route names (knowledge.models.Route.supports), else the
    ZeRO paper's (no route stated)."""
    stack = getattr(route, "training", None)
    if stack is None:
        return ["zero-paper"]
    named = [ROUTE_FORMULA[s] for s in stack.supports.optimizer_sharding if s in ROUTE_FORMULA]
    return named or ["none"]


def parallelism_for(route: object, moe: bool) -> tuple[bool, bool, bool]:
    """(tensor, pipeline, expert) parallelism the training route supports; all (expert for a MoE) without one."""
    stack = getattr(route, "training", None)
    if stack is None:
        return True, True, moe
    kinds = set(stack.supports.parallelism)
    return "tp" in kinds, "pp" in kinds, moe and "ep" in kinds


# --- the arithmetic of one layout -----------------------------------------------------------------


def states_per_device(
    params: float, b: StateBytes, trainable_share: float, tp: int, pp: int, dp: int, zero: int
) -> float:
    """Model-state bytes per device under the ZeRO paper's stages: the model cut t x p ways, the ZeRO
    stage's parts cut dp ways (ZeRO paper, Figure 1: P_os 4 + 12/N, P_os+g 2 + 14/N, P_os+g+p 16/N)."""
    sh = _paper(b)[zero]
    return _states(params, 0.0, b, trainable_share, tp, pp, dp, 1, sh)


def _states(
    params: float, expert_params: float, b: StateBytes, share: float, tp: int, pp: int, dp: int, ep: int, sh: Sharding
) -> float:
    """Model-state bytes per device: dense parameters cut t x p ways and their sharded part over dp
    ranks; experts cut t x p x ep ways and their sharded part over the dp / ep ranks that hold each."""
    out = 0.0
    for local, ranks in (((params - expert_params) / (tp * pp), dp), (expert_params / (tp * pp * ep), dp / ep)):
        trained, frozen = local * share, local * (1.0 - share)
        out += trained * (sh.replicated + sh.sharded / ranks)
        out += b.frozen * frozen / (ranks if sh.frozen_sharded else 1)
    return out


def transformer_activations(shape: Shape, micro_batch: int, tp: int, recompute: str, flash_attention: bool) -> float:
    """Activation bytes per device (Korthikanti et al. 2022, with sequence parallel when t > 1)."""
    s, b, h, a, L, v = shape.sequence, micro_batch, shape.hidden, shape.heads, shape.layers, shape.vocabulary
    if recompute == "full":
        per_layer = 2.0 * s * b * h
    elif recompute == "selective" or flash_attention:
        per_layer = 34.0 * s * b * h
    else:
        per_layer = s * b * h * (34.0 + 5.0 * a * s / h)
    return (L * per_layer + 4.0 * s * b * (h + v)) / tp


def usable_memory(acc: Accelerator, k: Consts = DEFAULT) -> tuple[Optional[float], str, list[Evidence]]:
    """Usable GB (10^9 bytes) per device: the knowledge base's `usable_memory_gb`, else `memory_gb` less a
    reserve; both are the vendor's binary gigabytes (GiB), converted here."""
    usable = acc.usable_memory_gb
    if usable is not None:
        gb = usable.value * GIB / GB
        return (
            gb,
            said("mem.usable.stated", gib=usable.value, gb=gb),
            [sourced_evidence(acc.id, usable, said("mem.evidence.usable", accelerator=acc.name, gib=usable.value))],
        )
    mem = acc.memory_gb
    if mem is None:
        return None, said("mem.usable.none", accelerator=acc.name), []
    name = "USABLE_MEMORY_ASCEND" if acc.vendor == "huawei" else "USABLE_MEMORY_NVIDIA"
    share = k[name]
    gb = mem.value * GIB / GB * share
    basis = said(
        "mem.usable.reserve",
        gib=mem.value,
        gb=mem.value * GIB / GB,
        share=share,
        constant=name,
        source=CONSTANTS[name].source,
    )
    return gb, basis, [sourced_evidence(acc.id, mem, said("mem.evidence.memory", accelerator=acc.name, gib=mem.value))]


@dataclass(frozen=True)
class MemoryJob:
    """What the layout search needs, resolved from the requirements and the route."""

    params: float
    bytes: StateBytes
    trainable_share: float
    shape: Shape
    micro_batch: int
    recompute: Optional[str]  # None: the least that fits
    flash_attention: bool
    largest_layer: float  # parameters of the largest layer (ZeRO-3 gathers it)
    max_tp: int
    precision: str = "bf16"
    expert_params: float = 0.0  # parameters in routed experts (mixture of experts)
    experts: int = 1
    global_batch: int = 1  # sequences per optimizer step (the pipeline bubble's micro-batch count)
    formulas: tuple[str, ...] = ("zero-paper",)
    tensor: bool = True
    pipeline: bool = True
    expert: bool = False
    full_recompute_share: float = 1.0 / 3.0  # one forward pass over one training step's FLOPs
    step_flops: float = 0.0  # one optimizer step's model FLOPs (0: the all-reduce is not weighed)
    device_flops: float = 0.0  # FLOP/s of one device at EFFECTIVE_PEAK_SHARE of its peak
    link_within: float = 0.0  # bytes/s per device within a host
    link_between: float = 0.0  # bytes/s per device between hosts
    grad_bytes: float = 2.0


def _need(w: MemoryJob, tp: int, pp: int, dp: int, sh: Sharding, recompute: str, ep: int = 1) -> tuple[float, float]:
    """(model-state bytes, activation bytes) per device."""
    states = _states(w.params, w.expert_params, w.bytes, w.trainable_share, tp, pp, dp, ep, sh)
    states += sh.gathered_layers * w.largest_layer / tp  # DeepSpeed's ZeRO-3 estimator: 4 x the largest layer
    return states, transformer_activations(w.shape, w.micro_batch, tp, recompute, w.flash_attention)


def allreduce_share(
    w: MemoryJob, tp: int, pp: int, dp: int, ep: int = 1, k: Consts = DEFAULT, gathers_weights: bool = False
) -> float:
    """A layout's data-parallel all-reduce time over its compute time per step (no overlap): the ring
    all-reduce of each device's trained gradients, 2 (d - 1)/d x N / (t p) x bytes / link (experts cut ep
    ways more), against the step's FLOPs / devices at EFFECTIVE_PEAK_SHARE of peak; the link between
    hosts once the layout spans more than one. The same arithmetic as comm_compute's check, per layout:
    without it the search takes the widest data parallelism (ZeRO-3 over thousands of ranks) however
    many gradients each rank must exchange. A sharding that gathers the weights for every pass (ZeRO-3,
    MindSpore's level 3) moves 1.5x the data of the all-reduce (ZeRO paper §7.2.3: the weights gathered
    forward and backward, the gradients reduce-scattered)."""
    devices = tp * pp * dp
    bw = w.link_between if devices > k["DEVICES_PER_HOST"] else w.link_within
    if dp <= 1 or w.step_flops <= 0 or w.device_flops <= 0 or bw <= 0:
        return 0.0
    dense = (w.params - w.expert_params) / (tp * pp)
    experts = w.expert_params / (tp * pp * ep)
    grads = (dense + experts) * w.trainable_share * w.grad_bytes
    t_comm = 2 * (dp - 1) / dp * grads / bw * (ZERO3_VOLUME if gathers_weights else 1.0)
    return t_comm / (w.step_flops / devices / w.device_flops)


def overhead(
    w: MemoryJob, tp: int, pp: int, dp: int, sh: Sharding, recompute: str, k: Consts = DEFAULT, ep: int = 1
) -> tuple[float, float]:
    """(estimated step-time overhead of a layout, its recompute part) the search ranks layouts by."""
    rec = {"none": 0.0, "selective": k["RECOMPUTE_SELECTIVE_SHARE"] * w.full_recompute_share}.get(
        recompute, w.full_recompute_share
    )
    tp_cost = k["TP_OVERHEAD_PER_DOUBLING"] * math.log2(tp)
    micro_batches = max(1.0, w.global_batch / (dp * w.micro_batch))
    bubble = (pp - 1) / micro_batches  # 1F1B (Narayanan et al. 2021, §2.2)
    z3 = k["ZERO3_OVERHEAD"] if sh.frozen_sharded else 0.0
    # the all-reduce overlaps the backward pass (Megatron, FSDP and MindSpore all bucket it so): only the
    # part beyond the step's compute shows
    exposed = max(0.0, allreduce_share(w, tp, pp, dp, ep, k, sh.frozen_sharded) - 1.0)
    return (1 + rec) * (1 + tp_cost) * (1 + bubble) * (1 + z3) * (1 + exposed) - 1, rec


def _layout(
    w: MemoryJob,
    tp: int,
    pp: int,
    dp: int,
    sh: Sharding,
    recompute: str,
    usable: float,
    ep: int = 1,
    k: Consts = DEFAULT,
) -> Layout:
    states, act = _need(w, tp, pp, dp, sh, recompute, ep)
    cost, rec = overhead(w, tp, pp, dp, sh, recompute, k, ep)
    return Layout(
        tensor_parallel=tp,
        pipeline_parallel=pp,
        data_parallel=dp,
        expert_parallel=ep,
        zero_stage=sh.stage,
        sharding=sh.label,
        formula=sh.formula,
        recompute=recompute,  # type: ignore[arg-type]
        micro_batch=w.micro_batch,
        states_gb=round(states / GB, 3),
        activations_gb=round(act / GB, 3),
        per_device_gb=round((states + act) / GB, 3),
        fits=states + act <= usable,
        overhead=round(cost, 4),
        recompute_overhead=round(rec, 4),
    )


Candidate = tuple[int, int, int, Sharding, str]  # tp, pp, ep, sharding, recompute


def _candidates(w: MemoryJob) -> list[Candidate]:
    """Every (tp, pp, ep, sharding, recompute) the route allows; TP stays inside a host."""
    tps = [t for t in TP_DEGREES if t <= w.max_tp and w.shape.heads % t == 0] if w.tensor else [1]
    pps = [p for p in (2**i for i in range(12)) if p <= w.shape.layers] if w.pipeline else [1]
    eps = [e for e in (2**i for i in range(17)) if e <= w.experts and w.experts % e == 0] if w.expert else [1]
    recs = [w.recompute] if w.recompute else list(RECOMPUTE_ORDER)
    shs = [sh for f in w.formulas for sh in shardings(f, w.bytes, w.precision)]
    return [(t, p, e, sh, r) for t in tps for p in pps for e in eps for sh in shs for r in recs]


def _key(w: MemoryJob, t: int, p: int, dp: int, sh: Sharding, r: str, e: int, k: Consts) -> tuple:
    """How layouts are ranked: the least estimated overhead, then the least model parallelism, the
    lowest sharding stage, the fewest pipeline stages."""
    return (round(overhead(w, t, p, dp, sh, r, k, e)[0], 9), t * p * e, sh.stage, p)


def fitting_layouts(w: MemoryJob, devices: int, usable: float, k: Consts = DEFAULT, limit: int = 16) -> list[Layout]:
    """The layouts that fit exactly `devices` (t x p x dp = devices, ep dividing dp), best first (at most `limit`)."""
    found = []
    for t, p, e, sh, r in _candidates(w):
        if devices % (t * p) or (devices // (t * p)) % e:
            continue
        dp = devices // (t * p)
        if sum(_need(w, t, p, dp, sh, r, e)) <= usable:
            found.append((_key(w, t, p, dp, sh, r, e, k), (t, p, dp, sh, r, e)))
    found.sort(key=lambda f: f[0])
    return [_layout(w, t, p, dp, sh, r, usable, e, k) for _, (t, p, dp, sh, r, e) in found[:limit]]


def best_layout(w: MemoryJob, devices: int, usable: float, k: Consts = DEFAULT) -> Optional[Layout]:
    """The layout with the least estimated overhead that fits exactly `devices`, or None."""
    found = fitting_layouts(w, devices, usable, k, limit=1)
    return found[0] if found else None


def _fewest_dp(w: MemoryJob, t: int, p: int, e: int, sh: Sharding, r: str, usable: float) -> Optional[int]:
    """The smallest data-parallel degree (a multiple of ep) on which the layout fits. Per-device need is
    fixed + sharded / dp (the experts' part over dp / ep): solved for dp, then checked at the edge."""
    fixed = sum(_need(w, t, p, 2**50, sh, r, e))
    room = usable - fixed
    if room <= 0:
        return None
    sharded = (sum(_need(w, t, p, e, sh, r, e)) - fixed) * e
    dp = max(e, math.ceil(sharded / room / e - 1e-9) * e)
    while sum(_need(w, t, p, dp, sh, r, e)) > usable:  # float rounding at the edge
        dp += e
    return dp


def fewest_devices(w: MemoryJob, usable: float, k: Consts = DEFAULT) -> Optional[Layout]:
    """The layout on the fewest devices that holds the model (the least overhead among equals)."""
    best: Optional[tuple[tuple, tuple]] = None
    for t, p, e, sh, r in _candidates(w):
        dp = _fewest_dp(w, t, p, e, sh, r, usable)
        if dp is None:
            continue
        key = (t * p * dp, _key(w, t, p, dp, sh, r, e, k))
        if best is None or key < best[0]:
            best = (key, (t, p, dp, sh, r, e))
    if best is None:
        return None
    t, p, dp, sh, r, e = best[1]
    return _layout(w, t, p, dp, sh, r, usable, e, k)


def _strategy_of(lay: Layout) -> Literal["data-parallel", "optimizer-sharding", "model-parallel"]:
    if lay.tensor_parallel * lay.pipeline_parallel * lay.expert_parallel > 1 or lay.zero_stage >= 3:
        return "model-parallel"
    return "optimizer-sharding" if lay.zero_stage else "data-parallel"


def step_batch(req: Requirements) -> int:
    """Sequences (samples) per optimizer step across all devices: `workload.global_batch`, else `batch_size`."""
    w = req.workload
    if w is None:
        return 1
    return w.global_batch or w.batch_size


# --- the fit -------------------------------------------------------------------------------------------


def memory_fit(route: object, req: Requirements, kb: object, k: Consts = DEFAULT) -> Optional[MemoryFit]:
    """The memory fit of a workflow's route, or None when there is no accelerator to fit (CPU)."""
    acc: Optional[Accelerator] = getattr(route, "accelerator", None)
    if acc is None:
        return None
    m = req.model
    d_prec, d_opt, d_act = defaults_for(m.family)
    precision, optimizer = m.precision or d_prec, m.optimizer or d_opt
    low = m.optimizer_states == "low-precision"
    frozen_bytes, base_width = base_weight_bytes(m, precision, k)
    b = state_bytes(precision, optimizer, low, frozen_bytes)
    share = trainable_share(m, k)
    devices = req.hardware.devices
    params = m.parameters_millions * 1e6
    states = params * (share * b.total + (1 - share) * b.frozen)
    transformer = m.family == "transformer" and m.activation_mb_per_sample is None
    w_load = req.workload
    # a mixture of experts is shaped (and its activations counted) as the dense model of its active size
    shape = model_shape(m) if m.family == "transformer" else None
    if transformer and shape is not None:
        micro = w_load.micro_batch if w_load and w_load.micro_batch else 1
        act = transformer_activations(shape, 1, 1, m.recompute or "none", m.flash_attention)
    else:
        micro = 0
        act = (m.activation_mb_per_sample or d_act) * 1e6
    b_dev = micro if transformer else max(1, math.ceil(step_batch(req) / devices))
    ev = [
        req_evidence(
            "model.parameters_millions",
            m.parameters_millions,
            said("mem.evidence.parameters", millions=m.parameters_millions),
        ),
        req_evidence(
            "model.precision",
            precision,
            said(
                "mem.evidence.precision",
                precision=precision,
                optimizer=optimizer,
                total=b.total,
                low=low,
                stated=bool(m.precision and m.optimizer),
                family=m.family,
            ),
        ),
    ]
    usable_gb, basis, u_ev = usable_memory(acc, k)
    ev.extend(u_ev)
    formulas = formulas_for(route)
    fit = MemoryFit(
        accelerator=acc.id,
        devices=devices,
        usable_gb=round(usable_gb, 2) if usable_gb else None,
        usable_basis=basis,
        parameters_millions=m.parameters_millions,
        precision=precision,
        optimizer=optimizer,
        bytes_per_parameter=round(states / params, 4),
        states_gb=round(states / GB, 3),
        activation_gb_per_sample=round(act / GB, 4),
        batch_per_device=b_dev,
        data_parallel_gb=round((states + act * b_dev) / GB, 3),
        strategy="unknown",
        fine_tune=m.fine_tune or "none",
        trainable_share=share,
        base_weights_precision=base_width,
        experts=m.experts,
        formula="; ".join(said(FORMULA_CODE[f]) for f in formulas),
        checkpoint_gb=round(params * share * (b.weights + b.optimizer) / GB, 3),
        evidence=ev,
    )
    _explain_states(fit, m, b, low, precision, k)
    if shape is not None:
        fit.shape = TransformerShapeFit(
            layers=shape.layers,
            hidden=shape.hidden,
            heads=shape.heads,
            sequence=shape.sequence,
            vocabulary=shape.vocabulary,
            derived=shape.derived,
        )
        if shape.derived and transformer:
            fit.notes.append(said("mem.shape_derived", derived=shape.derived))
    if not transformer and not m.activation_mb_per_sample:
        fit.notes.append(said("mem.activations_assumed", mb=d_act, family=m.family))
    if w_load is None:
        fit.notes.append(said("mem.no_workload"))
    if usable_gb is None:
        fit.notes.append(said("mem.not_judged", basis=basis))
        return fit
    usable = usable_gb * GB
    if transformer and shape is not None:
        job = _job(m, req, route, b, share, shape, micro, precision, k, acc, kb)
        return _transformer_fit(fit, job, usable, acc.name, k)
    return _per_sample_fit(fit, params, b, share, act, b_dev, usable, k, acc.name)


def _job(
    m: ModelSpec,
    req: Requirements,
    route: object,
    b: StateBytes,
    share: float,
    shape: Shape,
    micro: int,
    precision: str,
    k: Consts,
    acc: Optional[Accelerator] = None,
    kb: object = None,
) -> MemoryJob:
    params = m.parameters_millions * 1e6
    active = active_parameters(m)
    expert_params = 0.0
    if m.is_moe and m.experts and m.experts_per_token:
        # N = S + E X and N_active = S + k X: each expert's X, and the E X held in experts
        per_expert = (params - active) / (m.experts - m.experts_per_token)
        expert_params = per_expert * m.experts
    tensor, pipeline, expert = parallelism_for(route, m.is_moe)
    forward = inference_flops_per_token(active, shape)
    return MemoryJob(
        params=params,
        bytes=b,
        trainable_share=share,
        shape=shape,
        micro_batch=micro,
        recompute=m.recompute,
        flash_attention=m.flash_attention,
        largest_layer=max(shape.vocabulary * shape.hidden, 4 * shape.hidden * shape.hidden),
        max_tp=int(k["DEVICES_PER_HOST"]),
        precision=precision,
        expert_params=expert_params,
        experts=m.experts or 1,
        global_batch=step_batch(req),
        formulas=tuple(formulas_for(route)),
        tensor=tensor,
        pipeline=pipeline,
        expert=expert,
        full_recompute_share=forward / train_flops_per_token(active, shape, share),
        **_step_terms(req, acc, kb, active, shape, share, precision, k),
    )


def _step_terms(
    req: Requirements,
    acc: Optional[Accelerator],
    kb: object,
    active: float,
    shape: Shape,
    share: float,
    precision: str,
    k: Consts,
) -> dict:
    """What the layout search needs to weigh a layout's data-parallel all-reduce against its compute: one
    step's FLOPs, a device's FLOP/s at EFFECTIVE_PEAK_SHARE of its peak, the links within and between
    hosts (as advisor.decision.communication.comm_compute reads them)."""
    from advisor.decision.communication import device_link

    peak = (acc.fp16_tflops or acc.bf16_tflops or acc.fp32_tflops) if acc is not None else None
    if acc is None or peak is None or not math.isfinite(peak.value) or peak.value <= 0:
        return {}
    within, _ = device_link(acc, req, k, kb, between=False)
    between, _ = device_link(acc, req, k, kb, between=True)
    return {
        "step_flops": step_batch(req) * train_flops_per_token(active, shape, share) * shape.sequence,
        "device_flops": peak.value * 1e12 * k["EFFECTIVE_PEAK_SHARE"],
        "link_within": (within or 0.0) * 1e9,
        "link_between": (between or 0.0) * 1e9,
        "grad_bytes": 4.0 if precision == "fp32" else 2.0,
    }


def _explain_states(fit: MemoryFit, m: ModelSpec, b: StateBytes, low: bool, precision: str, k: Consts) -> None:
    if low:
        fit.notes.append(said("mem.low_precision_states"))
    elif precision in ("mixed", "bf16"):
        fit.notes.append(said("mem.master_weights", precision=precision, total=b.total))
    if m.fine_tune in ("lora", "qlora"):
        fit.notes.append(
            said(
                "mem.fine_tune",
                method=m.fine_tune,
                frozen_share=1 - fit.trainable_share,
                frozen=b.frozen,
                width=fit.base_weights_precision,
                nf4_source=CONSTANTS["QLORA_NF4_BITS"].source,
                share=fit.trainable_share,
                total=b.total,
                share_stated=bool(m.trainable_share),
            )
        )
    if m.is_moe:
        fit.notes.append(
            said(
                "mem.moe",
                millions=m.parameters_millions,
                experts=m.experts,
                active=m.active_parameters_millions,
                top=m.experts_per_token,
            )
        )


def _transformer_fit(fit: MemoryFit, w: MemoryJob, usable: float, name: str, k: Consts) -> MemoryFit:
    devices = fit.devices
    fit.must_split = best_layout(w, 1, usable, k) is None
    found = fitting_layouts(w, devices, usable, k)
    lay = found[0] if found else None
    least = fewest_devices(w, usable, k)
    fit.layout, fit.min_layout = lay, least
    fit.min_devices = least.devices if least is not None else None
    rec = w.recompute or "none"
    plain_sh = shardings(w.formulas[0], w.bytes, w.precision)
    sharded = [
        sh for f in w.formulas for sh in shardings(f, w.bytes, w.precision) if 0 < sh.stage and not sh.frozen_sharded
    ]
    fully = [sh for f in w.formulas for sh in shardings(f, w.bytes, w.precision) if sh.frozen_sharded]
    plain = _layout(w, 1, 1, devices, plain_sh[0], rec, usable, 1, k)
    fit.strategies = [StrategyFit(strategy="data-parallel", per_device_gb=plain.per_device_gb, fits=plain.fits)]
    if sharded:
        z = min((_layout(w, 1, 1, devices, sh, rec, usable, 1, k) for sh in sharded), key=lambda x: x.per_device_gb)
        fit.strategies.append(StrategyFit(strategy="optimizer-sharding", per_device_gb=z.per_device_gb, fits=z.fits))
    if lay is not None or fully or w.tensor or w.pipeline:
        z3 = _layout(w, 1, 1, devices, fully[0], rec, usable, 1, k) if fully else None
        per = lay.per_device_gb if lay is not None else (z3.per_device_gb if z3 is not None else plain.per_device_gb)
        fit.strategies.append(
            StrategyFit(strategy="model-parallel", per_device_gb=per, fits=lay is not None, min_devices=fit.min_devices)
        )
    fit.strategy = _strategy_of(lay) if lay is not None else "does-not-fit"
    if lay is not None:
        fit.layout_why = _why(lay, found[1:])
        fit.notes.append(
            said(
                "mem.layout_on",
                devices=devices,
                accelerator=name,
                layout=lay.text,
                states=lay.states_gb,
                activations=lay.activations_gb,
                per_device=lay.per_device_gb,
                usable=usable / GB,
                formula=fit.formula,
            )
        )
        fit.notes.append(fit.layout_why)
        if lay.recompute == "full":
            fit.notes.append(said("mem.full_recompute", overhead=lay.recompute_overhead))
    else:
        fit.notes.append(
            said(
                "mem.does_not_fit",
                millions=fit.parameters_millions,
                states=fit.states_gb,
                min_devices=fit.min_devices,
                accelerator=name,
                usable=usable / GB,
                devices=devices,
                least=least.text if least is not None else None,
            )
        )
    return fit


def _why(chosen: Layout, others: list[Layout]) -> str:
    """The chosen layout's estimated overhead against the best fitting layout of another kind."""
    other = next(
        (
            o
            for o in others
            if (o.tensor_parallel, o.pipeline_parallel, o.expert_parallel, o.recompute, o.sharding)
            != (
                chosen.tensor_parallel,
                chosen.pipeline_parallel,
                chosen.expert_parallel,
                chosen.recompute,
                chosen.sharding,
            )
        ),
        None,
    )
    return said(
        "mem.layout_why",
        overhead=chosen.overhead,
        recompute=chosen.recompute_overhead,
        other=other.text if other is not None else None,
        other_overhead=other.overhead if other is not None else None,
        other_gb=other.per_device_gb if other is not None else None,
    )


def _per_sample_fit(
    fit: MemoryFit,
    params: float,
    b: StateBytes,
    share: float,
    act: float,
    b_dev: int,
    usable: float,
    k: Consts,
    name: str,
) -> MemoryFit:
    devices = fit.devices
    states = fit.states_gb * GB
    batch_act = act * b_dev  # every column at the same per-device batch
    largest = 4 * k["LARGEST_LAYER_SHARE"] * params
    z2 = _paper(b, stages=(2,))[0]
    z2_fixed = _states(params, 0.0, b, share, 1, 1, 2**40, 1, z2)
    z2_sharded = states - z2_fixed
    z3_fixed, z3_sharded = largest, states
    # per device at the per-device batch (every column alike); a strategy fits when one sample does
    # (gradient accumulation runs the batch in micro-batches)
    held = {
        "data-parallel": states,
        "optimizer-sharding": z2_fixed + z2_sharded / devices,
        "model-parallel": z3_fixed + z3_sharded / devices,
    }
    mins = {
        "data-parallel": 1 if states + act <= usable else None,
        "optimizer-sharding": _min_devices(z2_fixed + act, z2_sharded, usable),
        "model-parallel": _min_devices(z3_fixed + act, z3_sharded, usable),
    }
    fits = [
        StrategyFit(
            strategy=name_,  # type: ignore[arg-type]
            per_device_gb=round((held[name_] + batch_act) / GB, 3),
            fits=held[name_] + act <= usable,
            min_devices=mins[name_],
        )
        for name_ in ("data-parallel", "optimizer-sharding", "model-parallel")
    ]
    fit.strategies = fits
    fit.formula = said(FORMULA_CODE["zero-paper"])
    found = [f.min_devices for f in fits if f.min_devices is not None]
    fit.min_devices = min(found) if found else None
    fit.must_split = states + act > usable
    chosen = next((f for f in fits if f.fits), None)
    fit.strategy = chosen.strategy if chosen else "does-not-fit"
    if chosen is not None and held[chosen.strategy] + batch_act > usable:
        fit.micro_batch = max(1, int((usable - held[chosen.strategy]) // act))
        fit.notes.append(said("mem.micro_batches", batch=b_dev, micro_batch=fit.micro_batch))
    usable_gb = usable / GB
    if fit.strategy == "does-not-fit":
        fit.notes.append(
            said(
                "mem.does_not_fit",
                millions=fit.parameters_millions,
                states=states / GB,
                min_devices=fit.min_devices,
                accelerator=name,
                usable=usable_gb,
                devices=devices,
                least=None,
            )
        )
    elif fit.must_split:
        fit.notes.append(
            said(
                "mem.must_split",
                states=states / GB,
                accelerator=name,
                usable=usable_gb,
                strategy=fit.strategy,
                devices=devices,
                min_devices=fit.min_devices,
            )
        )
    return fit


def _min_devices(need_fixed: float, sharded: float, usable: float) -> Optional[int]:
    room = usable - need_fixed
    if room <= 0:
        return None
    return max(1, math.ceil(sharded / room - 1e-9))


def blocks(fit: Optional[MemoryFit]) -> Optional[str]:
    """The hard-constraint line when the target cannot hold the model on the requirements' devices."""
    if fit is None or fit.strategy != "does-not-fit":
        return None
    return said(
        "mem.blocks",
        millions=fit.parameters_millions,
        states=fit.states_gb,
        min_devices=fit.min_devices,
        accelerator=fit.accelerator,
        usable=fit.usable_gb,
        devices=fit.devices,
    )
