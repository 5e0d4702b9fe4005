"""The report as a Markdown review document: verdict, score table, projections, the measured runs in
the field reports' comparison-table style, a throughput chart, pitfalls, sensitivity, assumptions."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from os import PathLike
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from advisor.review.document import STALE_MONTHS, cite, points
from advisor.render import decision_sections
from advisor.render._fmt import LABELS, bar, criterion_cell, hours, num, pair, run_label, span, total_cell, usd
from advisor.render._fmt import md_table as _table
from advisor.numbers import sig
from advisor.render.plan import schedule
from advisor.render.summary import caveats, label
from advisor.sanitize import for_markdown, md_fence

md = for_markdown  # every string the document did not write itself goes through it (advisor.sanitize)

if TYPE_CHECKING:
    from advisor.decision.communication import ScalingSpread
    from advisor.review.document import ReviewDocument, StackComponent
    from advisor.report import Report
    from advisor.scan.models import EffortShare, ScanResult
    from probes.training.models import ParityResult


def _scores(report: Report) -> list[str]:
    scores = report.scores
    header = ["Criterion", "Weight"] + [LABELS[s.workflow] for s in scores]
    rows = []
    for i, c in enumerate(scores[0].criteria):
        rows.append([c.name, f"{c.weight:.2f}"] + [criterion_cell(s, i) for s in scores])
    rows.append(["**Total**", "1.00"] + [f"**{total_cell(s)}**" for s in scores])
    rows.append(["Eligible", ""] + [("yes" if s.eligible else "**no**") if s.applicable else "n/a" for s in scores])
    out = _table(header, rows)
    for s in scores:
        if not s.applicable:
            out += ["", f"{LABELS[s.workflow]} does not apply (n/a, not a score): {md(s.not_applicable or '')}."]
    if any(s.blocked_by for s in scores):
        out += ["", "Why a workflow is ruled out: the blocking facts on the first page."]
    origins = [w for w in report.weights if w.origin == "user"]
    raised = [f"{md(w.name)} ({md(', '.join(w.because))})" for w in report.weights if w.because]
    out.append("")
    if origins:
        out.append(
            "Weights set in the requirements file: " + ", ".join(md(w.name) for w in origins) + " (all renormalised)."
        )
    if raised:
        out.append("Default weights raised by: " + "; ".join(raised) + ".")
    return out


def _how(report: Report) -> list[str]:
    out = []
    for s in report.scores:
        out.append(f"**{LABELS[s.workflow]}**")
        out.append("")
        if not s.applicable:
            out += [f"- n/a: {md(s.not_applicable or 'does not apply')}", ""]
            continue
        for c in s.criteria:
            refs = ", ".join(dict.fromkeys(f"{e.kind}:{e.ref}" for e in c.evidence))  # one mention per source
            out.append(f"- {md(c.name)} {c.score:.0f}: {md(c.note)}" + (f" [{md(refs)}]" if refs else ""))
        out.append("")
    return out


def _throughput(p: object) -> str:
    """Tokens/s for a transformer workload, else samples (images) per second, with its unit."""
    if getattr(p, "tokens_per_second", None) is not None:
        return span(p.tokens_per_second, "tokens/s")
    return span(p.images_per_second, "samples/s") if p.images_per_second is not None else "-"


def _projections(report: Report) -> list[str]:
    rows = []
    applies = {s.workflow: s.applicable for s in report.scores}
    for p in report.projections:
        where = f"{p.accelerator or p.target} x{p.devices}"
        if not applies.get(p.workflow, True):
            rows.append([LABELS[p.workflow], "n/a", where, "n/a", "n/a", "n/a", "does not apply"])
            continue
        if not p.supported:
            rows.append([LABELS[p.workflow], p.path, where, "unsupported", "-", "-", p.basis_detail])
            continue
        rows.append(
            [
                LABELS[p.workflow],
                p.path,
                where,
                _throughput(p),
                hours(p.time_to_train_hours),
                usd(p.compute_cost_usd),
                f"{p.basis}: {p.basis_detail}",
            ]
        )
    owned = report.requirements.constraints.compute_pricing == "owned"
    # owned hardware is charged its amortised price in the cost table, not this device-hour figure
    cost = "Compute at the device-hour price (owned: not charged)" if owned else "Compute cost"
    out = _table(
        ["Workflow", "Path", "Hardware", "Throughput", "Time to train", cost, "Basis"],
        _said_above(rows),
        ["l", "l", "l", "r", "r", "r", "l"],
    )
    out += _allowance(report) + _serving_table(report)
    warned: dict[str, list[str]] = {}  # one line per finding, the workflows it holds for named together
    for p in report.projections:
        for w in p.warnings:
            warned.setdefault(w, []).append(LABELS[p.workflow])
    if warned:  # a finding (a run of years, a rate that is not finite) stays where the reader signs
        out += [""] + [f"- {md(', '.join(wfs))}: {md(w)}" for w, wfs in warned.items()]
    out += [
        "",
        f"Performance and cost are compared on the basis all workflows share: **{md(report.comparison_basis)}**"
        + (" (the workings: Appendix, projection workings)." if projection_notes(report) else "."),
    ]
    return out


def projection_notes(report: Report) -> list[str]:
    """How each projection was reached (references, MFU ranges, allowances): the workings behind the
    projections table, kept out of the body a reader signs."""
    notes = sorted({n for p in report.projections for n in p.notes})
    refs = sorted(  # the reference runs a knowledge-base projection rests on, as the knowledge base states them
        {
            e.detail
            for p in report.projections
            if p.basis == "reference"
            for e in p.evidence
            if e.kind == "knowledge" and "img/s" in e.detail
        }
    )
    notes += [f"reference run: {r}" for r in refs]
    return [f"- {md(n)}" for n in notes]


def _allowance(report: Report) -> list[str]:
    """The failure and checkpoint allowance, its own line per distinct figure: the hours the time to
    train carries for interruptions, restarts and checkpoints (Projection.failure_allowance_hours)."""
    by: dict[str, list[str]] = {}
    applies = {s.workflow: s.applicable for s in report.scores}
    for p in report.projections:
        rel, extra = p.reliability, p.failure_allowance_hours
        if extra is None or rel is None or not applies.get(p.workflow, True):
            continue
        text = (
            f"+{pair(extra.low, extra.high, 'h')} for failures and checkpoints on {rel.devices} devices: "
            f"{pair(rel.interruptions.low, rel.interruptions.high)} interruptions expected (one per "
            f"{num(rel.mean_hours_between_interruptions)} h), a {num(rel.checkpoint_gb)} GB checkpoint every "
            f"{num(rel.interval_hours)} h"
        )
        by.setdefault(text, []).append(LABELS[p.workflow])
    return ["", *[f"**Failure allowance** ({'/'.join(w)}): {md(t)}." for t, w in by.items()]] if by else []


SLO_WORDS = {
    "meets": "meets the stated load and targets",
    "needs-devices": "needs more devices",
    "cannot": "cannot meet it on this accelerator and route",
    "unknown": "not enough to judge",
}


def _said_above(rows: list[list[str]], longer_than: int = 40) -> list[list[str]]:
    """A long cell the same as the row above's reads "as above" (one basis or verdict, said once)."""
    out = [list(r) for r in rows]
    for i in range(1, len(rows)):
        for j in range(1, len(rows[i])):
            if rows[i][j] == rows[i - 1][j] and len(rows[i][j]) > longer_than:
                out[i][j] = "as above"
    return out


