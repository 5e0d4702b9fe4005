"""Build the Context once per report: weights, routes, projections on a shared basis, pitfalls, the
judged probe evidence and the assumptions the report lists."""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Sequence
from typing import Optional, TYPE_CHECKING, Union

from advisor.decision.accuracy import AccuracyEvidence
from advisor.decision.transformer_evidence import TransformerEvidence
from advisor.decision.constants import CONSTANTS, DEFAULT, Consts
from advisor.decision.context import Context, Inputs, conditions, placed_conditions
from advisor.decision.criteria.ecosystem import debugging_score, ecosystem_score
from advisor.decision.deployment import DeployPath, deployment_evidence
from advisor.decision.evidence import JsonDict
from advisor.decision.findings import Finding, finding, said
from advisor.decision.pitfalls import applicable_pitfalls
from advisor.decision.projections import (
    BASIS_RANK,
    WORKFLOWS,
    WORKLOAD_GFLOPS,
    Projection,
    common_basis,
    device_kind,
    project,
    project_all,
)
from advisor.decision.weights import resolve_weights
from advisor.decision.stack_routes import with_stacks
from advisor.decision.workflows import Route, candidates, with_basis
from advisor.requirements import Requirements

from advisor.scan.models import ScanResult
from knowledge.models import KnowledgeBase
from probes.training.models import ProbeSuite

if TYPE_CHECKING:  # the probes' result types, for the annotations only
    from probes.accuracy.models import AccuracySuite
    from probes.check.models import CheckReport, HostInfo
    from probes.deploy.models import DeployResult
    from probes.pipeline.models import PipelineSuite
    from probes.scaling.models import ScalingResult
    from advisor.decision.pipeline import PipelineBest, PipelineEvidence


def model_assumptions() -> list[str]:
    """How the model scores, costs and grades, listed first among the report's assumptions (the
    confidence margins at their defaults)."""
    return [
        said("prep.model.scores"),
        said("prep.model.migration"),
        said("prep.model.cost"),
        said(
            "prep.model.confidence",
            high=CONSTANTS["CONFIDENCE_HIGH_MARGIN"].value,
            medium=CONSTANTS["CONFIDENCE_MEDIUM_MARGIN"].value,
        ),
    ]


def prepare(
    req: Requirements,
    host: Union[CheckReport, HostInfo, JsonDict, None],
    suites: list[Union[ProbeSuite, JsonDict]],
    kb: Optional[KnowledgeBase],
    scan: Union[ScanResult, JsonDict, None],
    scaling: Union[ScalingResult, JsonDict, None],
    scaling_here: bool,
    deploy: Union[DeployResult, JsonDict, None] = None,
    accuracy: Union[AccuracySuite, AccuracyEvidence, JsonDict, None] = None,
    pipeline: Union[PipelineSuite, PipelineEvidence, JsonDict, None] = None,
    k: Consts = DEFAULT,
    transformer: Optional[TransformerEvidence] = None,
) -> tuple[Context, list[str]]:
    """The context and the assumptions the report lists, from the inputs as the callers hold them."""
    inputs = read_inputs(req, host, suites, scan, scaling, scaling_here, deploy, accuracy, pipeline, transformer)
    return prepare_inputs(inputs, kb, k)


def read_inputs(
    req: Requirements,
    host: Union[CheckReport, HostInfo, JsonDict, None] = None,
    suites: Sequence[Union[ProbeSuite, JsonDict]] = (),
    scan: Union[ScanResult, JsonDict, None] = None,
    scaling: Union[ScalingResult, JsonDict, None] = None,
    scaling_here: bool = False,
    deploy: Union[DeployResult, JsonDict, None] = None,
    accuracy: Union[AccuracySuite, AccuracyEvidence, JsonDict, None] = None,
    pipeline: Union[PipelineSuite, PipelineEvidence, JsonDict, None] = None,
    transformer: Optional[TransformerEvidence] = None,
) -> Inputs:
    """The inputs read once: a suite's or a scan's JSON validated, the accuracy and input-pipeline
    results judged (read by attribute from here on)."""
    return Inputs(
        req=req,
        host=host,
        suites=tuple(_suite(x) for x in suites),
        scan=_scan(scan),
        scaling=scaling,
        scaling_here=scaling_here,
        deploy=deploy,
        accuracy=_accuracy(accuracy),
        feeds=_pipeline_best(pipeline),
        transformer=transformer,
    )


