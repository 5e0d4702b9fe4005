"""Projections: for the team's workload on its target hardware, each workflow's images/s, time to train
and cost, as ranges, each with the basis it rests on:

  measured   a probe run on that kind of hardware (this host or a results file), scaled by FLOPs and
             devices where the workload differs;
  reference  a published measurement from the knowledge base on the same accelerator and framework;
  peak       the accelerator's peak x the knowledge base's derating ranges (operator coverage, memory
             bandwidth, multi-device communication);
  none       nothing to project from (said so, with why).

Multi-device projections say how they account for communication (`Projection.communication`, see
advisor.decision.communication) and whether the model fits the devices (`Projection.memory`, advisor.decision.memory).
Every sequence model (a transformer, including one whose FLOPs the team states) is projected in
tokens/s. The MFU path scales each reference from its own device count to the team's once (not along
the scaling curve beyond its last point, where the reference already runs), corrects for the recompute
the team's layout needs and the reference did not (and QLoRA's dequantisation), and never exceeds the
step's own communication bound (advisor.decision.communication.comm_compute) on the rate with the team's
recompute; each such factor is listed in `time_factors`. A rate that is not a positive finite number, or
a run of centuries, is a finding ("the projection is not meaningful"), not a time. A run of days gets a
failure and checkpoint allowance (advisor.decision.reliability) inside `time_to_train_hours`, shown on its own in `failure_allowance_hours`.
Energy is the fleet's server power at a typical draw (advisor.decision.power).
Each workflow's (framework, target, path, accelerator) comes from advisor.decision.workflows, once.

Pure functions of (requirements, knowledge base, probe suites, scaling result). No I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Optional, Sequence, Union

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.findings import Finding, finding, said
from advisor.decision.probe_fields import host_names
from advisor.decision.probe_fields import peak as read_peak
from advisor.decision.communication import (  # noqa: F401  (re-exported: the report and the TUI read them here)
    CommCheck,
    CommPlan,
    Communication,
    CommunicationBasis,
    StepSplit,
    ScalingMeasurement,
    ScalingSpread,
    carried_loss,
    comm_compute,
    communication_for,
    scaling_host,
    scaling_measurements,
    settle,
    single_device_note,
    unsupported,
)
from advisor.decision.constants import CONSTANTS, DEFAULT, Consts
from advisor.decision.evidence import (
    BASIS_RANK,
    Basis,
    Evidence,
    Span,
    kb_evidence,
    sourced_evidence,
)
from advisor.decision.memory import MemoryFit, defaults_for, memory_fit, trainable_share
from advisor.decision.power import energy_kwh, fleet_power
from advisor.decision.reliability import Reliability, allowance
from advisor.decision.throughput import MfuRange, listed_peak, mfu_range, peak_16bit, record_for
from knowledge.models import Accelerator, CostAssumption, Derating, KnowledgeBase, Reference, Sourced, SourcedRange
from advisor.decision.workload import active_parameters, model_shape, train_flops_per_token
from advisor.decision.pipeline import PipelineBest, PipelineFeed, pipeline_feed
from advisor.decision.serving import Serving, serving_for
from advisor.requirements import Requirements
from advisor.decision.workflows import fleet_view
from advisor.decision.workflows import (  # noqa: F401
    VENDOR_OF_TARGET,
    WORKFLOWS,
    Route,
    device_kind,
    framework_for,
    mindspore_gpu_support,
    path_for,
    peak_of,
    resolve_accelerator,
    routes,
    target_for,
)

if TYPE_CHECKING:  # the probe's result types, for the annotations only
    from probes.training.models import ProbeRun, ProbeSuite

# Training GFLOPs per image (forward + backward ~ 3x forward) at ImageNet size 224x224, from
# shared/reference/probe-protocol.md (derived). LeNet is 32x32 by construction.
WORKLOAD_GFLOPS = {"lenet": 0.00226, "resnet18": 10.9, "resnet50": 24.5}
# Below about 1 training GFLOP per sample, throughput is bound by per-step overhead and the input
# pipeline, not by FLOPs: scaling a ResNet-50 reference or a chip's peak down to LeNet (0.00226)
# projected ~200 million img/s on 8 Ascend cards (an H200 measures ~64,000 for LeNet). Only a
# measurement projects such a workload.
MIN_FLOP_SCALED_GFLOPS = 1.0


class TimeFactor(BaseModel):
    """One factor a projection's throughput went through, so a reviewer can redo the arithmetic."""

    model_config = ConfigDict(extra="forbid")

    name: Literal["device-scaling", "recompute", "qlora-dequantisation", "communication-bound"]
    low: float = Field(description="throughput multiplier at the slow end")
    high: float = Field(description="throughput multiplier at the fast end")
    detail: str


class Projection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workflow: str
    framework: Literal["pytorch", "mindspore"]
    path: str = Field(
        description="framework path: pytorch-cuda | pytorch-npu | pytorch-cpu | mindspore | mindspore-cpu | mindspore-gpu"
    )
    target: str = Field(description="training hardware kind: nvidia | ascend | cpu")
    accelerator: Optional[str] = Field(None, description="knowledge-base accelerator id")
    devices: int
    native: bool = Field(description="the framework is first-party on this hardware (no adapter layer)")
    supported: bool = True
    basis: Basis
    basis_detail: str
    images_per_second: Optional[Span] = None
    tokens_per_second: Optional[Span] = Field(None, description="transformer workloads: tokens/s over all devices")
    mfu: Optional[Span] = Field(None, description="transformer workloads: the MFU range used, from its references")
    time_to_train_hours: Optional[Span] = None
    compute_cost_usd: Optional[Span] = None
    energy_kwh: Optional[Span] = None
    evidence: list[Evidence] = Field(default_factory=list, description="what the throughput rests on")
    cost_evidence: list[Evidence] = Field(default_factory=list, description="prices and power behind cost and energy")
    notes: list[str] = Field(default_factory=list)
    assumptions: list[str] = Field(
        default_factory=list,
        exclude=True,
        description="the notes that state an assumption (a chip the team did not name, what an undecided target "
        "is compared on, a loss or an efficiency taken without a figure), in the notes' order: the report lists "
        "them among its assumptions",
    )
    warnings: list[str] = Field(
        default_factory=list, description="sanity bounds the projection crosses (under a minute, beyond a year)"
    )
    communication: Optional[Communication] = Field(
        None, description="multi-device communication: which basis the projection used"
    )
    memory: Optional[MemoryFit] = Field(
        None, description="does the model fit the target's devices, and how it must be split"
    )
    serving: Optional[Serving] = Field(
        None, description="inference-only product: the serving runtime, rate and latency from serving references"
    )
    input_pipeline: Optional[PipelineFeed] = Field(
        None, description="the measured input pipeline (advisor probe --pipeline) against this projection"
    )
    time_factors: list[TimeFactor] = Field(
        default_factory=list,
        description="factors the throughput was divided by or capped at, each with what it rests on "
        "(recompute, QLoRA dequantisation, the communication bound, the references' device counts)",
    )
    training_hours: Optional[Span] = Field(
        None, description="compute time alone, before the failure and checkpoint allowance"
    )
    failure_allowance_hours: Optional[Span] = Field(
        None, description="checkpoint writes, restarts and lost work (included in time_to_train_hours)"
    )
    reliability: Optional[Reliability] = Field(None, description="how the failure allowance was worked out")


