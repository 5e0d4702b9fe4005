"""Transformer throughput from precision- and family-matched MFU references, and published records
as caps.

tokens/s = MFU x peak (the job's 16-bit precision) x devices / model FLOPs per token
(advisor.decision.workload). Each reference gives its MFU against its own accelerator's peak (the
first value the knowledge base lists; a reference given in tokens/s is divided by that same value,
so on its own accelerator MFU x peak gives back exactly its tokens/s and a peak's spread never
enters twice). On another accelerator the MFU is taken to transfer and the target's peak range
applies once. The pool is the closest match: the same accelerator, else the vendor's other chips,
else every 16-bit reference, each step said so; a mixture of experts takes MoE references first, a
LoRA/QLoRA job fine-tuning references first. A single reference is widened by SINGLE_REFERENCE_WIDEN
either side. The projection (advisor.decision.projections) scales each reference from its own device
count to the team's, once, and corrects for recompute the run and the team differ in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from advisor.decision.constants import DEFAULT, Consts
from advisor.decision.evidence import Evidence, sourced_evidence
from advisor.decision.findings import said
from advisor.decision.workload import Shape, train_flops_per_token
from knowledge.models import Accelerator, KnowledgeBase, MfuReference, Record

SIXTEEN_BIT = ("bf16", "fp16")


@dataclass(frozen=True)
class ReferenceMfu:
    """One reference's MFU [low, high] against its accelerator's first-listed peak."""

    ref: MfuReference
    low: float
    high: float


@dataclass
class MfuRange:
    low: float
    high: float
    refs: list[MfuReference]
    basis: str
    per_reference: list[ReferenceMfu] = field(default_factory=list)
    same_accelerator: bool = False
    """the references ran on the target itself: its first-listed peak applies, not its range"""
    notes: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)


def peak_16bit(acc: Accelerator) -> Optional[tuple[float, float]]:
    """(low, high) dense 16-bit TFLOPS: the value and its alternatives (bf16 first, else fp16)."""
    peak = acc.bf16_tflops or acc.fp16_tflops
    if peak is None:
        return None
    values = [peak.value, *(a.value for a in peak.alternatives)]
    return min(values), max(values)


def listed_peak(acc: Accelerator) -> Optional[float]:
    """The first-listed dense 16-bit TFLOPS (the value MFUs here are taken against)."""
    peak = acc.bf16_tflops or acc.fp16_tflops
    return peak.value if peak is not None else None


def reference_mfu(ref: MfuReference, kb: KnowledgeBase) -> Optional[tuple[float, float]]:
    """The reference's MFU range: as stated, or its tokens/s (x model FLOPs per token) against its
    accelerator's first-listed peak."""
    if ref.mfu is not None:
        return ref.mfu.low, ref.mfu.high
    acc = kb.get(ref.accelerator, "accelerators")
    peak = listed_peak(acc) if isinstance(acc, Accelerator) else None
    if peak is None or ref.tokens_per_second_per_device is None:
        return None
    shape = Shape(ref.layers or 1, ref.hidden or 1, 1, ref.sequence or 1, 0, [])
    params = (ref.active_parameters_b or ref.parameters_b or 0) * 1e9
    share = 0.01 if ref.fine_tune in ("lora", "qlora") else 1.0
    achieved = ref.tokens_per_second_per_device.value * train_flops_per_token(params, shape, share)
    return achieved / (peak * 1e12), achieved / (peak * 1e12)


def _matched(pool: list[MfuReference], moe: bool, fine_tune: bool) -> tuple[list[MfuReference], str]:
    """The references of the job's kind first: MoE for a mixture of experts, fine-tuning runs for LoRA
    (the kind: "moe", "fine-tune" or "" for plain dense pre-training)."""
    if moe:
        mine = [r for r in pool if r.is_moe]
        return (mine, "moe") if mine else ([r for r in pool if not r.fine_tune], "")
    dense = [r for r in pool if not r.is_moe]
    if fine_tune:
        mine = [r for r in dense if r.fine_tune in ("lora", "qlora")]
        return (mine, "fine-tune") if mine else ([r for r in dense if not r.fine_tune], "")
    return [r for r in dense if not r.fine_tune], ""


def mfu_range(
    kb: KnowledgeBase,
    acc: Accelerator,
    precision: str,
    family: str = "transformer-decoder",
    k: Consts = DEFAULT,
    moe: bool = False,
    fine_tune: bool = False,
    exclude: frozenset[str] = frozenset(),
    route: Optional[str] = None,
) -> Optional[MfuRange]:
    """The MFU range for this accelerator, precision and family, from the closest matched references:
    on this accelerator, those measured on the workflow's own training route (`route`, a routes id) when
    there are any (`exclude`: reference ids left out, for the calibration's held-out check)."""
    if precision not in SIXTEEN_BIT:
        return None  # fp32 LLM training has no reference here; the peak path covers it
    pool = [r for r in kb.mfu_references if r.id not in exclude and (r.precision in SIXTEEN_BIT or r.is_moe)]
    fam = [r for r in pool if r.family == family] or pool
    kind_pool, kind = _matched(fam, moe, fine_tune)
    same = [r for r in kind_pool if r.accelerator == acc.id]
    own = [r for r in same if route is not None and r.route == route]
    vendor = [
        r for r in kind_pool if (a := kb.get(r.accelerator, "accelerators")) is not None and a.vendor == acc.vendor
    ]
    where = {"kind": kind, "accelerator": acc.name, "vendor": acc.vendor}
    for refs, basis in (
        (own, said("throughput.mfu.own_route", **where, route=route)),
        (same, said("throughput.mfu.same_accelerator", **where)),
        (vendor, said("throughput.mfu.same_vendor", **where)),
        (kind_pool, said("throughput.mfu.every", **where)),
    ):
        spans = [ReferenceMfu(r, *m) for r in refs if (m := reference_mfu(r, kb)) is not None]
        if spans:
            break
    else:
        return None
    low, high = min(s.low for s in spans), max(s.high for s in spans)
    out = MfuRange(low, high, [s.ref for s in spans], basis, spans, same_accelerator=refs is same or refs is own)
    if len(spans) == 1:
        mid, widen = (low + high) / 2, k["SINGLE_REFERENCE_WIDEN"]
        out.low, out.high = min(low, mid * (1 - widen)), max(high, mid * (1 + widen))
        out.per_reference = [ReferenceMfu(spans[0].ref, out.low, out.high)]
        out.notes.append(said("throughput.mfu.single_reference", widen=widen))
    for s in spans:
        r = s.ref
        value = r.mfu if r.mfu is not None else r.tokens_per_second_per_device
        assert value is not None
        out.evidence.append(
            sourced_evidence(
                r.id,
                value,
                said(
                    "throughput.evidence.reference",
                    system=r.system,
                    model=r.model,
                    devices=r.devices,
                    accelerator=r.accelerator,
                    precision=r.precision,
                    as_of=r.as_of,
                    low=s.low,
                    high=s.high,
                ),
            )
        )
    return out


def record_for(kb: KnowledgeBase, model: str, acc: Accelerator) -> Optional[Record]:
    """The published record of this model on this accelerator (fastest per device), if any."""
    found = [r for r in kb.records if r.model == model and r.accelerator == acc.id]
    return max(found, key=lambda r: r.per_device) if found else None
