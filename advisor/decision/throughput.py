"""Transformer throughput from precision- and family-matched MFU references, and published records
as caps.

tokens/s = MFU x peak (the job's 16-bit precision) x devices / model FLOPs per token
(advisor.decision.workload). The MFU range is the spread of the matched references (knowledge base
`mfu-references`): the same accelerator first, else the vendor's other chips, else every 16-bit
reference, each step said so; a single reference is widened by SINGLE_REFERENCE_WIDEN either side.
A bf16/fp16 job only ever matches 16-bit references (never TF32/FP32, which run at ~7% of a 16-bit
peak). References at scale carry their own communication loss, so no scaling factor is applied on top.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from advisor.decision.constants import DEFAULT, Consts
from advisor.decision.evidence import Evidence, sourced_evidence
from advisor.decision.workload import Shape, train_flops_per_token
from knowledge.models import Accelerator, KnowledgeBase, MfuReference, Record

SIXTEEN_BIT = ("bf16", "fp16")


@dataclass
class MfuRange:
    low: float
    high: float
    refs: list[MfuReference]
    basis: str
    notes: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)


def peak_16bit(acc: Accelerator) -> Optional[tuple[float, float]]:
    """(low, high) dense 16-bit TFLOPS: the value and its alternatives (bf16 first, else fp16)."""
    peak = acc.bf16_tflops or acc.fp16_tflops
    if peak is None:
        return None
    values = [peak.value, *(a.value for a in peak.alternatives)]
    return min(values), max(values)


def reference_mfu(ref: MfuReference, kb: KnowledgeBase) -> Optional[tuple[float, float]]:
    """The reference's MFU range: as stated, or derived from its tokens/s against the KB's peak."""
    if ref.mfu is not None:
        return ref.mfu.low, ref.mfu.high
    acc = kb.get(ref.accelerator, "accelerators")
    peak = peak_16bit(acc) if isinstance(acc, Accelerator) else None
    if peak is None or ref.tokens_per_second_per_device is None:
        return None
    shape = Shape(ref.layers or 1, ref.hidden or 1, 1, ref.sequence or 1, 0, [])
    achieved = ref.tokens_per_second_per_device.value * train_flops_per_token((ref.parameters_b or 0) * 1e9, shape)
    return achieved / (peak[1] * 1e12), achieved / (peak[0] * 1e12)


def mfu_range(
    kb: KnowledgeBase, acc: Accelerator, precision: str, family: str = "transformer-decoder", k: Consts = DEFAULT
) -> Optional[MfuRange]:
    """The MFU range for this accelerator, precision and family, from the closest matched references."""
    if precision not in SIXTEEN_BIT:
        return None  # fp32 LLM training has no reference here; the peak path covers it
    pool = [r for r in kb.mfu_references if r.precision in SIXTEEN_BIT]
    fam = [r for r in pool if r.family == family] or pool
    same = [r for r in fam if r.accelerator == acc.id]
    vendor = [r for r in fam if (a := kb.get(r.accelerator, "accelerators")) is not None and a.vendor == acc.vendor]
    for refs, basis in (
        (same, f"MFU references on {acc.name}"),
        (vendor, f"MFU references on other {acc.vendor} chips (none on {acc.name}), the MFU taken to transfer"),
        (fam, f"every 16-bit MFU reference (none on {acc.vendor} chips)"),
    ):
        spans = [(r, m) for r in refs if (m := reference_mfu(r, kb)) is not None]
        if spans:
            break
    else:
        return None
    low, high = min(m[0] for _, m in spans), max(m[1] for _, m in spans)
    out = MfuRange(low, high, [r for r, _ in spans], basis)
    if len(spans) == 1:
        mid, widen = (low + high) / 2, k["SINGLE_REFERENCE_WIDEN"]
        out.low, out.high = min(low, mid * (1 - widen)), max(high, mid * (1 + widen))
        out.notes.append(f"a single MFU reference: widened by {widen:.0%} either side (SINGLE_REFERENCE_WIDEN)")
    for r, m in spans:
        value = r.mfu if r.mfu is not None else r.tokens_per_second_per_device
        assert value is not None
        out.evidence.append(
            sourced_evidence(
                r.id,
                value,
                f"{r.system}, {r.model} on {r.devices} x {r.accelerator}, {r.precision} ({r.as_of}): MFU {m[0]:.0%}-{m[1]:.0%}",
            )
        )
    return out


def record_for(kb: KnowledgeBase, model: str, acc: Accelerator) -> Optional[Record]:
    """The published record of this model on this accelerator (fastest per device), if any."""
    found = [r for r in kb.records if r.model == model and r.accelerator == acc.id]
    return max(found, key=lambda r: r.per_device) if found else None
