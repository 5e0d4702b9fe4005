"""The report's charts as SVG text, drawn with matplotlib (Agg, imported on first use so that the
report's start-up stays fast). Deterministic: fixed figure sizes, a fixed `svg.hashsalt`, no date or
creator metadata, text kept as text; the same report gives byte-identical SVGs.

`charts(report) -> dict[name, svg]` gives the charts the report has data for:
  scores       total and per-criterion score per workflow
  sensitivity  tornado: the lead over the runner-up as each weight is halved / doubled
  throughput   measured images/s per framework and mode, with the 95% CI as error bars
  ranges       time to train and total cost of ownership per workflow, as ranges
  scaling      each workflow's projected communication curve and the scaling probe's measured points
"""

from __future__ import annotations

import io
import re
from contextlib import AbstractContextManager
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

from advisor.numbers import sig
from advisor.render.summary import label

if TYPE_CHECKING:
    from advisor.decision.evidence import Span
    from advisor.decision.scorecard import WorkflowScore
    from advisor.report import Report
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


SALT = "framework-advisor"
WIDTH = 7.5  # inches; heights per chart below
COLORS = {"pytorch": "#d9531e", "mindspore": "#2b6cb0", "hybrid": "#6b46c1"}
_RC = {
    "svg.hashsalt": SALT,
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def _plt() -> ModuleType:
    import logging

    # Where its config or cache folder cannot be written (HOME a file, RLIMIT_FSIZE) matplotlib logs that it
    # made a temporary one: the charts are still drawn, so stderr keeps only the tool's own lines.
    logging.getLogger("matplotlib").setLevel(logging.ERROR)
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _svg(fig: Figure, name: str) -> str:
    plt = _plt()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    plt.close(fig)
    return clean(buf.getvalue(), name)


def clean(svg: str, prefix: str) -> str:
    """SVG fit to be inlined in HTML or linked from Markdown: no XML prolog, doctype or RDF metadata
    (which names external vocabularies), and ids prefixed so that several charts share one page."""
    svg = re.sub(r"<\?xml[^>]*\?>\s*", "", svg)
    svg = re.sub(r"<!DOCTYPE[^>]*>\s*", "", svg)
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", svg)
    svg = re.sub(r'xlink:href="#([^"]+)"', lambda m: f'xlink:href="#{prefix}-{m.group(1)}"', svg)
    return svg.strip() + "\n"


def _figure(height: float, ncols: int = 1) -> tuple[Figure, Any]:  # one Axes, or an array of them
    plt = _plt()
    with plt.rc_context(_RC):
        fig, axes = plt.subplots(1, ncols, figsize=(WIDTH, height), constrained_layout=True)
    return fig, axes


def _ctx() -> AbstractContextManager[None]:
    return _plt().rc_context(_RC)


def scores_chart(report: Report) -> str | None:
    scores = list(report.scores)
    if not scores:
        return None
    with _ctx():
        fig, (ax1, ax2) = _figure(3.6, 2)
        names = [label(s.workflow) for s in scores]
        totals = [float(s.total) for s in scores]
        colors = [COLORS.get(s.workflow, "#888888") for s in scores]
        ax1.barh(names[::-1], totals[::-1], color=colors[::-1])
        for y, (t, s) in enumerate(zip(totals[::-1], scores[::-1])):
            word = "" if s.eligible else (" (ruled out)" if s.applicable else "")
            ax1.text(t + 1, y, (f"{t:.1f}" if s.applicable else "n/a (does not apply)") + word, va="center")
        ax1.set_xlim(0, 115)
        ax1.set_title("Weighted total (0-100)")
        crits = [c.name for c in scores[0].criteria]
        h = 0.8 / max(1, len(scores))
        for k, s in enumerate(scores):
            vals = [float(c.score) if s.applicable else 0.0 for c in s.criteria]  # n/a: no bar
            ys = [i + (k - (len(scores) - 1) / 2) * h for i in range(len(vals))]
            ax2.barh(ys, vals, height=h, color=colors[k], label=names[k])
        weights = [float(c.weight) for c in scores[0].criteria]
        ax2.set_yticks(range(len(crits)), [f"{c} ({w:.2f})" for c, w in zip(crits, weights)])
        ax2.invert_yaxis()
        ax2.set_xlim(0, 100)
        ax2.set_title("Per criterion (weight)")
        # below the axes, never over the bars (the compliance bars sit at the lower right)
        ax2.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=len(scores), fontsize=7, frameon=False)
        return _svg(fig, "scores")