def _serving_table(report: Report) -> list[str]:
    """Serving capacity against the SLO (`serving:` in the requirements), one row per workflow."""
    rows = []
    applies = {s.workflow: s.applicable for s in report.scores}
    for p in report.projections:
        sv = p.serving
        if sv is None or not applies.get(p.workflow, True):
            continue
        cap, slo = sv.capacity, sv.slo
        verdict = "-"
        if slo is not None:
            verdict = SLO_WORDS.get(slo.verdict, slo.verdict)
            if slo.devices_needed:
                verdict += f" ({slo.devices_needed} devices)"
            if slo.reason:
                verdict += f": {slo.reason}"
        rows.append(
            [
                LABELS[p.workflow],
                sv.runtime,
                span(sv.per_device),
                span(sv.total),
                span(cap.requests_per_second) if cap is not None else "-",
                span(cap.ttft_ms, "ms") if cap is not None else "-",
                span(cap.tpot_ms, "ms") if cap is not None else span(sv.latency_ms, "ms"),
                f"{cap.instances} x {cap.instance_devices}" if cap is not None else "-",
                verdict,
            ]
        )
    if not rows:
        return []
    unit = next(p.serving.unit for p in report.projections if p.serving is not None)
    return [
        "",
        f"Serving capacity against the stated load ({unit}; latency per output token at the load, or at batch 1 "
        "without a stated load):",
        "",
    ] + _table(
        [
            "Workflow",
            "Runtime",
            f"{unit} per device",
            f"{unit} in all",
            "Requests/s",
            "Time to first token",
            "Per output token",
            "Instances x devices (the team's fleet)",
            "Against the SLO",
        ],
        _said_above(rows),
        ["l", "l", "r", "r", "r", "r", "r", "r", "l"],
    )


def _spread(x: ScalingSpread | None) -> str:
    if x is None:
        return "-"
    low, high = f"{x.min:.0%}", f"{x.max:.0%}"
    return f"{x.median:.0%} ({low}-{high}, n={x.n})" if low != high else f"{x.median:.0%} (n={x.n})"


