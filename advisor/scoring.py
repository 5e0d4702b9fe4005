"""The decision: score the three workflows on eight criteria, transparently.

`score(requirements, host, probes, kb, scan=None) -> Scorecard` is a pure function. Every criterion
gets a 0-100 score per workflow with the evidence it rests on (a probe run with its CI, a
knowledge-base entry with its source and confidence, or the requirements field that drove it).
Weights follow from the requirements (user weights override, renormalised); hard constraints make a
workflow ineligible with the reason; the verdict carries a confidence from the margin and the
measurement noise, and a sensitivity analysis says at which weight the winner would change.

The model's few structural rules (which framework is first-party on which hardware, how a hybrid
workflow splits its work between the two stacks) are written here as named constants with the
field report they come from, so a reviewer can check and change them in one place.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.projections import (
    BASIS_RANK,
    WORKLOAD_GFLOPS,
    WORKFLOWS,
    Evidence,
    Projection,
    common_basis,
    device_kind,
    framework_for,
    kb_evidence,
    ok_runs,
    project,
    project_all,
    sourced_evidence,
    target_for,
)
from advisor.requirements import CRITERIA, SKILL_LEVELS, Requirements

# --- the model's structural rules ----------------------------------------------------------------

# The first-party framework for each deployment target (seed 000, "模型部署对比": MindIR + Lite is the
# native path on Ascend servers and edge devices; ONNX/TensorRT is PyTorch's mature path on NVIDIA).
NATIVE_DEPLOYMENT = {"nvidia-server": "pytorch", "ascend-server": "mindspore", "edge-ascend": "mindspore"}
CONVERSION_FIT = 55.0
# Hybrid to edge devices: the model is designed in PyTorch without the edge runtime's operator set in
# view; unsupported operators show up only at conversion (seed 002, 5.7; seed 004, 5.3).
HYBRID_EDGE_PENALTY = 15.0
EDGE_TARGETS = ("edge-ascend", "mobile")  # deploying through an export/convert step (ONNX, ATC): it works, with operator gaps
NATIVE_FIT = 100.0
# Hybrid = prototype in PyTorch, then train and serve with MindSpore (seed 000, "两个都要用的场景").
# Share of the work done in the PyTorch stack, per project stage, where a criterion mixes both stacks:
# a research project lives mostly in the prototype, a production one mostly in MindSpore.
HYBRID_PYTORCH_SHARE = {
    "research": {"ecosystem": 0.7, "debugging": 0.8, "team": 0.6},
    "prototype": {"ecosystem": 0.6, "debugging": 0.7, "team": 0.5},
    "production": {"ecosystem": 0.3, "debugging": 0.35, "team": 0.3},
}
# Team: two toolchains, two sets of framework bugs and a parity check between them (seed 004, 5.1).
HYBRID_TWO_STACKS = 8.0
# Compliance: the hybrid's prototype stage runs on a non-domestic framework.
HYBRID_COMPLIANCE_PENALTY = {"none": 0.0, "preferred": 5.0, "required": 15.0}
# Ecosystem aspects weighed for ecosystem fit, before the HuggingFace need is added.
ECOSYSTEM_ASPECTS = {"model_hub": 1.0, "libraries": 1.0, "community": 1.0, "documentation": 1.0}
HUB_WEIGHT = {"none": 0.5, "nice": 1.5, "essential": 3.0}
# Re-implementing a validated PyTorch model in MindSpore and checking that its loss matches, before
# any hazard: "ResNet-18 took an afternoon" (seed 002, 6.1), "a few hundred lines: half a day if you
# know both" (seed 004, 3.3), complex models are "manual labour". Hours (low, high) per model family;
# replaced by the code scan's estimate when model.code_path is given.
PORT_BASE_HOURS = {"cnn": (4.0, 16.0), "transformer": (8.0, 40.0), "rnn": (8.0, 32.0), "gnn": (16.0, 60.0), "other": (8.0, 40.0)}
# Risk the code scan finds (custom extensions, data-dependent control flow...) beyond its hours.
SCAN_RISK_PENALTY = {"low": 0.0, "medium": 5.0, "high": 10.0}
# A migration costing one team-week (team size x 40 h) scores 50 on migration effort.
HOURS_PER_WEEK = 40.0
# Fraction of the team's time before the deadline that migration may take before it blocks.
DEADLINE_SHARE = 0.5

CONFIDENCE_MARGINS = {"high": 8.0, "medium": 3.0}

MODEL_ASSUMPTIONS = (
    "criterion scores are 0-100 per workflow; the total is their weighted mean (weights renormalised to 1)",
    "migration effort sums the typical fix hours of the knowledge-base pitfalls that apply (plus re-implementing the model when PyTorch code is ported); one team-week of it scores 50",
    "compute cost = projected device-hours x the knowledge base's price per device-hour (no storage, data transfer or idle time)",
    f"confidence: high from a margin of {CONFIDENCE_MARGINS['high']:g} points, medium from {CONFIDENCE_MARGINS['medium']:g}; one step lower when the measured difference that decides it is inside the noise",
)


class Criterion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    weight: float = Field(description="normalised weight (all criteria sum to 1)")
    score: float = Field(ge=0, le=100)
    evidence: list[Evidence] = Field(default_factory=list)
    note: str = ""


class WorkflowScore(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workflow: Literal["pytorch", "mindspore", "hybrid"]
    total: float = Field(ge=0, le=100)
    eligible: bool
    blocked_by: list[str] = Field(default_factory=list, description="hard constraints it violates")
    criteria: list[Criterion]
    pitfalls: list[str] = Field(default_factory=list, description="ids of knowledge-base pitfalls that apply")
    migration_hours: Optional[list[float]] = Field(None, description="[low, high] hours of migration/adaptation work")


class Weight(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    weight: float
    raw: float
    origin: Literal["default", "user"]
    because: list[str] = Field(default_factory=list, description="requirements that raised it")


class Recommendation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workflow: Literal["pytorch", "mindspore", "hybrid"]
    confidence: Literal["high", "medium", "low"]
    margin: float = Field(description="points ahead of the runner-up (eligible workflows)")
    runner_up: Optional[str] = None
    inside_noise: bool = Field(False, description="measured differences that decide it lie inside the probes' noise")
    summary: str
    reasons: list[str]


class SensitivityItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    criterion: str
    weight: float
    threshold: Optional[float] = Field(None, description="weight at which the top workflow changes (others rescaled)")
    new_top: Optional[str] = None
    note: str


class PitfallItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    title: str
    workflows: list[str]
    symptom: str
    cause: str
    fix: str
    expected_hours: Optional[float] = Field(None, description="used for ordering: mid of effort_hours, else hours")
    effort_hours: Optional[list[float]] = None
    hours_in_field_report: Optional[float] = None
    conditions: list[str] = Field(default_factory=list)
    source: str
    confidence: str


class Scorecard(BaseModel):
    model_config = ConfigDict(extra="forbid")

    weights: list[Weight]
    scores: list[WorkflowScore]
    recommendation: Recommendation
    sensitivity: list[SensitivityItem]
    projections: list[Projection]
    comparison_basis: str = Field(description="basis shared by all workflows' performance/cost comparison")
    pitfalls: list[PitfallItem]
    assumptions: list[str]


# --- weights -------------------------------------------------------------------------------------


def default_weights(req: Requirements) -> dict[str, tuple[float, list[str]]]:
    """Raw weights from the requirements, with the fields that raised each."""
    n = req.needs
    w: dict[str, tuple[float, list[str]]] = {}

    def add(name: str, base: float, *bumps: tuple[bool, float, str]) -> None:
        value, why = base, []
        for cond, amount, field in bumps:
            if cond:
                value += amount
                why.append(field)
        w[name] = (value, why)

    add("performance", 0.10,
        (n.throughput_priority == "medium", 0.05, "needs.throughput_priority=medium"),
        (n.throughput_priority == "high", 0.12, "needs.throughput_priority=high"),
        (n.distributed_training, 0.02, "needs.distributed_training"))
    add("cost", 0.07,
        (req.constraints.budget_usd is not None, 0.05, "constraints.budget_usd"),
        (req.workload is not None, 0.02, "workload"))
    add("ecosystem", 0.08,
        (n.huggingface == "nice", 0.05, "needs.huggingface=nice"),
        (n.huggingface == "essential", 0.15, "needs.huggingface=essential"),
        (req.stage == "research", 0.03, "stage=research"))
    add("team", 0.14,
        (req.constraints.deadline_weeks is not None and req.constraints.deadline_weeks <= 8, 0.05, "constraints.deadline_weeks<=8"))
    add("migration", 0.08,
        (req.model.source == "pytorch-code", 0.08, "model.source=pytorch-code"),
        (req.model.custom_cuda_ops, 0.03, "model.custom_cuda_ops"),
        (req.constraints.deadline_weeks is not None, 0.02, "constraints.deadline_weeks"))
    add("deployment", 0.10,
        (req.stage == "production", 0.04, "stage=production"),
        (n.edge_cloud, 0.05, "needs.edge_cloud"),
        (any(t in ("mobile", "edge-ascend") for t in req.deployment.targets), 0.03, "deployment.targets (edge)"))
    add("debugging", 0.04,
        (n.debugging_intensity == "medium", 0.04, "needs.debugging_intensity=medium"),
        (n.debugging_intensity == "high", 0.10, "needs.debugging_intensity=high"),
        (req.stage in ("research", "prototype"), 0.03, f"stage={req.stage}"))
    # Constant on purpose: a stricter domestic requirement changes the scores and the hard
    # constraint, never the weight, so it can only lower a non-domestic stack's total.
    add("compliance", 0.10)
    return w


def resolve_weights(req: Requirements) -> list[Weight]:
    defaults = default_weights(req)
    given = req.weights.given() if req.weights else {}
    raw = {name: (given[name] if name in given else defaults[name][0]) for name in CRITERIA}
    total = sum(raw.values()) or 1.0
    return [
        Weight(name=name, weight=raw[name] / total, raw=raw[name],
               origin="user" if name in given else "default",
               because=[] if name in given else defaults[name][1])
        for name in CRITERIA
    ]


# --- helpers -------------------------------------------------------------------------------------


def _req_ev(field: str, value: Any, detail: str) -> Evidence:
    return Evidence(kind="requirement", ref=field, value=value, detail=detail)


def _skill(level: str) -> int:
    return SKILL_LEVELS.index(level)


def _clamp(x: float) -> float:
    return max(0.0, min(100.0, x))


def _range_text(low: float, high: float, unit: str = "", prefix: str = "") -> str:
    """'1.37-5.47', or one value when both ends read the same ('39,011', not '39,011-39,011')."""
    def sig(x: float) -> str:
        return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"

    a, b = sig(low), sig(high)
    return f"{prefix}{a}" + ("" if a == b else f"-{b}") + (f" {unit}" if unit else "")


def _ecosystem_entries(kb: Any, framework: str, aspect: str) -> list[Any]:
    if kb is None:
        return []
    return sorted((e for e in kb.ecosystem if e.framework == framework and e.aspect == aspect), key=lambda e: e.id)


def _aspect_score(kb: Any, framework: str, aspect: str) -> tuple[Optional[float], list[Evidence]]:
    entries = _ecosystem_entries(kb, framework, aspect)
    if not entries:
        return None, []
    value = sum(e.score for e in entries) / len(entries) * 20
    return value, [kb_evidence(e, f"{framework} {aspect}: {e.score}/5: {e.statement}", e.score) for e in entries]


def _pitfall_hours(p: Any) -> Optional[tuple[float, float]]:
    if p.effort_hours is not None:
        return p.effort_hours.low, p.effort_hours.high
    if p.hours is not None:
        return p.hours.value, p.hours.value
    return None


def applicable_pitfalls(kb: Any, workflow: str, req_dict: dict) -> list[Any]:
    if kb is None:
        return []
    return sorted((p for p in kb.pitfalls if workflow in p.workflows and p.applies(req_dict)), key=lambda p: p.id)


def ports_pytorch_code(workflow: str, req: Requirements) -> bool:
    """Does this workflow move PyTorch code to MindSpore? (hybrid always; mindspore for existing code)"""
    return workflow == "hybrid" or (workflow == "mindspore" and req.model.source == "pytorch-code")


# --- criteria ------------------------------------------------------------------------------------


def _team(wf: str, req: Requirements) -> tuple[float, list[Evidence], str]:
    pt, ms = _skill(req.team.pytorch), _skill(req.team.mindspore)
    pt_score, ms_score = 25 + 25 * pt, 25 + 25 * ms
    ev_pt = _req_ev("team.pytorch", req.team.pytorch, f"PyTorch skill {req.team.pytorch}")
    ev_ms = _req_ev("team.mindspore", req.team.mindspore, f"MindSpore skill {req.team.mindspore}")
    if wf == "pytorch":
        return pt_score, [ev_pt], "25 + 25 per PyTorch skill level"
    if wf == "mindspore":
        return ms_score, [ev_ms], "25 + 25 per MindSpore skill level"
    share = HYBRID_PYTORCH_SHARE[req.stage]["team"]
    score = share * pt_score + (1 - share) * ms_score - HYBRID_TWO_STACKS
    ev = [ev_pt, ev_ms]
    note = f"needs both skills: {share:.0%} PyTorch, {1 - share:.0%} MindSpore, -{HYBRID_TWO_STACKS:g} for keeping two stacks"
    if req.team.size <= 2:
        score -= 10
        ev.append(_req_ev("team.size", req.team.size, "two stacks to keep up with for a team of two or fewer"))
        note += "; -10 for a team of <= 2 carrying two stacks"
    return _clamp(score), ev, note


def pytorch_stack(wf: str, req: Requirements) -> str:
    """Which PyTorch the workflow works in: plain `pytorch`, or `torch_npu` when its PyTorch work runs
    on Ascend (the pytorch workflow training on Ascend; a hybrid prototype with no NVIDIA to run on)."""
    if wf == "pytorch":
        return "torch_npu" if target_for(wf, req) == "ascend" else "pytorch"
    if "nvidia" in req.hardware.available or "ascend" not in req.hardware.available:
        return "pytorch"
    return "torch_npu"


def _stack_aspect(kb: Any, stack: str, aspect: str) -> tuple[Optional[float], list[Evidence]]:
    """torch_npu entries override PyTorch's where the knowledge base has them (the adapter changes
    libraries and debugging, not the model hub)."""
    if stack == "torch_npu":
        value, ev = _aspect_score(kb, "torch_npu", aspect)
        if value is not None:
            return value, ev
        stack = "pytorch"
    return _aspect_score(kb, stack, aspect)


def _mix(wf: str, req: Requirements, kb: Any, aspects: dict[str, float], criterion: str) -> tuple[Optional[float], list[Evidence], str]:
    """Weighted aspect score of the workflow's stack(s); hybrid mixes its PyTorch and MindSpore stacks."""
    def stack_score(stack: str) -> tuple[Optional[float], list[Evidence]]:
        num = den = 0.0
        sev: list[Evidence] = []
        for aspect, weight in aspects.items():
            value, aev = _stack_aspect(kb, stack, aspect)
            if value is None:
                continue
            num, den = num + weight * value, den + weight
            sev.extend(aev)
        return (num / den if den else None), sev

    pt_stack = pytorch_stack(wf, req)
    (pt, pt_ev), (ms, ms_ev) = stack_score(pt_stack), stack_score("mindspore")
    if pt is None or ms is None:
        return None, pt_ev + ms_ev, ""
    adapter = " (PyTorch on Ascend through torch_npu)" if pt_stack == "torch_npu" else ""
    if wf == "pytorch":
        return pt, pt_ev, f"knowledge-base {criterion} scores{adapter} (0-5 -> 0-100)"
    if wf == "mindspore":
        return ms, ms_ev, f"knowledge-base {criterion} scores (0-5 -> 0-100)"
    share = HYBRID_PYTORCH_SHARE[req.stage][criterion] * prototype_fluency(req)
    ev = pt_ev + ms_ev
    ev.append(_req_ev("team.pytorch", req.team.pytorch, f"prototyping in PyTorch pays off as far as the team is faster there (x{prototype_fluency(req):.2f})"))
    return (share * pt + (1 - share) * ms, ev,
            f"{share:.0%} in the PyTorch prototype{adapter}, {1 - share:.0%} in MindSpore production (stage {req.stage}, team skills)")


