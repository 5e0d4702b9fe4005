"""The report as a Markdown review document: verdict, score table, projections, the measured runs in
the field reports' comparison-table style, a throughput chart, pitfalls, sensitivity, assumptions."""

from __future__ import annotations

from typing import Any

from advisor.render import decision_sections
from advisor.render._fmt import LABELS, bar, hours, num, run_label, span, usd


def _table(header: list[str], rows: list[list[str]], align: list[str] | None = None) -> list[str]:
    align = align or ["l"] + ["r"] * (len(header) - 1)
    sep = ["---:" if a == "r" else ":---" for a in align]
    cell = lambda t: str(t).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    return ["| " + " | ".join(cell(h) for h in header) + " |", "| " + " | ".join(sep) + " |"] + [
        "| " + " | ".join(cell(c) for c in row) + " |" for row in rows
    ]


def _scores(report: Any) -> list[str]:
    scores = report.scores
    header = ["Criterion", "Weight"] + [LABELS[s.workflow] for s in scores]
    rows = []
    for i, c in enumerate(scores[0].criteria):
        rows.append([c.name, f"{c.weight:.2f}"] + [f"{s.criteria[i].score:.0f}" for s in scores])
    rows.append(["**Total**", "1.00"] + [f"**{s.total:.1f}**" for s in scores])
    rows.append(["Eligible", ""] + ["yes" if s.eligible else "**no**" for s in scores])
    out = _table(header, rows)
    blocked = [(s.workflow, b) for s in scores for b in s.blocked_by]
    if blocked:
        out += [""] + [f"- {LABELS[w]} is ruled out: {why}" for w, why in blocked]
    origins = [w for w in report.weights if w.origin == "user"]
    raised = [f"{w.name} ({', '.join(w.because)})" for w in report.weights if w.because]
    out.append("")
    if origins:
        out.append("Weights set in the requirements file: " + ", ".join(w.name for w in origins) + " (all renormalised).")
    if raised:
        out.append("Default weights raised by: " + "; ".join(raised) + ".")
    return out


def _how(report: Any) -> list[str]:
    out = []
    for s in report.scores:
        out.append(f"**{LABELS[s.workflow]}**")
        out.append("")
        for c in s.criteria:
            refs = ", ".join(dict.fromkeys(f"{e.kind}:{e.ref}" for e in c.evidence))  # one mention per source
            out.append(f"- {c.name} {c.score:.0f}: {c.note}" + (f" [{refs}]" if refs else ""))
        out.append("")
    return out


def _projections(report: Any) -> list[str]:
    rows = []
    for p in report.projections:
        where = f"{p.accelerator or p.target} x{p.devices}"
        if not p.supported:
            rows.append([LABELS[p.workflow], p.path, where, "unsupported", "-", "-", p.basis_detail])
            continue
        rows.append([LABELS[p.workflow], p.path, where, span(p.images_per_second), hours(p.time_to_train_hours),
                     usd(p.compute_cost_usd), f"{p.basis}: {p.basis_detail}"])
    out = _table(["Workflow", "Path", "Hardware", "Images/s", "Time to train", "Compute cost", "Basis"], rows,
                 ["l", "l", "l", "r", "r", "r", "l"])
    notes = sorted({n for p in report.projections for n in p.notes})
    if notes:
        out += [""] + [f"- {n}" for n in notes]
    out += ["", f"Performance and cost are compared on the basis all workflows share: **{report.comparison_basis}**."]
    return out


def _spread(x: Any) -> str:
    if x is None:
        return "-"
    low, high = f"{x.min:.0%}", f"{x.max:.0%}"
    return f"{x.median:.0%} ({low}-{high}, n={x.n})" if low != high else f"{x.median:.0%} (n={x.n})"


