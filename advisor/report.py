"""The report envelope: one versioned document with the inputs, the scorecard and its provenance.

`build_report(requirements, measurements, *, kb=None, created_at=None)` scores and wraps (`measurements`: the
host, the scan and each probe kind's result with its provenance, advisor.measurements); it does no I/O of its
own, so the same inputs give the same report apart from `created_at`.
Renderers live in advisor.render; the JSON Schema is generated from `Report` (advisor.schemas).
"""

from __future__ import annotations

import datetime as _dt
import os
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, Literal, Optional, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from advisor import TOOL_NAME, __version__
from advisor.cache import CachedRun
from advisor.review.document import ReviewDocument
from advisor.review.document import build as build_document
from advisor.decision.accuracy import AccuracyEvidence, accuracy_evidence
from advisor.decision.transformer_evidence import NOT_MEASURED as GPT_NOT_MEASURED
from advisor.decision.transformer_evidence import TransformerEvidence, transformer_evidence
from advisor.decision.memory import MemoryFit
from advisor.decision.pipeline import PipelineEvidence, pipeline_evidence
from advisor.decision.communication import InterHostMeasurement, inter_host_measurements
from advisor.decision.projections import (
    Projection,
    ScalingMeasurement,
    device_kind,
    scaling_host,
    scaling_measurements,
)
from advisor.requirements import Requirements
from advisor.decision.schedule import Schedule
from advisor.decision.findings import said
from advisor.decision.scorecard import (
    ConstantSensitivity,
    MandateReading,
    PitfallItem,
    Recommendation,
    Scorecard,
    SensitivityItem,
    Weight,
    WorkflowScore,
)
from advisor.decision.prepare import prepare_inputs, read_inputs
from advisor.decision.scoring import score_context
from advisor.decision.tco import TotalCost
from advisor.measurements import Measured, Measurements
from advisor.scan.models import ScanResult
from probes.scaling.models import ScalingResult
from probes.training.models import ParityResult, ProbeSuite

if TYPE_CHECKING:
    from knowledge.models import KnowledgeBase

# Bump the minor number for added fields, the major one for renamed/removed ones.
SCHEMA_VERSION = "1.7"  # 1.7: results (a measured kind no part of the report judges), mandate_readings, mandate_flip, WorkflowScore.route
# 1.6: scan, probes.parity and probes.gemm_peak typed: same data, a stricter schema
# 1.5: Projection.serving, requirements model.architecture, transformer; 1.4: document (the judged review document), cached_runs; 1.1: scaling, Projection.communication, Evidence.spread/label
# 1.2: memory, costs (TCO parts), schedules, constant_sensitivity, hardware_basis, recommendation.confidence_parts,
#      Projection.memory/warnings, Communication.curve/interconnect, RunSummary.quality/quality_reasons
# 1.3: accuracy, pipeline, Projection.input_pipeline, CostPart.items, ScalingInfo.inter_host,
#      Communication.inter_host


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolInfo(_Out):
    name: str = TOOL_NAME
    version: str = __version__


class KnowledgeBaseInfo(_Out):
    version: Optional[str] = Field(None, description="content hash of the knowledge base used; null when none loaded")
    sources: list[str] = Field(default_factory=list)


class RunSummary(_Out):
    """One probe run, flattened for the comparison table."""

    id: str
    framework: str
    mode: Optional[str] = None
    model: Optional[str] = None
    batch_size: Optional[int] = None
    device: Optional[str] = None
    hardware: str = Field(description="nvidia | ascend | cpu")
    status: str
    error: Optional[str] = None
    images_per_second: Optional[float] = None
    ci95: Optional[list[float]] = None
    step_ms_median: Optional[float] = None
    step_cv: Optional[float] = None
    first_step_seconds: Optional[float] = None
    compile_seconds: Optional[float] = None
    peak_memory_mb: Optional[float] = None
    mfu: Optional[float] = None
    loss_first: Optional[float] = None
    loss_last: Optional[float] = None
    host: Optional[str] = None
    warnings: list[str] = Field(default_factory=list)
    quality: Optional[str] = Field(
        None, description="stable | noisy | unusable (an unusable run never enters the scores)"
    )
    quality_reasons: list[str] = Field(default_factory=list)


