"""Projections: for the team's workload on its target hardware, each workflow's images/s, time to train
and cost, as ranges, each with the basis it rests on:

  measured   a probe run on that kind of hardware (this host or a results file), scaled by FLOPs and
             devices where the workload differs;
  reference  a published measurement from the knowledge base on the same accelerator and framework;
  peak       the accelerator's peak x the knowledge base's derating ranges (operator coverage, memory
             bandwidth, multi-device communication);
  none       nothing to project from (said so, with why).

Pure functions of (requirements, knowledge base, probe suites). No I/O.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.requirements import Requirements

Basis = Literal["measured", "reference", "peak", "none"]
BASIS_RANK = {"measured": 3, "reference": 2, "peak": 1, "none": 0}
WORKFLOWS: tuple[str, ...] = ("pytorch", "mindspore", "hybrid")

# Training GFLOPs per image (forward + backward ~ 3x forward) at ImageNet size 224x224, from
# shared/reference/probe-protocol.md (derived). LeNet is 32x32 by construction.
WORKLOAD_GFLOPS = {"lenet": 0.00226, "resnet18": 10.9, "resnet50": 24.5}
# Share of a device's steady throughput kept per added device when the knowledge base has no
# communication derating: used only as a last resort and reported as an assumption.
_VENDOR_OF_TARGET = {"nvidia": "nvidia", "ascend": "huawei", "cpu": "generic"}


class Evidence(BaseModel):
    """Where a number came from: a probe run, a knowledge-base entry, or a requirements field."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["measured", "knowledge", "requirement"]
    ref: str = Field(description="probe run id | knowledge-base entry id | requirements field path")
    detail: str
    value: Optional[Any] = None
    ci95: Optional[list[float]] = Field(None, description="measured: 95% confidence interval")
    source: Optional[str] = Field(None, description="knowledge: where the entry comes from")
    confidence: Optional[str] = Field(None, description="knowledge: vendor|secondary|blog|derived|assumption")


class Span(BaseModel):
    """A range [low, high] in a unit."""

    model_config = ConfigDict(extra="forbid")

    low: float
    high: float
    unit: str

    @property
    def mid(self) -> float:
        return (self.low + self.high) / 2


class Projection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workflow: str
    framework: Literal["pytorch", "mindspore"]
    path: str = Field(description="framework path: pytorch-cuda | pytorch-npu | pytorch-cpu | mindspore | mindspore-cpu | mindspore-gpu")
    target: str = Field(description="training hardware kind: nvidia | ascend | cpu")
    accelerator: Optional[str] = Field(None, description="knowledge-base accelerator id")
    devices: int
    native: bool = Field(description="the framework is first-party on this hardware (no adapter layer)")
    supported: bool = True
    basis: Basis
    basis_detail: str
    images_per_second: Optional[Span] = None
    time_to_train_hours: Optional[Span] = None
    compute_cost_usd: Optional[Span] = None
    energy_kwh: Optional[Span] = None
    evidence: list[Evidence] = Field(default_factory=list, description="what the throughput rests on")
    cost_evidence: list[Evidence] = Field(default_factory=list, description="prices and power behind cost and energy")
    notes: list[str] = Field(default_factory=list)


# --- small readers that tolerate a missing or partial knowledge base / probe suite ---------------


def _dump(obj: Any) -> Any:
    return obj.model_dump(mode="json") if hasattr(obj, "model_dump") else obj


def kb_evidence(entry: Any, detail: str, value: Any = None) -> Evidence:
    return Evidence(
        kind="knowledge",
        ref=entry.id,
        detail=detail,
        value=value,
        source=getattr(entry, "source", None),
        confidence=getattr(entry, "confidence", None),
    )


def sourced_evidence(entry_id: str, sourced: Any, detail: str) -> Evidence:
    """Evidence for a Sourced/SourcedRange number inside an entry (the number's own source wins)."""
    value = getattr(sourced, "value", None)
    if value is None:
        value = [sourced.low, sourced.high]
    return Evidence(
        kind="knowledge", ref=entry_id, detail=detail, value=value,
        source=sourced.source, confidence=sourced.confidence,
    )


