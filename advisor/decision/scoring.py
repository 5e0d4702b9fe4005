"""The decision: score the three workflows on eight criteria, transparently.

`score(requirements, host, probes, kb, scan=None) -> Scorecard` is a pure function. Every criterion
gets a 0-100 score per workflow with the evidence it rests on (a probe run with its CI, a
knowledge-base entry with its source and confidence, or the requirements field that drove it).
Weights follow from the requirements (user weights override, renormalised); hard constraints make a
workflow ineligible with the reason; the verdict carries a confidence from three things (the margin,
the quality of the evidence that decides it, and the nearest weight or constant that would flip it),
and a sensitivity analysis says at which weight, and at which value of each named constant
(advisor.decision.constants), the winner would change.

The work is split in two: `_prepare` does everything that does not depend on the constants
(routes, projections, pitfalls, memory fit), `_evaluate` turns it into scores with a set of
constants; the sensitivity analysis re-runs only `_evaluate`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.accuracy import AccuracyEvidence
from advisor.decision.constants import CONSTANTS, DEFAULT, Consts, searched
from advisor.decision.deployment import deployment_evidence
from advisor.decision.evidence import QUALITY_RANK, Evidence, dump, kb_evidence, req_evidence, sourced_evidence
from advisor.decision.memory import MemoryFit, blocks
from advisor.decision.risks import PORTING, likelihood, project_of
from advisor.decision.projections import (
    BASIS_RANK,
    WORKFLOWS,
    WORKLOAD_GFLOPS,
    Projection,
    common_basis,
    device_kind,
    ok_runs,
    project,
    project_all,
    unusable_runs,
)
from advisor.requirements import CRITERIA, SKILL_LEVELS, Requirements
from advisor.decision.schedule import Schedule, pressure_penalty, schedule
from advisor.decision.tco import TotalCost, comparable_parts, compared_total, total_cost
from advisor.decision.workflows import Route, routes

_req_ev = req_evidence

# --- the model's structural rules (the numbers are in advisor.decision.constants) -------------------------

# The first-party framework for each deployment target (seed 000, "模型部署对比": MindIR + Lite is the
# native path on Ascend servers and edge devices; ONNX/TensorRT is PyTorch's mature path on NVIDIA).
NATIVE_DEPLOYMENT = {"nvidia-server": "pytorch", "ascend-server": "mindspore", "edge-ascend": "mindspore"}
EDGE_TARGETS = (
    "edge-ascend",
    "mobile",
)  # deploying through an export/convert step (ONNX, ATC): it works, with operator gaps
# Hybrid = prototype in PyTorch, then train and serve with MindSpore (seed 000, "两个都要用的场景").
# Share of the work done in the PyTorch stack, per project stage, where a criterion mixes both stacks:
# a research project lives mostly in the prototype, a production one mostly in MindSpore (assumption).
HYBRID_PYTORCH_SHARE = {
    "research": {"ecosystem": 0.7, "debugging": 0.8, "team": 0.6},
    "prototype": {"ecosystem": 0.6, "debugging": 0.7, "team": 0.5},
    "production": {"ecosystem": 0.3, "debugging": 0.35, "team": 0.3},
}
# Ecosystem aspects weighed for ecosystem fit, before the HuggingFace need is added (assumption: equal).
ECOSYSTEM_ASPECTS = {"model_hub": 1.0, "libraries": 1.0, "community": 1.0, "documentation": 1.0}
HUB_WEIGHT = {"none": 0.5, "nice": 1.5, "essential": 3.0}
# Re-implementing a validated PyTorch model in MindSpore and checking that its loss matches, before
# any hazard: "ResNet-18 took an afternoon" (seed 002, 6.1), "a few hundred lines: half a day if you
# know both" (seed 004, 3.3), complex models are "manual labour". Hours (low, high) per model family;
# replaced by the code scan's estimate when model.code_path is given.
PORT_BASE_HOURS = {
    "cnn": (4.0, 16.0),
    "transformer": (8.0, 40.0),
    "rnn": (8.0, 32.0),
    "gnn": (16.0, 60.0),
    "other": (8.0, 40.0),
}
# Risk the code scan finds (custom extensions, data-dependent control flow...) beyond its hours (assumption).
SCAN_RISK_PENALTY = {"low": 0.0, "medium": 5.0, "high": 10.0}
LEVEL_RANK = {"none": 0, "preferred": 1, "required": 2}

MODEL_ASSUMPTIONS = (
    "criterion scores are 0-100 per workflow; the total is their weighted mean (weights renormalised to 1)",
    "migration effort sums the typical fix hours of the knowledge-base pitfalls that apply (plus re-implementing the model when PyTorch code is ported, "
    "custom CUDA kernels, dynamic shapes and parallelism set-up when the model must be split); one team-week of it scores 50, less the deadline pressure",
    "cost = total cost of ownership: the team's time on the project, compute (device-hours x the dated price), energy (owned hardware only) "
    "and engineering (migration hours x day rate)",
    f"confidence: high from a margin of {CONSTANTS['CONFIDENCE_HIGH_MARGIN'].value:g} points, medium from "
    f"{CONSTANTS['CONFIDENCE_MEDIUM_MARGIN'].value:g}; one step lower for weak decisive "
    "evidence, for a verdict that flips within a quarter of a weight or constant, and for a measured difference inside the noise",
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


class EvidenceQuality(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: float = Field(description="1 (assumption) to 5 (measured), weighted by how much each criterion decides")
    label: Literal["good", "fair", "weak", "none"]
    counts: dict[str, int] = Field(
        default_factory=dict, description="evidence items in the deciding criteria, by quality class"
    )
    note: str = ""


class NearestFlip(BaseModel):
    model_config = ConfigDict(extra="forbid")

    what: str = Field(description="'weight:<criterion>' or 'constant:<NAME>'")
    value: float
    threshold: float
    relative_change: float = Field(
        description="|threshold - value| / |value| (or / the searched range when value is 0)"
    )
    new_top: str
    note: str


class Confidence(BaseModel):
    """The three parts a verdict's confidence is made of, each shown."""

    model_config = ConfigDict(extra="forbid")

    level: Literal["high", "medium", "low"]
    decided_by: Literal["scores", "hard-constraint", "nothing-eligible"]
    decided_note: str
    margin: float
    tie: bool = Field(description="the margin is below TIE_MARGIN: reported as a tie, not a win")
    margin_level: Literal["high", "medium", "low"]
    evidence: EvidenceQuality
    nearest_flip: Optional[NearestFlip] = None
    steps: list[str] = Field(default_factory=list, description="why the level is below the margin's")


class Recommendation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workflow: Literal["pytorch", "mindspore", "hybrid"]
    confidence: Literal["high", "medium", "low"]
    margin: float = Field(description="points ahead of the runner-up (eligible workflows)")
    runner_up: Optional[str] = None
    inside_noise: bool = Field(False, description="measured differences that decide it lie inside the probes' noise")
    summary: str
    reasons: list[str]
    confidence_parts: Optional[Confidence] = None


class SensitivityItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    criterion: str
    weight: float
    threshold: Optional[float] = Field(None, description="weight at which the top workflow changes (others rescaled)")
    new_top: Optional[str] = None
    note: str


