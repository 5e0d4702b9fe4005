"""Memory fit: does the model train on the target's devices, and how must it be split?

From `model.parameters_millions` (and the optional `precision`, `optimizer`, `optimizer_states`,
`fine_tune`, the transformer shape and `activation_mb_per_sample`, with per-family defaults), the
training memory per device (model states, activations at the micro-batch) against the device's
*usable* memory (the knowledge base's `usable_memory_gb`, else `memory_gb` less a reserve: npu-smi's
total includes reserved HBM, seed "Ascend 910 and MindSpore in practice" §5.5).

Model states follow the ZeRO paper (Rajbhandari et al. 2020, §3 and Figure 1): mixed-precision Adam,
fp16 *or bf16* (Megatron-LM, DeepSpeed and MindFormers all keep fp32 master weights and moments in
bf16 training), is 2 (weights) + 2 (gradients) + 12 (fp32 master, momentum, variance) = 16 bytes per
parameter; ZeRO-1 shards the 12 over the data-parallel ranks, ZeRO-2 the gradients too (2 + 14/N),
ZeRO-3 everything (16/N) plus a gathered copy of the largest layer. `model.optimizer_states:
low-precision` drops the master copy and keeps bf16 moments (8 bytes/parameter: what `accelerate
estimate-memory` counts at bf16, and what pure-bf16 optimizers assume: that bf16 rounding of the
updates does not stall training). LoRA/adapters: the frozen weights at 2 bytes/parameter (4 at fp32)
and the trainable share at the full count.

Transformer activations follow Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
Transformer Models", §4 and Table 2), per layer and 16-bit activations: s b h (34 + 5 a s / h) bytes
without recompute, the 5 a s / h score term gone with selective recompute or fused (flash) attention,
2 s b h with full recompute (the layer's input only); tensor parallel with sequence parallel divides
all of it by t; 1F1B pipeline parallel keeps the first stage at p micro-batches of L/p layers, the
same L layers' worth (§4.2.3); plus the output layer's 4 s b (h + v) / t. Other families keep a
per-sample figure (`activation_mb_per_sample`, with per-family defaults).

The layout (tensor x pipeline x data parallel, ZeRO stage, recompute) is the simplest that fits:
the smallest model-parallel degree t x p first (data parallelism scales best), then the lowest ZeRO
stage, then the least recompute (full recompute costs a third more compute). `min_devices` is the
fewest devices on which any layout fits. Neither DeepSpeed's estimators nor `accelerate` count
activations or the Ascend HBM reserve; this estimate adds both.

The seeds' first criterion for the full-stack route is whether the model fits one device (seed "Chips
and framework released together" §4.1; seed 002 §7.1): `must_split` says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.constants import CONSTANTS, DEFAULT, Consts
from advisor.decision.evidence import Evidence, req_evidence, sourced_evidence
from advisor.decision.workload import Shape, model_shape
from advisor.requirements import Requirements
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
_GB = 1e9
TP_DEGREES = (1, 2, 4, 8)
ZERO_STAGES = (0, 1, 2, 3)
RECOMPUTE_ORDER: tuple[Recompute, ...] = ("none", "selective", "full")


class StrategyFit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    strategy: Literal["data-parallel", "optimizer-sharding", "model-parallel"]
    per_device_gb: float = Field(
        description="training memory per device at the requirements' device count (micro-batch 1 for the split strategies)"
    )
    fits: bool
    min_devices: Optional[int] = Field(None, description="fewest devices on which this strategy fits (null: none)")


class Layout(BaseModel):
    """A parallel layout and what it holds per device."""

    model_config = ConfigDict(extra="forbid")

    tensor_parallel: int
    pipeline_parallel: int
    data_parallel: int
    zero_stage: int = Field(
        description="0 none, 1 optimizer states, 2 + gradients, 3 + weights sharded over data parallel"
    )
    recompute: Recompute
    micro_batch: int
    states_gb: float = Field(description="model states per device")
    activations_gb: float = Field(description="activations per device at the micro-batch")
    per_device_gb: float
    fits: bool

    @property
    def text(self) -> str:
        return (
            f"TP {self.tensor_parallel} x PP {self.pipeline_parallel} x DP {self.data_parallel}, ZeRO-{self.zero_stage}, "
            f"recompute {self.recompute}, micro-batch {self.micro_batch}"
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
    """Training memory per device against the device's usable memory."""

    model_config = ConfigDict(extra="forbid")

    accelerator: Optional[str] = None
    devices: int
    usable_gb: Optional[float] = Field(None, description="usable memory per device (GB)")
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
    fine_tune: str = Field("none", description="none, full or lora")
    trainable_share: float = Field(1.0, description="share of the parameters with gradients and optimizer states")
    shape: Optional[TransformerShapeFit] = Field(None, description="the transformer's shape (given or derived)")
    layout: Optional[Layout] = Field(None, description="recommended layout on the requirements' devices (transformers)")
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


