"""One evaluation: every criterion for every workflow with a set of constants, the total cost, the
schedule and the hard constraints. The sensitivity analysis re-runs only this."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from advisor.decision.constants import Consts
from advisor.decision.context import Context
from advisor.decision.criteria.common import Scored, clamp
from advisor.decision.criteria.compliance import compliance_score, mandate_field
from advisor.decision.criteria.cost import cost_scores
from advisor.decision.criteria.deployment import deployment_score
from advisor.decision.criteria.migration import migration_score
from advisor.decision.criteria.performance import performance_score
from advisor.decision.criteria.scan_parts import excluded_scan_text
from advisor.decision.criteria.team import team_score
from advisor.decision.findings import said
from advisor.decision.memory import blocks
from advisor.decision.pitfalls import ports_pytorch_code
from advisor.decision.projections import WORKFLOWS
from advisor.decision.schedule import Schedule
from advisor.decision.stack_routes import route_choice
from advisor.decision.scorecard import Criterion, WorkflowScore
from advisor.decision.tco import TotalCost, total_cost
from advisor.requirements import CRITERIA


def weighted_total(criteria: list[Criterion]) -> float:
    return sum(c.weight * c.score for c in criteria)


@dataclass
class Evaluation:
    scores: list[WorkflowScore]
    costs: dict[str, TotalCost]
    schedules: dict[str, Schedule]
    # What it was made from, for an evaluation of the same context with one constant moved to reuse:
    # the context, the constants, and each part's result with the constants the part read.
    ctx: Optional[Context] = None
    k: Optional[Consts] = None
    parts: dict[tuple[str, str], tuple[Any, frozenset[str]]] = field(default_factory=dict)

    def top(self) -> str:
        return rank(self.scores)[0].workflow


class _Parts:
    """Each part of an evaluation (a criterion of a workflow, its migration estimate, its total cost)
    worked out with the constants `k`, noting the constants it reads; with `reuse` (an evaluation of the
    same context) a part that read none of the constants moved since is taken from it: it would give the
    same (the parts are pure in the context and the constants they read)."""

    def __init__(self, ctx: Context, k: Consts, reuse: Optional[Evaluation]) -> None:
        self.k = k
        self.kept = reuse.parts if reuse is not None and reuse.ctx is ctx and reuse.k is not None else {}
        self.moved = k.differ(reuse.k) if self.kept else frozenset()
        self.made: dict[tuple[str, str], tuple[Any, frozenset[str]]] = {}

    def get(self, name: str, wf: str, work: Callable[[Consts], Any], after: frozenset[str] = frozenset()) -> Any:
        """`work(k)`'s result; `after`: the reads of the parts whose results it takes as inputs."""
        kept = self.kept.get((name, wf))
        if kept is not None and not (self.moved & kept[1]):
            result, reads = kept
        else:
            noted: set[str] = set()
            result = work(self.k.noting(noted))
            reads = frozenset(noted) | after
        if self.k.reads is not None:  # the caller notes what the evaluation read
            self.k.reads.update(reads)
        self.made[(name, wf)] = (result, reads)
        return result

    def reads(self, name: str, wf: str) -> frozenset[str]:
        return self.made[(name, wf)][1]


def rank(scores: list[WorkflowScore]) -> list[WorkflowScore]:
    """Eligible first, then by total; a workflow that does not apply comes last (it has no score)."""
    order = {wf: i for i, wf in enumerate(WORKFLOWS)}
    return sorted(scores, key=lambda s: (not s.applicable, not s.eligible, -s.total, order[s.workflow]))


