"""The TUI and CLI, fourth round: no empty chart box, screens built ahead. Each test fails before its fix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.fakes import FakeLauncher, cached_suite, host_report  # noqa: E402
from fixtures.tui.pilot import run_async, settle  # noqa: E402

from tui.app import make_app  # noqa: E402

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    """No test here reads or writes the user's cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def nothing_finished():
    """The cached suite after a cancel: every run there, none of them measured."""
    suite = cached_suite()
    return suite.model_copy(update={"runs": [r.model_copy(update={"status": "cancelled"}) for r in suite.runs]})


def chart_lines(chart) -> list[str]:
    return [line.strip() for line in str(chart.render()).splitlines()]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
@run_async
async def test_a_chart_with_nothing_to_draw_says_so_in_words_never_an_empty_untitled_box(size):
    """At 80 columns plotext dropped the wide "Throughput: no finished runs to draw" title and drew an
    empty frame; the chart now says its sentence in a line, and draws its frame again once it can."""
    from tui.widgets.charts import StepTimeChart, ThroughputChart

    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        cached_probes=nothing_finished,
        requirements_path=str(EXAMPLE),
        report_builder=lambda *a, **k: None,
        initial_mode="probes",
    )
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        charts = [app.screen.query_one(ThroughputChart), app.screen.query_one(StepTimeChart)]
        assert all(c.display and c.size.width for c in charts)  # the suite has runs: the charts show
        for chart, title in zip(charts, ("Throughput", "Step time")):
            lines = [line for line in chart_lines(chart) if line]
            assert lines == [f"{title}: no finished runs to draw"], lines  # the sentence, no frame
            assert chart.size.height == 1
        for chart in charts:
            chart.show(cached_suite())  # measured runs again: the frame and its title are back
        await pilot.pause(0.1)
        assert charts[0].size.height == 12 and "lenet img/s, CI95" in chart_lines(charts[0])[0]
        assert "lenet ms/step, p10-p90" in chart_lines(charts[1])[0]


def painted(app) -> list[str]:
    """The lines the current screen paints (what the terminal is sent, less the styles)."""
    update = app.screen._compositor.render_full_update()
    return ["".join(segment.text for segment in strip) for strip in update.strips]


# what this machine's host check says (its reason wraps at 80 columns)
NVML_MISSING = "no NVIDIA driver: NVML unavailable (NVML Shared Library Not Found) and nvidia-smi not on PATH"


@run_async
async def test_the_host_screens_wrapped_lines_keep_their_indent_at_80_columns():
    """'NVIDIA  absent: no NVIDIA driver: ... (NVML Shared Library' went on at column 2, under the label."""

    def no_driver(*args, **kwargs):
        report = host_report(*args, **kwargs)
        report.nvidia.reason = NVML_MISSING
        return report

    app = make_app(host_provider=no_driver, probe_launcher=FakeLauncher(), report_builder=lambda *a, **k: None,
                   initial_mode="host")  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = [ln.rstrip() for ln in painted(app)]
        at = next(i for i, ln in enumerate(lines) if ln.strip().startswith("NVIDIA"))
        label = lines[at].index("NVIDIA")
        text_column = lines[at].index("absent", label)
        following = lines[at + 1]
        assert following[:text_column].strip() == "" and following[text_column] != " ", (lines[at], following)


@run_async
async def test_the_html_export_is_in_the_footer_and_its_address_is_never_broken_mid_word(tmp_path, monkeypatch):
    """At 80 columns the footer hid the HTML export and the toast broke 'advisor-report.ht' / 'ml'."""
    import json
    import tempfile

    from advisor.report import Report

    frozen = Report.model_validate(json.loads((ROOT / "tests" / "fixtures" / "tui" / "report.json").read_text()))
    short = tempfile.mkdtemp(prefix="e", dir="/tmp")  # a short path: the address fits a line of the toast
    monkeypatch.chdir(short)
    app = make_app(host_provider=host_report, probe_launcher=FakeLauncher(), requirements_path=str(EXAMPLE),
                   report_builder=lambda *a, **k: frozen.model_copy(), initial_mode="recommendation")  # fmt: skip
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert "h HTML" in painted(app)[-1]  # the footer: the export a person opens in a browser
        await pilot.press("h")
        await settle(pilot)
        uri = (Path(short).resolve() / "advisor-report.html").as_uri()
        assert Path(short, "advisor-report.html").is_file()
        await pilot.pause(0.2)
        lines = painted(app)
        assert any(uri in line for line in lines), "\n".join(lines)