class GemmPeak(_Out):
    """One framework's on-host fp32 matmul peak, from one training suite (ProbeSuite.gemm_peak)."""

    framework: str
    gflops: float = Field(description="GFLOP/s")
    host: Optional[str] = Field(None, description="the suite's host (hostname or CPU model)")


class ProbesInfo(_Out):
    source: Literal["none", "cache", "files", "run"] = "none"
    files: list[str] = Field(default_factory=list)
    runs: list[RunSummary] = Field(default_factory=list)
    parity: list[ParityResult] = Field(default_factory=list, description="each suite's cross-framework parity")
    gemm_peak: list[GemmPeak] = Field(
        default_factory=list, description="each suite's GEMM peak, framework by framework"
    )
    note: Optional[str] = None
    # the note's reason alone, where it has one ("probes ran on cpu, the training target is nvidia"): the
    # review's first page says why the runs are not scored in a clause; not in the JSON, which has the note
    reason: Optional[str] = Field(None, exclude=True)


class ScalingInfo(_Out):
    """The scaling probe result the report consulted (`advisor probe --scaling`)."""

    source: Literal["none", "cache", "file"] = "none"
    file: Optional[str] = None
    created: Optional[str] = None
    label: Optional[str] = Field(None, description="device-scaling | cpu-contention")
    label_text: Optional[str] = None
    host: Optional[str] = None
    used: bool = Field(
        False,
        description="the requirements ask for distributed training and the result has a multi-rank figure, so "
        "projections consult it",
    )
    measurements: list[ScalingMeasurement] = Field(
        default_factory=list, description="each framework at its largest rank count"
    )
    failed: list[str] = Field(default_factory=list, description="frameworks the probe could not measure, with why")
    inter_host: list[InterHostMeasurement] = Field(
        default_factory=list, description="a multi-node result: the same ranks across hosts vs on one host"
    )
    warnings: list[str] = Field(default_factory=list)
    note: Optional[str] = None


class MeasuredResult(_Out):
    """A measured probe kind that no part of the report judges (a kind registered in probes.base.KINDS
    after the decision model was written): its result as read, and where it came from."""

    kind: str = Field(description="the registry's name of the kind (advisor report --<kind> FILE)")
    title: str = Field(description="the kind's title, e.g. 'Transformer probe'")
    source: Literal["run", "cache", "file"]
    files: list[str] = Field(default_factory=list)
    result: Any = Field(description="the kind's Result, as JSON")