def prototype_fluency(req: Requirements) -> float:
    """How much of the hybrid's PyTorch phase the team really spends there: it prototypes in PyTorch
    to validate ideas quickly (seed 000), which pays off as far as it is more fluent in PyTorch than in
    MindSpore: 0.5 at equal skill, +-0.25 per level of difference."""
    diff = _skill(req.team.pytorch) - _skill(req.team.mindspore)
    return max(0.0, min(1.0, 0.5 + 0.25 * diff))


def _ecosystem(wf: str, req: Requirements, kb: Any) -> tuple[float, list[Evidence], str]:
    aspects = dict(ECOSYSTEM_ASPECTS)
    aspects["model_hub"] = HUB_WEIGHT[req.needs.huggingface]
    value, ev, note = _mix(wf, req, kb, aspects, "ecosystem")
    ev.insert(0, _req_ev("needs.huggingface", req.needs.huggingface, f"model hub weighed x{aspects['model_hub']:g}"))
    if value is None:
        return 50.0, ev, "no ecosystem entries in the knowledge base: neutral 50"
    return value, ev, note


def _debugging(wf: str, req: Requirements, kb: Any) -> tuple[float, list[Evidence], str]:
    value, ev, note = _mix(wf, req, kb, {"debugging": 1.0}, "debugging")
    ev.insert(0, _req_ev("needs.debugging_intensity", req.needs.debugging_intensity, "how much debugging the work needs"))
    if value is None:
        return 50.0, ev, "no debugging entries in the knowledge base: neutral 50"
    return value, ev, note


