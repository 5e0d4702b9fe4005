"""The evidence vocabulary every judged number carries: where it came from (a probe run, a
knowledge-base entry, a requirements field), and the ranges numbers are given in."""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.numbers import pct  # noqa: F401  (its home is advisor.numbers; the decision model reads it here)

Basis = Literal["measured", "reference", "peak", "none"]
BASIS_RANK = {"measured": 3, "reference": 2, "peak": 1, "none": 0}

# The one evidence scale (1-5), strongest first: the confidence rule and the first page both grade on
# it. A score the model's own rule derives from a requirements field is not sourced data: it ranks
# below every sourced class (vendor, derived, secondary, blog) and just above a bare assumption.
QUALITY_RANK = {
    "measured": 5.0,
    "vendor": 4.0,
    "derived": 3.5,
    "secondary": 3.0,
    "blog": 2.0,
    "requirement": 1.5,
    "assumption": 1.0,
}
EVIDENCE_GRADE = QUALITY_RANK  # the name the review layer reads it by


def evidence_class(ev: "Evidence") -> str:
    """The class of one piece of evidence on the one scale."""
    if ev.kind in ("measured", "requirement"):
        return ev.kind
    cls = str(ev.confidence or "assumption")
    return cls if cls in QUALITY_RANK else "assumption"


# What sort of figure a knowledge-base number is, said where the evidence is made: the data-quality
# caveats tell how to firm up a weak one by it (advisor.render.summary). None: another sort.
Figure = Literal["price", "peak", "power", "throughput", "derating", "effort", "rating"]


def grade_label(score: float, good: float, fair: float) -> str:
    return "good" if score >= good else ("fair" if score >= fair else "weak")


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
    # travels in the JSON: a saved report re-renders its data-quality caveats from it
    figure: Optional[Figure] = Field(None, description="knowledge: what sort of figure it is")

    @property
    def quality(self) -> float:
        return QUALITY_RANK[evidence_class(self)]


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


def kb_evidence(entry: Any, detail: str, value: Any = None, figure: Optional[Figure] = None) -> Evidence:
    return Evidence(
        kind="knowledge",
        ref=entry.id,
        detail=detail,
        value=value,
        source=getattr(entry, "source", None),
        confidence=getattr(entry, "confidence", None),
        figure=figure,
    )


def sourced_evidence(entry_id: str, sourced: Any, detail: str, figure: Optional[Figure] = None) -> Evidence:
    """Evidence for a Sourced/SourcedRange number inside an entry (the number's own source wins)."""
    value = getattr(sourced, "value", None)
    if value is None:
        value = [sourced.low, sourced.high]
    return Evidence(
        kind="knowledge",
        ref=entry_id,
        detail=detail,
        value=value,
        source=sourced.source,
        confidence=sourced.confidence,
        figure=figure,
    )


def req_evidence(field: str, value: Any, detail: str) -> Evidence:
    return Evidence(kind="requirement", ref=field, value=value, detail=detail)