def _scaling(report: Report) -> list[str]:
    """The scaling probe's figures and, per workflow, how the projection accounts for communication."""
    info = report.scaling
    comms = [(p, p.communication) for p in report.projections if p.communication is not None]
    multi = report.requirements.hardware.devices > 1 or report.requirements.needs.distributed_training
    if not multi and info.source == "none":
        return []
    out: list[str] = []
    if info.source != "none":
        where = md(info.file) if info.file else "this host's cache"
        out.append(
            f"Scaling probe result from {where} ({md(info.created or 'undated')}), label **{md(info.label)}**"
            + (f": {md(info.label_text)}" if info.label_text else "")
            + "."
        )
        out.append("")
        rows = [
            [
                f"{m.framework} {m.model}",
                f"{m.launcher or '-'} ({m.backend or '-'})",
                m.device,
                str(m.ranks),
                _spread(m.efficiency),
                _spread(m.allreduce_share),
                "ok" if m.gate_ok else ("FAILED" if m.gate_ok is False else "-"),
            ]
            for m in info.measurements
        ]
        if rows:
            out += _table(
                [
                    "Framework",
                    "Launcher",
                    "Device",
                    "Ranks",
                    "Efficiency (median, min-max)",
                    "Allreduce share of step",
                    "Gate",
                ],
                rows,
                ["l", "l", "l", "r", "r", "r", "l"],
            ) + [""]
        ih_rows = [
            [
                f"{h.framework} {h.model}",
                f"{h.nnodes} x {h.ranks_per_node} ({h.backend or '-'}, {h.device})",
                h.link,
                (
                    f"{h.inter_over_intra_step.median:.2f}x ({h.inter_over_intra_step.min:.2f}-"
                    f"{h.inter_over_intra_step.max:.2f}, n={h.inter_over_intra_step.n})"
                    if h.inter_over_intra_step
                    else "-"
                ),
                _spread(h.link_share),
                _spread(h.allreduce_share),
                "ok" if h.gate_ok else ("FAILED" if h.gate_ok is False else "-"),
            ]
            for h in info.inter_host
        ]
        if ih_rows:
            out += ["Across hosts (measured; the same rank count on one host is the baseline):", ""]
            out += _table(
                [
                    "Framework",
                    "Hosts x ranks",
                    "Link",
                    "Step across / on one host",
                    "Link's share of the step",
                    "Allreduce share",
                    "Gate",
                ],
                ih_rows,
                ["l", "l", "l", "r", "r", "r", "l"],
            ) + [""]
        out += [f"- {md(f)}" for f in info.failed] + [f"- warning: {md(w)}" for w in info.warnings]
    if info.note:
        out += [md(info.note), ""]
    for p, c in comms:
        kept = f", keeps {span(c.kept)} of linear" if c.kept is not None and c.devices > 1 else ""
        out.append(
            f"- {LABELS[p.workflow]} ({md(p.path)}, {c.devices} device(s)): communication **{md(c.basis)}**: "
            f"{md(c.basis_detail)}{kept}"
        )
        out += [f"  - {md(n)}" for n in c.notes]
    return out


def _cached_runs(report: Report) -> list[str]:
    """Which of this host's cached runs the report used, so two documents can be told apart."""
    used = report.cached_runs
    if not used:
        return ["- cached runs used: none (only the files named, or --no-cache)", ""]
    lines = ["Cached runs used (this host's cache; `--no-cache` ignores it):", ""]
    for r in used:
        lines.append(
            f"- {md(r.kind)} {md(r.id, code=True)}: measured {md(r.date or 'date unknown')} on host "
            f"{md(r.host or '?')} by {md(r.command, code=True)}"
        )
    return lines + [""]


def _runs(report: Report) -> list[str]:
    runs = report.probes.runs
    if not runs:
        return [md(report.probes.note or "No probe results.")]
    out = []
    if report.probes.note:
        out += [md(report.probes.note), ""]
    header = ["Metric"] + [run_label(r) + (" (UNUSABLE)" if r.quality == "unusable" else "") for r in runs]

    def row(name: str, values: list[str]) -> list[str]:
        return [name] + values

    rows = [
        row("Device", [f"{r.device or '-'} ({r.hardware})" for r in runs]),
        row("Status", [r.status + (f": {r.error}" if r.error else "") for r in runs]),
        row(
            "Quality",
            [
                "failed"
                if r.status != "ok"
                else (r.quality or "stable") + (" (never scored)" if r.quality == "unusable" else "")
                for r in runs
            ],
        ),
        row("Throughput (img/s)", [num(r.images_per_second) for r in runs]),
        row("95% CI (img/s)", [f"{num(r.ci95[0])}-{num(r.ci95[1])}" if r.ci95 else "-" for r in runs]),
        row("Step time, median (ms)", [num(r.step_ms_median) for r in runs]),
        row("Step time CV", [f"{r.step_cv:.1%}" if r.step_cv is not None else "-" for r in runs]),
        row("First step, incl. compile (s)", [num(r.first_step_seconds) for r in runs]),
        row("Compile overhead (s)", [num(r.compile_seconds) for r in runs]),
        row("Peak memory (MB)", [num(r.peak_memory_mb) for r in runs]),
        row(
            "Loss first -> last",
            [f"{num(r.loss_first)} -> {num(r.loss_last)}" if r.loss_first is not None else "-" for r in runs],
        ),
    ]
    out += _table(header, rows)
    warned = [(r.id, r.warnings) for r in runs if r.warnings]
    if warned:  # one line per run: its warnings in the order the probe gave them
        out += [""] + [f"- {md(rid)}: " + "; ".join(md(w) for w in ws) for rid, ws in warned]
    if report.probes.parity:
        out.append("")
    for p in report.probes.parity:
        out.append(f"- parity {md(p.model)}: {md(parity_text(p))}")
    return out


def parity_text(p: ParityResult) -> str:
    """A parity entry: a comparison that never ran (skipped, unavailable, a worker failed) is not a mismatch."""
    if p.status != "ok" and not p.checks:
        return f"not compared ({p.status})" + (f": {p.error}" if p.error else "")
    text = f"max abs diff {sig(p.max_abs_diff, 2)}" if p.max_abs_diff is not None else "max abs diff -"
    verdict = "ok" if p.ok else "MISMATCH"
    return f"{text} ({verdict})" + (f": {p.likely_cause}" if verdict == "MISMATCH" and p.likely_cause else "")


