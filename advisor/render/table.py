"""The report as a compact terminal summary: verdict, score table, projections."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from advisor.render._fmt import LABELS, hours, span, usd


def format(report: Any, **options: Any) -> str:  # noqa: A001 - the render interface
    rec = report.recommendation
    scores = report.scores
    rows = [[c.name, f"{c.weight:.2f}"] + [f"{s.criteria[i].score:.0f}" for s in scores] for i, c in enumerate(scores[0].criteria)]
    rows.append(["total", "1.00"] + [f"{s.total:.1f}" + ("" if s.eligible else " (ruled out)") for s in scores])
    out = [
        f"{report.requirements.name}: {LABELS[rec.workflow]} (confidence {rec.confidence}, margin {rec.margin:.1f})",
        rec.summary,
        "",
        # disable_numparse: tabulate would print the "1.00" weight total as "1" and realign the column
        tabulate(rows, headers=["criterion", "weight"] + [LABELS[s.workflow] for s in scores], tablefmt="simple",
                 disable_numparse=True, colalign=["left"] + ["right"] * (len(scores) + 1)),
        "",
    ]
    prow = [[LABELS[p.workflow], p.path, span(p.images_per_second), hours(p.time_to_train_hours), usd(p.compute_cost_usd), p.basis]
            for p in report.projections]
    out.append(tabulate(prow, headers=["workflow", "path", "images/s", "time", "cost", "basis"], tablefmt="simple"))
    comms = [f"communication ({LABELS[p.workflow]}): {p.communication.basis}: {p.communication.basis_detail}"
             for p in report.projections if p.communication is not None and p.communication.devices > 1]
    out += list(dict.fromkeys(comms))
    out += [""] + [f"- {r}" for r in rec.reasons]
    return "\n".join(out).rstrip() + "\n"


render = format