def state_bytes(precision: str, optimizer: str, low_precision_states: bool = False) -> StateBytes:
    moments = _OPTIMIZER_MOMENTS[optimizer]
    if precision == "fp32":
        return StateBytes(4.0, 4.0, 4.0 * moments, 4.0)
    if low_precision_states:
        return StateBytes(2.0, 2.0, 2.0 * moments, 2.0)
    return StateBytes(2.0, 2.0, 4.0 + 4.0 * moments, 2.0)


def bytes_per_parameter(precision: str, optimizer: str, low_precision_states: bool = False) -> tuple[float, float]:
    """(model-state bytes per parameter, bytes replicated under ZeRO-2: the 16-bit weights and gradients
    as DeepSpeed's estimator counts them)."""
    b = state_bytes(precision, optimizer, low_precision_states)
    return b.total, b.weights + b.gradients


def states_per_device(
    params: float, b: StateBytes, trainable_share: float, tp: int, pp: int, dp: int, zero: int
) -> float:
    """Model-state bytes per device: the model cut t x p ways, the ZeRO stage's parts cut dp ways
    (ZeRO paper, Figure 1: P_os 4 + 12/N, P_os+g 2 + 14/N, P_os+g+p 16/N)."""
    local = params / (tp * pp)
    trained, frozen = local * trainable_share, local * (1.0 - trainable_share)
    weights = b.weights * trained + b.frozen * frozen
    grads, opt = b.gradients * trained, b.optimizer * trained
    return (
        (weights / dp if zero >= 3 else weights)
        + (grads / dp if zero >= 2 else grads)
        + (opt / dp if zero >= 1 else opt)
    )


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
    """Usable GB per device: the knowledge base's `usable_memory_gb`, else `memory_gb` less a reserve."""
    usable = acc.usable_memory_gb
    if usable is not None:
        return (
            float(usable.value),
            "knowledge base usable_memory_gb",
            [sourced_evidence(acc.id, usable, f"{acc.name}: {usable.value:g} GB usable")],
        )
    mem = acc.memory_gb
    if mem is None:
        return None, f"the knowledge base has no memory figure for {acc.name}", []
    name = "USABLE_MEMORY_ASCEND" if acc.vendor == "huawei" else "USABLE_MEMORY_NVIDIA"
    share = k[name]
    basis = f"{mem.value:g} GB x {share:g} ({name}: {CONSTANTS[name].source})"
    return mem.value * share, basis, [sourced_evidence(acc.id, mem, f"{acc.name}: {mem.value:g} GB on the device")]


def _min_devices(need_fixed: float, sharded: float, usable: float) -> Optional[int]:
    room = usable - need_fixed
    if room <= 0:
        return None
    return max(1, math.ceil(sharded / room - 1e-9))


@dataclass(frozen=True)
class Workload:
    """What the layout search needs, resolved from the requirements."""

    params: float
    bytes: StateBytes
    trainable_share: float
    shape: Shape
    micro_batch: int
    recompute: Optional[str]  # None: the least that fits
    flash_attention: bool
    largest_layer: float  # parameters of the largest layer (ZeRO-3 gathers it)
    max_tp: int


def _need(w: Workload, tp: int, pp: int, dp: int, zero: int, recompute: str) -> tuple[float, float]:
    """(model-state bytes, activation bytes) per device."""
    states = states_per_device(w.params, w.bytes, w.trainable_share, tp, pp, dp, zero)
    if zero >= 3:
        states += 4.0 * w.largest_layer / tp  # DeepSpeed's ZeRO-3 estimator: 4 x the largest layer
    return states, transformer_activations(w.shape, w.micro_batch, tp, recompute, w.flash_attention)