def _total(s: WorkflowScore, weights: list[float]) -> float:
    vals = [float(c.score) for c in s.criteria]
    tw = sum(weights)
    return sum(w * v for w, v in zip(weights, vals)) / tw if tw else 0.0


def tornado_rows(report: Report) -> list[tuple[str, float, float]]:
    """(criterion, lead with the weight halved, lead with it doubled), others as they are, all
    renormalised: the lead of the recommendation over the runner-up; below zero it flips."""
    rec = report.recommendation
    by = {s.workflow: s for s in report.scores}
    top, other = by.get(rec.workflow), by.get(rec.runner_up or "")
    if top is None or other is None:
        return []
    base = [float(c.weight) for c in top.criteria]
    rows = []
    for i, c in enumerate(top.criteria):
        leads = []
        for f in (0.5, 2.0):
            w = list(base)
            w[i] *= f
            leads.append(_total(top, w) - _total(other, w))
        rows.append((c.name, leads[0], leads[1]))
    return sorted(rows, key=lambda r: -abs(r[2] - r[1]))


def sensitivity_chart(report: Report) -> str | None:
    rows = tornado_rows(report)
    if not rows:
        return None
    rec = report.recommendation
    with _ctx():
        fig, ax = _figure(0.35 * len(rows) + 1.2)
        base = float(rec.margin)
        for y, (name, half, double) in enumerate(rows):
            ax.barh(y, half - base, left=base, color="#9ab8dd", height=0.6)
            ax.barh(y, double - base, left=base, color="#2b6cb0", height=0.6)
        ax.set_yticks(range(len(rows)), [r[0] for r in rows])
        ax.invert_yaxis()
        ax.axvline(base, color="#333333", linewidth=0.8)
        ax.axvline(0, color="#c53030", linewidth=1.0, linestyle="--")
        ax.set_xlabel(
            f"{label(rec.workflow)}'s lead over {label(rec.runner_up)} (points); "
            "light: weight halved, dark: doubled; red: the verdict flips"
        )
        return _svg(fig, "sensitivity")