def _chart(report: Report) -> list[str]:
    ok = [r for r in report.probes.runs if r.status == "ok" and r.images_per_second]
    if not ok:
        return ["No measured throughput to chart."]
    out = []
    for model in sorted({(r.model or "?", r.hardware) for r in ok}):
        group = sorted(
            (r for r in ok if (r.model or "?", r.hardware) == model), key=lambda r: (-r.images_per_second, r.id)
        )
        best = max(r.images_per_second for r in group)
        width = max(len(f"{r.framework} {r.mode or ''} bs{r.batch_size}") for r in group)
        out.append(f"{md(model[0])} on {md(model[1])} (images/s, higher is better)")
        bars = []
        for r in group:
            label = f"{r.framework} {r.mode or ''} bs{r.batch_size}".ljust(width)
            mark = " (unusable: not scored)" if r.quality == "unusable" else ""
            bars.append(f"{label} {bar(r.images_per_second, best)} {num(r.images_per_second)}{mark}")
        out += md_fence(bars)
        out.append("")
    return out


def _pitfalls(report: Report, doc: ReviewDocument) -> list[str]:
    """The risk register: pitfalls that apply to this project ranked by exposure (likelihood x expected
    hours), with owner, milestone and mitigation; the rest folded under "Also known"."""
    reg = doc.risk_register
    wf = LABELS[report.recommendation.workflow]
    if not reg.risks and not reg.also_known:
        return [f"No knowledge-base pitfalls apply to {wf} for these requirements."]
    low, high = reg.full_hours
    out = [
        "Exposure = likelihood here x expected fix hours (each likelihood a judgement with its reason; a place "
        "the migration scan found in the code is near-certain).",
        "",
        f"Expected exposure over every pitfall listed: **~{num(reg.expected_hours)} h**; if every one of them "
        f"bites in full, {pair(low, high, 'h')}"
        + (
            " (the full range the migration estimate charges)."
            if not reg.not_charged
            else f"; the migration estimate charges "
            f"{pair(reg.charged_hours[0], reg.charged_hours[1], 'h')} of it: "
            f"{len(reg.not_charged)} listed here are not in it ({md('; '.join(reg.not_charged))})."
        ),
        "",
    ]
    rows = [
        [
            str(i),
            r.title,
            f"~{num(r.exposure)} h",
            f"{r.likelihood:.0%} x {pair(r.hours[0], r.hours[1], 'h')}",
            r.owner,
            r.milestone,
        ]
        for i, r in enumerate(reg.risks, 1)
    ]
    if rows:
        out += _table(
            ["#", "Risk", "Exposure", "Likelihood x fix hours", "Owner", "Retired at"],
            rows,
            ["r", "l", "r", "r", "l", "l"],
        )
        out += ["", 'Why each applies, its mitigation and source: the appendix "Risk register in full".']
    else:
        out.append("No pitfall reaches the register's threshold for this project.")
    if reg.also_known:
        out += [
            "",
            "Also known (low exposure for this project): " + md("; ".join(r.title for r in reg.also_known)) + ".",
        ]
    return out


def risks_in_full(doc: ReviewDocument) -> list[str]:
    """Each risk of the register with why it applies, its mitigation and its source (the body's table
    ranks them)."""
    reg = doc.risk_register
    out: list[str] = []
    for i, r in enumerate(reg.risks, 1):
        out.append(f"{i}. **{md(r.title)}** ({md(r.id, code=True)})")
        out.append(f"   - why it applies: {md(r.why)}")
        out.append(f"   - mitigation: {md(r.mitigation)}")
        out.append(f"   - source: {md(r.source)}")
    if reg.also_known:
        out += ["", "Also known (low exposure for this project):", ""]
        out += [
            f"- {md(r.title)} ({md(r.id, code=True)}): ~{num(r.exposure)} h, likelihood {r.likelihood:.0%}: {md(r.why)}"
            for r in reg.also_known
        ]
    return out or ["No pitfall applies."]


def _scan(report: Report) -> list[str]:
    """The migration scan of model.code_path that the migration scores cite (`advisor scan` for all of it)."""
    s = report.scan
    if s is None:
        return []
    low, high = s.effort_hours
    out = [
        f"{md(s.path, code=True)}: {s.python_files} Python file(s), {s.lines} lines, "
        f"{len(s.apis)} mapped and {len(s.unmapped)} unmapped PyTorch APIs "
        f"(read with `ast`, never run).",
        "",
        f"- effort: {pair(low, high, 'h')} (worst case {num(s.effort_worst_case_hours)} h), "
        f"risk **{md(s.risk)}**; basis: {md(s.effort_basis)}",
    ]
    out += [f"- risk: {md(r)}" for r in s.risk_reasons]
    out.append(f"- route: {md(s.route_why or s.route)}")
    out += _scan_breakdown(s)
    rows = [
        [h.kind, str(h.count), h.risk, pair(h.effort_hours[0], h.effort_hours[1], "h"), h.pitfall or "-"]
        for h in s.hazard_summary
    ]
    if rows:
        out += [""] + _table(["Hazard", "Places", "Risk", "Effort", "Pitfall"], rows, ["l", "r", "l", "r", "l"])
    return out


def _shares_table(title: str, shares: list[EffortShare], limit: int = 10) -> list[str]:
    rows = [
        [
            r.name,
            str(r.files),
            str(r.lines),
            pair(r.effort_hours[0], r.effort_hours[1], "h"),
            "excluded (not counted)" if r.excluded else "counted",
        ]
        for r in shares[:limit]
    ]
    more = [f"- and {len(shares) - limit} more"] if len(shares) > limit else []
    return (
        [""] + _table([title, "Files", "Lines", "Effort (plain sum)", "Total"], rows, ["l", "r", "r", "r", "l"]) + more
    )


