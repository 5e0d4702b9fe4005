"""Projections: for the team's workload on its target hardware, each workflow's images/s, time to train
and cost, as ranges, each with the basis it rests on:

  measured   a probe run on that kind of hardware (this host or a results file), scaled by FLOPs and
             devices where the workload differs;
  reference  a published measurement from the knowledge base on the same accelerator and framework;
  peak       the accelerator's peak x the knowledge base's derating ranges (operator coverage, memory
             bandwidth, multi-device communication);
  none       nothing to project from (said so, with why).

Multi-device projections say how they account for communication (`Projection.communication`): the
knowledge base's communication derating, or, when the requirements ask for distributed training, the
scaling probe's measured efficiency where it is device scaling of the same shape (same hardware kind,
same rank count, same network), else the knowledge-base range with the measurement beside it as
evidence (a 2-rank run on a CPU host measures communication plus contention, not device scaling).

Pure functions of (requirements, knowledge base, probe suites, scaling result). No I/O.
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
# Below about 1 training GFLOP per sample, throughput is bound by per-step overhead and the input
# pipeline, not by FLOPs: scaling a ResNet-50 reference or a chip's peak down to LeNet (0.00226)
# projected ~200 million img/s on 8 Ascend cards (an H200 measures ~64,000 for LeNet). Only a
# measurement projects such a workload.
MIN_FLOP_SCALED_GFLOPS = 1.0


class Evidence(BaseModel):
    """Where a number came from: a probe run, a knowledge-base entry, or a requirements field."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["measured", "knowledge", "requirement"]
    ref: str = Field(description="probe run id | knowledge-base entry id | requirements field path")
    detail: str
    value: Optional[Any] = None
    ci95: Optional[list[float]] = Field(None, description="measured: 95% confidence interval")
    spread: Optional[list[float]] = Field(None, description="measured by the scaling probe: [min, max] over its repetitions")
    label: Optional[str] = Field(None, description="measured by the scaling probe: its label (device-scaling | cpu-contention)")
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


class ScalingSpread(BaseModel):
    """Median and min-max over the scaling probe's interleaved repetitions."""

    model_config = ConfigDict(extra="forbid")

    median: float
    min: float
    max: float
    n: int