class ConstantSensitivity(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    value: float
    unit: str
    source: str
    threshold: Optional[float] = Field(None, description="nearest value at which the top workflow changes")
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
    constant_sensitivity: list[ConstantSensitivity] = Field(default_factory=list)
    costs: list[TotalCost] = Field(default_factory=list, description="total cost of ownership per workflow")
    schedules: list[Schedule] = Field(
        default_factory=list, description="migration schedule per workflow against the deadline"
    )
    memory: list[MemoryFit] = Field(
        default_factory=list, description="memory fit per workflow's training target (absent on CPU)"
    )
    hardware_basis: Optional[str] = Field(
        None, description="what hardware each workflow is compared on (undecided target)"
    )


# --- weights -------------------------------------------------------------------------------------


def default_weights(req: Requirements) -> dict[str, tuple[float, list[str]]]:
    """Raw weights from the requirements, with the fields that raised each."""
    n = req.needs
    w: dict[str, tuple[float, list[str]]] = {}

    def add(name: str, base: float, *bumps: tuple[bool, float, str]) -> None:
        value, why = base, []
        for cond, amount, fld in bumps:
            if cond:
                value += amount
                why.append(fld)
        w[name] = (value, why)

    add(
        "performance",
        0.10,
        (n.throughput_priority == "medium", 0.05, "needs.throughput_priority=medium"),
        (n.throughput_priority == "high", 0.12, "needs.throughput_priority=high"),
        (n.distributed_training, 0.02, "needs.distributed_training"),
    )
    add(
        "cost",
        0.07,
        (req.constraints.budget_usd is not None, 0.05, "constraints.budget_usd"),
        (req.workload is not None, 0.02, "workload"),
    )
    add(
        "ecosystem",
        0.08,
        (n.huggingface == "nice", 0.05, "needs.huggingface=nice"),
        (n.huggingface == "essential", 0.15, "needs.huggingface=essential"),
        (req.stage == "research", 0.03, "stage=research"),
    )
    add(
        "team",
        0.14,
        (
            req.constraints.deadline_weeks is not None and req.constraints.deadline_weeks <= 8,
            0.05,
            "constraints.deadline_weeks<=8",
        ),
    )
    add(
        "migration",
        0.08,
        (req.model.source == "pytorch-code", 0.08, "model.source=pytorch-code"),
        (req.model.kernel_count > 0, 0.03, "model.custom_cuda_ops"),
        (req.constraints.deadline_weeks is not None, 0.02, "constraints.deadline_weeks"),
    )
    add(
        "deployment",
        0.10,
        (req.stage == "production", 0.04, "stage=production"),
        (n.edge_cloud, 0.05, "needs.edge_cloud"),
        (any(t in ("mobile", "edge-ascend") for t in req.deployment.targets), 0.03, "deployment.targets (edge)"),
    )
    add(
        "debugging",
        0.04,
        (n.debugging_intensity == "medium", 0.04, "needs.debugging_intensity=medium"),
        (n.debugging_intensity == "high", 0.10, "needs.debugging_intensity=high"),
        (req.stage in ("research", "prototype"), 0.03, f"stage={req.stage}"),
    )
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
        Weight(
            name=name,
            weight=raw[name] / total,
            raw=raw[name],
            origin="user" if name in given else "default",
            because=[] if name in given else defaults[name][1],
        )
        for name in CRITERIA
    ]


# --- helpers -------------------------------------------------------------------------------------


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


def conditions(req: Requirements) -> dict:
    """The dict knowledge-base conditions are evaluated over: the old `domestic_substitution` reads as
    the stricter of the two mandates, `custom_cuda_ops` as any custom kernel counted."""
    d = req.as_conditions()
    n = req.needs
    d["needs"]["domestic_substitution"] = max((n.hardware_mandate, n.framework_mandate), key=LEVEL_RANK.__getitem__)
    d["model"]["custom_cuda_ops"] = req.model.kernel_count > 0
    return d


@dataclass
class Context:
    """Everything the scores are made from that does not depend on the constants."""

    req: Requirements
    kb: Any
    scan: Optional[dict]
    req_dict: dict
    routes: dict[str, Route]
    best: dict[str, Projection]
    compared: dict[str, Projection]
    basis: str
    weights: list
    wmap: dict[str, float]
    pitfalls: dict[str, list] = field(default_factory=dict)
    comparisons: list[dict] = field(default_factory=list)
    fixed: dict[str, dict] = field(default_factory=dict)
    """criteria that no constant moves (ecosystem, debugging), worked out once"""
    deploy: list[dict] = field(default_factory=list)
    """the deployment probe's evidence rows (advisor.decision.deployment), measured on the probe's host"""
    accuracy: Optional[AccuracyEvidence] = None
    """the accuracy probe's judged gaps (advisor.decision.accuracy): measured evidence for migration risk"""


# --- criteria ------------------------------------------------------------------------------------


def _team(wf: str, req: Requirements, k: Consts) -> tuple[float, list[Evidence], str]:
    pt, ms = _skill(req.team.pytorch), _skill(req.team.mindspore)
    pt_score, ms_score = 25 + 25 * pt, 25 + 25 * ms
    ev_pt = _req_ev("team.pytorch", req.team.pytorch, f"PyTorch skill {req.team.pytorch}")
    ev_ms = _req_ev("team.mindspore", req.team.mindspore, f"MindSpore skill {req.team.mindspore}")
    if wf == "pytorch":
        return pt_score, [ev_pt], "25 + 25 per PyTorch skill level"
    if wf == "mindspore":
        return ms_score, [ev_ms], "25 + 25 per MindSpore skill level"
    share = HYBRID_PYTORCH_SHARE[req.stage]["team"]
    two = k["HYBRID_TWO_STACKS"]
    score = share * pt_score + (1 - share) * ms_score - two
    ev = [ev_pt, ev_ms]
    note = f"needs both skills: {share:.0%} PyTorch, {1 - share:.0%} MindSpore, -{two:g} for keeping two stacks (HYBRID_TWO_STACKS)"
    if req.team.size <= 2:
        small = k["SMALL_TEAM_PENALTY"]
        score -= small
        ev.append(_req_ev("team.size", req.team.size, "two stacks to keep up with for a team of two or fewer"))
        note += f"; -{small:g} for a team of <= 2 carrying two stacks"
    return _clamp(score), ev, note


def pytorch_stack(wf: str, req: Requirements, route: Route) -> str:
    """Which PyTorch the workflow works in: plain `pytorch`, or `torch_npu` when its PyTorch work runs
    on Ascend (the pytorch workflow training on Ascend; a hybrid prototype with no NVIDIA to run on)."""
    if wf == "pytorch":
        return "torch_npu" if route.target == "ascend" else "pytorch"
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


def _mix(
    wf: str, ctx: Context, aspects: dict[str, float], criterion: str
) -> tuple[Optional[float], list[Evidence], str]:
    """Weighted aspect score of the workflow's stack(s); hybrid mixes its PyTorch and MindSpore stacks."""
    req, kb = ctx.req, ctx.kb

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

    pt_stack = pytorch_stack(wf, req, ctx.routes[wf])
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
    ev.append(
        _req_ev(
            "team.pytorch",
            req.team.pytorch,
            f"prototyping in PyTorch pays off as far as the team is faster there (x{prototype_fluency(req):.2f})",
        )
    )
    return (
        share * pt + (1 - share) * ms,
        ev,
        f"{share:.0%} in the PyTorch prototype{adapter}, {1 - share:.0%} in MindSpore production (stage {req.stage}, team skills)",
    )


def prototype_fluency(req: Requirements) -> float:
    """How much of the hybrid's PyTorch phase the team really spends there: it prototypes in PyTorch
    to validate ideas quickly (seed 000), which pays off as far as it is more fluent in PyTorch than in
    MindSpore: 0.5 at equal skill, +-0.25 per level of difference."""
    diff = _skill(req.team.pytorch) - _skill(req.team.mindspore)
    return max(0.0, min(1.0, 0.5 + 0.25 * diff))


def _ecosystem(wf: str, ctx: Context) -> tuple[float, list[Evidence], str]:
    aspects = dict(ECOSYSTEM_ASPECTS)
    aspects["model_hub"] = HUB_WEIGHT[ctx.req.needs.huggingface]
    value, ev, note = _mix(wf, ctx, aspects, "ecosystem")
    ev.insert(
        0,
        _req_ev(
            "needs.huggingface",
            ctx.req.needs.huggingface,
            f"model hub weighed x{aspects['model_hub']:g} of {sum(aspects.values()):g} aspect weights",
        ),
    )
    if value is None:
        return 50.0, ev, "no ecosystem entries in the knowledge base: neutral 50"
    return value, ev, note + f"; HuggingFace need {ctx.req.needs.huggingface}: model hub x{aspects['model_hub']:g}"


def _debugging(wf: str, ctx: Context) -> tuple[float, list[Evidence], str]:
    value, ev, note = _mix(wf, ctx, {"debugging": 1.0}, "debugging")
    ev.insert(
        0, _req_ev("needs.debugging_intensity", ctx.req.needs.debugging_intensity, "how much debugging the work needs")
    )
    if value is None:
        return 50.0, ev, "no debugging entries in the knowledge base: neutral 50"
    return value, ev, note


def _kb_deployment_fit(framework: str, target: str, kb: Any, k: Consts) -> tuple[float, list[Evidence], str]:
    native = NATIVE_DEPLOYMENT.get(target)
    if native == framework:
        return k["NATIVE_FIT"], [], f"{target}: first-party path"
    if native is not None:
        return k["CONVERSION_FIT"], [], f"{target}: via export/conversion (CONVERSION_FIT)"
    value, ev = _aspect_score(kb, framework, "deployment")
    if value is None:
        return (
            k["UNKNOWN_DEPLOYMENT_FIT"],
            [],
            f"{target}: no deployment entry in the knowledge base (UNKNOWN_DEPLOYMENT_FIT)",
        )
    return value, ev, f"{target}: knowledge-base deployment score"


