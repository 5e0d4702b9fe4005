"""Migration: hours of migration/adaptation work part by part (pitfalls, porting, kernels, dynamic
shapes, parallelism set-up), their schedule against the deadline, and the measured accuracy gap."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from advisor.decision.accuracy import VERDICT_RANK, verdict_at
from advisor.decision.constants import CONSTANTS, Consts
from advisor.decision.context import Context
from advisor.decision.criteria.common import Scored, clamp
from advisor.decision.criteria.scan_parts import excluded_scan_text, scan_kernels, scan_role_parts, scan_roles
from advisor.decision.evidence import Evidence, req_evidence, sourced_evidence
from advisor.decision.findings import said
from advisor.decision.pitfalls import pitfall_hours, pitfall_mid, ports_pytorch_code
from advisor.decision.likelihood import likelihood, project_of
from advisor.decision.schedule import Schedule, pressure_penalty, schedule
from advisor.decision.transformer_evidence import PITFALL as DYNAMIC_PITFALL
from advisor.decision.transformer_evidence import DynamicRiskAdjustment, risk_adjustment
from advisor.requirements import Requirements
from knowledge.models import Pitfall


def port_base_hours(family: str, k: Consts) -> tuple[float, float]:
    """Hours (low, high) to re-implement and check a model of `family` in the other framework, before any
    hazard: the named constants PORT_HOURS_<FAMILY>_LOW/HIGH (their sources are there)."""
    name = f"PORT_HOURS_{family.upper()}"
    return k[f"{name}_LOW"], k[f"{name}_HIGH"]


# Risk the code scan finds (custom extensions, data-dependent control flow...) beyond its hours: the constants.
SCAN_RISK_PENALTY = {"medium": "SCAN_RISK_MEDIUM_PENALTY", "high": "SCAN_RISK_HIGH_PENALTY"}


def charged_pitfalls(wf: str, ctx: Context) -> list[tuple[Pitfall, tuple[float, float]]]:
    """The applicable pitfalls the migration estimate charges, with their hours: not those the scan
    measured in the team's own code, not porting hazards where nothing is ported."""
    return ctx.once(("charged_pitfalls", wf), lambda: _charged_pitfalls(wf, ctx))


def _charged_pitfalls(wf: str, ctx: Context) -> list[tuple[Pitfall, tuple[float, float]]]:
    req, scan = ctx.req, ctx.scan
    scan_used = scan is not None and ports_pytorch_code(wf, req)
    ports = ports_pytorch_code(wf, req)
    out = []
    for p in ctx.pitfalls[wf]:
        hours = pitfall_hours(p)
        if hours is None:
            continue
        if scan_used and p.scan_kinds:
            continue  # the scan measured these hazards in the team's own code
        if not ports and p.scan_kinds and not p.applies_when and wf != "pytorch":
            continue  # hazards of porting PyTorch code; new MindSpore code has none to port
        if wf == "mindspore" and req.model.source == "mindspore-code" and p.porting:
            continue  # the team's code is MindSpore already: the PyTorch->MindSpore porting is paid
        out.append((p, hours))
    return out