class ScalingMeasurement(BaseModel):
    """One framework's data-parallel figures from the scaling probe (`advisor probe --scaling`)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="scaling:<framework>-<model>-r<ranks> (its runs are <id>-rep<k> in the result)")
    framework: str
    launcher: Optional[str] = None
    backend: Optional[str] = None
    device: str = Field(description="where the ranks ran: cpu | cuda | Ascend")
    hardware: str = Field(description="nvidia | ascend | cpu")
    model: str
    ranks: int
    label: str = Field(description="the result's label: device-scaling | cpu-contention")
    device_scaling: bool = Field(description="one rank per accelerator (not ranks sharing CPU cores)")
    host: Optional[str] = None
    created: Optional[str] = None
    efficiency: Optional[ScalingSpread] = Field(None, description="images/s(N) / (N x images/s(1))")
    allreduce_share: Optional[ScalingSpread] = Field(None, description="(synced - no-sync step) / synced step")
    contention_factor: Optional[ScalingSpread] = None
    gate_ok: Optional[bool] = Field(None, description="parameters identical across ranks after synced steps")


CommunicationBasis = Literal["measured", "measured+knowledge", "knowledge", "assumed", "in-reference", "single-device", "none"]


class Communication(BaseModel):
    """How a projection accounts for multi-device communication, and what it rests on."""

    model_config = ConfigDict(extra="forbid")

    devices: int
    basis: CommunicationBasis = Field(description=(
        "measured: the scaling probe's efficiency (device scaling, same rank count and network); "
        "measured+knowledge: the knowledge-base derating, with the scaling probe's figures as evidence; "
        "knowledge: the knowledge-base derating alone; assumed: no derating in the knowledge base; "
        "in-reference: multi-device references that already include their loss; single-device; none: nothing projected"))
    basis_detail: str
    kept: Optional[Span] = Field(None, description="fraction of linear multi-device throughput kept [low, high]")
    knowledge_loss: Optional[list[float]] = Field(None, description="the knowledge base's communication loss range [low, high]")
    measured: Optional[ScalingMeasurement] = Field(None, description="the scaling probe figures consulted for this framework")
    evidence: list[Evidence] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


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
    communication: Optional[Communication] = Field(None, description="multi-device communication: which basis the projection used")


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
        f"'{req.hardware.accelerator}' is not {'an' if target[0] in 'aeiou' else 'a'} {target} accelerator"
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
        # The probe names the accelerator it measured (its knowledge-base id) in vendor_peak.
        probed = (data.get("vendor_peak") or {}).get("accelerator")
        for run in data.get("runs") or []:
            if run.get("status") == "ok" and (run.get("images_per_second") or 0) > 0:
                on_device = device_kind(run.get("device", "")) != "cpu"
                runs.append({**run, "_host": label, "_accelerator": probed if on_device else None})
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


def _pct(low: float, high: float) -> str:
    return f"{low:.0%}" if f"{low:.0%}" == f"{high:.0%}" else f"{low:.0%}-{high:.0%}"


def _spread(data: Any) -> Optional[ScalingSpread]:
    if not isinstance(data, dict) or data.get("median") is None:
        return None
    return ScalingSpread(median=round(float(data["median"]), 4), min=round(float(data["min"]), 4),
                         max=round(float(data["max"]), 4), n=int(data.get("n") or 0))


def scaling_host(doc: dict) -> Optional[str]:
    host = doc.get("host") or {}
    return host.get("hostname") or host.get("cpu_model") or host.get("name") or None


def _measurement(doc: dict, entry: dict, rc: dict) -> ScalingMeasurement:
    device = str(entry.get("device") or "cpu")
    kind = device_kind(device)
    return ScalingMeasurement(
        id=f"scaling:{entry.get('framework')}-{entry.get('model')}-r{rc.get('ranks')}",
        framework=str(entry.get("framework")), launcher=entry.get("launcher"), backend=entry.get("backend"),
        device=device, hardware=kind, model=str(entry.get("model")), ranks=int(rc.get("ranks")),
        label=str(doc.get("label") or "unknown"),
        # Per framework: on a GPU host MindSpore's ranks may still share the CPU (the result's label then
        # says cpu-contention for the whole result) while PyTorch's ranks each own a GPU.
        device_scaling=kind != "cpu", host=scaling_host(doc), created=doc.get("created"),
        efficiency=_spread(rc.get("efficiency")), allreduce_share=_spread(rc.get("allreduce_share")),
        contention_factor=_spread(rc.get("contention_factor")), gate_ok=rc.get("gate_ok"))


def scaling_measurements(scaling: Any) -> list[ScalingMeasurement]:
    """Every framework and network of a scaling result at its largest multi-rank count measured."""
    doc = _dump(scaling) or {}
    out = []
    for entry in doc.get("frameworks") or []:
        counts = [rc for rc in entry.get("rank_counts") or [] if (rc.get("ranks") or 0) > 1 and rc.get("runs_ok")]
        if counts:
            out.append(_measurement(doc, entry, max(counts, key=lambda c: c["ranks"])))
    return out


def pick_measurement(scaling: Any, framework: str, model: Optional[str], devices: int) -> Optional[ScalingMeasurement]:
    """The scaling probe's figures for a framework: the workload's own network first, the rank count
    equal to the target's devices when measured, else the largest one."""
    doc = _dump(scaling) or {}
    entries = sorted((f for f in doc.get("frameworks") or []
                      if f.get("framework") == framework and f.get("status") in ("ok", "partial")),
                     key=lambda f: (f.get("model") != model, str(f.get("model"))))
    for entry in entries:
        counts = [rc for rc in entry.get("rank_counts") or [] if (rc.get("ranks") or 0) > 1 and rc.get("efficiency")]
        if counts:
            rc = next((c for c in counts if c["ranks"] == devices), None) or max(counts, key=lambda c: c["ranks"])
            return _measurement(doc, entry, rc)
    return None