def target_for(workflow: str, req: Requirements) -> str:
    """The hardware kind a workflow trains on in production."""
    target = req.hardware.training_target
    if target != "undecided":
        return target
    available = req.hardware.available
    prefs = ("nvidia", "ascend", "cpu") if workflow == "pytorch" else ("ascend", "cpu", "nvidia")
    return next(k for k in prefs if k in available)


def framework_for(workflow: str) -> str:
    """The production framework: hybrid prototypes in PyTorch but trains and serves with MindSpore."""
    return "pytorch" if workflow == "pytorch" else "mindspore"


def path_for(framework: str, target: str) -> tuple[str, bool]:
    """(framework path, native?) for a framework on a hardware kind."""
    if framework == "pytorch":
        return {"nvidia": ("pytorch-cuda", True), "ascend": ("pytorch-npu", False), "cpu": ("pytorch-cpu", True)}[target]
    return {"nvidia": ("mindspore-gpu", False), "ascend": ("mindspore", True), "cpu": ("mindspore-cpu", True)}[target]


def mindspore_gpu_support(kb: Any) -> tuple[bool, Optional[str], Optional[Any]]:
    """Does the newest MindSpore in the knowledge base run on CUDA GPUs? (supported, last gpu version, entry)"""
    fw = next((f for f in getattr(kb, "frameworks", []) if f.id == "mindspore"), None)
    if fw is None or not fw.versions:
        return True, None, None
    last_gpu = None
    for v in fw.versions:
        if any(d.lower() in ("gpu", "cuda") for d in v.devices):
            last_gpu = v.version
    newest = max(fw.versions, key=lambda v: _version_key(v.version))
    newest_gpu = any(d.lower() in ("gpu", "cuda") for d in newest.devices)
    return newest_gpu, last_gpu, fw


def _version_key(text: str) -> tuple:
    parts = []
    for piece in text.replace("-", ".").split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def resolve_accelerator(req: Requirements, target: str, kb: Any) -> tuple[Optional[Any], list[str]]:
    """The knowledge-base accelerator for a target kind: the one the team named if it is of that
    kind, else the target vendor's accelerator with the most reference measurements (an assumption)."""
    notes: list[str] = []
    if kb is None or target == "cpu":
        return None, notes
    vendor = _VENDOR_OF_TARGET[target]
    named = kb.find_accelerator(req.hardware.accelerator) if req.hardware.accelerator else None
    if named is not None and named.vendor == vendor:
        return named, notes
    candidates = [a for a in kb.accelerators if a.vendor == vendor]
    if not candidates:
        return None, [f"the knowledge base has no {target} accelerator"]
    refs = {a.id: sum(1 for r in kb.references if r.accelerator == a.id) for a in candidates}
    chosen = max(candidates, key=lambda a: (refs[a.id], a.year or 0, a.id))
    why = (
        f"'{req.hardware.accelerator}' is not a {target} accelerator"
        if named is not None
        else ("no hardware.accelerator given" if not req.hardware.accelerator else f"'{req.hardware.accelerator}' is not in the knowledge base")
    )
    notes.append(f"{why}: assumed {chosen.name} for {target} training")
    return chosen, notes


def workload_gflops(req: Requirements) -> Optional[float]:
    w = req.workload
    if w is None:
        return None
    return w.gflops_per_sample or WORKLOAD_GFLOPS.get(w.model)


def device_kind(device: str) -> str:
    d = (device or "").lower()
    if "cuda" in d or "gpu" in d or "nvidia" in d:
        return "nvidia"
    if "npu" in d or "ascend" in d:
        return "ascend"
    return "cpu"


def ok_runs(suites: list[Any]) -> list[dict]:
    """Every successful probe run across the suites, as dicts, with the suite's host label."""
    runs = []
    for suite in suites:
        data = _dump(suite) or {}
        host = data.get("host") or {}
        label = host.get("hostname") or host.get("cpu_model") or host.get("name") or "a probed host"
        for run in data.get("runs") or []:
            if run.get("status") == "ok" and (run.get("images_per_second") or 0) > 0:
                runs.append({**run, "_host": label})
    return runs


def best_run(runs: list[dict], framework: str, kind: str, model: Optional[str]) -> Optional[dict]:
    """The fastest ok run of a framework on a hardware kind, preferring the workload's own model."""
    mine = [r for r in runs if r.get("framework") == framework and device_kind(r.get("device", "")) == kind]
    if not mine:
        return None
    # Only the workload's own network: a LeNet's efficiency says little about a ResNet's.
    pool = [r for r in mine if r.get("model") == model] if model else mine
    if not pool:
        return None
    return max(pool, key=lambda r: (r["images_per_second"], r.get("id", "")))