def migration_parts(
    wf: str, ctx: Context, k: Consts
) -> tuple[list[tuple[str, float, float]], list[Evidence], list[str]]:
    """Hours of migration/adaptation work, part by part (label, low, high), with evidence and notes.
    The MIGRATION_HOURS_FACTOR scales the whole estimate (the sensitivity analysis moves it)."""
    req, kb, scan_used = ctx.req, ctx.kb, _porting(wf, ctx)[0]
    est = _Estimate()
    parts, ev = est.parts, est.ev
    p_low = p_high = 0.0
    kernel_pitfall = False
    for p, hours in charged_pitfalls(wf, ctx):
        kernel_pitfall = kernel_pitfall or any("custom_cuda_ops" in c for c in p.applies_when)
        p_low += hours[0]
        p_high += hours[1]
    ev.extend(ctx.once(("pitfall_evidence", wf), lambda: _pitfall_evidence(wf, ctx)))
    parts.append((said("crit_migration.part.known_pitfalls"), p_low, p_high))
    _port_part(wf, ctx, k, est)
    _reverse_port_part(wf, ctx, k, est)
    _kernel_part(wf, ctx, k, est, kernel_pitfall)
    _dynamic_shape_part(wf, ctx, k, est)
    _parallel_setup_part(wf, ctx, k, est)
    factor = k["MIGRATION_HOURS_FACTOR"]
    if factor != 1.0:
        est.parts = [(n, a * factor, b * factor) for n, a, b in est.parts]
    if kb is None and not scan_used:
        ev.append(req_evidence("model.source", req.model.source, said("crit_migration.evidence.no_kb")))
    return est.parts, est.ev, est.notes


def _port_part(wf: str, ctx: Context, k: Consts, est: _Estimate) -> None:
    """Re-implementing the model: the code scan's hours by role, else the family's base hours."""
    parts, ev, notes = est.parts, est.ev, est.notes
    req, scan = ctx.req, ctx.scan
    scan_used, ports = _porting(wf, ctx)
    if scan_used:
        s_low, s_high = scan.effort_hours
        roles = scan_role_parts(scan)
        parts += roles or [(said("crit_migration.part.scan_port"), s_low, s_high)]
        ev.append(
            req_evidence(
                "model.code_path",
                req.model.code_path,
                said("crit_migration.evidence.scan", hazards=len(scan.hazards), low=s_low, high=s_high, risk=scan.risk),
            )
        )
        excluded = excluded_scan_text(scan)
        if roles:
            notes.append(said("crit_migration.note.roles", roles=scan_roles(scan), excluded=excluded))
    elif ports and not serves_only(req):
        base = port_base_hours(req.model.family, k)
        parts.append((said("crit_migration.part.port"), base[0], base[1]))
        ev.append(
            req_evidence(
                "model.family",
                req.model.family,
                said("crit_migration.evidence.port", family=req.model.family, low=base[0], high=base[1]),
            )
        )


def _reverse_port_part(wf: str, ctx: Context, k: Consts, est: _Estimate) -> None:
    """Existing MindSpore code moved to PyTorch: re-implementation plus the differing APIs read in reverse."""
    parts, ev = est.parts, est.ev
    req, kb = ctx.req, ctx.kb
    if req.model.source == "mindspore-code" and wf in ("pytorch", "hybrid") and not serves_only(req):
        # existing MindSpore code moves to PyTorch: re-implementation + the differing APIs read in reverse
        base = port_base_hours(req.model.family, k)
        differs = [m for m in (kb.api_mappings if kb is not None else []) if m.mapping == "differs" and m.effort_hours]
        share = k["REVERSE_PORT_API_SHARE"]
        r_low = base[0] + share * sum(m.effort_hours.low for m in differs)
        r_high = base[1] + share * sum(m.effort_hours.high for m in differs)
        parts.append((said("crit_migration.part.reverse_port"), r_low, r_high))
        ev.append(
            req_evidence(
                "model.source",
                req.model.source,
                said(
                    "crit_migration.evidence.reverse_port",
                    base_low=base[0],
                    base_high=base[1],
                    share=share,
                    differs=len(differs),
                    low=r_low,
                    high=r_high,
                ),
            )
        )