def _deployment_fit(framework: str, target: str, kb: Any) -> tuple[float, list[Evidence], str]:
    native = NATIVE_DEPLOYMENT.get(target)
    if native == framework:
        return NATIVE_FIT, [], f"{target}: first-party path"
    if native is not None:
        return CONVERSION_FIT, [], f"{target}: via export/conversion"
    value, ev = _aspect_score(kb, framework, "deployment")
    if value is None:
        return 70.0, [], f"{target}: no deployment entry in the knowledge base, 70 assumed"
    return value, ev, f"{target}: knowledge-base deployment score"


def _deployment(wf: str, req: Requirements, kb: Any) -> tuple[float, list[Evidence], str]:
    framework = framework_for(wf)
    scores, notes = [], []
    ev = [_req_ev("deployment.targets", list(req.deployment.targets), f"deploys {framework} models to {', '.join(req.deployment.targets)}")]
    for target in req.deployment.targets:
        value, tev, note = _deployment_fit(framework, target, kb)
        scores.append(value)
        ev.extend(tev)
        notes.append(f"{note} {value:.0f}")
    score = sum(scores) / len(scores)
    if wf == "hybrid" and any(t in EDGE_TARGETS for t in req.deployment.targets):
        score -= HYBRID_EDGE_PENALTY
        ev.append(_req_ev("deployment.targets", list(req.deployment.targets), "edge targets: operator support found only at conversion of the PyTorch-designed model"))
        notes.append(f"-{HYBRID_EDGE_PENALTY:g} edge runtime constraints invisible while prototyping")
    if req.needs.edge_cloud and framework == "pytorch":
        score -= 15
        ev.append(_req_ev("needs.edge_cloud", True, "train in the cloud, infer on devices: two toolchains on a PyTorch stack"))
        notes.append("-15 edge-cloud on two toolchains")
    return _clamp(score), ev, "; ".join(notes)


