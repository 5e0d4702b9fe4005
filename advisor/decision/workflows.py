"""The workflow model: for each workflow, the production framework, where it trains (the hardware kind,
the knowledge-base accelerator and how many of them), the stack it runs there (the knowledge base's
training and serving routes: MindSpeed-LLM on torch_npu, MindSpore Transformers, vLLM-Ascend, ...) and
whether the workflow applies to the project at all. Worked out once (`routes`, then `place` picks among
the candidate places with the projections) and passed down.

Hybrid prototypes in PyTorch but trains and serves with MindSpore (the field report "MindSpore vs
PyTorch, measured on the same task", section on using both): a project with no prototype phase (a
product that trains nothing, or training that starts from released weights) has no hybrid.
A named chip is the chip: with `training_target: undecided` and no chip named for a vendor, that
vendor's current training chip (the one with the most reference measurements) stands in, said so; an
older generation is never picked for being nearer in peak.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional, Union

from advisor import vocabulary
from advisor.decision.findings import said
from advisor.requirements import Requirements
from knowledge.models import Accelerator, Framework, KnowledgeBase, Sourced
from knowledge.models import Route as StackRoute

WORKFLOWS = vocabulary.WORKFLOWS
VENDOR_OF_TARGET = {"nvidia": "nvidia", "ascend": "huawei", "cpu": "generic"}
TARGET_OF_VENDOR = {"nvidia": "nvidia", "huawei": "ascend", "generic": "cpu"}


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
    """the knowledge base's serving route for the first deployment target (vLLM-Ascend, MindIE, vLLM, ...)"""
    devices: Optional[int] = None
    """devices of the placed fleet (None: hardware.devices)"""
    serving_by_target: tuple[tuple[str, Optional[StackRoute]], ...] = ()
    """(deployment target, its serving route) for every deployment target, in the requirements' order"""
    applicable: bool = True
    not_applicable: str = ""
    """why the workflow does not apply to this project (no prototype phase, nothing trained)"""
    placed_from: int = 1
    """how many places (fleet or hardware kind) the workflow could train on; above 1 the placement decided"""
    assumed_chip: str = ""
    """the note saying which chip stands in for one the team did not name ('' when the team named it)"""
    placement: str = ""
    """the note saying where the placement put the workflow among its places ('' when it had one)"""

    def serving_for(self, target: str) -> Optional[StackRoute]:
        return dict(self.serving_by_target).get(target)


def framework_for(workflow: str) -> str:
    """The production framework: hybrid prototypes in PyTorch but trains and serves with MindSpore."""
    return "pytorch" if workflow == "pytorch" else "mindspore"


def target_for(workflow: str, req: Requirements) -> str:
    """The hardware kind a workflow trains on when nothing else decides (the first candidate)."""
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


def stack_framework(framework: str, target: str) -> Optional[str]:
    """The knowledge base's framework id of a route on `target` (torch_npu for PyTorch on Ascend)."""
    if target == "cpu":
        return None
    if framework == "pytorch":
        return "torch_npu" if target == "ascend" else "pytorch"
    return "mindspore" if target == "ascend" else None


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


def serves_only(req: Requirements) -> bool:
    """An inference-only product: nothing is trained."""
    return req.workload is not None and req.workload.kind == "inference"


def not_applicable(workflow: str, req: Requirements) -> str:
    """Why `workflow` does not apply to the project ('' when it does): the hybrid is a PyTorch prototype
    phase followed by MindSpore production, so a project with no prototype phase has no hybrid."""
    if workflow != "hybrid":
        return ""
    if serves_only(req):
        return said("workflows.no_prototype.inference")
    if req.model.fine_tune is not None:
        return said("workflows.no_prototype.fine_tune", fine_tune=req.model.fine_tune)
    if req.model.from_checkpoint:
        return said("workflows.no_prototype.checkpoint")
    return ""


def current_chip(kb: KnowledgeBase, vendor: str, inference: bool = False) -> Optional[Accelerator]:
    """The vendor's current training chip: the newest generation that has published measurements to
    project from (throughput or MFU references), then the one with the most of them."""
    candidates = [a for a in kb.accelerators if a.vendor == vendor and (inference or training_capable(a))]
    if not candidates:
        return None
    refs = {
        a.id: sum(1 for r in kb.references if r.accelerator == a.id)
        + sum(1 for r in kb.mfu_references if r.accelerator == a.id)
        for a in candidates
    }
    return max(candidates, key=lambda a: (refs[a.id] > 0, a.year or 0, refs[a.id], a.id))


# the old name, kept for the projections' imports
_default_accelerator = current_chip


def fleet_view(req: Requirements, kb: Optional[KnowledgeBase], where: Union[str, Route]) -> Requirements:
    """The requirements as the workflow placed at `where` sees them: a placed Route's accelerator and
    device count (and its hardware kind as the training target); given a hardware kind, the first fleet
    of that kind's vendor (`hardware.accelerators`). Unchanged otherwise."""
    if isinstance(where, Route):
        if where.accelerator is None or where.devices is None:
            return req
        hw = req.hardware.model_copy(
            update={"accelerator": where.accelerator.id, "devices": where.devices, "training_target": where.target}
        )
        return req.model_copy(update={"hardware": hw})
    fleets = req.hardware.accelerators
    if not fleets or kb is None or where not in VENDOR_OF_TARGET:
        return req
    vendor = VENDOR_OF_TARGET[where]
    for fleet in fleets:
        acc = kb.find_accelerator(fleet.kind)
        if acc is not None and acc.vendor == vendor and (serves_only(req) or training_capable(acc)):
            hw = req.hardware.model_copy(update={"accelerator": fleet.kind, "devices": fleet.count})
            return req.model_copy(update={"hardware": hw})
    return req