def _deployment_fit(framework: str, target: str, ctx: Context, k: Consts) -> tuple[float, list[Evidence], str]:
    """The knowledge-base / constant fit of `target`, with the deployment probe's measurement where it
    applies: on a CPU server the measured path (ONNX Runtime, MindIR) is the evidence itself; for an
    accelerator target a CPU measurement only shows whether the export works at all, so it caps the
    fit when every measured export path of the framework failed and otherwise only adds evidence."""
    value, ev, note = _kb_deployment_fit(framework, target, ctx.kb, k)
    rows = [
        r for r in ctx.deploy if r.get("framework") == framework and r.get("measured") and r.get("score") is not None
    ]
    if not rows:
        return value, ev, note
    best = max(rows, key=lambda r: r["score"])
    measured = [
        Evidence(
            kind="measured",
            ref=f"deploy:{r['framework']}->{r['target']}",
            value=r["score"],
            detail=f"{r['framework']} -> {r['target']}: {r['score']}/100 ({r['note']})",
        )
        for r in rows
    ]
    if target == "cpu-server":
        return float(best["score"]), measured, f"{target}: measured here, best path {framework} -> {best['target']}"
    if best["score"] < k["EXPORT_WORKS_SCORE"]:
        return (
            min(value, float(best["score"])),
            ev + measured,
            (f"{note}; capped: every {framework} export path measured here scored below {k['EXPORT_WORKS_SCORE']:g}"),
        )
    return value, ev + measured, f"{note}; export paths work here (measured, CPU)"


def _deployment(wf: str, ctx: Context, k: Consts) -> tuple[float, list[Evidence], str]:
    req = ctx.req
    framework = ctx.routes[wf].framework
    scores, notes = [], []
    ev = [
        _req_ev(
            "deployment.targets",
            list(req.deployment.targets),
            f"deploys {framework} models to {', '.join(req.deployment.targets)}",
        )
    ]
    for target in req.deployment.targets:
        value, tev, note = _deployment_fit(framework, target, ctx, k)
        scores.append(value)
        ev.extend(tev)
        notes.append(f"{note} {value:.0f}")
    score = sum(scores) / len(scores)
    if wf == "hybrid" and any(t in EDGE_TARGETS for t in req.deployment.targets):
        score -= k["HYBRID_EDGE_PENALTY"]
        ev.append(
            _req_ev(
                "deployment.targets",
                list(req.deployment.targets),
                "edge targets: operator support found only at conversion of the PyTorch-designed model",
            )
        )
        notes.append(
            f"-{k['HYBRID_EDGE_PENALTY']:g} edge runtime constraints invisible while prototyping (HYBRID_EDGE_PENALTY)"
        )
    if req.needs.edge_cloud and framework == "pytorch":
        score -= k["EDGE_CLOUD_PYTORCH_PENALTY"]
        ev.append(
            _req_ev("needs.edge_cloud", True, "train in the cloud, infer on devices: two toolchains on a PyTorch stack")
        )
        notes.append(f"-{k['EDGE_CLOUD_PYTORCH_PENALTY']:g} edge-cloud on two toolchains")
    return _clamp(score), ev, "; ".join(notes)


def _mandate_field(req: Requirements, which: str) -> str:
    explicit = req.needs.domestic_hardware if which == "hardware" else req.needs.domestic_framework
    level = req.needs.hardware_mandate if which == "hardware" else req.needs.framework_mandate
    return f"needs.domestic_{which}={level}" if explicit is not None else f"needs.domestic_substitution={level}"


def _compliance(wf: str, ctx: Context, k: Consts) -> tuple[float, list[Evidence], str]:
    """Domestic substitution, split into hardware (training hardware and deployment targets) and
    framework: each part counts only where the team has that mandate."""
    req, route = ctx.req, ctx.routes[wf]
    hw_level, fw_level = req.needs.hardware_mandate, req.needs.framework_mandate
    ev = [
        _req_ev("needs.domestic_hardware", hw_level, f"domestic hardware {hw_level}"),
        _req_ev("needs.domestic_framework", fw_level, f"domestic framework {fw_level}"),
    ]
    if hw_level == "none" and fw_level == "none":
        return 100.0, ev, "no domestic-substitution requirement"
    hw = {"ascend": 1.0, "cpu": 0.5, "nvidia": 0.0}[route.target]
    fw = 1.0 if route.framework == "mindspore" else 0.0
    dep = sum(1 for t in req.deployment.targets if t != "nvidia-server") / len(req.deployment.targets)
    parts = []
    if hw_level != "none":
        parts += [
            (hw, k["COMPLIANCE_HARDWARE_WEIGHT"], f"hardware {hw:.1f}"),
            (dep, k["COMPLIANCE_DEPLOYMENT_WEIGHT"], f"non-NVIDIA deployment {dep:.2f}"),
        ]
    if fw_level != "none":
        parts.append((fw, k["COMPLIANCE_FRAMEWORK_WEIGHT"], f"domestic framework {fw:.0f}"))
    den = sum(w for _, w, _ in parts) or 1.0
    score = 100 * sum(v * w for v, w, _ in parts) / den
    note = " + ".join(f"{text} x{w / den:.2f}" for _, w, text in parts)
    note += (
        " (shares "
        + ", ".join(
            n
            for n, lv in (
                ("COMPLIANCE_HARDWARE_WEIGHT", hw_level),
                ("COMPLIANCE_DEPLOYMENT_WEIGHT", hw_level),
                ("COMPLIANCE_FRAMEWORK_WEIGHT", fw_level),
            )
            if lv != "none"
        )
        + ")"
    )
    # Every deduction is named in the note, so the score can be recomputed from what the report says.
    if wf == "hybrid" and fw_level != "none":
        pen = k["HYBRID_COMPLIANCE_REQUIRED"] if fw_level == "required" else k["HYBRID_COMPLIANCE_PREFERRED"]
        if pen:
            score -= pen
            note += f"; -{pen:g} for the PyTorch prototype stage"
    if "required" in (hw_level, fw_level) and score < 100:
        score -= k["COMPLIANCE_UNMET_PENALTY"]
        note += f"; -{k['COMPLIANCE_UNMET_PENALTY']:g} as substitution is required but not fully met"
    ev.append(_req_ev("hardware.training_target", route.target, f"production training on {route.target}"))
    return _clamp(score), ev, note


def _scan_kernels(scan: Optional[dict]) -> int:
    if not scan:
        return 0
    return sum(1 for h in scan.get("hazards") or [] if isinstance(h, dict) and h.get("kind") == "custom_extension")


