"""Serving an inference-only product (`workload.kind: inference`): which runtime each workflow serves
through, and its throughput and latency per device from the knowledge base's serving references.

A reference row (`serving-references`) is scaled to the team's model and accelerator:
- model size: FLOPs and weight bytes per token both grow with N, so a rate scales by N_ref / N;
- accelerator: decoders generate token by token and are bound by memory bandwidth (a batched server
  reads the weights once per step), so their rate scales by bandwidth; encoders score whole sequences
  and are compute bound, so theirs scales by the 16-bit peak;
- the range is the rows' spread (the same accelerator first, else every row of the family); a single
  row is widened by SINGLE_REFERENCE_WIDEN either side;
- weight width: a decoder reads its weights every step, so a row measured with 8-bit weights (FP8
  MLPerf rows) is halved for 16-bit serving (x the row's bytes per weight / the served bytes);
- Ascend: no row states its set-up, so an NVIDIA row is carried over x SERVING_ASCEND_EFFICIENCY
  (an assumption, in the sensitivity search).
Latency: an encoder row's batch-1 latency scaled the same way; a decoder's floor per output token at
batch 1 is its weights read once from memory (N x bytes per weight / bandwidth).
With a stated load (`serving:`), the decoder's capacity and the verdict against its targets come from
advisor.decision.serving_capacity, on the workflow's accelerator and devices; the route's serving
stack (`Route.serving.supports`) decides which quantisations and precisions it may assume.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.constants import DEFAULT, Consts
from advisor.decision.evidence import Evidence, Span, sourced_evidence
from advisor.decision.findings import said
from advisor.decision.serving_capacity import WEIGHT_BYTES, ServingCapacity, judge
from advisor.requirements import Requirements
from advisor.requirements import Serving as LoadSpec
from knowledge.models import Accelerator, KnowledgeBase, ServingReference

# a load no memory holds: the capacity at as many requests as fit
FULL_BATCH = 10_000_000
# bytes per weight of a serving reference row, by the precision it ran at
ROW_BYTES = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0}

# The runtime each (framework, target, family) serves through (seed "MindSpore vs PyTorch, measured on
# the same task", deployment section: MindIR + Lite native on Ascend, ONNX/TensorRT on NVIDIA; MindIE is
# Huawei's LLM serving stack; ONNX -> OM via ATC is CANN's conversion path for exported models).
# The catalogue names each runtime by its code.
RUNTIME = {
    ("pytorch", "nvidia", "transformer-decoder"): "serve.runtime.tensorrt_llm_or_vllm",
    ("pytorch", "nvidia", "transformer-encoder"): "serve.runtime.tensorrt_or_onnxruntime",
    ("pytorch", "ascend", "transformer-decoder"): "serve.runtime.mindie_or_vllm_ascend",
    ("pytorch", "ascend", "transformer-encoder"): "serve.runtime.onnx_om_atc",
    ("mindspore", "ascend", "transformer-decoder"): "serve.runtime.mindie_mindspore",
    ("mindspore", "ascend", "transformer-encoder"): "serve.runtime.mindspore_lite_ascend",
    ("mindspore", "nvidia", "transformer-decoder"): "serve.runtime.mindspore_lite_gpu",
    ("mindspore", "nvidia", "transformer-encoder"): "serve.runtime.mindspore_lite_tensorrt",
}


class SloVerdict(BaseModel):
    """Can this workflow's serving route carry the stated load (`serving:` in the requirements) within
    its latency targets on the team's devices? The scoring reads `verdict` and `devices_needed`."""

    model_config = ConfigDict(extra="forbid")

    verdict: Literal["meets", "needs-devices", "cannot", "unknown"] = Field(
        description="meets: on the devices given; needs-devices: with devices_needed of them; "
        "cannot: no device count of this accelerator and route meets it; unknown: not enough to judge"
    )
    devices: int = Field(description="devices the team has for serving")
    devices_needed: Optional[int] = Field(None, description="the fewest devices that meet the load and targets")
    reason: str = ""


class Serving(BaseModel):
    """The serving path of one workflow: runtime, rate and latency, with what they rest on."""

    model_config = ConfigDict(extra="forbid")

    runtime: str
    family: Literal["transformer-decoder", "transformer-encoder"]
    unit: Literal["tokens/s", "samples/s"]
    per_device: Span
    total: Span = Field(description="per_device x devices")
    latency_ms: Optional[Span] = None
    latency_what: str = ""
    references: list[str] = Field(default_factory=list, description="serving-references ids used")
    evidence: list[Evidence] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    slo: Optional[SloVerdict] = Field(None, description="the stated serving load against its targets (serving:)")
    capacity: Optional[ServingCapacity] = Field(
        None, description="the serving arithmetic behind the verdict: memory, prefill, decode, instances"
    )


