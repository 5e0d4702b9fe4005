"""The decision: score the three workflows on eight criteria, transparently.

`score(requirements, host, probes, kb, scan=None) -> Scorecard` is a pure function. Every criterion
gets a 0-100 score per workflow with the evidence it rests on (a probe run with its CI, a
knowledge-base entry with its source and confidence, or the requirements field that drove it).
Weights follow from the requirements (user weights override, renormalised); hard constraints make a
workflow ineligible with the reason; the verdict carries a confidence from three things (the margin,
the quality of the evidence that decides it, and the nearest weight or constant that would flip it),
and a sensitivity analysis says at which weight, and at which value of each named constant
(advisor.decision.constants), the winner would change.

The work is split in two: `advisor.decision.prepare` does everything that does not depend on the
constants (routes, projections, pitfalls, memory fit), `advisor.decision.evaluate` turns it into
scores with a set of constants (one module per criterion in `advisor.decision.criteria`); the
sensitivity analysis (`advisor.decision.sensitivity`) re-runs only the evaluation, and
`advisor.decision.confidence` grades the verdict. This module orchestrates them.
"""

from __future__ import annotations

from typing import Optional, TYPE_CHECKING, Union

from advisor.decision.criteria.ecosystem import prototypes_on_nvidia
from advisor.decision.confidence import DOWN, judge_confidence, noise_overlap
from advisor.decision.constants import Consts
from advisor.decision.context import Context, Inputs, conditions, placed_conditions
from dataclasses import replace

from advisor.decision.evaluate import Evaluation, evaluate, rank
from advisor.decision.findings import said
from advisor.decision.likelihood import project_of
from advisor.decision.pitfalls import pitfall_items
from advisor.decision.prepare import prepare_inputs, read_inputs, reprepared
from advisor.decision.projections import WORKFLOWS
from advisor.decision.scorecard import (
    MandateReading,
    Confidence,
    Recommendation,
    Scorecard,
    WorkflowScore,
)
from advisor.decision.sensitivity import constant_sensitivity, weight_sensitivity
from advisor.decision.workflows import Route
from advisor.decision.evidence import JsonDict
from advisor.requirements import Requirements

if TYPE_CHECKING:  # the probes' result types, for the annotations only
    from advisor.scan.models import ScanResult
    from probes.accuracy.models import AccuracySuite
    from probes.check.models import CheckReport, HostInfo
    from probes.deploy.models import DeployResult
    from probes.pipeline.models import PipelineSuite
    from probes.scaling.models import ScalingResult
    from probes.training.models import ProbeSuite
    from advisor.decision.accuracy import AccuracyEvidence
    from advisor.decision.pipeline import PipelineEvidence
    from advisor.decision.transformer_evidence import TransformerEvidence
    from knowledge.models import KnowledgeBase


# what each workflow does when the knowledge base has no summary of it (the catalogue words the codes)
NVIDIA_TO_TORCH_NPU = "score.summary.torch_npu_route"
WORKFLOW_SUMMARY = {
    "pytorch": "score.summary.pytorch",
    "mindspore": "score.summary.mindspore",
    "hybrid": "score.summary.hybrid",
}