def measurement_evidence(m: ScalingMeasurement) -> list[Evidence]:
    what = f"{m.launcher or m.framework} ({m.backend or '?'}) {m.ranks} ranks on {m.device}, {m.model}"
    tag = ("device scaling" if m.device_scaling
           else "communication plus contention on shared CPU cores, not device scaling")
    ev = []
    for spread, text in ((m.efficiency, "scaling efficiency {} of linear"), (m.allreduce_share, "allreduce {} of the synced step")):
        if spread is not None:
            ev.append(Evidence(
                kind="measured", ref=m.id, label=m.label, value=spread.median, spread=[spread.min, spread.max],
                detail=f"{what}: {text.format(f'{spread.median:.0%}')} (min-max {_pct(spread.min, spread.max)} over {spread.n} repetitions; {tag})"))
    return ev


def _why_not_measured(m: ScalingMeasurement, target: str, devices: int, model: Optional[str]) -> Optional[str]:
    """Why a scaling measurement cannot stand for the target's multi-device efficiency (None: it can)."""
    if not m.device_scaling:
        return (f"the scaling probe's {m.ranks} ranks shared a CPU host: they measure communication plus "
                "contention on shared cores, not device scaling")
    if m.hardware != target:
        return f"the scaling probe ran on {m.hardware}, the training target is {target}"
    if m.ranks != devices:
        return f"the scaling probe measured {m.ranks} ranks, the requirements ask for {devices} devices"
    if model and m.model != model:
        return f"the scaling probe ran {m.model}, the workload is {model}: its compute/communication ratio differs"
    if m.gate_ok is not True:
        return "the scaling probe's correctness gate did not pass (parameters not identical across ranks)"
    if m.efficiency is None:
        return "the scaling probe has no efficiency figure"
    return None


class _Keep:
    """The multi-device factor a projection path multiplies by (fraction of linear throughput kept),
    the evidence and notes that set it, and whether the path used it: a multi-device reference
    already carries its own communication loss."""

    def __init__(self, comm: Communication, ev: list[Evidence], notes: list[str], why_not: Optional[str] = None,
                 measured_text: str = ""):
        self.comm, self.ev, self.notes, self.used = comm, ev, notes, False
        self.why_not, self.measured_text = why_not, measured_text
        self.factor_note = ""
        self.ref_devices: set[int] = set()

    def factor(self, ref_devices: int) -> tuple[float, float, bool]:
        """(low, high, applied): the kept fraction for a throughput measured on `ref_devices` devices,
        projected to the target's device count."""
        devices, kept = self.comm.devices, self.comm.kept
        if devices <= 1 and ref_devices > 1:
            self.ref_devices.add(ref_devices)  # a single device read off a multi-device run: that run's loss stays in
        if devices <= 1 or kept is None:
            return 1.0, 1.0, False
        if ref_devices <= 1:
            return kept.low, kept.high, True
        if ref_devices >= devices:
            self.ref_devices.add(ref_devices)  # the published run carries its own loss at this count
            return 1.0, 1.0, False
        # The target has more devices than the published run: its loss lies in the same range and does
        # not shrink with more devices, so the per-device rate keeps low/high of it at worst.
        return kept.low / kept.high, 1.0, True

    @property
    def measured(self) -> bool:
        return self.comm.basis == "measured"

    def span(self) -> tuple[float, float, list[Evidence], list[str]]:
        kept = self.comm.kept
        if kept is None or self.comm.devices <= 1:
            return 1.0, 1.0, [], []
        return kept.low, kept.high, list(self.ev), list(self.notes)