def _compliance(wf: str, req: Requirements) -> tuple[float, list[Evidence], str]:
    level = req.needs.domestic_substitution
    ev = [_req_ev("needs.domestic_substitution", level, f"domestic substitution {level}")]
    if level == "none":
        return 100.0, ev, "no domestic-substitution requirement"
    target = target_for(wf, req)
    hw = {"ascend": 1.0, "cpu": 0.5, "nvidia": 0.0}[target]
    fw = 1.0 if framework_for(wf) == "mindspore" else 0.0
    dep = sum(1 for t in req.deployment.targets if t != "nvidia-server") / len(req.deployment.targets)
    score = 100 * (0.4 * hw + 0.3 * fw + 0.3 * dep)
    note = f"hardware {hw:.1f} x0.4 + domestic framework {fw:.0f} x0.3 + non-NVIDIA deployment {dep:.2f} x0.3"
    # Every deduction is named in the note, so the score can be recomputed from what the report says.
    if wf == "hybrid" and HYBRID_COMPLIANCE_PENALTY[level]:
        score -= HYBRID_COMPLIANCE_PENALTY[level]
        note += f"; -{HYBRID_COMPLIANCE_PENALTY[level]:g} for the PyTorch prototype stage"
    if level == "required" and score < 100:
        score -= 10
        note += "; -10 as substitution is required but not fully met"
    ev.append(_req_ev("hardware.training_target", target, f"production training on {target}"))
    return _clamp(score), ev, note