def _scaling(report: Any) -> list[str]:
    """The scaling probe's figures and, per workflow, how the projection accounts for communication."""
    info = getattr(report, "scaling", None)
    comms = [(p, p.communication) for p in report.projections if p.communication is not None]
    multi = report.requirements.hardware.devices > 1 or report.requirements.needs.distributed_training
    if not multi and (info is None or info.source == "none"):
        return []
    out: list[str] = []
    if info is not None and info.source != "none":
        where = info.file or "this host's cache"
        out.append(f"Scaling probe result from {where} ({info.created or 'undated'}), label **{info.label}**"
                   + (f": {info.label_text}" if info.label_text else "") + ".")
        out.append("")
        rows = [[f"{m.framework} {m.model}", f"{m.launcher or '-'} ({m.backend or '-'})", m.device, str(m.ranks),
                 _spread(m.efficiency), _spread(m.allreduce_share),
                 "ok" if m.gate_ok else ("FAILED" if m.gate_ok is False else "-")] for m in info.measurements]
        if rows:
            out += _table(["Framework", "Launcher", "Device", "Ranks", "Efficiency (median, min-max)", "Allreduce share of step", "Gate"],
                          rows, ["l", "l", "l", "r", "r", "r", "l"]) + [""]
        out += [f"- {f}" for f in info.failed] + [f"- warning: {w}" for w in info.warnings]
    if info is not None and info.note:
        out += [info.note, ""]
    for p, c in comms:
        kept = f", keeps {span(c.kept)} of linear" if c.kept is not None and c.devices > 1 else ""
        out.append(f"- {LABELS[p.workflow]} ({p.path}, {c.devices} device(s)): communication **{c.basis}**: {c.basis_detail}{kept}")
        out += [f"  - {n}" for n in c.notes]
    return out


def _runs(report: Any) -> list[str]:
    runs = report.probes.runs
    if not runs:
        return [report.probes.note or "No probe results."]
    out = []
    if report.probes.note:
        out += [report.probes.note, ""]
    header = ["Metric"] + [run_label(r) for r in runs]

    def row(name: str, values: list[str]) -> list[str]:
        return [name] + values

    rows = [
        row("Device", [f"{r.device or '-'} ({r.hardware})" for r in runs]),
        row("Status", [r.status + (f": {r.error}" if r.error else "") for r in runs]),
        row("Throughput (img/s)", [num(r.images_per_second) for r in runs]),
        row("95% CI (img/s)", [f"{num(r.ci95[0])}-{num(r.ci95[1])}" if r.ci95 else "-" for r in runs]),
        row("Step time, median (ms)", [num(r.step_ms_median) for r in runs]),
        row("Step time CV", [f"{r.step_cv:.1%}" if r.step_cv is not None else "-" for r in runs]),
        row("First step, incl. compile (s)", [num(r.first_step_seconds) for r in runs]),
        row("Compile overhead (s)", [num(r.compile_seconds) for r in runs]),
        row("Peak memory (MB)", [num(r.peak_memory_mb) for r in runs]),
        row("Loss first -> last", [f"{num(r.loss_first)} -> {num(r.loss_last)}" if r.loss_first is not None else "-" for r in runs]),
    ]
    out += _table(header, rows)
    warned = [(r.id, w) for r in runs for w in r.warnings]
    if warned:
        out += [""] + [f"- {rid}: {w}" for rid, w in warned]
    if report.probes.parity:
        out.append("")
    for p in report.probes.parity:
        out.append(f"- parity {p.get('model', '?')}: {parity_text(p)}")
    return out


def parity_text(p: dict) -> str:
    """A parity entry: a comparison that never ran (skipped, unavailable, a worker failed) is not a mismatch."""
    if p.get("status") not in (None, "ok") and not p.get("checks"):
        return f"not compared ({p.get('status')})" + (f": {p['error']}" if p.get("error") else "")
    diff = p.get("max_abs_diff")
    text = f"max abs diff {diff:.1e}" if isinstance(diff, (int, float)) else "max abs diff -"
    verdict = "ok" if p.get("ok") else ("MISMATCH" if p.get("ok") is False else "?")
    return f"{text} ({verdict})" + (f": {p['likely_cause']}" if verdict == "MISMATCH" and p.get("likely_cause") else "")


def _chart(report: Any) -> list[str]:
    ok = [r for r in report.probes.runs if r.status == "ok" and r.images_per_second]
    if not ok:
        return ["No measured throughput to chart."]
    out = []
    for model in sorted({(r.model or "?", r.hardware) for r in ok}):
        group = sorted((r for r in ok if (r.model or "?", r.hardware) == model), key=lambda r: (-r.images_per_second, r.id))
        best = max(r.images_per_second for r in group)
        width = max(len(f"{r.framework} {r.mode or ''} bs{r.batch_size}") for r in group)
        out.append(f"{model[0]} on {model[1]} (images/s, higher is better)")
        out.append("```")
        for r in group:
            label = f"{r.framework} {r.mode or ''} bs{r.batch_size}".ljust(width)
            out.append(f"{label} {bar(r.images_per_second, best)} {num(r.images_per_second)}")
        out.append("```")
        out.append("")
    return out