def communication_for(framework: str, target: str, req: Requirements, kb: Any, scaling: Any = None, here: bool = False) -> _Keep:
    """How a projection accounts for communication on the target's devices. The scaling probe counts
    only when the requirements ask for distributed training; it sets the range only when it is device
    scaling of the same shape, else it stands beside the knowledge-base derating as evidence."""
    devices = req.hardware.devices
    model = req.workload.model if req.workload else None
    m = pick_measurement(scaling, framework, model, devices) if scaling is not None and req.needs.distributed_training else None
    m_ev = measurement_evidence(m) if m else []
    d = _derating(kb, "communication") if kb is not None else None
    kb_loss = [d.loss.low, d.loss.high] if d else None
    kb_ev = [sourced_evidence(d.id, d.loss, f"multi-device communication loses {d.loss.low:.0%}-{d.loss.high:.0%} of throughput")] if d else []
    where = "here" if here else (f"on {m.host}" if m and m.host else "in the scaling result")
    if devices <= 1:
        detail = "one device: no communication loss"
        if m:
            detail += f"; the scaling probe's {m.framework} figures are shown for when the team scales out"
        return _Keep(Communication(devices=devices, basis="single-device", basis_detail=detail, kept=Span(low=1.0, high=1.0, unit="fraction"),
                                   knowledge_loss=kb_loss, measured=m, evidence=m_ev), [], [])
    why_not = _why_not_measured(m, target, devices, model) if m else None
    notes: list[str] = []
    if m and why_not is None:
        eff = m.efficiency
        low, high = eff.min, min(eff.max, 1.0)
        detail = (f"measured {where} ({m.ranks} ranks on {m.device}, {m.launcher}/{m.backend}): "
                  f"{eff.median:.0%} of linear, min-max {_pct(low, high)} over {eff.n} repetitions")
        if kb_loss:
            notes.append(f"the knowledge-base derating would keep {_pct(1 - kb_loss[1], 1 - kb_loss[0])} (not used: measured on the target's shape)")
        comm = Communication(devices=devices, basis="measured", basis_detail=detail, kept=Span(low=round(low, 4), high=round(high, 4), unit="fraction"),
                             knowledge_loss=kb_loss, measured=m, evidence=m_ev + kb_ev, notes=notes)
        return _Keep(comm, m_ev, [])
    if d is None:
        low, high = 0.5, 0.85
        basis, detail = "assumed", f"no communication derating in the knowledge base: 15-50% loss assumed for {devices} devices"
        keep_notes = ["no communication derating in the knowledge base: assumed 15-50% loss on multi-device training"]
    else:
        low, high = 1 - d.loss.high, 1 - d.loss.low
        basis, keep_notes = "knowledge", []
        detail = f"knowledge-base derating for {devices} devices ({_pct(d.loss.low, d.loss.high)} loss)"
    measured_text, factor_note = "", ""
    if m:
        basis = "measured+knowledge" if d is not None else basis
        shape = f"{m.ranks} ranks, CPU, contention" if not m.device_scaling else f"{m.ranks} ranks on {m.device}"
        measured_text = f"measured {where} ({shape})"
        detail = f"{measured_text} + {detail}"
        notes.append(f"{why_not}: its figures are evidence; the projection to {devices} devices uses the knowledge-base range")
        if m.allreduce_share is not None:
            share = m.allreduce_share
            factor, f_low, f_high = 1 - share.median, 1 - share.max, 1 - share.min
            place = "inside" if low <= factor <= high else ("below" if factor < low else "above")
            factor_note = (f"measured communication factor (1 - allreduce share) {factor:.0%} (min-max {_pct(f_low, f_high)}) at {m.ranks} ranks: "
                           f"{place} the range kept for {devices} devices ({_pct(low, high)})")
            notes.append(factor_note)
        if m.gate_ok is False:
            notes.append(f"the scaling probe's {m.framework} correctness gate failed: its figures are suspect")
    elif req.needs.distributed_training:
        detail += ("; no scaling probe result (run `advisor probe --scaling`, or pass --scaling FILE)" if scaling is None
                   else f"; the scaling result has no usable {framework} multi-rank measurement")
    comm = Communication(devices=devices, basis=basis, basis_detail=detail, kept=Span(low=round(low, 4), high=round(high, 4), unit="fraction"),
                         knowledge_loss=kb_loss, measured=m, evidence=m_ev + kb_ev, notes=notes)
    keep = _Keep(comm, kb_ev, keep_notes, why_not, measured_text)
    keep.factor_note = factor_note
    return keep


