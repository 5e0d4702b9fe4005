"""A log axis never carries bars: a bar's length invites a comparison of lengths (twice as long, twice as
fast) that a log axis cannot support. The throughput chart is a dot plot with its 95% CI as lines."""

from __future__ import annotations

import pytest
from matplotlib.axes import Axes

from document_examples import built

from advisor.render import charts


@pytest.fixture
def axes_with_bars(monkeypatch):
    """Every Axes a chart drew horizontal bars on (its scale read once the chart is finished)."""
    drawn: list[Axes] = []

    def record(self, *args, **kwargs):
        drawn.append(self)
        return original(self, *args, **kwargs)

    original = Axes.barh
    monkeypatch.setattr(Axes, "barh", record)
    yield drawn


def test_the_throughput_chart_draws_dots_not_bars_on_its_log_axis(axes_with_bars):
    report = built("ascend-production")[0]
    axes_with_bars.clear()  # the document's other charts (scores: bars on a linear axis) drawn while building
    svg = charts.throughput_chart(report)
    assert svg is not None and "log scale" in svg
    assert not [ax for ax in axes_with_bars if ax.get_xscale() == "log"], "bars on a log axis"
    ok = [r for r in report.probes.runs if r.status == "ok" and r.images_per_second]
    assert svg.count("throughput-line2d_") >= len(ok)  # one dot (and its CI line) per measured run
