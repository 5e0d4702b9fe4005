"""The verdict's confidence from three parts: the margin, the quality of the evidence that decides it,
and the nearest weight or constant that would flip it (plus measured noise)."""

from __future__ import annotations

import re
from typing import Optional

from advisor.decision.constants import CONSTANTS, Consts
from advisor.decision.evidence import QUALITY_RANK
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
    return decides, (
        f"measured throughput of {top} and {runner} overlap within their 95% CIs"
        + ("; the performance difference that decides the verdict is inside the noise" if decides else "")
    )


def evidence_quality(top: WorkflowScore, runner: Optional[WorkflowScore], k: Consts) -> EvidenceQuality:
    """The quality of the evidence in the criteria that decide the verdict, weighted by how many
    points each criterion contributes to the margin."""
    if runner is None:
        return EvidenceQuality(score=0.0, label="none", note="no runner-up: decided by hard constraints")
    num = den = 0.0
    counts: dict[str, int] = {}
    for t, r in zip(top.criteria, runner.criteria):
        gain = t.weight * (t.score - r.score)
        if gain <= 0:
            continue
        items = t.evidence + r.evidence
        # The rules that turn the inputs into this criterion's scores count too: a named constant
        # marked `assumption` in either note is one more assumption-quality item.
        rules = _assumed_constants(t.note) + _assumed_constants(r.note)
        if not items and not rules:
            continue
        q = (sum(e.quality for e in items) + QUALITY_RANK["assumption"] * len(rules)) / (len(items) + len(rules))
        if rules:
            counts["assumption"] = counts.get("assumption", 0) + len(rules)
        num, den = num + gain * q, den + gain
        for e in items:
            key = (
                "measured"
                if e.kind == "measured"
                else ("requirement" if e.kind == "requirement" else str(e.confidence or "assumption"))
            )
            counts[key] = counts.get(key, 0) + 1
    if den == 0:
        return EvidenceQuality(score=0.0, label="none", counts=counts, note="no criterion favours the top workflow")
    score = num / den
    label = "good" if score >= k["EVIDENCE_GOOD"] else ("fair" if score >= k["EVIDENCE_FAIR"] else "weak")
    weak = counts.get("assumption", 0) + counts.get("blog", 0)
    total = sum(counts.values())
    return EvidenceQuality(
        score=round(score, 3),
        label=label,
        counts=counts,
        note=f"{weak} of {total} evidence items in the deciding criteria are assumption or blog",
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
        decided, dnote = "nothing-eligible", "no workflow meets every hard constraint: the best-scoring one is shown"
    elif any(not s.eligible and s.total > top.total + 1e-9 for s in ranked):
        beaten = [s.workflow for s in ranked if not s.eligible and s.total > top.total + 1e-9]
        decided, dnote = (
            "hard-constraint",
            f"decided by hard constraints: {', '.join(beaten)} scored higher but is ruled out",
        )
    else:
        decided = "scores"
        dnote = (
            "decided by the scores; the others are ruled out by hard constraints"
            if runner is None
            else "decided by the scores of eligible workflows"
        )
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
        steps.append("nothing eligible")
    elif runner is None:
        level = "high"
    else:
        level = m_level
        if tie or margin <= 0:
            level = "low"
            steps.append(f"a tie: {margin:.2f} points" if tie else f"negative margin {margin:.2f}")
        if quality.label == "weak":
            level = DOWN[level]
            steps.append(f"weak decisive evidence ({quality.score:.1f}/5: {quality.note})")
        elif quality.label == "fair" and level == "high":
            # a wide margin built on blog figures and assumptions is not a confident verdict
            level = "medium"
            steps.append(f"high needs good decisive evidence; it is fair ({quality.score:.1f}/5: {quality.note})")
        if flip is not None and flip.relative_change < k["FLIP_FRAGILE"]:
            level = DOWN[level]
            steps.append(f"fragile: {flip.note} ({flip.relative_change:.0%} away)")
        if inside_noise:
            level = DOWN[level]
            steps.append("the measured difference that decides it is inside the noise")
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