@dataclass(frozen=True)
class Estimate:
    """A throughput range from one projection path, and what it did with the communication factor."""

    low: float
    high: float
    evidence: list
    notes: list
    applied: bool = False
    """the path multiplied by the plan's communication factor"""
    ref_devices: frozenset = frozenset()
    """device counts of references whose own communication loss the estimate carries"""
    compute: Optional[tuple[float, float]] = None
    """MFU path: the rate before any communication factor (the references' MFU x peak x devices, with the
    team's recompute and QLoRA's dequantisation): what the communication bound is a share of"""
    assumed: list = field(default_factory=list)
    """the notes among `notes` that state an assumption, in their order (Projection.assumptions)"""


@dataclass(frozen=True)
class MeasuredRun:
    """A usable probe run (status ok, a rate, not marked unusable), the host it ran on and the
    knowledge-base accelerator the probe named for it (None on a CPU)."""

    run: ProbeRun
    host: str
    accelerator: Optional[str]

    @property
    def kind(self) -> str:
        return device_kind(self.run.device or "")

    @property
    def where(self) -> str:
        return said("proj.host.where", accelerator=self.accelerator, host=self.host) if self.accelerator else self.host


def _typed(suites: Sequence[object]) -> list[ProbeSuite]:
    from probes.training.models import ProbeSuite

    return [s if isinstance(s, ProbeSuite) else ProbeSuite.model_validate(s) for s in suites if s is not None]


def measured_runs(suites: Sequence[object]) -> list[MeasuredRun]:
    """Every successful probe run across the suites. A run the measurement marks `quality: unusable`
    (busy host, unstable steps) never enters a projection."""
    out = []
    for suite in _typed(suites):
        names = host_names(suite.host.model_extra)
        label = names.hostname or suite.host.cpu_model or names.name or said("proj.host.unnamed")
        probed = read_peak(suite.vendor_peak).accelerator  # the probe names the accelerator it measured
        for run in suite.runs:
            if run.status == "ok" and (run.images_per_second or 0) > 0 and run.quality != "unusable":
                on_device = device_kind(run.device or "") != "cpu"
                out.append(MeasuredRun(run, str(label), probed if on_device else None))
    return out


def best_run(runs: list[MeasuredRun], framework: str, kind: str, model: Optional[str]) -> Optional[MeasuredRun]:
    """The fastest ok run of a framework on a hardware kind, preferring the workload's own model."""
    mine = [r for r in runs if r.run.framework == framework and r.kind == kind]
    # Only the workload's own network: a LeNet's efficiency says little about a ResNet's.
    pool = [r for r in mine if r.run.model == model] if model else mine
    if not pool:
        return None
    return max(pool, key=lambda r: (r.run.images_per_second or 0, r.run.id))


def workload_gflops(req: Requirements, k: Consts = DEFAULT) -> Optional[float]:
    """Training GFLOPs per sample; for a transformer, per sequence (6 N + 12 L s h per token x s; N the
    active parameters of a MoE); a stated `gflops_per_sample` as stated."""
    w = req.workload
    if w is None:
        return None
    if w.gflops_per_sample:
        return w.gflops_per_sample
    if is_text(req):
        shape = model_shape(req.model)
        return tokens_gflops(req, k) * shape.sequence
    return WORKLOAD_GFLOPS.get(w.model)


def tokens_gflops(req: Requirements, k: Consts = DEFAULT) -> float:
    """Model GFLOPs per training token (advisor.decision.workload), LoRA's frozen weight gradients left out."""
    m = req.model
    return train_flops_per_token(active_parameters(m), model_shape(m), trainable_share(m, k)) / 1e9


def is_text(req: Requirements) -> bool:
    """A sequence model, projected in tokens/s: a transformer, whether its FLOPs are derived or stated."""
    return (
        req.workload is not None
        and req.workload.model in ("transformer", "custom")
        and req.model.family == "transformer"
    )


def _job_precision(req: Requirements) -> str:
    precision = req.model.precision or defaults_for(req.model.family)[0]
    return {"mixed": "fp16", "bf16": "bf16"}.get(precision, precision)


def _recompute_share(ref_recompute: Optional[str], k: Consts) -> float:
    """Extra compute of a reference's recompute mode over a dense step (a forward pass is a third of it)."""
    full = 1.0 / 3.0
    return {"full": full, "selective": k["RECOMPUTE_SELECTIVE_SHARE"] * full}.get(ref_recompute or "none", 0.0)


def team_recompute(req: Requirements, fit: Optional[MemoryFit], k: Consts = DEFAULT) -> Optional[float]:
    """Extra compute per step of the team's recompute: the memory layout's, else the stated mode's."""
    if fit is not None and fit.layout is not None:
        return fit.layout.recompute_overhead
    mode = req.model.recompute
    if mode is None:
        return None
    m = req.model
    shape = model_shape(m)
    from advisor.decision.workload import inference_flops_per_token

    full = inference_flops_per_token(active_parameters(m), shape) / train_flops_per_token(
        active_parameters(m), shape, trainable_share(m, k)
    )
    return {"none": 0.0, "selective": k["RECOMPUTE_SELECTIVE_SHARE"] * full, "full": full}[mode]


