"""The review document, judged once: everything the renderers print that needs judging (the first
page, the risk register, the stack to install, the sign-off block, the evidence classes, the probe
runs' usable/noisy/unusable counts, the margin without measurements, the sensitivity over the
knowledge base's own figures) computed here from a built Report, so Markdown, HTML, the table and the
TUI only format it. `build(report, kb)` -> ReviewDocument (pydantic, schema-versioned, in the JSON).

Numbers a reader compares across formats go through one rounding helper (`points`, `pct`), so the
headline, the quote, the table and the JSON never say 79.5 in one place and 79 in another.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from typing import TYPE_CHECKING, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator

from advisor.vocabulary import FRAMEWORK_LABELS
from advisor.decision.evidence import EVIDENCE_GRADE, evidence_class
from advisor.decision.confidence import step_kind
from advisor.decision.findings import said
from advisor.decision.scoring import verdict
from knowledge.sources import split_sources  # one splitter for the check and the citations

if TYPE_CHECKING:  # annotations only: the report imports this module to attach the document
    from advisor.decision.evidence import Evidence
    from advisor.review.kb_sensitivity import Move
    from advisor.review.risks import Risk
    from advisor.decision.scorecard import Recommendation, Scorecard, WorkflowScore
    from advisor.review.inputs import ReportView
    from knowledge.models import KnowledgeBase

DOCUMENT_VERSION = "1.2"  # 1.2: digest, FirstPage.against a list and mandate, ProbeCounts.cancelled, StackItem.source; 1.1: first_page.routes and confidence_why, KbMove.name, RiskItem.charged, charged_hours
LABELS = {"pytorch": "PyTorch", "mindspore": "MindSpore", "hybrid": "Hybrid"}

# The evidence classes, strongest first, on the decision model's one scale (EVIDENCE_GRADE): the
# confidence rule and the first page read the same grade.
GRADE = EVIDENCE_GRADE


def points(x: Optional[float]) -> str:
    """The one rounding of scores, totals and margins (one decimal), used by every format."""
    return "-" if x is None else f"{float(x):.1f}"


def pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{float(x):.0%}"


def label(wf: str) -> str:
    return LABELS.get(str(wf), str(wf))


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Reason(_M):
    criterion: str
    top: float
    other: float
    weight: float
    points: float = Field(description="weighted difference in total points (top - other) x weight")
    evidence_class: str = Field(description="the weakest class among the sources this criterion rests on")
    evidence: str = Field(description="the classes, counted once per source")
    set_by: list[str] = Field(default_factory=list, description="set values (constants) that decide a side's score")
    text: str


class ProbeCounts(_M):
    total: int = 0
    usable: int = Field(0, description="ran and graded stable")
    noisy: int = Field(0, description="ran, graded noisy: used with its spread")
    unusable: int = Field(0, description="ran, graded unusable: never enters a score")
    failed: int = Field(0, description="did not run to the end (error, timeout, unavailable)")
    cancelled: int = Field(0, description="stopped by the user before the end (not a failure of the stack)")
    unusable_ids: list[str] = Field(default_factory=list)
    failed_ids: list[str] = Field(default_factory=list)
    cancelled_ids: list[str] = Field(default_factory=list)
    enter_scores: bool = False
    why_not: Optional[str] = None

    def text(self) -> str:
        if not self.total:
            return said("review.probes.none")
        return said(
            "review.probes.counts",
            total=self.total,
            usable=self.usable,
            noisy=self.noisy,
            unusable=self.unusable,
            failed=self.failed,
            cancelled=self.cancelled,
        )


class WithoutMeasurements(_M):
    workflow: str
    runner_up: Optional[str] = None
    margin: float
    moved: bool = Field(description="the measurements changed the winner or moved the margin by 0.05 points or more")
    measured_inputs: list[str] = Field(default_factory=list)
    note: str


class KbMove(_M):
    figure: str
    name: str = Field("", description="the same figure and move in a reader's words (no knowledge-base id)")
    section: str
    margin_after: float
    top_after: str


class KbSensitivity(_M):
    ranges: str
    searched: int
    baseline_margin: float
    moves: list[KbMove] = Field(default_factory=list, description="the figures that cut the margin most, worst first")
    nearest_flip: Optional[KbMove] = None
    pair: list[KbMove] = Field(default_factory=list, description="the two worst moves applied together")
    pair_margin: Optional[float] = None
    pair_top: Optional[str] = None
    note: str


class RiskItem(_M):
    id: str
    title: str
    likelihood: float
    why: str
    hours: list[float]
    exposure: float
    owner: str
    milestone: str
    mitigation: str
    source: str = ""
    kb_id: Optional[str] = None
    charged: bool = Field(True, description="the workflow's migration estimate charges its fix hours")


class RiskRegister(_M):
    workflow: str
    risks: list[RiskItem] = Field(default_factory=list)
    also_known: list[RiskItem] = Field(default_factory=list)
    expected_hours: float = Field(0.0, description="sum of likelihood x expected hours over every pitfall listed")
    full_hours: list[float] = Field(
        default_factory=lambda: [0.0, 0.0], description="sum of the full fix-hour ranges (every pitfall bites)"
    )
    charged_hours: list[float] = Field(
        default_factory=lambda: [0.0, 0.0],
        description="the full ranges of the pitfalls the migration estimate charges (the schedule's 'known pitfalls')",
    )
    not_charged: list[str] = Field(
        default_factory=list, description="pitfalls listed that the migration estimate does not charge, by title"
    )


class StackComponent(_M):
    name: str
    version: str
    source: str = ""
    confidence: str = ""
    note: str = ""
    kb_id: Optional[str] = None


class StackItem(_M):
    title: str
    path: str
    components: list[StackComponent] = Field(default_factory=list)
    source: str = Field(
        "", description="the route's table the components without a source of their own are pinned from"
    )
    confidence: str = ""
    source: str = Field(
        "", description="the route's table the components without a source of their own are pinned from"
    )
    confidence: str = ""
    install: list[str] = Field(default_factory=list)
    verify: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class ProbeRunSign(_M):
    id: str
    framework: str
    host: Optional[str] = None
    quality: str


class SignOff(_M):
    tool: str
    version: str
    knowledge_base: Optional[str]
    report_schema: str
    probe_runs: list[ProbeRunSign] = Field(default_factory=list)
    scaling_host: Optional[str] = None
    measured: list[str] = Field(default_factory=list, description="figures measured by a probe that enter the report")
    from_knowledge_base: list[str] = Field(default_factory=list, description="knowledge-base figures, by class")
    checked: Optional[str] = Field(
        None, description="when the knowledge-base entries behind the scores were last checked: the range, the oldest"
    )
    reviewer: str = ""
    date: str = ""


class FirstPage(_M):
    headline: str
    eligible: bool
    workflow: str
    total: float
    runner_up: Optional[str] = None
    margin: float
    confidence: str
    evidence_grade: float = Field(
        description="the confidence's evidence grade: 1 (assumption) to 5 (measured), 0 with no runner-up"
    )
    evidence_label: str
    summary: str
    reasons: list[Reason] = Field(default_factory=list)
    against: list[Reason] = Field(
        default_factory=list, description="the criteria that favour the runner-up, largest first (at most two)"
    )
    mandate: list[str] = Field(
        default_factory=list,
        description="the verdict under each reading of needs.domestic_substitution, when the reading decides it",
    )

    @field_validator("against", mode="before")
    @classmethod
    def _one_reason_before_1_2(cls, value: object) -> object:
        """A document saved before 1.2 held one reason against (or none), not a list."""
        if value is None:
            return []
        return [value] if isinstance(value, dict) else value

    routes: list[str] = Field(
        default_factory=list,
        description="on which route (hardware, adapter, development, serving) each option was scored, and why",
    )
    would_change: list[str] = Field(default_factory=list)
    measured: list[str] = Field(default_factory=list)
    blocking: list[str] = Field(default_factory=list)
    confidence_why: list[str] = Field(default_factory=list, description="why the confidence is what it is")


class Digest(_M):
    """Ties the Markdown, HTML and JSON of one analysis together: the same digests in all three."""

    inputs: str = Field(
        description="sha256 (16 hex) of the requirements, every measurement read and the knowledge base's version"
    )
    result: str = Field(description="sha256 (16 hex) of the verdict, the scores, projections, costs and schedules")


INPUT_FIELDS = ("requirements", "host", "probes", "scaling", "scan", "transformer", "accuracy", "pipeline", "results")
RESULT_FIELDS = ("recommendation", "scores", "projections", "costs", "schedules")


def _sha(data: object) -> str:
    import hashlib
    import json

    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def digest(report: ReportView) -> Digest:
    """The digests of the report's inputs and result (never of its timestamp): two reports with the same
    inputs and knowledge base carry the same digests whenever they were built."""
    data = report.model_dump(mode="json", include=set(INPUT_FIELDS + RESULT_FIELDS))
    inputs = {k: data.get(k) for k in INPUT_FIELDS} | {"knowledge_base": report.knowledge_base.version}
    return Digest(inputs=_sha(inputs), result=_sha({k: data.get(k) for k in RESULT_FIELDS}))


class StaleRating(_M):
    """A knowledge-base rating a deciding criterion rests on, dated more than STALE_MONTHS before the report."""

    id: str
    name: str = Field(description="the rating in a reader's words")
    as_of: date
    refresh: str = Field(description="what would refresh it")


class ReviewDocument(_M):
    document_version: str = DOCUMENT_VERSION
    digest: Optional[Digest] = None
    first_page: FirstPage
    risk_register: RiskRegister
    stacks: list[StackItem] = Field(default_factory=list)
    stack_note: Optional[str] = None
    sign_off: SignOff
    evidence_classes: dict[str, int] = Field(default_factory=dict)
    probes: ProbeCounts
    without_measurements: Optional[WithoutMeasurements] = None
    kb_sensitivity: Optional[KbSensitivity] = None
    stale_ratings: list[StaleRating] = Field(
        default_factory=list, description="deciding ratings older than 18 months, with what would refresh each"
    )


# --- citations a reader can follow ----------------------------------------------------------------
_FILE = re.compile(r"(^|[\s(])(shared/|seeds/|[\w./-]+\.(md|txt|py|yaml|json)\b)")


def cite(source: str | None, kb_id: str | None = None) -> str:
    """A source a reader can follow: URLs and named documents (field reports by title and section) kept,
    file paths replaced by the knowledge-base id (`advisor kb show ID` prints the entry with everything
    it rests on)."""
    out: list[str] = []
    for part in split_sources(source or ""):
        if part.startswith(("http://", "https://")):
            out.append(part)
        elif part.strip().lower() == "assumption":
            out.append(said("review.cite.assumption"))
        elif not _FILE.search(part):
            out.append(part)  # a named document ("Gitee AI documentation (...)"): kept as text
    if kb_id:
        out.append(said("review.cite.kb_show", kb_id=kb_id))
    return "; ".join(dict.fromkeys(out)) or said("review.cite.none")


# --- evidence ----------------------------------------------------------------------------------------


def _classes(items: list[Evidence]) -> Counter:
    seen: dict[str, str] = {}
    for ev in items:
        seen.setdefault(f"{ev.kind}:{ev.ref}", evidence_class(ev))
    return Counter(seen.values())


def _class_text(counts: Counter) -> str:
    parts = [f"{said('review.class', cls=c)} ({counts[c]})" for c in GRADE if counts.get(c)]
    return ", ".join(parts) or said("review.evidence.none")


_CONST = re.compile(r"\(?\b([A-Z][A-Z0-9]+(?:_[A-Z0-9]+)+)\b\)?")


def _what(text: str) -> str:
    """A constant's own words without the verb the sensitivity analysis words it with ('<what> were <value>')."""
    for verb in (" were", " was", " is"):
        text = text.removesuffix(verb)
    return " ".join(label(w) if w in LABELS else w for w in text.split(" "))  # 'the hybrid edge penalty'