def resolve_accelerator(
    req: Requirements, target: str, kb: Optional[KnowledgeBase], anchor: Optional[Accelerator] = None
) -> tuple[Optional[Accelerator], list[str]]:
    """The knowledge-base accelerator for a target kind: the one the team named if it is of that kind;
    else the vendor's current training chip (an assumption, said so). `anchor` is ignored: a chip is
    never chosen for being nearest in peak to another vendor's (that picked a 2019 Ascend 910 beside
    an H20)."""
    if kb is None or target == "cpu":
        return None, []
    vendor = VENDOR_OF_TARGET[target]
    named = kb.find_accelerator(req.hardware.accelerator) if req.hardware.accelerator else None
    if named is not None and named.vendor == vendor:
        return named, []
    chosen = current_chip(kb, vendor, serves_only(req))
    if chosen is None:
        return None, [said("workflows.no_accelerator", target=target)]
    other = (req.hardware.accelerator, named.vendor) if named is not None else None
    return chosen, [said("workflows.assumed_chip", target=target, other=other, chip=chosen.name)]


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


# --- the places a workflow can train on ---------------------------------------------------------------


def _kinds_for(workflow: str, req: Requirements) -> tuple[str, ...]:
    """The hardware kinds a workflow may train on, in the order tried: a fixed target is the target;
    undecided, PyTorch runs anywhere (CUDA, torch_npu, CPU) while MindSpore's newest releases have no
    CUDA backend, so MindSpore and the hybrid train on Ascend or CPU."""
    target = req.hardware.training_target
    if target != "undecided":
        return (target,)
    prefs = ("nvidia", "ascend", "cpu") if workflow == "pytorch" else ("ascend", "cpu")
    kinds = tuple(k for k in prefs if k in req.hardware.available)
    return kinds or (target_for(workflow, req),)


def _domestic_training(req: Requirements) -> bool:
    return req.needs.hardware_mandate != "none" and "training" in req.needs.domestic_scope


def candidates(req: Requirements, kb: Optional[KnowledgeBase]) -> dict[str, list[Route]]:
    """Each workflow's candidate places (fleet or hardware kind), most preferred first. With several
    fleets every fleet of an allowed kind is a place; otherwise each allowed kind with the named chip
    (or the vendor's current chip). A domestic hardware mandate that covers training puts the Ascend
    places first (required: only those, when there are any)."""
    out: dict[str, list[Route]] = {}
    inference = serves_only(req)
    for wf in WORKFLOWS:
        framework = framework_for(wf)
        kinds = _kinds_for(wf, req)
        # (kind, accelerator, devices, notes, the note of a chip that stands in for an unnamed one)
        places: list[tuple[str, Optional[Accelerator], Optional[int], list[str], str]] = []
        if req.hardware.accelerators and kb is not None:
            for fleet in req.hardware.accelerators:
                acc = kb.find_accelerator(fleet.kind)
                if acc is None or (not inference and not training_capable(acc)):
                    continue
                kind = TARGET_OF_VENDOR.get(acc.vendor, "cpu")
                if kind in kinds:
                    note = said("workflows.fleet_used", count=fleet.count, kind=fleet.kind)
                    places.append((kind, acc, fleet.count, [note], ""))
        have = {k for k, *_ in places}
        for kind in kinds:
            if kind in have:
                continue
            acc, notes = resolve_accelerator(req, kind, kb)
            # a chip resolved with a note is one the team did not name
            places.append((kind, acc, req.hardware.devices, notes, notes[0] if acc is not None and notes else ""))
        if _domestic_training(req):
            domestic = [p for p in places if p[0] == "ascend"]
            if req.needs.hardware_mandate == "required" and domestic:
                places = domestic
            else:
                places = domestic + [p for p in places if p[0] != "ascend"]
        routes_ = []
        for kind, acc, devices, notes, assumed in places:
            path, native = path_for(framework, kind)
            routes_.append(
                Route(
                    workflow=wf,
                    framework=framework,
                    target=kind,
                    path=path,
                    native=native,
                    accelerator=acc,
                    notes=tuple(notes),
                    devices=devices if acc is not None else None,
                    applicable=not not_applicable(wf, req),
                    not_applicable=not_applicable(wf, req),
                    placed_from=len(places),
                    assumed_chip=assumed,
                )
            )
        out[wf] = routes_
    return out


def routes(req: Requirements, kb: Optional[KnowledgeBase]) -> dict[str, Route]:
    """Each workflow's first candidate place (the decision model places the workflows with several
    candidates by their projections and adds their stack routes: advisor.decision.prepare.place)."""
    return with_basis(req, {wf: places[0] for wf, places in candidates(req, kb).items()})


def with_basis(req: Requirements, rs: dict[str, Route]) -> dict[str, Route]:
    """Every route with the note saying what hardware each workflow is compared on (undecided target)."""
    if req.hardware.training_target != "undecided":
        return rs
    basis = comparison_note(rs)
    return {wf: replace(r, basis_note=basis) for wf, r in rs.items()}


def comparison_note(rs: dict[str, Route]) -> str:
    """What hardware each workflow is compared on, when the team has not decided the training target."""
    where: dict[str, list[str]] = {}
    for wf, r in rs.items():
        name = r.accelerator.name if r.accelerator is not None else r.target
        if r.accelerator is not None and r.devices:
            name = f"{r.devices} x {name}"
        where.setdefault(name, []).append(wf)
    code = "workflows.compared.same_hardware" if len(where) == 1 else "workflows.compared.placed"
    return said(code, where=list(where.items()))
