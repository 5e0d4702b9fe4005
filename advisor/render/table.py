"""The report as a compact terminal summary: the decision summary, the score table with text bars,
the projections, the top of the risk register, and where to find the rest."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from advisor.render._fmt import LABELS, bar, hours, num, span, usd
from advisor.render.summary import decision, label


def format(report: Any, **options: Any) -> str:
    from advisor.decision.risks import register

    rec = report.recommendation
    scores = report.scores
    d = decision(report)
    rows = [
        [c.name, f"{c.weight:.2f}"] + [f"{s.criteria[i].score:.0f}" for s in scores]
        for i, c in enumerate(scores[0].criteria)
    ]
    rows.append(["total", "1.00"] + [f"{s.total:.1f}" + ("" if s.eligible else " (ruled out)") for s in scores])
    ahead = f", {d.margin:.1f} points ahead of {label(d.runner_up)}" if d.runner_up else ""
    out = [
        f"{report.requirements.name}: {LABELS[rec.workflow]} ({d.total:.1f}/100{ahead}; confidence {rec.confidence}, "
        f"margin {rec.margin:.1f})",
        rec.summary,
        "",
    ]
    out += [f"- ruled out: {h}" for h in d.hard]
    out += [
        f"- why: {r.criterion} {r.top:.0f} vs {r.other:.0f} (+{r.points:.1f} points; evidence: {r.evidence})"
        for r in d.reasons
    ]
    if d.against is not None:
        out.append(
            f"- against it: {d.against.criterion} {d.against.top:.0f} vs {d.against.other:.0f} ({d.against.points:.1f} points)"
        )
    out += [f"- would change it: {d.flip}", f"- confidence {d.confidence}: " + "; ".join(d.confidence_why)]
    out += [f"- {p}".replace("**", "") for p in d.provenance] + [""]
    # disable_numparse: tabulate would print the "1.00" weight total as "1" and realign the column
    out.append(
        tabulate(
            rows,
            headers=["criterion", "weight"] + [LABELS[s.workflow] for s in scores],
            tablefmt="simple",
            disable_numparse=True,
            colalign=["left"] + ["right"] * (len(scores) + 1),
        )
    )
    best = max((s.total for s in scores), default=0.0)
    out += [""] + [f"{LABELS[s.workflow]:<9} {bar(s.total, best, 30):<30} {s.total:.1f}" for s in scores] + [""]
    prow = [
        [
            LABELS[p.workflow],
            p.path,
            span(p.images_per_second),
            hours(p.time_to_train_hours),
            usd(p.compute_cost_usd),
            p.basis,
        ]
        for p in report.projections
    ]
    out.append(tabulate(prow, headers=["workflow", "path", "images/s", "time", "cost", "basis"], tablefmt="simple"))
    comms = [
        f"communication ({LABELS[p.workflow]}): {p.communication.basis}: {p.communication.basis_detail}"
        for p in report.projections
        if p.communication is not None and p.communication.devices > 1
    ]
    out += list(dict.fromkeys(comms))
    reg = register(report)
    if reg.risks:
        out += ["", f"top risks for {LABELS[rec.workflow]} (exposure = likelihood x expected hours):"]
        out += [f"  {i}. {r.title}: ~{num(r.exposure)} h ({r.owner})" for i, r in enumerate(reg.risks[:5], 1)]
    out += ["", "full document: advisor report FILE --markdown -o review.md (or --html -o review.html)"]
    return "\n".join(out).rstrip() + "\n"


render = format