class Report(_Out):
    """`advisor report` output (JSON). `created_at` is the only field that changes between identical runs."""

    schema_version: str = SCHEMA_VERSION
    tool: ToolInfo = Field(default_factory=ToolInfo)
    created_at: str
    knowledge_base: KnowledgeBaseInfo
    requirements: Requirements
    # A mapping, not a CheckReport: the host check with its volatile fields (created_at, seconds, load,
    # free memory) stripped by stable_host, so the same inputs give the same report; the model requires them.
    host: Optional[dict[str, Any]] = Field(
        None, description="host check (advisor check) of the machine the report ran on"
    )
    probes: ProbesInfo
    scaling: ScalingInfo = Field(
        default_factory=ScalingInfo,
        description="data-parallel scaling probe result consulted for multi-device communication",
    )
    scan: Optional[ScanResult] = Field(None, description="migration scan of model.code_path, when given")
    transformer: TransformerEvidence = Field(
        default_factory=lambda: TransformerEvidence(note=GPT_NOT_MEASURED),
        description="the transformer probe (--gpt FILE): tokens/s measured here, parity, the dynamic-shape cost",
    )
    accuracy: AccuracyEvidence = Field(
        default_factory=lambda: accuracy_evidence(None),
        description="the accuracy probe (--accuracy FILE): cross-framework accuracy parity, for migration risk",
    )
    pipeline: PipelineEvidence = Field(
        default_factory=lambda: pipeline_evidence(None),
        description="the input-pipeline probe (--pipeline FILE): evidence for performance (caps the projections)",
    )
    recommendation: Recommendation
    scores: list[WorkflowScore]
    weights: list[Weight]
    comparison_basis: str
    projections: list[Projection]
    pitfalls: list[PitfallItem]
    sensitivity: list[SensitivityItem]
    constant_sensitivity: list[ConstantSensitivity] = Field(
        default_factory=list, description="each named constant: the value that flips the verdict"
    )
    memory: list[MemoryFit] = Field(default_factory=list, description="memory fit of each workflow's training target")
    costs: list[TotalCost] = Field(
        default_factory=list, description="total cost of ownership per workflow, part by part"
    )
    schedules: list[Schedule] = Field(
        default_factory=list, description="migration schedule per workflow against the deadline"
    )
    hardware_basis: Optional[str] = Field(
        None, description="the hardware each workflow is compared on (undecided target)"
    )
    mandate_readings: list[MandateReading] = Field(
        default_factory=list,
        description="the verdict under each reading of needs.domestic_substitution (hardware only; hardware and "
        "framework), when the file states it without domestic_hardware / domestic_framework",
    )
    mandate_flip: Optional[str] = Field(
        None, description="set when the verdict depends on how the mandate is read: what the other reading gives"
    )
    assumptions: list[str]
    cached_runs: list[CachedRun] = Field(
        default_factory=list, description="cached runs this report used: id, date, host fingerprint, command"
    )
    results: list[MeasuredResult] = Field(
        default_factory=list,
        description="every measured probe kind the decision model does not read, with its result as read",
    )
    document: Optional[ReviewDocument] = Field(
        None, description="the judged review document (first page, register, stack, sign-off); renderers only format it"
    )


def source_date() -> Optional[str]:
    """`SOURCE_DATE_EPOCH` (the reproducible-builds convention: seconds since 1970, digits only) as the
    report's UTC timestamp, so the same inputs give a byte-identical document (`make run` sets it)."""
    text = os.environ.get("SOURCE_DATE_EPOCH", "")
    if not text.isdigit() or len(text) > 12:
        return None
    when = _dt.datetime.fromtimestamp(int(text), _dt.timezone.utc)
    return when.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _dump(obj: Any) -> Any:
    return obj.model_dump(mode="json") if hasattr(obj, "model_dump") else obj


# Host-check fields that change from one run to the next on the same machine: left out of the report
# so that the same inputs give the same document (apart from created_at).
_VOLATILE = {
    "created_at",
    "seconds",
    "available_mb",
    "free_mb",
    "memory_usage_mb",
    "memory_used_mb",
    "frequency_mhz",
    "utilization_percent",
    "utilization_gpu",
    "temperature_c",
    "power_w",
    "power_draw_w",
    "import_seconds",
    "loadavg",
}


def stable_host(host: Any) -> Any:
    data = _dump(host)
    if isinstance(data, dict):
        return {k: stable_host(v) for k, v in data.items() if k not in _VOLATILE}
    if isinstance(data, list):
        return [stable_host(v) for v in data]
    return data


def summarise_runs(suites: Sequence[ProbeSuite]) -> tuple[list[RunSummary], list[ParityResult], list[GemmPeak]]:
    runs: list[RunSummary] = []
    parity: list[ParityResult] = []
    gemm: list[GemmPeak] = []
    for suite in suites:
        # an older suite file may name its host (kept as an extra field); the probe records the CPU model
        label = getattr(suite.host, "hostname", None) or suite.host.cpu_model or getattr(suite.host, "name", None)
        for r in suite.runs:
            step = r.step_time_ms
            runs.append(
                RunSummary(
                    id=r.id,
                    framework=r.framework,
                    mode=r.mode,
                    model=r.model,
                    batch_size=r.batch_size,
                    device=r.device,
                    hardware=device_kind(r.device or ""),
                    status=r.status,
                    error=r.error,
                    images_per_second=r.images_per_second,
                    ci95=r.ci95,
                    step_ms_median=step.median if step else None,
                    step_cv=step.cv if step else None,
                    first_step_seconds=r.first_step_seconds,
                    compile_seconds=r.compile_seconds,
                    peak_memory_mb=r.peak_memory_mb,
                    mfu=r.mfu,
                    loss_first=r.loss_first,
                    loss_last=r.loss_last,
                    host=label,
                    warnings=list(r.warnings),
                    quality=r.quality,
                    quality_reasons=list(r.quality_reasons),
                )
            )
        parity.extend(suite.parity)
        gemm.extend(GemmPeak(framework=k, gflops=v, host=label) for k, v in sorted(suite.gemm_peak.items()))
    return runs, parity, gemm


