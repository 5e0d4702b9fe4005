"""The evidence vocabulary every judged number carries: where it came from (a probe run, a
knowledge-base entry, a requirements field), and the ranges numbers are given in."""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

Basis = Literal["measured", "reference", "peak", "none"]
BASIS_RANK = {"measured": 3, "reference": 2, "peak": 1, "none": 0}

# How far a piece of evidence can be trusted, best first (issue 20: measured > vendor > secondary >
# blog > assumption). A requirements field is the team's own statement of its situation: as good as
# a vendor figure for what it says. Used by the confidence of a verdict.
QUALITY_RANK = {
    "measured": 5.0,
    "vendor": 4.0,
    "requirement": 4.0,
    "secondary": 3.0,
    "derived": 2.5,
    "blog": 2.0,
    "assumption": 1.0,
}


class Evidence(BaseModel):
    """Where a number came from: a probe run, a knowledge-base entry, or a requirements field."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["measured", "knowledge", "requirement"]
    ref: str = Field(description="probe run id | knowledge-base entry id | requirements field path")
    detail: str
    value: Optional[Any] = None
    ci95: Optional[list[float]] = Field(None, description="measured: 95% confidence interval")
    spread: Optional[list[float]] = Field(
        None, description="measured by the scaling probe: [min, max] over its repetitions"
    )
    label: Optional[str] = Field(
        None, description="measured by the scaling probe: its label (device-scaling | cpu-contention)"
    )
    source: Optional[str] = Field(None, description="knowledge: where the entry comes from")
    confidence: Optional[str] = Field(None, description="knowledge: vendor|secondary|blog|derived|assumption")

    @property
    def quality(self) -> float:
        if self.kind == "measured":
            return QUALITY_RANK["measured"]
        if self.kind == "requirement":
            return QUALITY_RANK["requirement"]
        return QUALITY_RANK.get(str(self.confidence), QUALITY_RANK["assumption"])


# A result as the JSON it was read from (the report reads a probe's model or its JSON alike).
JsonDict = dict[str, object]


class Span(BaseModel):
    """A range [low, high] in a unit."""

    model_config = ConfigDict(extra="forbid")

    low: float
    high: float
    unit: str

    @property
    def mid(self) -> float:
        return (self.low + self.high) / 2


def dump(obj: Any) -> Any:
    return obj.model_dump(mode="json") if hasattr(obj, "model_dump") else obj


def kb_evidence(entry: Any, detail: str, value: Any = None) -> Evidence:
    return Evidence(
        kind="knowledge",
        ref=entry.id,
        detail=detail,
        value=value,
        source=getattr(entry, "source", None),
        confidence=getattr(entry, "confidence", None),
    )


def sourced_evidence(entry_id: str, sourced: Any, detail: str) -> Evidence:
    """Evidence for a Sourced/SourcedRange number inside an entry (the number's own source wins)."""
    value = getattr(sourced, "value", None)
    if value is None:
        value = [sourced.low, sourced.high]
    return Evidence(
        kind="knowledge", ref=entry_id, detail=detail, value=value, source=sourced.source, confidence=sourced.confidence
    )


def req_evidence(field: str, value: Any, detail: str) -> Evidence:
    return Evidence(kind="requirement", ref=field, value=value, detail=detail)


def pct(low: float, high: float) -> str:
    return f"{low:.0%}" if f"{low:.0%}" == f"{high:.0%}" else f"{low:.0%}-{high:.0%}"