def throughput_chart(report: Report) -> str | None:
    rates = [(r, r.images_per_second) for r in report.probes.runs if r.status == "ok" and r.images_per_second]
    if not rates:
        return None
    rates.sort(key=lambda rv: (str(rv[0].model), rv[0].hardware, -rv[1], rv[0].id))
    runs = [r for r, _ in rates]
    with _ctx():
        fig, ax = _figure(0.3 * len(runs) + 1.2)
        labels, vals, lo, hi, colors = [], [], [], [], []
        for r, rate in rates:
            v = float(rate)
            ci = r.ci95 or [v, v]
            unusable = r.quality == "unusable"
            labels.append(
                f"{r.model} on {r.hardware}: {r.framework} {r.mode or ''} bs{r.batch_size}"
                + (" (UNUSABLE, not scored)" if unusable else "")
            )
            vals.append(v)
            lo.append(max(0.0, v - float(ci[0])))
            hi.append(max(0.0, float(ci[1]) - v))
            colors.append("#cbd5e0" if unusable else COLORS.get(r.framework, "#888888"))
        # dots on a log axis, not bars: a bar's length invites a ratio comparison a log axis cannot support
        for y, (v, low, high, colour, r) in enumerate(zip(vals, lo, hi, colors, runs)):
            unusable = r.quality == "unusable"
            ax.errorbar(
                v,
                y,
                xerr=[[low], [high]],
                fmt="o",
                markersize=6,
                color=colour,
                ecolor="#4a5568",
                capsize=3,
                markerfacecolor="none" if unusable else colour,  # hollow: measured, not scored
                markeredgecolor="#718096" if unusable else colour,
            )
        ax.set_yticks(range(len(runs)), labels)
        ax.set_ylim(len(runs) - 0.5, -0.5)
        ax.set_xscale("log")
        ax.grid(axis="x", which="both", color="#e2e8f0", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.set_xlabel("measured images/s, log scale (lines: 95% CI)")
        return _svg(fig, "throughput")


def _range_axis(
    ax: Axes, rows: list[tuple[str, str, float, float]], xlabel: str, text: Callable[[float, float], str]
) -> None:
    """Horizontal range bars, one per workflow, each labelled with its range; log axis when wide."""
    for y, (wf, name, low, high) in enumerate(rows):
        ax.plot(
            [low, max(high, low * 1.02)], [y, y], linewidth=8, solid_capstyle="butt", color=COLORS.get(wf, "#888888")
        )
        ax.text(high, y - 0.3, " " + text(low, high), va="bottom", fontsize=7)
    ax.set_yticks(range(len(rows)), [r[1] for r in rows])
    ax.set_ylim(len(rows) - 0.4, -0.8)
    lows = [r[2] for r in rows if r[2] > 0]
    if lows and max(r[3] for r in rows) / min(lows) > 20:
        ax.set_xscale("log")
        xlabel += " (log)"
    else:
        ax.set_xlim(0, max(r[3] for r in rows) * 1.35)
    ax.set_xlabel(xlabel)


def _pair(v: Span | None) -> tuple[float, float] | None:
    return None if v is None else (float(v.low), float(v.high))


def decision_tco_totals(report: Report) -> dict[str, tuple[float, float]]:
    """Workflow -> total cost of ownership range (the decision model's `costs`); empty when absent."""
    out = {}
    for item in report.costs:
        total = _pair(item.total_usd)
        if total:
            out[item.workflow] = total
    return out


def ranges_chart(report: Report) -> str | None:
    from advisor.decision.evidence import Span
    from advisor.render._fmt import hours, num

    times = [
        (p.workflow, label(p.workflow), float(t.low), float(t.high))
        for p in report.projections
        if (t := p.time_to_train_hours) is not None
    ]
    totals = decision_tco_totals(report)
    costs = [(wf, label(wf), t[0], t[1]) for wf, t in totals.items() if t and t[1] > 0]
    if not times and not costs:
        return None

    def span_text(lo: float, hi: float) -> str:
        return hours(Span(low=lo, high=hi, unit="h"))

    with _ctx():
        fig, (ax1, ax2) = _figure(2.4, 2)
        if times:
            _range_axis(ax1, times, "time to train (hours)", span_text)
        else:
            ax1.set_axis_off()
            ax1.text(0.5, 0.5, "no time-to-train projection", ha="center", transform=ax1.transAxes)
        if costs:
            _range_axis(ax2, costs, "cost of ownership (USD)", lambda lo, hi: f"${num(lo)}-{num(hi)}")
        else:
            ax2.set_axis_off()
        return _svg(fig, "ranges")


def scaling_points(report: Report) -> dict[str, list[tuple[float, float, float]]]:
    """Series name -> [(devices, efficiency low, high)]: each workflow's projected curve (the decision
    model's communication curve) when present, else the scaling probe's measured points."""
    out: dict[str, list[tuple[float, float, float]]] = {}
    for proj in report.projections:
        curve = proj.communication.curve if proj.communication is not None else []
        if proj.devices > 1 and len(curve) > 1:  # one device has no curve to show
            out[proj.workflow] = [(float(p.devices), float(p.low), float(p.high)) for p in curve]
    # the scaling probe's measured points beside the projected curves
    for m in report.scaling.measurements:
        e = m.efficiency
        if e is not None:
            # one rank is linear by definition: the curve starts there
            out.setdefault(f"{m.framework} (measured)", [(1.0, 1.0, 1.0)]).append(
                (float(m.ranks), float(e.min), float(e.max))
            )
    return {k: sorted(v) for k, v in out.items()}


def scaling_chart(report: Report) -> str | None:
    series = scaling_points(report)
    if not series:
        return None
    with _ctx():
        fig, ax = _figure(2.8)
        for name, pts in sorted(series.items()):
            xs = [p[0] for p in pts]
            mid = [(p[1] + p[2]) / 2 for p in pts]
            color = COLORS.get(name.split(" ")[0], None)
            ax.plot(xs, mid, marker="o", label=label(name), color=color)
            ax.fill_between(xs, [p[1] for p in pts], [p[2] for p in pts], alpha=0.2, color=color)
        ax.set_xscale("log", base=2)
        ticks = sorted({p[0] for pts in series.values() for p in pts})
        ax.set_xticks(ticks, [f"{sig(t, 6)}" for t in ticks])
        ax.minorticks_off()
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("devices")
        ax.set_ylabel("scaling efficiency (share of linear)")
        label_text = report.scaling.label
        if label_text:
            ax.set_title(f"scaling probe result ({label_text}; band: min-max over repetitions)", fontsize=8)
        ax.legend(fontsize=7, frameon=False)
        return _svg(fig, "scaling")


CHARTS: dict[str, Callable[..., str | None]] = {
    "scores": scores_chart,
    "sensitivity": sensitivity_chart,
    "throughput": throughput_chart,
    "ranges": ranges_chart,
    "scaling": scaling_chart,
}


def charts(report: Report) -> dict[str, str]:
    """Every chart the report has data for, name -> SVG text, in a fixed order."""
    out = {}
    for name, make in CHARTS.items():
        svg = make(report)
        if svg:
            out[name] = svg
    return out