def migration_parts(
    wf: str, ctx: Context, k: Consts
) -> tuple[list[tuple[str, float, float]], list[Evidence], list[str]]:
    """Hours of migration/adaptation work, part by part (label, low, high), with evidence and notes.
    The MIGRATION_HOURS_FACTOR scales the whole estimate (the sensitivity analysis moves it)."""
    req, kb, scan = ctx.req, ctx.kb, ctx.scan
    route = ctx.routes[wf]
    scan_used = scan is not None and ports_pytorch_code(wf, req)
    ports = ports_pytorch_code(wf, req)
    parts: list[tuple[str, float, float]] = []
    ev: list[Evidence] = []
    notes: list[str] = []
    p_low = p_high = 0.0
    kernel_pitfall = False
    for p in ctx.pitfalls[wf]:
        hours = _pitfall_hours(p)
        if hours is None:
            continue
        if scan_used and p.scan_kinds:
            continue  # the scan measured these hazards in the team's own code
        if not ports and p.scan_kinds and not p.applies_when and wf != "pytorch":
            continue  # hazards of porting PyTorch code; new MindSpore code has none to port
        if wf == "mindspore" and req.model.source == "mindspore-code" and p.id in PORTING:
            continue  # the team's code is MindSpore already: the PyTorch->MindSpore porting is paid
        kernel_pitfall = kernel_pitfall or any("custom_cuda_ops" in c for c in p.applies_when)
        p_low += hours[0]
        p_high += hours[1]
        ev.append(sourced_evidence(p.id, p.effort_hours or p.hours, f"{p.title}: {hours[0]:g}-{hours[1]:g} h"))
    parts.append(("known pitfalls", p_low, p_high))
    if scan_used:
        s_low, s_high = (scan.get("effort_hours") or [0, 0])[:2]
        roles = scan_role_parts(scan)
        parts += roles or [("port (code scan)", float(s_low), float(s_high))]
        ev.append(
            _req_ev(
                "model.code_path",
                req.model.code_path,
                f"scan of the team's code: {len(scan.get('hazards') or [])} hazards, {s_low:g}-{s_high:g} h, risk {scan.get('risk')}",
            )
        )
        excluded = excluded_scan_text(scan)
        if roles:
            notes.append(
                "port by role (code scan): "
                + ", ".join(
                    f"{n.split(': ', 1)[1].removesuffix(' (code scan)')} {_range_text(a, b, 'h')}" for n, a, b in roles
                )
                + (f"; {excluded}" if excluded else "")
            )
    elif ports:
        base = PORT_BASE_HOURS[req.model.family]
        parts.append(("port (re-implement and check the model)", base[0], base[1]))
        ev.append(
            _req_ev(
                "model.family",
                req.model.family,
                f"re-implementing and checking a {req.model.family} model in MindSpore: {base[0]:g}-{base[1]:g} h (seeds 002 6.1, 004 3.3)",
            )
        )
    if req.model.source == "mindspore-code" and wf in ("pytorch", "hybrid"):
        # existing MindSpore code moves to PyTorch: re-implementation + the differing APIs read in reverse
        base = PORT_BASE_HOURS[req.model.family]
        differs = [m for m in (kb.api_mappings if kb is not None else []) if m.mapping == "differs" and m.effort_hours]
        share = k["REVERSE_PORT_API_SHARE"]
        r_low = base[0] + share * sum(m.effort_hours.low for m in differs)
        r_high = base[1] + share * sum(m.effort_hours.high for m in differs)
        parts.append(("port the MindSpore code to PyTorch (api-mappings in reverse)", r_low, r_high))
        ev.append(
            _req_ev(
                "model.source",
                req.model.source,
                f"existing MindSpore code to PyTorch: {base[0]:g}-{base[1]:g} h re-implementation + "
                f"{share:g} (REVERSE_PORT_API_SHARE) x {len(differs)} differing APIs' effort = {r_low:.0f}-{r_high:.0f} h",
            )
        )
    # Custom CUDA kernels leave CUDA on every route but PyTorch on NVIDIA: each one is re-written as an
    # Ascend custom operator. The pitfall covers the first; the scan's count wins when it is larger.
    kernels = max(req.model.kernel_count, _scan_kernels(scan) if scan_used else 0)
    if kernels and not (route.framework == "pytorch" and route.target == "nvidia"):
        extra = kernels - 1 if kernel_pitfall else kernels
        if extra > 0:
            lo, hi = extra * k["CUSTOM_KERNEL_HOURS_LOW"], extra * k["CUSTOM_KERNEL_HOURS_HIGH"]
            parts.append((f"{extra} more custom CUDA kernel(s)", lo, hi))
            ev.append(
                _req_ev(
                    "model.custom_cuda_kernels",
                    kernels,
                    f"{kernels} custom CUDA kernels: {extra} beyond the pitfall's first, "
                    f"{k['CUSTOM_KERNEL_HOURS_LOW']:g}-{k['CUSTOM_KERNEL_HOURS_HIGH']:g} h each",
                )
            )
    if req.model.dynamic_shapes and route.framework == "mindspore":
        lo, hi = k["DYNAMIC_SHAPES_HOURS_LOW"], k["DYNAMIC_SHAPES_HOURS_HIGH"]
        parts.append(("dynamic shapes for Graph mode", lo, hi))
        ev.append(
            _req_ev(
                "model.dynamic_shapes", True, f"bucketing inputs so Graph mode compiles a few shapes: {lo:g}-{hi:g} h"
            )
        )
    fit = ctx.best[wf].memory
    if fit is not None and fit.must_split:
        if route.framework == "pytorch":
            lo, hi = k["PARALLEL_SETUP_PYTORCH_LOW"], k["PARALLEL_SETUP_PYTORCH_HIGH"]
            parts.append((f"parallelism set-up by hand ({fit.strategy})", lo, hi))
            ev.append(
                _req_ev(
                    "model.parameters_millions",
                    req.model.parameters_millions,
                    f"the model must be split ({fit.strategy}): FSDP/DeepSpeed/Megatron set-up {lo:g}-{hi:g} h",
                )
            )
        else:
            lo, hi = k["PARALLEL_SETUP_MINDSPORE_LOW"], k["PARALLEL_SETUP_MINDSPORE_HIGH"]
            parts.append((f"parallelism set-up with MindSpore auto-parallel ({fit.strategy})", lo, hi))
            ev.append(
                _req_ev(
                    "model.parameters_millions",
                    req.model.parameters_millions,
                    f"the model must be split: MindSpore's automatic parallelism writes much of it ({lo:g}-{hi:g} h)",
                )
            )
            notes.append(f"MindSpore auto-parallel credit: {CONSTANTS['PARALLEL_SETUP_MINDSPORE_LOW'].source}")
            if fit.strategy == "model-parallel":
                lo, hi = k["AUTO_PARALLEL_LIMIT_LOW"], k["AUTO_PARALLEL_LIMIT_HIGH"]
                parts.append(("auto-parallel limits: strategy search, semi-automatic split by hand", lo, hi))
                notes.append(f"auto-parallel limits: {CONSTANTS['AUTO_PARALLEL_LIMIT_LOW'].source}")
    factor = k["MIGRATION_HOURS_FACTOR"]
    if factor != 1.0:
        parts = [(n, a * factor, b * factor) for n, a, b in parts]
    if kb is None and not scan_used:
        ev.append(_req_ev("model.source", req.model.source, "no knowledge base: pitfall hours unknown"))
    return parts, ev, notes


def scan_role_parts(scan: Optional[dict]) -> list[tuple[str, float, float]]:
    """The scan's total, role by role ('port: model (code scan)', low, high), from its effort breakdown.
    Each role keeps its own low end; the scan's high end is low + the root-sum-square of the item ranges
    (not the sum of highs), so each role's range is scaled to add up to the scan's total. Excluded
    roles (tests, examples, tools) are left out, as in the scan's total. [] without a breakdown."""
    roles = [
        r
        for r in ((scan or {}).get("effort_breakdown") or {}).get("by_role") or []
        if not r.get("excluded") and (r.get("effort_hours") or [0, 0])[1] > 0
    ]
    if not roles:
        return []
    s_low, s_high = [float(x) for x in (scan.get("effort_hours") or [0, 0])[:2]]
    r_low = sum(float(r["effort_hours"][0]) for r in roles)
    width = sum(float(r["effort_hours"][1]) - float(r["effort_hours"][0]) for r in roles)
    # The roles' lows add to the scan's low (up to rounding): rescale lows too when they do not.
    low_scale = s_low / r_low if r_low > 0 else 0.0
    spread = (s_high - s_low) / width if width > 0 else 0.0
    out = []
    for r in roles:
        lo, hi = float(r["effort_hours"][0]), float(r["effort_hours"][1])
        a = lo * low_scale if r_low > 0 else s_low / len(roles)
        out.append(
            (f"port: {r.get('role') or r.get('name')} (code scan)", round(a, 2), round(a + (hi - lo) * spread, 2))
        )
    return out


def excluded_scan_text(scan: Optional[dict]) -> str:
    """'tests, examples excluded: 3 files, 2-5 h not counted' from the scan's breakdown ('' when none)."""
    b = (scan or {}).get("effort_breakdown") or {}
    ex = [r for r in b.get("by_role") or [] if r.get("excluded")]
    hours = b.get("excluded_hours") or [0, 0]
    if not ex and not b.get("excluded_files"):
        return ""
    names = ", ".join(str(r.get("role") or r.get("name")) for r in ex) or "excluded files"
    return (
        f"{names} excluded: {b.get('excluded_files', 0)} file(s), {_range_text(hours[0], hours[1], 'h')} "
        "shown apart, not counted"
    )


def _expected_hours(wf: str, ctx: Context, parts: list[tuple[str, float, float]], k: Consts) -> float:
    """Expected migration hours: each charged pitfall's middle x the register's likelihood for this
    project, the other parts at their middle (scaled like the full range by MIGRATION_HOURS_FACTOR)."""
    p = project_of(ctx.req, ctx.best[wf].memory)
    charged = sum((h[0] + h[1]) / 2 for name, *h in parts if name == "known pitfalls")
    others = sum((lo + hi) / 2 for name, lo, hi in parts if name != "known pitfalls")
    full = sum(m for m in (_pitfall_mid(x) for x in ctx.pitfalls[wf]) if m is not None)
    weighted = sum(
        m * likelihood(x.id, list(x.applies_when), p, wf)
        for x in ctx.pitfalls[wf]
        if (m := _pitfall_mid(x)) is not None
    )
    share = weighted / full if full > 0 else 0.0
    return round(others + charged * share, 2)


def _pitfall_mid(p: Any) -> Optional[float]:
    hours = _pitfall_hours(p)
    return None if hours is None else (hours[0] + hours[1]) / 2


