"""Can a decoder be served at the stated load within its latency targets, and on how many devices?

From first principles, the way an engineer sizes a serving box:
- memory: the weights at the served width (none: 16-bit; int8, w8a8, fp8: 1 byte; w4a16: 4 bits plus a
  16-bit scale per group of 128) plus the KV cache of every request in flight, layers x 2 x KV heads x
  head size x 2 bytes per token of prompt and output, within the usable memory less a workspace
  (SERVING_WORKSPACE_SHARE). An instance spans the fewest devices (tensor parallel, within a host) that
  hold the weights and one request.
- prefill (time to first token): 2 N_active x prompt + 2 L prompt^2 h FLOPs at SERVING_PREFILL_MFU of
  the served precision's peak (16-bit; int8 TOPS for w8a8; twice the 16-bit peak for fp8).
- decode: each step reads the weights once (a MoE the experts its batch touches) and every request's
  KV cache, at SERVING_BANDWIDTH_EFFICIENCY of the memory bandwidth, unless its 2 N_active x B FLOPs
  take longer at the prefill share of peak; B requests per step.
- both at once (continuous batching): an instance holding B requests completes
  B / (B x prefill + output x step(B)) requests per second, and each output token takes
  step(B) + B x prefill / output (the prompts it prefills in between).
The verdict: the fewest devices (instances x their size) that hold the concurrency, reach the request
rate and meet the TTFT/TPOT targets at the pessimistic end of the efficiencies; "meets" on the
team's devices, "needs-devices" with that count, "cannot" when no count does (a prompt's prefill or a
single token slower than its target at the largest instance, or the weights beyond a host).
Precision support: a device without bf16 (the Ascend 310P) serves 16-bit weights as fp16; fp8 needs
FP8 hardware; w8a8 needs int8 TOPS; a route's serving stack must list the quantisation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.constants import DEFAULT, Consts
from advisor.decision.evidence import Span
from advisor.decision.findings import Finding, finding, said
from advisor.decision.memory import usable_memory
from advisor.decision.workload import Shape, active_parameters, model_shape
from advisor.requirements import Requirements
from knowledge.models import Accelerator

# Bytes per served weight. w4a16: 4-bit weights and one fp16 scale per group of 128 (AWQ/GPTQ's usual
# group size): 4 + 16/128 = 4.125 bits.
WEIGHT_BYTES = {"none": 2.0, "int8": 1.0, "w8a8": 1.0, "fp8": 1.0, "w4a16": 4.125 / 8}
KV_BYTES = 2.0  # a 16-bit KV cache (no KV quantisation assumed)
INSTANCE_SIZES = (1, 2, 4, 8, 16, 32, 64)
MAX_INSTANCES = 1 << 20


class ServingCapacity(BaseModel):
    """The serving arithmetic on the team's devices, with what a reviewer needs to redo it."""

    model_config = ConfigDict(extra="forbid")

    quantization: str
    weights_precision: str = Field(description="fp16 | bf16 | int8 | fp8 | int4: the served weights")
    weights_gb: float
    kv_mb_per_token: float
    kv_gb_per_request: float = Field(description="prompt + output tokens of one request")
    usable_gb_per_device: float = Field(description="usable memory less the workspace")
    instance_devices: int = Field(description="devices one model instance spans (tensor parallel)")
    max_batch: int = Field(description="requests one instance holds in memory at once")
    instances: int = Field(description="instances on the team's devices")
    batch: int = Field(description="requests per instance at the stated load (capped at max_batch)")
    ttft_ms: Span = Field(description="time to first token: one prompt's prefill, no queueing")
    tpot_ms: Span = Field(description="time per output token at the stated load")
    decode_tokens_per_second: Span = Field(
        description="generated tokens/s over the team's devices at max_batch, decode only"
    )
    requests_per_second: Span = Field(
        description="requests/s the team's devices sustain at the stated load, prefill included"
    )
    output_tokens_per_second: Span = Field(
        description="generated tokens/s over the team's devices at the stated load, prefill included (requests/s x output)"
    )
    notes: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class Model:
    """What the serving arithmetic needs of the served model and device."""

    params: float
    active: float
    shape_layers: int
    hidden: int
    kv_per_token: float  # bytes
    weight_bytes: float  # per parameter
    shared: float  # parameters every token reads (all of a dense model)
    per_expert: float
    experts: int
    top_k: int
    prompt: int
    output: int
    usable: float  # bytes per device, less the workspace
    bandwidth: float  # bytes/s per device
    peak: float  # FLOP/s per device at the served precision
    precision: str  # the served weights: bf16 | fp16 | int8 | fp8 | int4