def weight_flip(item: object) -> str:
    """A SensitivityItem in words: the flip when there is one, else its note (no flip within the range)."""
    threshold, new_top = getattr(item, "threshold", None), getattr(item, "new_top", None)
    if threshold is None or new_top is None:
        return str(getattr(item, "note", ""))
    return flip_sentence(f"weight:{item.criterion}", item.weight, threshold, new_top)  # type: ignore[attr-defined]


def flip_sentence(what: str, value: float, threshold: float, new_top: str) -> str:
    """'PyTorch would win if the team weight were raised from 0.15 to 0.20', or '... if an unprojected
    first-party path scored 72.1 points (now 80)', from the flip's structured fields ('weight:<criterion>'
    or 'constant:<NAME>', the value, the threshold, the new winner): no internal name reaches the reader."""
    kind, _, name = what.partition(":")
    who = label(new_top)
    if kind == "weight":
        return said("review.flip.weight", who=who, name=name, value=value, threshold=threshold)
    from advisor.decision.constants import CONSTANTS

    c = CONSTANTS.get(name)
    words = _what(c.what) if c is not None and c.what else said("review.flip.set_value")
    unit = c.unit if c is not None else None
    return said("review.flip.constant", who=who, words=words, threshold=threshold, unit=unit, value=value)