def _mfu_estimate(
    kb: KnowledgeBase,
    acc: Accelerator,
    route: Route,
    req: Requirements,
    gflops: float,
    devices: int,
    plan: CommPlan,
    fit: Optional[MemoryFit],
    k: Consts = DEFAULT,
) -> Optional[tuple[Estimate, MfuRange, list[TimeFactor]]]:
    """sequences/s = MFU x 16-bit peak x devices / GFLOPs per sequence (advisor.decision.throughput),
    each reference scaled from its device count to the team's once, then divided by the recompute the
    team needs beyond the reference's (and QLoRA's dequantisation)."""
    m = req.model
    fine = m.fine_tune in ("lora", "qlora")
    stack = getattr(route, "training", None)
    mfu = mfu_range(
        kb, acc, _job_precision(req), k=k, moe=m.is_moe, fine_tune=fine, route=stack.id if stack is not None else None
    )
    span = peak_16bit(acc)
    listed = listed_peak(acc)
    if span is None or listed is None or mfu is None:
        return None
    # on the references' own accelerator their rate is their rate: its first-listed peak, not its range
    p_low, p_high = (listed, listed) if mfu.same_accelerator else span
    notes = [said("proj.mfu.basis", low=mfu.low, high=mfu.high, refs=len(mfu.refs), basis=mfu.basis), *mfu.notes]
    if p_low != p_high:
        notes.append(said("proj.mfu.peak_disagrees", accelerator=acc.name, low=p_low, high=p_high))
    factors: list[TimeFactor] = []
    team_rec = team_recompute(req, fit, k)
    lows, highs, used = [], [], False
    compute_lows, compute_highs = [], []
    scaled: list[tuple[str, int, float, float]] = []
    for ref in mfu.per_reference:
        k_low, k_high, applied = plan.factor(ref.ref.devices)
        used = used or applied
        if applied and ref.ref.devices != devices:
            scaled.append((ref.ref.id, ref.ref.devices, k_low, k_high))
        rec = 1.0
        if team_rec is not None:
            rec = (1 + _recompute_share(ref.ref.recompute, k)) / (1 + team_rec)
        compute_lows.append(ref.low * p_low * 1e3 / gflops * devices * rec)
        compute_highs.append(ref.high * p_high * 1e3 / gflops * devices * rec)
        lows.append(compute_lows[-1] * k_low)
        highs.append(compute_highs[-1] * k_high)
    if scaled:
        factors.append(
            TimeFactor(
                name="device-scaling",
                low=round(min(x[2] for x in scaled), 4),
                high=round(max(x[3] for x in scaled), 4),
                detail=said("proj.factor.device_scaling", devices=devices, basis=plan.comm.basis, scaled=scaled),
            )
        )
    if team_rec:
        refs = sorted({r.recompute or "none/selective" for r in mfu.refs})
        factors.append(
            TimeFactor(
                name="recompute",
                low=round(1 / (1 + team_rec), 4),
                high=round(1 / (1 + team_rec), 4),
                detail=said("proj.factor.recompute", share=team_rec, modes=refs),
            )
        )
    low, high = min(lows), max(highs)
    compute = (min(compute_lows), max(compute_highs))
    if m.fine_tune == "qlora" and not any(r.fine_tune == "qlora" for r in mfu.refs):
        q = 1 / (1 + k["QLORA_DEQUANT_OVERHEAD"])
        low, high = low * q, high * q
        compute = (compute[0] * q, compute[1] * q)
        factors.append(
            TimeFactor(
                name="qlora-dequantisation",
                low=round(q, 4),
                high=round(q, 4),
                detail=said("proj.factor.qlora", factor=q, source=CONSTANTS["QLORA_DEQUANT_OVERHEAD"].source),
            )
        )
    refs = frozenset(r.devices for r in mfu.refs)
    est = Estimate(low, high, mfu.evidence, notes, applied=used, ref_devices=refs, compute=compute)
    return est, mfu, factors


def _derating(kb: Optional[KnowledgeBase], factor: str) -> Optional[Derating]:
    entries = [d for d in getattr(kb, "derating", []) if d.factor == factor]
    return sorted(entries, key=lambda d: d.id)[0] if entries else None


# --- the projection paths -------------------------------------------------------------------------


def _loss_assumed(plan: CommPlan, span_notes: list[str]) -> list[str]:
    """The plan's notes when its communication loss is assumed (no knowledge-base figure for the
    devices): an assumption the report lists, not only a working."""
    return list(span_notes) if plan.comm.basis == "assumed" else []


def _measured(m: MeasuredRun, gflops: Optional[float], devices: int, plan: CommPlan) -> Estimate:
    run = m.run
    ips = float(run.images_per_second or 0.0)
    ci = run.ci95 or [ips * 0.9, ips * 1.1]
    low, high = float(ci[0]), float(ci[1])
    notes: list[str] = []
    ev = [
        Evidence(
            kind="measured",
            ref=run.id,
            value=round(ips, 3),
            ci95=[low, high],
            detail=said(
                "proj.evidence.probe_run",
                framework=run.framework,
                mode=run.mode,
                model=run.model,
                batch_size=run.batch_size,
                device=run.device,
                host=m.host,
                rate=ips,
                quality=run.quality,
            ),
        )
    ]
    run_flops = run.train_flops_per_image
    if gflops and run_flops:
        factor = run_flops / (gflops * 1e9)
        if abs(factor - 1) > 0.05:
            low, high = low * factor, high * factor
            notes.append(said("proj.flops_scaled", run_gflops=run_flops / 1e9, gflops=gflops))
    s_low, s_high, s_ev, s_notes = plan.span()
    return Estimate(
        low * devices * s_low,
        high * devices * s_high,
        ev + s_ev,
        notes + s_notes,
        applied=devices > 1,
        assumed=notes + _loss_assumed(plan, s_notes),  # the probe's efficiency taken to hold at the workload's FLOPs
    )