def _migration(wf: str, ctx: Context, k: Consts) -> tuple[tuple[float, list[Evidence], str], list[float], Schedule]:
    req, scan = ctx.req, ctx.scan
    parts, ev, notes = migration_parts(wf, ctx, k)
    low, high = sum(p[1] for p in parts), sum(p[2] for p in parts)
    t = ctx.best[wf].time_to_train_hours
    sched = schedule(
        wf, parts, req.team.size, req.constraints.deadline_weeks, k, (t.low, t.high) if t is not None else None
    )
    sched.expected_hours = _expected_hours(wf, ctx, parts, k)
    capacity = req.team.size * k["HOURS_PER_WEEK"]
    mid = (low + high) / 2
    score = 100 * capacity / (capacity + mid)
    note = f"{_range_text(low, high, 'h')} of migration/adaptation work vs one team-week ({capacity:g} h)"
    if scan is not None and ports_pytorch_code(wf, req):
        risk = SCAN_RISK_PENALTY.get(str(scan.get("risk")), 0.0)
        if risk:
            score -= risk
            note += f"; -{risk:g} for the scan's {scan.get('risk')} risk"
    score, note = _accuracy_risk(wf, ctx, k, score, note, ev)
    pressure = pressure_penalty(sched, k)
    if pressure > 0.005:
        score -= pressure
        note += f"; -{pressure:.1f} deadline pressure ({sched.pressure:.0%} of the {sched.allowed_hours:g} h allowed before the deadline)"
    ev.append(_req_ev("team.size", req.team.size, f"one team-week = {capacity:g} h"))
    if req.constraints.deadline_weeks is not None:
        ev.append(
            _req_ev(
                "constraints.deadline_weeks",
                req.constraints.deadline_weeks,
                f"{sched.allowed_hours:g} h may go to migration",
            )
        )
    if notes:
        note += "; " + "; ".join(notes)
    return (_clamp(score), ev, note), [round(low, 2), round(high, 2)], sched


def _accuracy_risk(wf: str, ctx: Context, k: Consts, score: float, note: str, ev: list[Evidence]) -> tuple[float, str]:
    """A workflow that moves to MindSpore carries the measured cross-framework accuracy gap: beyond the
    tolerance it costs ACCURACY_GAP_PENALTY points; within it, it is measured evidence that the
    frameworks compute the same thing (no points: the hours to check the port stay in the estimate)."""
    acc = ctx.accuracy
    if acc is None or acc.verdict is None or ctx.routes[wf].framework != "mindspore":
        return score, note
    for g in acc.gaps:
        ev.append(
            Evidence(
                kind="measured",
                ref=f"accuracy:{g.a}-vs-{g.b}",
                value=g.mean,
                ci95=list(g.ci95),
                spread=[min(g.per_seed), max(g.per_seed)],
                detail=f"final test accuracy {g.line} (measured here, {g.verdict}; {acc.data})",
            )
        )
    worst = next(g for g in acc.gaps if g.verdict == acc.verdict)
    if acc.verdict == "differs":
        pen = k["ACCURACY_GAP_PENALTY"]
        score -= pen
        note += (
            f"; -{pen:g} for a measured accuracy gap beyond +-{acc.tolerance * 100:g} point "
            f"({worst.line}; ACCURACY_GAP_PENALTY)"
        )
    elif acc.verdict == "same":
        note += f"; accuracy measured the same here ({worst.line})"
    else:
        note += f"; accuracy gap measured but not decided ({worst.line})"
    return score, note


def communication_evidence(proj: Projection, already: list[Evidence]) -> tuple[list[Evidence], str]:
    """The multi-device communication evidence a criterion adds (the scaling probe's measured
    figures, the knowledge-base curve) and a note saying which basis the projection used."""
    comm = proj.communication
    if comm is None or (comm.devices <= 1 and comm.measured is None):
        return [], ""
    return [e for e in comm.evidence if e not in already], f"; communication: {comm.basis_detail}"


def _dynamic(req: Requirements) -> bool:
    return req.model.dynamic_control_flow or req.model.dynamic_shapes


def _undecidable(ctx: Context, wf: str, other: str) -> Optional[dict]:
    """A paired comparison of the two measured runs behind these projections that the measurement
    says is not decidable here (inside the noise)."""
    a, b = ctx.compared[wf], ctx.compared[other]
    if a.basis != "measured" or b.basis != "measured" or not a.evidence or not b.evidence:
        return None
    ids = {a.evidence[0].ref, b.evidence[0].ref}
    for c in ctx.comparisons:
        if {c.get("a"), c.get("b")} == ids and c.get("decidable") is False:
            return c
    return None


def _performance(wf: str, ctx: Context, k: Consts) -> tuple[float, list[Evidence], str]:
    proj, req = ctx.compared[wf], ctx.req
    if not proj.supported:
        return 0.0, list(proj.evidence), proj.basis_detail
    keep = k["DYNAMIC_GRAPH_KEEP"] if _dynamic(req) else 1.0

    def mid(p: Projection) -> float:
        return p.images_per_second.mid * (keep if p.framework == "mindspore" else 1.0)

    mids = {w: mid(p) for w, p in ctx.compared.items() if p.supported and p.images_per_second}
    if ctx.basis != "none" and wf in mids:
        undecided = {o: c for o in mids if o != wf and (c := _undecidable(ctx, wf, o))}
        mine = max([mids[wf]] + [mids[o] for o in undecided])  # equal to what it cannot be told apart from
        best = max(mids.values())
        score = 100 * mine / best if best > 0 else 0.0
        span = proj.images_per_second
        c_ev, c_note = communication_evidence(proj, proj.evidence)
        note = f"{_range_text(span.low, span.high, 'images/s')} ({proj.basis}), relative to the fastest{c_note}"
        if keep != 1.0 and proj.framework == "mindspore":
            note += f"; x{keep:g} for dynamic control flow/shapes outside Graph mode (DYNAMIC_GRAPH_KEEP)"
        for o, c in undecided.items():
            note += (
                f"; not decidable here against {o}: paired ratio {c.get('ratio')} (95% CI {c.get('ci95')}, "
                f"{c.get('pairs')} pairs, quality {c.get('quality')})"
            )
        ev = list(proj.evidence) + c_ev
        if keep != 1.0:
            ev.append(
                _req_ev(
                    "model.dynamic_control_flow",
                    True,
                    "data-dependent control flow / dynamic shapes (knowledge base workflows bad_for)",
                )
            )
        return score, ev, note
    ev = [_req_ev("hardware.training_target", proj.target, f"{proj.path} on {proj.target}")]
    if proj.target == "cpu":
        return (
            k["ASSUMED_PERF_CPU"],
            ev,
            f"no projection possible ({proj.basis_detail}): CPU training, {k['ASSUMED_PERF_CPU']:g} assumed (ASSUMED_PERF_CPU)",
        )
    if proj.native:
        return (
            k["ASSUMED_PERF_NATIVE"],
            ev,
            f"no projection possible ({proj.basis_detail}): first-party path, {k['ASSUMED_PERF_NATIVE']:g} assumed (ASSUMED_PERF_NATIVE)",
        )
    return (
        k["ASSUMED_PERF_ADAPTER"],
        ev,
        f"no projection possible ({proj.basis_detail}): adapter path, {k['ASSUMED_PERF_ADAPTER']:g} assumed (ASSUMED_PERF_ADAPTER)",
    )


def _cost_scores(ctx: Context, costs: dict[str, TotalCost]) -> dict[str, tuple[float, list[Evidence], str]]:
    """The total cost of ownership relative to the cheapest workflow, over the parts every supported
    workflow has a figure for (like with like); equal for all when none is comparable."""
    supported = {wf for wf, p in ctx.compared.items() if p.supported}
    names = comparable_parts(costs, supported)
    totals = {wf: compared_total(costs[wf], names) for wf in supported}
    known = [sum(t) for t in totals.values() if t is not None]
    cheapest = min(known) if known else None
    out = {}
    for wf in WORKFLOWS:
        ev = [e for p in costs[wf].parts if p.name in names for e in p.evidence]
        if wf not in supported:
            out[wf] = (0.0, list(ctx.compared[wf].evidence), ctx.compared[wf].basis_detail)
        elif not names or cheapest is None or totals[wf] is None:
            why = _req_ev(
                "workload",
                ctx.req.workload is not None,
                "no workload in the requirements" if ctx.req.workload is None else "no cost figures for every workflow",
            )
            out[wf] = (100.0, ev + [why], "no cost figures for every workflow: all equal")
        else:
            low, high = totals[wf]
            both = low + high
            missing = [n for n in ("team", "compute", "energy", "engineering") if n not in names]
            note = f"{_range_text(low, high, prefix='$')} total cost ({' + '.join(names)}) relative to the cheapest"
            if missing:
                note += f"; not compared: {', '.join(missing)}"
            c_ev, c_note = communication_evidence(ctx.compared[wf], ev)
            out[wf] = (100.0 * cheapest / both if both > 0 else 100.0, ev + c_ev, note + c_note)
    return out


# --- verdict -------------------------------------------------------------------------------------


def _total(criteria: list[Criterion]) -> float:
    return sum(c.weight * c.score for c in criteria)