def hard_constraint_note(report: ReportView) -> str:
    """'decided by hard constraints: PyTorch scored higher but is ruled out', from the scores."""
    top = next(s for s in report.scores if s.workflow == report.recommendation.workflow)
    beaten = [label(s.workflow) for s in report.scores if not s.eligible and s.total > top.total + 1e-9]
    return said("review.hard_constraints", beaten=tuple(beaten))


def _constants_in(note: str) -> list[str]:
    from advisor.decision import constants as C

    by_name = {c.name: c for c in C._ALL}
    out = []
    for name in dict.fromkeys(m.group(1) for m in _CONST.finditer(note or "")):
        c = by_name.get(name)
        if c is None or name.startswith("COMPLIANCE_"):  # shares of one formula, not a decided score
            continue
        cited = '"' in c.source or "field report" in c.source  # a field report cited by its title
        if c.source.startswith("assumption"):
            kind = said("review.constant.assumption")
        elif cited and "assumption" in c.source:
            kind = said("review.constant.size_assumed")
        else:
            kind = said("review.constant.field_report") if cited else said("review.constant.definition")
        out.append(said("review.constant.value", what=_what(c.what), value=c.value, unit=c.unit, kind=kind))
    return out


def _reason(top: WorkflowScore, other: WorkflowScore, i: int) -> Reason:
    a, b = top.criteria[i], other.criteria[i]
    items = list(a.evidence) + list(b.evidence)
    counts = _classes(items)
    weakest = min(counts, key=lambda c: GRADE[c]) if counts else "assumption"
    pts = (a.score - b.score) * a.weight
    set_by = [
        said("review.reason.set_value", workflow=label(s.workflow), constant=c)
        for s, crit in ((top, a), (other, b))
        for c in _constants_in(crit.note)
    ]
    text = said(
        "review.reason.text",
        criterion=a.name,
        top=label(top.workflow),
        top_score=a.score,
        other=label(other.workflow),
        other_score=b.score,
        gain=pts >= 0,
        points=points(pts),
        evidence=_class_text(counts),
    )
    if set_by:
        text += "; " + "; ".join(set_by)
    return Reason(
        criterion=a.name,
        top=a.score,
        other=b.score,
        weight=a.weight,
        points=round(pts, 6),
        evidence_class=weakest,
        evidence=_class_text(counts),
        set_by=set_by,
        text=text,
    )