def _migration(wf: str, req: Requirements, kb: Any, scan: Any, req_dict: dict) -> tuple[float, list[Evidence], str, list[float], list[str]]:
    """Hours of migration/adaptation work from the applicable pitfalls (or the code scan)."""
    pitfalls = applicable_pitfalls(kb, wf, req_dict)
    low = high = 0.0
    ev: list[Evidence] = []
    scan_used = scan is not None and ports_pytorch_code(wf, req)
    ports = ports_pytorch_code(wf, req)
    for p in pitfalls:
        hours = _pitfall_hours(p)
        if hours is None:
            continue
        if scan_used and p.scan_kinds:
            continue  # the scan measured these hazards in the team's own code
        if not ports and p.scan_kinds and not p.applies_when and wf != "pytorch":
            continue  # hazards of porting PyTorch code; new MindSpore code has none to port
        low += hours[0]
        high += hours[1]
        src = p.effort_hours or p.hours
        ev.append(sourced_evidence(p.id, src, f"{p.title}: {hours[0]:g}-{hours[1]:g} h"))
    if scan_used:
        s = scan.model_dump(mode="json") if hasattr(scan, "model_dump") else dict(scan)
        s_low, s_high = (s.get("effort_hours") or [0, 0])[:2]
        low += s_low
        high += s_high
        ev.append(_req_ev("model.code_path", req.model.code_path,
                          f"scan of the team's code: {len(s.get('hazards') or [])} hazards, {s_low:g}-{s_high:g} h, risk {s.get('risk')}"))
        risk_penalty = SCAN_RISK_PENALTY.get(str(s.get("risk")), 0.0)
    if ports and not scan_used:
        base = PORT_BASE_HOURS[req.model.family]
        low += base[0]
        high += base[1]
        ev.append(_req_ev("model.family", req.model.family,
                          f"re-implementing and checking a {req.model.family} model in MindSpore: {base[0]:g}-{base[1]:g} h (seeds 002 6.1, 004 3.3)"))
    if kb is None and not scan_used:
        ev.append(_req_ev("model.source", req.model.source, "no knowledge base: pitfall hours unknown"))
    capacity = req.team.size * HOURS_PER_WEEK
    mid = (low + high) / 2
    score = 100 * capacity / (capacity + mid) - (risk_penalty if scan_used else 0.0)
    ev.append(_req_ev("team.size", req.team.size, f"one team-week = {capacity:g} h"))
    risk_note = f"; -{risk_penalty:g} for the scan's {s.get('risk')} risk" if scan_used and risk_penalty else ""
    return _clamp(score), ev, f"{_range_text(low, high, 'h')} of migration/adaptation work vs one team-week ({capacity:g} h){risk_note}", [round(low, 2), round(high, 2)], [p.id for p in pitfalls]


def communication_evidence(proj: Projection, already: list[Evidence]) -> tuple[list[Evidence], str]:
    """The multi-device communication evidence a criterion adds (the scaling probe's measured
    figures, the knowledge-base derating) and a note saying which basis the projection used."""
    comm = proj.communication
    if comm is None or (comm.devices <= 1 and comm.measured is None):
        return [], ""
    return [e for e in comm.evidence if e not in already], f"; communication: {comm.basis_detail}"


def _performance(wf: str, req: Requirements, projections: dict[str, Projection], basis: str) -> tuple[float, list[Evidence], str]:
    proj = projections[wf]
    if not proj.supported:
        return 0.0, list(proj.evidence), proj.basis_detail
    mids = {k: p.images_per_second.mid for k, p in projections.items() if p.supported and p.images_per_second}
    if basis != "none" and wf in mids and mids:
        best = max(mids.values())
        score = 100 * mids[wf] / best if best > 0 else 0.0
        span = proj.images_per_second
        c_ev, c_note = communication_evidence(proj, proj.evidence)
        return score, list(proj.evidence) + c_ev, f"{_range_text(span.low, span.high, 'images/s')} ({proj.basis}), relative to the fastest{c_note}"
    ev = [_req_ev("hardware.training_target", proj.target, f"{proj.path} on {proj.target}")]
    if proj.target == "cpu":
        return 30.0, ev, f"no projection possible ({proj.basis_detail}): CPU training, 30 assumed (accelerators are one to two orders of magnitude faster)"
    if proj.native:
        return 80.0, ev, f"no projection possible ({proj.basis_detail}): first-party path, 80 assumed"
    return 60.0, ev, f"no projection possible ({proj.basis_detail}): adapter path, 60 assumed"


def _costs(projections: dict[str, Projection]) -> dict[str, tuple[Optional[float], Optional[float], list[Evidence], str]]:
    """Per workflow: (low, high) USD of compute for the workload, evidence, note. Engineering time is
    the migration criterion's (not counted twice)."""
    out = {}
    for wf, proj in projections.items():
        c = proj.compute_cost_usd
        if c is None:
            out[wf] = (None, None, [], "")
            continue
        ev = [e for e in proj.cost_evidence if e.detail.endswith("per device-hour")]
        c_ev, c_note = communication_evidence(proj, ev)  # device-hours grow as communication eats throughput
        out[wf] = (c.low, c.high, ev + c_ev, f"compute for the workload on {proj.devices}x {proj.accelerator or proj.target}{c_note}")
    return out