@dataclass
class Evaluation:
    scores: list[WorkflowScore]
    costs: dict[str, TotalCost]
    schedules: dict[str, Schedule]

    def top(self) -> str:
        return _rank(self.scores)[0].workflow


def _rank(scores: list[WorkflowScore]) -> list[WorkflowScore]:
    order = {wf: i for i, wf in enumerate(WORKFLOWS)}
    return sorted(scores, key=lambda s: (not s.eligible, -s.total, order[s.workflow]))


def _evaluate(ctx: Context, k: Consts) -> Evaluation:
    partial: dict[str, dict[str, tuple[float, list[Evidence], str]]] = {}
    hours: dict[str, list[float]] = {}
    schedules: dict[str, Schedule] = {}
    for wf in WORKFLOWS:
        mig, hours[wf], schedules[wf] = _migration(wf, ctx, k)
        partial[wf] = {
            "performance": _performance(wf, ctx, k),
            "ecosystem": ctx.fixed[wf]["ecosystem"],
            "team": _team(wf, ctx.req, k),
            "migration": mig,
            "deployment": _deployment(wf, ctx, k),
            "debugging": ctx.fixed[wf]["debugging"],
            "compliance": _compliance(wf, ctx, k),
        }
    costs = {
        wf: total_cost(
            ctx.compared[wf],
            hours[wf],
            ctx.req,
            ctx.kb,
            ctx.routes[wf].accelerator,
            k,
            parts_hours=[(p.name, p.hours[0], p.hours[1]) for p in schedules[wf].phases],
            excluded=excluded_scan_text(ctx.scan) if ctx.scan is not None and ports_pytorch_code(wf, ctx.req) else "",
        )
        for wf in WORKFLOWS
    }
    for wf, cost in _cost_scores(ctx, costs).items():
        partial[wf]["cost"] = cost
    scores = []
    for wf in WORKFLOWS:
        criteria = [
            Criterion(
                name=name,
                weight=round(ctx.wmap[name], 6),
                score=round(_clamp(partial[wf][name][0]), 3),
                evidence=partial[wf][name][1],
                note=partial[wf][name][2],
            )
            for name in CRITERIA
        ]
        blocked = _hard_constraints(wf, ctx, costs[wf], schedules[wf], k)
        scores.append(
            WorkflowScore(
                workflow=wf,
                total=round(_total(criteria), 3),
                eligible=not blocked,
                blocked_by=blocked,
                criteria=criteria,
                pitfalls=[p.id for p in ctx.pitfalls[wf]],
                migration_hours=hours[wf],
            )
        )
    return Evaluation(scores, costs, schedules)


def _hard_constraints(wf: str, ctx: Context, cost: TotalCost, sched: Schedule, k: Consts) -> list[str]:
    req, route, proj = ctx.req, ctx.routes[wf], ctx.best[wf]
    blocked = []
    foreign = []
    if req.needs.framework_mandate == "required" and route.framework == "pytorch":
        foreign.append((_mandate_field(req, "framework"), "PyTorch framework"))
    if req.needs.hardware_mandate == "required":
        if route.target == "nvidia":
            foreign.append((_mandate_field(req, "hardware"), "NVIDIA training hardware"))
        if "nvidia-server" in req.deployment.targets:
            foreign.append((_mandate_field(req, "hardware"), "NVIDIA deployment"))
    for name in dict.fromkeys(f for f, _ in foreign):
        blocked.append(f"{name}: production stack uses {', '.join(t for f, t in foreign if f == name)}")
    if not proj.supported and req.hardware.training_target != "undecided":
        blocked.append(f"hardware.training_target={req.hardware.training_target}: {proj.basis_detail}")
    memory = blocks(proj.memory)
    if memory:
        blocked.append(memory)
    budget = req.constraints.budget_usd
    if budget is not None and cost.total_usd is not None and cost.total_usd.low > budget:
        blocked.append(
            f"constraints.budget_usd={budget:g}: costs at least ${cost.total_usd.low:,.0f} (total cost of ownership)"
        )
    if sched.fits == "no" and sched.finding and not sched.finding.startswith("the migration"):
        blocked.append(f"constraints.deadline_weeks={req.constraints.deadline_weeks:g}: {sched.finding}")
    elif sched.fits == "no":
        blocked.append(
            f"constraints.deadline_weeks={req.constraints.deadline_weeks:g}: migration needs at least {sched.hours[0]:g} h, "
            f"more than {k['DEADLINE_SHARE']:.0%} of the team's time ({sched.allowed_hours:g} h)"
        )
    return blocked


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
            items.append(
                SensitivityItem(criterion=name, weight=round(w0, 4), note=f"{top} stays on top at any {name} weight")
            )
        else:
            w, who = best
            verb = "raised" if w > w0 else "lowered"
            items.append(
                SensitivityItem(
                    criterion=name,
                    weight=round(w0, 4),
                    threshold=round(w, 4),
                    new_top=who,
                    note=f"{who} would win if the {name} weight were {verb} from {w0:.2f} to {w:.2f}",
                )
            )
    return items


_GRID = 10


def _constant_sensitivity(ctx: Context, top: str) -> list[ConstantSensitivity]:
    """For each searched constant: the nearest value (in its range) at which the top workflow changes,
    found on a grid and refined by bisection; re-scores through `_evaluate` with that one constant moved."""
    items = []
    for c in searched():
        lo, hi = c.search
        v0 = c.value
        # The totals are piecewise linear in each constant: when neither end of its range changes the
        # winner, no value between does (up to clamping); only then is the grid skipped.
        ends = {v: _evaluate(ctx, DEFAULT.moved(c.name, v)).top() for v in (lo, hi)}
        grid = (
            [lo, hi]
            if all(t == top for t in ends.values())
            else sorted({lo + (hi - lo) * i / _GRID for i in range(_GRID + 1)} | {v0})
        )
        tops = {v: ends[v] if v in ends else _evaluate(ctx, DEFAULT.moved(c.name, v)).top() for v in grid}
        flips = [v for v in grid if tops[v] != top]
        if not flips:
            items.append(
                ConstantSensitivity(
                    name=c.name,
                    value=v0,
                    unit=c.unit,
                    source=c.source,
                    note=f"{top} stays on top for {c.name} anywhere in {lo:g}-{hi:g}",
                )
            )
            continue
        v1 = min(flips, key=lambda v: abs(v - v0))
        a, b = v0, v1  # a keeps `top`, b does not; bisect between them
        for _ in range(8):
            m = (a + b) / 2
            if _evaluate(ctx, DEFAULT.moved(c.name, m)).top() == top:
                a = m
            else:
                b = m
        who = _evaluate(ctx, DEFAULT.moved(c.name, b)).top()
        thr = float(f"{b:.3g}")
        if _evaluate(ctx, DEFAULT.moved(c.name, thr)).top() == top:
            thr = round(b, 6)  # the short form fell on the side that keeps `top`: keep the exact one
        if c.name == "MIGRATION_HOURS_FACTOR":
            note = f"{top} would lose to {who} if migration took {thr:g}x the estimate"
        else:
            note = f"{who} would win if {c.what} {thr:.3g} {c.unit} (now {v0:.3g})"
        items.append(
            ConstantSensitivity(
                name=c.name, value=v0, unit=c.unit, source=c.source, threshold=thr, new_top=who, note=note
            )
        )
    return items


def _noise(
    scores: dict[str, WorkflowScore], projections: dict[str, Projection], top: str, runner: Optional[str], basis: str
) -> tuple[bool, str]:
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


def _evidence_quality(top: WorkflowScore, runner: Optional[WorkflowScore], k: Consts) -> EvidenceQuality:
    """The quality of the evidence in the criteria that decide the verdict, weighted by how many
    points each criterion contributes to the margin."""
    if runner is None:
        return EvidenceQuality(score=0.0, label="none", note="no runner-up: decided by hard constraints")
    num = den = 0.0
    counts: dict[str, int] = {}
    for t, r in zip(top.criteria, runner.criteria):
        gain = t.weight * (t.score - r.score)
        if gain <= 0:
            continue
        items = t.evidence + r.evidence
        # The rules that turn the inputs into this criterion's scores count too: a named constant
        # marked `assumption` in either note is one more assumption-quality item.
        rules = _assumed_constants(t.note) + _assumed_constants(r.note)
        if not items and not rules:
            continue
        q = (sum(e.quality for e in items) + QUALITY_RANK["assumption"] * len(rules)) / (len(items) + len(rules))
        if rules:
            counts["assumption"] = counts.get("assumption", 0) + len(rules)
        num, den = num + gain * q, den + gain
        for e in items:
            key = (
                "measured"
                if e.kind == "measured"
                else ("requirement" if e.kind == "requirement" else str(e.confidence or "assumption"))
            )
            counts[key] = counts.get(key, 0) + 1
    if den == 0:
        return EvidenceQuality(score=0.0, label="none", counts=counts, note="no criterion favours the top workflow")
    score = num / den
    label = "good" if score >= k["EVIDENCE_GOOD"] else ("fair" if score >= k["EVIDENCE_FAIR"] else "weak")
    weak = counts.get("assumption", 0) + counts.get("blog", 0)
    total = sum(counts.values())
    return EvidenceQuality(
        score=round(score, 3),
        label=label,
        counts=counts,
        note=f"{weak} of {total} evidence items in the deciding criteria are assumption or blog",
    )