# The stages of a preparation that read constants: a moved constant re-runs only the stages that read
# it (advisor.decision.sensitivity), a moved knowledge-base figure only the stages that read its section.
STAGES = ("placement", "fixed", "deploy", "weights")
# The knowledge-base sections only the criteria read (the ratings): moving one of their figures leaves
# the places, the projections and the pitfalls as they were.
CRITERIA_ONLY_SECTIONS = frozenset({"ecosystem"})


def prepare_inputs(inputs: Inputs, kb: Optional[KnowledgeBase], k: Consts = DEFAULT) -> tuple[Context, list[str]]:
    """The context (everything the scores are made from that the evaluation's constants do not move)
    and the assumptions the report lists."""
    req, suites = inputs.req, list(inputs.suites)
    reads: dict[str, set[str]] = {stage: set() for stage in STAGES}
    assumptions: list[str] = model_assumptions()
    if (
        req.workload is not None
        and req.workload.gflops_per_sample is None
        and req.workload.model in WORKLOAD_GFLOPS
        and req.workload.model != "lenet"
    ):
        gflops = WORKLOAD_GFLOPS[req.workload.model]
        assumptions.append(said("prep.workload_gflops", model=req.workload.model, gflops=gflops))
    if kb is None:
        assumptions.append(said("prep.no_kb"))
    rs, best, basis, compared = _placement(inputs, kb, k.noting(reads["placement"]))
    assumptions.extend(_host_notes(inputs.host, suites, rs))
    target = req.hardware.training_target
    if target not in ("undecided", *req.hardware.available):
        assumptions.append(said("prep.target_not_available", target=target))
    if any(p.basis != compared[wf].basis for wf, p in best.items()):
        assumptions.append(said("prep.shared_basis", basis=basis))
    for p in best.values():
        for note in p.assumptions:
            if note not in assumptions:
                assumptions.append(note)
    assumptions.extend(_communication_notes(req, compared))
    for run in (r for x in suites for r in x.runs if r.status == "ok" and r.quality == "unusable"):
        assumptions.append(said("prep.run_unusable", run=run.id, reasons=run.quality_reasons))
    weights = resolve_weights(req, k.noting(reads["weights"]))
    ctx = Context(
        req=req,
        kb=kb,
        scan=inputs.scan,
        req_dict=conditions(req),
        routes=rs,
        best=best,
        compared=compared,
        basis=basis,
        weights=weights,
        wmap={w.name: w.weight for w in weights},
        pitfalls=_pitfalls(req, kb, rs),
        comparisons=[c for x in suites for c in x.comparisons],
        deploy=_deploy(inputs, k.noting(reads["deploy"])),
        accuracy=inputs.accuracy,
        transformer=inputs.transformer,
        inputs=inputs,
        k=k,
    )
    ctx.fixed = _fixed(ctx, k.noting(reads["fixed"]))
    ctx.reads = {stage: frozenset(names) for stage, names in reads.items()}
    return ctx, assumptions


