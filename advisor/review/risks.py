"""The risk register: the knowledge-base pitfalls that apply to the recommended workflow, ranked by
exposure = likelihood for THIS project x expected fix hours, each with an owner, the rehearsal
milestone that retires it and a mitigation; the migration scan's hazards join when model.code_path
was scanned. Low-exposure pitfalls are folded under "also known".

Likelihoods are judgements (`assumption`), each stated with why, from the project's model size and
scale, stage, code features and deployment target; a scan hit (the hazard found in the code) is
near-certain. Pure: reads the report document only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from advisor.decision.findings import said
from advisor.decision.likelihood import MEASURED_CLEAR, MEASURED_HIT, SCAN_HIT, UNCONDITIONAL, Project, project_of

if TYPE_CHECKING:  # the register reads a built report
    from advisor.decision.scorecard import PitfallItem
    from advisor.review.inputs import ReportView

# An exposure below this many expected hours goes under "also known" (assumption: half a working day
# is below what an architect tracks as a risk); at most REGISTER_MAX rows in the register.
REGISTER_MIN_HOURS = 2.0
REGISTER_MAX = 10

# Who retires a risk and at which rehearsal stage are the pitfall's own data (pitfalls.yaml `owner`,
# `milestone`); a pitfall without them, or a scan hazard the knowledge base does not know, falls to the
# catalogue's default owner (risks.default_owner) and this stage.
DEFAULT_MILESTONE = "single card"


@dataclass
class Risk:
    id: str
    title: str
    likelihood: float
    why: str
    hours: tuple[float, float]
    owner: str
    milestone: str
    mitigation: str
    source: str = ""
    kb_id: str | None = None
    scan: str = ""

    @property
    def expected(self) -> float:
        return (self.hours[0] + self.hours[1]) / 2

    @property
    def exposure(self) -> float:
        return self.likelihood * self.expected


@dataclass
class Register:
    workflow: str
    risks: list[Risk] = field(default_factory=list)
    also_known: list[Risk] = field(default_factory=list)


def project(report: ReportView, workflow: Optional[str] = None) -> Project:
    """The project as the decision model judged it for the recommended (or given) workflow: the
    requirements and that workflow's memory fit (`Projection.memory`), so a model that must be split is
    judged as one."""
    wf = workflow or report.recommendation.workflow
    fit = next((p.memory for p in report.projections if p.workflow == wf and p.memory is not None), None)
    if fit is None:
        fit = next((m for m in report.memory), None)
    return project_of(report.requirements, fit)


def min_slice(report: ReportView) -> int:
    """The fewest devices the recommended workflow's model trains on (its memory fit), at least 1: the
    rehearsal's first stage runs there, not on one card a model too large for one card cannot use."""
    wf = report.recommendation.workflow
    proj = next((p for p in report.projections if p.workflow == wf), None)
    fit = proj.memory if proj is not None and proj.memory is not None else next(iter(report.memory), None)
    return max(1, int(fit.min_devices or 1)) if fit is not None else 1


def milestone_name(milestone: str, least: int) -> str:
    """The rehearsal stage as the plan names it: 'single card' is the minimum slice of a model that needs more."""
    return said("risks.minimum_slice", least=least) if milestone == "single card" and least > 1 else milestone


def _from_pitfall(item: PitfallItem) -> Risk:
    """A pitfall as the report listed it: its likelihood for this project is the decision model's (the
    migration estimate weighs the same pitfall by the same figure), its owner and milestone the
    knowledge base's."""
    if item.likelihood is not None:
        likelihood, why = item.likelihood, item.likelihood_why or ""
    else:  # a report saved without the project's judgement
        likelihood, why = UNCONDITIONAL, said("risks.why.always")
    eff = item.effort_hours
    hours = (float(eff[0]), float(eff[1])) if eff else (float(item.expected_hours or 0.0),) * 2
    return Risk(
        item.id,
        item.title,
        likelihood,
        why,
        hours,
        item.owner or said("risks.default_owner"),
        item.milestone or DEFAULT_MILESTONE,
        item.fix,
        item.source,
        item.id,
    )


def _measured(report: ReportView, wf: str, risks: dict[str, Risk]) -> None:
    """The accuracy, transformer and input-pipeline probes set the likelihood of the pitfalls they measure."""
    acc = report.accuracy
    verdict = acc.verdict
    r = risks.get("precision-alignment")
    if r is not None and verdict in ("same", "differs"):
        gap = next((g for g in acc.gaps if g.verdict == verdict), None)
        r.likelihood = MEASURED_HIT if verdict == "differs" else MEASURED_CLEAR
        r.why = said("risks.why.accuracy", data=acc.data, line=gap.line if gap is not None else "")
    t = report.transformer
    adj = t.adjustment(wf)
    r = risks.get(adj.pitfall) if adj is not None else None
    if r is not None and adj.likelihood is not None:
        r.likelihood = adj.likelihood
        r.why = said("risks.why.transformer", model=t.model, host=t.host, line=adj.line)
    proj = next((p for p in report.projections if p.workflow == wf), None)
    feed = proj.input_pipeline if proj is not None else None
    r = risks.get("data-pipeline-bottleneck")
    if r is not None and feed is not None and feed.applied:  # one short pass never moves it
        r.likelihood = MEASURED_HIT if feed.capped else MEASURED_CLEAR
        r.why = said("risks.why.pipeline", detail=feed.detail)


def register(report: ReportView, workflow: Optional[str] = None) -> Register:
    """The register of the recommended workflow (or of `workflow`), from a built Report (a saved JSON
    document is validated into one by whoever read it: the risks never import the report, no circle)."""
    wf = workflow or report.recommendation.workflow
    risks = {r.id: r for r in (_from_pitfall(item) for item in report.pitfalls)}
    scan = report.scan
    for h in scan.hazard_summary if scan is not None else []:
        # places in excluded files or on an optional path with a fallback raise no risk
        count, kind, eff = h.count - h.excluded - h.optional, h.kind, h.effort_hours
        if count <= 0:
            continue
        found = said("risks.scan.found", count=count, kind=kind, path=scan.path)
        pid = h.pitfall
        if pid and pid in risks:
            r = risks[pid]
            r.likelihood, r.why, r.scan = SCAN_HIT, found, found
            r.hours = (max(r.hours[0], eff[0]), max(r.hours[1], eff[1]))
        else:
            rid = pid or f"scan-{kind}"
            risks[rid] = Risk(
                rid,
                h.title or kind,
                SCAN_HIT,
                found,
                eff,
                said("risks.default_owner"),
                DEFAULT_MILESTONE,
                h.fix or said("risks.scan.fix"),
                kb_id=pid or None,
                scan=found,
            )
    _measured(report, wf, risks)
    least = min_slice(report)
    for r in risks.values():
        r.milestone = milestone_name(r.milestone, least)
    ranked = sorted(risks.values(), key=lambda r: (-r.exposure, r.id))
    reg = Register(wf)
    for r in ranked:
        (reg.risks if r.exposure >= REGISTER_MIN_HOURS and len(reg.risks) < REGISTER_MAX else reg.also_known).append(r)
    return reg