def _assumed_constants(note: str) -> list[str]:
    return [
        n for n in re.findall(r"\b[A-Z][A-Z0-9_]{3,}\b", note) if n in CONSTANTS and "assumption" in CONSTANTS[n].source
    ]


def _nearest_flip(weights: list[SensitivityItem], consts: list[ConstantSensitivity]) -> Optional[NearestFlip]:
    found = []
    for s in weights:
        if s.threshold is not None and s.new_top:
            rel = abs(s.threshold - s.weight) / s.weight if s.weight > 0 else 1.0
            found.append(
                NearestFlip(
                    what=f"weight:{s.criterion}",
                    value=s.weight,
                    threshold=s.threshold,
                    relative_change=round(rel, 4),
                    new_top=s.new_top,
                    note=s.note,
                )
            )
    for c in consts:
        if c.threshold is not None and c.new_top:
            lo, hi = CONSTANTS[c.name].search
            rel = abs(c.threshold - c.value) / abs(c.value) if c.value else abs(c.threshold - c.value) / (hi - lo)
            found.append(
                NearestFlip(
                    what=f"constant:{c.name}",
                    value=c.value,
                    threshold=c.threshold,
                    relative_change=round(rel, 4),
                    new_top=c.new_top,
                    note=c.note,
                )
            )
    return min(found, key=lambda f: (f.relative_change, f.what)) if found else None


_DOWN = {"high": "medium", "medium": "low", "low": "low"}


def _confidence(
    ranked: list[WorkflowScore],
    runner: Optional[WorkflowScore],
    margin: float,
    inside_noise: bool,
    weights: list[SensitivityItem],
    consts: list[ConstantSensitivity],
    k: Consts,
) -> Confidence:
    top = ranked[0]
    if not top.eligible:
        decided, dnote = "nothing-eligible", "no workflow meets every hard constraint: the best-scoring one is shown"
    elif any(not s.eligible and s.total > top.total + 1e-9 for s in ranked):
        beaten = [s.workflow for s in ranked if not s.eligible and s.total > top.total + 1e-9]
        decided, dnote = (
            "hard-constraint",
            f"decided by hard constraints: {', '.join(beaten)} scored higher but is ruled out",
        )
    else:
        decided = "scores"
        dnote = (
            "decided by the scores; the others are ruled out by hard constraints"
            if runner is None
            else "decided by the scores of eligible workflows"
        )
    tie = runner is not None and abs(margin) < k["TIE_MARGIN"]
    if margin >= k["CONFIDENCE_HIGH_MARGIN"]:
        m_level = "high"
    elif margin >= k["CONFIDENCE_MEDIUM_MARGIN"]:
        m_level = "medium"
    else:
        m_level = "low"
    quality = _evidence_quality(top, runner, k)
    flip = _nearest_flip(weights, consts)
    steps: list[str] = []
    if decided == "nothing-eligible":
        level = "low"
        steps.append("nothing eligible")
    elif runner is None:
        level = "high"
    else:
        level = m_level
        if tie or margin <= 0:
            level = "low"
            steps.append(f"a tie: {margin:.2f} points" if tie else f"negative margin {margin:.2f}")
        if quality.label == "weak":
            level = _DOWN[level]
            steps.append(f"weak decisive evidence ({quality.score:.1f}/5: {quality.note})")
        elif quality.label == "fair" and level == "high":
            # a wide margin built on blog figures and assumptions is not a confident verdict
            level = "medium"
            steps.append(f"high needs good decisive evidence; it is fair ({quality.score:.1f}/5: {quality.note})")
        if flip is not None and flip.relative_change < k["FLIP_FRAGILE"]:
            level = _DOWN[level]
            steps.append(f"fragile: {flip.note} ({flip.relative_change:.0%} away)")
        if inside_noise:
            level = _DOWN[level]
            steps.append("the measured difference that decides it is inside the noise")
    return Confidence(
        level=level,
        decided_by=decided,
        decided_note=dnote,
        margin=margin,
        tie=tie,
        margin_level=m_level,
        evidence=quality,
        nearest_flip=flip,
        steps=steps,
    )


def _pitfall_items(kb: Any, workflow: str, req_dict: dict) -> list[PitfallItem]:
    items = []
    for p in applicable_pitfalls(kb, workflow, req_dict):
        hours = _pitfall_hours(p)
        items.append(
            PitfallItem(
                id=p.id,
                title=p.title,
                workflows=list(p.workflows),
                symptom=p.symptom,
                cause=p.cause,
                fix=p.fix,
                expected_hours=round((hours[0] + hours[1]) / 2, 2) if hours else None,
                effort_hours=[p.effort_hours.low, p.effort_hours.high] if p.effort_hours else None,
                hours_in_field_report=p.hours.value if p.hours else None,
                conditions=list(p.applies_when),
                source=p.source,
                confidence=p.confidence,
            )
        )
    return sorted(items, key=lambda x: (-(x.expected_hours or 0), x.id))


WORKFLOW_SUMMARY = {
    "pytorch": "build, train and deploy on PyTorch",
    "mindspore": "build, train and deploy on MindSpore",
    "hybrid": "prototype and validate in PyTorch, then migrate the validated model to MindSpore for training and deployment on Ascend",
}


def _prepare(
    req: Requirements,
    host: Any,
    suites: list[Any],
    kb: Any,
    scan: Any,
    scaling: Any,
    scaling_here: bool,
    deploy: Any = None,
    accuracy: Any = None,
    pipeline: Any = None,
) -> tuple[Context, list[str]]:
    req_dict = conditions(req)
    weights = resolve_weights(req)
    assumptions: list[str] = list(MODEL_ASSUMPTIONS)
    if (
        req.workload is not None
        and req.workload.gflops_per_sample is None
        and req.workload.model in WORKLOAD_GFLOPS
        and req.workload.model != "lenet"
    ):
        assumptions.append(
            f"workload {req.workload.model}: {WORKLOAD_GFLOPS[req.workload.model]:g} training GFLOPs per image (ImageNet-size 224x224 input); set workload.gflops_per_sample for other input sizes"
        )
    if kb is None:
        assumptions.append("no knowledge base loaded: ecosystem, debugging and migration are neutral or assumed")
    rs = routes(req, kb)
    assumptions.extend(_host_notes(host, suites, rs))
    target = req.hardware.training_target
    if target not in ("undecided", *req.hardware.available):
        assumptions.append(
            f"hardware.training_target={target} is not in hardware.available: the team has to get that hardware before production training"
        )
    feeds = _pipeline_best(pipeline)
    best = project_all(req, kb, suites, scaling, scaling_here, rs, pipeline=feeds)
    basis = common_basis(best)
    compared = {
        wf: (
            p
            if BASIS_RANK[p.basis] <= BASIS_RANK[basis] or not p.supported
            else project(
                wf,
                req,
                kb,
                suites,
                basis_cap=basis,
                scaling=scaling,
                scaling_here=scaling_here,
                route=rs[wf],
                pipeline=feeds,
            )
        )
        for wf, p in best.items()
    }
    if any(p.basis != compared[wf].basis for wf, p in best.items()):
        assumptions.append(
            f"performance and cost compare workflows on the basis all of them share ({basis}); projections show each one's best basis"
        )
    for p in best.values():
        for note in p.notes:
            if note not in assumptions and ("assumed" in note or "undecided" in note):
                assumptions.append(note)
    assumptions.extend(_communication_notes(req, compared))
    for run in unusable_runs(suites):
        reasons = "; ".join(str(r) for r in run.get("quality_reasons") or []) or "no reason given"
        assumptions.append(f"probe run {run.get('id')} is marked unusable ({reasons}): shown, never scored")
    comparisons = [c for s in suites for c in (dump(s) or {}).get("comparisons") or [] if isinstance(c, dict)]
    scan_doc = dump(scan) if scan is not None else None
    ctx = Context(
        req=req,
        kb=kb,
        scan=dict(scan_doc) if scan_doc is not None else None,
        req_dict=req_dict,
        routes=rs,
        best=best,
        compared=compared,
        basis=basis,
        weights=weights,
        wmap={w.name: w.weight for w in weights},
        pitfalls={wf: applicable_pitfalls(kb, wf, req_dict) for wf in WORKFLOWS},
        comparisons=comparisons,
        deploy=deployment_evidence(deploy) if deploy is not None else [],
        accuracy=_accuracy(accuracy),
    )
    ctx.fixed = {wf: {"ecosystem": _ecosystem(wf, ctx), "debugging": _debugging(wf, ctx)} for wf in WORKFLOWS}
    return ctx, assumptions


