"""The workflow model: for each workflow, the production framework, the hardware kind it trains on,
the framework path and the knowledge-base accelerator, worked out once (`routes`) and passed down.

Hybrid prototypes in PyTorch but trains and serves with MindSpore (seed "MindSpore vs PyTorch,
measured on the same task", section on using both). With `training_target: undecided` each workflow
trains on the hardware it would really use, and the other vendor's accelerator is the one nearest in
peak to the anchor chip, so the comparison is like with like and says so (`Route.basis_note`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from advisor.requirements import Requirements
from knowledge.models import Accelerator, Framework, KnowledgeBase, Sourced
from knowledge.models import Route as StackRoute

WORKFLOWS: tuple[str, ...] = ("pytorch", "mindspore", "hybrid")
VENDOR_OF_TARGET = {"nvidia": "nvidia", "ascend": "huawei", "cpu": "generic"}


@dataclass(frozen=True)
class Route:
    workflow: str
    framework: str
    target: str
    path: str
    native: bool
    accelerator: Optional[Accelerator] = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    basis_note: str = ""
    training: Optional[StackRoute] = None
    """the knowledge base's training route this workflow takes here (MindSpeed-LLM, MindSpore Transformers, ...)"""
    serving: Optional[StackRoute] = None
    """the knowledge base's serving route (vLLM-Ascend, MindIE, vLLM, MindSpore Lite, ...)"""


def framework_for(workflow: str) -> str:
    """The production framework: hybrid prototypes in PyTorch but trains and serves with MindSpore."""
    return "pytorch" if workflow == "pytorch" else "mindspore"


def target_for(workflow: str, req: Requirements) -> str:
    """The hardware kind a workflow trains on in production."""
    target = req.hardware.training_target
    if target != "undecided":
        return target
    prefs = ("nvidia", "ascend", "cpu") if workflow == "pytorch" else ("ascend", "cpu", "nvidia")
    return next(k for k in prefs if k in req.hardware.available)


def path_for(framework: str, target: str) -> tuple[str, bool]:
    """(framework path, native?) for a framework on a hardware kind."""
    if framework == "pytorch":
        return {"nvidia": ("pytorch-cuda", True), "ascend": ("pytorch-npu", False), "cpu": ("pytorch-cpu", True)}[
            target
        ]
    return {"nvidia": ("mindspore-gpu", False), "ascend": ("mindspore", True), "cpu": ("mindspore-cpu", True)}[target]


def device_kind(device: str) -> str:
    d = (device or "").lower()
    if "cuda" in d or "gpu" in d or "nvidia" in d:
        return "nvidia"
    if "npu" in d or "ascend" in d:
        return "ascend"
    return "cpu"


def training_capable(acc: Accelerator) -> bool:
    """An accelerator that can train: the knowledge base's `training_capable` field (False for
    inference parts such as the Ascend 310 family and the Atlas 300I cards)."""
    return bool(acc.training_capable)


def peak_of(acc: Accelerator) -> Optional[Sourced]:
    return acc.fp16_tflops or acc.bf16_tflops or acc.fp32_tflops


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _default_accelerator(kb: KnowledgeBase, vendor: str) -> Optional[Accelerator]:
    candidates = [a for a in kb.accelerators if a.vendor == vendor and training_capable(a)]
    if not candidates:
        return None
    refs = {a.id: sum(1 for r in kb.references if r.accelerator == a.id) for a in candidates}
    return max(candidates, key=lambda a: (refs[a.id], a.year or 0, a.id))


def _nearest_peak(kb: KnowledgeBase, vendor: str, anchor: Accelerator) -> Optional[Accelerator]:
    """The vendor's training chip nearest in peak to `anchor` (like with like across vendors)."""
    anchor_peak = peak_of(anchor)
    candidates = [a for a in kb.accelerators if a.vendor == vendor and training_capable(a) and peak_of(a) is not None]
    if anchor_peak is None or not candidates:
        return None
    return min(candidates, key=lambda a: (abs(peak_of(a).value - anchor_peak.value), -(a.year or 0), a.id))


def fleet_view(req: Requirements, kb: Optional[KnowledgeBase], target: str) -> Requirements:
    """The requirements as the workflow training on `target` sees them: with several fleets
    (`hardware.accelerators`), the fleet of that target's vendor becomes `accelerator` x `devices`
    (issue 25, part 7: each workflow uses the fleet it would really use). Unchanged otherwise."""
    fleets = req.hardware.accelerators
    if not fleets or kb is None or target not in VENDOR_OF_TARGET:
        return req
    vendor = VENDOR_OF_TARGET[target]
    serves = req.workload is not None and req.workload.kind == "inference"  # inference parts serve it
    for fleet in fleets:
        acc = kb.find_accelerator(fleet.kind)
        if acc is not None and acc.vendor == vendor and (serves or training_capable(acc)):
            hw = req.hardware.model_copy(update={"accelerator": fleet.kind, "devices": fleet.count})
            return req.model_copy(update={"hardware": hw})
    return req