def _probe_note(runs: list[RunSummary], req: Requirements, card: Scorecard) -> dict[str, Optional[str]]:
    """The probes' note ({"note": ...}) and, where the runs do not count for a reason of their own, that reason
    alone ({"reason": ...}); {} when the runs count."""
    if not runs:
        return {"note": said("report.probes.none")}
    kinds = sorted({r.hardware for r in runs if r.status == "ok"})
    targets = sorted({p.target for p in card.projections})
    if not kinds:
        return {"note": said("report.probes.none_succeeded", statuses=sorted(Counter(r.status for r in runs).items()))}
    if not set(kinds) & set(targets):
        reason = said("report.probes.other_hardware.reason", hardware=kinds, targets=targets)
        return {"note": said("report.probes.other_hardware", reason=reason), "reason": reason}
    model = req.workload.model if req.workload else None
    if model and not any(r.model == model and r.status == "ok" for r in runs):
        if model == "custom":
            return {"note": said("report.probes.custom_model")}
        reason = said("report.probes.other_model.reason", model=model)
        return {"note": said("report.probes.other_model", reason=reason, model=model), "reason": reason}
    return {}


def scaling_info(scaling: Optional[Measured], req: Requirements) -> ScalingInfo:
    distributed = req.needs.distributed_training
    if scaling is None:
        return ScalingInfo(note=said("report.scaling.none") if distributed else None)
    result: ScalingResult = scaling.result  # type: ignore[assignment]  # typed by Measurements
    failed = [
        said("report.scaling.failed", framework=f.framework, model=f.model, status=f.status, reason=f.reason)
        for f in result.frameworks
        if f.status not in ("ok", "partial")
    ]
    measurements = scaling_measurements(result)
    if not distributed:
        note = said("report.scaling.not_used")
    elif not measurements and not failed:
        note = said("report.scaling.one_rank")
    elif result.label == "cpu-contention":
        note = said("report.scaling.cpu_contention")
    else:
        note = None
    return ScalingInfo(
        source="cache" if scaling.source == "cache" else "file",
        file=scaling.file,
        created=result.created,
        label=result.label,
        label_text=result.label_text,
        host=scaling_host(result),
        used=distributed and bool(measurements),
        measurements=measurements,
        failed=failed,
        inter_host=inter_host_measurements(result),
        warnings=list(result.warnings),
        note=note,
    )


# ProbesInfo.source of the training suites by where they came from
_PROBE_SOURCE: dict[str, Literal["run", "cache", "files"]] = {"run": "run", "cache": "cache", "file": "files"}