def _derating(kb: Any, factor: str) -> Optional[Any]:
    entries = [d for d in getattr(kb, "derating", []) if d.factor == factor]
    return sorted(entries, key=lambda d: d.id)[0] if entries else None


def scaling_span(kb: Any, devices: int) -> tuple[float, float, list[Evidence], list[str]]:
    """Multi-device efficiency range (fraction kept) from the communication derating."""
    if devices <= 1:
        return 1.0, 1.0, [], []
    comm = _derating(kb, "communication") if kb is not None else None
    if comm is None:
        return 0.5, 0.85, [], ["no communication derating in the knowledge base: assumed 15-50% loss on multi-device training"]
    ev = sourced_evidence(comm.id, comm.loss, f"multi-device communication loses {comm.loss.low:.0%}-{comm.loss.high:.0%} of throughput")
    return 1 - comm.loss.high, 1 - comm.loss.low, [ev], []


# --- the projection itself ------------------------------------------------------------------------


def _measured(run: dict, gflops: Optional[float], devices: int, kb: Any) -> tuple[float, float, list[Evidence], list[str]]:
    ips = float(run["images_per_second"])
    ci = run.get("ci95") or [ips * 0.9, ips * 1.1]
    low, high = float(ci[0]), float(ci[1])
    notes: list[str] = []
    ev = [Evidence(kind="measured", ref=run.get("id", "?"), value=round(ips, 3), ci95=[low, high],
                   detail=f"{run.get('framework')} {run.get('mode')} {run.get('model')} bs{run.get('batch_size')} on {run.get('device')} ({run['_host']}): {ips:.1f} img/s")]
    run_flops = run.get("train_flops_per_image")
    if gflops and run_flops:
        factor = run_flops / (gflops * 1e9)
        if abs(factor - 1) > 0.05:
            low, high = low * factor, high * factor
            notes.append(f"scaled from the probe's {run_flops / 1e9:.3g} GFLOPs/image to the workload's {gflops:.3g} (same efficiency assumed)")
    s_low, s_high, s_ev, s_notes = scaling_span(kb, devices)
    return low * devices * s_low, high * devices * s_high, ev + s_ev, notes + s_notes


def _imagenet_flops(r: Any) -> Optional[float]:
    """Training GFLOPs per image of a reference run, when known: ImageNet-size runs of table models."""
    if "imagenet" not in r.dataset.lower():
        return None  # CIFAR-size inputs differ 15x by stem variant: not comparable by FLOPs
    return WORKLOAD_GFLOPS.get(r.model.lower().replace("-", ""))


def _reference(kb: Any, acc: Any, framework: str, req: Requirements, gflops: Optional[float], devices: int) -> Optional[tuple[float, float, list[Evidence], list[str]]]:
    """Published runs of this framework on this accelerator, scaled by FLOPs to the workload. A
    multi-device reference already includes its communication loss, a single-device one does not."""
    if not gflops:
        return None
    pool = [r for r in kb.references if r.accelerator == acc.id and r.framework == framework and _imagenet_flops(r)]
    if not pool:
        return None
    # Prefer runs with the same single/multi-device shape: a multi-device run's per-device rate already
    # carries its communication loss.
    pool = [r for r in pool if (r.devices > 1) == (devices > 1)] or pool
    notes: list[str] = []
    model = req.workload.model if req.workload else None
    if any(r.model.lower().replace("-", "") != model for r in pool):
        notes.append(f"{acc.name} references of {', '.join(sorted({r.model for r in pool}))} scaled to the workload by FLOPs")
    s_low, s_high, s_ev, s_notes = scaling_span(kb, devices)
    lows, highs, ev = [], [], []
    for r in sorted(pool, key=lambda r: r.id):
        per_dev = r.images_per_second_per_device * _imagenet_flops(r) / gflops
        keep = (1.0, 1.0) if (r.devices > 1 or devices == 1) else (s_low, s_high)
        lows.append(per_dev * devices * keep[0])
        highs.append(per_dev * devices * keep[1])
        ev.append(sourced_evidence(r.id, r.images_per_second, f"{r.framework} {r.mode} {r.model} ({r.dataset}) on {r.devices}x {acc.name}, {r.precision}: {r.images_per_second.value:g} img/s"))
    if devices > 1 and any(r.devices == 1 for r in pool):
        ev.extend(s_ev)
        notes.extend(s_notes)
    return min(lows), max(highs), ev, notes