def reprepared(ctx: Context, k: Consts, kb: Optional[KnowledgeBase] = None) -> Context:
    """`ctx` as `prepare_inputs` would give it with the constants `k` (and the knowledge base `kb`, a
    copy of ctx.kb with some sections replaced): only the stages that read a moved constant or a
    replaced section run again; the others are kept (they would give the same)."""
    assert ctx.inputs is not None  # a context prepared by prepare_inputs
    kb = ctx.kb if kb is None else kb
    moved = k.differ(ctx.k)
    sections = _replaced_sections(ctx.kb, kb)
    again = {stage for stage in STAGES if moved & ctx.reads.get(stage, frozenset())}
    if sections - CRITERIA_ONLY_SECTIONS:
        again.add("placement")
    if sections or "placement" in again:
        again.add("fixed")  # the ratings are read there, and the routes it reads may have moved
    if not again and kb is ctx.kb:
        return ctx  # nothing it was prepared from moved (its own evaluation memo stays good)
    reads = dict(ctx.reads)
    changes: dict = {"kb": kb, "k": k}
    if "placement" in again:
        noted: set[str] = set()
        rs, best, basis, compared = _placement(ctx.inputs, kb, k.noting(noted))
        reads["placement"] = frozenset(noted)
        changes.update(routes=rs, best=best, basis=basis, compared=compared, pitfalls=_pitfalls(ctx.req, kb, rs))
    if "deploy" in again:
        noted = set()
        changes["deploy"] = _deploy(ctx.inputs, k.noting(noted))
        reads["deploy"] = frozenset(noted)
    if "weights" in again:
        noted = set()
        weights = resolve_weights(ctx.req, k.noting(noted))
        changes.update(weights=weights, wmap={w.name: w.weight for w in weights})
        reads["weights"] = frozenset(noted)
    out = replace(ctx, reads=reads, **changes)
    if "placement" not in again:
        out.memo.update(ctx.memo)  # worked out from the placement and the requirements, both unchanged
    if "fixed" in again:
        noted = set()
        out.fixed = _fixed(out, k.noting(noted))
        reads["fixed"] = frozenset(noted)
    return out


def _replaced_sections(before: Optional[KnowledgeBase], after: Optional[KnowledgeBase]) -> set[str]:
    """The knowledge base's sections that are not the same objects in the two (a copy with some
    figures moved shares every other section)."""
    if before is after:
        return set()
    if before is None or after is None:
        return {"*"}
    return {name for name in type(before).model_fields if getattr(before, name) is not getattr(after, name)}


def _placement(
    inputs: Inputs, kb: Optional[KnowledgeBase], k: Consts
) -> tuple[dict[str, Route], dict[str, Projection], str, dict[str, Projection]]:
    """Each workflow placed, its best projection, the basis all share and the projections on it."""
    req, suites, scaling, here, feeds = (
        inputs.req,
        list(inputs.suites),
        inputs.scaling,
        inputs.scaling_here,
        inputs.feeds,
    )
    rs = place(req, kb, inputs.scan, suites, scaling, here, k, feeds)
    best = project_all(req, kb, suites, scaling, here, rs, k=k, pipeline=feeds)
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
                scaling_here=here,
                route=rs[wf],
                k=k,
                pipeline=feeds,
            )
        )
        for wf, p in best.items()
    }
    return rs, best, basis, compared


def _pitfalls(req: Requirements, kb: Optional[KnowledgeBase], rs: dict[str, Route]) -> dict[str, list]:
    return {wf: applicable_pitfalls(kb, wf, placed_conditions(req, kb, rs[wf]), rs[wf]) for wf in WORKFLOWS}


def _deploy(inputs: Inputs, k: Consts) -> list[DeployPath]:
    if inputs.deploy is None:
        return []
    return deployment_evidence(inputs.deploy, export_points=k["EXPORT_OK_POINTS"], k=k)


def _fixed(ctx: Context, k: Consts) -> dict[str, dict]:
    """The criteria the evaluation's constants do not move (ecosystem, debugging), worked out once."""
    return {
        wf: {"ecosystem": ecosystem_score(wf, ctx, k), "debugging": debugging_score(wf, ctx, k)} for wf in WORKFLOWS
    }


def place(
    req: Requirements,
    kb: Optional[KnowledgeBase],
    scan: Optional[ScanResult],
    suites: list,
    scaling: object,
    scaling_here: bool,
    k: Consts,
    feeds: dict,
) -> dict[str, Route]:
    """Each workflow on the place where its route does best: with several candidate places (fleets, or
    hardware kinds under an undecided target) the shortest projected time to train (an inference-only
    product: the highest serving rate); a place the projection cannot support comes last. A domestic
    hardware mandate over training keeps the Ascend places ahead (workflows.candidates). Each place
    carries its training and serving routes (advisor.decision.stack_routes)."""
    chosen: dict[str, Route] = {}
    for wf, places in candidates(req, kb).items():
        stacked = [with_stacks(r, req, kb, scan) for r in places]
        if len(stacked) == 1:
            chosen[wf] = stacked[0]
            continue
        ranked = []
        for i, r in enumerate(stacked):
            p = project(wf, req, kb, suites, scaling=scaling, scaling_here=scaling_here, route=r, k=k, pipeline=feeds)
            ranked.append((_place_key(p, i), r, p))
        ranked.sort(key=lambda x: x[0])
        best = ranked[0][1]
        compared = [(_where(r), _speed(p)) for _, r, p in ranked]
        note = said("prep.placed", where=_where(best), places=len(ranked), compared=compared)
        chosen[wf] = replace(best, notes=(*best.notes, note), placement=note)
    return with_basis(req, chosen)