def _imagenet_flops(r: Reference) -> Optional[float]:
    """Training GFLOPs per image of a reference run, when known: ImageNet-size runs of table models."""
    if "imagenet" not in r.dataset.lower():
        return None  # CIFAR-size inputs differ 15x by stem variant: not comparable by FLOPs
    return WORKLOAD_GFLOPS.get(r.model.lower().replace("-", ""))


def _reference(
    kb: KnowledgeBase,
    acc: Accelerator,
    framework: str,
    req: Requirements,
    gflops: Optional[float],
    devices: int,
    plan: CommPlan,
) -> Optional[Estimate]:
    """Published runs of this framework on this accelerator, scaled by FLOPs to the workload. A
    multi-device reference already includes its communication loss, a single-device one does not."""
    if not gflops:
        return None
    pool = [r for r in kb.references if r.accelerator == acc.id and r.framework == framework and _imagenet_flops(r)]
    if not pool:
        return None
    # Prefer runs with the same single/multi-device shape: a multi-device run's per-device rate already
    # carries its communication loss. A measured device-scaling efficiency of the target's shape is
    # better than a published run's loss: then single-device runs, times the measured efficiency.
    multi = devices > 1 and not plan.measured
    pool = [r for r in pool if (r.devices > 1) == multi] or pool
    notes: list[str] = []
    model = req.workload.model if req.workload else None
    if any(r.model.lower().replace("-", "") != model for r in pool):
        notes.append(said("proj.reference.other_models", accelerator=acc.name, models=sorted({r.model for r in pool})))
    _, _, s_ev, s_notes = plan.span()
    lows, highs, ev, used = [], [], [], False
    for r in sorted(pool, key=lambda r: r.id):
        per_dev = r.images_per_second_per_device * _imagenet_flops(r) / gflops
        k_low, k_high, applied = plan.factor(r.devices)
        used = used or applied
        if applied and r.devices > 1:
            notes.append(
                said("proj.reference.device_scaled", ref_devices=r.devices, devices=devices, low=k_low, high=k_high)
            )
        lows.append(per_dev * devices * k_low)
        highs.append(per_dev * devices * k_high)
        ev.append(
            sourced_evidence(
                r.id,
                r.images_per_second,
                said(
                    "proj.evidence.reference",
                    framework=r.framework,
                    mode=r.mode,
                    model=r.model,
                    dataset=r.dataset,
                    devices=r.devices,
                    accelerator=acc.name,
                    precision=r.precision,
                    rate=r.images_per_second.value,
                ),
                figure="throughput",
            )
        )
    if used:
        ev.extend(s_ev)
        notes.extend(s_notes)
    refs = frozenset(r.devices for r in pool if carried_loss(devices, r.devices))
    assumed = _loss_assumed(plan, s_notes) if used else []
    return Estimate(min(lows), max(highs), ev, notes, applied=used, ref_devices=refs, assumed=assumed)


def _peak_span(peak: Sourced) -> tuple[float, float]:
    """A peak figure and the other sources' values for it (e.g. 910B: 280 vs ~320 TFLOPS)."""
    values = [peak.value] + [a.value for a in getattr(peak, "alternatives", []) or []]
    return min(values), max(values)


def _reference_by_peak(
    kb: KnowledgeBase, acc: Accelerator, framework: str, gflops: Optional[float], devices: int, plan: CommPlan
) -> Optional[Estimate]:
    """No reference on this accelerator: take the fraction of peak the framework reached in published
    runs on the same vendor's other accelerators, and apply it to this one's peak."""
    peak = peak_of(acc)
    if peak is None or not gflops:
        return None
    _, _, s_ev, s_notes = plan.span()
    p_low, p_high = _peak_span(peak)
    lows, highs, fractions, ev, used, refs = [], [], [], [], False, set()
    for r in sorted(kb.references, key=lambda r: r.id):
        other = next((a for a in kb.accelerators if a.id == r.accelerator), None)
        r_flops = _imagenet_flops(r)
        if other is None or other.id == acc.id or other.vendor != acc.vendor or r.framework != framework:
            continue
        other_peak = peak_of(other)
        if other_peak is None or not r_flops:
            continue
        fraction = r.images_per_second_per_device * r_flops * 1e9 / (other_peak.value * 1e12)
        k_low, k_high, applied = plan.factor(r.devices)  # multi-device runs include their own losses
        used = used or applied
        if carried_loss(devices, r.devices):
            refs.add(r.devices)
        fractions.append(fraction)
        lows.append(p_low * 1e3 / gflops * fraction * devices * k_low)
        highs.append(p_high * 1e3 / gflops * fraction * devices * k_high)
        ev.append(
            sourced_evidence(
                r.id,
                r.images_per_second,
                said(
                    "proj.evidence.reference_elsewhere",
                    framework=r.framework,
                    mode=r.mode,
                    model=r.model,
                    dataset=r.dataset,
                    devices=r.devices,
                    accelerator=other.name,
                    rate=r.images_per_second.value,
                    fraction=fraction,
                ),
                figure="throughput",
            )
        )
        ev.append(
            sourced_evidence(
                other.id,
                other_peak,
                said("proj.evidence.peak", accelerator=other.name, value=other_peak.value),
                figure="peak",
            )
        )
    if not fractions:
        return None
    ev.append(
        sourced_evidence(
            acc.id,
            peak,
            said("proj.evidence.peak_range", accelerator=acc.name, low=p_low, high=p_high)
            if p_low != p_high
            else said("proj.evidence.peak", accelerator=acc.name, value=peak.value),
            figure="peak",
        )
    )
    notes = [
        said(
            "proj.reference.by_peak", framework=framework, accelerator=acc.name, low=min(fractions), high=max(fractions)
        )
    ]
    if used:
        ev.extend(s_ev)
        notes.extend(s_notes)
    assumed = _loss_assumed(plan, s_notes) if used else []
    return Estimate(min(lows), max(highs), ev, notes, applied=used, ref_devices=frozenset(refs), assumed=assumed)