# --- probes and measurements ------------------------------------------------------------------------


def probe_counts(report: ReportView) -> ProbeCounts:
    runs = report.probes.runs
    out = ProbeCounts(total=len(runs))
    for r in runs:
        if r.status == "cancelled":
            out.cancelled += 1
            out.cancelled_ids.append(r.id)
        elif r.status != "ok":
            out.failed += 1
            out.failed_ids.append(r.id)
        elif r.quality == "unusable":
            out.unusable += 1
            out.unusable_ids.append(r.id)
        elif r.quality == "noisy":
            out.noisy += 1
        else:
            out.usable += 1
    note = report.probes.note
    out.enter_scores = bool(runs) and report.comparison_basis == "measured"
    out.why_not = None if out.enter_scores or not runs else (note or _unscored_why(out))
    return out


def _unscored_why(counts: ProbeCounts) -> str:
    """Why runs that apply to the workload still do not enter the score, and what to do about it."""
    if counts.unusable and not (counts.usable or counts.noisy):
        return said("review.unscored.unusable")
    return said("review.unscored.kb_basis")


def _other_probes(report: ReportView) -> list[str]:
    """What the accuracy, input-pipeline and scaling probes measured, and whether it was used."""
    out = []
    if report.accuracy.source != "none":
        out.append(said("review.probe.accuracy", note=report.accuracy.note))
    if report.pipeline.source != "none":
        capped = [label(p.workflow) for p in report.projections if p.input_pipeline and p.input_pipeline.capped]
        out.append(said("review.probe.pipeline", capped=tuple(capped)))
    if report.scaling.source != "none":
        out.append(said("review.probe.scaling", label=report.scaling.label, used=bool(report.scaling.used)))
    hosts = [p.communication.inter_host for p in report.projections if p.communication and p.communication.inter_host]
    if hosts:
        used = sorted(
            {
                label(p.workflow)
                for p in report.projections
                if p.communication and p.communication.inter_host and p.communication.inter_host.used
            }
        )
        out.append(said("review.probe.inter_host", link=hosts[0].link, used=tuple(used), why_not=hosts[0].why_not))
    return out


def _measured_inputs(report: ReportView) -> list[str]:
    out = []
    if report.probes.runs:
        out.append(said("review.input.training"))
    for source, code in (
        (report.scaling.source, "review.input.scaling"),
        (report.accuracy.source, "review.input.accuracy"),
        (report.pipeline.source, "review.input.pipeline"),
        (report.transformer.source, "review.input.transformer"),
    ):
        if source != "none":
            out.append(said(code))
    if any(
        e.kind == "measured" and e.ref.startswith("deploy")
        for s in report.scores
        for c in s.criteria
        for e in c.evidence
    ):
        out.append(said("review.input.deployment"))
    return out


def _rescore(report: ReportView, kb: Optional[KnowledgeBase], inputs: Optional[dict] = None) -> Scorecard:
    """The decision model's scores for this report's requirements, with `inputs` (the measurements) or none."""
    from advisor.decision import scoring

    inputs = dict(inputs or {})
    prepared = inputs.pop("prepared", None)  # build_report's own preparation: re-run only what kb moves
    if prepared is not None and prepared.req is report.requirements:
        return scoring.rescore(prepared, kb)
    return scoring.score(
        report.requirements,
        inputs.pop("host", report.host),
        inputs.pop("probes", None),
        kb,
        inputs.pop("scan", report.scan),
        sensitivity=False,
        **inputs,
    )


class _Card:
    """The report's scores in the shape margin_of reads."""

    def __init__(self, scores: list[WorkflowScore]) -> None:
        self.scores = scores


def card_of(report: ReportView) -> _Card:
    return _Card(list(report.scores))


def margin_without_measurements(report: ReportView, kb: Optional[KnowledgeBase]) -> Optional[WithoutMeasurements]:
    """Score again with every measurement removed (no probe, scaling, deployment, accuracy or pipeline
    result) and say whether the measurements moved the verdict."""
    if kb is None:
        return None
    from advisor.review.kb_sensitivity import margin_of

    rec = report.recommendation
    measured = _measured_inputs(report)
    # nothing measured: the report's own scores are the scores without measurements (never scored twice)
    card = _rescore(report, kb) if measured else report
    top_wf = card.recommendation.workflow
    margin, _ = margin_of(card, top_wf)
    today, _ = margin_of(card_of(report), rec.workflow)
    moved = top_wf != rec.workflow or abs(margin - today) >= 0.05
    if not measured:
        note = said("review.without.nothing")
    elif top_wf != rec.workflow:
        note = said("review.without.changed", workflow=label(top_wf), margin=points(margin))
    elif moved:
        note = said("review.without.moved", margin=points(margin), today=points(today))
    elif card.recommendation.runner_up is None or not any(s.eligible for s in card.scores if s.workflow != top_wf):
        note = said("review.without.only_eligible", workflow=label(top_wf))
    else:
        note = said("review.without.unmoved")
    return WithoutMeasurements(
        workflow=top_wf,
        runner_up=card.recommendation.runner_up,
        margin=round(margin, 6),
        moved=moved,
        measured_inputs=measured,
        note=note,
    )


