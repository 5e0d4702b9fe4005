"""What the renderers say first, worked out once from a report: the decision summary (verdict, the
reasons that carry it with their evidence class, the nearest flip, confidence and why, measured vs
knowledge base) and the data-quality caveats. Pure functions of the report document; keys the
decision model may add later (`confidence`, `tco`, ...) are read defensively via `get`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from advisor.render._fmt import LABELS, cite

# Evidence classes from strongest to weakest (issue 20 item 6: measured > vendor > secondary > blog > assumption).
QUALITY = ("measured", "vendor", "derived", "secondary", "blog", "assumption")
WEAK = ("blog", "assumption")


def get(obj: Any, key: str, default: Any = None) -> Any:
    """obj.key or obj[key]: renderers see Report models, their JSON, and keys added later."""
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(key, default)
    value = getattr(obj, key, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(key)
    return default if value is None else value


def label(workflow: Any) -> str:
    return LABELS.get(str(workflow), str(workflow))


def evidence_class(ev: Any) -> str:
    kind = get(ev, "kind")
    if kind == "measured":
        return "measured"
    if kind == "requirement":
        return "requirement"
    return str(get(ev, "confidence") or "assumption")


def class_text(items: list[Any]) -> str:
    """'measured 2, knowledge base: vendor 1, blog 3' for a list of evidence (one per source)."""
    seen: dict[str, str] = {}
    for ev in items:
        seen.setdefault(f"{get(ev, 'kind')}:{get(ev, 'ref')}", evidence_class(ev))
    counts = Counter(seen.values())
    parts = []
    if counts.get("measured"):
        parts.append(f"measured {counts['measured']}")
    kb = [f"{c} {counts[c]}" for c in QUALITY[1:] if counts.get(c)]
    if kb:
        parts.append("knowledge base: " + ", ".join(kb))
    if counts.get("requirement"):
        parts.append(f"your requirements {counts['requirement']}")
    return "; ".join(parts) or "no evidence listed"


@dataclass
class Reason:
    criterion: str
    top: float
    other: float
    weight: float
    points: float
    evidence: str
    weak: bool = False


@dataclass
class Decision:
    workflow: str
    total: float
    runner_up: str | None
    margin: float
    confidence: str
    summary: str
    hard: list[str] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)
    against: Reason | None = None
    flip: str = ""
    confidence_why: list[str] = field(default_factory=list)
    provenance: list[str] = field(default_factory=list)


def _scores(report: Any) -> dict[str, Any]:
    return {get(s, "workflow"): s for s in get(report, "scores", [])}


def _reason(top: Any, other: Any, i: int) -> Reason:
    a, b = get(top, "criteria")[i], get(other, "criteria")[i]
    w = float(get(a, "weight", 0.0))
    items = list(get(a, "evidence", [])) + list(get(b, "evidence", []))
    classes = [evidence_class(e) for e in items if get(e, "kind") != "requirement"]
    weak = bool(classes) and all(c in WEAK for c in classes)
    text = class_text(items)
    if items and not classes:  # nothing but requirement fields: the score is the model's own rule
        text += " only (the model's scoring rule applied to them; no knowledge-base or measured figure)"
    return Reason(
        get(a, "name"),
        float(get(a, "score", 0)),
        float(get(b, "score", 0)),
        w,
        (float(get(a, "score", 0)) - float(get(b, "score", 0))) * w,
        text,
        weak,
    )


def nearest_flip(report: Any) -> str:
    """The decision model's nearest flip when it gives one, else the sensitivity item whose threshold
    lies closest (relative to the weight) to today's weight."""
    given = get(_parts(report), "nearest_flip")
    if given:
        change = get(given, "relative_change")
        where = "weight" if str(get(given, "what", "")).startswith("weight") else "weight or named constant"
        return f"{get(given, 'note')}" + (
            f" (a {float(change):.0%} change, the nearest of any {where} in the sensitivity analysis)"
            if change is not None
            else ""
        )
    best = None
    for s in get(report, "sensitivity", []):
        t, w = get(s, "threshold"), get(s, "weight")
        if t is None or not w:
            continue
        rel = abs(float(t) - float(w)) / float(w)
        if best is None or rel < best[0]:
            best = (rel, get(s, "note"))
    if best is None:
        return "no single weight change in the sensitivity analysis flips the verdict"
    return f"{best[1]} (a {best[0]:.0%} change, the nearest in the sensitivity analysis)"