def _pitfalls(report: Any) -> list[str]:
    wf = LABELS[report.recommendation.workflow]
    if not report.pitfalls:
        return [f"No knowledge-base pitfalls apply to {wf} for these requirements."]
    out = []
    for i, p in enumerate(report.pitfalls, 1):
        cost = f"~{num(p.expected_hours)} h" if p.expected_hours is not None else "cost unknown"
        seen = f"; cost {num(p.hours_in_field_report)} h in the field report" if p.hours_in_field_report is not None else ""
        out.append(f"{i}. **{p.title}** ({cost}{seen})")
        out.append(f"   - symptom: {p.symptom}")
        out.append(f"   - cause: {p.cause}")
        out.append(f"   - fix: {p.fix}")
        out.append(f"   - source: {p.source} ({p.confidence}); id `{p.id}`")
    return out


def _scan(report: Any) -> list[str]:
    """The migration scan of model.code_path that the migration scores cite (`advisor scan` for all of it)."""
    s = report.scan
    if not s:
        return []
    effort = s.get("effort_hours") or []
    out = [f"`{s.get('path')}`: {s.get('python_files', 0)} Python file(s), {s.get('lines', 0)} lines, "
           f"{len(s.get('apis') or [])} mapped and {len(s.get('unmapped') or [])} unmapped PyTorch APIs "
           f"(read with `ast`, never run).", ""]
    if len(effort) == 2:
        out.append(f"- effort: {span({'low': effort[0], 'high': effort[1]}, 'h')} (worst case {num(s.get('effort_worst_case_hours'))} h), "
                   f"risk **{s.get('risk')}**; basis: {s.get('effort_basis')}")
    out += [f"- risk: {r}" for r in s.get("risk_reasons") or []]
    if s.get("route"):
        out.append(f"- route: {s.get('route_why') or s.get('route')}")
    rows = [[h.get("kind", "?"), str(h.get("count", "")), h.get("risk", ""),
             span({"low": h["effort_hours"][0], "high": h["effort_hours"][1]}, "h") if h.get("effort_hours") else "-",
             h.get("pitfall") or "-"] for h in s.get("hazard_summary") or []]
    if rows:
        out += [""] + _table(["Hazard", "Places", "Risk", "Effort", "Pitfall"], rows, ["l", "r", "l", "r", "l"])
    return out


def render(report: Any) -> str:
    rec = report.recommendation
    req = report.requirements
    lines = [
        f"# Framework advice: {req.name}",
        "",
        f"{report.tool.name} {report.tool.version}, {report.created_at}, knowledge base {report.knowledge_base.version or 'not loaded'}, "
        f"report schema {report.schema_version}.",
        "",
        "## Recommendation",
        "",
        f"**{LABELS[rec.workflow]}**, confidence **{rec.confidence}**"
        + (f", {rec.margin:.1f} points ahead of {LABELS[rec.runner_up]}" if rec.runner_up else "")
        + (" (the measured difference is inside the noise)" if rec.inside_noise else "") + ".",
        "",
        f"> {rec.summary}",
        "",
    ]
    lines += [f"- {r}" for r in rec.reasons] + [""]
    lines += ["## Scores", ""] + _scores(report) + [""]
    lines += ["## Projections for the workload", ""] + _projections(report) + [""]
    scaling = _scaling(report)
    if scaling:
        lines += ["## Multi-device scaling", ""] + scaling + [""]
    scan = _scan(report)
    if scan:
        lines += ["## Migration scan of model.code_path", ""] + scan + [""]
    lines += ["## Measured runs", ""] + _runs(report) + [""]
    lines += ["## Throughput per framework and mode", ""] + _chart(report) + [""]
    lines += [f"## Pitfalls for {LABELS[rec.workflow]}, by expected cost", ""] + _pitfalls(report) + [""]
    lines += ["## Sensitivity", ""] + [f"- {s.note}" for s in report.sensitivity] + [""]
    lines += decision_sections.sections(report.model_dump(mode="json"))  # decision helper: memory, scaling, TCO, confidence, schedule
    lines += ["## How each score was reached", ""] + _how(report)
    lines += ["## Assumptions", ""] + ([f"- {a}" for a in report.assumptions] or ["- none"]) + [""]
    return "\n".join(lines).rstrip() + "\n"
