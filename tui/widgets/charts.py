"""The charts (textual-plotext): throughput per framework and mode with its CI95, the step-time
spread (p10-median-p90) of each run, the workflows' total scores and the sensitivity tornado.

Each chart draws from plain data (a ProbeSuite / Report as a mapping) and says what it lacks instead of
drawing an empty frame. Throughput of LeNet and ResNet differs ~100x, so the probe charts show one
model at a time: the model of the run highlighted in the results table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union

from textual_plotext import PlotextPlot

from tui.data import given
from tui.glyphs import ascii_only

if TYPE_CHECKING:
    from textual_plotext.plotext_plot import Plot

    from advisor.decision.scorecard import SensitivityItem, WorkflowScore
    from probes.accuracy.models import AccuracyRun, AccuracySuite
    from probes.scaling.models import ScalingResult
    from probes.training.models import ProbeRun, ProbeSuite
    from probes.transformer.models import GptResult, GptRun


def _bar_marker() -> Optional[str]:
    return "#" if ascii_only() else None  # None: plotext's block


def _short_run(run: Union[ProbeRun, AccuracyRun, GptRun]) -> str:
    short = {"pytorch": "pt", "mindspore": "ms"}  # the charts are half a screen wide
    return f"{short.get(run.framework, run.framework)} {run.mode}"


def ok_runs(suite: ProbeSuite, model: str | None) -> list[ProbeRun]:
    runs = [r for r in suite.runs if r.status == "ok"]
    if model is None and runs:
        model = runs[0].model
    return [r for r in runs if r.model == model]


def _ranges(plt: Plot, ys: list, lows: list, highs: list) -> None:
    """A horizontal line from low to high at each y (plotext's error() is symmetric only)."""
    marker = "-" if ascii_only() else "─"
    for y, low, high in zip(ys, lows, highs):
        if high > low:
            plt.plot([low, high], [y, y], marker=marker, color="red")


def nice_ticks(low: float, high: float, most: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 x 10^k apart) covering [low, high]: 0, 1,000, 2,000 instead of
    plotext's own 2415.1, 4830.1."""
    import math

    span = high - low
    if span <= 0:
        return [low]
    raw = span / max(1, most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        if value >= low - step * 1e-9:
            ticks.append(round(value, 12))
        value += step
    return ticks


def tick_label(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:g}"


def _x_ticks(plt: Plot, low: float, high: float, most: int = 5) -> None:
    ticks = nice_ticks(low, high, most)
    plt.xticks(ticks, [tick_label(t) for t in ticks])


def _y_ticks(plt: Plot, low: float, high: float) -> None:
    ticks = nice_ticks(low, high)
    plt.yticks(ticks, [tick_label(t) for t in ticks])


# A chart of one bar per row: the title, the frame's two borders and the x ticks around the rows.
ROW_CHART_EXTRA = 4


class ChartBase(PlotextPlot):
    DEFAULT_CSS = """
    ChartBase { height: 12; margin: 0 1 1 1; }
    """

    # What the chart says instead of drawing, when it has nothing to draw: a line of text, never a frame
    # (plotext drops a title wider than its plot area, which left an empty, untitled box at 80 columns).
    empty_text: str = ""

    def _empty(self, title: str, why: str) -> None:
        self.plt.clear_figure()
        self.empty_text = f"{title}: {why}"
        self.styles.height = "auto"
        self.refresh(layout=True)

    def _drawing(self) -> None:
        """The chart draws again: its frame back at the height the CSS (or _row_bars) gives it."""
        if self.empty_text:
            self.empty_text = ""
            self.styles.height = None
        self.plt.clear_figure()

    def render(self):
        if self.empty_text:
            from rich.text import Text

            return Text(self.empty_text, style="dim italic")
        return super().render()

    def _row_bars(self, labels: list[str], values: list[float]) -> None:
        """One labelled bar per row: the chart is as high as its rows (plotext spreads n category
        bars over the rows it has, so 6 over 8 rows merged two and left two labels without a bar)."""
        plt = self.plt
        ys = list(range(len(labels), 0, -1))  # the first item on top (y grows upwards)
        plt.bar(ys, values, orientation="horizontal", width=0.1, marker=_bar_marker())
        plt.yticks(ys, labels)
        plt.ylim(0.5, len(labels) + 0.5)
        self.styles.height = len(labels) + ROW_CHART_EXTRA


# Both probe charts are horizontal: plotext never drops a y-axis label, while it thins x-axis
# labels that crowd each other (and which it drops varied between two draws of the same data).


class ThroughputChart(ChartBase):
    """img/s of each (framework, mode) for one model, the CI95 as a red line over each bar."""

    def show(self, suite: ProbeSuite, model: str | None = None) -> None:
        runs = ok_runs(suite, model)
        if not runs:
            self._empty("Throughput", "no finished runs to draw")
            return
        self._drawing()
        plt = self.plt
        values = [given(r.images_per_second, 0.0) for r in runs]
        ys = list(range(1, len(runs) + 1))
        plt.bar(ys, values, orientation="horizontal", width=0.3, marker=_bar_marker())
        cis = [r.ci95 or [v, v] for r, v in zip(runs, values)]
        _ranges(plt, ys, [float(c[0]) for c in cis], [float(c[1]) for c in cis])
        plt.yticks(ys, [_short_run(r) for r in runs])
        top = max(float(c[1]) for c in cis) * 1.1
        plt.xlim(0, top)
        _x_ticks(plt, 0, top)
        plt.title(f"{runs[0].model} img/s, CI95")
        self.refresh()


class StepTimeChart(ChartBase):
    """The step-time spread of each run: median (a dot) and its p10-p90 range (ms/step)."""

    def show(self, suite: ProbeSuite, model: str | None = None) -> None:
        steps = [(r, r.step_time_ms) for r in ok_runs(suite, model)]
        timed = [(r, t) for r, t in steps if t is not None and t.median is not None]
        runs = [r for r, _ in timed]
        if not runs:
            self._empty("Step time", "no finished runs to draw")
            return
        self._drawing()
        plt = self.plt
        ys = list(range(1, len(runs) + 1))
        medians = [float(t.median) for _, t in timed]
        lows = [min(m, given(t.p10, m)) for (_, t), m in zip(timed, medians)]
        highs = [max(m, given(t.p90, m)) for (_, t), m in zip(timed, medians)]
        _ranges(plt, ys, lows, highs)
        plt.scatter(medians, ys, marker="o" if ascii_only() else "●")
        plt.yticks(ys, [_short_run(r) for r in runs])
        plt.ylim(0.5, len(runs) + 0.5)
        plt.xlim(0, max(highs) * 1.1)
        _x_ticks(plt, 0, max(highs) * 1.1)
        plt.title(f"{runs[0].model} ms/step, p10-p90")
        self.refresh()


class ScoreChart(ChartBase):
    """Each workflow's total score (0-100); a blocked workflow is drawn at 0 and named so."""

    def show(self, scores: list[WorkflowScore]) -> None:
        if not scores:
            self._empty("Scores", "no scores yet")
            return
        if not any(s.eligible for s in scores):
            # Nothing to draw: every bar would be 0. Say so (the verdict and pitfalls say why).
            self._empty("Scores", "all workflows blocked")
            return
        self._drawing()
        plt = self.plt
        names = [s.workflow + ("" if s.eligible else " (blocked)") for s in scores]
        totals = [s.total if s.eligible else 0.0 for s in scores]
        self._row_bars(names, totals)
        plt.xlim(0, 100)
        _x_ticks(plt, 0, 100)
        plt.title("Total score (0-100)")
        self.refresh()


class TornadoChart(ChartBase):
    """How far each criterion's weight must move for another workflow to win: the shortest bar is
    the most sensitive. Criteria no weight can flip are not drawn (the Sensitivity text names them)."""

    def show(self, items: list[SensitivityItem]) -> None:
        moving = [(i.criterion, i.threshold - i.weight) for i in items if i.threshold is not None]
        if not moving:
            self._empty("Sensitivity", "no weight change alters the verdict")
            return
        moving.sort(key=lambda item: abs(item[1]), reverse=True)
        self._drawing()
        plt = self.plt
        # Short labels: plotext drops a title wider than the plot area (who would win is in the
        # Sensitivity text under the charts).
        labels = [criterion for criterion, _ in moving]
        shifts = [shift for _, shift in moving]
        self._row_bars(labels, shifts)
        low, high = min(0.0, *shifts), max(0.0, *shifts)
        plt.xlim(low, high)
        _x_ticks(plt, low, high)
        plt.title("Weight shift to flip")  # the criteria that never flip it are in the text below
        self.refresh()


class ScalingChart(ChartBase):
    """The scaling curve: images/s (median over the repetitions, min-max as a line) against the
    number of ranks, per framework, with the ideal (N x the 1-rank throughput) for scale."""

    def show(self, result: ScalingResult) -> None:
        curves = []
        for fw in result.frameworks:
            points = [(rc.ranks, rc.images_per_second) for rc in fw.rank_counts if rc.images_per_second is not None]
            if points:
                curves.append((fw.framework, sorted(points, key=lambda p: p[0])))
        if not curves:
            self._empty("Scaling", "no launch finished")
            return
        self._drawing()
        plt = self.plt
        marker = "-" if ascii_only() else "│"
        top = 0.0
        for name, points in curves:
            ranks = [r for r, _ in points]
            medians = [ips.median for _, ips in points]
            plt.plot(ranks, medians, label=name, marker="o" if ascii_only() else "●")
            for r, ips in points:
                if ips.max > ips.min:
                    plt.plot([r, r], [ips.min, ips.max], marker=marker, color="red")
                top = max(top, ips.max, ips.median)
            ideal = [medians[0] * r / ranks[0] for r in ranks]
            plt.plot(ranks, ideal, marker="." if ascii_only() else "·", color="gray")
            top = max(top, *ideal)
        all_ranks = sorted({r for _, points in curves for r, _ in points})
        plt.xticks(all_ranks, [str(r) for r in all_ranks])
        plt.ylim(0, top * 1.1)
        _y_ticks(plt, 0, top * 1.1)
        plt.title("img/s by ranks (dots: ideal)")
        self.refresh()


def accuracy_curves(suite: AccuracySuite) -> list[tuple[str, list[float]]]:
    """(framework mode, mean test accuracy after each epoch over its finished seeds), per run kind."""
    by_run: dict[str, list[list[float]]] = {}
    for run in suite.runs:
        curve = run.accuracy
        if run.status == "ok" and curve:
            by_run.setdefault(_short_run(run), []).append(curve)
    out = []
    for name, curves in by_run.items():
        epochs = min(len(c) for c in curves)  # seeds of one run kind train the same epochs
        out.append((name, [sum(c[e] for c in curves) / len(curves) for e in range(epochs)]))
    return out


# One colour and one marker per curve: the legend is a line under the chart (plotext's own sits in
# the top-left corner, over the first epochs' points), readable without colour too.
CURVE_STYLES = (("blue", "●", "o"), ("green", "■", "x"), ("magenta", "▲", "+"), ("cyan", "◆", "*"))


class AccuracyChart(ChartBase):
    """Test accuracy after each epoch, one line per framework and mode (the mean over the seeds),
    and the target as a dotted line: the issue's accuracy-per-epoch chart. `legend` holds
    (name, colour, marker) per curve for the line under it (AccuracyPanel draws it)."""

    legend: list[tuple[str, str, str]] = []

    def show(self, suite: AccuracySuite) -> None:
        curves = accuracy_curves(suite)
        self.legend = []
        if not curves:
            self._empty("Accuracy", "no finished runs to draw")
            return
        self._drawing()
        plt = self.plt
        longest = max(len(c) for _, c in curves)
        for n, (name, curve) in enumerate(curves):
            color, glyph, ascii_glyph = CURVE_STYLES[n % len(CURVE_STYLES)]
            marker = ascii_glyph if ascii_only() else glyph
            plt.plot(list(range(1, len(curve) + 1)), [a * 100 for a in curve], marker=marker, color=color)
            self.legend.append((name, color, marker))
        target = suite.config.target
        plt.plot([1, longest], [target * 100] * 2, marker="." if ascii_only() else "·", color="gray")
        plt.xticks(list(range(1, longest + 1)), [str(e) for e in range(1, longest + 1)])
        plt.ylim(0, 100)
        plt.yticks([0, 25, 50, 75, 100], ["0", "25", "50", "75", "100"])
        plt.title("test accuracy % by epoch (dots: target)")
        self.refresh()


# ---- the transformer probe ----------------------------------------------------

SHORT_VARIANT = {"compile-dynamic": "compile-dyn", "graph-dynamic": "graph-dyn"}
SHORT_WAY = {"padded": "pad", "bucketed": "bkt", "variable": "var"}


class TokensChart(ChartBase):
    """tokens/s of each GPT run (framework and mode), its CI95 as a red line; an unusable run (the
    stability grade of probes.quality) is labelled so: its bar is drawn, never read as a result."""

    def show(self, result: GptResult) -> None:
        runs = [r for r in result.runs if r.status == "ok" and r.tokens_per_second]
        if not runs:
            self._empty("Tokens/s", "no finished runs to draw")
            return
        self._drawing()
        plt = self.plt
        values = [float(r.tokens_per_second or 0.0) for r in runs]
        cis = [r.ci95 or [v, v] for r, v in zip(runs, values)]
        # "!" marks an unusable run (the title says so): a long suffix leaves the bars no room at 80 columns
        labels = [_short_run(r) + (" !" if r.quality == "unusable" else "") for r in runs]
        self._row_bars(labels, values)
        ys = list(range(len(runs), 0, -1))
        _ranges(plt, ys, [float(c[0]) for c in cis], [float(c[1]) for c in cis])
        top = max(max(float(c[1]) for c in cis), max(values)) * 1.1
        plt.xlim(0, top)
        _x_ticks(plt, 0, top, most=3)  # few labels: plotext thins crowded ones, differently from draw to draw
        plt.title("tokens/s, CI95")
        self.refresh()


class DynamicChart(ChartBase):
    """End-to-end tokens/s (graph compiles included) of each dynamic-shape way per variant, the
    compile count in the label: what variable lengths cost against padding or buckets."""

    def show(self, result: GptResult) -> None:
        bars = [
            (f"{SHORT_VARIANT.get(d.variant, d.variant)} {SHORT_WAY.get(w.way, w.way)} {w.compiles}c", w)
            for d in result.dynamic
            if d.status == "ok"
            for w in d.ways
            if w.end_to_end_tokens_per_second
        ]
        if not bars:
            self._empty("Dynamic shapes", "not measured")
            return
        self._drawing()
        plt = self.plt
        values = [float(w.end_to_end_tokens_per_second or 0.0) for _, w in bars]
        self._row_bars([label for label, _ in bars], values)
        top = max(values) * 1.1
        plt.xlim(0, top)
        _x_ticks(plt, 0, top, most=3)
        plt.title("end-to-end tok/s")
        self.refresh()