def score(
    requirements: Requirements,
    host: Union[CheckReport, HostInfo, JsonDict, None] = None,
    probes: Union[ProbeSuite, JsonDict, list[Union[ProbeSuite, JsonDict]], None] = None,
    kb: Optional[KnowledgeBase] = None,
    scan: Union[ScanResult, JsonDict, None] = None,
    scaling: Union[ScalingResult, JsonDict, None] = None,
    scaling_here: bool = False,
    constants: Optional[dict[str, float]] = None,
    sensitivity: bool = True,
    deploy: Union[DeployResult, JsonDict, None] = None,
    accuracy: Union[AccuracySuite, AccuracyEvidence, JsonDict, None] = None,
    pipeline: Union[PipelineSuite, PipelineEvidence, JsonDict, None] = None,
    transformer: Optional[TransformerEvidence] = None,
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
    `transformer`: the GPT probe judged (advisor.decision.transformer_evidence): its measured dynamic-shape
    cost moves the migration risk of the workflows that run MindSpore graph mode;
    `constants`: named constants moved from their defaults (advisor.decision.constants); `sensitivity`: also search
    each constant for the value that flips the verdict (the expensive part; off for bulk re-scoring).
    """
    suites = [] if probes is None else (list(probes) if isinstance(probes, (list, tuple)) else [probes])
    inputs = read_inputs(
        requirements, host, suites, scan, scaling, scaling_here, deploy, accuracy, pipeline, transformer
    )
    return score_inputs(inputs, kb, constants=constants, sensitivity=sensitivity)


def score_inputs(
    inputs: Inputs,
    kb: Optional[KnowledgeBase],
    *,
    constants: Optional[dict[str, float]] = None,
    sensitivity: bool = True,
) -> Scorecard:
    """`score` over inputs already read (advisor.decision.prepare.read_inputs)."""
    return score_context(*prepare_inputs(inputs, kb, Consts(constants)), sensitivity=sensitivity)


def rescore(ctx: Context, kb: Optional[KnowledgeBase]) -> Scorecard:
    """The scorecard of a prepared context with the knowledge base `kb` instead of its own (a copy with
    some figures moved, advisor.review.kb_sensitivity): only the stages of the preparation that read a
    moved section run again. The scores and the recommendation only (the search reads the scores): no
    constant sensitivity, second reading of the mandate, pitfall list or assumptions."""
    return score_context(reprepared(ctx, ctx.k, kb), [], sensitivity=False, full=False)


def score_context(ctx: Context, assumptions: list[str], *, sensitivity: bool = True, full: bool = True) -> Scorecard:
    """The scorecard of a prepared context (advisor.decision.prepare.prepare_inputs): evaluated with the
    constants it was prepared with; `sensitivity`: also search each constant (only at their defaults);
    `full`: False for the scores and the recommendation alone (no second reading of a bare
    domestic_substitution, no pitfall list)."""
    req, kb, k = ctx.req, ctx.kb, ctx.k
    read: set[str] = set()
    ev = evaluate(ctx, k.noting(read))
    scores = ev.scores
    ranked = rank(scores)
    top = ranked[0]
    eligible = [s for s in ranked if s.eligible]
    runner = eligible[1] if len(eligible) > 1 else None
    by_wf = {s.workflow: s for s in scores}
    margin = (
        round(top.total - runner.total, 3)
        if runner
        else round(top.total - (ranked[1].total if len(ranked) > 1 else 0), 3)
    )
    inside_noise, noise_note = noise_overlap(
        by_wf, ctx.compared, top.workflow, runner.workflow if runner else None, ctx.basis
    )
    weight_items = weight_sensitivity(scores, top.workflow)
    read.update(*ctx.reads.values())
    const_items = constant_sensitivity(ctx, top.workflow, read, ev) if sensitivity and not k.overrides else []
    parts = judge_confidence(ranked, runner, margin, inside_noise, weight_items, const_items, k)
    top_schedule = ev.schedules.get(top.workflow)
    if top.eligible and top_schedule is not None and top_schedule.fits == "maybe":
        # the headline's workflow fits the deadline only at the fast end of its estimate: not a confident verdict
        parts.level = DOWN[parts.level]
        parts.steps.append(said("score.step.deadline", finding=top_schedule.finding))
    assumed = _assumed_chip_blocks(ranked, ctx)
    if parts.decided_by == "hard-constraint" and assumed:
        # a block that rests on a chip the team never named cannot carry a confident verdict
        parts.level = DOWN[parts.level]
        parts.steps.append(said("score.step.assumed_accelerator", note=assumed))
    readings, flip = mandate_readings(ctx, ev, top.workflow, margin, k) if full else ([], None)
    if flip:
        parts.level = DOWN[parts.level]
        parts.steps.append(flip)
    reasons = _reasons(top, runner, ranked, noise_note)
    if flip:
        reasons.insert(0, flip)
    if parts.decided_by == "hard-constraint":
        reasons.insert(0, parts.decided_note)
    summary = _summary(req, top, runner, parts, kb, ctx.routes[top.workflow])
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
        pitfalls=pitfall_items(
            kb,
            top.workflow,
            placed_conditions(req, kb, ctx.routes[top.workflow]),
            ctx.routes[top.workflow],
            project_of(req, ctx.best[top.workflow].memory),
        )
        if full
        else [],
        assumptions=assumptions,
        costs=[ev.costs[wf] for wf in WORKFLOWS],
        schedules=[ev.schedules[wf] for wf in WORKFLOWS],
        memory=[ctx.best[wf].memory for wf in WORKFLOWS if ctx.best[wf].memory is not None],
        hardware_basis=hardware_basis,
        mandate_readings=readings,
        mandate_flip=flip,
    )


def _assumed_chip_blocks(ranked: list[WorkflowScore], ctx: Context) -> str:
    """The assumed-accelerator note behind a higher-scoring workflow's block ('' when none)."""
    top = ranked[0]
    for s in ranked:
        if s.applicable and not s.eligible and s.total > top.total and s.blocked_by:
            assumed = ctx.routes[s.workflow].assumed_chip
            if assumed:
                return assumed
    return ""


def mandate_readings(
    ctx: Context, ev: Evaluation, top: str, margin: float, k: Consts
) -> tuple[list[MandateReading], Optional[str]]:
    """A bare `needs.domestic_substitution` (no domestic_hardware / domestic_framework) is read as both
    mandates; scored again with the hardware reading alone, the two verdicts side by side, and the flip
    said when they differ."""
    n = ctx.req.needs
    level = n.domestic_substitution
    if level == "none" or n.domestic_hardware is not None or n.domestic_framework is not None:
        return [], None
    needs = n.model_copy(update={"domestic_hardware": level, "domestic_framework": "none"})
    alt_req = ctx.req.model_copy(update={"needs": needs})
    alt_ctx = replace(ctx, req=alt_req, req_dict=conditions(alt_req))
    alt = rank(evaluate(alt_ctx, k).scores)
    alt_runner = next((s for s in alt[1:] if s.eligible), None)
    alt_margin = round(alt[0].total - alt_runner.total, 3) if alt_runner is not None else 0.0
    this = next(s for s in ev.scores if s.workflow == top)
    readings = [
        MandateReading(
            reading="hardware-and-framework",
            hardware=level,
            framework=level,
            workflow=top,
            total=this.total,
            eligible=this.eligible,
            margin=margin,
            used=True,
        ),
        MandateReading(
            reading="hardware-only",
            hardware=level,
            framework="none",
            workflow=alt[0].workflow,
            total=alt[0].total,
            eligible=alt[0].eligible,
            margin=alt_margin,
            used=False,
        ),
    ]
    if alt[0].workflow == top:
        return readings, None
    flip = said("score.mandate_flip", level=level, workflow=alt[0].workflow, total=alt[0].total, top=top)
    return readings, flip


def _stack_text(route: Route) -> str:
    """'trains with MindSpeed-LLM on torch_npu, serves with vLLM-Ascend' (what the route names)."""
    parts = []
    if route.training is not None:
        parts.append(said("score.stack.trains", name=route.training.name))
    serving = list(dict.fromkeys(r.name for _, r in route.serving_by_target if r is not None))
    if serving:
        parts.append(said("score.stack.serves", names=serving))
    return ", ".join(parts)


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
                said(
                    "score.reason.for",
                    criterion=t.name,
                    score=t.score,
                    other=r.score,
                    runner=runner.workflow,
                    weight=t.weight,
                    gain=gain,
                    note=t.note,
                )
            )
        losses = [g for g in gains if g[0] < 0]
        if losses:
            gain, t, r = losses[-1]
            reasons.append(
                said(
                    "score.reason.against",
                    criterion=t.name,
                    score=t.score,
                    other=r.score,
                    runner=runner.workflow,
                    gain=gain,
                    note=t.note,
                )
            )
    for s in ranked:
        for why in s.blocked_by:
            reasons.append(said("score.reason.ruled_out", workflow=s.workflow, why=why))
    if noise_note:
        reasons.append(noise_note)
    return reasons


