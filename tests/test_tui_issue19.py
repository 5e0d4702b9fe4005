"""Pilot tests for the TUI as people who live in terminals expect it, and the
one shared list of requirement files that `advisor report` and the TUI must accept and reject alike."""

from __future__ import annotations

import re

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.fakes import FakeLauncher, cached_suite, host_report, make_run  # noqa: E402
from fixtures.tui.pilot import (  # noqa: E402
    fast_form,
    record_notifications,
    run_async,
    screen_text,
    settle,
    wait_for,
)

from tui.app import make_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHARED = sorted((ROOT / "tests" / "fixtures" / "tui" / "requirements").glob("*.yaml"))
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
pytestmark = pytest.mark.timeout(90)


@pytest.fixture(autouse=True)
def _fast_form(monkeypatch, tmp_path):
    fast_form(monkeypatch)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # `advisor report` reads the cache


def app_with(**kwargs):
    kwargs.setdefault("host_provider", host_report)
    kwargs.setdefault("probe_launcher", FakeLauncher())
    return make_app(**kwargs)


# ---- one validation path ------------------------------------------------------------------------


def test_the_shared_list_has_both_kinds():
    names = [p.name for p in SHARED]
    assert any(n.startswith("ok-") for n in names) and any(n.startswith("bad-") for n in names)


@run_async
async def test_cli_and_tui_accept_and_reject_the_same_requirement_files():
    from advisor.cli import main

    files = SHARED + EXAMPLES
    cli = {p.name: main(["report", str(p), "--json", "-o", "/dev/null"]) for p in files}
    tui = {}
    app = app_with(initial_mode="requirements")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for path in files:
            loaded = app.load_requirements(str(path))  # False: refused outright (a type error)
            await settle(pilot)
            tui[path.name] = 0 if loaded and app.state.requirements.model is not None else 2
    assert cli == tui
    assert {n: c for n, c in cli.items() if n.startswith("bad-")} == {n: 2 for n in cli if n.startswith("bad-")}
    assert all(cli[p.name] == 0 for p in EXAMPLES)