def fleet_note(req: Requirements, kb: Optional[KnowledgeBase], target: str) -> Optional[str]:
    view = fleet_view(req, kb, target)
    if view is req:
        return None
    return f"fleet used: {view.hardware.devices} x {view.hardware.accelerator} (hardware.accelerators)"


def resolve_accelerator(
    req: Requirements, target: str, kb: Optional[KnowledgeBase], anchor: Optional[Accelerator] = None
) -> tuple[Optional[Accelerator], list[str]]:
    """The knowledge-base accelerator for a target kind: the one the team named if it is of that kind;
    else, beside an `anchor` of the other vendor (undecided target), the chip nearest it in peak; else
    the vendor's training chip with the most reference measurements (an assumption, said so)."""
    if kb is None or target == "cpu":
        return None, []
    vendor = VENDOR_OF_TARGET[target]
    named = kb.find_accelerator(req.hardware.accelerator) if req.hardware.accelerator else None
    if named is not None and named.vendor == vendor:
        return named, []
    chosen = _nearest_peak(kb, vendor, anchor) if anchor is not None else None
    how = ""
    if chosen is not None:
        how = f" (nearest in peak to {anchor.name}: {peak_of(chosen).value:g} vs {peak_of(anchor).value:g} TFLOPS)"
    else:
        chosen = _default_accelerator(kb, vendor)
    if chosen is None:
        return None, [f"the knowledge base has no {target} accelerator"]
    if named is not None:
        why = f"'{req.hardware.accelerator}' is not {_article(target)} {target} accelerator"
    elif req.hardware.accelerator:
        why = f"'{req.hardware.accelerator}' is not in the knowledge base"
    else:
        why = "no hardware.accelerator given"
    return chosen, [f"{why}: assumed {chosen.name} for {target} training{how}"]


def mindspore_gpu_support(kb: Optional[KnowledgeBase]) -> tuple[bool, Optional[str], Optional[Framework]]:
    """Does the newest MindSpore in the knowledge base run on CUDA GPUs? (supported, last gpu version, entry)"""
    fw = next((f for f in getattr(kb, "frameworks", []) if f.id == "mindspore"), None)
    if fw is None or not fw.versions:
        return True, None, None
    last_gpu = None
    for v in fw.versions:
        if any(d.lower() in ("gpu", "cuda") for d in v.devices):
            last_gpu = v.version
    newest = max(fw.versions, key=lambda v: _version_key(v.version))
    return any(d.lower() in ("gpu", "cuda") for d in newest.devices), last_gpu, fw


def _version_key(text: str) -> tuple:
    parts = []
    for piece in text.replace("-", ".").split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def routes(req: Requirements, kb: Optional[KnowledgeBase]) -> dict[str, Route]:
    """Each workflow's (framework, target, path, accelerator), once."""
    targets = {wf: target_for(wf, req) for wf in WORKFLOWS}
    undecided = req.hardware.training_target == "undecided"
    anchor = None
    if undecided and kb is not None and len({t for t in targets.values() if t != "cpu"}) > 1:
        # The team's named chip anchors the comparison; else the Ascend chip with the most references.
        named = kb.find_accelerator(req.hardware.accelerator) if req.hardware.accelerator else None
        anchor = named or _default_accelerator(kb, "huawei")
    out: dict[str, Route] = {}
    for wf in WORKFLOWS:
        framework, target = framework_for(wf), targets[wf]
        path, native = path_for(framework, target)
        use_anchor = anchor if anchor is not None and VENDOR_OF_TARGET[target] != anchor.vendor else None
        acc, notes = resolve_accelerator(fleet_view(req, kb, target), target, kb, use_anchor)
        note = fleet_note(req, kb, target)
        notes = [note, *notes] if note else notes
        out[wf] = Route(
            workflow=wf,
            framework=framework,
            target=target,
            path=path,
            native=native,
            accelerator=acc,
            notes=tuple(notes),
        )
    if undecided:
        basis = comparison_note(out)
        out = {wf: Route(**{**r.__dict__, "basis_note": basis}) for wf, r in out.items()}
    return out


def comparison_note(rs: dict[str, Route]) -> str:
    """What hardware each workflow is compared on, when the team has not decided the training target."""
    where: dict[str, list[str]] = {}
    for wf, r in rs.items():
        where.setdefault(r.accelerator.name if r.accelerator is not None else r.target, []).append(wf)
    text = "; ".join(f"{'/'.join(wfs)} on {hw}" for hw, wfs in where.items())
    if len(where) == 1:
        return f"hardware.training_target=undecided: every workflow compared on the same hardware ({text})"
    return (
        f"hardware.training_target=undecided: each workflow compared on the hardware it would really use ({text}); "
        "the chips are matched by peak so the comparison is like with like, not the same silicon"
    )