@dataclass(frozen=True)
class Efficiency:
    bandwidth: float
    prefill: float


def _prefill_s(m: Model, t: int, e: Efficiency) -> float:
    flops = 2 * m.active * m.prompt + 2 * m.shape_layers * m.prompt**2 * m.hidden
    return flops / (t * m.peak * e.prefill)


def _step_s(m: Model, t: int, b: int, e: Efficiency) -> float:
    """One decode step of b requests: the weights read (a MoE the experts b tokens touch) and the KV cache
    of every request at its mean context over the instance's bandwidth, or, at large batches, the step's
    2 N_active x b FLOPs at the prefill share of peak, whichever is longer."""
    touched = m.shared + min(m.experts, b * m.top_k) * m.per_expert if m.experts > 1 else m.params
    context = m.prompt + m.output / 2
    read = touched * m.weight_bytes + b * m.kv_per_token * context
    return max(read / (t * m.bandwidth * e.bandwidth), 2 * m.active * b / (t * m.peak * e.prefill))


def max_batch(m: Model, t: int) -> int:
    room = t * m.usable - m.params * m.weight_bytes
    return max(0, int(room // (m.kv_per_token * (m.prompt + m.output))))


@dataclass(frozen=True)
class Point:
    """One instance size and count at one load, and what it achieves."""

    t: int
    n: int
    batch: int
    ttft_s: float
    tpot_s: float
    rps: float  # over all instances


def _point(
    m: Model, t: int, n: int, concurrency: Optional[int], rps: Optional[float], e: Efficiency
) -> Optional[Point]:
    """The load spread over n instances of t devices (None when it does not fit in memory)."""
    cap = max_batch(m, t)
    if cap < 1:
        return None
    p = _prefill_s(m, t, e)

    def rate(b: int) -> float:
        return n * b / (b * p + m.output * _step_s(m, t, b, e))

    if concurrency is not None:
        b = math.ceil(concurrency / n)
    elif rate(cap) < (rps or 0):
        b = cap  # even a full instance falls short: the caller sees the rate missed
    else:  # the fewest requests in flight that carry the rate (the rate grows with them)
        lo, hi = 0, 1
        while rate(hi) < (rps or 0):
            lo, hi = hi, min(cap, hi * 2)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if rate(mid) < (rps or 0) else (lo, mid)
        b = hi
    if b > cap:
        return None
    return Point(t, n, b, p, _step_s(m, t, b, e) + b * p / m.output, rate(b))


def _meets(pt: Optional[Point], req: Requirements) -> Optional[str]:
    """None when the point meets the stated load and targets, else what it misses."""
    s = req.serving
    assert s is not None
    if pt is None:
        return said("serving.miss.kv_cache")
    if s.ttft_ms is not None and pt.ttft_s * 1000 > s.ttft_ms:
        return said("serving.miss.ttft", ttft_ms=pt.ttft_s * 1000, target_ms=s.ttft_ms)
    if s.tpot_ms is not None and pt.tpot_s * 1000 > s.tpot_ms:
        return said("serving.miss.tpot", tpot_ms=pt.tpot_s * 1000, target_ms=s.tpot_ms)
    if s.requests_per_second is not None and pt.rps < s.requests_per_second:
        return said("serving.miss.rate", rps=pt.rps, target=s.requests_per_second)
    return None


def fewest_devices(m: Model, req: Requirements, sizes: list[int], e: Efficiency) -> tuple[Optional[Point], str]:
    """The fewest devices (instances x size) that meet the load and targets, or None with why not."""
    s = req.serving
    assert s is not None
    best: Optional[Point] = None
    why = said("serving.no_instance_holds_weights")
    for t in sizes:
        if max_batch(m, t) < 1:
            continue
        # more instances only help: find the first n that meets, doubling then bisecting
        top = _point(m, t, MAX_INSTANCES, s.concurrency, s.requests_per_second, e)
        miss = _meets(top, req)
        if miss is not None:
            why = said("serving.even_most_instances_miss", instance_devices=t, instances=MAX_INSTANCES, miss=miss)
            continue
        lo, hi = 0, 1
        while _meets(_point(m, t, hi, s.concurrency, s.requests_per_second, e), req) is not None:
            lo, hi = hi, hi * 2
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (
                (lo, mid)
                if _meets(_point(m, t, mid, s.concurrency, s.requests_per_second, e), req) is None
                else (mid, hi)
            )
        pt = _point(m, t, hi, s.concurrency, s.requests_per_second, e)
        if pt is not None and (best is None or pt.t * pt.n < best.t * best.n):
            best = pt
    return best, why


# the findings that say the device cannot run the stated quantisation at all (not a missing figure)
CANNOT_SERVE = frozenset({"serving.precision.no_fp8", "serving.precision.no_int8"})


def served_precision(acc: Accelerator, quantization: str) -> tuple[Optional[str], Optional[float], str]:
    """(weights precision, peak FLOP/s for prefill, a note) of a quantisation on a device; a None
    precision says the device cannot run it (the note says why)."""
    width, peak, note = _precision(acc, quantization)
    return width, peak, str(note) if note is not None else ""


def _precision(acc: Accelerator, quantization: str) -> tuple[Optional[str], Optional[float], Optional[Finding]]:
    """served_precision with its note as a finding (the verdict reads its code)."""
    sixteen = acc.bf16_tflops or acc.fp16_tflops
    if quantization == "fp8":
        if not acc.fp8 or sixteen is None:
            return None, None, finding("serving.precision.no_fp8", accelerator=acc.name)
        return "fp8", 2 * sixteen.value * 1e12, finding("serving.precision.fp8")
    if quantization == "w8a8":
        if acc.int8_tops is None:
            return None, None, finding("serving.precision.no_int8", accelerator=acc.name)
        return "int8", acc.int8_tops.value * 1e12, finding("serving.precision.w8a8")
    if sixteen is None:
        return None, None, finding("serving.precision.no_16bit_peak", accelerator=acc.name)
    width = {"int8": "int8", "w4a16": "int4"}.get(quantization)
    if width is None:
        width = "bf16" if acc.bf16_tflops is not None else "fp16"
    note = None if acc.bf16_tflops is not None else finding("serving.precision.fp16_for_bf16", accelerator=acc.name)
    return width, sixteen.value * 1e12, note


def model_for(req: Requirements, acc: Accelerator, k: Consts = DEFAULT) -> tuple[Optional[Model], list[Finding]]:
    """The served model on this device, or None with the findings saying what is missing."""
    s = req.serving
    assert s is not None
    notes: list[Finding] = []
    width, peak, note = _precision(acc, s.quantization)
    if note:
        notes.append(note)
    usable_gb, basis, _ = usable_memory(acc, k)
    if width is None or peak is None:
        return None, notes
    if usable_gb is None or acc.bandwidth_gbs is None:
        return None, notes + [finding("serving.no_memory_figure", accelerator=acc.name)]
    mdl = req.model
    shape: Shape = model_shape(mdl)
    kv_heads = min(shape.heads, int(k["SERVING_KV_HEADS"]))
    head = shape.hidden / shape.heads
    params, active = mdl.parameters_millions * 1e6, active_parameters(mdl)
    experts, top_k = (mdl.experts or 1), (mdl.experts_per_token or 1)
    per_expert = (params - active) / (experts - top_k) if experts > 1 and experts > top_k else 0.0
    return (
        Model(
            params=params,
            active=active,
            shape_layers=shape.layers,
            hidden=shape.hidden,
            kv_per_token=shape.layers * 2 * kv_heads * head * KV_BYTES,
            weight_bytes=WEIGHT_BYTES[s.quantization],
            shared=params - experts * per_expert if experts > 1 else params,
            per_expert=per_expert,
            experts=experts,
            top_k=top_k,
            prompt=s.prompt_tokens,
            output=s.output_tokens,
            usable=usable_gb * 1e9 * (1 - k["SERVING_WORKSPACE_SHARE"]),
            bandwidth=acc.bandwidth_gbs.value * 1e9,
            peak=peak,
            precision=width,
        ),
        notes
        + [
            finding(
                "serving.kv_cache",
                kv_heads=kv_heads,
                head=head,
                layers=shape.layers,
                mb_per_token=shape.layers * 2 * kv_heads * head * KV_BYTES / 1e6,
                usable_memory=basis,
            )
        ],
    )


Verdict = Literal["meets", "needs-devices", "cannot", "unknown"]


@dataclass(frozen=True)
class Judged:
    verdict: Verdict
    devices_needed: Optional[int]
    reason: str
    capacity: Optional[ServingCapacity]


def judge(req: Requirements, acc: Accelerator, devices: int, supported: Optional[str], k: Consts = DEFAULT) -> Judged:
    """The stated load (`serving:`) against this device and count. `supported`: why the route cannot
    serve it (a quantisation or precision its stack does not list), or None."""
    s = req.serving
    assert s is not None
    if supported is not None:
        return Judged("cannot", None, supported, None)
    m, notes = model_for(req, acc, k)
    if m is None:
        reason = "; ".join(map(str, notes)) or said("serving.no_figures")
        verdict: Verdict = "cannot" if any(n.code in CANNOT_SERVE for n in notes) else "unknown"
        return Judged(verdict, None, reason, None)
    per_host = int(k["DEVICES_PER_HOST"])
    sizes = [t for t in INSTANCE_SIZES if t <= per_host]
    slow = Efficiency(k["SERVING_BANDWIDTH_EFFICIENCY_LOW"], k["SERVING_PREFILL_MFU_LOW"])
    fast = Efficiency(k["SERVING_BANDWIDTH_EFFICIENCY_HIGH"], k["SERVING_PREFILL_MFU_HIGH"])
    need, why = fewest_devices(m, req, sizes, slow)
    need_fast, _ = fewest_devices(m, req, sizes, fast)
    # the team's devices: the smallest instance size that meets the load on them, else the one that
    # carries the most requests per second
    fitting = [t for t in sizes if max_batch(m, t) >= 1 and t <= devices]
    on_team = next(
        (
            t
            for t in fitting
            if _meets(_point(m, t, devices // t, s.concurrency, s.requests_per_second, slow), req) is None
        ),
        max(fitting, key=lambda t: _carried(m, t, devices, req, slow), default=None),
    )
    capacity = _capacity(m, req, on_team, devices, slow, fast, notes) if on_team is not None else None
    if need is None:
        return Judged("cannot", None, said("serving.no_count_meets", accelerator=acc.name, why=why), capacity)
    needed = need.t * need.n
    if needed <= devices and on_team is not None:
        regrouped = capacity is not None and (capacity.instance_devices, capacity.instances) != (need.t, need.n)
        return Judged(
            "meets",
            needed,
            said(
                "serving.meets",
                needed=needed,
                accelerator=acc.name,
                instances=need.n,
                instance_devices=need.t,
                devices=devices,
                team_instances=capacity.instances if regrouped else None,
                team_instance_devices=capacity.instance_devices if regrouped else None,
            ),
            capacity,
        )
    fast = need_fast.t * need_fast.n if need_fast is not None and need_fast.t * need_fast.n != needed else None
    if on_team is None:
        least = next((t for t in sizes if max_batch(m, t) >= 1), None)
        miss = said("serving.miss.weights", instance_devices=least)
    else:
        n = devices // on_team
        miss = _meets(_point(m, on_team, n, s.concurrency, s.requests_per_second, slow), req) or ""
        if s.concurrency and math.ceil(s.concurrency / n) > max_batch(m, on_team):
            miss = said(
                "serving.miss.concurrency",
                concurrency=s.concurrency,
                instances=n,
                instance_devices=on_team,
                each=math.ceil(s.concurrency / n),
                fit=max_batch(m, on_team),
                kv_gb=m.kv_per_token * (m.prompt + m.output) / 1e9,
            )
    return Judged(
        "needs-devices",
        needed,
        said(
            "serving.needs_devices",
            devices=devices,
            accelerator=acc.name,
            miss=miss,
            needed=needed,
            instances=need.n,
            instance_devices=need.t,
            optimistic=fast,
        ),
        capacity,
    )


def _carried(m: Model, t: int, devices: int, req: Requirements, e: Efficiency) -> float:
    """Requests per second `devices` carry in instances of t at the stated load (capped at what fits)."""
    s = req.serving
    assert s is not None
    n = max(1, devices // t)
    cap = max_batch(m, t)
    b = min(cap, math.ceil(s.concurrency / n)) if s.concurrency else cap
    return n * b / (b * _prefill_s(m, t, e) + m.output * _step_s(m, t, b, e))


def _capacity(
    m: Model, req: Requirements, t: int, devices: int, slow: Efficiency, fast: Efficiency, notes: list[Finding]
) -> ServingCapacity:
    s = req.serving
    assert s is not None
    n = max(1, devices // t)
    cap = max_batch(m, t)
    pts = [
        _point(m, t, n, min(s.concurrency, n * cap) if s.concurrency else None, s.requests_per_second, e)
        for e in (slow, fast)
    ]
    batch = pts[0].batch if pts[0] is not None else cap
    ttft = [_prefill_s(m, t, e) * 1000 for e in (slow, fast)]
    tpot = [_step_s(m, t, batch, e) * 1000 + batch * _prefill_s(m, t, e) * 1000 / m.output for e in (slow, fast)]
    decode = [n * cap / _step_s(m, t, cap, e) for e in (slow, fast)]
    rps = [n * batch / (batch * _prefill_s(m, t, e) + m.output * _step_s(m, t, batch, e)) for e in (slow, fast)]
    return ServingCapacity(
        quantization=s.quantization,
        weights_precision=m.precision,
        weights_gb=round(m.params * m.weight_bytes / 1e9, 3),
        kv_mb_per_token=round(m.kv_per_token / 1e6, 4),
        kv_gb_per_request=round(m.kv_per_token * (m.prompt + m.output) / 1e9, 4),
        usable_gb_per_device=round(m.usable / 1e9, 3),
        instance_devices=t,
        max_batch=cap,
        instances=n,
        batch=batch,
        ttft_ms=Span(low=round(min(ttft), 3), high=round(max(ttft), 3), unit="ms"),
        tpot_ms=Span(low=round(min(tpot), 3), high=round(max(tpot), 3), unit="ms"),
        decode_tokens_per_second=Span(low=round(min(decode), 3), high=round(max(decode), 3), unit="tokens/s"),
        requests_per_second=Span(low=round(min(rps), 5), high=round(max(rps), 5), unit="requests/s"),
        output_tokens_per_second=Span(
            low=round(min(rps) * m.output, 3), high=round(max(rps) * m.output, 3), unit="tokens/s"
        ),
        notes=[str(n) for n in notes],
    )