def _kernel_part(wf: str, ctx: Context, k: Consts, est: _Estimate, kernel_pitfall: bool) -> None:
    """Custom CUDA kernels beyond the pitfall's first, rewritten as Ascend custom operators."""
    parts, ev = est.parts, est.ev
    req, scan, route = ctx.req, ctx.scan, ctx.routes[wf]
    scan_used = _porting(wf, ctx)[0]
    # Custom CUDA kernels leave CUDA on every route but PyTorch on NVIDIA: each one is re-written as an
    # Ascend custom operator. The pitfall covers the first; the scan's count wins when it is larger.
    kernels = max(req.model.kernel_count, scan_kernels(scan) if scan_used else 0)
    if kernels and not (route.framework == "pytorch" and route.target == "nvidia"):
        extra = kernels - 1 if kernel_pitfall else kernels
        if extra > 0:
            lo, hi = extra * k["CUSTOM_KERNEL_HOURS_LOW"], extra * k["CUSTOM_KERNEL_HOURS_HIGH"]
            parts.append((said("crit_migration.part.kernels", extra=extra), lo, hi))
            ev.append(
                req_evidence(
                    "model.custom_cuda_kernels",
                    kernels,
                    said(
                        "crit_migration.evidence.kernels",
                        kernels=kernels,
                        extra=extra,
                        low=k["CUSTOM_KERNEL_HOURS_LOW"],
                        high=k["CUSTOM_KERNEL_HOURS_HIGH"],
                    ),
                )
            )


def _dynamic_shape_part(wf: str, ctx: Context, k: Consts, est: _Estimate) -> None:
    """Bucketing dynamic shapes so that Graph mode compiles a few of them."""
    parts, ev = est.parts, est.ev
    req, route = ctx.req, ctx.routes[wf]
    if req.model.dynamic_shapes and route.framework == "mindspore":
        lo, hi = k["DYNAMIC_SHAPES_HOURS_LOW"], k["DYNAMIC_SHAPES_HOURS_HIGH"]
        parts.append((said("crit_migration.part.dynamic_shapes"), lo, hi))
        ev.append(
            req_evidence("model.dynamic_shapes", True, said("crit_migration.evidence.dynamic_shapes", low=lo, high=hi))
        )


def _parallel_setup_part(wf: str, ctx: Context, k: Consts, est: _Estimate) -> None:
    """Setting up the parallelism when the model must be split."""
    parts, ev, notes = est.parts, est.ev, est.notes
    req, route = ctx.req, ctx.routes[wf]
    fit = ctx.best[wf].memory
    if fit is not None and fit.must_split:
        if route.framework == "pytorch":
            lo, hi = k["PARALLEL_SETUP_PYTORCH_LOW"], k["PARALLEL_SETUP_PYTORCH_HIGH"]
            parts.append((said("crit_migration.part.parallel_pytorch", strategy=fit.strategy), lo, hi))
            ev.append(
                req_evidence(
                    "model.parameters_millions",
                    req.model.parameters_millions,
                    said("crit_migration.evidence.parallel_pytorch", strategy=fit.strategy, low=lo, high=hi),
                )
            )
        else:
            lo, hi = k["PARALLEL_SETUP_MINDSPORE_LOW"], k["PARALLEL_SETUP_MINDSPORE_HIGH"]
            parts.append((said("crit_migration.part.parallel_mindspore", strategy=fit.strategy), lo, hi))
            ev.append(
                req_evidence(
                    "model.parameters_millions",
                    req.model.parameters_millions,
                    said("crit_migration.evidence.parallel_mindspore", low=lo, high=hi),
                )
            )
            notes.append(
                said(
                    "crit_migration.note.auto_parallel_credit", source=CONSTANTS["PARALLEL_SETUP_MINDSPORE_LOW"].source
                )
            )
            if fit.strategy == "model-parallel":
                lo, hi = k["AUTO_PARALLEL_LIMIT_LOW"], k["AUTO_PARALLEL_LIMIT_HIGH"]
                parts.append((said("crit_migration.part.auto_parallel_limits"), lo, hi))
                notes.append(
                    said("crit_migration.note.auto_parallel_limits", source=CONSTANTS["AUTO_PARALLEL_LIMIT_LOW"].source)
                )