@run_async
async def test_unknown_accelerator_typed_into_the_form_is_an_inline_error():
    app = app_with(initial_mode="requirements", requirements_path=str(SHARED[0].parent / "ok-nvidia-h100.yaml"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.state.requirements.model is not None
        app.screen.query_one("#f-hardware-accelerator").value = "tpu9000"
        await settle(pilot)
        assert app.state.requirements.model is None
        error = str(app.screen.query_one("#err-f-hardware-accelerator").content)
        assert "not in the knowledge base" in error
        assert "need attention" in screen_text(app)


# ---- cancel never types into a field ------------------------------------------------------------


@run_async
async def test_enter_on_start_then_c_cancels_and_escape_leaves_a_field():
    launcher = FakeLauncher(steps=400, step_delay=0.01)
    app = app_with(probe_launcher=launcher, initial_mode="probes")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.query_one("#probe-start").focus()
        await pilot.press("enter")
        await wait_for(pilot, launcher.started.is_set, what="probes to start")
        focused = app.focused
        assert focused is not None and focused.id == "probe-cancel"  # not the Budget input
        footer_keys = {b.key for _, b, enabled, *_ in app.screen.active_bindings.values() if enabled}
        assert "c" in footer_keys
        await pilot.press("c")
        await settle(pilot)
        assert launcher.cancel_seen.is_set() and not app.state.probes.running
        budget = app.screen.query_one("#probe-budget")
        assert budget.value == "2"  # nothing typed into it
        assert app.focused is not None and app.focused.id == "probe-start"
        budget.focus()
        await pilot.press("escape")
        assert app.focused is not budget  # out of the field (on the screen's scroll area)
        await pilot.press("s")  # the screen's key again, not a character in the field
        await wait_for(pilot, lambda: len(launcher.configs) == 2, what="a second start")
        assert budget.value == "2"


# ---- progress and numbers -----------------------------------------------------------------------


@run_async
async def test_progress_names_the_planned_runs_and_cancelled_bars_stay_put():
    launcher = FakeLauncher(steps=400, step_delay=0.01)
    app = app_with(probe_launcher=launcher, initial_mode="probes")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = screen_text(app)
        from probes.training.models import QUICK, ProbeConfig
        from probes.training.runner import plan_jobs

        planned = len(plan_jobs(ProbeConfig(**QUICK)))  # the first run's quick profile: 2 modes x 2 rounds
        # before Start: how long it takes (a first run here: a range, the host's own times not known yet)
        assert re.search(rf"{planned} runs planned, .+ to .+ \(estimate: a first run here", before), before
        await pilot.press("s")
        await wait_for(pilot, lambda: app.state.probes.running, what="start")
        assert app.state.probes.total > 0  # from the plan (the fake launcher then reports its own count)
        assert "of 0 runs" not in screen_text(app)
        await wait_for(pilot, lambda: app.screen.query("RunRow"), what="a run row")
        await pilot.press("c")
        await settle(pilot)
        rows = list(app.screen.query("RunRow"))
        cancelled = [r for r in rows if r.progress.status == "cancelled"]
        assert cancelled and all(r.progress.fraction < 1.0 for r in cancelled)


def test_finished_row_states_the_median_the_table_shows():
    from tui.screens.probes import run_cells
    from tui.state import RunProgress

    run = make_run("pytorch", "eager", "lenet")
    progress = RunProgress(run.id)
    progress.apply("progress", 0.5, [404.1], 100.0, None, None)
    progress.apply("done", None, [], None, "ok", run)
    assert "median step 1.8 ms" in progress.message and run_cells(run)[4] == "1.8"


def test_aux_rows_are_named_as_preparation():
    from tui.state import run_title

    assert run_title("pytorch-aux") == "pytorch: GEMM peak and parity arrays (preparation)"
    assert run_title("pytorch-eager-lenet-bs32") == "pytorch-eager-lenet-bs32"


def test_cells_are_cut_at_words_and_values_read_as_words(monkeypatch):
    monkeypatch.setenv("ADVISOR_ASCII", "0")
    from tui.screens.probes import _short
    from tui.screens.recommendation import evidence_value
    from tui.screens.requirements import bounds_words

    assert _short("cancelled by the user before it started", 20) == "cancelled by the…"
    assert evidence_value("ci95", [1951.3685517119388, 2836.0404543240743]) == "CI95 1,951-2,836"
    assert evidence_value("value", False) == "= no"
    assert evidence_value("value", ["cpu-server"]) == "= cpu-server"
    assert bounds_words({"ge": 1, "le": 10000}) == "1 to 10000"
    assert bounds_words({"gt": 0}) == "more than 0"
    monkeypatch.setenv("ADVISOR_ASCII", "1")  # the plain fallback
    assert _short("cancelled by the user before it started", 20) == "cancelled by the..."


@run_async
async def test_form_hints_and_labels_have_no_jargon_and_do_not_wrap():
    app = app_with(initial_mode="requirements")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        weeks = app.screen.query_one("#f-constraints-deadline-weeks")
        assert "ge " not in weeks.placeholder and "optional" in weeks.placeholder
        labels = [str(w.content) for w in app.screen.query(".field-label")]
        assert not any("(optional)" in text for text in labels)


# ---- silent overwrites --------------------------------------------------------------------------


@run_async
async def test_load_over_unsaved_edits_asks_first():
    from tui.screens.confirm import ConfirmModal

    app = app_with(initial_mode="requirements", requirements_path=str(EXAMPLES[0]))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.screen.query_one("#f-name").value = "edited by hand"
        await settle(pilot)
        app.screen.query_one("#req-file").value = str(EXAMPLES[1])
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen.query_one("#f-name").value == "edited by hand"
        await pilot.press("ctrl+o")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert app.screen.query_one("#f-name").value != "edited by hand"
        assert app.state.requirements.path == str(EXAMPLES[1])


@run_async
async def test_export_asks_before_overwriting_and_names_the_absolute_path(tmp_path, monkeypatch):
    from tui.screens.confirm import ConfirmModal

    monkeypatch.chdir(tmp_path)
    (tmp_path / "advisor-report.json").write_text("keep me")
    app = app_with(initial_mode="recommendation", requirements_path=str(EXAMPLES[0]))
    seen = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.state.report is not None, what="report")
        await pilot.press("j")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("escape")
        await pilot.pause()
        assert (tmp_path / "advisor-report.json").read_text() == "keep me"
        await pilot.press("m")  # no Markdown file yet: written at once
        await settle(pilot)
        assert any(msg.startswith(f"Wrote {tmp_path / 'advisor-report.md'}") for _, msg, _ in seen)


# ---- cached results say where from --------------------------------------------------------------


@run_async
async def test_cached_results_say_where_from_and_when_and_offer_a_rerun():
    app = app_with(cached_probes=cached_suite, initial_mode="probes")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "measured 2026-11-30 12:00 UTC on AMD EPYC 9B45" in text
        assert "press s to measure again" in text


# ---- state without colour -----------------------------------------------------------------------


@run_async
async def test_checkbox_and_switch_state_reads_without_colour():
    app = app_with(initial_mode="probes")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        on = app.screen.query_one("#model-lenet")
        off = app.screen.query_one("#model-resnet50")
        assert on._button.plain == "[x]" and off._button.plain == "[ ]"
    app = app_with(initial_mode="requirements")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        switch = app.screen.query_one("#sec-f-workload")
        assert switch.render().plain == "[off]"
        switch.value = True
        assert switch.render().plain == "[ on]"


@run_async
async def test_help_says_how_to_close_on_its_first_line_at_80x24():
    app = app_with(initial_mode="host")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert "escape closes" in str(app.screen.query_one("#help-title").content)


@run_async
async def test_every_column_of_a_run_is_reachable_at_80_columns():
    app = app_with(cached_probes=cached_suite, initial_mode="probes")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        detail = str(app.screen.query_one("#probe-detail").content)
        for name in ("img/s", "CI95", "MFU", "loss", "first s", "peak MB", "stop"):
            assert name in detail


def test_terminal_theme_follows_the_terminal(monkeypatch):
    from tui.app import DARK, LIGHT, terminal_theme

    monkeypatch.delenv("ADVISOR_THEME", raising=False)
    monkeypatch.setenv("COLORFGBG", "0;15")
    assert terminal_theme() == LIGHT
    monkeypatch.setenv("COLORFGBG", "15;0")
    assert terminal_theme() == DARK
    monkeypatch.setenv("ADVISOR_THEME", "light")
    assert terminal_theme() == LIGHT


@run_async
async def test_command_palette_offers_every_screen_action_and_runs_it():
    app = app_with(initial_mode="host")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for expected in (
            "Training probes: Start the training probes (s)",
            "Training probes: Cancel the running probe (c)",
            "Requirements: Save requirements (ctrl+s)",
            "Requirements: Load requirements (ctrl+o)",
            "Recommendation: Export the report as JSON (j)",
            "Host check: Refresh the host check (r)",
            "Light / dark theme",
            "Go to Training probes",
        ):
            assert expected in titles
        theme = app.theme
        await pilot.press("ctrl+t")
        assert app.theme != theme
        start = next(
            c
            for c in app.get_system_commands(app.screen)
            if c.title == "Training probes: Start the training probes (s)"
        )
        start.callback()
        await wait_for(pilot, lambda: app.core.launchers["training"].configs, what="start from the palette")
        assert app.current_mode == "probes"