# --- verdict -------------------------------------------------------------------------------------


def _total(criteria: list[Criterion]) -> float:
    return sum(c.weight * c.score for c in criteria)


def _sensitivity(scores: list[WorkflowScore], top: str) -> list[SensitivityItem]:
    """For each criterion: the weight (others rescaled to keep the sum 1) at which `top` loses first place."""
    pool = [s for s in scores if s.eligible] or scores
    items = []
    for i, name in enumerate(CRITERIA):
        w0 = pool[0].criteria[i].weight
        rest = 1 - w0

        def line(s: WorkflowScore) -> tuple[float, float]:
            r = (sum(c.weight * c.score for j, c in enumerate(s.criteria) if j != i) / rest) if rest > 0 else 0.0
            return s.criteria[i].score, r  # total(w) = w*score + (1-w)*r

        top_s = next(s for s in pool if s.workflow == top)
        ts, tr = line(top_s)
        best: Optional[tuple[float, str]] = None
        for other in pool:
            if other.workflow == top:
                continue
            os_, or_ = line(other)
            d_score, d_rest = ts - os_, tr - or_
            denom = d_rest - d_score
            if abs(denom) < 1e-12:
                continue
            w = d_rest / denom
            if 1e-9 < w < 1 - 1e-9 and abs(w - w0) > 1e-9:
                # only a crossing where `other` is ahead beyond it counts
                probe = w + (1e-6 if w > w0 else -1e-6)
                if probe * os_ + (1 - probe) * or_ > probe * ts + (1 - probe) * tr:
                    if best is None or abs(w - w0) < abs(best[0] - w0):
                        best = (w, other.workflow)
        if best is None:
            items.append(SensitivityItem(criterion=name, weight=round(w0, 4), note=f"{top} stays on top at any {name} weight"))
        else:
            w, who = best
            verb = "raised" if w > w0 else "lowered"
            items.append(SensitivityItem(criterion=name, weight=round(w0, 4), threshold=round(w, 4), new_top=who,
                                         note=f"{who} would win if the {name} weight were {verb} from {w0:.2f} to {w:.2f}"))
    return items


def _noise(scores: dict[str, WorkflowScore], projections: dict[str, Projection], top: str, runner: Optional[str], basis: str) -> tuple[bool, str]:
    """Do the measured throughputs of the top two overlap, and does performance decide the verdict?"""
    if runner is None or basis != "measured":
        return False, ""
    a, b = projections[top].images_per_second, projections[runner].images_per_second
    if a is None or b is None or projections[top].path == projections[runner].path:
        return False, ""
    overlap = a.low <= b.high and b.low <= a.high
    if not overlap:
        return False, ""
    perf = CRITERIA.index("performance")
    diff = scores[top].criteria[perf].weight * (scores[top].criteria[perf].score - scores[runner].criteria[perf].score)
    margin = scores[top].total - scores[runner].total
    decides = diff >= margin - 1e-9 and diff > 0
    return decides, (
        f"measured throughput of {top} and {runner} overlap within their 95% CIs"
        + ("; the performance difference that decides the verdict is inside the noise" if decides else "")
    )


def _pitfall_items(kb: Any, workflow: str, req_dict: dict) -> list[PitfallItem]:
    items = []
    for p in applicable_pitfalls(kb, workflow, req_dict):
        hours = _pitfall_hours(p)
        items.append(PitfallItem(
            id=p.id, title=p.title, workflows=list(p.workflows), symptom=p.symptom, cause=p.cause, fix=p.fix,
            expected_hours=round((hours[0] + hours[1]) / 2, 2) if hours else None,
            effort_hours=[p.effort_hours.low, p.effort_hours.high] if p.effort_hours else None,
            hours_in_field_report=p.hours.value if p.hours else None,
            conditions=list(p.applies_when), source=p.source, confidence=p.confidence))
    return sorted(items, key=lambda x: (-(x.expected_hours or 0), x.id))


WORKFLOW_SUMMARY = {
    "pytorch": "build, train and deploy on PyTorch",
    "mindspore": "build, train and deploy on MindSpore",
    "hybrid": "prototype and validate in PyTorch, then migrate the validated model to MindSpore for training and deployment on Ascend",
}