def serving_family(req: Requirements) -> Optional[Literal["transformer-decoder", "transformer-encoder"]]:
    """The served model's family, or None when no serving reference can describe it (CNNs, ...)."""
    if req.model.family != "transformer":
        return None
    return "transformer-encoder" if req.model.architecture == "encoder" else "transformer-decoder"


def _scale(ref_acc: Accelerator, acc: Accelerator, family: str) -> Optional[float]:
    """Rate on `acc` / rate on `ref_acc` for the same model: bandwidth for decoders, 16-bit peak otherwise."""
    if family == "transformer-decoder":
        a, b = acc.bandwidth_gbs, ref_acc.bandwidth_gbs
    else:
        a, b = acc.fp16_tflops or acc.bf16_tflops, ref_acc.fp16_tflops or ref_acc.bf16_tflops
    if a is None or b is None or b.value <= 0:
        return None
    return a.value / b.value


def _unsupported(route: object, req: Requirements) -> Optional[str]:
    """Why the workflow's serving stack cannot serve the stated quantisation (None: it can, or no stack named)."""
    stack = getattr(route, "serving", None)
    if stack is None or req.serving is None:
        return None
    q = req.serving.quantization
    if q not in stack.supports.quantization:
        return said(
            "serve.unsupported.quantization", stack=stack.name, quantization=q, listed=stack.supports.quantization
        )
    if q == "none" and not {"bf16", "fp16"} & set(stack.supports.precisions):
        return said("serve.unsupported.no_16bit", stack=stack.name)
    return None


def runtime_of(route: object, family: str) -> str:
    stack = getattr(route, "serving", None)
    if stack is not None:
        return stack.name
    key = (getattr(route, "framework", ""), getattr(route, "target", ""), family)
    return said(RUNTIME.get(key, "serve.runtime.vendor"))


def scaled_rows(
    kb: KnowledgeBase, acc: Accelerator, family: str, params_b: float, served: float
) -> list[tuple[ServingReference, float, Optional[float]]]:
    """Each serving reference of the family (this accelerator's first) rescaled to this model, accelerator
    and weight width: (row, rate per device, batch-1 latency or None)."""
    pool = [r for r in kb.serving_references if r.family == family]
    rows = [r for r in pool if r.accelerator == acc.id] or pool
    out: list[tuple[ServingReference, float, Optional[float]]] = []
    for r in rows:
        ref_acc = kb.get(r.accelerator, "accelerators")
        if not isinstance(ref_acc, Accelerator):
            continue
        hw = _scale(ref_acc, acc, family)
        if hw is None:
            continue
        factor = hw * r.parameters_b / params_b
        if family == "transformer-decoder":
            factor *= ROW_BYTES[r.precision] / served  # the weights read per step
        latency = r.latency_ms.value / factor if r.latency_ms is not None else None
        out.append((r, r.per_device.value * factor, latency))
    return out


def rescaled_rate(
    kb: KnowledgeBase, acc: Accelerator, family: str, params_b: float, served: float, k: Consts = DEFAULT
) -> Optional[tuple[float, float]]:
    """The rescaled rows' rate range per device (what a decoder without a stated load is scored on)."""
    scaled = scaled_rows(kb, acc, family, params_b, served)
    if not scaled:
        return None
    low, high, _, _ = _from_rows(scaled, acc, family, params_b, served, [], k)
    return low, high


def serving_for(
    route: object,
    acc: Optional[Accelerator],
    devices: int,
    req: Requirements,
    kb: Optional[KnowledgeBase],
    k: Consts = DEFAULT,
) -> Optional[Serving]:
    """The serving rate and latency of the workflow's route on `acc`, and with a stated load its capacity
    and verdict; None without a family, accelerator or anything to project from."""
    family = serving_family(req)
    target = getattr(route, "target", "")
    if family is None or acc is None or kb is None or target not in ("nvidia", "ascend"):
        return None
    quant = req.serving.quantization if req.serving is not None else "none"
    served = WEIGHT_BYTES[quant]
    params_b = req.model.parameters_millions / 1000
    scaled = scaled_rows(kb, acc, family, params_b, served)
    slo, capacity, cap_notes = _verdict(route, acc, devices, req, family, k)
    notes: list[str] = []
    unit: Literal["tokens/s", "samples/s"] = "tokens/s" if family == "transformer-decoder" else "samples/s"
    if capacity is not None:
        # a stated load: the rate the capacity arithmetic finds at it; the rescaled rows stand beside it
        per = capacity.output_tokens_per_second
        low, high = per.low / devices, per.high / devices
        latency, what = capacity.tpot_ms, said("serve.latency.at_load")
        notes.append(said("serve.note.capacity_rate", low=low, high=high))
        if scaled:
            r_low, r_high, _, _ = _from_rows(scaled, acc, family, params_b, served, [], k)
            notes.append(said("serve.note.references_beside", low=r_low, high=r_high))
    elif scaled:
        low, high, latency, what = _from_rows(scaled, acc, family, params_b, served, notes, k)
    else:
        return None
    notes.extend(cap_notes)
    evidence = [
        sourced_evidence(
            r.id,
            r.per_device,
            said(
                "serve.evidence.reference",
                runtime=r.runtime,
                model=r.model,
                devices=r.devices,
                accelerator=r.accelerator,
                precision=r.precision,
                scenario=r.scenario,
                as_of=r.as_of,
                rate=r.per_device.value,
                unit=unit,
                scaled=v,
            ),
        )
        for r, v, _ in scaled
    ]
    return Serving(
        runtime=runtime_of(route, family),
        family=family,
        unit=unit,
        per_device=Span(low=round(low, 3), high=round(high, 3), unit=said("serve.unit.per_device", unit=unit)),
        total=Span(low=round(low * devices, 3), high=round(high * devices, 3), unit=unit),
        latency_ms=latency,
        latency_what=what,
        references=[r.id for r, _, _ in scaled],
        evidence=evidence,
        notes=notes,
        slo=slo,
        capacity=capacity,
    )