def _adapter_ratio(kb: Optional[KnowledgeBase]) -> Optional[tuple[float, float, Evidence]]:
    """Throughput of an adapter path relative to the first-party one: upper vs lower half of the
    operator-coverage loss (about 0.78-0.89 with 10-30%; the field report "Ascend 910 and MindSpore in practice" reports 15-20% lower)."""
    d = _derating(kb, "operator_coverage")
    if d is None:
        return None
    lo, hi = d.loss.low, d.loss.high
    mid = (lo + hi) / 2
    ev = sourced_evidence(
        d.id,
        d.loss,
        said(
            "proj.evidence.adapter_ratio",
            loss_low=lo,
            loss_high=hi,
            kept_low=(1 - hi) / (1 - lo),
            kept_high=(1 - mid) / (1 - lo),
        ),
        figure="derating",
    )
    return (1 - hi) / (1 - lo), (1 - mid) / (1 - lo), ev


def _reference_via_native(
    kb: KnowledgeBase,
    acc: Accelerator,
    framework: str,
    req: Requirements,
    gflops: Optional[float],
    devices: int,
    plan: CommPlan,
) -> Optional[Estimate]:
    """An adapter path with no reference of its own (PyTorch through torch_npu on Ascend): the
    first-party framework's reference-based projection x the adapter ratio."""
    native = "mindspore" if framework == "pytorch" else "pytorch"
    base = _reference(kb, acc, native, req, gflops, devices, plan) or _reference_by_peak(
        kb, acc, native, gflops, devices, plan
    )
    ratio = _adapter_ratio(kb)
    if base is None or ratio is None:
        return None
    note = said(
        "proj.reference.via_native", framework=framework, vendor=acc.vendor, native=native, low=ratio[0], high=ratio[1]
    )
    return Estimate(
        base.low * ratio[0],
        base.high * ratio[1],
        base.evidence + [ratio[2]],
        base.notes + [note],
        applied=base.applied,
        ref_devices=base.ref_devices,
        assumed=base.assumed,
    )


def _peak(
    kb: Optional[KnowledgeBase], acc: Accelerator, native: bool, gflops: Optional[float], devices: int, plan: CommPlan
) -> Optional[Estimate]:
    peak = peak_of(acc)
    if peak is None or not gflops:
        return None
    which = "FP16" if acc.fp16_tflops else ("BF16" if acc.bf16_tflops else "FP32")
    ev = [
        sourced_evidence(
            acc.id,
            peak,
            said("proj.evidence.peak_precision", accelerator=acc.name, precision=which, value=peak.value),
            figure="peak",
        )
    ]
    notes: list[str] = []
    eff_low, eff_high = 1.0, 1.0
    for factor in ("operator_coverage", "memory_bandwidth"):
        d = _derating(kb, factor)
        if d is None:
            notes.append(said("proj.derating.missing", factor=factor))
            continue
        lo, hi = d.loss.low, d.loss.high
        if factor == "operator_coverage":
            # A first-party framework has most operators tuned for its chip (lower half of the loss);
            # an adapter layer leaves more of them on generic kernels (upper half). Seed 002 (2.3)
            # reports 15-20% lower throughput for adapter PyTorch than native MindSpore on Ascend.
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if not native else (lo, mid)
            notes.append(said("proj.derating.coverage_half", native=native))
        eff_low *= 1 - hi
        eff_high *= 1 - lo
        ev.append(
            sourced_evidence(
                d.id,
                d.loss,
                said("proj.evidence.derating", factor=factor, low=d.loss.low, high=d.loss.high),
                figure="derating",
            )
        )
    s_low, s_high, s_ev, s_notes = plan.span()
    p_low, p_high = _peak_span(peak)
    return Estimate(
        p_low * 1e3 / gflops * eff_low * devices * s_low,
        p_high * 1e3 / gflops * eff_high * devices * s_high,
        ev + s_ev,
        notes + s_notes,
        applied=devices > 1,
        assumed=_loss_assumed(plan, s_notes),
    )


def _price(kb: Optional[KnowledgeBase], acc: Optional[Accelerator]) -> Optional[CostAssumption]:
    if kb is None or acc is None:
        return None
    prices = sorted(kb.costs_for("accelerator_hour", acc.id), key=lambda c: c.id)
    return prices[0] if prices else None


def range_of(value: Union[Sourced, SourcedRange]) -> tuple[float, float]:
    if hasattr(value, "low"):
        return value.low, value.high
    return value.value, value.value


def not_projectable(req: Requirements) -> bool:
    """A workload whose FLOPs the team states for a family with no published throughput here (an RNN, a
    GNN, a recommender or diffusion model written as `other`): neither a CNN's nor a transformer's
    efficiency transfers to it, so no reference or peak figure projects it; only a measurement does."""
    w = req.workload
    return w is not None and w.model == "custom" and req.model.family not in ("cnn", "transformer")


def _find(
    route: Route,
    req: Requirements,
    kb: Optional[KnowledgeBase],
    runs: list[MeasuredRun],
    gflops: Optional[float],
    devices: int,
    plan: CommPlan,
    cap: int,
    k: Consts = DEFAULT,
    fit: Optional[MemoryFit] = None,
) -> Optional[tuple[str, str, Estimate, list[TimeFactor], Optional[MfuRange]]]:
    """The best projection path available up to the basis cap: (basis, detail, estimate, the factors
    it went through, the MFU range when it used one)."""
    acc, framework, target, native = route.accelerator, route.framework, route.target, route.native
    model = req.workload.model if req.workload else None
    if cap >= 3:
        run = best_run(runs, framework, target, model)
        if run is not None and (gflops or run.run.model == model or req.workload is None):
            detail = said("proj.basis.measured", run=run.run.id, where=run.where)
            return "measured", detail, _measured(run, gflops, devices, plan), [], None
    if not_projectable(req):
        return None
    flop_scalable = gflops is None or gflops >= MIN_FLOP_SCALED_GFLOPS
    text = is_text(req)
    if cap >= 2 and kb is not None and acc is not None and text and gflops:
        found = _mfu_estimate(kb, acc, route, req, gflops, devices, plan, fit, k)
        if found is not None:
            est, mfu, factors = found
            return (
                "reference",
                said("proj.basis.mfu", accelerator=acc.name),
                est,
                factors,
                mfu,
            )
    # image references (ResNet, ...) describe image models only: a sequence model never borrows them
    if cap >= 2 and kb is not None and acc is not None and req.workload is not None and flop_scalable and not text:
        r = _reference(kb, acc, framework, req, gflops, devices, plan)
        if r is not None:
            return "reference", said("proj.basis.reference", framework=framework, accelerator=acc.name), r, [], None
        r = _reference_by_peak(kb, acc, framework, gflops, devices, plan)
        if r is not None:
            return (
                "reference",
                said("proj.basis.reference_by_peak", framework=framework, vendor=acc.vendor, accelerator=acc.name),
                r,
                [],
                None,
            )
        if not native:
            r = _reference_via_native(kb, acc, framework, req, gflops, devices, plan)
            if r is not None:
                return (
                    "reference",
                    said("proj.basis.reference_via_native", vendor=acc.vendor),
                    r,
                    [],
                    None,
                )
    if cap >= 1 and kb is not None and acc is not None and flop_scalable:
        r = _peak(kb, acc, native, gflops, devices, plan)
        if r is not None:
            return "peak", said("proj.basis.peak", accelerator=acc.name), r, [], None
    return None


