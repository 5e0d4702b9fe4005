"""The verdict's confidence from three parts: the margin, the quality of the evidence that decides it,
and the nearest weight or constant that would flip it (plus measured noise)."""

from __future__ import annotations

import re
from typing import Optional

from advisor.decision.constants import CONSTANTS, Consts
from advisor.decision.evidence import QUALITY_RANK, evidence_class, grade_label
from advisor.decision.findings import said
from advisor.decision.projections import Projection
from advisor.decision.scorecard import (
    ConstantSensitivity,
    Confidence,
    EvidenceQuality,
    NearestFlip,
    SensitivityItem,
    WorkflowScore,
)
from advisor.requirements import CRITERIA


def noise_overlap(
    scores: dict[str, WorkflowScore], projections: dict[str, Projection], top: str, runner: Optional[str], basis: str
) -> tuple[bool, str]:
    """Do the measured throughputs of the top two overlap, and does performance decide the verdict?"""
    if runner is None or basis != "measured":
        return False, ""
    a, b = projections[top].images_per_second, projections[runner].images_per_second
    if a is None or b is None or projections[top].path == projections[runner].path:
        return False, ""
    overlap = a.low <= b.high and b.low <= a.high
    if not overlap:
        return False, ""
    perf = CRITERIA.index("performance")
    diff = scores[top].criteria[perf].weight * (scores[top].criteria[perf].score - scores[runner].criteria[perf].score)
    margin = scores[top].total - scores[runner].total
    decides = diff >= margin - 1e-9 and diff > 0
    return decides, said("conf.noise_overlap", top=top, runner=runner, decides=decides)


# The criteria a verdict's evidence is graded on: the ones that give the top workflow the most points
# (as the first page lists them), each above this many points.
DECIDING_CRITERIA = 3
DECIDING_MIN_POINTS = 0.05


def evidence_quality(top: WorkflowScore, runner: Optional[WorkflowScore], k: Consts) -> EvidenceQuality:
    """The grade of the evidence that decides the verdict, on the one scale (evidence.QUALITY_RANK):
    for each of the (at most three) criteria that give the top workflow the most points, the weakest
    class among the sources it rests on, weighted by the points it contributes. The first page prints
    this grade; it is the one the confidence rule reads. Named constants marked `assumption` in the
    notes are counted in the note (the first page lists them as set values)."""
    if runner is None:
        return EvidenceQuality(score=0.0, label="none", note=said("conf.evidence.no_runner"))
    deciding = sorted(
        ((t.weight * (t.score - r.score), t, r) for t, r in zip(top.criteria, runner.criteria)),
        key=lambda g: (-g[0], g[1].name),
    )
    deciding = [g for g in deciding if g[0] > DECIDING_MIN_POINTS][:DECIDING_CRITERIA]
    num = den = 0.0
    counts: dict[str, int] = {}
    for gain, t, r in deciding:
        # one class per source (a knowledge-base entry cited by both workflows counts once), as printed
        seen: dict[str, str] = {}
        for e in t.evidence + r.evidence:
            seen.setdefault(f"{e.kind}:{e.ref}", evidence_class(e))
        classes = list(seen.values())
        rules = len(_assumed_constants(t.note)) + len(_assumed_constants(r.note))
        for c in classes + ["assumption"] * rules:
            counts[c] = counts.get(c, 0) + 1
        weakest = min(classes, key=QUALITY_RANK.__getitem__) if classes else "assumption"
        num, den = num + gain * QUALITY_RANK[weakest], den + gain
    if den == 0:
        return EvidenceQuality(score=0.0, label="none", counts=counts, note=said("conf.evidence.nothing_favours"))
    score = num / den
    weak = counts.get("assumption", 0) + counts.get("blog", 0) + counts.get("requirement", 0)
    total = sum(counts.values())
    return EvidenceQuality(
        score=round(score, 3),
        label=grade_label(score, k["EVIDENCE_GOOD"], k["EVIDENCE_FAIR"]),
        counts=counts,
        note=said("conf.evidence.weak_items", weak=weak, total=total),
    )


def _assumed_constants(note: str) -> list[str]:
    return [
        n for n in re.findall(r"\b[A-Z][A-Z0-9_]{3,}\b", note) if n in CONSTANTS and "assumption" in CONSTANTS[n].source
    ]


