"""Appearance of each screen at 80x24 and 120x40 with fixed inputs: the fixture host check, the
cached probe suite, the measured scaling fixture, examples/prototype-then-ascend.yaml and a frozen
report of those
(tests/fixtures/tui/report.json; regenerate with tests/fixtures/tui/make_report.py).
Update after an intended change: pytest tests/test_tui_snapshots.py --snapshot-update"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.fakes import (  # noqa: E402
    FakeGptLauncher,
    FakeLauncher,
    FakeScalingLauncher,
    cached_suite,
    host_report,
    scaling_fixture,
)
from fixtures.tui.pilot import settle, wait_for  # noqa: E402

from tui.app import make_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "tui"
SIZES = [(80, 24), (120, 40)]
pytestmark = pytest.mark.timeout(120)


def frozen_report(requirements, host, probes, scaling=None):
    from pydantic import ValidationError

    from advisor.report import Report

    try:
        return Report.model_validate(json.loads((FIXTURES / "report.json").read_text()))
    except ValidationError as exc:  # the report format moved on: say how to follow it
        pytest.fail(
            f"tests/fixtures/tui/report.json no longer matches advisor.report.Report ({exc}); "
            "regenerate: .venv/bin/python tests/fixtures/tui/make_report.py, then "
            "pytest tests/test_tui_snapshots.py --snapshot-update",
            pytrace=False,
        )


def fixed_app(mode: str, launcher=None, scaling_launcher=None, gpt_launcher=None):
    return make_app(
        launchers={"gpt": gpt_launcher or FakeGptLauncher()},
        host_provider=host_report,
        probe_launcher=launcher or FakeLauncher(),
        cached_probes=cached_suite,
        report_builder=frozen_report,
        scaling_launcher=scaling_launcher or FakeScalingLauncher(),
        cached_scaling=scaling_fixture,
        requirements_path="examples/prototype-then-ascend.yaml",
        initial_mode=mode,
    )


async def quiet(pilot) -> None:
    """Finished workers, no toasts, no focused cursor, a finished measurement's clock at 62 s: the same
    picture every time."""
    await settle(pilot)
    pilot.app.clear_notifications()
    pilot.app.set_focus(None)
    for measurement in pilot.app.state.measurements:
        clock = measurement.clock
        if clock is not None and clock.ended is not None:
            clock.started = clock.ended - 62.0  # "finished in 62 s", not the fake's wall time
            for screen in pilot.app.views:
                if hasattr(screen, "refresh_view") and screen.is_current:
                    screen.refresh_view()
    await pilot.pause()


@pytest.fixture(autouse=True)
def _in_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # the requirements path shown on screen is relative
    # The cache folder the Probes screen names: the test's temporary one would change every run.
    monkeypatch.setattr("tui.screens.probes._cache_folder", lambda: "~/.cache/framework-advisor")
    monkeypatch.setenv("ADVISOR_ASCII", "0")  # the glyphs, whatever the test runner's locale
    # The cached runs list names their host: the scaling fixture's has no fingerprint, so this one's.
    monkeypatch.setattr("advisor.cache.host_fingerprint", lambda: "test-host")
    # The estimate before Start reads the host's load now: a quiet host in every picture.
    from advisor.estimates import Load

    monkeypatch.setattr("advisor.estimates.load_now", lambda window=None: Load(2, 0.0))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("mode", ["host", "requirements", "probes", "recommendation"])
def test_screen(snap_compare, mode, size):
    assert snap_compare(fixed_app(mode), terminal_size=size, run_before=quiet)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("mode", ["host", "requirements", "probes", "recommendation"])
def test_screen_light(snap_compare, mode, size, monkeypatch):
    """Every screen in the light theme too (ADVISOR_THEME=light), at both sizes."""
    monkeypatch.setenv("ADVISOR_THEME", "light")
    assert snap_compare(fixed_app(mode), terminal_size=size, run_before=quiet)


def test_help(snap_compare):
    async def run_before(pilot):
        await quiet(pilot)
        await pilot.press("question_mark")

    assert snap_compare(fixed_app("host"), terminal_size=(80, 24), run_before=run_before)


def test_probes_after_a_run(snap_compare):
    """Live rows (progress bar, sparkline, images/s) and the table after a fake LeNet run."""

    async def run_before(pilot):
        await quiet(pilot)
        await pilot.click("#model-resnet18")
        await pilot.pause(0.3)
        await pilot.press("s")
        await quiet(pilot)

    assert snap_compare(fixed_app("probes", FakeLauncher(steps=12)), terminal_size=(120, 40), run_before=run_before)


def test_probes_scaling_after_a_run(snap_compare):
    """At 80x24, scrolled to the scaling probe: the table per framework under the CPU-contention
    label, then the launch rows (a fake replaying the measured fixture)."""

    async def run_before(pilot):
        await quiet(pilot)
        await pilot.press("d")
        await quiet(pilot)
        pilot.app.screen.query_one("#scaling-title").scroll_visible(top=True, animate=False)
        await pilot.pause(0.1)

    assert snap_compare(
        fixed_app("probes", scaling_launcher=FakeScalingLauncher(progress_steps=2)),
        terminal_size=(80, 24),
        run_before=run_before,
    )


def test_requirements_inline_error_and_hint(snap_compare, monkeypatch):
    """An out-of-range number shows its message under the field; the focused field's hint line."""
    from tui.screens.requirements import RequirementsScreen

    monkeypatch.setattr(RequirementsScreen, "DEBOUNCE_S", 0.02)

    async def run_before(pilot):
        await quiet(pilot)
        pilot.app.screen.query_one("#f-team-size").value = "0"
        await settle(pilot)
        pilot.app.screen.query_one("#f-team-mindspore").focus()
        await pilot.pause()

    assert snap_compare(fixed_app("requirements"), terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("mode,charts", [("probes", "#probe-charts"), ("recommendation", "#rec-charts")])
def test_charts(snap_compare, mode, charts, size):
    """Scrolled to the charts: throughput with CI95 and the step-time spread (fixture suite), the
    score bars and the sensitivity tornado (the frozen report: regenerated with it)."""

    async def run_before(pilot):
        await quiet(pilot)
        pilot.app.screen.query_one(charts).scroll_visible(top=True, animate=False)
        await pilot.pause(0.1)

    assert snap_compare(fixed_app(mode), terminal_size=size, run_before=run_before)


def test_light_theme_and_ascii(snap_compare, monkeypatch):
    """ADVISOR_THEME=light and ADVISOR_ASCII=1: the Probes screen on a light, plain terminal."""
    monkeypatch.setenv("ADVISOR_THEME", "light")
    monkeypatch.setenv("ADVISOR_ASCII", "1")

    async def run_before(pilot):
        await quiet(pilot)
        pilot.app.screen.query_one("#probe-charts").scroll_visible(top=True, animate=False)
        await pilot.pause(0.1)

    assert snap_compare(fixed_app("probes"), terminal_size=(80, 24), run_before=run_before)


# At 80x24 only: at 120x40 the picture's scrollbar thumb took one of two positions from run to run (the
# visible text the same: a height below the fold differs; the cause is not found yet). The whole Probes
# screen is pictured at both sizes and in both themes by test_screen / test_screen_light.
GPT_PARTS = [("#gpt-panel", (80, 24)), ("#gpt-charts", (80, 24))]


@pytest.mark.parametrize("theme", ["dark", "light"])
@pytest.mark.parametrize("part,size", GPT_PARTS, ids=lambda p: p if isinstance(p, str) else f"{p[0]}x{p[1]}")
def test_gpt_panel(snap_compare, part, size, theme, monkeypatch):
    """After a transformer-probe run (a fake replaying tests/fixtures/tui/gpt-tiny.json, a real tiny-GPT
    result from this machine kind), scrolled to its panel (the timed runs with their grades) and to its
    charts (tokens/s per framework and mode; end-to-end tokens/s per dynamic-shape way with its compiles)."""
    if theme == "light":
        monkeypatch.setenv("ADVISOR_THEME", "light")

    async def run_before(pilot):
        await quiet(pilot)
        await pilot.press("g")
        screen = pilot.app.screen
        # Drawn in full before the picture (the body's height, and so its scrollbar, depends on every
        # live row being mounted): wait on that itself, which cannot race a loaded host.
        await wait_for(
            pilot,
            lambda: (
                len(screen.query("#gpt-runs RunRow")) == 9
                and all(r.progress.status not in ("running", "waiting") for r in screen.query("#gpt-runs RunRow"))
                and screen.query_one("#gpt-dynamic-table").row_count == 9
            ),
            what="the GPT panel drawn",
        )
        await quiet(pilot)
        screen.query_one("#probe-body").refresh(layout=True)
        await pilot.pause()
        screen.query_one(part).scroll_visible(top=True, animate=False)
        await pilot.pause()
        await pilot.pause(0.1)

    assert snap_compare(fixed_app("probes"), terminal_size=size, run_before=run_before)
