"""The knowledge-base pitfalls that apply to a workflow, their hours, and the list the report shows."""

from __future__ import annotations

from typing import Optional

from advisor.decision.likelihood import Project, judge
from advisor.decision.scorecard import PitfallItem
from advisor.decision.workflows import Route
from advisor.requirements import Requirements
from knowledge.models import KnowledgeBase, Pitfall
from knowledge.conditions import observed


def pitfall_hours(p: Pitfall) -> Optional[tuple[float, float]]:
    if p.effort_hours is not None:
        return p.effort_hours.low, p.effort_hours.high
    if p.hours is not None:
        return p.hours.value, p.hours.value
    return None


def route_ids(route: Optional[Route]) -> set[str]:
    """The knowledge-base routes a placed workflow runs (training and every serving route)."""
    if route is None:
        return set()
    ids = {r.id for _, r in route.serving_by_target if r is not None}
    return ids | ({route.training.id} if route.training is not None else set())


def applicable_pitfalls(
    kb: Optional[KnowledgeBase], workflow: str, req_dict: dict, route: Optional[Route] = None
) -> list[Pitfall]:
    """The pitfalls of `workflow` whose conditions hold for the requirements as the placed workflow sees
    them, and, for a pitfall tied to routes, only on those routes."""
    if kb is None:
        return []
    serving_only = (req_dict.get("workload") or {}).get("kind") == "inference"  # trains nothing: no training pitfall
    ids = route_ids(route)
    return sorted(
        (
            p
            for p in kb.pitfalls
            if workflow in p.workflows
            and p.applies(req_dict)
            and (p.serving or not serving_only)
            and (not p.routes or ids & set(p.routes))
        ),
        key=lambda p: p.id,
    )


def ports_pytorch_code(workflow: str, req: Requirements) -> bool:
    """Does this workflow move PyTorch code to MindSpore? (hybrid always; mindspore for existing code)"""
    return workflow == "hybrid" or (workflow == "mindspore" and req.model.source == "pytorch-code")


def _likelihood(p: Pitfall, project: Optional[Project], workflow: str, req_dict: dict) -> dict:
    if project is None:
        return {}
    seen = [observed(c, req_dict) for c in p.applies_when]
    value, why = judge(p.likelihood, p.applies_when, p.porting, project, workflow, seen)
    return {"likelihood": round(value, 4), "likelihood_why": why}


def pitfall_mid(p: Pitfall) -> Optional[float]:
    hours = pitfall_hours(p)
    return None if hours is None else (hours[0] + hours[1]) / 2


def pitfall_items(
    kb: Optional[KnowledgeBase],
    workflow: str,
    req_dict: dict,
    route: Optional[Route] = None,
    project: Optional[Project] = None,
) -> list[PitfallItem]:
    """The pitfalls the report lists for `workflow`, each with the mitigation for its route's framework."""
    framework = route.training.framework if route is not None and route.training is not None else None
    if framework is None and route is not None and route.serving is not None:
        framework = route.serving.framework
    items = []
    for p in applicable_pitfalls(kb, workflow, req_dict, route):
        hours = pitfall_hours(p)
        items.append(
            PitfallItem(
                id=p.id,
                title=p.title,
                workflows=list(p.workflows),
                symptom=p.symptom,
                cause=p.cause,
                fix=p.fix_for(framework),
                expected_hours=round((hours[0] + hours[1]) / 2, 2) if hours else None,
                effort_hours=[p.effort_hours.low, p.effort_hours.high] if p.effort_hours else None,
                hours_in_field_report=p.hours.value if p.hours else None,
                conditions=list(p.applies_when),
                source=p.source,
                confidence=p.confidence,
                owner=p.owner,
                milestone=p.milestone,
                **_likelihood(p, project, workflow, req_dict),
            )
        )
    return sorted(items, key=lambda x: (-(x.expected_hours or 0), x.id))