def _scan_breakdown(s: ScanResult) -> list[str]:
    """Where the scan's hours are: per role and top-level package, excluded files shown apart."""
    from advisor.decision.criteria.scan_parts import excluded_scan_text, scan_roles

    b = s.effort_breakdown
    if b is None:
        return []
    out = [
        f"- breakdown: {b.included_files} file(s) counted, {b.excluded_files} excluded"
        + (f" by {len(b.exclude)} glob pattern(s) (tests, examples, tools by default)" if b.exclude else "")
        + " (`advisor scan --json` has the rule and every item, file and package)"
    ]
    excluded = excluded_scan_text(s)
    if excluded:
        out.append(f"- {md(excluded)}")
    roles = scan_roles(s)
    if roles:
        out.append(
            "- in the migration estimate and the engineering cost, role by role (each role's range scaled so the "
            "roles add up to the scan's total): "
            + ", ".join(f"{md(r.role)} {sig(r.low, 6)}-{sig(r.high, 6)} h" for r in roles)
        )
    if b.by_role:
        out += _shares_table("Role", b.by_role)
    if len(b.by_package) > 1:
        out += _shares_table("Top-level package", b.by_package)
    return out


def _accuracy(report: Report) -> list[str]:
    """The accuracy probe: the cross-framework gap with its spread over seeds, and how it entered the verdict."""
    a = report.accuracy
    out = [md(a.note) + "."]
    if a.source == "none":
        return out
    out[0] = f"From {md(a.file or 'the accuracy probe')} ({md(a.created or 'undated')}): {md(a.note)}."
    out.append("")
    out += [f"- gap **{md(g.verdict)}** (measured here): {md(g.line)}" for g in a.gaps]
    rows = [
        [
            f"{m.framework} {m.mode}",
            f"{m.runs_ok}/{m.runs_total}",
            (
                f"{m.final_accuracy[0]:.2%} ({m.final_accuracy[1]:.2%}-{m.final_accuracy[2]:.2%})"
                if m.final_accuracy
                else "-"
            ),
            f"{m.reached_target} of {m.runs_ok}",
            num(m.epochs_to_target),
            num(m.seconds_to_target),
        ]
        for m in a.modes
    ]
    if rows:
        target = f" {a.target:.0%}" if a.target else ""
        out += [""] + _table(
            [
                "Framework, mode",
                "Runs ok",
                "Final test accuracy (median, min-max over seeds)",
                f"Reached{target}",
                "Epochs to target (median)",
                "Seconds to target (median, compile incl.)",
            ],
            rows,
        )
    fails = [f for m in a.modes for f in m.failures]
    out += [""] + [f"- {md(f)}" for f in fails] if fails else []
    if a.normalize:
        out += ["", f"- {md(a.normalize)}"]
    out += [f"- warning: {md(w)}" for w in a.warnings]
    if a.verdict == "differs":
        out.append(
            "- enters the migration criterion of the workflows that move to MindSpore (MindSpore, Hybrid): "
            "-ACCURACY_GAP_PENALTY points (see How each score was reached)"
        )
    elif a.verdict == "same":
        out.append(
            "- enters the migration criterion of the workflows that move to MindSpore as measured evidence "
            "that the frameworks compute the same thing (no points moved)"
        )
    return out


def _pipeline(report: Report) -> list[str]:
    """The input-pipeline probe: each loader variant's rate and verdict here, and what it means on the target."""
    p = report.pipeline
    if p.source == "none":
        return [md(p.note) + "."]
    out = [f"From {md(p.file or 'the pipeline probe')} ({md(p.created or 'undated')}): {md(p.note)}.", ""]
    rows = [
        [
            r.id,
            f"{r.variant} ({r.workers} worker(s))",
            num(r.alone),
            num(r.with_step),
            num(r.step_only),
            r.verdict,
        ]
        for r in p.runs
    ]
    if rows:
        out += _table(
            [
                "Run",
                "Loader",
                "Pipeline alone (samples/s)",
                "Feeding the step",
                "Step alone",
                "Here (measured)",
            ],
            rows,
            ["l", "l", "r", "r", "r", "l"],
        ) + [""]
    for proj in report.projections:
        feed = proj.input_pipeline
        if feed is not None:
            out.append(f"- {LABELS[proj.workflow]} ({md(proj.path)}): {md(feed.detail)}")
    return out


def decision_summary(report: Report, doc: ReviewDocument | None = None) -> list[str]:
    """The first page: verdict and confidence, the three reasons with their evidence class, what would
    change it, what was measured and whether it moved the verdict, the blocking facts. Every figure
    comes from the judged document (advisor.review.document), rounded once."""
    from advisor.review.document import of

    doc = doc or of(report)
    fp = doc.first_page
    out = [f"**{md(fp.headline)}.**", "", f"> {md(fp.summary)}", ""]
    if fp.runner_up is None:
        out += ["**Why:** every other workflow is ruled out (the blocking facts below); no score decides it.", ""]
    else:
        out += ["**Why:**", ""]
        out += [f"{i}. {md(r.text)}." for i, r in enumerate(fp.reasons, 1)] or [
            "1. no criterion separates the top two."
        ]
    out += [f"- Against it: {md(r.text)}." for r in fp.against]
    if out[-1] == "":
        out.pop()
    if fp.mandate:
        out += ["", "**The mandate's reading decides the verdict** (needs.domestic_substitution):", ""]
        out += [f"- {md(m)}." for m in fp.mandate]
    out += ["", "**What would change it:**", ""] + [f"- {md(w)}." for w in fp.would_change]
    out += ["", "**Measured vs knowledge base:**", ""] + [f"- {md(m)}." for m in fp.measured]
    out += ["", "**Blocking facts:** " + (md("; ".join(fp.blocking)) + "." if fp.blocking else "none."), ""]
    out.append(f"**Confidence {md(fp.confidence)}**, because: " + md("; ".join(fp.confidence_why)) + ".")
    return out


