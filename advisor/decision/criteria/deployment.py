"""Deployment: how well each workflow reaches every deployment target through the serving route it
takes there (advisor.decision.stack_routes): the trained weights load as they are (native), through a
vendor converter, or through an export with operator gaps; without a route in the knowledge base, the
framework's first-party path, export/conversion or its knowledge-base rating. The deployment probe's
measurement joins where it applies."""

from __future__ import annotations

from typing import Optional


from advisor.decision.constants import Consts
from advisor.decision.context import Context
from advisor.decision.criteria.common import Scored, aspect_score, clamp
from advisor.decision.evidence import Evidence, kb_evidence, req_evidence
from advisor.decision.findings import said
from knowledge.models import KnowledgeBase
from knowledge.models import Route as StackRoute

# The first-party framework for each deployment target (seed 000, "模型部署对比": MindIR + Lite is the
# native path on Ascend servers and edge devices; ONNX/TensorRT is PyTorch's mature path on NVIDIA).
NATIVE_DEPLOYMENT = {"nvidia-server": "pytorch", "ascend-server": "mindspore", "edge-ascend": "mindspore"}
EDGE_TARGETS = (
    "edge-ascend",
    "mobile",
)  # deploying through an export/convert step (ONNX, ATC): it works, with operator gaps


# How the trained weights reach a serving route's runtime, and the constant that scores it.
PATH_FIT = {"native": "NATIVE_FIT", "vendor-converter": "VENDOR_CONVERTER_FIT", "export": "CONVERSION_FIT"}


def _route_fit(route: StackRoute, target: str) -> tuple[str, str]:
    """(constant name, note) of a serving route's fit for one target; the native path scores the maximum
    by definition, the other two name the assumption that scores them."""
    path = route.path or "export"
    return PATH_FIT[path], said(
        "crit_deployment.route", target=target, route=route.name, path=path, constant=PATH_FIT[path]
    )


def _kb_deployment_fit(
    framework: str, target: str, kb: Optional[KnowledgeBase], k: Consts, route: Optional[StackRoute] = None
) -> Scored:
    if route is not None:
        name, note = _route_fit(route, target)
        return (
            k[name],
            [kb_evidence(route, said("crit_deployment.evidence.route", route=route.name, stack=route.stack))],
            note,
        )
    native = NATIVE_DEPLOYMENT.get(target)
    if native == framework:
        return k["NATIVE_FIT"], [], said("crit_deployment.first_party", target=target)
    if native is not None:
        return k["CONVERSION_FIT"], [], said("crit_deployment.conversion", target=target)
    value, ev = aspect_score(kb, framework, "deployment")
    if value is None:
        return (
            k["UNKNOWN_DEPLOYMENT_FIT"],
            [],
            said("crit_deployment.unknown", target=target),
        )
    return value, ev, said("crit_deployment.kb_score", target=target)


def deployment_fit(framework: str, target: str, ctx: Context, k: Consts, route: Optional[StackRoute] = None) -> Scored:
    """The knowledge-base / constant fit of `target`, with the deployment probe's measurement where it
    applies: on a CPU server the measured path (ONNX Runtime, MindIR) is the evidence itself; for an
    accelerator target a CPU measurement only shows whether the export works at all, so it caps the
    fit when every measured export path of the framework failed and otherwise only adds evidence."""
    value, ev, note = _kb_deployment_fit(framework, target, ctx.kb, k, route)
    rows = [r for r in ctx.deploy if r.framework == framework and r.measured and r.score is not None]
    if not rows:
        return value, ev, note
    best = max(rows, key=lambda r: r.score)
    measured = [
        Evidence(
            kind="measured",
            ref=f"deploy:{r.framework}->{r.target}",
            value=r.score,
            detail=said(
                "crit_deployment.evidence.measured", framework=r.framework, target=r.target, score=r.score, note=r.note
            ),
        )
        for r in rows
    ]
    if target == "cpu-server":
        note = said("crit_deployment.measured_cpu", target=target, framework=framework, best=best.target)
        return float(best.score), measured, note
    if best.score < k["EXPORT_OK_POINTS"]:
        return (
            min(value, float(best.score)),
            ev + measured,
            said("crit_deployment.capped", note=note, framework=framework, points=k["EXPORT_OK_POINTS"]),
        )
    return value, ev + measured, said("crit_deployment.exports_work", note=note)


def deployment_score(wf: str, ctx: Context, k: Consts) -> Scored:
    req = ctx.req
    framework = ctx.routes[wf].framework
    scores, notes = [], []
    ev = [
        req_evidence(
            "deployment.targets",
            list(req.deployment.targets),
            said("crit_deployment.evidence.targets", framework=framework, targets=list(req.deployment.targets)),
        )
    ]
    for target in req.deployment.targets:
        value, tev, note = deployment_fit(framework, target, ctx, k, ctx.routes[wf].serving_for(target))
        scores.append(value)
        ev.extend(tev)
        notes.append(said("crit_deployment.target", note=note, value=value))
    score = sum(scores) / len(scores)
    if wf == "hybrid" and any(t in EDGE_TARGETS for t in req.deployment.targets):
        score -= k["HYBRID_EDGE_PENALTY"]
        ev.append(
            req_evidence(
                "deployment.targets",
                list(req.deployment.targets),
                said("crit_deployment.evidence.edge"),
            )
        )
        notes.append(said("crit_deployment.edge_penalty", penalty=k["HYBRID_EDGE_PENALTY"]))
    if req.needs.edge_cloud and framework == "pytorch":
        score -= k["EDGE_CLOUD_PYTORCH_PENALTY"]
        ev.append(req_evidence("needs.edge_cloud", True, said("crit_deployment.evidence.edge_cloud")))
        notes.append(said("crit_deployment.edge_cloud_penalty", penalty=k["EDGE_CLOUD_PYTORCH_PENALTY"]))
    return clamp(score), ev, "; ".join(notes)