def provenance(report: Any) -> list[str]:
    """What was measured here vs taken from the knowledge base vs stated in the requirements."""
    items = [e for s in get(report, "scores", []) for c in get(s, "criteria", []) for e in get(c, "evidence", [])]
    items += [
        e
        for p in get(report, "projections", [])
        for e in list(get(p, "evidence", [])) + list(get(p, "cost_evidence", []))
    ]
    out = [f"evidence behind the scores and projections: {class_text(items)} (one count per source)"]
    probes = get(report, "probes")
    runs = get(probes, "runs", [])
    ok = [r for r in runs if get(r, "status") == "ok"]
    basis = get(report, "comparison_basis")
    if runs:
        out.append(f"probe runs: {len(ok)} of {len(runs)} succeeded; performance compared on the **{basis}** basis")
    else:
        out.append(f"no probe runs: performance compared on the **{basis}** basis (knowledge base)")
    accuracy = get(report, "accuracy")
    if get(accuracy, "source", "none") != "none":
        out.append(f"accuracy probe: {get(accuracy, 'note')}")
    pipeline = get(report, "pipeline")
    if get(pipeline, "source", "none") != "none":
        capped = [
            label(get(p, "workflow")) for p in get(report, "projections", []) if get(get(p, "input_pipeline"), "capped")
        ]
        out.append(
            "input-pipeline probe: measured loader rates "
            + (f"cap the projections of {', '.join(capped)}" if capped else "keep up with every projection")
        )
    scaling = get(report, "scaling")
    if get(scaling, "source", "none") != "none":
        out.append(
            f"scaling probe result: {get(scaling, 'label')}, " + ("used" if get(scaling, "used") else "shown, not used")
        )
    hosts = [get(get(p, "communication"), "inter_host") for p in get(report, "projections", [])]
    hosts = [h for h in hosts if h is not None]
    if hosts:
        used = sorted(
            {
                label(get(p, "workflow"))
                for p in get(report, "projections", [])
                if get(get(get(p, "communication"), "inter_host"), "used")
            }
        )
        out.append(
            f"scaling across hosts: measured over {get(hosts[0], 'link')}; "
            + (
                f"the scaling curve beyond one host uses it for {', '.join(used)}"
                if used
                else f"evidence only ({get(hosts[0], 'why_not')})"
            )
        )
    return out


def decision(report: Any) -> Decision:
    rec = get(report, "recommendation")
    scores = _scores(report)
    wf = get(rec, "workflow")
    top = scores.get(wf)
    runner = get(rec, "runner_up")
    d = Decision(
        wf,
        float(get(top, "total", 0.0)),
        runner,
        float(get(rec, "margin", 0.0)),
        str(get(rec, "confidence", "")),
        str(get(rec, "summary", "")),
    )
    d.hard = [
        f"{label(get(s, 'workflow'))} is ruled out: {b}" for s in scores.values() for b in get(s, "blocked_by", [])
    ]
    other = scores.get(runner)
    if top is not None and other is not None:
        reasons = [_reason(top, other, i) for i in range(len(get(top, "criteria", [])))]
        d.reasons = [r for r in sorted(reasons, key=lambda r: -r.points) if r.points > 0.05][:3]
        worst = min(reasons, key=lambda r: r.points, default=None)
        d.against = worst if worst is not None and worst.points < -0.05 else None
    d.flip = nearest_flip(report)
    d.confidence_why = confidence_why(report, d)
    d.provenance = provenance(report)
    return d


def _parts(report: Any) -> Any:
    """The decision model's three-part confidence (recommendation.confidence_parts), or None."""
    return get(get(report, "recommendation"), "confidence_parts")


def confidence_why(report: Any, d: Decision) -> list[str]:
    parts = _parts(report)
    if parts is not None:  # the decision model's three parts: margin, evidence quality, nearest flip
        out = [str(get(parts, "decided_note") or get(parts, "decided_by"))]
        if get(parts, "margin") is not None and d.runner_up is None:
            out.append("no eligible runner-up (the others are ruled out)")
        elif get(parts, "margin") is not None:
            out.append(
                f"margin {float(get(parts, 'margin')):.1f} points over {label(d.runner_up)} "
                f"(on its own: {get(parts, 'margin_level')})" + (", a tie" if get(parts, "tie") else "")
            )
        ev = get(parts, "evidence")
        if ev is not None:
            out.append(
                f"evidence that decides it: {get(ev, 'label')} ({float(get(ev, 'score', 0)):.1f}/5): {get(ev, 'note')}"
            )
        out += [str(step) for step in get(parts, "steps") or []]
        return out
    rec = get(report, "recommendation")
    out = [f"margin {d.margin:.1f} points over {label(d.runner_up)}" if d.runner_up else "no eligible runner-up"]
    if get(rec, "inside_noise"):
        out.append("the measured difference that decides it lies inside the probes' noise")
    if d.hard:
        out.append("decided in part by hard constraints (a ruled-out workflow), not by scores alone")
    decisive = [r for r in d.reasons]
    weak = [r.criterion for r in decisive if r.weak]
    if decisive:
        n = len(decisive)
        out.append(
            f"none of the {n} criteria that carry it rests only on blog or assumption evidence"
            if not weak
            else f"{len(weak)} of the {n} criteria that carry it rest only on blog or assumption evidence ({', '.join(weak)})"
        )
    return out