def _component_source(c: StackComponent, stack_source: str, route: str) -> str:
    """Where one pinned version comes from: its own source, the route's table stated under the stack's
    table (said once there), or "-" for a choice the document explains in the note (the Python line)."""
    conf = f" ({c.confidence})" if c.confidence else ""
    if c.source:
        return cite(c.source, c.kb_id) + conf
    if stack_source and c.kb_id == route:
        return "the route's table" + conf
    return cite("", c.kb_id) + conf if c.kb_id else "-"


def other_pins(report: Report) -> list[str]:
    """Every other option's training and serving pins, one row per route it is scored on (the reader
    compares the stacks, not only the recommended one's)."""
    rows = []
    for s in report.scores:
        if s.workflow == report.recommendation.workflow or not s.applicable or s.route is None:
            continue
        for u in s.route.stacks:
            pins = ", ".join(f"{p.package} {p.version}" + ("" if p.confirmed else " (unconfirmed)") for p in u.pins)
            where = f" ({u.target})" if u.target else ""
            rows.append([LABELS[s.workflow], u.stage + where, u.name, pins or "-"])
    if not rows:
        return []
    return ["### The other options' pins", ""] + _table(["Workflow", "Stage", "Route", "Pins"], rows, ["l"] * 4)


def routes_scored(doc: ReviewDocument) -> list[str]:
    """On which route (hardware, adapter, development, serving) each option was scored: the stack section
    opens with it (a route is the stack it pins), keeping the first page to what decides."""
    routes = doc.first_page.routes
    if not routes:
        return []
    return [f"**How each option was scored** ({md(routes[0])}):", ""] + [f"- {md(r)}." for r in routes[1:]] + [""]


def _as(where: tuple[str, int], n_stack: int) -> str:
    name, in_stack = where
    return f"as {name}" + ("" if in_stack == n_stack else " above")


def stack_section(doc: ReviewDocument, report: Report | None = None) -> list[str]:
    stacks, note = doc.stacks, doc.stack_note
    if not stacks:
        return routes_scored(doc) + ["No pinned stack: " + md(note or "no knowledge base loaded") + "."]
    out = (
        routes_scored(doc)
        + ([f"({md(note)})", ""] if note else [])
        + [
            "Training and serving pinned with == as each route's vendor table states it (lock to the matrix, not to "
            "the newest: the field report 'Ascend 910 and MindSpore in practice' §3.2).",
            "",
        ]
    )
    said: dict[str, tuple[str, int]] = {}  # a note or source already printed -> (component, stack): said once
    for n_stack, st in enumerate(stacks):
        out += [f"### {md(st.title)}", ""]
        rows: list[list[str]] = []
        for c in st.components:
            note, source = c.note or "-", _component_source(c, st.source, st.path)
            # a library family (transformers, peft, ...) shares one note and source: said once
            if note != "-" and note in said:
                note = _as(said[note], n_stack)
            else:
                said.setdefault(note, (c.name, n_stack))
            if len(source) > 40 and source in said:
                source = _as(said[source], n_stack)
            else:
                said.setdefault(source, (c.name, n_stack))
            version = md(c.version, code=True) if c.version[:1].isdigit() or c.version[:1] in "<>=" else c.version
            rows.append([c.name, version, note, source])
        out += _table(["Component", "Version", "Note", "Source"], rows, ["l"] * 4) + [""]
        if st.source:
            out += [f"Pinned as the route's table states it: {md(cite(st.source, st.path))} ({md(st.confidence)}).", ""]
        out += [f"- {md(n)}" for n in st.notes] + ([""] if st.notes else [])
        if st.install:
            out += ["Install:", ""] + md_fence(st.install, "sh") + [""]
        if st.verify:
            out += ["Verify:", ""] + md_fence(st.verify, "sh") + [""]
    if report is not None:
        out += [""] + other_pins(report)
    while out and out[-1] == "":
        out.pop()
    return out


def _down(lines: list[str]) -> list[str]:
    return ["#" + line if line.startswith("## ") else line for line in lines]


def decision_model_sections(report: Report) -> list[str]:
    """The decision model's sections in the body (cost of ownership, schedule), one level down inside
    "Plan and cost"; the memory fit, scaling curve and confidence steps are an appendix."""
    return _down(decision_sections.plan_sections(report))