def project(
    workflow: str,
    req: Requirements,
    kb: Optional[KnowledgeBase],
    suites: Sequence[object],
    *,
    basis_cap: Optional[Basis] = None,
    scaling: object = None,
    scaling_here: bool = False,
    route: Optional[Route] = None,
    k: Consts = DEFAULT,
    pipeline: Optional[dict[str, PipelineBest]] = None,
) -> Projection:
    """One workflow's projection. `basis_cap` forces a weaker basis (so workflows compare like with like).
    `scaling`: a scaling probe result (ScalingResult or its JSON), `scaling_here`: measured on this host.
    `route`: the workflow's (framework, target, path, accelerator) from `routes` (worked out if absent).
    `pipeline`: framework -> the measured input pipeline (advisor.decision.pipeline.PipelineBest): caps the throughput
    at hosts x its rate where it cannot feed the devices."""
    route = route or routes(req, kb)[workflow]
    req = fleet_view(req, kb, route.target)  # several fleets: this workflow's own
    acc, target, devices = route.accelerator, route.target, req.hardware.devices
    gflops = workload_gflops(req, k)
    proj = Projection(
        workflow=workflow,
        framework=route.framework,
        path=route.path,
        target=target,
        accelerator=acc.id if acc else None,
        devices=devices,
        native=route.native,
        basis="none",
        basis_detail="",
        notes=list(route.notes),
        # a chip standing in for one the team did not name, and what an undecided target is compared on
        assumptions=[n for n in (route.assumed_chip, route.basis_note) if n],
    )
    if route.basis_note:
        proj.notes.append(route.basis_note)
    if workflow == "hybrid":
        proj.notes.append(said("proj.hybrid"))
    if req.workload is not None and req.workload.kind == "inference":
        return _serving_only(proj, route, req, kb, acc, target, devices, k)
    if req.serving is not None:  # a serving load stated beside training: judged on this fleet
        proj.serving = serving_for(route, acc, devices, req, kb, k)
    proj.memory = memory_fit(route, req, kb, k)
    plan = communication_for(route.framework, target, acc, req, kb, scaling, scaling_here, k)
    proj.communication = plan.comm
    if route.path == "mindspore-gpu":
        gpu_ok, last_gpu, fw = mindspore_gpu_support(kb)
        if not gpu_ok:
            proj.supported = False
            proj.basis_detail = said("proj.mindspore_no_gpu", last_gpu=last_gpu)
            if fw is not None:
                proj.evidence.append(kb_evidence(fw, proj.basis_detail, last_gpu))
            proj.communication = unsupported(plan)
            return proj
    runs = measured_runs(suites)
    if acc is not None:
        # A run on another accelerator model is not a measurement of this one (an H200 run read as
        # "measured" for A10s overstated them ~4x): those runs fall back to the knowledge base.
        elsewhere = [
            r
            for r in runs
            if r.accelerator and r.accelerator != acc.id and r.kind == target and r.run.framework == route.framework
        ]
        if elsewhere:
            runs = [r for r in runs if r not in elsewhere]
            others = sorted({str(r.accelerator) for r in elsewhere})
            proj.notes.append(said("proj.runs_elsewhere", accelerators=others, target=acc.id))
    cap = BASIS_RANK[basis_cap] if basis_cap else 3
    found = _find(route, req, kb, runs, gflops, devices, plan, cap, k, proj.memory)
    if found is None:
        proj.basis_detail = _why_none(req, kb, acc, target, gflops)
        proj.communication = settle(plan, False, frozenset(), projected=False)
        return proj
    basis, detail, est, factors, mfu = found
    proj.communication = settle(plan, est.applied, est.ref_devices, projected=True)
    low, high = est.low, est.high
    layout = proj.memory.layout if proj.memory is not None else None
    split = (
        StepSplit(
            layout.tensor_parallel,
            layout.pipeline_parallel,
            layout.data_parallel,
            layout.expert_parallel,
            gathers_weights=layout.zero_stage >= 3,
        )
        if layout is not None
        else None
    )
    share = mfu.high if mfu is not None else None
    grad_bytes = 4.0 if (req.model.precision or defaults_for(req.model.family)[0]) == "fp32" else 2.0
    check = comm_compute(acc, req, gflops, k, kb, split, share, grad_bytes)
    if check is not None:
        proj.communication = proj.communication.model_copy(
            update={"comm_compute_ratio": round(check.ratio, 4), "notes": proj.communication.notes + [check.note]}
        )
        if est.compute is not None:
            low, high = _communication_bound(proj, low, high, check, est.compute, factors)
    proj.time_factors = factors
    if devices <= 1 and est.ref_devices:
        proj.notes.append(single_device_note(est.ref_devices))
    proj.basis, proj.basis_detail = basis, detail
    proj.evidence.extend(est.evidence)
    proj.notes.extend(est.notes)
    proj.assumptions.extend(est.assumed)
    best = (pipeline or {}).get(route.framework)
    if best is not None and high > 0:
        low, high = _input_pipeline(proj, req, best, acc, target, devices, low, high, k)
    low, high = _bounded(proj, req, kb, acc, devices, low, high, k)
    text = is_text(req)
    why = _not_meaningful(req, low, high, "sequences/s" if text else "images/s", k)
    if why is not None:
        proj.warnings.append(said("proj.not_meaningful", why=why))
        proj.basis, proj.basis_detail = "none", said("proj.not_meaningful", why=why)
        return proj
    proj.images_per_second = Span(low=round(low, 3), high=round(high, 3), unit="sequences/s" if text else "images/s")
    if text and gflops:
        seq = model_shape(req.model).sequence
        proj.tokens_per_second = Span(low=round(low * seq, 1), high=round(high * seq, 1), unit="tokens/s")
        peaks = peak_16bit(acc) if acc is not None else None
        if mfu is not None and peaks is not None:
            p_low, p_high = (listed_peak(acc), listed_peak(acc)) if mfu.same_accelerator else peaks
            # the MFU the projection runs at, after every factor: never above the communication bound
            proj.mfu = Span(
                low=round(low * gflops / (devices * p_low * 1e3), 4),
                high=round(high * gflops / (devices * p_high * 1e3), 4),
                unit="MFU",
            )
    if req.workload is not None:
        _time_and_cost(proj, req, kb, acc, devices, low, high, k)
    return proj