# --- the projection itself ------------------------------------------------------------------------


def _measured(run: dict, gflops: Optional[float], devices: int, keep: _Keep) -> tuple[float, float, list[Evidence], list[str]]:
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
    s_low, s_high, s_ev, s_notes = keep.span()
    keep.used = devices > 1
    return low * devices * s_low, high * devices * s_high, ev + s_ev, notes + s_notes


def _imagenet_flops(r: Any) -> Optional[float]:
    """Training GFLOPs per image of a reference run, when known: ImageNet-size runs of table models."""
    if "imagenet" not in r.dataset.lower():
        return None  # CIFAR-size inputs differ 15x by stem variant: not comparable by FLOPs
    return WORKLOAD_GFLOPS.get(r.model.lower().replace("-", ""))


def _reference(kb: Any, acc: Any, framework: str, req: Requirements, gflops: Optional[float], devices: int, keep: _Keep) -> Optional[tuple[float, float, list[Evidence], list[str]]]:
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
    multi = devices > 1 and not keep.measured
    pool = [r for r in pool if (r.devices > 1) == multi] or pool
    notes: list[str] = []
    model = req.workload.model if req.workload else None
    if any(r.model.lower().replace("-", "") != model for r in pool):
        notes.append(f"{acc.name} references of {', '.join(sorted({r.model for r in pool}))} scaled to the workload by FLOPs")
    s_low, s_high, s_ev, s_notes = keep.span()
    lows, highs, ev, used = [], [], [], False
    for r in sorted(pool, key=lambda r: r.id):
        per_dev = r.images_per_second_per_device * _imagenet_flops(r) / gflops
        k_low, k_high, applied = keep.factor(r.devices)
        used = used or applied
        if applied and r.devices > 1:
            notes.append(f"{r.devices}-device references projected to {devices} devices: x{k_low:.2f}-1 for the added communication (knowledge-base range)")
        lows.append(per_dev * devices * k_low)
        highs.append(per_dev * devices * k_high)
        ev.append(sourced_evidence(r.id, r.images_per_second, f"{r.framework} {r.mode} {r.model} ({r.dataset}) on {r.devices}x {acc.name}, {r.precision}: {r.images_per_second.value:g} img/s"))
    if used:
        keep.used = True
        ev.extend(s_ev)
        notes.extend(s_notes)
    return min(lows), max(highs), ev, notes


def _peak_of(acc: Any) -> Optional[Any]:
    return acc.fp16_tflops or acc.bf16_tflops or acc.fp32_tflops


def _peak_span(peak: Any) -> tuple[float, float]:
    """A peak figure and the other sources' values for it (e.g. 910B: 280 vs ~320 TFLOPS)."""
    values = [peak.value] + [a.value for a in getattr(peak, "alternatives", []) or []]
    return min(values), max(values)


def _reference_by_peak(kb: Any, acc: Any, framework: str, gflops: Optional[float], devices: int, keep: _Keep) -> Optional[tuple[float, float, list[Evidence], list[str]]]:
    """No reference on this accelerator: take the fraction of peak the framework reached in published
    runs on the same vendor's other accelerators, and apply it to this one's peak."""
    peak = _peak_of(acc)
    if peak is None or not gflops:
        return None
    s_low, s_high, s_ev, s_notes = keep.span()
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
        k_low, k_high, applied = keep.factor(r.devices)  # multi-device runs include their own losses
        keep.used = keep.used or applied
        fractions.append(fraction)
        lows.append(p_low * 1e3 / gflops * fraction * devices * k_low)
        highs.append(p_high * 1e3 / gflops * fraction * devices * k_high)
        ev.append(sourced_evidence(r.id, r.images_per_second, f"{r.framework} {r.mode} {r.model} ({r.dataset}) on {r.devices}x {other.name}: {r.images_per_second.value:g} img/s, {fraction:.0%} of its peak"))
        ev.append(sourced_evidence(other.id, other_peak, f"{other.name} peak {other_peak.value:g} TFLOPS"))
    if not fractions:
        return None
    ev.append(sourced_evidence(acc.id, peak, f"{acc.name} peak {p_low:g}-{p_high:g} TFLOPS (sources differ)" if p_low != p_high else f"{acc.name} peak {peak.value:g} TFLOPS"))
    notes = [f"no {framework} reference on {acc.name}: the fraction of peak reached on the same vendor's other chips ({_pct_span(fractions)}) applied to its peak"]
    if keep.used:
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