def score(requirements: Requirements, host: Any = None, probes: Any = None, kb: Any = None, scan: Any = None,
          scaling: Any = None, scaling_here: bool = False) -> Scorecard:
    """Score the three workflows. Pure: same inputs, same scorecard.

    `host`: a CheckReport/HostInfo (or None); `probes`: a ProbeSuite, a list of them, or None;
    `kb`: a KnowledgeBase or None (then knowledge-based criteria are neutral and said so);
    `scan`: an advisor.scan ScanResult of the team's code, or None;
    `scaling`: a scaling probe result (probes.scaling ScalingResult or its JSON), used for multi-device
    communication when the requirements ask for distributed training; `scaling_here`: measured on this host.
    """
    req = requirements
    suites = [] if probes is None else (list(probes) if isinstance(probes, (list, tuple)) else [probes])
    req_dict = req.as_conditions()
    weights = resolve_weights(req)
    wmap = {w.name: w.weight for w in weights}
    assumptions: list[str] = list(MODEL_ASSUMPTIONS)
    if req.workload is not None and req.workload.gflops_per_sample is None and req.workload.model != "lenet":
        assumptions.append(f"workload {req.workload.model}: {WORKLOAD_GFLOPS[req.workload.model]:g} training GFLOPs per image (ImageNet-size 224x224 input); set workload.gflops_per_sample for other input sizes")
    if kb is None:
        assumptions.append("no knowledge base loaded: ecosystem, debugging and migration are neutral or assumed")

    assumptions.extend(_host_notes(host, suites, req))
    target = req.hardware.training_target
    if target not in ("undecided", *req.hardware.available):
        assumptions.append(f"hardware.training_target={target} is not in hardware.available: the team has to get that hardware before production training")
    best = project_all(req, kb, suites, scaling, scaling_here)
    basis = common_basis(best)
    compared = {wf: (p if BASIS_RANK[p.basis] <= BASIS_RANK[basis] or not p.supported
                     else project(wf, req, kb, suites, basis_cap=basis, scaling=scaling, scaling_here=scaling_here))
                for wf, p in best.items()}
    if any(p.basis != compared[wf].basis for wf, p in best.items()):
        assumptions.append(f"performance and cost compare workflows on the basis all of them share ({basis}); projections show each one's best basis")
    for p in best.values():
        for note in p.notes:
            if note not in assumptions and "assumed" in note:
                assumptions.append(note)
    assumptions.extend(_communication_notes(req, compared))

    migration_hours: dict[str, list[float]] = {}
    partial: dict[str, dict[str, tuple[float, list[Evidence], str]]] = {}
    pitfall_ids: dict[str, list[str]] = {}
    for wf in WORKFLOWS:
        m_score, m_ev, m_note, hours, ids = _migration(wf, req, kb, scan, req_dict)
        migration_hours[wf] = hours
        pitfall_ids[wf] = ids
        partial[wf] = {
            "performance": _performance(wf, req, compared, basis),
            "ecosystem": _ecosystem(wf, req, kb),
            "team": _team(wf, req),
            "migration": (m_score, m_ev, m_note),
            "deployment": _deployment(wf, req, kb),
            "debugging": _debugging(wf, req, kb),
            "compliance": _compliance(wf, req),
        }
    costs = _costs(compared)
    for wf, cost in _cost_scores(req, compared, costs).items():
        partial[wf]["cost"] = cost

    scores: list[WorkflowScore] = []
    for wf in WORKFLOWS:
        criteria = [
            Criterion(name=name, weight=round(wmap[name], 6), score=round(_clamp(partial[wf][name][0]), 3),
                      evidence=partial[wf][name][1], note=partial[wf][name][2])
            for name in CRITERIA
        ]
        blocked = _hard_constraints(wf, req, best[wf], costs[wf], migration_hours[wf])
        scores.append(WorkflowScore(workflow=wf, total=round(_total(criteria), 3), eligible=not blocked,
                                    blocked_by=blocked, criteria=criteria, pitfalls=pitfall_ids[wf],
                                    migration_hours=migration_hours[wf]))

    order = {wf: i for i, wf in enumerate(WORKFLOWS)}
    ranked = sorted(scores, key=lambda s: (not s.eligible, -s.total, order[s.workflow]))
    top = ranked[0]
    eligible = [s for s in ranked if s.eligible]
    runner = eligible[1] if len(eligible) > 1 else None
    by_wf = {s.workflow: s for s in scores}
    margin = round(top.total - runner.total, 3) if runner else round(top.total - (ranked[1].total if len(ranked) > 1 else 0), 3)
    inside_noise, noise_note = _noise(by_wf, compared, top.workflow, runner.workflow if runner else None, basis)
    if not top.eligible:
        confidence = "low"
    elif runner is None:
        confidence = "high"
    else:
        confidence = "high" if margin >= CONFIDENCE_MARGINS["high"] else ("medium" if margin >= CONFIDENCE_MARGINS["medium"] else "low")
        if inside_noise:
            confidence = {"high": "medium", "medium": "low", "low": "low"}[confidence]
    reasons = _reasons(top, runner, ranked, noise_note)
    summary = _summary(req, top, runner, confidence, kb)
    if noise_note:
        assumptions.append(noise_note)
    return Scorecard(
        weights=weights, scores=scores,
        recommendation=Recommendation(workflow=top.workflow, confidence=confidence, margin=margin,
                                      runner_up=runner.workflow if runner else None, inside_noise=inside_noise,
                                      summary=summary, reasons=reasons),
        sensitivity=_sensitivity(scores, top.workflow),
        projections=[best[wf] for wf in WORKFLOWS], comparison_basis=basis,
        pitfalls=_pitfall_items(kb, top.workflow, req_dict), assumptions=assumptions,
    )


