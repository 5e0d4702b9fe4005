"""Performance, scored by what it changes: the share of the project's wall-clock time the training runs
take (TRAINING_RUNS full runs against the deadline, or PROJECT_WEEKS without one), relative to the best
workflow's; a throughput gap on a run of minutes changes nothing and scores nothing. Its money is in the
cost criterion, its deadline risk in the schedule. An inference-only product is scored on its serving
capacity against the stated load (Projection.serving.slo) where it is judged, else on its serving rate.
A measured difference inside the noise is not a difference. Without a time to train (no workload, no
projection) the throughput relative to the fastest workflow stands in, said so."""

from __future__ import annotations

from typing import Optional

from advisor.decision.constants import Consts
from advisor.decision.context import Context
from advisor.decision.criteria.common import Scored
from advisor.numbers import range_text
from advisor.decision.evidence import Evidence, req_evidence
from advisor.decision.findings import said
from advisor.decision.projections import Projection
from advisor.requirements import Requirements
from probes.training.models import PairedComparison


def communication_evidence(proj: Projection, already: list[Evidence]) -> tuple[list[Evidence], str]:
    """The multi-device communication evidence a criterion adds (the scaling probe's measured
    figures, the knowledge-base curve) and a note saying which basis the projection used."""
    comm = proj.communication
    if comm is None or (comm.devices <= 1 and comm.measured is None):
        return [], ""
    return [e for e in comm.evidence if e not in already], said(
        "crit_performance.communication", detail=comm.basis_detail
    )


def _dynamic(req: Requirements) -> bool:
    return req.model.dynamic_control_flow or req.model.dynamic_shapes


def _undecidable(ctx: Context, wf: str, other: str) -> Optional[PairedComparison]:
    """A paired comparison of the two measured runs behind these projections that the measurement
    says is not decidable here (inside the noise)."""
    a, b = ctx.compared[wf], ctx.compared[other]
    if a.basis != "measured" or b.basis != "measured" or not a.evidence or not b.evidence:
        return None
    ids = {a.evidence[0].ref, b.evidence[0].ref}
    for c in ctx.comparisons:
        if {c.a, c.b} == ids and not c.decidable:
            return c
    return None


def _competing(ctx: Context, wf: str) -> dict[str, Projection]:
    """The compared projections of the supported workflows that apply (and `wf` itself: a workflow that
    does not apply still gets its columns, measured against the others)."""
    return {w: p for w, p in ctx.compared.items() if p.supported and (ctx.routes[w].applicable or w == wf)}


def window_hours(req: Requirements, k: Consts) -> tuple[float, str]:
    """The project's wall-clock time in hours, and the field (or constant) it comes from."""
    weeks = req.constraints.deadline_weeks
    if weeks:
        return weeks * 168.0, f"constraints.deadline_weeks={weeks:g}"
    return k["PROJECT_WEEKS"] * 168.0, "PROJECT_WEEKS"


def schedule_share_score(wf: str, ctx: Context, k: Consts, keep: float) -> Optional[Scored]:
    """Performance from the schedule: TRAINING_RUNS x the time to train as a share of the project's
    wall-clock time, against the best workflow's share: 100 x (1 - share) / (1 - best share); when even
    the best does not fit, the time relative to the best. None when a competing workflow has no time."""
    comp = _competing(ctx, wf)
    if any(p.time_to_train_hours is None for p in comp.values()) or wf not in comp:
        return None

    def hours(p: Projection) -> float:
        return p.time_to_train_hours.mid / (keep if p.framework == "mindspore" else 1.0)

    times = {w: hours(p) for w, p in comp.items()}
    undecided = {o for o in times if o != wf and _undecidable(ctx, wf, o)}
    mine = min([times[wf]] + [times[o] for o in undecided])  # equal to what it cannot be told apart from
    runs = k["TRAINING_RUNS"]
    window, why = window_hours(ctx.req, k)
    share, best = runs * mine / window, runs * min(times.values()) / window
    if best < 1:
        score = 100 * max(0.0, 1 - share) / (1 - best)
    else:  # share >= best >= 1: never a division by zero
        score = 100 * best / share
    proj = comp[wf]
    span = proj.time_to_train_hours
    c_ev, c_note = communication_evidence(proj, proj.evidence)
    note = said(
        "crit_performance.by_schedule",
        hours=range_text(span.low, span.high, "h"),
        basis=proj.basis,
        runs=runs,
        share=share,
        window=window,
        why=why,
        best=best,
        comm=c_note,
        keep=keep if keep != 1.0 and proj.framework == "mindspore" else None,
        undecided=[(o, _undecidable(ctx, wf, o)) for o in undecided],
    )
    ev = list(proj.evidence) + c_ev
    ev.append(
        req_evidence(
            "constraints.deadline_weeks",
            ctx.req.constraints.deadline_weeks,
            said("crit_performance.evidence.window", window=window),
        )
    )
    if keep != 1.0:
        ev.append(_dynamic_flow_evidence())
    return score, ev, note