def _samples(req: Requirements) -> float:
    """Samples the run trains on: its tokens over the sequence length for a sequence model, else samples x epochs."""
    w = req.workload
    assert w is not None
    if w.tokens and is_text(req):
        return w.tokens / model_shape(req.model).sequence
    return w.samples * w.epochs


def _not_meaningful(req: Requirements, low: float, high: float, unit: str, k: Consts) -> Optional[Finding]:
    """Why a projected rate is a finding rather than a number: not a positive finite rate (a peak or a
    sequence length so far out that the arithmetic underflows), or a run beyond MEANINGFUL_MAX_HOURS even
    at its fast end (centuries say the inputs are wrong, not how long the plan takes). A run under a
    minute keeps its numbers with the SANITY_MIN_HOURS warning: the total cost of ownership reads its
    time (withheld, the cost would fall as the run grows)."""
    if not (math.isfinite(low) and math.isfinite(high)) or low <= 0 or high <= 0:
        return finding("proj.rate_not_finite", low=low, high=high, unit=unit)
    if req.workload is None:
        return None
    samples = _samples(req)
    fastest, slowest = samples / high / 3600, samples / low / 3600
    if not math.isfinite(slowest):
        return finding("proj.rate_no_finite_time", low=low, unit=unit)
    if fastest > k["MEANINGFUL_MAX_HOURS"]:
        return finding("proj.run_beyond_max", years=fastest / 8766, max_years=k["MEANINGFUL_MAX_HOURS"] / 8766)
    return None


def _serving_only(
    proj: Projection,
    route: Route,
    req: Requirements,
    kb: Optional[KnowledgeBase],
    acc: Optional[Accelerator],
    target: str,
    devices: int,
    k: Consts,
) -> Projection:
    """An inference-only product trains nothing: no training throughput, time, memory fit or cost."""
    proj.communication = None
    proj.serving = serving_for(route, acc, devices, req, kb, k)
    where = acc.name if acc else target
    if proj.serving is None:
        proj.basis_detail = said("proj.serving.no_reference", where=where)
        return proj
    s = proj.serving
    proj.basis = "reference"
    proj.basis_detail = said(
        "proj.serving.basis", where=where, runtime=s.runtime, low=s.per_device.low, high=s.per_device.high, unit=s.unit
    )
    proj.evidence.extend(s.evidence)
    proj.notes.extend(s.notes)
    return proj


def _communication_bound(
    proj: Projection,
    low: float,
    high: float,
    check: CommCheck,
    compute: tuple[float, float],
    factors: list[TimeFactor],
) -> tuple[float, float]:
    """Cap an MFU projection at the step's own communication bound: the compute-only rate of its MFU
    range (with the team's recompute: it is compute too) x the share of linear the step's communication
    leaves (no overlap at the slow end, full overlap at the fast end)."""
    cap_low, cap_high = compute[0] * check.kept_low, compute[1] * check.kept_high
    # a bound within 1% of the projection is inside the precision of its own inputs: left out
    if low <= cap_low * 1.01 and high <= cap_high * 1.01:
        return low, high
    factors.append(
        TimeFactor(
            name="communication-bound",
            low=round(check.kept_low, 4),
            high=round(check.kept_high, 4),
            detail=said(
                "proj.factor.communication_bound", ratio=check.ratio, kept_low=check.kept_low, kept_high=check.kept_high
            ),
        )
    )
    proj.notes.append(said("proj.communication_bound", kept_low=check.kept_low, kept_high=check.kept_high))
    return min(low, cap_low), min(high, cap_high)


def _input_pipeline(
    proj: Projection,
    req: Requirements,
    best: PipelineBest,
    acc: Optional[Accelerator],
    target: str,
    devices: int,
    low: float,
    high: float,
    k: Consts,
) -> tuple[float, float]:
    """The measured input pipeline against the projection: shown, and a cap where it cannot feed it."""
    feed = pipeline_feed(
        best,
        low,
        high,
        devices,
        int(k["DEVICES_PER_HOST"]),
        acc.name if acc else f"{target} device",
        k["PIPELINE_MIN_PASSES"],
        k["PIPELINE_WORKERS_PER_HOST"],
    )
    proj.input_pipeline = feed
    proj.evidence.append(
        Evidence(
            kind="measured",
            ref=f"pipeline:{best.run_id}",
            value=best.samples_per_second,
            detail=said("proj.evidence.pipeline", detail=feed.detail),
        )
    )
    if req.workload is not None and req.workload.model != "lenet":
        proj.notes.append(said("proj.pipeline.small_images"))
    if feed.capped and feed.host_rate is not None:
        cap = feed.hosts * feed.host_rate
        low, high = min(low, cap), min(high, cap)
        proj.warnings.append(
            said("proj.pipeline.bounds", high=high, hosts=feed.hosts, framework=best.framework, variant=best.variant)
        )
    return low, high