def kb_sensitivity(
    report: ReportView, kb: Optional[KnowledgeBase], inputs: Optional[dict] = None
) -> Optional[KbSensitivity]:
    """Every knowledge-base figure that can enter a deciding criterion, moved within its range."""
    if kb is None:
        return None
    from advisor.review import kb_sensitivity as ks

    wf = report.recommendation.workflow
    frameworks = {"pytorch", "mindspore", "torch_npu"}
    accelerators = {p.accelerator for p in report.projections if p.accelerator}
    # With the measurements build_report scored, the report's own scores are the baseline: the search
    # re-scores only the moved knowledge bases.
    base = card_of(report) if inputs is not None else None
    res = ks.search(
        kb,
        lambda k: base if base is not None and k is kb else _rescore(report, k, inputs),
        wf,
        frameworks,
        accelerators,
    )

    def km(m: Move) -> KbMove:
        return KbMove(
            figure=m.text(),
            name=m.text(plain=True),
            section=m.section,
            margin_after=round(m.margin, 6),
            top_after=m.top,
        )

    out = KbSensitivity(
        ranges=ks.ranges(),
        searched=res.searched,
        baseline_margin=round(res.baseline, 6),
        moves=[km(m) for m in res.moves[:5]],
        nearest_flip=km(res.nearest) if res.nearest else None,
        note="",
    )
    if res.pair:
        a, b, margin, top = res.pair
        out.pair, out.pair_margin, out.pair_top = [km(a), km(b)], round(margin, 6), top
    if out.nearest_flip:
        flip = out.nearest_flip
        out.note = said("review.kbs.one_flips", name=flip.name, workflow=label(flip.top_after))
    elif out.pair and (out.pair_top != wf or (out.pair_margin or 0) < 0):
        first, second = out.pair[0].name, out.pair[1].name
        out.note = said("review.kbs.pair_flips", workflow=label(out.pair_top), first=first, second=second)
    elif out.pair:
        out.note = said(
            "review.kbs.none_flips",
            first=out.pair[0].name,
            second=out.pair[1].name,
            margin=points(out.pair_margin),
            baseline=points(res.baseline),
        )
    else:
        out.note = said("review.kbs.nothing_moves", searched=res.searched)
    return out


# --- register, stack, sign-off -----------------------------------------------------------------------


def _kept_text(report: ReportView) -> Optional[str]:
    """The projection's own share of linear throughput kept, for the recommended workflow."""
    p = next((p for p in report.projections if p.workflow == report.recommendation.workflow), None)
    c = p.communication if p is not None else None
    if c is None or c.devices <= 1:
        return None
    if c.kept is not None:
        low, high = c.kept.low, c.kept.high
    else:  # references that include their loss: the knowledge-base curve's figure at the target's devices
        point = next((pt for pt in c.curve if pt.target), None)
        if point is None:
            return None
        low, high = point.low, point.high
    return f"{pct(low)}-{pct(high)}" if pct(low) != pct(high) else pct(low)


COMMUNICATION_PITFALL = "distributed-communication-bottleneck"  # the pitfall the scaling curve quantifies


def register(report: ReportView) -> RiskRegister:
    from advisor.review.risks import register as build_register

    reg = build_register(report)
    kept = _kept_text(report)

    def item(r: Risk) -> RiskItem:
        why = r.why
        if kept and r.id == COMMUNICATION_PITFALL:  # the projection's own figure beside the field report's
            why += said("review.register.kept", kept=kept)
        return RiskItem(
            id=r.id,
            title=r.title,
            likelihood=r.likelihood,
            why=why,
            hours=[float(r.hours[0]), float(r.hours[1])],
            exposure=round(float(r.exposure), 6),
            owner=r.owner,
            milestone=r.milestone,
            mitigation=r.mitigation,
            source=cite(r.source, r.kb_id),
            kb_id=r.kb_id,
        )

    risks, also = [item(r) for r in reg.risks], [item(r) for r in reg.also_known]
    every = risks + also
    score = next((s for s in report.scores if s.workflow == reg.workflow), None)
    migration = next((c for c in score.criteria if c.name == "migration"), None) if score is not None else None
    if migration is not None:  # the pitfalls the migration criterion rests on are the ones it charges
        charged = {e.ref for e in migration.evidence if e.kind == "knowledge"}
        for r in every:
            r.charged = r.id in charged
    return RiskRegister(
        workflow=reg.workflow,
        risks=risks,
        also_known=also,
        expected_hours=round(sum(r.exposure for r in every), 6),
        full_hours=[sum(r.hours[0] for r in every), sum(r.hours[1] for r in every)],
        charged_hours=[sum(r.hours[0] for r in every if r.charged), sum(r.hours[1] for r in every if r.charged)],
        not_charged=[r.title for r in every if not r.charged],
    )


