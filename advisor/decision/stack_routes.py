"""Which knowledge-base stack (route) a workflow runs where it is placed: the training route for the
model, its fine-tuning method and the vendor's hardware, and a serving route per deployment target.

A route fits when its `families` and `architectures` include the model (empty: any), it supports the
fine-tuning method and, for a mixture of experts, expert parallelism; a port route (one that carries a
PyTorch library's models over to MindSpore, e.g. diffusers -> mindone) fits only a model built on that
library (model.upstream, or the migration scan's port offer). Among those that fit: a port the model
uses first, then specialised routes before the framework itself, then the knowledge base's order.
Serving routes are ranked by how the trained weights reach the runtime: as they are (native), through a
vendor converter, or through an export with operator gaps.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Optional

from advisor.decision.findings import said
from advisor.decision.scorecard import RouteChoice, StackPin, StackUsed
from advisor.decision.workflows import Route, serves_only, stack_framework
from advisor.requirements import Requirements
from knowledge.models import KnowledgeBase
from knowledge.models import Route as StackRoute

if TYPE_CHECKING:
    from advisor.scan.models import ScanResult

PATH_RANK = {"native": 0, "vendor-converter": 1, "export": 2}


def upstreams(req: Requirements, scan: Optional[ScanResult] = None) -> set[str]:
    """The PyTorch libraries the team's model builds on: model.upstream, and the libraries the
    migration scan found a maintained port for."""
    found = {req.model.upstream} if req.model.upstream else set()
    if scan is not None:
        found |= {p.upstream for p in scan.ports if p.covered}
    return found


def _fits_model(r: StackRoute, req: Requirements) -> bool:
    s, m = r.supports, req.model
    if s.families and m.family not in s.families:
        return False
    if r.min_parameters_millions is not None and m.parameters_millions < r.min_parameters_millions:
        return False
    if s.architectures and m.family == "transformer" and (m.architecture or "decoder") not in s.architectures:
        return False
    return not (m.is_moe and not s.moe and not r.general)


def _training_fits(r: StackRoute, req: Requirements, ups: set[str]) -> bool:
    if r.port is not None and not (ups & set(r.ports)):
        return False  # a port carries over the models of its library only
    if not _fits_model(r, req):
        return False
    return (req.model.fine_tune or "full") in r.supports.fine_tune


def training_route(
    kb: Optional[KnowledgeBase], route: Route, req: Requirements, scan: Optional[ScanResult] = None
) -> Optional[StackRoute]:
    """The training route of a placed workflow, or None (nothing is trained, no route on that hardware)."""
    framework = stack_framework(route.framework, route.target)
    if kb is None or framework is None or serves_only(req):
        return None
    ups = upstreams(req, scan)
    acc = route.accelerator.id if route.accelerator is not None else None
    pool = [
        (i, r)
        for i, r in enumerate(kb.routes)
        if r.stage == "training"
        and route.workflow in r.workflows
        and r.framework == framework
        and (not r.accelerators or acc is None or acc in r.accelerators)
        and _training_fits(r, req, ups)
    ]
    if not pool:
        return None
    return min(pool, key=lambda ir: (not (ups & set(ir[1].ports)), ir[1].general, ir[0]))[1]


def serving_route(kb: Optional[KnowledgeBase], workflow: str, target: str, req: Requirements) -> Optional[StackRoute]:
    """The serving route of `workflow` for one deployment target, or None when the knowledge base has none."""
    if kb is None:
        return None
    quant = req.serving.quantization if req.serving is not None else None
    pool = [
        (i, r)
        for i, r in enumerate(kb.routes)
        if r.stage == "serving"
        and workflow in r.workflows
        and target in r.serves
        and _fits_model(r, req)
        and (quant is None or quant in r.supports.quantization)
    ]
    if not pool and quant is not None:  # no runtime serves that quantisation: the best unquantised one
        return serving_route(kb, workflow, target, req.model_copy(update={"serving": None}))
    if not pool:
        return None
    own = "mindspore" if workflow != "pytorch" else None  # a MindSpore workflow prefers its own runtime
    return min(
        pool,
        key=lambda ir: (
            PATH_RANK[ir[1].path or "export"],
            own is not None and ir[1].framework != own,
            not ir[1].supports.families,
            ir[0],
        ),
    )[1]


def with_stacks(
    route: Route, req: Requirements, kb: Optional[KnowledgeBase], scan: Optional[ScanResult] = None
) -> Route:
    """The placed workflow with its training route and a serving route per deployment target."""
    by_target = tuple((t, serving_route(kb, route.workflow, t, req)) for t in req.deployment.targets)
    return replace(
        route,
        training=training_route(kb, route, req, scan),
        serving=by_target[0][1] if by_target else None,
        serving_by_target=by_target,
    )


def _used(r: StackRoute, target: Optional[str] = None) -> StackUsed:
    return StackUsed(
        id=r.id,
        name=r.name,
        stage=r.stage,
        framework=r.framework,
        target=target,
        path=r.path,
        pins=[StackPin(package=p.package, version=p.version, confirmed=p.confirmed, note=p.note) for p in r.pins],
        source=r.source,
        confidence=r.confidence,
    )


def route_choice(route: Route, req: Requirements) -> RouteChoice:
    """The stack a workflow is scored on, as the report names it."""
    if route.training is not None:
        training = route.training.name
    elif serves_only(req):
        training = said("stack_routes.nothing_trained")
    else:
        training = said("stack_routes.no_training_route", path=route.path, target=route.target)
    serving = said(
        "stack_routes.serving", routes=[(r.name if r is not None else None, t) for t, r in route.serving_by_target]
    )
    stacks = ([_used(route.training)] if route.training is not None else []) + [
        _used(r, t) for t, r in route.serving_by_target if r is not None
    ]
    placement = route.placement or None
    return RouteChoice(
        training=training,
        serving=serving,
        target=route.target,
        accelerator=route.accelerator.id if route.accelerator is not None else None,
        devices=route.devices,
        placement=placement,
        stacks=stacks,
    )
