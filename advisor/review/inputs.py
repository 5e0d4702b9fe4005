"""What the review layer reads of a built report, as a Protocol: the decision model's scorecard parts and
the envelope's few fields. The review modules annotate with it instead of importing advisor.report (which
imports them to attach the document), so no import circle runs through the review layer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Protocol

if TYPE_CHECKING:
    from advisor.decision.memory import MemoryFit
    from advisor.decision.projections import Projection
    from advisor.decision.schedule import Schedule
    from advisor.decision.scorecard import MandateReading, PitfallItem, Recommendation, WorkflowScore
    from advisor.decision.tco import TotalCost
    from advisor.requirements import Requirements


class ReportView(Protocol):
    """A built report as the review document reads it (advisor.report.Report has every field)."""

    schema_version: str
    created_at: str
    tool: Any  # name, version
    knowledge_base: Any  # version, sources
    requirements: Requirements
    host: Optional[dict[str, Any]]
    probes: Any  # the probe runs read (runs, parity, note)
    scaling: Any
    scan: Any
    transformer: Any
    accuracy: Any
    pipeline: Any
    recommendation: Recommendation
    scores: list[WorkflowScore]
    comparison_basis: str
    projections: list[Projection]
    pitfalls: list[PitfallItem]
    memory: list[MemoryFit]
    costs: list[TotalCost]
    schedules: list[Schedule]
    mandate_readings: list[MandateReading]
    mandate_flip: Optional[str]
    document: Any  # the ReviewDocument attached, when the report carries one

    def model_dump(self, *args: Any, **kwargs: Any) -> dict[str, Any]: ...