def _layout(w: Workload, tp: int, pp: int, dp: int, zero: int, recompute: str, usable: float) -> Layout:
    states, act = _need(w, tp, pp, dp, zero, recompute)
    return Layout(
        tensor_parallel=tp,
        pipeline_parallel=pp,
        data_parallel=dp,
        zero_stage=zero,
        recompute=recompute,  # type: ignore[arg-type]
        micro_batch=w.micro_batch,
        states_gb=round(states / _GB, 3),
        activations_gb=round(act / _GB, 3),
        per_device_gb=round((states + act) / _GB, 3),
        fits=states + act <= usable,
    )


def _candidates(w: Workload) -> list[tuple[int, int, int, str]]:
    """(tp, pp, zero, recompute) in order of preference: smallest t x p, then ZeRO stage, then recompute,
    TP before PP at the same degree (TP stays inside a host)."""
    tps = [t for t in TP_DEGREES if t <= w.max_tp and w.shape.heads % t == 0]
    pps = [p for p in (2**i for i in range(12)) if p <= w.shape.layers]
    recs = [w.recompute] if w.recompute else list(RECOMPUTE_ORDER)
    out = [(t, p, z, r) for t in tps for p in pps for z in ZERO_STAGES for r in recs]
    return sorted(out, key=lambda c: (c[0] * c[1], c[2], RECOMPUTE_ORDER.index(c[3]), c[1]))  # type: ignore[arg-type]