def _dynamic_flow_evidence():
    """Why a MindSpore rate was scaled by DYNAMIC_GRAPH_KEEP: the requirement that sets it."""
    return req_evidence(
        "model.dynamic_control_flow",
        True,
        said("crit_performance.evidence.dynamic_flow"),
    )


def performance_score(wf: str, ctx: Context, k: Consts) -> Scored:
    proj, req = ctx.compared[wf], ctx.req
    if not proj.supported:
        return 0.0, list(proj.evidence), proj.basis_detail
    if proj.serving is not None:
        served = serving_score(wf, ctx)
        if served is not None:
            return served
    keep = k["DYNAMIC_GRAPH_KEEP"] if _dynamic(req) else 1.0
    by_schedule = schedule_share_score(wf, ctx, k, keep)
    if by_schedule is not None:
        return by_schedule

    def mid(p: Projection) -> float:
        return p.images_per_second.mid * (keep if p.framework == "mindspore" else 1.0)

    mids = {w: mid(p) for w, p in _competing(ctx, wf).items() if p.images_per_second}
    if ctx.basis != "none" and wf in mids:
        undecided = {o: c for o in mids if o != wf and (c := _undecidable(ctx, wf, o))}
        mine = max([mids[wf]] + [mids[o] for o in undecided])  # equal to what it cannot be told apart from
        best = max(mids.values())
        score = 100 * mine / best if best > 0 else 0.0
        span = proj.images_per_second
        c_ev, c_note = communication_evidence(proj, proj.evidence)
        note = said(
            "crit_performance.by_rate",
            rate=range_text(span.low, span.high, span.unit),
            basis=proj.basis,
            comm=c_note,
            keep=keep if keep != 1.0 and proj.framework == "mindspore" else None,
            undecided=list(undecided.items()),
        )
        ev = list(proj.evidence) + c_ev
        if keep != 1.0:
            ev.append(_dynamic_flow_evidence())
        return score, ev, note
    ev = [
        req_evidence(
            "hardware.training_target",
            proj.target,
            said("crit_performance.evidence.path", path=proj.path, target=proj.target),
        )
    ]
    name = (
        "ASSUMED_PERF_CPU"
        if proj.target == "cpu"
        else ("ASSUMED_PERF_NATIVE" if proj.native else "ASSUMED_PERF_ADAPTER")
    )
    return k[name], ev, said("crit_performance.assumed", why=proj.basis_detail, constant=name, value=k[name])


def slo_score(wf: str, ctx: Context) -> Optional[Scored]:
    """An inference-only product judged against its stated load (serving:): meets it 100; meets it with
    more devices, the share of the devices needed that it has; cannot, 0 (a hard constraint too)."""
    proj = ctx.compared[wf]
    slo = proj.serving.slo if proj.serving is not None else None
    if slo is None or slo.verdict == "unknown":
        return None
    ev = list(proj.serving.evidence) + [req_evidence("serving", "stated", said("crit_performance.evidence.serving"))]
    if slo.verdict == "meets":
        return 100.0, ev, said("crit_performance.slo.meets", runtime=proj.serving.runtime, devices=slo.devices)
    if slo.verdict == "needs-devices" and slo.devices_needed:
        score = 100.0 * slo.devices / slo.devices_needed
        return (
            score,
            ev,
            said(
                "crit_performance.slo.needs_devices",
                runtime=proj.serving.runtime,
                needed=slo.devices_needed,
                devices=slo.devices,
                reason=slo.reason,
            ),
        )
    return 0.0, ev, said("crit_performance.slo.cannot", runtime=proj.serving.runtime, reason=slo.reason)


def serving_score(wf: str, ctx: Context) -> Optional[Scored]:
    """An inference-only product: its serving capacity against the stated load where judged, else the
    serving rate relative to the fastest workflow's, when every supported workflow has one (else None:
    the assumed scores apply, as for an unprojected path)."""
    judged = slo_score(wf, ctx)
    if judged is not None:
        return judged
    served = {w: p.serving for w, p in _competing(ctx, wf).items()}
    if any(s is None for s in served.values()):
        return None
    mids = {w: s.total.mid for w, s in served.items() if s is not None}
    mine = served.get(wf)
    if mine is None:
        return None
    best = max(mids.values())
    score = 100 * mids[wf] / best if best > 0 else 0.0
    latency = mine.latency_ms
    note = said(
        "crit_performance.serving_rate",
        runtime=mine.runtime,
        rate=range_text(mine.total.low, mine.total.high, mine.unit),
        devices=ctx.compared[wf].devices,
        latency=range_text(latency.low, latency.high, "ms") if latency is not None else None,
        latency_what=mine.latency_what,
        notes=mine.notes,
    )
    ev = list(mine.evidence) + [
        req_evidence("workload.kind", "inference", said("crit_performance.evidence.inference_only"))
    ]
    return score, ev, note