def stacks(report: ReportView, kb: Optional[KnowledgeBase]) -> list[StackItem]:
    from advisor.review.stack import stacks_for

    return [
        StackItem(
            title=st.title,
            path=st.path,
            components=[StackComponent(**vars(c)) for c in st.components],
            install=st.install,
            verify=st.verify,
            notes=st.notes,
            source=st.source,
            confidence=st.confidence,
        )
        for st in (stacks_for(report, kb) if kb is not None else [])
    ]


def _checked(items: list[Evidence], kb: Optional[KnowledgeBase]) -> Optional[str]:
    """'2024-06-30 to 2026-12-01; oldest: ...' over the knowledge-base entries the scores rest on."""
    if kb is None:
        return None
    when: dict[str, date] = {}
    for name in type(kb).model_fields:
        for entry in getattr(kb, name) if isinstance(getattr(kb, name), list) else []:
            if getattr(entry, "id", None) and getattr(entry, "last_checked", None):
                when[entry.id] = entry.last_checked
    dated = sorted({(when[e.ref], e.ref) for e in items if e.kind == "knowledge" and e.ref in when})
    if not dated:
        return None
    (first, oldest), (last, _) = dated[0], dated[-1]
    return said("review.checked", first=first, last=last, oldest=oldest)


def sign_off(report: ReportView, kb: Optional[KnowledgeBase] = None) -> SignOff:
    runs = [
        ProbeRunSign(
            id=r.id,
            framework=r.framework,
            host=r.host,
            quality=("cancelled" if r.status == "cancelled" else "failed")
            if r.status != "ok"
            else (r.quality or "stable"),
        )
        for r in report.probes.runs
    ]
    items = [e for s in report.scores for c in s.criteria for e in c.evidence]
    items += [e for p in report.projections for e in list(p.evidence) + list(p.cost_evidence)]
    measured = sorted({f"{e.ref}: {e.detail}" for e in items if e.kind == "measured"})
    counts = _classes([e for e in items if e.kind == "knowledge"])
    from_kb = [said("review.signoff.figures", cls=c, count=counts[c]) for c in GRADE if counts.get(c)]
    return SignOff(
        tool=report.tool.name,
        version=report.tool.version,
        knowledge_base=report.knowledge_base.version,
        report_schema=report.schema_version,
        probe_runs=runs,
        scaling_host=report.scaling.host,
        measured=measured,
        from_knowledge_base=from_kb,
        checked=_checked(items, kb),
    )


# --- evidence older than a reader accepts ----------------------------------------------------------------

STALE_MONTHS = 18  # a rating older than this is said to be old, with what would refresh it


def stale_ratings(report: ReportView, kb: Optional[KnowledgeBase]) -> list[StaleRating]:
    """The ecosystem ratings the top two workflows' criteria cite (their evidence's knowledge-base ids),
    dated more than STALE_MONTHS before the report: a reader is told they are old and what refreshes them."""
    if kb is None:
        return []
    rec = report.recommendation
    deciding = {rec.workflow, rec.runner_up}
    cited = {e.ref for s in report.scores if s.workflow in deciding for c in s.criteria for e in c.evidence}
    try:
        made = date.fromisoformat(str(report.created_at)[:10])
    except ValueError:  # a report without a readable date: no age to judge
        return []
    out = []
    for e in kb.ecosystem:
        months = (made.year - e.as_of.year) * 12 + made.month - e.as_of.month
        if e.id in cited and months > STALE_MONTHS:
            fw = FRAMEWORK_LABELS.get(str(e.framework), str(e.framework))
            name = said("review.stale.name", framework=fw, aspect=e.aspect)
            out.append(
                StaleRating(id=e.id, name=name, as_of=e.as_of, refresh=said("review.stale.refresh", aspect=e.aspect))
            )
    return sorted(out, key=lambda r: (r.as_of, r.id))


def stale_line(stale: list[StaleRating]) -> Optional[str]:
    """One first-page line: how many deciding ratings are old, the oldest date, and where the rest is said."""
    if not stale:
        return None
    return said("review.stale.line", count=len(stale), months=STALE_MONTHS, as_of=stale[0].as_of)


# --- the first page ------------------------------------------------------------------------------------


def _summary(rec: Recommendation, top: WorkflowScore, runner: Optional[WorkflowScore]) -> str:
    """The workflow's one-line description without the model's own rounding of the total (the headline
    gives it, rounded once): the recommendation's summary after its head, the head worded again by the
    catalogue's own entry from the scorecard's numbers (the total, the lead, the confidence)."""
    text, parts = str(rec.summary), rec.confidence_parts
    if parts is None or not top.eligible:
        return text  # no verdict to drop the head of: nothing meets every hard constraint
    stands_for = "\x00"  # the description's place: what the entry words before it is the head
    head = verdict(top, runner, parts, stands_for).partition(stands_for)[0]
    return text[len(head) :] if head and text.startswith(head) else text


# the frameworks themselves: the path's own words (review.route.path) say it
GENERAL_ROUTES = ("pytorch-cuda", "torch-npu", "mindspore")