def build_report(
    requirements: Requirements,
    measurements: Measurements,
    *,
    kb: Optional[KnowledgeBase] = None,
    created_at: Optional[str] = None,
) -> Report:
    """Score and wrap. `measurements`: the host, the scan and each probe kind's result with where it came
    from (advisor.measurements); `kb`: the knowledge base (None: knowledge-based criteria neutral);
    `created_at`: the timestamp (now, when None)."""
    m = _Reading(measurements)  # notes which kinds the decision model reads; the rest go to `results`
    training, scaling = m.get("training"), m.get("scaling")
    suites = list(m.suites)
    if kb is not None:  # the datasheet peak is judging: attached here, never by the probe
        from advisor.decision import vendor_peak

        suites = [vendor_peak.attach(s, kb) for s in suites]
    # the measured kinds judged (None when not measured); the report shows the "not measured" evidence
    acc = _judged(m.get("accuracy"), accuracy_evidence)
    pipe = _judged(m.get("pipeline"), pipeline_evidence)
    tev = _judged(m.get("gpt"), lambda r, f: transformer_evidence(r, requirements, f))
    measured = dict(
        scaling=scaling.result if scaling else None,
        scaling_here=scaling is not None and scaling.source == "cache",
        deploy=m.result("deploy"),
        accuracy=acc,
        pipeline=pipe,
        transformer=tev,
    )
    inputs = read_inputs(requirements, m.host, suites, m.scan, **measured)
    prepared, assumptions = prepare_inputs(inputs, kb)
    card = score_context(prepared, assumptions)  # the one scoring of this report; the review reuses `prepared`
    runs, parity, gemm = summarise_runs(suites)
    stamp = (
        created_at
        or source_date()
        or _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    )
    report = Report(
        created_at=stamp,
        knowledge_base=KnowledgeBaseInfo(
            version=getattr(kb, "version", None), sources=list(getattr(kb, "sources", []) or [])
        ),
        requirements=requirements,
        host=stable_host(m.host),
        probes=ProbesInfo(
            source=_PROBE_SOURCE[training.source] if training else "none",
            files=list(training.files) if training else [],
            runs=runs,
            parity=parity,
            gemm_peak=gemm,
            **_probe_note(runs, requirements, card),
        ),
        scaling=scaling_info(scaling, requirements),
        scan=m.scan,
        accuracy=acc if acc is not None else accuracy_evidence(None),
        transformer=tev if tev is not None else transformer_evidence(None, requirements),
        pipeline=pipe if pipe is not None else pipeline_evidence(None),
        recommendation=card.recommendation,
        scores=card.scores,
        weights=card.weights,
        comparison_basis=card.comparison_basis,
        projections=card.projections,
        pitfalls=card.pitfalls,
        sensitivity=card.sensitivity,
        constant_sensitivity=card.constant_sensitivity,
        memory=card.memory,
        costs=card.costs,
        schedules=card.schedules,
        hardware_basis=card.hardware_basis,
        mandate_readings=card.mandate_readings,
        mandate_flip=card.mandate_flip,
        assumptions=card.assumptions,
        cached_runs=list(m.cached_runs),
        results=m.unread(),
    )
    # judged once; every renderer only formats it
    report.document = build_document(report, kb, inputs=dict(prepared=prepared))
    return report


class _Reading:
    """The report's Measurements, noting each probe kind build_report reads: a kind it never reads (one
    registered after the decision model was written) still reaches the report, in `results`."""

    def __init__(self, measurements: Measurements) -> None:
        self._m = measurements
        self._read: set[str] = set()
        self.host, self.scan, self.cached_runs = measurements.host, measurements.scan, measurements.cached_runs

    def get(self, kind: str) -> Optional[Measured]:
        self._read.add(kind)
        return self._m.get(kind)

    def result(self, kind: str) -> Optional[BaseModel]:
        self._read.add(kind)
        return self._m.result(kind)

    @property
    def suites(self) -> tuple[ProbeSuite, ...]:
        self._read.add("training")
        return self._m.suites

    def unread(self) -> list[MeasuredResult]:
        from probes.base import KINDS

        return [
            MeasuredResult(
                kind=kind,
                title=KINDS[kind].label,
                source=got.source,
                files=list(got.files),
                result=[_dump(r) for r in got.result] if isinstance(got.result, tuple) else _dump(got.result),
            )
            for kind, got in self._m.probes.items()
            if kind not in self._read
        ]


Judged = TypeVar("Judged")


def _judged(measured: Optional[Measured], judge: Callable[[Any, Optional[str]], Judged]) -> Optional[Judged]:
    """A measured kind's evidence (its result judged, with the file it came from), None when not measured."""
    return judge(measured.result, measured.file) if measured else None