def best_layout(w: Workload, devices: int, usable: float) -> Optional[Layout]:
    """The preferred layout that fits exactly `devices` (t x p x dp = devices), or None."""
    for t, p, z, r in _candidates(w):
        if devices % (t * p):
            continue
        if sum(_need(w, t, p, devices // (t * p), z, r)) <= usable:
            return _layout(w, t, p, devices // (t * p), z, r, usable)
    return None


def fewest_devices(w: Workload, usable: float) -> Optional[Layout]:
    """The layout on the fewest devices that holds the model (ZeRO shards over the data-parallel ranks):
    per device = fixed + sharded / dp, solved for the smallest dp."""
    best: Optional[tuple[int, tuple[int, int, int, int, str]]] = None
    for t, p, z, r in _candidates(w):
        s1, a = _need(w, t, p, 1, z, r)
        if z == 0:
            dp: Optional[int] = 1 if s1 + a <= usable else None
        else:
            s_inf, _ = _need(w, t, p, 10**15, z, r)
            dp = _min_devices(s_inf + a, s1 - s_inf, usable)
            while dp is not None and sum(_need(w, t, p, dp, z, r)) > usable:  # float rounding at the edge
                dp += 1
        if dp is not None and (best is None or t * p * dp < best[0]):
            best = (t * p * dp, (t, p, dp, z, r))
    if best is None:
        return None
    t, p, dp, z, r = best[1]
    return _layout(w, t, p, dp, z, r, usable)


def _strategy_of(lay: Layout) -> Literal["data-parallel", "optimizer-sharding", "model-parallel"]:
    if lay.tensor_parallel * lay.pipeline_parallel > 1 or lay.zero_stage >= 3:
        return "model-parallel"
    return "optimizer-sharding" if lay.zero_stage else "data-parallel"


def memory_fit(route: object, req: Requirements, kb: object, k: Consts = DEFAULT) -> Optional[MemoryFit]:
    """The memory fit of a workflow's route, or None when there is no accelerator to fit (CPU)."""
    acc: Optional[Accelerator] = getattr(route, "accelerator", None)
    if acc is None:
        return None
    m = req.model
    d_prec, d_opt, d_act = defaults_for(m.family)
    precision, optimizer = m.precision or d_prec, m.optimizer or d_opt
    low = m.optimizer_states == "low-precision"
    b = state_bytes(precision, optimizer, low)
    share = (m.trainable_share or k["LORA_TRAINABLE_SHARE"]) if m.fine_tune == "lora" else 1.0
    devices = req.hardware.devices
    params = m.parameters_millions * 1e6
    states = params * (share * b.total + (1 - share) * b.frozen)
    per_param = states / params
    transformer = m.family == "transformer" and m.activation_mb_per_sample is None
    w_load = req.workload
    shape = model_shape(m) if m.family == "transformer" else None
    if transformer and shape is not None:
        micro = w_load.micro_batch if w_load and w_load.micro_batch else 1
        flash = m.flash_attention
        act = transformer_activations(shape, 1, 1, m.recompute or "none", flash)
    else:
        micro, flash = 0, False
        act = (m.activation_mb_per_sample or d_act) * 1e6
    batch = w_load.batch_size if w_load else 1
    b_dev = micro if transformer else max(1, math.ceil(batch / devices))
    ev = [
        req_evidence("model.parameters_millions", m.parameters_millions, f"{m.parameters_millions:g} M parameters"),
        req_evidence(
            "model.precision",
            precision,
            f"{precision} training, {optimizer}: {b.total:g} bytes/parameter of model states"
            + (" (low-precision optimizer states)" if low else "")
            + ("" if m.precision and m.optimizer else f" (defaults for a {m.family})"),
        ),
    ]
    usable_gb, basis, u_ev = usable_memory(acc, k)
    ev.extend(u_ev)
    fit = MemoryFit(
        accelerator=acc.id,
        devices=devices,
        usable_gb=round(usable_gb, 2) if usable_gb else None,
        usable_basis=basis,
        parameters_millions=m.parameters_millions,
        precision=precision,
        optimizer=optimizer,
        bytes_per_parameter=round(per_param, 4),
        states_gb=round(states / _GB, 3),
        activation_gb_per_sample=round(act / _GB, 4),
        batch_per_device=b_dev,
        data_parallel_gb=round((states + act * b_dev) / _GB, 3),
        strategy="unknown",
        fine_tune=m.fine_tune or "none",
        trainable_share=share,
        evidence=ev,
    )
    if low:
        fit.notes.append(
            "low-precision optimizer states: no fp32 master copy, 16-bit moments (assumes bf16 rounding of the "
            "updates does not stall training: a pure-bf16 optimizer such as Kahan-summed AdamW, or 8-bit Adam)"
        )
    elif precision in ("mixed", "bf16"):
        fit.notes.append(
            f"{precision} training keeps fp32 master weights and fp32 optimizer moments ({b.total:g} bytes/parameter, "
            "ZeRO paper; Megatron-LM, DeepSpeed and MindFormers do): set model.optimizer_states: low-precision otherwise"
        )
    if m.fine_tune == "lora":
        fit.notes.append(
            f"LoRA: {1 - share:.2%} of the weights frozen at {b.frozen:g} bytes/parameter, {share:.2%} trained at "
            f"{b.total:g}" + ("" if m.trainable_share else " (trainable share 1% assumed: set model.trainable_share)")
        )
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
            fit.notes.append("transformer shape derived from the size: " + "; ".join(shape.derived))
    if not transformer and not m.activation_mb_per_sample:
        fit.notes.append(
            f"activations {d_act:g} MB per sample assumed for a {m.family} (set model.activation_mb_per_sample)"
        )
    if w_load is None:
        fit.notes.append("no workload: activations counted for one sample per device")
    if usable_gb is None:
        fit.notes.append(basis + ": memory fit not judged")
        return fit
    usable = usable_gb * _GB
    if transformer and shape is not None:
        return _transformer_fit(
            fit,
            Workload(
                params=params,
                bytes=b,
                trainable_share=share,
                shape=shape,
                micro_batch=micro,
                recompute=m.recompute,
                flash_attention=flash,
                largest_layer=max(shape.vocabulary * shape.hidden, 4 * shape.hidden * shape.hidden),
                max_tp=int(k["DEVICES_PER_HOST"]),
            ),
            usable,
            acc.name,
            k,
        )
    return _per_sample_fit(fit, params, b, share, act, b_dev, usable, k, acc.name)


def _transformer_fit(fit: MemoryFit, w: Workload, usable: float, name: str, k: Consts) -> MemoryFit:
    devices = fit.devices
    one = best_layout(w, 1, usable)
    fit.must_split = one is None
    lay = best_layout(w, devices, usable)
    least = fewest_devices(w, usable)
    fit.layout, fit.min_layout = lay, least
    fit.min_devices = (
        least.tensor_parallel * least.pipeline_parallel * least.data_parallel if least is not None else None
    )
    plain = _layout(w, 1, 1, devices, 0, w.recompute or "none", usable)
    z2 = _layout(w, 1, 1, devices, 2, w.recompute or "none", usable)
    z3 = _layout(w, 1, 1, devices, 3, w.recompute or "none", usable)
    fit.strategies = [
        StrategyFit(strategy="data-parallel", per_device_gb=plain.per_device_gb, fits=plain.fits),
        StrategyFit(strategy="optimizer-sharding", per_device_gb=z2.per_device_gb, fits=z2.fits),
        StrategyFit(
            strategy="model-parallel",
            per_device_gb=lay.per_device_gb if lay is not None else z3.per_device_gb,
            fits=lay is not None,
            min_devices=fit.min_devices,
        ),
    ]
    fit.strategy = _strategy_of(lay) if lay is not None else "does-not-fit"
    if lay is not None:
        fit.notes.append(
            f"layout on {devices} x {name}: {lay.text}: {lay.states_gb:g} GB of model states + "
            f"{lay.activations_gb:g} GB of activations = {lay.per_device_gb:g} GB per device "
            f"({usable / _GB:.1f} GB usable; Korthikanti et al. 2022 activations, ZeRO-paper states)"
        )
        if lay.recompute == "full":
            fit.notes.append("full activation recompute: about a third more compute per step (one extra forward)")
    else:
        need = f"at least {fit.min_devices} x {name}" if fit.min_devices else f"more than any number of {name}"
        fit.notes.append(
            f"{fit.parameters_millions:g} M parameters need {fit.states_gb:,.0f} GB of model states: {need} "
            f"({usable / _GB:.1f} GB usable each) with the model split; hardware.devices={devices}"
            + (f" (on {fit.min_devices}: {least.text})" if least is not None else "")
        )
    return fit


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
    states = fit.states_gb * _GB
    largest = 4 * k["LARGEST_LAYER_SHARE"] * params
    dp_one = states + act
    z2_fixed = states_per_device(params, b, share, 1, 1, 10**15, 2) + act
    z2_sharded = states - (z2_fixed - act)
    z3_fixed, z3_sharded = largest + act, states
    fits = [
        StrategyFit(
            strategy="data-parallel",
            per_device_gb=round((states + act * b_dev) / _GB, 3),
            fits=dp_one <= usable,
            min_devices=1 if dp_one <= usable else None,
        ),
        StrategyFit(
            strategy="optimizer-sharding",
            per_device_gb=round((z2_fixed + z2_sharded / devices) / _GB, 3),
            fits=z2_fixed + z2_sharded / devices <= usable,
            min_devices=_min_devices(z2_fixed, z2_sharded, usable),
        ),
        StrategyFit(
            strategy="model-parallel",
            per_device_gb=round((z3_fixed + z3_sharded / devices) / _GB, 3),
            fits=z3_fixed + z3_sharded / devices <= usable,
            min_devices=_min_devices(z3_fixed, z3_sharded, usable),
        ),
    ]
    fit.strategies = fits
    mins = [f.min_devices for f in fits if f.min_devices is not None]
    fit.min_devices = min(mins) if mins else None
    fit.must_split = dp_one > usable
    chosen = next((f for f in fits if f.fits), None)
    fit.strategy = chosen.strategy if chosen else "does-not-fit"
    if chosen is not None and chosen.strategy == "data-parallel" and states + act * b_dev > usable:
        fit.micro_batch = max(1, int((usable - states) // act))
        fit.notes.append(
            f"a per-device batch of {b_dev} does not fit: micro-batches of {fit.micro_batch} with gradient accumulation"
        )
    usable_gb = usable / _GB
    if fit.strategy == "does-not-fit":
        need = f"at least {fit.min_devices} x {name}" if fit.min_devices else f"more than any number of {name}"
        fit.notes.append(
            f"{fit.parameters_millions:g} M parameters need {states / _GB:,.0f} GB of model states: {need} "
            f"({usable_gb:.1f} GB usable each) with the model split; hardware.devices={devices}"
        )
    elif fit.must_split:
        fit.notes.append(
            f"model states ({states / _GB:,.0f} GB) exceed one {name} ({usable_gb:.1f} GB usable): "
            f"{fit.strategy} needed on {devices} devices (at least {fit.min_devices})"
        )
    return fit


def blocks(fit: Optional[MemoryFit]) -> Optional[str]:
    """The hard-constraint line when the target cannot hold the model on the requirements' devices."""
    if fit is None or fit.strategy != "does-not-fit":
        return None
    need = f"at least {fit.min_devices}" if fit.min_devices else "no number of"
    return (
        f"model.parameters_millions={fit.parameters_millions:g}: {fit.states_gb:,.0f} GB of model states need {need} "
        f"{fit.accelerator} devices ({fit.usable_gb:g} GB usable each), hardware.devices={fit.devices}"
    )
