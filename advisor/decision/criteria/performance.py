"""Performance: projected throughput relative to the fastest workflow, on the basis all share; a
measured difference inside the noise is not a difference."""

from __future__ import annotations

from typing import Optional

from advisor.decision.constants import Consts
from advisor.decision.context import Context
from advisor.decision.criteria.common import Scored, range_text
from advisor.decision.evidence import Evidence, req_evidence
from advisor.decision.projections import Projection
from advisor.requirements import Requirements


def communication_evidence(proj: Projection, already: list[Evidence]) -> tuple[list[Evidence], str]:
    """The multi-device communication evidence a criterion adds (the scaling probe's measured
    figures, the knowledge-base curve) and a note saying which basis the projection used."""
    comm = proj.communication
    if comm is None or (comm.devices <= 1 and comm.measured is None):
        return [], ""
    return [e for e in comm.evidence if e not in already], f"; communication: {comm.basis_detail}"


def _dynamic(req: Requirements) -> bool:
    return req.model.dynamic_control_flow or req.model.dynamic_shapes


def _undecidable(ctx: Context, wf: str, other: str) -> Optional[dict]:
    """A paired comparison of the two measured runs behind these projections that the measurement
    says is not decidable here (inside the noise)."""
    a, b = ctx.compared[wf], ctx.compared[other]
    if a.basis != "measured" or b.basis != "measured" or not a.evidence or not b.evidence:
        return None
    ids = {a.evidence[0].ref, b.evidence[0].ref}
    for c in ctx.comparisons:
        if {c.get("a"), c.get("b")} == ids and c.get("decidable") is False:
            return c
    return None


def performance_score(wf: str, ctx: Context, k: Consts) -> Scored:
    proj, req = ctx.compared[wf], ctx.req
    if not proj.supported:
        return 0.0, list(proj.evidence), proj.basis_detail
    if proj.serving is not None:
        served = serving_score(wf, ctx)
        if served is not None:
            return served
    keep = k["DYNAMIC_GRAPH_KEEP"] if _dynamic(req) else 1.0

    def mid(p: Projection) -> float:
        return p.images_per_second.mid * (keep if p.framework == "mindspore" else 1.0)

    mids = {w: mid(p) for w, p in ctx.compared.items() if p.supported and p.images_per_second}
    if ctx.basis != "none" and wf in mids:
        undecided = {o: c for o in mids if o != wf and (c := _undecidable(ctx, wf, o))}
        mine = max([mids[wf]] + [mids[o] for o in undecided])  # equal to what it cannot be told apart from
        best = max(mids.values())
        score = 100 * mine / best if best > 0 else 0.0
        span = proj.images_per_second
        c_ev, c_note = communication_evidence(proj, proj.evidence)
        note = f"{range_text(span.low, span.high, 'images/s')} ({proj.basis}), relative to the fastest{c_note}"
        if keep != 1.0 and proj.framework == "mindspore":
            note += f"; x{keep:g} for dynamic control flow/shapes outside Graph mode (DYNAMIC_GRAPH_KEEP)"
        for o, c in undecided.items():
            note += (
                f"; not decidable here against {o}: paired ratio {c.get('ratio')} (95% CI {c.get('ci95')}, "
                f"{c.get('pairs')} pairs, quality {c.get('quality')})"
            )
        ev = list(proj.evidence) + c_ev
        if keep != 1.0:
            ev.append(
                req_evidence(
                    "model.dynamic_control_flow",
                    True,
                    "data-dependent control flow / dynamic shapes (knowledge base workflows bad_for)",
                )
            )
        return score, ev, note
    ev = [req_evidence("hardware.training_target", proj.target, f"{proj.path} on {proj.target}")]
    if proj.target == "cpu":
        return (
            k["ASSUMED_PERF_CPU"],
            ev,
            f"no projection possible ({proj.basis_detail}): CPU training, {k['ASSUMED_PERF_CPU']:g} assumed (ASSUMED_PERF_CPU)",
        )
    if proj.native:
        return (
            k["ASSUMED_PERF_NATIVE"],
            ev,
            f"no projection possible ({proj.basis_detail}): first-party path, {k['ASSUMED_PERF_NATIVE']:g} assumed (ASSUMED_PERF_NATIVE)",
        )
    return (
        k["ASSUMED_PERF_ADAPTER"],
        ev,
        f"no projection possible ({proj.basis_detail}): adapter path, {k['ASSUMED_PERF_ADAPTER']:g} assumed (ASSUMED_PERF_ADAPTER)",
    )


def serving_score(wf: str, ctx: Context) -> Optional[Scored]:
    """An inference-only product: the serving rate relative to the fastest workflow's, when every
    supported workflow has one (else None: the assumed scores apply, as for an unprojected path)."""
    served = {w: p.serving for w, p in ctx.compared.items() if p.supported}
    if any(s is None for s in served.values()):
        return None
    mids = {w: s.total.mid for w, s in served.items() if s is not None}
    mine = served[wf]
    assert mine is not None
    best = max(mids.values())
    score = 100 * mids[wf] / best if best > 0 else 0.0
    note = (
        f"serving through {mine.runtime}: {range_text(mine.total.low, mine.total.high, mine.unit)} "
        f"on {ctx.compared[wf].devices} device(s), relative to the fastest"
    )
    if mine.latency_ms is not None:
        note += f"; latency {range_text(mine.latency_ms.low, mine.latency_ms.high, 'ms')} {mine.latency_what}"
    note += "; " + "; ".join(mine.notes)
    ev = list(mine.evidence) + [
        req_evidence(
            "workload.kind", "inference", "an inference-only product: the serving path is scored, not training"
        )
    ]
    return score, ev, note
