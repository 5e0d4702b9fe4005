"""Deployment evidence from a deployment-probe result: per (framework, target), whether the export
works, how fast the artefact serves next to the source framework, and whether its outputs agree.

A pure function of the result (a DeployResult, or its JSON validated once); the scoring model decides how much
the deployment criterion weighs. Targets the probe could not measure here (an engine not installed)
come back with score None and measured False, so the caller falls back to the knowledge base and
says so.

    paths = deployment_evidence(json.load(open("deploy.json")))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Union

from advisor.decision.constants import CONSTANTS, DEFAULT, Consts
from advisor.decision.findings import said
from advisor.decision.probe_fields import latency, placement

if TYPE_CHECKING:  # the probe's models load when a deployment result is judged, not with every report
    from probes.deploy.models import DeployResult, ServeStep

# The deployment paths the seeds compare ("MindSpore vs PyTorch, measured on the same task",
# 模型部署对比; "Ascend 910 and MindSpore in practice", §5.7 and §6.2): target -> (export format,
# serving engine id prefix).
TARGETS: dict[str, dict[str, tuple[str, str]]] = {
    "pytorch": {"onnxruntime": ("onnx", "onnxruntime-cpu"), "torch.export": ("torch.export", "torch.export")},
    "mindspore": {
        "mindir": ("mindir", "mindspore-graphcell"),
        "onnxruntime": ("onnx", "onnxruntime-cpu"),
        "mindspore-lite": ("mindir", "mindspore-lite"),
    },
}
SOURCE_ENGINE = {"pytorch": "torch-eager", "mindspore": "mindspore-graph"}

# Points (0-100) of one model's deployment path: named constants, read through Consts (their sources and
# the ranges the sensitivity search moves them in are in advisor.decision.constants). Whole points.
EXPORT_OK_POINTS = CONSTANTS["EXPORT_OK_POINTS"].value
PARITY_FAIL_CAP = CONSTANTS["PARITY_FAIL_CAP"].value
SERVE_FAIL_CAP = CONSTANTS["SERVE_FAIL_CAP"].value


@dataclass(frozen=True)
class DeployPath:
    """One framework's path to one deployment target, as the deployment probe measured it."""

    framework: str
    target: str
    score: Optional[int]
    """0-100, the weakest of the team's models; None when the probe could not measure the path here"""
    measured: bool
    evidence: list[str]
    note: str
    models: dict[str, Optional[int]]
    """each model's own score (None: not measured)"""


def _as_result(result: Union[DeployResult, dict, None]) -> DeployResult:
    from probes.deploy.models import DeployResult

    """The probe's result as its model (its JSON validated once, here)."""
    if isinstance(result, DeployResult):
        return result
    return DeployResult.model_validate(result or {})