def plan_section(report: Report) -> list[str]:
    req = report.requirements
    out = decision_model_sections(report)
    # the milestone plan in weeks (the decision model's schedule above gives the hours per workflow)
    phases, findings = schedule(report)
    deadline = req.constraints.deadline_weeks if req.constraints else None
    out += [f"### Milestones against the {sig(deadline, 6)}-week deadline" if deadline else "### Milestones", ""]
    out += _table(
        ["Phase", "Starts (week)", "Ends (week)", "Done when"],
        [[ph.name, _weeks(ph.start), _weeks(ph.end), ph.what] for ph in phases],
        ["l", "r", "r", "l"],
    )
    out += [""] + [f"- {md(f)}" for f in findings]
    out += [
        "- milestones: the schedule above in weeks; the rehearsal (the migration's end, up to two weeks) is the full-chain "
        "run before go-live of the field report 'Ascend 910 and MindSpore in practice' (§7.4)",
        "",
    ]
    if not report.costs:  # an older report: the renderer prints costs, it does not compute them
        out += [
            "No cost of ownership in this report (a report built before schema 1.4); rebuild it with "
            "`advisor report` to get one.",
            "",
        ]
    while out and out[-1] == "":
        out.pop()
    return out


def _weeks(r: tuple[float, float]) -> str:
    return f"{r[0]:.1f}" if abs(r[1] - r[0]) < 0.05 else f"{r[0]:.1f}-{r[1]:.1f}"


def caveats_section(report: Report, doc: ReviewDocument | None = None) -> list[str]:
    found = caveats(report)
    out = ["No blog-sourced or assumed figure separates the top two workflows."] if not found else []
    if found:
        rows = [[c.what, c.confidence, c.where, c.firm_up, c.source] for c in found]
        out += [
            "Figures resting on a single blog or on an assumption that separate the recommendation from the "
            "runner-up or enter the projections they are compared on:",
            "",
        ] + _table(["Figure", "Evidence", "Moves", "To firm it up", "Source"], rows, ["l"] * 5)
    stale = doc.stale_ratings if doc is not None else []
    if stale:  # no newer public source re-rates them: said, with what would
        out += [
            "",
            f"Ratings the deciding criteria rest on that are older than {STALE_MONTHS} months (their confidence "
            "stays blog: no newer public source re-rates them):",
            "",
        ] + _table(
            ["Rating", "As of", "What would refresh it"],
            [[f"{r.name} (`advisor kb show {r.id}`)", f"{r.as_of:%Y-%m}", r.refresh] for r in stale],
            ["l", "l", "l"],
        )
    return out


def sensitivity_section(report: Report, doc: ReviewDocument, links: dict[str, str]) -> list[str]:
    from advisor.review.document import weight_flip

    out = _image(links, "sensitivity", "Sensitivity tornado")
    out += ["Weights (each criterion's weight moved until the winner changes):", ""]
    out += [f"- {md(weight_flip(s))}" for s in report.sensitivity] or ["- none"]
    k = doc.kb_sensitivity
    if k is not None:
        out += [
            "",
            f"Knowledge-base figures: every rating, price, throughput and MFU reference that can enter a deciding "
            f"criterion ({k.searched} figures), moved within its range ({k.ranges}), the scores recomputed each time. "
            f"Margin today {points(k.baseline_margin)} points. {md(k.note[:1].upper() + k.note[1:])}.",
            "",
        ]
        rows = [[m.figure, m.section, points(m.margin_after), label(m.top_after)] for m in k.moves]
        if k.pair:
            rows.append([" + ".join(m.figure for m in k.pair), "together", points(k.pair_margin), label(k.pair_top)])
        if rows:
            out += _table(
                ["Figure moved", "Section", "Margin after (points)", "Winner after"], rows, ["l", "l", "r", "l"]
            )
    return out


def digest_line(doc: ReviewDocument) -> str:
    """The digests that tie this file to the other formats of the same analysis (the JSON's document.digest)."""
    d = doc.digest
    return f"Digest: inputs `{d.inputs}`, result `{d.result}`" if d is not None else "Digest: none"


def sign_off_section(doc: ReviewDocument, created_at: str) -> list[str]:
    so = doc.sign_off
    out = [
        f"- tool: {md(so.tool)} {md(so.version)}; report schema {md(so.report_schema)}, document "
        f"{md(doc.document_version)}; created {md(created_at)}",
        f"- knowledge base: {md(so.knowledge_base or 'not loaded')} (content hash; `advisor kb validate` prints it)",
        f"- {digest_line(doc)} (the same in the Markdown, HTML and JSON of this analysis: document.digest)",
    ]
    if so.probe_runs:
        qualities = Counter(r.quality for r in so.probe_runs)
        out.append(
            f"- probe runs: {len(so.probe_runs)} read ("
            + ", ".join(f"{n} {q}" for q, n in sorted(qualities.items()))
            + '; each listed in the appendix "Measured runs")'
        )
    else:
        out.append("- probe runs: none")
    if so.scaling_host:
        out.append(f"- scaling probe host: {md(so.scaling_host)}")
    out.append(
        f"- measured and entering the report: {len(so.measured)} figure(s)"
        + (": " + md("; ".join(so.measured[:6])) if so.measured else "")
    )
    out.append("- taken from the knowledge base: " + (md("; ".join(so.from_knowledge_base)) or "nothing"))
    if so.checked:
        out.append(f"- knowledge-base entries behind the scores last checked {md(so.checked)}")
    out += [
        "",
        "| Reviewed by | Date | Verdict accepted (yes / no / with changes) |",
        "| :--- | :--- | :--- |",
        "|  |  |  |",
    ]
    return out