def _place_key(p: Projection, order: int) -> tuple:
    """Sort key of a candidate place: supported first, then the shortest time to train (or the highest
    serving rate), then the candidates' own order (a domestic place first under a mandate)."""
    if not p.supported:
        return (2, 0.0, order)
    if p.time_to_train_hours is not None:
        return (0, p.time_to_train_hours.mid, order)
    if p.serving is not None:
        return (0, -p.serving.total.mid, order)
    return (1, 0.0, order)


def _where(r: Route) -> str:
    return f"{r.devices} x {r.accelerator.name}" if r.accelerator is not None and r.devices else r.target


def _speed(p: Projection) -> Finding:
    if not p.supported:
        return finding("prep.speed.unsupported")
    if p.time_to_train_hours is not None:
        t = p.time_to_train_hours
        return finding("prep.speed.train", low=t.low, high=t.high)
    if p.serving is not None:
        s = p.serving.total
        return finding("prep.speed.serve", low=s.low, high=s.high, unit=s.unit)
    return finding("prep.speed.none")


def _accuracy(accuracy: Union[AccuracySuite, AccuracyEvidence, JsonDict, None]) -> Optional[AccuracyEvidence]:
    """An AccuracySuite (or its JSON) judged; an already judged AccuracyEvidence as it is."""
    from advisor.decision.accuracy import accuracy_evidence

    if accuracy is None or isinstance(accuracy, AccuracyEvidence):
        return accuracy
    return accuracy_evidence(accuracy)


def _pipeline_best(pipeline: Union[PipelineSuite, PipelineEvidence, JsonDict, None]) -> dict[str, PipelineBest]:
    """framework -> its fastest measured loader variant (advisor.decision.pipeline.PipelineBest)."""
    from advisor.decision.pipeline import PipelineEvidence, pipeline_evidence

    if pipeline is None:
        return {}
    judged = pipeline if isinstance(pipeline, PipelineEvidence) else pipeline_evidence(pipeline)
    return {b.framework: b for b in judged.best}


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
    return [said("prep.multi_device", devices=req.hardware.devices, parts=list(parts.items()))]


def _suite(suite: Union[ProbeSuite, JsonDict]) -> ProbeSuite:
    return suite if isinstance(suite, ProbeSuite) else ProbeSuite.model_validate(suite)


def _host_notes(
    host: Union[CheckReport, HostInfo, JsonDict, None], suites: list[ProbeSuite], rs: dict[str, Route]
) -> list[str]:
    """Say when this host could measure what is only projected (it has the target's hardware)."""
    data = host.model_dump(mode="json") if hasattr(host, "model_dump") else (host or {})
    vendors = {str(a.get("vendor", "")).lower() for a in data.get("accelerators") or [] if isinstance(a, dict)}
    kinds = {"nvidia" if v == "nvidia" else "ascend" for v in vendors if v in ("nvidia", "huawei", "ascend")}
    measured = {
        device_kind(r.device or "")
        for x in suites
        for r in x.runs
        if r.status == "ok" and (r.images_per_second or 0) > 0 and r.quality != "unusable"
    }
    targets = {r.target for r in rs.values()}
    return [said("prep.host_unmeasured", kind=k) for k in sorted(kinds & targets - measured)]


def _scan(scan: Union[ScanResult, JsonDict, None]) -> Optional[ScanResult]:
    """The scan as its model (a saved scan's JSON is validated once, here)."""
    return ScanResult.model_validate(scan) if isinstance(scan, dict) else scan