def _model_score(
    fw: str, target: str, model: str, doc: DeployResult, export_points: float, k: Consts
) -> tuple[Optional[int], list[str]]:
    """(score or None when unmeasured, evidence lines) of one model on one target."""
    export_points = round(export_points)  # whole points, as the rest of the path's
    serves_points, parity_points, latency_points = (
        round(k[n]) for n in ("SERVES_POINTS", "PARITY_POINTS", "LATENCY_POINTS")
    )
    fmt, engine = TARGETS[fw][target]
    ev: list[str] = []
    export = next((e for e in doc.exports if (e.framework, e.format, e.model) == (fw, fmt, model)), None)
    if export is None:
        return None, [said("deploy.export.not_run", model=model, framework=fw, format=fmt)]
    if export.status != "ok":
        if export.status == "failed":
            failed = said("deploy.export.failed", model=model, format=fmt, operator=export.operator, error=export.error)
            return 0, [failed]
        return None, [said("deploy.export.status", model=model, format=fmt, status=export.status, error=export.error)]
    ev.append(
        said(
            "deploy.export.works",
            model=model,
            format=fmt,
            exporter=export.exporter,
            seconds=export.seconds or 0,
            megabytes=export.size_bytes / 1e6 if export.size_bytes else None,
            opset=export.opset,
            dynamic_batch=export.dynamic_batch,
        )
    )
    serves = [s for s in doc.serves if s.framework == fw and s.model == model]
    serve = next((s for s in serves if s.artefact == fmt and s.engine == engine), None)
    if serve is None or serve.status == "unavailable":
        ev.append(
            said(
                "deploy.serve.not_served",
                model=model,
                engine=engine,
                ran=serve is not None,
                error=serve and serve.error,
            )
        )
        return (export_points if target != "mindspore-lite" else None), ev
    if serve.status != "ok":
        ev.append(said("deploy.serve.status", model=model, engine=engine, status=serve.status, error=serve.error))
        return min(round(k["SERVE_FAIL_CAP"]), export_points), ev
    score = export_points + serves_points
    source = next((s for s in serves if s.artefact == "source" and s.status == "ok"), None)
    p50 = _p50(serve)
    base = _p50(source) if source else None
    if p50 and base:
        ratio = base / p50
        score += round(latency_points * min(1.0, ratio))
        ev.append(
            said(
                "deploy.serve.latency",
                model=model,
                p50=p50,
                batch=serve.timings[0].batch_size,
                engine=engine,
                base=base,
                source=SOURCE_ENGINE[fw],
                ratio=ratio,
            )
        )
    elif p50:
        ev.append(said("deploy.serve.latency_alone", model=model, p50=p50, engine=engine))
    par = next((p for p in doc.parity if p.kind == "export" and p.b == serve.id), None)
    if par is None or par.status == "skipped":
        ev.append(
            said(
                "deploy.parity.unchecked",
                model=model,
                source=SOURCE_ENGINE[fw],
                skipped=par is not None,
                error=par and par.error,
            )
        )
    elif par.ok:
        score += parity_points
        ev.append(
            said(
                "deploy.parity.agree",
                model=model,
                source=SOURCE_ENGINE[fw],
                max_abs_diff=par.max_abs_diff,
                tolerance=par.tolerance,
            )
        )
    else:
        score = min(score, round(k["PARITY_FAIL_CAP"]))
        ev.append(said("deploy.parity.disagree", model=model, source=SOURCE_ENGINE[fw], error=par.error))
    where = placement(serve.placement)  # the per-node placement as ONNX Runtime reports it
    if where.fallback:
        score -= round(k["FALLBACK_PENALTY"])
        ev.append(
            said(
                "deploy.serve.fallback",
                model=model,
                fallback=len(where.fallback),
                nodes=where.nodes,
                chosen=where.chosen,
                ops=where.fallback_ops,
            )
        )
    return max(0, min(100, score)), ev


def _p50(serve: ServeStep) -> Optional[float]:
    """The serve step's median latency at its smallest batch (the probe keeps the percentiles as a mapping)."""
    return latency(serve.latency_ms).p50


def deployment_evidence(
    result: Union[DeployResult, dict, None], export_points: float = EXPORT_OK_POINTS, k: Consts = DEFAULT
) -> list[DeployPath]:
    """Every (framework, target) path the probe's frameworks have, scored from its measurements."""
    doc = _as_result(result)
    frameworks = (doc.config.frameworks if doc.config else None) or list(TARGETS)
    models = (doc.config.models if doc.config else None) or sorted({e.model for e in doc.exports})
    rows = []
    for fw in frameworks:
        for target in TARGETS.get(fw, {}):
            per: dict[str, Optional[int]] = {}
            evidence: list[str] = []
            for model in models:
                per[model], ev = _model_score(fw, target, model, doc, export_points, k)
                evidence += ev
            scored = [s for s in per.values() if s is not None]
            measured = bool(scored)
            # The weakest model decides: a path that fails one of the team's models is not a path for it.
            score = min(scored) if scored else None
            if not measured:
                reason = next((n for n in doc.not_measured if target.replace("-", " ").lower() in n.lower()), None)
                note = said("deploy.note.not_measured", reason=reason)
            else:
                fmt, engine = TARGETS[fw][target]
                note = said(
                    "deploy.note.measured",
                    framework=fw,
                    format=fmt,
                    engine=engine,
                    models=len(scored),
                    export=export_points,
                    serves=k["SERVES_POINTS"],
                    parity=k["PARITY_POINTS"],
                    latency=k["LATENCY_POINTS"],
                )
            rows.append(DeployPath(fw, target, score, measured, evidence, note, per))
    return rows