def _from_rows(
    scaled: list[tuple[ServingReference, float, Optional[float]]],
    acc: Accelerator,
    family: str,
    params_b: float,
    served: float,
    notes: list[str],
    k: Consts,
) -> tuple[float, float, Optional[Span], str]:
    """The reference rows' rate range per device and latency, scaled (the notes say how)."""
    low, high = min(v for _, v, _ in scaled), max(v for _, v, _ in scaled)
    same = all(r.accelerator == acc.id for r, _, _ in scaled)
    if same:
        notes.append(said("serve.note.references_here", count=len(scaled), accelerator=acc.name))
    else:
        bandwidth = family == "transformer-decoder"
        notes.append(said("serve.note.references_elsewhere", count=len(scaled), bandwidth=bandwidth))
    notes.append(said("serve.note.model_size", params_b=params_b))
    if family == "transformer-decoder" and any(ROW_BYTES[r.precision] != served for r, _, _ in scaled):
        notes.append(said("serve.note.weight_bytes", served=served))
    if len(scaled) == 1:
        w = k["SINGLE_REFERENCE_WIDEN"]
        low, high = low * (1 - w), high * (1 + w)
        notes.append(said("serve.note.single_reference", widen=w))
    ascend = acc.vendor == "huawei" and not same
    if ascend:
        eff = k["SERVING_ASCEND_EFFICIENCY"]
        low, high = low * eff, high * eff
        notes.append(said("serve.note.ascend_efficiency", efficiency=eff))
    lat = [v for _, _, v in scaled if v is not None]
    if lat:
        lo, hi = min(lat), max(lat)
        if ascend:
            lo, hi = lo / k["SERVING_ASCEND_EFFICIENCY"], hi / k["SERVING_ASCEND_EFFICIENCY"]
        return (
            low,
            high,
            Span(low=round(lo, 3), high=round(hi, 3), unit="ms"),
            said("serve.latency.batch_one"),
        )
    if family == "transformer-decoder" and acc.bandwidth_gbs is not None:
        floor = served * params_b * 1e9 / (acc.bandwidth_gbs.value * 1e9) * 1000
        what = said("serve.latency.floor", served=served)
        return low, high, Span(low=round(floor, 3), high=round(floor, 3), unit="ms"), what
    return low, high, None, ""


def _verdict(
    route: object, acc: Accelerator, devices: int, req: Requirements, family: str, k: Consts
) -> tuple[Optional[SloVerdict], Optional[ServingCapacity], list[str]]:
    """The stated load (`serving:`) against the team's devices. Without one, a decoder product's capacity
    at a full batch of the `serving:` defaults (1,024-token prompts, 256-token answers), not judged."""
    if req.serving is None:
        if family != "transformer-decoder" or req.workload is None or req.workload.kind != "inference":
            return None, None, []
        full = req.model_copy(update={"serving": LoadSpec(concurrency=FULL_BATCH)})
        judged = judge(full, acc, devices, None, k)
        note = said("serve.note.no_load")
        return None, judged.capacity, [note] if judged.capacity is not None else []
    if family != "transformer-decoder":
        reason = said("serve.encoder_not_judged")
        return SloVerdict(verdict="unknown", devices=devices, reason=reason), None, [reason]
    judged = judge(req, acc, devices, _unsupported(route, req), k)
    slo = SloVerdict(
        verdict=judged.verdict, devices=devices, devices_needed=judged.devices_needed, reason=judged.reason
    )
    return slo, judged.capacity, [said("serve.note.load", reason=judged.reason)]