def _peak_of(acc: Any) -> Optional[Any]:
    return acc.fp16_tflops or acc.bf16_tflops or acc.fp32_tflops


def _peak_span(peak: Any) -> tuple[float, float]:
    """A peak figure and the other sources' values for it (e.g. 910B: 280 vs ~320 TFLOPS)."""
    values = [peak.value] + [a.value for a in getattr(peak, "alternatives", []) or []]
    return min(values), max(values)


def _reference_by_peak(kb: Any, acc: Any, framework: str, gflops: Optional[float], devices: int) -> Optional[tuple[float, float, list[Evidence], list[str]]]:
    """No reference on this accelerator: take the fraction of peak the framework reached in published
    runs on the same vendor's other accelerators, and apply it to this one's peak."""
    peak = _peak_of(acc)
    if peak is None or not gflops:
        return None
    s_low, s_high, s_ev, s_notes = scaling_span(kb, devices)
    p_low, p_high = _peak_span(peak)
    lows, highs, fractions, ev = [], [], [], []
    for r in sorted(kb.references, key=lambda r: r.id):
        other = next((a for a in kb.accelerators if a.id == r.accelerator), None)
        r_flops = _imagenet_flops(r)
        if other is None or other.id == acc.id or other.vendor != acc.vendor or r.framework != framework:
            continue
        other_peak = _peak_of(other)
        if other_peak is None or not r_flops:
            continue
        fraction = r.images_per_second_per_device * r_flops * 1e9 / (other_peak.value * 1e12)
        keep = (1.0, 1.0) if (r.devices > 1 or devices == 1) else (s_low, s_high)  # multi-device runs include their losses
        fractions.append(fraction)
        lows.append(p_low * 1e3 / gflops * fraction * devices * keep[0])
        highs.append(p_high * 1e3 / gflops * fraction * devices * keep[1])
        ev.append(sourced_evidence(r.id, r.images_per_second, f"{r.framework} {r.mode} {r.model} ({r.dataset}) on {r.devices}x {other.name}: {r.images_per_second.value:g} img/s, {fraction:.0%} of its peak"))
        ev.append(sourced_evidence(other.id, other_peak, f"{other.name} peak {other_peak.value:g} TFLOPS"))
    if not fractions:
        return None
    ev.append(sourced_evidence(acc.id, peak, f"{acc.name} peak {p_low:g}-{p_high:g} TFLOPS (sources differ)" if p_low != p_high else f"{acc.name} peak {peak.value:g} TFLOPS"))
    notes = [f"no {framework} reference on {acc.name}: the fraction of peak reached on the same vendor's other chips ({_pct_span(fractions)}) applied to its peak"]
    if min(lows) < max(highs) and devices > 1 and any(lo != hi for lo, hi in zip(lows, highs)):
        ev.extend(s_ev)
        notes.extend(s_notes)
    return min(lows), max(highs), ev, notes


def _pct_span(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.0%}" if f"{low:.0%}" == f"{high:.0%}" else f"{low:.0%}-{high:.0%}"


def _adapter_ratio(kb: Any) -> Optional[tuple[float, float, Evidence]]:
    """Throughput of an adapter path relative to the first-party one: upper vs lower half of the
    operator-coverage loss (about 0.78-0.89 with 10-30%; seed 002 reports 15-20% lower)."""
    d = _derating(kb, "operator_coverage")
    if d is None:
        return None
    lo, hi = d.loss.low, d.loss.high
    mid = (lo + hi) / 2
    ev = sourced_evidence(d.id, d.loss, f"operator coverage loses {lo:.0%}-{hi:.0%}: an adapter path keeps {(1 - hi) / (1 - lo):.0%}-{(1 - mid) / (1 - lo):.0%} of the first-party throughput")
    return (1 - hi) / (1 - lo), (1 - mid) / (1 - lo), ev


