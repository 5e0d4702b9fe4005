"""Cost: total cost of ownership relative to the cheapest workflow, like with like."""

from __future__ import annotations

from advisor.decision.context import Context
from advisor.decision.criteria.common import Scored
from advisor.numbers import range_text
from advisor.decision.criteria.performance import communication_evidence
from advisor.decision.evidence import req_evidence
from advisor.decision.findings import said
from advisor.decision.projections import WORKFLOWS
from advisor.decision.tco import TotalCost, comparable_parts, compared_total


def cost_scores(ctx: Context, costs: dict[str, TotalCost]) -> dict[str, Scored]:
    """The total cost of ownership relative to the cheapest workflow, over the parts every supported
    workflow has a figure for (like with like); equal for all when none is comparable."""
    supported = {wf for wf, p in ctx.compared.items() if p.supported and ctx.routes[wf].applicable}
    names = comparable_parts(costs, supported)
    totals = {wf: compared_total(costs[wf], names) for wf in supported}
    known = [sum(t) for t in totals.values() if t is not None]
    cheapest = min(known) if known else None
    out = {}
    for wf in WORKFLOWS:
        ev = [e for p in costs[wf].parts if p.name in names for e in p.evidence]
        if wf not in supported:
            out[wf] = (0.0, list(ctx.compared[wf].evidence), ctx.compared[wf].basis_detail)
        elif not names or cheapest is None or totals[wf] is None:
            why = req_evidence(
                "workload",
                ctx.req.workload is not None,
                said("crit_cost.evidence.no_workload" if ctx.req.workload is None else "crit_cost.evidence.no_figures"),
            )
            out[wf] = (100.0, ev + [why], said("crit_cost.all_equal"))
        else:
            low, high = totals[wf]
            both = low + high
            missing = [n for n in ("team", "compute", "energy", "engineering") if n not in names]
            note = said("crit_cost.relative", total=range_text(low, high, prefix="$"), parts=names, missing=missing)
            c_ev, c_note = communication_evidence(ctx.compared[wf], ev)
            out[wf] = (100.0 * cheapest / both if both > 0 else 100.0, ev + c_ev, note + c_note)
    return out