# --- data-quality caveats -----------------------------------------------------------------------


@dataclass
class Caveat:
    ref: str
    what: str
    confidence: str
    where: str
    firm_up: str
    source: str


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


def figure_kind(ref: str, detail: str) -> str:
    """What sort of figure an evidence item is, by its wording (the evidence vocabulary has no field for it)."""
    text = f"{ref} {detail}".lower()
    if "per device-hour" in text or "price" in text or ref.endswith("-hour"):
        return "price"
    if "tflops" in text or " peak " in text:
        return "peak"
    if re.search(r"draws|\d\s*w\b", text):
        return "power"
    if re.search(r"\d/5:", text):
        return "rating"
    if re.search(r"\d\s*h\b", text):
        return "effort"
    if "images/s" in text or "reference" in text:
        return "throughput"
    if "loses" in text or "keeps" in text or "communication" in text:
        return "derating"
    return "other"


def firm_up(ref: str, detail: str) -> str:
    """What it would take to replace a weak figure with a strong one."""
    return _KINDS[figure_kind(ref, detail)]


def _moving(report: Any, top: Any, other: Any) -> list[str]:
    """Criteria whose weighted difference between the top two is large enough to matter: at least
    a fifth of the margin (and half a point)."""
    margin = abs(float(get(get(report, "recommendation"), "margin", 0.0)))
    out = []
    for i, c in enumerate(get(top, "criteria", [])):
        o = get(other, "criteria")[i]
        points = abs(float(get(c, "score", 0)) - float(get(o, "score", 0))) * float(get(c, "weight", 0))
        if points >= max(0.5, 0.2 * margin):
            out.append(get(c, "name"))
    return out


def caveats(report: Any) -> list[Caveat]:
    """Every blog or assumption figure behind a criterion that separates the top two by a fifth of the
    margin or more, or behind the projections they are compared on: the figures that move the verdict.
    Many small figures of one sort (pitfall fix times, ecosystem ratings) are one row."""
    rec = get(report, "recommendation")
    scores = _scores(report)
    top, other = scores.get(get(rec, "workflow")), scores.get(get(rec, "runner_up"))
    if top is None:
        return []
    moving = _moving(report, top, other) if other is not None else [get(c, "name") for c in get(top, "criteria", [])]
    found: dict[str, Caveat] = {}

    def add(ev: Any, where: str) -> None:
        cls = evidence_class(ev)
        if get(ev, "kind") != "knowledge" or cls not in WEAK:
            return
        ref = str(get(ev, "ref"))
        if ref in found:
            if where not in found[ref].where:
                found[ref].where += f", {where}"
            return
        detail = str(get(ev, "detail", ""))
        found[ref] = Caveat(ref, detail, cls, where, firm_up(ref, detail), cite(get(ev, "source"), ref))

    pair = [s for s in (top, other) if s is not None]
    for s in pair:
        for c in get(s, "criteria", []):
            if get(c, "name") in moving:
                for ev in get(c, "evidence", []):
                    add(ev, str(get(c, "name")))
    names = {get(s, "workflow") for s in pair}
    for p in get(report, "projections", []):
        if get(p, "workflow") in names:
            for ev in list(get(p, "evidence", [])) + list(get(p, "cost_evidence", [])):
                add(ev, "projections")
    groups: dict[tuple[str, str], list[Caveat]] = {}
    for c in found.values():
        kind = figure_kind(c.ref, c.what)
        key = (kind, c.where) if kind in ("effort", "rating") else (c.ref, "")
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
            )
        )
    order = {c: i for i, c in enumerate(WEAK[::-1])}  # assumption first
    return sorted(out, key=lambda c: (order.get(c.confidence, 9), c.ref))