def _reference_via_native(kb: Any, acc: Any, framework: str, req: Requirements, gflops: Optional[float], devices: int) -> Optional[tuple[float, float, list[Evidence], list[str]]]:
    """An adapter path with no reference of its own (PyTorch through torch_npu on Ascend): the
    first-party framework's reference-based projection x the adapter ratio."""
    native = "mindspore" if framework == "pytorch" else "pytorch"
    base = _reference(kb, acc, native, req, gflops, devices) or _reference_by_peak(kb, acc, native, gflops, devices)
    ratio = _adapter_ratio(kb)
    if base is None or ratio is None:
        return None
    low, high, ev, notes = base
    note = f"no {framework} reference on {acc.vendor} chips: {native}'s reference-based projection x {ratio[0]:.2f}-{ratio[1]:.2f} for the adapter layer"
    return low * ratio[0], high * ratio[1], ev + [ratio[2]], notes + [note]


def _peak(kb: Any, acc: Any, native: bool, gflops: Optional[float], devices: int) -> Optional[tuple[float, float, list[Evidence], list[str]]]:
    peak = _peak_of(acc)
    if peak is None or not gflops:
        return None
    which = "FP16" if acc.fp16_tflops else ("BF16" if acc.bf16_tflops else "FP32")
    ev = [sourced_evidence(acc.id, peak, f"{acc.name} peak {which} {peak.value:g} TFLOPS")]
    notes: list[str] = []
    eff_low, eff_high = 1.0, 1.0
    for factor in ("operator_coverage", "memory_bandwidth"):
        d = _derating(kb, factor)
        if d is None:
            notes.append(f"no {factor} derating in the knowledge base")
            continue
        lo, hi = d.loss.low, d.loss.high
        if factor == "operator_coverage":
            # A first-party framework has most operators tuned for its chip (lower half of the loss);
            # an adapter layer leaves more of them on generic kernels (upper half). Seed 002 (2.3)
            # reports 15-20% lower throughput for adapter PyTorch than native MindSpore on Ascend.
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if not native else (lo, mid)
            notes.append(("adapter path: upper" if not native else "first-party path: lower") + " half of the operator-coverage loss")
        eff_low *= 1 - hi
        eff_high *= 1 - lo
        ev.append(sourced_evidence(d.id, d.loss, f"{factor.replace('_', ' ')} loses {d.loss.low:.0%}-{d.loss.high:.0%} of peak"))
    s_low, s_high, s_ev, s_notes = scaling_span(kb, devices)
    p_low, p_high = _peak_span(peak)
    return p_low * 1e3 / gflops * eff_low * devices * s_low, p_high * 1e3 / gflops * eff_high * devices * s_high, ev + s_ev, notes + s_notes


def _price(kb: Any, acc: Any) -> Optional[Any]:
    if kb is None or acc is None:
        return None
    prices = sorted(kb.costs_for("accelerator_hour", acc.id), key=lambda c: c.id)
    return prices[0] if prices else None


def _range_of(value: Any) -> tuple[float, float]:
    if hasattr(value, "low"):
        return value.low, value.high
    return value.value, value.value