def _reference_via_native(kb: Any, acc: Any, framework: str, req: Requirements, gflops: Optional[float], devices: int, keep: _Keep) -> Optional[tuple[float, float, list[Evidence], list[str]]]:
    """An adapter path with no reference of its own (PyTorch through torch_npu on Ascend): the
    first-party framework's reference-based projection x the adapter ratio."""
    native = "mindspore" if framework == "pytorch" else "pytorch"
    base = _reference(kb, acc, native, req, gflops, devices, keep) or _reference_by_peak(kb, acc, native, gflops, devices, keep)
    ratio = _adapter_ratio(kb)
    if base is None or ratio is None:
        return None
    low, high, ev, notes = base
    note = f"no {framework} reference on {acc.vendor} chips: {native}'s reference-based projection x {ratio[0]:.2f}-{ratio[1]:.2f} for the adapter layer"
    return low * ratio[0], high * ratio[1], ev + [ratio[2]], notes + [note]


def _peak(kb: Any, acc: Any, native: bool, gflops: Optional[float], devices: int, keep: _Keep) -> Optional[tuple[float, float, list[Evidence], list[str]]]:
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
    s_low, s_high, s_ev, s_notes = keep.span()
    keep.used = devices > 1
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


def project(workflow: str, req: Requirements, kb: Any, suites: list[Any], *, basis_cap: Optional[Basis] = None,
            scaling: Any = None, scaling_here: bool = False) -> Projection:
    """One workflow's projection. `basis_cap` forces a weaker basis (so workflows compare like with like).
    `scaling`: a scaling probe result (ScalingResult or its JSON), `scaling_here`: measured on this host."""
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
    keep = communication_for(framework, target, req, kb, scaling, scaling_here)
    proj.communication = keep.comm
    if path == "mindspore-gpu":
        gpu_ok, last_gpu, fw = mindspore_gpu_support(kb)
        if not gpu_ok:
            proj.supported = False
            proj.basis_detail = f"MindSpore's newest releases do not run on CUDA GPUs (last with GPU support: {last_gpu or 'unknown'})"
            if fw is not None:
                proj.evidence.append(kb_evidence(fw, proj.basis_detail, last_gpu))
            _not_applied(keep, "none", "unsupported: nothing projected")
            return proj
    cap = BASIS_RANK[basis_cap] if basis_cap else 3
    found = None
    runs = ok_runs(suites)
    if acc is not None:
        # A run on another accelerator model is not a measurement of this one (an H200 run read as
        # "measured" for A10s overstated them ~4x): those runs fall back to the knowledge base.
        elsewhere = [r for r in runs if r["_accelerator"] and r["_accelerator"] != acc.id
                     and device_kind(r.get("device", "")) == target and r.get("framework") == framework]
        if elsewhere:
            runs = [r for r in runs if r not in elsewhere]
            proj.notes.append(f"probe runs on {', '.join(sorted({r['_accelerator'] for r in elsewhere}))} not used as measurements: "
                              f"the target accelerator is {acc.id}")
    if cap >= 3:
        run = best_run(runs, framework, target, req.workload.model if req.workload else None)
        if run is not None and (gflops or run.get("model") == (req.workload.model if req.workload else None) or req.workload is None):
            where = f"{run['_accelerator']} (host {run['_host']})" if run["_accelerator"] else run["_host"]
            found = ("measured", f"probe run {run.get('id')} on {where}", _measured(run, gflops, devices, keep))
    flop_scalable = gflops is None or gflops >= MIN_FLOP_SCALED_GFLOPS
    if found is None and cap >= 2 and kb is not None and acc is not None and req.workload is not None and flop_scalable:
        r = _reference(kb, acc, framework, req, gflops, devices, keep)
        if r is not None:
            found = ("reference", f"knowledge-base reference measurements of {framework} on {acc.name}", r)
        else:
            r = _reference_by_peak(kb, acc, framework, gflops, devices, keep)
            if r is not None:
                found = ("reference", f"knowledge-base references of {framework} on other {acc.vendor} chips, scaled to {acc.name}'s peak", r)
            elif not native:
                r = _reference_via_native(kb, acc, framework, req, gflops, devices, keep)
                if r is not None:
                    found = ("reference", f"knowledge-base references of the first-party framework on {acc.vendor} chips x an adapter ratio", r)
    if found is None and cap >= 1 and kb is not None and acc is not None and flop_scalable:
        r = _peak(kb, acc, native, gflops, devices, keep)
        if r is not None:
            found = ("peak", f"{acc.name} peak x derating ranges", r)
    if found is None:
        proj.basis_detail = _why_none(req, kb, acc, target, gflops)
        if devices > 1:
            _not_applied(keep, "none", "no throughput projected")
        return proj
    if devices > 1 and not keep.used:
        counts = "/".join(str(n) for n in sorted(keep.ref_devices)) or "several"
        _not_applied(keep, "in-reference", f"loss included in the knowledge-base {counts}-device references")
    if devices <= 1 and keep.ref_devices:
        counts = "/".join(str(n) for n in sorted(keep.ref_devices))
        note = (f"per-device rate from the knowledge-base {counts}-device references, which include their communication "
                "loss: one device may run somewhat faster than projected")
        proj.notes.append(note)
        keep.comm.notes.append(note)
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


