"""The data-quality caveats (figures resting on a blog or an assumption that separate the top two
workflows), and the workflow `label` every renderer shares. The first page itself is
judged in advisor.review.document; this module only lists what the report already carries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from advisor.review.document import cite
from advisor.render._fmt import LABELS

if TYPE_CHECKING:
    from advisor.report import Report
    from advisor.decision.evidence import Evidence
    from advisor.decision.scorecard import WorkflowScore


# Evidence classes from strongest to weakest (measured > vendor > secondary > blog > assumption).
QUALITY = ("measured", "vendor", "derived", "secondary", "blog", "assumption")
WEAK = ("blog", "assumption")


def label(workflow: object) -> str:
    return LABELS.get(str(workflow), str(workflow))


def evidence_class(ev: Evidence) -> str:
    if ev.kind == "measured":
        return "measured"
    if ev.kind == "requirement":
        return "requirement"
    return ev.confidence or "assumption"


def _scores(report: Report) -> dict[str, WorkflowScore]:
    return {s.workflow: s for s in report.scores}


# --- data-quality caveats -----------------------------------------------------------------------


@dataclass
class Caveat:
    ref: str
    what: str
    confidence: str
    where: str
    firm_up: str
    source: str
    kind: str = "other"
    """what sort of figure it is (a key of _KINDS), from its evidence's own field"""


_KINDS = {
    "price": "a dated quote (cloud price list or amortised purchase) written as a knowledge-base override (--kb DIR)",
    "peak": "the vendor datasheet figure, or a measured GEMM peak on the target (`advisor probe` there, then --probes FILE)",
    "power": "the vendor's board power, or npu-smi / nvidia-smi power readings under load",
    "throughput": "a probe run of the workload on the target (`advisor probe --json -o FILE` there, then --probes FILE)",
    "derating": "a measured run on the target (training probe; `advisor probe --scaling` for multi-device)",
    "effort": "`advisor scan` of the model code (model.code_path) and a timed pilot port of one module",
    "rating": "the team's own trial on its model (a week's spike) or a dated count of hub models / packages",
    "other": "a vendor source or a measurement in place of the blog / assumed figure",
}


def figure_kind(ev: Evidence) -> str:
    """What sort of figure an evidence item is: the field the decision model set where it made the
    evidence (advisor.decision.evidence.Figure), "other" where it set none."""
    return ev.figure or "other"


def firm_up(ev: Evidence) -> str:
    """What it would take to replace a weak figure with a strong one."""
    return _KINDS[figure_kind(ev)]


def _moving(report: Report, top: WorkflowScore, other: WorkflowScore) -> list[str]:
    """Criteria whose weighted difference between the top two is large enough to matter: at least
    a fifth of the margin (and half a point)."""
    margin = abs(report.recommendation.margin)
    out = []
    for c, o in zip(top.criteria, other.criteria):
        points = abs(c.score - o.score) * c.weight
        if points >= max(0.5, 0.2 * margin):
            out.append(c.name)
    return out


def caveats(report: Report) -> list[Caveat]:
    """Every blog or assumption figure behind a criterion that separates the top two by a fifth of the
    margin or more, or behind the projections they are compared on: the figures that move the verdict.
    Many small figures of one sort (pitfall fix times, ecosystem ratings) are one row."""
    rec = report.recommendation
    scores = _scores(report)
    top, other = scores.get(rec.workflow), scores.get(rec.runner_up or "")
    if top is None:
        return []
    moving = _moving(report, top, other) if other is not None else [c.name for c in top.criteria]
    found: dict[str, Caveat] = {}

    def add(ev: Evidence, where: str) -> None:
        cls = evidence_class(ev)
        if ev.kind != "knowledge" or cls not in WEAK:
            return
        ref = ev.ref
        if ref in found:
            if where not in found[ref].where:
                found[ref].where += f", {where}"
            return
        found[ref] = Caveat(ref, ev.detail, cls, where, firm_up(ev), cite(ev.source, ref), figure_kind(ev))

    pair = [s for s in (top, other) if s is not None]
    for s in pair:
        for c in s.criteria:
            if c.name in moving:
                for ev in c.evidence:
                    add(ev, c.name)
    names = {s.workflow for s in pair}
    for p in report.projections:
        if p.workflow in names:
            for ev in p.evidence + p.cost_evidence:
                add(ev, "projections")
    groups: dict[tuple[str, str], list[Caveat]] = {}
    for c in found.values():
        key = (c.kind, c.where) if c.kind in ("effort", "rating") else (c.ref, "")
        groups.setdefault(key, []).append(c)
    out = []
    for (kind, where), items in groups.items():
        if len(items) == 1:
            out.append(items[0])
            continue
        what = {"effort": "pitfall fix-time ranges", "rating": "ecosystem ratings"}[kind]
        worst = "assumption" if any(i.confidence == "assumption" for i in items) else "blog"
        out.append(
            Caveat(
                ", ".join(i.ref for i in items),
                f"{len(items)} {what}: " + ", ".join(i.ref for i in items),
                worst,
                where,
                _KINDS[kind],
                "each: `advisor kb show ID` (the field report and section are in the entry)",
                kind,
            )
        )
    order = {c: i for i, c in enumerate(WEAK[::-1])}  # assumption first
    return sorted(out, key=lambda c: (order.get(c.confidence, 9), c.ref))