def _serving(s: WorkflowScore) -> str:
    """'ascend-server, edge-ascend with MindSpore Lite (first-party)': the serving routes the workflow is
    scored on (its RouteChoice), targets served the same way named together."""
    by_how: dict[str, list[str]] = {}
    for st in s.route.stacks if s.route is not None else []:
        if st.stage == "serving" and st.target:
            how = said("review.serving.how", name=st.name, path=st.path)
            by_how.setdefault(how, []).append(st.target)
    return "; ".join(said("review.serving.targets", targets=tuple(targets), how=how) for how, targets in by_how.items())


def routes(report: ReportView) -> list[str]:
    """On which route each eligible option was scored (training hardware, framework path, where it is
    developed and debugged, how it serves) and why, from each workflow's RouteChoice and projection, so
    the reader's first question (is the PyTorch option a strawman?) has its answer: with NVIDIA for
    development and Ascend for production, PyTorch is scored as one route, prototype on NVIDIA, then
    torch_npu, no port."""
    from advisor.decision.criteria.ecosystem import prototypes_on_nvidia

    req = report.requirements
    proj = {p.workflow: p for p in report.projections}
    available = set(req.hardware.available)
    out = []
    for s in report.scores:
        p = proj.get(s.workflow)
        if s.blocked_by or not s.applicable or p is None:
            continue
        hw = said("review.route.devices", devices=p.devices, target=p.target)
        how = said("review.route.path", path=p.path)
        if s.workflow == "hybrid":
            proto = "nvidia" in available and p.target != "nvidia"
            text = said("review.route.hybrid", proto=proto, hardware=hw, how=how)
        elif s.workflow == "pytorch" and p.path == "pytorch-npu" and prototypes_on_nvidia(req):
            text = said("review.route.pytorch_via_npu", hardware=hw, how=how)
        else:
            text = said("review.route.other", workflow=label(s.workflow), hardware=hw, how=how)
            if p.path == "pytorch-npu":  # no NVIDIA to prototype on
                text += said("review.route.torch_npu_too")
        suite = next((st for st in (s.route.stacks if s.route else []) if st.stage == "training"), None)
        if suite is not None and suite.id not in GENERAL_ROUTES:  # a specialised suite (Megatron-LM, ...)
            text += said("review.route.suite", name=suite.name)
        serving = _serving(s)
        if serving:
            text += said("review.route.serves", serving=serving)
        out.append(text)
    if out:
        target = req.hardware.training_target
        why = said("review.route.target", target=target) if target != "undecided" else said("review.route.undecided")
        out.insert(0, why)
    return out


def confidence_why(
    report: ReportView, fp_margin: float, runner_up: Optional[str], grade: float, grade_label: str
) -> list[str]:
    """Why the confidence is what it is, each figure rounded as on the rest of the page (the scorecard's
    own steps carry their margin to two decimals and repeat the nearest flip: said once, above)."""
    parts = report.recommendation.confidence_parts
    # the ordinary case (the scores of eligible workflows decide) goes without saying
    ordinary = parts is not None and parts.decided_by == "scores" and runner_up is not None
    why = []
    if parts is not None and not ordinary:
        why.append(hard_constraint_note(report) if parts.decided_by == "hard-constraint" else parts.decided_note)
    if runner_up:
        tie = parts is not None and parts.tie
        why.append(said("review.confidence.margin", margin=points(fp_margin), tie=bool(tie)))
    else:
        why.append(said("review.confidence.no_runner_up"))
    kinds = [step_kind(parts, step) for step in parts.steps] if parts is not None else []
    for step, kind in zip(parts.steps if parts is not None else [], kinds):
        if kind == "tie" or step == report.mandate_flip:  # the mandate lines above say it
            continue
        if kind == "fragile":
            why.append(said("review.confidence.fragile", away=pct(parts.nearest_flip.relative_change)))
            continue
        why.append(step)  # the confidence rule's steps name no internal constant
    if parts is not None and parts.evidence is not None and runner_up is not None:
        if "evidence" not in kinds:  # the steps name it when it lowers the level
            why.append(said("review.confidence.evidence", label=grade_label, grade=grade))
    return why


def mandate_lines(report: ReportView) -> list[str]:
    """The verdict under each reading of needs.domestic_substitution, only when the reading changes
    the winner (report.mandate_flip): the reader must know which reading the verdict stands on."""
    if not report.mandate_flip:
        return []
    out = []
    for r in report.mandate_readings:
        if r.used:
            verdict = said("review.mandate.above")
        elif r.eligible:
            verdict = said(
                "review.mandate.verdict", workflow=label(r.workflow), total=points(r.total), margin=points(r.margin)
            )
        else:
            verdict = said("review.mandate.none", workflow=label(r.workflow))
        out.append(said("review.mandate.reading", reading=r.reading, verdict=verdict))
    return out