def _not_applied(keep: _Keep, basis: CommunicationBasis, why: str) -> None:
    """The path taken did not multiply by a communication factor: say so, keep the measurement as evidence."""
    comm, m, kept = keep.comm, keep.comm.measured, keep.comm.kept
    comm.basis, comm.kept = basis, None
    comm.basis_detail = f"{keep.measured_text} as evidence + {why}" if m and keep.measured_text else why
    comm.notes = [f"{keep.why_not}: its figures are evidence only"] if m and keep.why_not else []
    if basis == "in-reference" and kept is not None and comm.knowledge_loss:
        comm.notes.append(f"the knowledge-base derating for {comm.devices} devices would keep {_pct(kept.low, kept.high)} of linear: "
                          "not applied on top of references that already include their loss")
        if keep.factor_note:
            comm.notes.append(keep.factor_note)
    comm.evidence = [e for e in comm.evidence if e.kind == "measured"]  # the knowledge-base range did not enter


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
    if gflops < MIN_FLOP_SCALED_GFLOPS:
        return (f"the workload's {gflops:.3g} training GFLOPs per sample are too few to project from references or peak "
                f"FLOPs (overhead-bound, not compute-bound): only a probe run on {acc.name} can project it")
    return f"no reference and no peak figure for {acc.name}"


def project_all(req: Requirements, kb: Any, suites: list[Any], scaling: Any = None, scaling_here: bool = False) -> dict[str, Projection]:
    """Each workflow's projection on its best basis."""
    return {wf: project(wf, req, kb, suites, scaling=scaling, scaling_here=scaling_here) for wf in WORKFLOWS}


def common_basis(projections: dict[str, Projection]) -> Basis:
    """The best basis every supported workflow shares: comparisons are made like with like."""
    ranks = [BASIS_RANK[p.basis] for p in projections.values() if p.supported]
    if not ranks:
        return "none"
    lowest = min(ranks)
    return next(b for b, r in BASIS_RANK.items() if r == lowest)