def _accuracy(accuracy: Any) -> Optional[AccuracyEvidence]:
    """An AccuracySuite (or its JSON) judged; an already judged AccuracyEvidence as it is."""
    from advisor.decision.accuracy import accuracy_evidence

    if accuracy is None or isinstance(accuracy, AccuracyEvidence):
        return accuracy
    return accuracy_evidence(accuracy)


def _pipeline_best(pipeline: Any) -> dict[str, Any]:
    """framework -> its fastest measured loader variant (advisor.decision.pipeline.PipelineBest)."""
    from advisor.decision.pipeline import PipelineEvidence, pipeline_evidence

    if pipeline is None:
        return {}
    judged = pipeline if isinstance(pipeline, PipelineEvidence) else pipeline_evidence(pipeline)
    return {b.framework: b for b in judged.best}


def score(
    requirements: Requirements,
    host: Any = None,
    probes: Any = None,
    kb: Any = None,
    scan: Any = None,
    scaling: Any = None,
    scaling_here: bool = False,
    constants: Optional[dict[str, float]] = None,
    sensitivity: bool = True,
    deploy: Any = None,
    accuracy: Any = None,
    pipeline: Any = None,
) -> Scorecard:
    """Score the three workflows. Pure: same inputs, same scorecard.

    `host`: a CheckReport/HostInfo (or None); `probes`: a ProbeSuite, a list of them, or None;
    `kb`: a KnowledgeBase or None (then knowledge-based criteria are neutral and said so);
    `scan`: an advisor.scan ScanResult of the team's code, or None;
    `scaling`: a scaling probe result (probes.scaling ScalingResult or its JSON), used for multi-device
    communication when the requirements ask for distributed training; `scaling_here`: measured on this host;
    `deploy`: a deployment-probe result (`advisor probe --deploy`), measured evidence for the deployment criterion;
    `accuracy`: an accuracy-probe result (`advisor probe --accuracy`), measured evidence for migration risk;
    `pipeline`: an input-pipeline probe result (`advisor probe --pipeline`): caps the projected throughput;
    `constants`: named constants moved from their defaults (advisor.decision.constants); `sensitivity`: also search
    each constant for the value that flips the verdict (the expensive part; off for bulk re-scoring).
    """
    req = requirements
    suites = [] if probes is None else (list(probes) if isinstance(probes, (list, tuple)) else [probes])
    ctx, assumptions = _prepare(req, host, suites, kb, scan, scaling, scaling_here, deploy, accuracy, pipeline)
    k = Consts(constants)
    ev = _evaluate(ctx, k)
    scores = ev.scores
    ranked = _rank(scores)
    top = ranked[0]
    eligible = [s for s in ranked if s.eligible]
    runner = eligible[1] if len(eligible) > 1 else None
    by_wf = {s.workflow: s for s in scores}
    margin = (
        round(top.total - runner.total, 3)
        if runner
        else round(top.total - (ranked[1].total if len(ranked) > 1 else 0), 3)
    )
    inside_noise, noise_note = _noise(by_wf, ctx.compared, top.workflow, runner.workflow if runner else None, ctx.basis)
    weight_items = _sensitivity(scores, top.workflow)
    const_items = _constant_sensitivity(ctx, top.workflow) if sensitivity and not constants else []
    parts = _confidence(ranked, runner, margin, inside_noise, weight_items, const_items, k)
    top_schedule = ev.schedules.get(top.workflow)
    if top.eligible and top_schedule is not None and top_schedule.fits == "maybe":
        # objection 6: the headline's workflow fits the deadline only at the fast end of its estimate
        parts.level = _DOWN[parts.level]
        parts.steps.append(f"the deadline: {top_schedule.finding}")
    reasons = _reasons(top, runner, ranked, noise_note)
    if parts.decided_by == "hard-constraint":
        reasons.insert(0, parts.decided_note)
    summary = _summary(req, top, runner, parts, kb)
    if noise_note:
        assumptions.append(noise_note)
    for p in ctx.best.values():
        assumptions.extend(f"{p.workflow}: {w}" for w in p.warnings)
    hardware_basis = next((r.basis_note for r in ctx.routes.values() if r.basis_note), None)
    return Scorecard(
        weights=ctx.weights,
        scores=scores,
        recommendation=Recommendation(
            workflow=top.workflow,
            confidence=parts.level,
            margin=margin,
            runner_up=runner.workflow if runner else None,
            inside_noise=inside_noise,
            summary=summary,
            reasons=reasons,
            confidence_parts=parts,
        ),
        sensitivity=weight_items,
        constant_sensitivity=const_items,
        projections=[ctx.best[wf] for wf in WORKFLOWS],
        comparison_basis=ctx.basis,
        pitfalls=_pitfall_items(kb, top.workflow, ctx.req_dict),
        assumptions=assumptions,
        costs=[ev.costs[wf] for wf in WORKFLOWS],
        schedules=[ev.schedules[wf] for wf in WORKFLOWS],
        memory=[ctx.best[wf].memory for wf in WORKFLOWS if ctx.best[wf].memory is not None],
        hardware_basis=hardware_basis,
    )


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
    return [
        f"multi-device training on {req.hardware.devices} device(s): "
        + "; ".join(f"{'/'.join(wfs)} {text}" for text, wfs in parts.items())
    ]


def _host_notes(host: Any, suites: list[Any], rs: dict[str, Route]) -> list[str]:
    """Say when this host could measure what is only projected (it has the target's hardware)."""
    data = host.model_dump(mode="json") if hasattr(host, "model_dump") else (host or {})
    vendors = {str(a.get("vendor", "")).lower() for a in data.get("accelerators") or [] if isinstance(a, dict)}
    kinds = {"nvidia" if v == "nvidia" else "ascend" for v in vendors if v in ("nvidia", "huawei", "ascend")}
    measured = {device_kind(r.get("device", "")) for r in ok_runs(suites)}
    targets = {r.target for r in rs.values()}
    return [
        f"this host has {k} hardware but no probe results for it: run `advisor probe` (or --run-probes) to measure instead of projecting"
        for k in sorted(kinds & targets - measured)
    ]


def _reasons(
    top: WorkflowScore, runner: Optional[WorkflowScore], ranked: list[WorkflowScore], noise_note: str
) -> list[str]:
    reasons = []
    if runner is not None:
        gains = sorted(
            ((t.weight * (t.score - r.score), t, r) for t, r in zip(top.criteria, runner.criteria)),
            key=lambda x: (-x[0], x[1].name),
        )
        for gain, t, r in gains[:3]:
            if gain <= 0:
                break
            reasons.append(
                f"{t.name}: {t.score:.0f} vs {r.score:.0f} for {runner.workflow} (weight {t.weight:.2f}, +{gain:.1f} points): {t.note}"
            )
        losses = [g for g in gains if g[0] < 0]
        if losses:
            gain, t, r = losses[-1]
            reasons.append(
                f"against it: {t.name} {t.score:.0f} vs {r.score:.0f} for {runner.workflow} ({gain:.1f} points): {t.note}"
            )
    for s in ranked:
        for why in s.blocked_by:
            reasons.append(f"{s.workflow} is ruled out: {why}")
    if noise_note:
        reasons.append(noise_note)
    return reasons


def _summary(req: Requirements, top: WorkflowScore, runner: Optional[WorkflowScore], parts: Confidence, kb: Any) -> str:
    what = WORKFLOW_SUMMARY[top.workflow]
    if kb is not None:
        entry = next((w for w in getattr(kb, "workflows", []) if w.id == top.workflow), None)
        if entry is not None:
            what = entry.summary.rstrip(".")
    if not top.eligible:
        return f"No workflow meets every hard constraint; the best-scoring is {top.workflow} ({top.total:.1f}/100): {what}."
    if runner is not None and parts.tie:
        vs = f", tied with {runner.workflow} ({top.total - runner.total:.1f} points)"
    elif runner is not None:
        vs = f", {top.total - runner.total:.1f} points ahead of {runner.workflow}"
    else:
        vs = ", the only eligible workflow"
    by = "; decided by hard constraints" if parts.decided_by == "hard-constraint" else ""
    return f"{top.workflow} ({top.total:.1f}/100{vs}; confidence {parts.level}{by}): {what}."  # one decimal, as every format