def first_page(
    report: ReportView,
    probes: ProbeCounts,
    without: Optional[WithoutMeasurements],
    kbs: Optional[KbSensitivity],
    stale: Optional[list[StaleRating]] = None,
) -> FirstPage:
    rec = report.recommendation
    scores = {s.workflow: s for s in report.scores}
    top = scores[rec.workflow]
    other = scores.get(rec.runner_up) if rec.runner_up else None
    eligible = bool(top.eligible)
    reasons: list[Reason] = []
    against: list[Reason] = []
    if other is not None:
        all_r = [_reason(top, other, i) for i in range(len(top.criteria))]
        reasons = [r for r in sorted(all_r, key=lambda r: -r.points) if r.points > 0.05][:3]
        against = [r for r in sorted(all_r, key=lambda r: r.points) if r.points < -0.05][:2]
    quality = rec.confidence_parts.evidence if rec.confidence_parts is not None else None
    grade = quality.score if quality is not None else 0.0
    grade_label = quality.label if quality is not None else "none"
    blocking = [
        said("review.block.ruled_out", workflow=label(s.workflow), reason=b)
        for s in report.scores
        for b in s.blocked_by
    ]
    for s in report.schedules:
        if s.workflow == rec.workflow and s.fits in ("no", "maybe"):
            blocking.append(said("review.block.schedule", workflow=label(s.workflow), fits=s.fits, finding=s.finding))
    for m in report.memory:
        if m.strategy == "does-not-fit":
            blocking.append(said("review.block.memory", accelerator=m.accelerator, devices=m.devices))
    if eligible:
        headline = said(
            "review.headline",
            workflow=label(rec.workflow),
            total=points(top.total),
            margin=points(rec.margin),
            runner_up=label(rec.runner_up) if rec.runner_up else None,
            confidence=rec.confidence,
        )
    else:
        headline = said("review.headline.none_eligible", workflow=label(rec.workflow), total=points(top.total))
    change = []
    flip = rec.confidence_parts.nearest_flip if rec.confidence_parts else None
    if flip is not None:
        sentence = flip_sentence(flip.what, flip.value, flip.threshold, flip.new_top)
        change.append(said("review.change.flip", flip=sentence, away=pct(flip.relative_change)))
    else:
        change.append(said("review.change.none"))
    old = stale_line(stale or [])
    if old:
        change.append(old)
    if kbs is not None:
        change.append(said("review.change.kb", note=kbs.note))
    measured = [
        probes.text()
        + (
            ""
            if probes.enter_scores or not probes.why_not
            else said("review.measured.not_scored", why=report.probes.reason or probes.why_not)
        )
    ]
    measured += _other_probes(report)
    if without is not None:
        measured.append(without.note)
    return FirstPage(
        headline=headline,
        eligible=eligible,
        workflow=rec.workflow,
        total=top.total,
        runner_up=rec.runner_up,
        margin=rec.margin,
        confidence=rec.confidence,
        evidence_grade=round(grade, 3),
        evidence_label=grade_label,
        summary=_summary(rec, top, other),
        reasons=reasons,
        against=against,
        mandate=mandate_lines(report),
        would_change=change,
        measured=measured,
        blocking=blocking,
        routes=routes(report),
        confidence_why=confidence_why(report, rec.margin, rec.runner_up, grade, grade_label),
    )


def knowledge_for(report: ReportView) -> tuple[Optional[KnowledgeBase], Optional[str]]:
    """The knowledge base to judge a report built without one at hand (a saved JSON without its
    document): the bundled one, with a note when it is not the report's. None when it cannot be loaded."""
    wanted = report.knowledge_base.version
    if wanted is None:
        return None, None
    import knowledge

    try:
        kb = knowledge.load()
    except (knowledge.KnowledgeError, OSError):  # the document never fails for want of the pinned-stack table
        return None, said("review.kb.unloadable")
    if kb.version != wanted:
        return kb, said("review.kb.other_version", version=kb.version, wanted=wanted)
    return kb, None


def build(
    report: ReportView, kb: Optional[KnowledgeBase] = None, *, inputs: Optional[dict] = None, sensitivity: bool = True
) -> ReviewDocument:
    """The judged document of a built Report. `inputs`: the measurements build_report scored with
    (probes, scaling, scaling_here, deploy, accuracy, pipeline), so the knowledge-base sensitivity
    re-scores exactly that case; without them it re-scores on the report's requirements, host and scan."""
    note = None
    if kb is None:
        kb, note = knowledge_for(report)
    probes = probe_counts(report)
    items = [e for s in report.scores for c in s.criteria for e in c.evidence]
    items += [e for p in report.projections for e in list(p.evidence) + list(p.cost_evidence)]
    without = margin_without_measurements(report, kb)
    kbs = kb_sensitivity(report, kb, inputs) if sensitivity else None
    stale = stale_ratings(report, kb)
    return ReviewDocument(
        digest=digest(report),
        first_page=first_page(report, probes, without, kbs, stale),
        risk_register=register(report),
        stacks=stacks(report, kb),
        stack_note=note if kb is not None else (note or said("review.kb.none")),
        sign_off=sign_off(report, kb),
        evidence_classes=dict(sorted(_classes(items).items(), key=lambda kv: -GRADE[kv[0]])),
        probes=probes,
        without_measurements=without,
        kb_sensitivity=kbs,
        stale_ratings=stale,
    )


def of(report: ReportView, kb: Optional[KnowledgeBase] = None) -> ReviewDocument:
    """The report's stored document when it carries one (a saved JSON re-renders to the same document:
    Report.model_validate read it into a ReviewDocument), else built now."""
    return report.document if report.document is not None else build(report, kb)