@dataclass
class _Estimate:
    """The migration estimate as its parts add up: (label, low, high) hours, evidence, notes."""

    parts: list[tuple[str, float, float]] = field(default_factory=list)
    ev: list[Evidence] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _porting(wf: str, ctx: Context) -> tuple[bool, bool]:
    """(the code scan stands for the port, the workflow ports PyTorch code)."""
    ports = ports_pytorch_code(wf, ctx.req)
    return ctx.scan is not None and ports, ports


def _pitfall_evidence(wf: str, ctx: Context) -> list[Evidence]:
    return [
        sourced_evidence(
            p.id,
            p.effort_hours or p.hours,
            said("crit_migration.evidence.pitfall", title=p.title, low=hours[0], high=hours[1]),
            figure="effort",
        )
        for p, hours in charged_pitfalls(wf, ctx)
    ]


def _expected_hours(wf: str, ctx: Context, parts: list[tuple[str, float, float]], measured: Optional[float]) -> float:
    """Expected migration hours: each charged pitfall's middle x the register's likelihood for this
    project, the other parts at their middle (scaled like the full range by MIGRATION_HOURS_FACTOR).
    `measured`: the transformer probe's likelihood for the dynamic-shape pitfall, as the register reads it."""
    # migration_parts puts the charged pitfalls first: the part is told by its place, not by its words
    charged = sum((lo + hi) / 2 for _, lo, hi in parts[:1])
    others = sum((lo + hi) / 2 for _, lo, hi in parts[1:])
    share = ctx.once(("likely_share", wf, measured), lambda: _likely_share(wf, ctx, measured))
    return round(others + charged * share, 2)


def _likely_share(wf: str, ctx: Context, measured: Optional[float]) -> float:
    """The charged pitfalls' hours weighted by their likelihood, as a share of their full hours."""
    p = project_of(ctx.req, ctx.best[wf].memory)
    charged_items = [item for item, _ in charged_pitfalls(wf, ctx)]  # the register's exposure counts these alone
    full = sum(m for m in (pitfall_mid(x) for x in charged_items) if m is not None)

    def chance(x) -> float:
        if x.id == DYNAMIC_PITFALL and measured is not None:
            return measured
        return likelihood(x, p, wf)

    weighted = sum(m * chance(x) for x in charged_items if (m := pitfall_mid(x)) is not None)
    return weighted / full if full > 0 else 0.0


def migration_score(wf: str, ctx: Context, k: Consts) -> tuple[Scored, list[float], Schedule]:
    req, scan = ctx.req, ctx.scan
    parts, ev, notes = migration_parts(wf, ctx, k)
    low, high = sum(p[1] for p in parts), sum(p[2] for p in parts)
    t = ctx.best[wf].time_to_train_hours
    sched = schedule(
        wf, parts, req.team.size, req.constraints.deadline_weeks, k, (t.low, t.high) if t is not None else None
    )
    dynamic = _dynamic_adjustment(wf, ctx, k)
    sched.expected_hours = _expected_hours(wf, ctx, parts, dynamic.likelihood if dynamic else None)
    capacity = req.team.size * k["HOURS_PER_WEEK"]
    mid = (low + high) / 2
    score = 100 * capacity / (capacity + mid)
    note = said("crit_migration.hours", low=low, high=high, capacity=capacity)
    if scan is not None and ports_pytorch_code(wf, req):
        name = SCAN_RISK_PENALTY.get(scan.risk)
        risk = k[name] if name else 0.0
        if risk:
            score -= risk
            note += "; " + said("crit_migration.scan_risk", penalty=risk, risk=scan.risk)
    score, note = _accuracy_risk(wf, ctx, k, score, note, ev)
    if dynamic is not None:
        score, note = _dynamic_shape_risk(ctx, dynamic, score, note, ev)
    pressure = pressure_penalty(sched, k)
    if pressure > 0.005:
        score -= pressure
        note += "; " + said(
            "crit_migration.pressure", penalty=pressure, pressure=sched.pressure, allowed=sched.allowed_hours
        )
    ev.append(req_evidence("team.size", req.team.size, said("crit_migration.evidence.team_week", capacity=capacity)))
    if req.constraints.deadline_weeks is not None:
        ev.append(
            req_evidence(
                "constraints.deadline_weeks",
                req.constraints.deadline_weeks,
                said("crit_migration.evidence.deadline", allowed=sched.allowed_hours),
            )
        )
    if notes:
        note += "; " + "; ".join(notes)
    return (clamp(score), ev, note), [round(low, 2), round(high, 2)], sched