def project(workflow: str, req: Requirements, kb: Any, suites: list[Any], *, basis_cap: Optional[Basis] = None) -> Projection:
    """One workflow's projection. `basis_cap` forces a weaker basis (so workflows compare like with like)."""
    framework = framework_for(workflow)
    target = target_for(workflow, req)
    path, native = path_for(framework, target)
    devices = req.hardware.devices
    acc, notes = resolve_accelerator(req, target, kb)
    gflops = workload_gflops(req)
    proj = Projection(workflow=workflow, framework=framework, path=path, target=target,
                      accelerator=acc.id if acc else None, devices=devices, native=native,
                      basis="none", basis_detail="", notes=list(notes))
    if workflow == "hybrid":
        proj.notes.append("hybrid: production training runs on MindSpore after the PyTorch prototype is migrated")
    if path == "mindspore-gpu":
        gpu_ok, last_gpu, fw = mindspore_gpu_support(kb)
        if not gpu_ok:
            proj.supported = False
            proj.basis_detail = f"MindSpore's newest releases do not run on CUDA GPUs (last with GPU support: {last_gpu or 'unknown'})"
            if fw is not None:
                proj.evidence.append(kb_evidence(fw, proj.basis_detail, last_gpu))
            return proj
    cap = BASIS_RANK[basis_cap] if basis_cap else 3
    found = None
    runs = ok_runs(suites)
    if cap >= 3:
        run = best_run(runs, framework, target, req.workload.model if req.workload else None)
        if run is not None and (gflops or run.get("model") == (req.workload.model if req.workload else None) or req.workload is None):
            found = ("measured", f"probe run {run.get('id')} on {run['_host']}", _measured(run, gflops, devices, kb))
    if found is None and cap >= 2 and kb is not None and acc is not None and req.workload is not None:
        r = _reference(kb, acc, framework, req, gflops, devices)
        if r is not None:
            found = ("reference", f"knowledge-base reference measurements of {framework} on {acc.name}", r)
        else:
            r = _reference_by_peak(kb, acc, framework, gflops, devices)
            if r is not None:
                found = ("reference", f"knowledge-base references of {framework} on other {acc.vendor} chips, scaled to {acc.name}'s peak", r)
            elif not native:
                r = _reference_via_native(kb, acc, framework, req, gflops, devices)
                if r is not None:
                    found = ("reference", f"knowledge-base references of the first-party framework on {acc.vendor} chips x an adapter ratio", r)
    if found is None and cap >= 1 and kb is not None and acc is not None:
        r = _peak(kb, acc, native, gflops, devices)
        if r is not None:
            found = ("peak", f"{acc.name} peak x derating ranges", r)
    if found is None:
        proj.basis_detail = _why_none(req, kb, acc, target, gflops)
        return proj
    basis, detail, (low, high, ev, more_notes) = found
    proj.basis, proj.basis_detail = basis, detail
    proj.evidence.extend(ev)
    proj.notes.extend(more_notes)
    proj.images_per_second = Span(low=round(low, 3), high=round(high, 3), unit="images/s")
    if req.workload is not None and low > 0:
        samples = req.workload.dataset_samples * req.workload.epochs
        proj.time_to_train_hours = Span(low=round(samples / high / 3600, 4), high=round(samples / low / 3600, 4), unit="hours")
        price = _price(kb, acc)
        if price is not None:
            p_low, p_high = _range_of(price.usd)
            proj.compute_cost_usd = Span(
                low=round(proj.time_to_train_hours.low * devices * p_low, 2),
                high=round(proj.time_to_train_hours.high * devices * p_high, 2), unit="USD")
            proj.cost_evidence.append(kb_evidence(price, f"{acc.name} costs ${p_low:g}-{p_high:g} per device-hour", [p_low, p_high]))
        elif acc is not None:
            proj.notes.append(f"no price per device-hour for {acc.name} in the knowledge base: cost not projected")
        if acc is not None and acc.tdp_w is not None:
            kw = acc.tdp_w.value / 1000 * devices
            proj.energy_kwh = Span(low=round(kw * proj.time_to_train_hours.low, 2), high=round(kw * proj.time_to_train_hours.high, 2), unit="kWh")
            proj.cost_evidence.append(sourced_evidence(acc.id, acc.tdp_w, f"{acc.name} draws up to {acc.tdp_w.value:g} W"))
    return proj


def _why_none(req: Requirements, kb: Any, acc: Any, target: str, gflops: Optional[float]) -> str:
    if kb is None:
        return "no knowledge base and no measurement on this hardware"
    if target == "cpu":
        model = req.workload.model if req.workload else "the workload's model"
        return f"CPU training: only a probe run of {model} on a CPU host can project it (run `advisor probe --models {model}`)"
    if acc is None:
        return f"no {target} accelerator in the knowledge base"
    if not gflops:
        return "no workload in the requirements (add `workload:` to project time and cost)"
    return f"no reference and no peak figure for {acc.name}"


def project_all(req: Requirements, kb: Any, suites: list[Any]) -> dict[str, Projection]:
    """Each workflow's projection on its best basis."""
    return {wf: project(wf, req, kb, suites) for wf in WORKFLOWS}


def common_basis(projections: dict[str, Projection]) -> Basis:
    """The best basis every supported workflow shares: comparisons are made like with like."""
    ranks = [BASIS_RANK[p.basis] for p in projections.values() if p.supported]
    if not ranks:
        return "none"
    lowest = min(ranks)
    return next(b for b, r in BASIS_RANK.items() if r == lowest)