def _summary(
    req: Requirements,
    top: WorkflowScore,
    runner: Optional[WorkflowScore],
    parts: Confidence,
    kb: Optional[KnowledgeBase],
    route: Route,
) -> str:
    what = said(WORKFLOW_SUMMARY[top.workflow])
    if kb is not None:
        entry = next((w for w in getattr(kb, "workflows", []) if w.id == top.workflow), None)
        if entry is not None:
            what = entry.summary.rstrip(".")
    if top.workflow == "pytorch" and route.target == "ascend" and prototypes_on_nvidia(req):
        what = said(NVIDIA_TO_TORCH_NPU)  # the route it was scored on, not the generic one
    stack = _stack_text(route)
    if stack:
        what = f"{what.rstrip('.')}; {stack}"
    if not top.eligible:
        return said("score.summary.nothing_eligible", workflow=top.workflow, total=top.total, what=what)
    return verdict(top, runner, parts, what)


def verdict(top: WorkflowScore, runner: Optional[WorkflowScore], parts: Confidence, what: str) -> str:
    """The recommendation's summary for an eligible top workflow: its total, lead and confidence, then
    `what` it stands for (the review words the head again from the same numbers)."""
    return said(
        "score.summary.verdict",
        workflow=top.workflow,
        total=top.total,
        runner=runner.workflow if runner is not None else None,
        lead=top.total - runner.total if runner is not None else None,
        tie=parts.tie,
        level=parts.level,
        hard=parts.decided_by == "hard-constraint",
        what=what,
    )
