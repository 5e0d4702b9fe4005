"""The report as a compact terminal summary: the first page of the judged document (verdict, reasons
with their evidence class, what would change it, what was measured, blocking facts), the score table
with text bars, the projections, the top of the risk register, and where to find the rest. Every
figure comes from advisor.review.document (rounded once there), so it matches the other formats."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tabulate import tabulate

from advisor.review.document import of
from advisor.render._fmt import LABELS, bar, criterion_cell, hours, num, pair, span, total_cell, usd
from advisor.sanitize import one_line as line  # every string the summary did not write itself: one line

if TYPE_CHECKING:
    from advisor.report import Report


def format(report: Report, **options: Any) -> str:
    scores = report.scores
    doc = options.get("document") or of(report, options.get("kb"))
    fp = doc.first_page
    rows = [
        [line(c.name), f"{c.weight:.2f}"] + [criterion_cell(s, i) for s in scores]
        for i, c in enumerate(scores[0].criteria)
    ]
    rows.append(
        ["total", "1.00"] + [total_cell(s) + ("" if s.eligible or not s.applicable else " (ruled out)") for s in scores]
    )
    out = [f"{line(report.requirements.name)}: {line(fp.headline)}", line(fp.summary), ""]
    out += [f"- why: {line(r.text)}" for r in fp.reasons]
    out += [f"- against it: {line(r.text)}" for r in fp.against]
    out += [f"- the mandate's reading decides: {line(m)}" for m in fp.mandate]
    if fp.routes:
        out += [f"- how each option was scored ({line(fp.routes[0])}):"] + [f"    {line(r)}" for r in fp.routes[1:]]
    out += [f"- would change it: {line(w)}" for w in fp.would_change]
    out += [f"- measured: {line(m)}" for m in fp.measured]
    out += [f"- blocking: {line(b)}" for b in fp.blocking]
    out += [f"- confidence {fp.confidence}: " + "; ".join(line(w).replace("**", "") for w in fp.confidence_why), ""]
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
    out += [""] + [f"{LABELS[s.workflow]:<9} {bar(s.total, best, 30):<30} {total_cell(s)}" for s in scores] + [""]
    prow = [
        [
            LABELS[p.workflow],
            line(p.path),
            span(p.images_per_second),
            hours(p.time_to_train_hours),
            usd(p.compute_cost_usd),
            line(p.basis),
        ]
        for p in report.projections
    ]
    out.append(tabulate(prow, headers=["workflow", "path", "images/s", "time", "cost", "basis"], tablefmt="simple"))
    comms = [
        f"communication ({LABELS[p.workflow]}): {line(p.communication.basis)}: {line(p.communication.basis_detail)}"
        for p in report.projections
        if p.communication is not None and p.communication.devices > 1
    ]
    out += list(dict.fromkeys(comms))
    reg = doc.risk_register
    if reg.risks:
        low, high = reg.full_hours
        out += [
            "",
            f"top risks for {LABELS[report.recommendation.workflow]} (exposure = likelihood x expected hours; "
            f"expected ~{num(reg.expected_hours)} h over all, {pair(low, high, 'h')} if every one bites):",
        ]
        out += [
            f"  {i}. {line(r.title)}: ~{num(r.exposure)} h ({line(r.owner)})" for i, r in enumerate(reg.risks[:5], 1)
        ]
    if doc.digest is not None:
        out += ["", f"digest: inputs {doc.digest.inputs}, result {doc.digest.result} (the same in every format)"]
    out += ["", "full document: advisor report FILE --markdown -o review.md (or --html -o review.html)"]
    return "\n".join(out).rstrip() + "\n"


render = format
