"""The scaling probe (torchrun / msrun data parallel) on the Probes screen: start, live launch rows,
the finished table per framework under its label, cancel, cache, failures. The launcher is a fake
replaying the real measured fixture (tests/fixtures/scaling/scaling-2vcpu-lenet.json) through the
real ScalingEvent/ScalingResult models and the real runner's summary."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.fakes import (  # noqa: E402
    FakeLauncher,
    FakeScalingLauncher,
    host_report,
    scaling_fixture,
)
from fixtures.tui.pilot import (  # noqa: E402
    record_notifications,
    run_async,
    screen_text,
    settle,
    wait_for,
)

from tui.app import make_app  # noqa: E402

pytestmark = pytest.mark.timeout(60)
ROOT = Path(__file__).resolve().parent.parent


def no_report(requirements, host, probes):
    return None  # these tests look at the Probes screen; the real report is tested once below


def app_with(**kwargs):
    kwargs.setdefault("host_provider", host_report)
    kwargs.setdefault("report_builder", no_report)
    kwargs.setdefault("probe_launcher", FakeLauncher())
    kwargs.setdefault("scaling_launcher", FakeScalingLauncher())
    kwargs.setdefault("initial_mode", "probes")
    kwargs.setdefault("check_on_start", False)
    return make_app(**kwargs)


def table_cells(app) -> list[list[str]]:
    table = app.screen.query_one("#scaling-table")
    return [[str(getattr(c, "plain", c)) for c in table.get_row_at(i)] for i in range(table.row_count)]


def pct(spread) -> str:
    return f"{spread.median * 100:.0f}% ({spread.min * 100:.0f}-{spread.max * 100:.0f})"


@run_async
async def test_scaling_run_shows_progress_then_the_table_and_saves():
    hold = threading.Event()
    launcher = FakeScalingLauncher(progress_steps=3, hold=hold)
    saved: list = []
    app = app_with(scaling_launcher=launcher, save_scaling=saved.append)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = record_notifications(app)
        await settle(pilot)
        assert "Scaling: not measured yet" in screen_text(app)
        await wait_for(  # the footer recomposes after mount (briefly empty on a loaded host)
            pilot, lambda: "Scaling" in {k.description for k in app.screen.query("FooterKey")}, what="the footer"
        )
        await pilot.press("d")
        await wait_for(
            pilot, lambda: any(p.fraction > 0 for p in app.state.scaling.runs.values()), what="a launch's progress"
        )
        assert [p.status for p in app.state.scaling.runs.values()] == ["running"]
        assert app.state.scaling.running and app.screen.query_one("#scaling-start").disabled
        assert app.screen.query("#scaling-runs RunRow"), "a live row per launch"
        assert "Scaling probe running" in screen_text(app)
        assert not app.start_measurement("training", object())  # one kind of probe at a time
        assert not app.screen.query_one("#scaling-table").display  # no stale table mid-run
        hold.set()
        await wait_for(pilot, lambda: not app.state.scaling.running, what="the probe to finish")
        await settle(pilot)

        assert threading.main_thread().name not in launcher.threads  # ran in a worker thread
        config = launcher.configs[0]
        assert (config.frameworks, config.models, config.ranks, config.repeat, config.batch_size) == (
            ["pytorch", "mindspore"],
            ["lenet"],
            None,
            3,
            32,
        )
        rows = len(app.screen.query("#scaling-runs RunRow"))
        assert rows == 12 and {p.status for p in app.state.scaling.runs.values()} == {"ok"}
        measured = {f.framework: f for f in scaling_fixture().frameworks}
        cells = {row[0]: row for row in table_cells(app)}
        assert set(cells) == {"pytorch/lenet", "mindspore/lenet"}
        for fw, row in (("pytorch", cells["pytorch/lenet"]), ("mindspore", cells["mindspore/lenet"])):
            one, two = measured[fw].rank_counts
            assert row[1:4] == ["2", "ok", pct(two.efficiency)]
            assert row[4] == pct(two.allreduce_share) and row[5] == "ok"
            assert row[6].startswith(f"{one.images_per_second.median:,.0f} (")
            assert row[7].startswith(f"{two.images_per_second.median:,.0f} (")
            assert row[8].startswith(f"{two.launcher_seconds.median:.2f}/")
        text = screen_text(app)
        assert "CPU contention" in text and "not device scaling" in text
        assert "this session" in text and "the host was busy" in text
        assert saved and saved[0].kind == "scaling" and len(saved[0].runs) == 12
        assert "Scaling probe finished in " in screen_text(app)  # the status line, not a toast over the table
        assert not any("finished" in msg for _, msg, _ in seen)
        assert not app.screen.query_one("#scaling-start").disabled


@run_async
async def test_scaling_choices_reach_the_config_and_bad_ones_are_refused():
    launcher = FakeScalingLauncher()
    app = app_with(scaling_launcher=launcher)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = record_notifications(app)
        await settle(pilot)
        screen = app.screen
        for ranks, reps, problem in (("two", "3", "N ranks"), ("0", "3", "N ranks"), ("2", "0", "reps")):
            screen.query_one("#scaling-ranks").value = ranks
            screen.query_one("#scaling-repeat").value = reps
            screen.action_scaling()
            await pilot.pause()
            assert seen[-1][0] == "Cannot start the scaling probe" and problem in seen[-1][1]
        assert not launcher.configs and not app.state.scaling.running
        screen.query_one("#scaling-ranks").value = "2, 4"
        screen.query_one("#scaling-repeat").value = "1"
        screen.query_one("#fw-mindspore").value = False
        screen.query_one("#probe-batch").value = "16"
        await pilot.click("#scaling-start")
        await wait_for(
            pilot, lambda: bool(launcher.configs) and not app.state.scaling.running, what="the probe to finish"
        )
        await settle(pilot)
        config = launcher.configs[0]
        assert (config.frameworks, config.ranks, config.repeat, config.batch_size) == (["pytorch"], [1, 2, 4], 1, 16)
        assert [row[0] for row in table_cells(app)] == ["pytorch/lenet"]


@run_async
async def test_scaling_cancel_keeps_finished_launches_and_does_not_save():
    hold = threading.Event()
    launcher = FakeScalingLauncher(progress_steps=3, hold=hold)
    saved: list = []
    app = app_with(scaling_launcher=launcher, save_scaling=saved.append)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = record_notifications(app)
        await settle(pilot)
        await pilot.press("d")
        await wait_for(pilot, launcher.started.is_set, what="the probe to start")
        await pilot.press("c")
        assert app.state.scaling.cancel.is_set()
        hold.set()  # the first launch goes on, and sees the cancel
        await wait_for(pilot, lambda: not app.state.scaling.running, what="the cancel")
        await settle(pilot)
        assert launcher.cancel_seen.is_set()
        assert [r.status for r in app.state.scaling.result.runs] == ["cancelled"]
        assert {p.status for p in app.state.scaling.runs.values()} == {"cancelled"}
        statuses = {row[0]: row[2] for row in table_cells(app)}
        assert statuses == {"pytorch/lenet": "cancelled", "mindspore/lenet": "not run"}
        assert any(sev == "warning" and "cancelled" in msg for _, msg, sev in seen)
        assert not saved  # a cancelled run is not this host's result
        assert not app.screen.query_one("#scaling-start").disabled


@run_async
async def test_cached_scaling_result_is_shown_on_entry_and_enters_the_report():
    from tui.providers import default_report_builder

    app = app_with(
        cached_scaling=scaling_fixture,
        report_builder=default_report_builder,
        requirements_path=str(ROOT / "examples" / "prototype-then-ascend.yaml"),
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.state.scaling.cached
        assert [row[0] for row in table_cells(app)] == ["pytorch/lenet", "mindspore/lenet"]
        text = screen_text(app)
        assert "cached result for this host" in text and "2026-11-30 14:20 UTC" in text
        assert "CPU contention" in text
        # The report the Recommendation screen shows uses it, as `advisor report` would.
        await wait_for(
            pilot,
            lambda: app.state.report is not None and app.state.report.scaling.source == "cache",
            what="a report with the scaling result",
        )
        scaling = app.state.report.scaling
        assert scaling.used and scaling.label == "cpu-contention"
        assert scaling.created == scaling_fixture().created


@run_async
async def test_launches_made_while_the_screen_was_hidden_all_show_on_return():
    from probes.scaling.models import ScalingConfig

    first, third = threading.Event(), threading.Event()
    launcher = FakeScalingLauncher(progress_steps=2, hold={0: first, 2: third})
    app = app_with(scaling_launcher=launcher)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.start_measurement("scaling", ScalingConfig(frameworks=["pytorch"], repeat=2))
        await wait_for(pilot, lambda: app.state.scaling.runs, what="the first launch")
        await pilot.press("f1")  # hidden from now on: progress is remembered, not drawn
        first.set()
        await wait_for(
            pilot, lambda: len(app.state.scaling.runs) == 3 and app.state.scaling.fraction > 0.5, what="three launches"
        )
        await pilot.press("f3")
        await pilot.pause(0.05)
        shown = {row.progress.run_id: row.progress.status for row in app.screen.query("#scaling-runs RunRow")}
        assert shown == {
            "pytorch-lenet-r1-rep1": "ok",
            "pytorch-lenet-r2-rep1": "ok",
            "pytorch-lenet-r2-rep2": "running",
        }
        third.set()
        await wait_for(pilot, lambda: not app.state.scaling.running, what="the probe to finish")


@run_async
async def test_a_crashing_scaling_launcher_is_a_notification():
    def broken(config, on_event, cancel):
        raise RuntimeError("torchrun not found on PATH")

    app = app_with(scaling_launcher=broken)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = record_notifications(app)
        await settle(pilot)
        await pilot.press("d")
        await wait_for(
            pilot, lambda: any(t == "scaling probe failed" for t, _, _ in seen), what="the failure notification"
        )
        await settle(pilot)
        assert not app.state.scaling.running and app.state.scaling.result is None
        assert ("scaling probe failed", "torchrun not found on PATH", "error") in seen


def test_default_scaling_wiring_is_the_real_runner_imported_lazily(monkeypatch):
    import probes.scaling.runner as runner
    import advisor.cache as store
    from tui import providers

    app = make_app()
    assert app.core.launchers["scaling"] is providers.default_scaling_launcher
    assert app.core.cached["scaling"] is providers.default_cached_scaling
    assert app.core.saves["scaling"] is providers.default_save_scaling
    faked = make_app(scaling_launcher=FakeScalingLauncher())
    assert faked.core.saves["scaling"] is None and faked.core.cached["scaling"]() is None
    calls = []
    monkeypatch.setattr(
        runner,
        "run_scaling",
        lambda config, on_event=None, cancel=None: calls.append((config, on_event, cancel)) or "result",
    )
    assert providers.default_scaling_launcher("cfg", print, "cancel") == "result"
    assert calls == [("cfg", print, "cancel")]
    assert providers.default_cached_scaling() is None  # empty (test) cache
    providers.default_save_scaling(scaling_fixture())
    assert store.load_cached_scaling().runs == scaling_fixture().runs


@pytest.mark.parametrize(
    "text, ranks, bad",
    [
        ("", None, False),
        ("auto", None, False),
        ("2", [1, 2], False),
        ("4,2", [1, 2, 4], False),
        ("1", [1], False),
        ("2 4", [1, 2, 4], False),
        ("x", None, True),
        ("0", None, True),
    ],
)
def test_parse_ranks(text, ranks, bad):
    from tui.screens.probes import parse_ranks

    got, problem = parse_ranks(text)
    assert (got, bool(problem)) == (ranks, bad)


def test_table_rows_of_failed_and_unavailable_frameworks():
    from probes.scaling.models import FrameworkScaling
    from tui.widgets.scaling_panel import note_lines, table_rows

    result = scaling_fixture().model_copy(
        update={
            "frameworks": [
                FrameworkScaling(
                    framework="mindspore",
                    launcher="msrun",
                    model="lenet",
                    status="unavailable",
                    reason="mindspore is not installed",
                    batch_size_per_rank=32,
                    threads_per_rank=1,
                )
            ]
        }
    )
    (row,) = table_rows(result)
    assert [str(c) for c in row[:6]] == ["mindspore/lenet", "-", "unavailable", "-", "-", "-"]
    assert any("mindspore is not installed" in line.plain for line in note_lines(result))
