"""Ecosystem fit and debugging: knowledge-base aspect ratings of the stack each workflow works in
(PyTorch, PyTorch on Ascend through torch_npu, MindSpore), mixed for the hybrid by where its work is
done. Neither depends on a searched constant, so both are worked out once per report."""

from __future__ import annotations

from typing import Optional

from advisor.decision.context import Context
from advisor.decision.constants import Consts
from advisor.decision.criteria.common import Scored, aspect_score, hybrid_share, skill
from advisor.decision.evidence import Evidence, req_evidence
from advisor.decision.findings import said
from advisor.decision.workflows import Route, not_applicable
from advisor.requirements import Requirements
from knowledge.models import KnowledgeBase

# Ecosystem aspects weighed for ecosystem fit, before the HuggingFace need is added (assumption: equal).
ECOSYSTEM_ASPECTS = {"model_hub": 1.0, "libraries": 1.0, "community": 1.0, "documentation": 1.0}
# The model hub aspect weighed by the HuggingFace need (the constants HUB_WEIGHT_NONE/NICE/ESSENTIAL).
HUB_WEIGHT = {"none": "HUB_WEIGHT_NONE", "nice": "HUB_WEIGHT_NICE", "essential": "HUB_WEIGHT_ESSENTIAL"}


def work_stack(wf: str, req: Requirements, route: Route) -> str:
    """Which PyTorch the workflow works in: plain `pytorch`, or `torch_npu` when its PyTorch work runs
    on Ascend (the pytorch workflow training on Ascend; a hybrid prototype with no NVIDIA to run on)."""
    if wf == "pytorch":
        return "torch_npu" if route.target == "ascend" else "pytorch"
    if "nvidia" in req.hardware.available or "ascend" not in req.hardware.available:
        return "pytorch"
    return "torch_npu"


def _stack_aspect(kb: Optional[KnowledgeBase], stack: str, aspect: str) -> tuple[Optional[float], list[Evidence]]:
    """torch_npu entries override PyTorch's where the knowledge base has them (the adapter changes
    libraries and debugging, not the model hub)."""
    if stack == "torch_npu":
        value, ev = aspect_score(kb, "torch_npu", aspect)
        if value is not None:
            return value, ev
        stack = "pytorch"
    return aspect_score(kb, stack, aspect)


def _mix(
    wf: str, ctx: Context, aspects: dict[str, float], criterion: str, k: Consts
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

    pt_stack = work_stack(wf, req, ctx.routes[wf])
    (pt, pt_ev), (ms, ms_ev) = stack_score(pt_stack), stack_score("mindspore")
    if pt is None or ms is None:
        return None, pt_ev + ms_ev, ""
    adapter = pt_stack == "torch_npu"
    if wf == "pytorch" and pt_stack == "torch_npu" and prototypes_on_nvidia(req):
        # NVIDIA for development, Ascend for production: one route, prototype on NVIDIA
        # in plain PyTorch, train and serve through torch_npu, no port. The work splits by stage as the
        # hybrid's does (the same table), without the fluency factor: every phase is PyTorch.
        (nv, nv_ev) = stack_score("pytorch")
        if nv is not None:
            share = prototype_share(req, criterion, k)
            return (
                share * nv + (1 - share) * pt,
                nv_ev + pt_ev,
                said("crit_ecosystem.prototype_on_nvidia", share=share, stage=req.stage),
            )
    if wf == "pytorch":
        return pt, pt_ev, said("crit_ecosystem.kb_scores", criterion=criterion, adapter=adapter)
    if wf == "mindspore":
        return ms, ms_ev, said("crit_ecosystem.kb_scores", criterion=criterion, adapter=False)
    # One rule for one phase: the hybrid's PyTorch prototype weighs as the PyTorch route's NVIDIA
    # prototype does (prototype_share, the same for both).
    share = prototype_share(req, criterion, k)
    ev = pt_ev + ms_ev
    ev.append(
        req_evidence(
            "team.pytorch",
            req.team.pytorch,
            said("crit_ecosystem.evidence.fluency", fluency=prototype_fluency(req, k)),
        )
    )
    return (
        share * pt + (1 - share) * ms,
        ev,
        said("crit_ecosystem.hybrid", share=share, adapter=adapter, stage=req.stage),
    )


def prototype_fluency(req: Requirements, k: Consts) -> float:
    """How much of a PyTorch prototype phase the team really spends there: it prototypes in PyTorch to
    validate ideas quickly (the field report "MindSpore vs PyTorch, measured on the same task", on using
    both), which pays off as far as it is more fluent in PyTorch than in MindSpore: 0.5 at equal skill,
    +-PROTOTYPE_FLUENCY_STEP per level of difference."""
    diff = skill(req.team.pytorch) - skill(req.team.mindspore)
    return max(0.0, min(1.0, 0.5 + k["PROTOTYPE_FLUENCY_STEP"] * diff))


def prototype_share(req: Requirements, criterion: str, k: Consts) -> float:
    """The share of `criterion`'s work done in a PyTorch prototype phase: the stage's share x the team's
    fluency. One rule for every workflow that has that phase (the hybrid, and the PyTorch route that
    prototypes on NVIDIA before torch_npu), so the same phase weighs the same in both."""
    return hybrid_share(req.stage, criterion, k) * prototype_fluency(req, k)


def prototypes_on_nvidia(req: Requirements) -> bool:
    """The PyTorch route on Ascend has an NVIDIA prototype phase: NVIDIA is at hand and the project has a
    prototype phase at all (not a product that trains nothing, not training from released weights)."""
    return "nvidia" in req.hardware.available and not not_applicable("hybrid", req)


def ecosystem_score(wf: str, ctx: Context, k: Consts) -> Scored:
    aspects = dict(ECOSYSTEM_ASPECTS)
    aspects["model_hub"] = k[HUB_WEIGHT[ctx.req.needs.huggingface]]
    value, ev, note = _mix(wf, ctx, aspects, "ecosystem", k)
    ev.insert(
        0,
        req_evidence(
            "needs.huggingface",
            ctx.req.needs.huggingface,
            said("crit_ecosystem.evidence.hub", weight=aspects["model_hub"], total=sum(aspects.values())),
        ),
    )
    if value is None:
        return 50.0, ev, said("crit_ecosystem.no_entries", criterion="ecosystem")
    need = ctx.req.needs.huggingface
    return value, ev, said("crit_ecosystem.with_hub", note=note, need=need, weight=aspects["model_hub"])


def debugging_score(wf: str, ctx: Context, k: Consts) -> Scored:
    value, ev, note = _mix(wf, ctx, {"debugging": 1.0}, "debugging", k)
    ev.insert(
        0,
        req_evidence(
            "needs.debugging_intensity", ctx.req.needs.debugging_intensity, said("crit_ecosystem.evidence.debugging")
        ),
    )
    if value is None:
        return 50.0, ev, said("crit_ecosystem.no_entries", criterion="debugging")
    return value, ev, note
