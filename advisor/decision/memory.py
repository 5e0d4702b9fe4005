"""Memory fit: does the model train on the target's devices, and how must it be split?

From `model.parameters_millions` (and the optional `precision`, `optimizer` and
`activation_mb_per_sample`, with per-family defaults), the training memory per device (weights,
gradients, optimizer states, activations at the per-device batch) against the device's *usable*
memory (the knowledge base's `usable_memory_gb`, else `memory_gb` less a reserve: npu-smi's total
includes reserved HBM, seed "Ascend 910 and MindSpore in practice" §5.5).

The arithmetic follows DeepSpeed's ZeRO memory estimators (Memory Requirements in the DeepSpeed docs):
model states of mixed-precision Adam are 16 bytes per parameter (fp16 weights 2 + fp16 gradients 2 +
fp32 master weights, momentum and variance 12); ZeRO-2 (optimizer and gradient sharding) needs
4 bytes/param replicated + 16/N sharded per device; ZeRO-3 (full sharding, the memory of model/pipeline
parallelism) 18/N + 4 x the largest layer. `accelerate estimate-memory` reports Adam training as 4x the
model's size in its dtype: the same 16 bytes/param at fp32, but 8 at fp16/bf16 because it leaves out the
fp32 master weights and states that mixed precision keeps; here they are kept (ZeRO's count). Neither
tool counts activations or the Ascend HBM reserve; this estimate adds both.

The seeds' first criterion for the full-stack route is whether the model fits one device (seed "Chips
and framework released together" §4.1; seed 002 §7.1): `must_split` says so.
"""

from __future__ import annotations

import math
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.constants import CONSTANTS, DEFAULT, Consts
from advisor.decision.evidence import Evidence, req_evidence, sourced_evidence

Precision = Literal["fp32", "mixed", "bf16"]
Optimizer = Literal["adam", "sgd-momentum", "sgd"]
Strategy = Literal["data-parallel", "optimizer-sharding", "model-parallel", "does-not-fit", "unknown"]

# Bytes per parameter: (weights, gradients, fp32 master copy) by precision; optimizer states by
# optimizer and precision. Mixed Adam = 2 + 2 + 4 + 8 = 16 (ZeRO paper, K = 12 for the fp32 states).
_WEIGHTS_GRADS_MASTER = {"fp32": (4.0, 4.0, 0.0), "mixed": (2.0, 2.0, 4.0), "bf16": (2.0, 2.0, 0.0)}
_OPTIMIZER_BYTES = {
    "adam": {"fp32": 8.0, "mixed": 8.0, "bf16": 4.0},
    "sgd-momentum": {"fp32": 4.0, "mixed": 4.0, "bf16": 2.0},
    "sgd": {"fp32": 0.0, "mixed": 0.0, "bf16": 0.0},
}
# Per-family defaults, all `assumption` (set the model fields to override):
#   precision/optimizer: transformers train mixed with Adam(W); CNNs in the seeds' runs fp32 SGD+momentum;
#   activations per sample: ResNet-50 at 224x224 fp32 ~100 MB/image (batch 256 needs a 32 GB card),
#   BERT-large seq 512 mixed ~430 MB (34 x seq x hidden x layers bytes, Korthikanti et al. 2022),
#   the others an order-of-magnitude guess.
FAMILY_DEFAULTS: dict[str, tuple[Precision, Optimizer, float]] = {
    "cnn": ("fp32", "sgd-momentum", 100.0),
    "transformer": ("mixed", "adam", 430.0),
    "rnn": ("fp32", "adam", 50.0),
    "gnn": ("fp32", "adam", 200.0),
    "other": ("fp32", "adam", 100.0),
}
_GB = 1e9


class StrategyFit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    strategy: Literal["data-parallel", "optimizer-sharding", "model-parallel"]
    per_device_gb: float = Field(
        description="training memory per device at the requirements' device count (micro-batch 1 for the split strategies)"
    )
    fits: bool
    min_devices: Optional[int] = Field(None, description="fewest devices on which this strategy fits (null: none)")


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
    bytes_per_parameter: float = Field(description="weights + gradients + master copy + optimizer states")
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
    notes: list[str] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)


def defaults_for(family: str) -> tuple[Precision, Optimizer, float]:
    return FAMILY_DEFAULTS.get(family, FAMILY_DEFAULTS["other"])


def bytes_per_parameter(precision: str, optimizer: str) -> tuple[float, float]:
    """(model-state bytes per parameter, bytes replicated under ZeRO-2 per DeepSpeed's estimator)."""
    w, g, master = _WEIGHTS_GRADS_MASTER[precision]
    return w + g + master + _OPTIMIZER_BYTES[optimizer][precision], w + g


def usable_memory(acc: Any, k: Consts = DEFAULT) -> tuple[Optional[float], str, list[Evidence]]:
    """Usable GB per device: the knowledge base's `usable_memory_gb`, else `memory_gb` less a reserve."""
    usable = acc.usable_memory_gb
    if usable is not None:
        return (
            float(usable.value),
            "knowledge base usable_memory_gb",
            [sourced_evidence(acc.id, usable, f"{acc.name}: {usable.value:g} GB usable")],
        )
    mem = getattr(acc, "memory_gb", None)
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


def memory_fit(route: Any, req: Any, kb: Any, k: Consts = DEFAULT) -> Optional[MemoryFit]:
    """The memory fit of a workflow's route, or None when there is no accelerator to fit (CPU)."""
    acc = route.accelerator
    if acc is None:
        return None
    m = req.model
    d_prec, d_opt, d_act = defaults_for(m.family)
    precision, optimizer = m.precision or d_prec, m.optimizer or d_opt
    act_mb = m.activation_mb_per_sample or d_act
    devices = req.hardware.devices
    params = m.parameters_millions * 1e6
    per_param, replicated = bytes_per_parameter(precision, optimizer)
    states = per_param * params
    act = act_mb * 1e6
    batch = req.workload.batch_size if req.workload else 1
    b_dev = max(1, math.ceil(batch / devices))
    ev = [
        req_evidence("model.parameters_millions", m.parameters_millions, f"{m.parameters_millions:g} M parameters"),
        req_evidence(
            "model.precision",
            precision,
            f"{precision} training, {optimizer}: {per_param:g} bytes/parameter of model states"
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
        bytes_per_parameter=per_param,
        states_gb=round(states / _GB, 3),
        activation_gb_per_sample=round(act / _GB, 4),
        batch_per_device=b_dev,
        data_parallel_gb=round((states + act * b_dev) / _GB, 3),
        strategy="unknown",
        evidence=ev,
    )
    if not m.activation_mb_per_sample:
        fit.notes.append(
            f"activations {act_mb:g} MB per sample assumed for a {m.family} (set model.activation_mb_per_sample)"
        )
    if req.workload is None:
        fit.notes.append("no workload: activations counted for one sample per device")
    if usable_gb is None:
        fit.notes.append(basis + ": memory fit not judged")
        return fit
    usable = usable_gb * _GB
    largest = 4 * k["LARGEST_LAYER_SHARE"] * params
    dp_one = states + act
    z2_fixed, z2_sharded = replicated * params + act, per_param * params
    z3_fixed, z3_sharded = largest + act, (per_param + 2) * params
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
    name = acc.name
    if fit.strategy == "does-not-fit":
        need = f"at least {fit.min_devices} x {name}" if fit.min_devices else f"more than any number of {name}"
        fit.notes.append(
            f"{m.parameters_millions:g} M parameters need {states / _GB:,.0f} GB of model states: {need} "
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