def evaluate(ctx: Context, k: Consts, reuse: Optional[Evaluation] = None) -> Evaluation:
    """Every criterion of every workflow with the constants `k`. `reuse`: an evaluation of the same
    context (the sensitivity search's default one): the parts that read no constant moved since are
    taken from it."""
    parts = _Parts(ctx, k, reuse)
    partial: dict[str, dict[str, Scored]] = {}
    hours: dict[str, list[float]] = {}
    schedules: dict[str, Schedule] = {}
    for wf in WORKFLOWS:
        mig, hours[wf], schedules[wf] = parts.get("migration", wf, lambda kk: migration_score(wf, ctx, kk))
        partial[wf] = {
            "performance": parts.get("performance", wf, lambda kk: performance_score(wf, ctx, kk)),
            "ecosystem": ctx.fixed[wf]["ecosystem"],
            "team": parts.get("team", wf, lambda kk: team_score(wf, ctx.req, kk)),
            "migration": mig,
            "deployment": parts.get("deployment", wf, lambda kk: deployment_score(wf, ctx, kk)),
            "debugging": ctx.fixed[wf]["debugging"],
            "compliance": parts.get("compliance", wf, lambda kk: compliance_score(wf, ctx, kk)),
        }
    costs = {
        wf: parts.get(
            "cost",
            wf,
            lambda kk: total_cost(
                ctx.compared[wf],
                hours[wf],
                ctx.req,
                ctx.kb,
                ctx.routes[wf].accelerator,
                kk,
                parts_hours=[(p.name, p.hours[0], p.hours[1]) for p in schedules[wf].phases],
                excluded=excluded_scan_text(ctx.scan)
                if ctx.scan is not None and ports_pytorch_code(wf, ctx.req)
                else "",
                own=ctx.best[wf],
            ),
            after=parts.reads("migration", wf),  # it costs the migration's hours and phases
        )
        for wf in WORKFLOWS
    }
    for wf, cost in cost_scores(ctx, costs).items():
        partial[wf]["cost"] = cost
    scores = []
    for wf in WORKFLOWS:
        route = ctx.routes[wf]
        criteria = [
            Criterion(
                name=name,
                weight=round(ctx.wmap[name], 6),
                score=round(clamp(partial[wf][name][0]), 3),
                evidence=partial[wf][name][1],
                note=partial[wf][name][2],
            )
            for name in CRITERIA
        ]
        if not route.applicable:
            # "not applicable" is not a score: no total, never eligible, never ranked above a workflow that
            # applies; its criteria stay for the tables' columns, the JSON says why it does not apply
            scores.append(
                WorkflowScore(
                    workflow=wf,
                    total=0.0,
                    eligible=False,
                    applicable=False,
                    not_applicable=route.not_applicable,
                    criteria=criteria,
                    route=ctx.once(("route_choice", wf), lambda: route_choice(route, ctx.req)),
                )
            )
            continue
        blocked = hard_constraints(wf, ctx, costs[wf], schedules[wf], k)
        scores.append(
            WorkflowScore(
                workflow=wf,
                total=round(weighted_total(criteria), 3),
                eligible=not blocked,
                blocked_by=blocked,
                criteria=criteria,
                pitfalls=[p.id for p in ctx.pitfalls[wf]],
                migration_hours=hours[wf],
                route=ctx.once(("route_choice", wf), lambda: route_choice(route, ctx.req)),
            )
        )
    return Evaluation(scores, costs, schedules, ctx, k, parts.made)


def hard_constraints(wf: str, ctx: Context, cost: TotalCost, sched: Schedule, k: Consts) -> list[str]:
    req, route, proj = ctx.req, ctx.routes[wf], ctx.best[wf]
    blocked = []
    foreign = []
    scope = req.needs.domestic_scope
    if req.needs.framework_mandate == "required" and route.framework == "pytorch":
        foreign.append((mandate_field(req, "framework"), "framework"))
    if req.needs.hardware_mandate == "required":
        # the mandate binds the stages needs.domestic_scope names: weights trained on Ascend may be served
        # by others on NVIDIA when only training is in scope
        if route.target == "nvidia" and "training" in scope:
            foreign.append((mandate_field(req, "hardware"), "training"))
        if "nvidia-server" in req.deployment.targets and "deployment" in scope:
            foreign.append((mandate_field(req, "hardware"), "deployment"))
    for name in dict.fromkeys(f for f, _ in foreign):
        blocked.append(said("evaluate.block.foreign", field=name, parts=[t for f, t in foreign if f == name]))
    if not proj.supported and req.hardware.training_target != "undecided":
        target = req.hardware.training_target
        blocked.append(said("evaluate.block.unsupported", target=target, detail=proj.basis_detail))
    memory = blocks(proj.memory)
    if memory:
        blocked.append(memory)
    slo = proj.serving.slo if proj.serving is not None else None
    if slo is not None and slo.verdict == "cannot":
        blocked.append(said("evaluate.block.serving", reason=slo.reason))
    budget = req.constraints.budget_usd
    scoped = cost.budget_usd
    if budget is not None and scoped is not None and scoped.low > budget:
        blocked.append(
            said(
                "evaluate.block.budget", budget=budget, parts=cost.budget_parts, low=scoped.low, scope=cost.budget_scope
            )
        )
    weeks = req.constraints.deadline_weeks
    # the schedule's own finding, except a migration that cannot fit: that says its hours and the share
    migration = (sched.finding_code or "").partition(".")[2].startswith("migration_")
    if sched.fits == "no" and sched.finding and not migration:
        blocked.append(said("evaluate.block.deadline", weeks=weeks, finding=sched.finding))
    elif sched.fits == "no":
        blocked.append(
            said(
                "evaluate.block.migration",
                weeks=weeks,
                hours=sched.hours[0],
                share=k["DEADLINE_SHARE"],
                allowed=sched.allowed_hours,
            )
        )
    return blocked
