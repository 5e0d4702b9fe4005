"""The transformer probe on the Probes screen and the TUI's launchers looping over
the probe registry: the GPT row's choices validated by GptConfig, the live rows and the one
progress model's planned total and ETA, the tables (tokens/s with CI, MFU, the dynamic-shape compile
counts), parity, attention, the charts; every registered kind has its words, state and launcher; and
(slow) a real run of a tiny GPT through the screen."""

from __future__ import annotations

import re
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.fakes import FakeGptLauncher, FakeLauncher, gpt_fixture, host_report  # noqa: E402
from fixtures.tui.pilot import record_notifications, run_async, screen_text, settle, wait_for  # noqa: E402

from tui.app import make_app  # noqa: E402

pytestmark = pytest.mark.timeout(120)


def gpt_app(launcher):
    return make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        launchers={"gpt": launcher},
        report_builder=lambda *a, **k: None,
        initial_mode="probes",
        check_on_start=False,
    )


def table_rows(app, table_id: str) -> list[list[str]]:
    from rich.text import Text
    from textual.widgets import DataTable

    table = app.screen.query_one(table_id, DataTable)
    return [[c.plain if isinstance(c, Text) else str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def test_every_registered_kind_has_words_state_and_a_launcher():
    """Adding a probe kind to probes.base.KINDS reaches the TUI by the registry: a Measurement, a
    controller, a default launcher; its words are data on its registry line."""
    from probes.base import KINDS
    from tui import controller, providers
    from tui.state import AppState

    assert [k.name for k in controller.KINDS] == list(KINDS)
    assert [k.title for k in controller.KINDS] == [k.label for k in KINDS.values()]
    assert set(AppState().kinds) == set(KINDS)
    app = make_app()
    assert set(app.measurements) == set(KINDS) and set(app.core.launchers) == set(KINDS)
    # every kind but scaling (its own launch events: see providers.default_launcher) through the registry
    for name in set(KINDS) - {"scaling"}:
        assert app.core.launchers[name].__qualname__.startswith("default_launcher"), name
    assert app.core.launchers["scaling"] is providers.default_scaling_launcher


@run_async
async def test_gpt_runs_from_the_screen_with_its_tables_and_charts():
    launcher = FakeGptLauncher()
    app = gpt_app(launcher)
    seen = record_notifications(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.query_one("#gpt-layers").value = "2"
        screen.query_one("#gpt-hidden").value = "64"
        screen.query_one("#gpt-seq").value = "32"
        await pilot.press("g")
        await wait_for(pilot, lambda: app.state.gpt.result is not None and not app.state.gpt.running, what="gpt")
        # drawn when the screen has handled the finish (waiting on what is asserted cannot race)
        await wait_for(pilot, lambda: len(table_rows(app, "#gpt-runs-table")) == 4, what="the runs table")
        await settle(pilot)
        config = launcher.configs[0]
        assert (config.layers, config.hidden, config.seq, config.budget) == (2, 64, 32, 2.0)
        assert config.frameworks == ["pytorch", "mindspore"] and config.heads == 4  # GptConfig's default
        result = gpt_fixture()
        runs = table_rows(app, "#gpt-runs-table")
        assert [r[0] for r in runs] == [r.id for r in result.runs]
        for row, run in zip(runs, result.runs):
            assert row[2] == run.quality == "unusable"  # the grade shown, as the CLI's table prints it
            ci = f"{run.ci95[0]:,.0f}-{run.ci95[1]:,.0f}" if run.ci95 else "-"  # too few samples: no interval
            assert row[3] == f"{run.tokens_per_second:,.0f}" and row[4] == ci
            assert row[6] == (f"{run.mfu:.1%}" if run.mfu is not None else "-")
        assert sum(r[4] != "-" for r in runs) >= 1 and sum(r[6] != "-" for r in runs) >= 1
        dynamic = table_rows(app, "#gpt-dynamic-table")
        compiles = [str(w.compiles) for d in result.dynamic for w in d.ways]
        assert [r[2] for r in dynamic] == compiles == ["1", "1", "1", "1", "3", "3", "1", "1", "1"]
        assert dynamic[4][:2] == ["mindspore graph", "bucketed"]
        text = " ".join(screen_text(app).split())
        assert "graph: MindSpore GRAPH_MODE, static shapes" in text  # what each variant is, under the table
        assert "Parity pass" in text and "flash (CPU)" in text and "FlashAttentionScore" in text
        assert "truly variable lengths cost 51%" in text  # the probe's own finding, not recomputed
        assert screen.query_one("#gpt-charts").display
        # on the Probes screen the status line says it ended (a toast would cover the results)
        assert "Transformer probe finished in " in screen_text(app)
        assert not any("finished" in msg for _, msg, _ in seen)
        rows = {p.run_id: p for p in app.state.gpt.runs.values()}
        # a finished row says its run's grade, as the table does (the fixture's runs are all unusable)
        assert rows["pytorch-eager-gpt"].status == "unusable" and rows["pytorch-eager-gpt"].unit == "tok/s"
        assert rows["pytorch-eager-gpt"].rate == result.runs[0].tokens_per_second


@run_async
async def test_gpt_progress_is_the_one_model_with_the_announced_total_and_an_eta():
    hold = threading.Event()
    app = gpt_app(FakeGptLauncher(hold=hold))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        # 4 timed runs + 3 dynamic variants, as the runner announces them (its aux children are preparation)
        running = re.compile(r"Transformer \(GPT\) running: 0 of 7 runs finished, about .+ left \(estimate\)")
        await wait_for(
            pilot, lambda: running.search(" ".join(screen_text(app).split())), what="the status with the ETA"
        )
        assert app.state.gpt.clock is not None and app.state.gpt.clock.planned == 7
        # the first run's quick profile is the transformer probe's too: its short dynamic-shape schedule
        from probes.transformer.models import GPT_QUICK

        config = app.state.gpt.config
        assert (config.dynamic_steps, config.dynamic_ways, config.repeat) == tuple(
            GPT_QUICK[k] for k in ("dynamic_steps", "dynamic_ways", "repeat")
        )
        await pilot.press("c")
        hold.set()
        await wait_for(pilot, lambda: not app.state.gpt.running, what="cancelled")
        await settle(pilot)


@run_async
async def test_gpt_choices_are_checked_by_the_screen_and_by_gpt_config():
    launcher = FakeGptLauncher()
    app = gpt_app(launcher)
    seen = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.query_one("#gpt-layers").value = "0"
        await pilot.press("g")
        screen.query_one("#gpt-layers").value = "2"
        screen.query_one("#gpt-hidden").value = "66"  # not a multiple of the 4 heads
        await pilot.press("g")
        screen.query_one("#gpt-hidden").value = "64"
        screen.query_one("#gpt-layers").value = "99"  # GptConfig: at most 48
        await pilot.press("g")
        await settle(pilot)
    problems = [(title, msg) for title, msg, sev in seen if sev == "error"]
    assert problems[0] == ("Cannot start the transformer probe", "layers: must be at least 1")
    assert problems[1][1] == "hidden 66 must be a multiple of heads 4", problems  # the CLI's words
    assert problems[2][1] == "layers: Input should be less than or equal to 48"
    assert launcher.configs == []


@pytest.mark.slow
@pytest.mark.timeout(900)
@run_async
async def test_real_tiny_gpt_through_the_screen(tmp_path):
    """The real transformer probe through the app's default launcher (probes.base.KINDS["gpt"].run)
    on a tiny GPT and a small budget: PyTorch eager and MindSpore graph timed, MindSpore graph's
    dynamic-shape ways; the tables show what the probe measured, one graph per distinct length."""
    from probes.transformer.models import GptConfig

    config = GptConfig(
        layers=2, hidden=64, heads=4, seq=32, vocab=512, batch_size=4, budget=1.0, repeat=1, max_repeat=1,
        max_steps=12, modes=["eager", "graph"], gemm=False, parity=False, attention=False,
        dynamic_variants=["graph"], dynamic_ways=["padded", "variable"], dynamic_steps=4, dynamic_distinct=2,
        dynamic_passes=2, compile_cache_dir=str(tmp_path / "inductor"),
    )  # fmt: skip
    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        report_builder=lambda *a, **k: None,
        initial_mode="probes",
        check_on_start=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.start_measurement("gpt", config)
        await wait_for(pilot, lambda: not app.state.gpt.running, timeout=840, what="the real GPT probe")
        await wait_for(pilot, lambda: table_rows(app, "#gpt-dynamic-table"), what="the tables drawn")
        await settle(pilot)
        result = app.state.gpt.result
        assert result is not None and {r.mode for r in result.runs} == {"eager", "graph"}
        runs = table_rows(app, "#gpt-runs-table")
        for row, run in zip(runs, result.runs):
            assert row[1] == run.status
            if run.status == "ok":
                assert row[3] == f"{run.tokens_per_second:,.0f}" and float(row[3].replace(",", "")) > 0
        graph = next(d for d in result.dynamic if d.variant == "graph")
        assert graph.status == "ok", graph.error
        ways = {w.way: w for w in graph.ways}
        assert ways["variable"].compiles == 2 and ways["padded"].compiles == 1  # one graph per distinct length
        dynamic = table_rows(app, "#gpt-dynamic-table")
        assert [(r[0], r[1], r[2]) for r in dynamic] == [
            ("mindspore graph", "padded", "1"),
            ("mindspore graph", "variable", "2"),
        ]
        rows = app.state.gpt.runs
        assert {"pytorch-eager-gpt", "mindspore-graph-gpt", "mindspore-graph-dynamic"} <= set(rows)
        assert all(p.status not in ("running", "waiting") for p in rows.values())
        assert app.state.gpt.clock.planned == 3 and app.state.gpt.clock.finished == 3
