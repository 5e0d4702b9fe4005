"""Markdown for the decision model's parts of the report: memory fit, the scaling curve, total cost of
ownership, the three parts of confidence, and the migration schedule, from a Report (a report's JSON
document is validated into one first, so any renderer can call it); each section is headed `## <name>`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional, Union

from advisor.numbers import sig
from advisor.render._fmt import md_table
from advisor.sanitize import for_markdown as md  # every string the section did not write itself

if TYPE_CHECKING:
    from advisor.decision.evidence import Span
    from advisor.report import Report

LABELS = {"pytorch": "PyTorch", "mindspore": "MindSpore", "hybrid": "Hybrid"}


def _n(x: Optional[float], digits: int = 3) -> str:
    return "-" if x is None else sig(x, digits)


def _usd(s: Optional[Span]) -> str:
    if s is None:
        return "-"
    low, high = s.low, s.high
    return f"${low:,.0f}" if round(low) == round(high) else f"${low:,.0f}-{high:,.0f}"


def _pct(low: float, high: float) -> str:
    a, b = f"{low:.0%}", f"{high:.0%}"
    return a if a == b else f"{a}-{b}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return md_table(header, rows, ["l"] * len(header))


def layout_text(layout: object) -> str:
    """'TP 8 x PP 1 x DP 48, distributed optimizer, micro-batch 1' (a transformer's chosen layout; why it
    was chosen is the fit's own line below the table)."""
    if layout is None:
        return "-"
    parts = f"TP {layout.tensor_parallel} x PP {layout.pipeline_parallel} x DP {layout.data_parallel}"
    if layout.expert_parallel > 1:
        parts += f" x EP {layout.expert_parallel}"
    sharding = f", {layout.sharding}" if layout.sharding and layout.sharding != "none" else ""
    return f"{parts}{sharding}, micro-batch {layout.micro_batch}, {_n(layout.per_device_gb)} GB/device"


STRATEGY_COLUMNS = ("data-parallel", "optimizer-sharding", "model-parallel")
"""The memory table's per-device columns, one per strategy the decision model sizes."""


def _batch_basis(m: object) -> str:
    """What every per-device column counts as activations: the same batch in each."""
    layout = getattr(m, "layout", None) or getattr(m, "min_layout", None)
    if layout is not None:
        return f"every per-device column counts the activations of a micro-batch of {layout.micro_batch} sequence(s)"
    return f"every per-device column counts the activations of {m.batch_per_device} sample(s) per device"  # type: ignore[attr-defined]


def memory_fit(report: Report) -> list[str]:
    fits = report.memory
    if not fits:
        return []
    by_acc: dict[str, list[str]] = {}
    applies = {s.workflow: s.applicable for s in report.scores}
    for p in report.projections:
        if p.accelerator and applies.get(p.workflow, True):
            by_acc.setdefault(p.accelerator, []).append(LABELS.get(p.workflow, p.workflow))
    rows, seen, notes = [], set(), []
    for m in fits:
        key = (m.accelerator, m.devices)
        if key in seen:
            continue
        seen.add(key)
        by_strategy = {s.strategy: s for s in m.strategies}
        rows.append(
            [
                str(m.accelerator),
                "/".join(by_acc.get(m.accelerator or "", [])),
                _n(m.usable_gb),
                f"{sig(m.parameters_millions, 6)} M, {m.precision}, {m.optimizer} ({sig(m.bytes_per_parameter, 6)} B/param)",
                _n(m.states_gb),
                # every column from the same arithmetic at the same per-device batch (the strategies')
                *(_n(getattr(by_strategy.get(s), "per_device_gb", None)) for s in STRATEGY_COLUMNS),
                f"**{m.strategy}**" if m.strategy == "does-not-fit" else m.strategy,
                layout_text(m.layout),
                str(m.min_devices or "-"),
            ]
        )
        basis = f"{m.accelerator}: {_batch_basis(m)}; usable memory {m.usable_basis}" if m.usable_basis else ""
        # the states column is the plain mixed-precision count; a route's formula can hold more per device
        # (Megatron's unsharded fp32 main gradients), so say which count each column is
        counts = (
            f"{m.accelerator}: the Model states column counts {sig(m.bytes_per_parameter, 6)} bytes/parameter "
            f"(the ZeRO paper's count); the per-device columns follow the route's formula, {m.formula}"
            if m.formula
            else ""
        )
        notes += [n for n in [basis, counts, *m.notes] if n and n not in notes]
    out = [
        "## Memory fit",
        "",
        "GB are 10^9 bytes in every column; a vendor's memory figure is binary (GiB), converted once (usable memory below).",
        "",
    ]
    out += _table(
        [
            "Accelerator",
            "Workflows",
            "Usable GB/device",
            "Model",
            "Model states GB",
            "Data parallel GB/device",
            "Optimizer sharded GB/device",
            "Split (fully sharded or model-parallel) GB/device",
            "Strategy",
            "Layout chosen",
            "Min devices",
        ],
        rows,
    )
    out += [""] + [f"- {md(n)}" for n in notes]
    out += [
        "- arithmetic: DeepSpeed's ZeRO estimators (mixed-precision Adam 16 bytes/parameter; ZeRO-2 4 + 16/N, ZeRO-3 18/N "
        "+ 4 x the largest layer) plus activations and the device's usable memory; `accelerate estimate-memory` counts "
        "8 bytes/parameter at fp16/bf16 (no fp32 master copy or states) and no activations",
        "",
    ]
    return out


def scaling_curve(report: Report) -> list[str]:
    seen, out = set(), []
    for p in report.projections:
        c = p.communication
        if c is None or not c.curve or c.devices <= 1:
            continue
        key = (p.accelerator, c.interconnect)
        if key in seen:
            continue
        seen.add(key)
        wfs = [
            LABELS.get(q.workflow, q.workflow)
            for q in report.projections
            if (q.accelerator, q.communication.interconnect if q.communication is not None else None) == key
        ]
        out.append(
            f"{'/'.join(wfs)} on {md(p.accelerator or p.target)} ({md(c.interconnect)}): "
            f"fraction of linear throughput kept; basis **{md(c.basis)}**: {md(c.basis_detail)}"
        )
        out.append("")
        out += _table(
            ["Devices"] + [f"**{pt.devices}**" if pt.target else str(pt.devices) for pt in c.curve],
            [["kept"] + [_pct(pt.low, pt.high) for pt in c.curve]],
        )
        out.append("")
        # what each part of the curve rests on (with a curve, its knowledge evidence is the curves' own)
        for e in c.evidence:
            if e.kind == "knowledge":
                out.append(f"- {md(e.ref)}: {md(e.source or 'no source')} ({md(e.confidence or '-')})")
            elif e.kind == "measured" and e.ref.startswith("inter-host:"):
                out.append(f"- {md(e.ref)}: {md(e.detail)} (measured here)")
        if out[-1] != "":
            out.append("")
    if not out:
        return []
    return ["## Scaling curve", ""] + out


def total_cost(report: Report) -> list[str]:
    costs = report.costs
    if not costs:
        return []
    names = ["team", "compute", "energy", "engineering"]
    rows, details = [], []
    applies = {s.workflow: s.applicable for s in report.scores}
    for c in costs:
        if not applies.get(c.workflow, True):  # a workflow that does not apply has no cost to compare
            rows.append([LABELS.get(c.workflow, c.workflow)] + ["n/a"] * (len(names) + 2))
            continue
        parts = {p.name: p for p in c.parts}
        cells = []
        for n in names:
            p = parts.get(n)
            text = _usd(p.usd) if p else "-"
            cells.append(text if not p or p.counted else f"({text}, not added)")
        rows.append(
            [LABELS.get(c.workflow, c.workflow)]
            + cells
            + [_usd(c.total_usd), f"{sig(c.power_budget_kw, 6)} kW" if c.power_budget_kw else "-"]
        )
        for n in names:
            p = parts.get(n)
            if p is None:
                continue
            detail = p.detail
            if n == "energy" and c.power_budget_kw and p.usd is None:
                # the power budget beside it is computed from the card's power: say what is missing instead
                detail = (
                    f"not priced: the power budget is known ({sig(c.power_budget_kw, 6)} kW, from the card's power), "
                    "but the run's energy could not be (the knowledge base lacks the projection's power draw, a PUE or "
                    "an electricity price)"
                )
            srcs = ", ".join(dict.fromkeys(e.ref for e in p.evidence if e.kind == "knowledge"))
            details.append(
                f"- {LABELS.get(c.workflow, c.workflow)} {n}: {md(detail)}" + (f" [{md(srcs)}]" if srcs else "")
            )
            details += [f"  - {md(i.name)}: {_n(i.hours[0])}-{_n(i.hours[1])} h, {_usd(i.usd)}" for i in p.items]
    out = ["## Total cost of ownership", ""]
    out += _table(["Workflow", "Team", "Compute", "Energy", "Engineering", "Total", "Power budget"], rows)
    notes = sorted({n for c in costs for n in c.notes})
    return out + [""] + details + [f"- {md(n)}" for n in notes] + [""]


def confidence(report: Report) -> list[str]:
    rec = report.recommendation
    parts = rec.confidence_parts
    if parts is None:
        return []
    ev, flip = parts.evidence, parts.nearest_flip
    out = ["## Confidence", "", f"**{md(parts.level)}**: {md(parts.decided_note)}.", ""]
    runner = rec.runner_up
    margin = (
        f"- margin: {parts.margin:.1f} points over {LABELS.get(runner, runner)} (on its own: {md(parts.margin_level)})"
        if runner
        else "- margin: no eligible runner-up (the others are ruled out by hard constraints)"
    )
    out.append(margin + (" - a tie, not a win" if parts.tie else ""))
    counts = ", ".join(f"{k} {v}" for k, v in sorted(ev.counts.items()))
    out.append(
        f"- evidence that decides it: {md(ev.label)} ({ev.score:.1f}/5)"
        + (f"; {md(ev.note)}" if ev.note else "")
        + (f" ({md(counts)})" if counts else "")
    )
    if flip is not None:
        out.append(f"- nearest flip: {md(flip.note)} ({flip.relative_change:.0%} away)")
    else:
        out.append("- nearest flip: no weight or searched constant changes the winner")
    out += [f"- lowered: {md(s)}" for s in parts.steps]
    flips = [c for c in report.constant_sensitivity if c.threshold is not None]
    if flips:
        out += [
            "",
            "Named constants that would change the verdict (advisor.constants; the others do not within their range):",
            "",
        ]
        out += [f"- {md(c.name)} = {sig(c.value, 6)} {md(c.unit)}: {md(c.note)} ({md(c.source)})" for c in flips]
    return out + [""]


def schedule(report: Report) -> list[str]:
    rows, findings = [], []
    applies = {s.workflow: s.applicable for s in report.scores}
    for s in report.schedules:
        if not s.hours or s.hours[1] <= 0:
            continue
        if not applies.get(s.workflow, True):  # a workflow that does not apply has no schedule
            rows.append([LABELS.get(s.workflow, s.workflow)] + ["n/a"] * 7)
            continue
        wf = LABELS.get(s.workflow, s.workflow)
        expected = s.expected_hours
        calendar = s.calendar_weeks
        rows.append(
            [
                wf,
                f"{_n(s.hours[0])}-{_n(s.hours[1])} h",
                f"~{_n(expected)} h" if expected is not None else "-",
                f"{_n(s.weeks[0])}-{_n(s.weeks[1])}",
                f"{_n(calendar[0])}-{_n(calendar[1])}" if calendar else "-",
                _n(s.allowed_hours),
                f"{s.pressure:.0%}" if s.pressure is not None else "-",
                s.fits or "-",
            ]
        )
        if s.finding:  # the work's parts are in the appendix (how each cost was reached); a finding stays here
            findings.append(f"- {wf}: **{md(s.finding)}**")
    if not rows:
        return []
    out = ["## Schedule", ""]
    out += _table(
        [
            "Workflow",
            "Migration work (every pitfall in full)",
            "Expected (likelihood-weighted)",
            "Team-weeks",
            "Calendar weeks (migration + training)",
            "Hours allowed before the deadline",
            "Pressure",
            "Fits",
        ],
        rows,
    )
    notes = [
        "- expected: each pitfall's fix hours x its likelihood here, the rest at midpoint; the full range charges "
        "every pitfall (the cost table uses it; its parts: the appendix, how each cost was reached)"
    ]
    return out + [""] + findings + notes + [""]


def sections(report: Union[Report, Mapping[str, object]]) -> list[str]:
    """All the decision sections, as Markdown lines (empty sections are left out). A report's JSON
    document (a saved report read back) is validated into the Report once, here."""
    if isinstance(report, Mapping):
        from advisor.report import Report

        report = Report.model_validate(report)
    return memory_fit(report) + scaling_curve(report) + total_cost(report) + confidence(report) + schedule(report)


def _split_notes(lines: list[str]) -> tuple[list[str], list[str]]:
    """A section's heading and table, and its bullet notes (the derivations)."""
    first = next((i for i, line in enumerate(lines) if line.startswith("- ")), len(lines))
    return lines[:first], [line for line in lines[first:] if line]


def plan_sections(report: Report) -> list[str]:
    """The body's part of them: the cost of ownership table and the schedule."""
    cost, _ = _split_notes(total_cost(report))
    return cost + schedule(report)


def model_sections(report: Report) -> list[str]:
    """The appendix's part: how each cost was reached, the memory fit, the scaling curve and how the
    confidence was reached."""
    _, notes = _split_notes(total_cost(report))
    how = ["## How each cost was reached", ""] + notes + [""] if notes else []
    return how + memory_fit(report) + scaling_curve(report) + confidence(report)