def _cost_scores(req: Requirements, compared: dict[str, Projection], costs: dict[str, tuple]) -> dict[str, tuple[float, list[Evidence], str]]:
    """Compute cost relative to the cheapest workflow; equal for all when any supported one lacks a figure."""
    known = [c[0] + c[1] for c in costs.values() if c[0] is not None]
    cheapest = min(known) if known else None
    complete = len(known) == sum(p.supported for p in compared.values())
    out = {}
    for wf in WORKFLOWS:
        low, high, ev, note = costs[wf]
        if not compared[wf].supported:
            out[wf] = (0.0, list(compared[wf].evidence), compared[wf].basis_detail)
        elif low is None or cheapest is None or not complete:
            why = _req_ev("workload", req.workload is not None,
                          "no workload in the requirements" if req.workload is None else "no price for every workflow's hardware in the knowledge base")
            out[wf] = (100.0, ev + [why], "no cost figures for every workflow: all equal")
        else:
            both = low + high
            out[wf] = (100.0 * cheapest / both if both > 0 else 100.0, ev, f"{_range_text(low, high, prefix='$')} ({note}) relative to the cheapest")
    return out


def _communication_notes(req: Requirements, projections: dict[str, Projection]) -> list[str]:
    """One line on how the compared projections account for multi-device communication."""
    if req.hardware.devices <= 1 and not req.needs.distributed_training:
        return []
    parts: dict[str, list[str]] = {}
    for wf, p in projections.items():
        if p.communication is not None and p.supported:
            parts.setdefault(f"{p.communication.basis}: {p.communication.basis_detail}", []).append(wf)
    if not parts:
        return []
    return [f"multi-device training on {req.hardware.devices} device(s): " + "; ".join(f"{'/'.join(wfs)} {text}" for text, wfs in parts.items())]


def _host_notes(host: Any, suites: list[Any], req: Requirements) -> list[str]:
    """Say when this host could measure what is only projected (it has the target's hardware)."""
    data = host.model_dump(mode="json") if hasattr(host, "model_dump") else (host or {})
    vendors = {str(a.get("vendor", "")).lower() for a in data.get("accelerators") or [] if isinstance(a, dict)}
    kinds = {"nvidia" if v == "nvidia" else "ascend" for v in vendors if v in ("nvidia", "huawei", "ascend")}
    measured = {device_kind(r.get("device", "")) for r in ok_runs(suites)}
    targets = {target_for(wf, req) for wf in WORKFLOWS}
    return [f"this host has {k} hardware but no probe results for it: run `advisor probe` (or --run-probes) to measure instead of projecting"
            for k in sorted(kinds & targets - measured)]


def _hard_constraints(wf: str, req: Requirements, proj: Projection, cost: tuple, hours: list[float]) -> list[str]:
    blocked = []
    if req.needs.domestic_substitution == "required":
        foreign = []
        if framework_for(wf) == "pytorch":
            foreign.append("PyTorch framework")
        if target_for(wf, req) == "nvidia":
            foreign.append("NVIDIA training hardware")
        if "nvidia-server" in req.deployment.targets:
            foreign.append("NVIDIA deployment")
        if foreign:
            blocked.append(f"needs.domestic_substitution=required: production stack uses {', '.join(foreign)}")
    if not proj.supported and req.hardware.training_target != "undecided":
        blocked.append(f"hardware.training_target={req.hardware.training_target}: {proj.basis_detail}")
    budget = req.constraints.budget_usd
    if budget is not None and cost[0] is not None and cost[0] > budget:
        blocked.append(f"constraints.budget_usd={budget:g}: costs at least ${cost[0]:,.0f}")
    deadline = req.constraints.deadline_weeks
    if deadline is not None:
        capacity = req.team.size * HOURS_PER_WEEK * deadline * DEADLINE_SHARE
        if hours[0] > capacity:
            blocked.append(f"constraints.deadline_weeks={deadline:g}: migration needs at least {hours[0]:g} h, more than {DEADLINE_SHARE:.0%} of the team's time ({capacity:g} h)")
    return blocked


def _reasons(top: WorkflowScore, runner: Optional[WorkflowScore], ranked: list[WorkflowScore], noise_note: str) -> list[str]:
    reasons = []
    if runner is not None:
        gains = sorted(
            ((t.weight * (t.score - r.score), t, r) for t, r in zip(top.criteria, runner.criteria)),
            key=lambda x: (-x[0], x[1].name))
        for gain, t, r in gains[:3]:
            if gain <= 0:
                break
            reasons.append(f"{t.name}: {t.score:.0f} vs {r.score:.0f} for {runner.workflow} (weight {t.weight:.2f}, +{gain:.1f} points): {t.note}")
        losses = [g for g in gains if g[0] < 0]
        if losses:
            gain, t, r = losses[-1]
            reasons.append(f"against it: {t.name} {t.score:.0f} vs {r.score:.0f} for {runner.workflow} ({gain:.1f} points): {t.note}")
    for s in ranked:
        for why in s.blocked_by:
            reasons.append(f"{s.workflow} is ruled out: {why}")
    if noise_note:
        reasons.append(noise_note)
    return reasons


def _summary(req: Requirements, top: WorkflowScore, runner: Optional[WorkflowScore], confidence: str, kb: Any) -> str:
    what = WORKFLOW_SUMMARY[top.workflow]
    if kb is not None:
        entry = next((w for w in getattr(kb, "workflows", []) if w.id == top.workflow), None)
        if entry is not None:
            what = entry.summary.rstrip(".")
    if not top.eligible:
        return f"No workflow meets every hard constraint; the best-scoring is {top.workflow} ({top.total:.0f}/100): {what}."
    vs = f", {top.total - runner.total:.1f} points ahead of {runner.workflow}" if runner else ", the only eligible workflow"
    return f"{top.workflow} ({top.total:.0f}/100{vs}; confidence {confidence}): {what}."
