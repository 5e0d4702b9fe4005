"""The TUI, fifth round: screens that switch at once, and the keyboard path into the form after it.
Each test fails before its fix unless it says it guards what already holds."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.fakes import FakeLauncher, host_report  # noqa: E402
from fixtures.tui.pilot import run_async, settle, wait_for  # noqa: E402

from tui.app import make_app  # noqa: E402

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    """No test here reads or writes the user's cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def form_app(**kwargs):
    kwargs.setdefault("requirements_path", str(EXAMPLE))
    kwargs.setdefault("report_builder", lambda *a, **k: None)
    return make_app(host_provider=host_report, probe_launcher=FakeLauncher(), check_on_start=False, **kwargs)


def frozen_report(*_args, **_kwargs):
    """The report the snapshots show (tests/fixtures/tui/report.json): no scoring in these tests."""
    from advisor.report import Report

    return Report.model_validate_json((ROOT / "tests" / "fixtures" / "tui" / "report.json").read_text())


def counting_reflows(screen) -> list[int]:
    """Counts the screen's full layouts (Textual's compositor reflow) from now on."""
    calls = [0]
    reflow = screen._compositor.reflow

    def counted(*args, **kwargs):
        calls[0] += 1
        return reflow(*args, **kwargs)

    screen._compositor.reflow = counted
    return calls


def painted(app) -> str:
    update = app.screen._compositor.render_full_update()
    return "".join(segment.text for strip in update.strips for segment in strip)


# ---- a later visit does not lay the form out again --------------------------------------------------


@run_async
async def test_a_later_visit_to_an_unchanged_form_paints_it_without_laying_it_out_again():
    app = form_app(initial_mode="requirements")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        form = app.screen
        for key in ("f1", "f2", "f1"):  # the Host screen's first visit brings its styles: one restyle
            await pilot.press(key)
            await settle(pilot)
        reflows = counting_reflows(form)
        await pilot.press("f2")
        await settle(pilot)
        assert app.screen is form
        assert reflows[0] == 0  # every widget is where the last layout put it: none was moved
        text = painted(app)
        assert "Requirements" in text and "stage" in text.lower() and "f2 Reqs" not in text  # the form, its footer


@run_async
async def test_a_form_changed_while_hidden_is_laid_out_again_when_shown():
    app = form_app(initial_mode="requirements")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        form = app.screen
        await pilot.press("f1")
        await settle(pilot)
        reflows = counting_reflows(form)
        form.show_errors({"f-name": "required"})  # an error line takes room: the form below moves down
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        assert reflows[0] >= 1
        line = form.query_one("#err-f-name")
        assert line.display and line.region.height == 1 and "required" in painted(app)
        # the terminal was resized while the form was hidden: laid out at the new size
        await pilot.press("f1")
        await settle(pilot)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        assert form.size == app.size and form.query_one("Footer").region.width == 80


# ---- the switch is painted once the new screen is ready, not after a fixed hold ----------------------


@run_async
async def test_a_screen_switch_paints_as_soon_as_the_new_screen_has_handled_its_resume():
    app = form_app(initial_mode="host")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        hold = app.delay_update
        app.delay_update = lambda delay=0.05: hold(120.0)  # Textual's hold, stretched: only a release ends it
        written: list[object] = []
        display = app._display

        def counted(screen, renderable):
            if renderable is not None and not app._batch_count and app.current_mode == "requirements":
                written.append(screen)
            return display(screen, renderable)

        app._display = counted
        await pilot.press("f2")
        await wait_for(pilot, lambda: bool(written), timeout=60, what="a frame of the new screen written")
        # written with no hold on (a recompose may hold frames for a moment since): the switch's hold
        # ended long before its stretched 120 s
        assert written[0] is app.screen


# ---- the full collection no longer lands on a key ----------------------------------------------------


@run_async
async def test_once_every_screen_is_built_the_apps_objects_are_out_of_the_full_collections_way():
    import gc

    app = form_app(initial_mode="host", prebuild=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(600):
            if all(app._built(mode) for mode in app.MODES) and gc.get_freeze_count():
                break
            await asyncio.sleep(0.05)
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the widgets, the models and the knowledge base
    assert gc.get_freeze_count() == 0  # undone when the app ends: the process can free them


# ---- the jump key reaches a field of a section that is switched off ---------------------------------


@run_async
async def test_the_jump_key_reaches_a_field_of_a_switched_off_section_and_it_can_be_edited():
    from textual.widgets import Input, Switch

    from tui.screens.jump import JumpModal

    app = form_app(initial_mode="requirements")
    async with app.run_test(size=(80, 24)) as pilot:
        app.screen.DEBOUNCE_S = 0.01
        await settle(pilot)
        form = app.screen
        await pilot.press("f1")  # a later visit (painted from the last layout) first
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        section = form.query_one("#sec-f-serving", Switch)
        assert not section.value and form.query_one("#f-serving-concurrency", Input).disabled
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert isinstance(app.screen, JumpModal)
        await pilot.press(*"serving.concurrency")
        await pilot.press("enter")
        await settle(pilot)
        assert app.focused is section  # its section's switch first: the field is off with it
        await pilot.press("space")
        await settle(pilot)
        assert section.value
        await pilot.press("ctrl+g")
        await pilot.pause()
        await pilot.press(*"serving.concurrency")
        await pilot.press("enter")
        await settle(pilot)
        field = form.query_one("#f-serving-concurrency", Input)
        assert app.focused is field
        scroller = form.query_one("#req-form")
        assert scroller.region.contains_region(field.region)  # scrolled into view
        await pilot.press("ctrl+a", "ctrl+k", *"7")  # (ctrl+k: delete to the end of the field)
        await settle(pilot, 0.1)
        assert field.value == "7"
        assert app.state.requirements.data["serving"]["concurrency"] == 7
        assert app.state.requirements.model is not None and not form.errors
        await pilot.press(*"x")  # inline validation still speaks for it
        await settle(pilot, 0.1)
        assert form.errors.get("f-serving-concurrency") and app.state.requirements.model is None


# ---- what the export writes by default, git leaves out (guards what holds) --------------------------


def test_the_default_exports_and_their_charts_are_all_left_out_by_gitignore(tmp_path, monkeypatch):
    import subprocess

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    @run_async
    async def export() -> None:
        app = form_app(initial_mode="recommendation", report_builder=frozen_report)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await wait_for(pilot, lambda: app.state.report is not None, what="the report")
            for fmt in ("markdown", "html", "json"):
                path = app.screen.export_path(fmt)  # the Export field as it starts
                assert app.export_report(fmt, path) is not None

    export()
    written = sorted(p.name for p in work.iterdir())
    assert sum(name.endswith(".svg") for name in written) >= 5 and "advisor-report.html" in written
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *written], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    assert sorted(ignored) == written  # a newcomer's `git status` stays clean after an export