def _accuracy_risk(wf: str, ctx: Context, k: Consts, score: float, note: str, ev: list[Evidence]) -> tuple[float, str]:
    """A workflow that moves to MindSpore carries the measured cross-framework accuracy gap: beyond the
    tolerance it costs ACCURACY_GAP_PENALTY points; within it, it is measured evidence that the
    frameworks compute the same thing (no points: the hours to check the port stay in the estimate)."""
    acc = ctx.accuracy
    if acc is None or acc.verdict is None or ctx.routes[wf].framework != "mindspore":
        return score, note
    for g in acc.gaps:
        ev.append(
            Evidence(
                kind="measured",
                ref=f"accuracy:{g.a}-vs-{g.b}",
                value=g.mean,
                ci95=list(g.ci95),
                spread=[min(g.per_seed), max(g.per_seed)],
                detail=said("crit_migration.evidence.accuracy", line=g.line, verdict=g.verdict, data=acc.data),
            )
        )
    tolerance = k["ACCURACY_TOLERANCE"]
    if tolerance == acc.tolerance:
        verdicts = [g.verdict for g in acc.gaps]
    else:  # the sensitivity analysis moved the tolerance: judge the same intervals against it
        verdicts = [verdict_at(g.ci95[0], g.ci95[1], g.seeds, tolerance) for g in acc.gaps]
    verdict = max(verdicts, key=VERDICT_RANK.__getitem__)
    worst = acc.gaps[verdicts.index(verdict)]
    if verdict == "differs":
        pen = k["ACCURACY_GAP_PENALTY"]
        score -= pen
        note += "; " + said("crit_migration.accuracy.differs", penalty=pen, tolerance=tolerance, line=worst.line)
    elif verdict == "same":
        note += "; " + said("crit_migration.accuracy.same", line=worst.line)
    else:
        note += "; " + said("crit_migration.accuracy.undecided", line=worst.line)
    return score, note


def _dynamic_adjustment(wf: str, ctx: Context, k: Consts) -> Optional[DynamicRiskAdjustment]:
    """The GPT probe's measured variable-length cost for this workflow, with the constants as `k` moves
    them (advisor.decision.transformer_evidence), or None where it does not apply."""
    t = ctx.transformer
    if t is None or t.dynamic is None:
        return None
    a = risk_adjustment(wf, ctx.req, t.dynamic, k)
    return a if a.applies else None


def _dynamic_shape_risk(
    ctx: Context, a: DynamicRiskAdjustment, score: float, note: str, ev: list[Evidence]
) -> tuple[float, str]:
    """For requirements with variable-length inputs (model.dynamic_shapes), the workflows that run
    MindSpore graph mode lose DYNAMIC_SHAPE_PENALTY x the cost a measured mitigation leaves."""
    t = ctx.transformer
    ev.append(
        Evidence(
            kind="measured",
            ref="gpt:dynamic-shapes",
            value=t.dynamic.cost,
            detail=said("crit_migration.evidence.dynamic_measured", text=t.dynamic.text, where=t.applies_where),
        )
    )
    return score - a.penalty_points, note + "; " + a.line


def serves_only(req: Requirements) -> bool:
    """An inference-only product moves a trained model, not training code: the conversion chain (the
    knowledge base's serving pitfalls) is its migration, not re-implementing the model."""
    return req.workload is not None and req.workload.kind == "inference"