def nearest_flip(weights: list[SensitivityItem], consts: list[ConstantSensitivity]) -> Optional[NearestFlip]:
    found = []
    for s in weights:
        if s.threshold is not None and s.new_top:
            rel = abs(s.threshold - s.weight) / s.weight if s.weight > 0 else 1.0
            found.append(
                NearestFlip(
                    what=f"weight:{s.criterion}",
                    value=s.weight,
                    threshold=s.threshold,
                    relative_change=round(rel, 4),
                    new_top=s.new_top,
                    note=s.note,
                )
            )
    for c in consts:
        if c.threshold is not None and c.new_top:
            lo, hi = CONSTANTS[c.name].search
            rel = abs(c.threshold - c.value) / abs(c.value) if c.value else abs(c.threshold - c.value) / (hi - lo)
            found.append(
                NearestFlip(
                    what=f"constant:{c.name}",
                    value=c.value,
                    threshold=c.threshold,
                    relative_change=round(rel, 4),
                    new_top=c.new_top,
                    note=c.note,
                )
            )
    return min(found, key=lambda f: (f.relative_change, f.what)) if found else None


DOWN = {"high": "medium", "medium": "low", "low": "low"}


def judge_confidence(
    ranked: list[WorkflowScore],
    runner: Optional[WorkflowScore],
    margin: float,
    inside_noise: bool,
    weights: list[SensitivityItem],
    consts: list[ConstantSensitivity],
    k: Consts,
) -> Confidence:
    top = ranked[0]
    if not top.eligible:
        decided, dnote = "nothing-eligible", said("conf.decided.nothing_eligible")
    elif any(not s.eligible and s.total > top.total + 1e-9 for s in ranked):
        beaten = [s.workflow for s in ranked if not s.eligible and s.total > top.total + 1e-9]
        decided, dnote = "hard-constraint", said("conf.decided.hard_constraint", beaten=beaten)
    else:
        decided = "scores"
        dnote = said("conf.decided.scores_alone" if runner is None else "conf.decided.scores")
    tie = runner is not None and abs(margin) < k["TIE_MARGIN"]
    if margin >= k["CONFIDENCE_HIGH_MARGIN"]:
        m_level = "high"
    elif margin >= k["CONFIDENCE_MEDIUM_MARGIN"]:
        m_level = "medium"
    else:
        m_level = "low"
    quality = evidence_quality(top, runner, k)
    flip = nearest_flip(weights, consts)
    steps: list[str] = []
    if decided == "nothing-eligible":
        level = "low"
        steps.append(said("conf.step.nothing_eligible"))
    elif runner is None:
        level = "high"
    else:
        level = m_level
        if tie or margin <= 0:
            level = "low"
            steps.append(said("conf.step.tie" if tie else "conf.step.negative", margin=margin))
        if quality.label == "weak":
            level = DOWN[level]
            steps.append(said("conf.step.weak_evidence", score=quality.score))
        elif quality.label == "fair" and level == "high":
            # a wide margin built on blog figures and assumptions is not a confident verdict
            level = "medium"
            steps.append(said("conf.step.fair_evidence", score=quality.score))
        if flip is not None and flip.relative_change < k["FLIP_FRAGILE"]:
            level = DOWN[level]
            steps.append(said("conf.step.fragile", note=flip.note, change=flip.relative_change))
        if inside_noise:
            level = DOWN[level]
            steps.append(said("conf.step.inside_noise"))
    return Confidence(
        level=level,
        decided_by=decided,
        decided_note=dnote,
        margin=margin,
        tie=tie,
        margin_level=m_level,
        evidence=quality,
        nearest_flip=flip,
        steps=steps,
    )


def step_kind(parts: Confidence, step: str) -> Optional[str]:
    """Which of the rule's steps a worded step of `parts` is ("tie", "fragile", "evidence"), recognised by
    this module's own wording of the parts' figures (a rewording moves both alike); None for the others."""
    if parts.tie and step == said("conf.step.tie", margin=parts.margin):
        return "tie"
    flip = parts.nearest_flip
    if flip is not None and step == said("conf.step.fragile", note=flip.note, change=flip.relative_change):
        return "fragile"
    score = parts.evidence.score if parts.evidence is not None else None
    if score is not None and step in (
        said("conf.step.weak_evidence", score=score),
        said("conf.step.fair_evidence", score=score),
    ):
        return "evidence"
    return None
