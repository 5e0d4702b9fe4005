"""The charts (textual-plotext): throughput per framework and mode with its CI95, the step-time
spread (p10-median-p90) of each run, the workflows' total scores and the sensitivity tornado.

Each chart draws from plain data (a ProbeSuite / Report as a mapping) and says what it lacks instead of
drawing an empty frame. Throughput of LeNet and ResNet differs ~100x, so the probe charts show one
model at a time: the model of the run highlighted in the results table.
"""

from __future__ import annotations

from typing import Any, Optional

from textual_plotext import PlotextPlot

from tui.data import get
from tui.glyphs import ascii_only


def _bar_marker() -> Any:
    return "#" if ascii_only() else None  # None: plotext's block


def _short_run(run: Any) -> str:
    return f"{get(run, 'framework', default='?')[:5]} {get(run, 'mode', default='?')}"


def ok_runs(suite: Any, model: Optional[str]) -> list:
    runs = [r for r in get(suite, "runs", default=[]) or [] if get(r, "status") == "ok"]
    if model is None and runs:
        model = get(runs[0], "model")
    return [r for r in runs if get(r, "model") == model]


def _ranges(plt: Any, xs: list, lows: list, highs: list) -> None:
    """A vertical line from low to high at each x (plotext's error() is symmetric only)."""
    marker = "|" if ascii_only() else "│"
    for x, low, high in zip(xs, lows, highs):
        if high > low:
            plt.plot([x, x], [low, high], marker=marker, color="red")


class ChartBase(PlotextPlot):
    DEFAULT_CSS = """
    ChartBase { height: 12; margin: 0 1 1 1; }
    """

    def _empty(self, title: str, why: str) -> None:
        plt = self.plt
        plt.clear_figure()
        plt.title(f"{title}: {why}")
        self.refresh()


class ThroughputChart(ChartBase):
    """img/s of each (framework, mode) for one model, the CI95 as error bars."""

    def show(self, suite: Any, model: Optional[str] = None) -> None:
        runs = ok_runs(suite, model)
        if not runs:
            self._empty("Throughput", "no finished runs to draw")
            return
        plt = self.plt
        plt.clear_figure()
        labels = [_short_run(r) for r in runs]
        values = [float(get(r, "images_per_second", default=0.0)) for r in runs]
        xs = list(range(1, len(runs) + 1))
        plt.bar(xs, values, width=0.4, marker=_bar_marker())
        lows, highs = [], []
        for run, value in zip(runs, values):
            ci = get(run, "ci95") or [value, value]
            lows.append(max(0.0, value - float(ci[0])))
            highs.append(max(0.0, float(ci[1]) - value))
        _ranges(plt, xs, [v - lo for v, lo in zip(values, lows)], [v + hi for v, hi in zip(values, highs)])
        plt.xticks(xs, labels)
        plt.ylim(0, max(values) * 1.15)
        plt.title(f"Throughput, {get(runs[0], 'model')} bs{get(runs[0], 'batch_size')}: img/s with CI95")
        self.refresh()


class StepTimeChart(ChartBase):
    """The step-time spread of each run: median with its p10-p90 range (ms/step)."""

    def show(self, suite: Any, model: Optional[str] = None) -> None:
        runs = [r for r in ok_runs(suite, model) if get(r, "step_time_ms", "median") is not None]
        if not runs:
            self._empty("Step time", "no finished runs to draw")
            return
        plt = self.plt
        plt.clear_figure()
        xs = list(range(1, len(runs) + 1))
        medians = [float(get(r, "step_time_ms", "median")) for r in runs]
        low = [m - float(get(r, "step_time_ms", "p10", default=m)) for r, m in zip(runs, medians)]
        high = [float(get(r, "step_time_ms", "p90", default=m)) - m for r, m in zip(runs, medians)]
        plt.scatter(xs, medians, marker="o" if ascii_only() else "●")
        _ranges(plt, xs, [m - max(0.0, v) for m, v in zip(medians, low)],
                [m + max(0.0, v) for m, v in zip(medians, high)])
        plt.xticks(xs, [_short_run(r) for r in runs])
        plt.xlim(0.5, len(runs) + 0.5)
        plt.ylim(0, max(m + h for m, h in zip(medians, high)) * 1.15)
        plt.title(f"Step time, {get(runs[0], 'model')}: median and p10-p90, ms/step")
        self.refresh()


class ScoreChart(ChartBase):
    """Each workflow's total score (0-100); a blocked workflow is drawn at 0 and named so."""

    def show(self, report: Any) -> None:
        scores = get(report, "scores", default=[]) or []
        if not scores:
            self._empty("Scores", "no scores yet")
            return
        plt = self.plt
        plt.clear_figure()
        names = [str(get(s, "workflow")) + ("" if get(s, "eligible", default=True) else " (blocked)")
                 for s in scores]
        totals = [float(get(s, "total", default=0.0)) if get(s, "eligible", default=True) else 0.0
                  for s in scores]
        plt.bar(names, totals, orientation="horizontal", width=0.4, marker=_bar_marker())
        plt.xlim(0, 100)
        plt.title("Total score (0-100)")
        self.refresh()


class TornadoChart(ChartBase):
    """How far each criterion's weight must move for another workflow to win: the shortest bar is
    the most sensitive. Criteria no weight can flip are not drawn (the Sensitivity text names them)."""

    def show(self, report: Any) -> None:
        items = get(report, "sensitivity", default=[]) or []
        if isinstance(items, dict):
            items = [{"criterion": k, **(v if isinstance(v, dict) else {})} for k, v in items.items()]
        moving = [i for i in items if get(i, "threshold") is not None and get(i, "weight") is not None]
        if not moving:
            self._empty("Sensitivity", "no weight change alters the verdict")
            return
        moving.sort(key=lambda i: abs(float(get(i, "threshold")) - float(get(i, "weight"))), reverse=True)
        plt = self.plt
        plt.clear_figure()
        # Short labels: plotext drops a title wider than the plot area (who would win is in the
        # Sensitivity text under the charts).
        labels = [str(get(i, "criterion")) for i in moving]
        shifts = [float(get(i, "threshold")) - float(get(i, "weight")) for i in moving]
        plt.bar(labels, shifts, orientation="horizontal", width=0.4, marker=_bar_marker())
        plt.title("Weight shift to flip")  # the criteria that never flip it are in the text below
        self.refresh()