def _bounded(
    proj: Projection,
    req: Requirements,
    kb: Optional[KnowledgeBase],
    acc: Optional[Accelerator],
    devices: int,
    low: float,
    high: float,
    k: Consts,
) -> tuple[float, float]:
    """Every cap at once: the published record for this model on this accelerator,
    and the assumed loader bound of an image workload (a measured pipeline replaces it). The capped
    range is what the score, the time and the schedule all use."""
    w = req.workload
    if w is None or high <= 0:
        return low, high
    rec = record_for(kb, w.model, acc) if kb is not None and acc is not None else None
    if rec is not None and high > rec.per_device * devices:
        cap = rec.per_device * devices
        proj.warnings.append(
            said(
                "proj.record.cap",
                benchmark=rec.benchmark,
                record_devices=rec.devices,
                accelerator=acc.name,
                record=rec.samples_per_second.value,
                cap=cap,
                devices=devices,
                high=high,
            )
        )
        record = said("proj.evidence.record", benchmark=rec.benchmark, as_of=rec.as_of)
        proj.evidence.append(sourced_evidence(rec.id, rec.samples_per_second, record, figure="throughput"))
        low, high = min(low, cap), cap
    if is_text(req) or (proj.input_pipeline is not None and proj.input_pipeline.applied):
        return low, high  # an applied measured pipeline replaces the assumed loader bound
    hosts = max(1.0, devices / k["DEVICES_PER_HOST"])
    feed = hosts * k["INPUT_PIPELINE_PER_HOST"]
    if high > feed:
        proj.warnings.append(said("proj.loader.bounds", high=high, hosts=hosts, feed=feed))
        low, high = min(low, feed), feed
    return low, high


def _time_and_cost(
    proj: Projection,
    req: Requirements,
    kb: Optional[KnowledgeBase],
    acc: Optional[Accelerator],
    devices: int,
    low: float,
    high: float,
    k: Consts,
) -> None:
    """Time, cost and energy from the rate (samples/s, positive and finite: `_not_meaningful` checked it)."""
    samples = _samples(req)
    compute = Span(low=round(samples / high / 3600, 4), high=round(samples / low / 3600, 4), unit="hours")
    proj.training_hours = compute
    checkpoint = proj.memory.checkpoint_gb if proj.memory is not None else 0.0
    rel = allowance(compute, devices, checkpoint, k)
    if rel is not None:
        proj.reliability = rel
        proj.failure_allowance_hours = rel.allowance_hours
        proj.notes.extend(rel.notes)
        extra = rel.allowance_hours
        proj.time_to_train_hours = Span(
            low=round(compute.low + extra.low, 4), high=round(compute.high + extra.high, 4), unit="hours"
        )
    else:
        proj.time_to_train_hours = compute
    hours = proj.time_to_train_hours
    if hours.low < k["SANITY_MIN_HOURS"]:
        proj.warnings.append(said("proj.time.under_a_minute", seconds=hours.low * 3600))
    if hours.high > k["SANITY_MAX_HOURS"]:
        proj.warnings.append(said("proj.time.beyond_a_year", years=hours.high / 8766))
    price = _price(kb, acc)
    if price is not None and acc is not None:
        p_low, p_high = range_of(price.usd)
        proj.compute_cost_usd = Span(
            low=round(hours.low * devices * p_low, 2), high=round(hours.high * devices * p_high, 2), unit="USD"
        )
        proj.cost_evidence.append(
            kb_evidence(
                price,
                said("proj.evidence.price", accelerator=acc.name, low=p_low, high=p_high, as_of=price.as_of),
                [p_low, p_high],
                figure="price",
            )
        )
    elif acc is not None:
        proj.notes.append(said("proj.no_price", accelerator=acc.name))
    power = fleet_power(acc, k)
    if power is not None:
        proj.energy_kwh = energy_kwh(power, devices, hours, k)
        low_kw, high_kw = power.typical_kw(devices, k)
        for e in power.evidence:
            proj.cost_evidence.append(
                e.model_copy(
                    update={"detail": said("proj.evidence.power", basis=power.basis, low_kw=low_kw, high_kw=high_kw)}
                )
            )


def _why_none(
    req: Requirements, kb: Optional[KnowledgeBase], acc: Optional[Accelerator], target: str, gflops: Optional[float]
) -> str:
    if kb is None:
        return said("proj.none.no_kb")
    if target == "cpu":
        return said("proj.none.cpu", model=req.workload.model if req.workload else None)
    if acc is None:
        return said("proj.none.no_accelerator", target=target)
    if not_projectable(req):
        return said("proj.none.not_projectable", family=req.model.family, accelerator=acc.name)
    if not gflops:
        return said("proj.none.no_workload")
    if gflops < MIN_FLOP_SCALED_GFLOPS:
        return said("proj.none.overhead_bound", gflops=gflops, accelerator=acc.name)
    return said("proj.none.no_peak", accelerator=acc.name)


def project_all(
    req: Requirements,
    kb: Optional[KnowledgeBase],
    suites: Sequence[object],
    scaling: object = None,
    scaling_here: bool = False,
    rs: Optional[dict[str, Route]] = None,
    k: Consts = DEFAULT,
    pipeline: Optional[dict[str, PipelineBest]] = None,
) -> dict[str, Projection]:
    """Each workflow's projection on its best basis."""
    rs = rs or routes(req, kb)
    return {
        wf: project(
            wf, req, kb, suites, scaling=scaling, scaling_here=scaling_here, route=rs[wf], k=k, pipeline=pipeline
        )
        for wf in WORKFLOWS
    }


def common_basis(projections: dict[str, Projection]) -> Basis:
    """The best basis every supported workflow shares: comparisons are made like with like."""
    ranks = [BASIS_RANK[p.basis] for p in projections.values() if p.supported]
    if not ranks:
        return "none"
    lowest = min(ranks)
    return next(b for b, r in BASIS_RANK.items() if r == lowest)