def _chart_note(report: Report, doc: ReviewDocument) -> list[str]:
    """Why the measured chart may point the other way from the scored performance criterion."""
    if not report.probes.runs or doc.probes.enter_scores:
        return []
    target = ", ".join(sorted({f"{p.accelerator or p.target} x{p.devices}" for p in report.projections}))
    return [
        f"These runs measured this host ({md(', '.join(sorted({r.hardware for r in report.probes.runs})))}); the scored "
        f"performance criterion is about the training target ({md(target)}) on the **{md(report.comparison_basis)}** basis. "
        "A framework's speed on this host's CPU says nothing about its accelerator path (MindSpore's CPU kernels, for "
        "one, fall back to reference implementations on some CPUs), so the chart may rank the frameworks the other way "
        "from the criterion, and that is expected: the runs check that each stack installs, trains and agrees, not "
        "which is faster on the target.",
        "",
    ]


def format(report: Report, **options: Any) -> str:
    """The review document. `chart_links` (name -> relative path of an SVG written beside the output)
    adds the charts as images; without it the throughput chart stays in text bars. `collapse` (the HTML
    form) wraps the appendices in <details> markers that advisor.render.html turns into folded blocks."""
    from advisor.review.document import of

    links: dict[str, str] = options.get("chart_links") or _links(options.get("assets") or {})
    collapse = bool(options.get("collapse"))
    req = report.requirements
    doc = options.get("document") or of(report, options.get("kb"))
    lines = [
        f"# Framework advice: {md(req.name)}",
        "",
        f"{md(report.tool.name)} {md(report.tool.version)}, {md(report.created_at)}, knowledge base "
        f"{md(report.knowledge_base.version or 'not loaded')}, report schema {md(report.schema_version)}."
        + (f" {digest_line(doc)}." if doc.digest is not None else ""),
        "",
        "## Recommendation",
        "",
    ]
    lines += decision_summary(report, doc) + [""]
    # The body: what a reader signs (<= ~2,500 words); the appendices hold the workings.
    sections: list[tuple[str, list[str]]] = [
        ("The stack to install", stack_section(doc)),
        (f"Risk register for {LABELS[report.recommendation.workflow]}, by exposure", _pitfalls(report, doc)),
        ("Plan and cost", plan_section(report)),
        ("Scores", _image(links, "scores", "Total and per-criterion scores") + _scores(report)),
        (
            "Projections for the workload",
            _image(links, "ranges", "Time to train and cost per workflow") + _projections(report),
        ),
        ("Sign-off", sign_off_section(doc, report.created_at)),
    ]
    for i, (title, body) in enumerate(sections, 1):
        lines += [f"## {i}. {title}", ""] + body + [""]
    appendices: list[tuple[str, list[str]]] = [("Risk register in full", risks_in_full(doc))]
    others = other_pins(report)
    if others:
        appendices.append(("Every option's pins", others[2:]))  # without its own heading
    model = _down(decision_sections.model_sections(report))
    workings = projection_notes(report)
    if workings:
        model += ["", "### Projection workings", ""] + workings
    if model:
        appendices.append(("Costs, memory fit, scaling curve and confidence", model))
    appendices.append(("Data-quality caveats", caveats_section(report, doc)))
    scaling = _scaling(report)
    if scaling:
        appendices.append(("Multi-device scaling", _image(links, "scaling", "Scaling curve") + scaling))
    scan = _scan(report)
    if scan:
        appendices.append(("Migration scan of model.code_path", scan))
    appendices.append(("Sensitivity", sensitivity_section(report, doc, links)))
    appendices.append(
        (
            "Measured runs",
            _cached_runs(report)
            + _runs(report)
            + ["", "### Throughput per framework and mode", ""]
            + _chart_note(report, doc)
            + _image(links, "throughput", "Measured throughput")
            + _chart(report),
        )
    )
    accuracy = _accuracy(report)
    if accuracy:
        appendices.append(("Accuracy parity (accuracy probe)", accuracy))
    pipeline = _pipeline(report)
    if pipeline:
        appendices.append(("Input pipeline (pipeline probe)", pipeline))
    appendices.append(("How each score was reached", _how(report)))
    appendices.append(("Assumptions", [f"- {md(a)}" for a in report.assumptions] or ["- none"]))
    for i, (title, body) in enumerate(appendices):
        heading = f"Appendix {chr(65 + i)}. {title}"
        if collapse:
            lines += [f"<<details {heading}>>", ""] + body + ["", "<</details>>", ""]
        else:
            lines += [f"## {heading}", ""] + body + [""]
    return "\n".join(lines).rstrip() + "\n"


def assets(report: Report, output: str | PathLike[str], **options: object) -> dict[str, str]:
    """The charts as SVG files to write beside the document: `review.md` -> `review.scores.svg`, ..."""
    from advisor.render.charts import charts

    stem = Path(str(output)).name.rsplit(".", 1)[0]
    return {f"{stem}.{name}.svg": svg for name, svg in charts(report).items()}


def _links(files: dict[str, str]) -> dict[str, str]:
    """Chart name -> relative link, from the asset file names (they sit beside the document)."""
    out = {}
    for fname in files:
        m = re.search(r"\.([a-z_]+)\.svg$", fname)
        if m:
            out[m.group(1)] = quote(fname)
    return out


def _image(links: dict[str, str], name: str, alt: str) -> list[str]:
    return [f"![{alt}]({links[name]})", ""] if name in links else []


render = format
