"""The TUI, third round: estimates that hold, state that stays honest, output a person reads first time.
One pilot test or more per item, each failing before its fix."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
import yaml

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


def painted(app) -> str:
    """Every character the current screen paints (what the terminal is sent, less the styles)."""
    update = app.screen._compositor.render_full_update()
    return "".join(segment.text for strip in update.strips for segment in strip)


def controls(text: str) -> list[str]:
    return [hex(ord(c)) for c in text if ord(c) < 32 or 0x7F <= ord(c) <= 0x9F]


# ---- a requirements file's text never reaches the terminal with its escape sequences ------------


HOSTILE = "team\x1b]0;pwned\x07 \x1b[2J \x1b]52;c;ZWNobyBoaQ==\x07 \x9b31m end"


@run_async
async def test_requirements_text_is_painted_without_control_sequences(tmp_path):
    data = yaml.safe_load(EXAMPLE.read_text())
    data["name"] = HOSTILE
    hostile = tmp_path / "hostile\x1b[2J.yaml"
    hostile.write_text(yaml.safe_dump(data))
    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        requirements_path=str(hostile),
        initial_mode="requirements",
        report_builder=lambda *a, **k: None,
        check_on_start=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        name = app.screen.query_one("#f-name").value
        assert name.startswith("team") and name.endswith("end")  # the words stay, the sequences go
        assert controls(name) == []
        assert controls(painted(app)) == []
        app.notify(HOSTILE, title=HOSTILE)  # a toast quoting the file
        await pilot.pause()
        assert controls(painted(app)) == []


# ---- the Probes screen: the first run's quick profile, the ETA moving, "finished in", no toast ---


def probes_app(launcher=None, cached=None, **kw):
    return make_app(
        host_provider=host_report,
        probe_launcher=launcher or FakeLauncher(),
        cached_probes=cached,
        requirements_path=str(EXAMPLE),
        report_builder=lambda *a, **k: None,
        initial_mode="probes",
        **kw,
    )


@run_async
async def test_first_run_starts_from_the_quick_profile_and_results_bring_the_full_suite():
    from probes.training.models import QUICK

    from fixtures.tui.fakes import cached_suite

    app = probes_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.profile() == "quick" and screen.query_one("#probe-profile").value == "quick"
        choice, _ = screen.choice()
        assert choice["models"] == QUICK["models"] and choice["modes"] == QUICK["modes"]
        assert (choice["repeat"], choice["max_repeat"], choice["budget"]) == (2, QUICK["max_repeat"], 2.0)
        assert "Quick profile" in str(screen.query_one("#probe-status").content)
        await pilot.press("s")
        await settle(pilot)
        started = app.core.launchers["training"].configs[0]
        assert (started.models, started.modes, started.repeat, started.max_repeat) == (
            ["lenet"],
            ["eager", "graph"],
            2,
            QUICK["max_repeat"],
        )
    app = probes_app(cached=cached_suite)  # this host measured before: the full suite, config's budget
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.profile() == "full"
        choice, _ = screen.choice()
        assert choice["models"] == ["lenet", "resnet18"] and choice["budget"] == 6.0  # `advisor config`'s


@run_async
async def test_the_eta_moves_while_no_event_arrives_and_the_end_says_how_long_it_took(monkeypatch):
    import threading

    from tui.screens import probes as probes_screen

    monkeypatch.setattr(probes_screen, "TICK_S", 0.05)
    gate = threading.Event()

    class Silent(FakeLauncher):
        def __call__(self, config, on_event, cancel):
            gate.wait(10)  # a GEMM peak child: no event for a while
            return super().__call__(config, on_event, cancel)

    app = probes_app(Silent(steps=2))
    seen = []
    original = app.notify
    app.notify = lambda message, **kw: (seen.append(str(message)), original(message, **kw))[1]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        clock = app.state.probes.clock
        await pilot.pause(0.3)
        first = clock.view().eta_seconds
        status = str(app.screen.query_one("#probe-status").content)
        assert "preparing (" in status and "left (estimate)" in status  # the preparation has a countdown
        await pilot.pause(1.2)
        assert clock.view().eta_seconds < first  # no event arrived, the ETA moved
        redrawn = str(app.screen.query_one("#probe-status").content)
        assert redrawn != status or clock.view().eta_seconds >= 90  # the line follows (minutes: coarser)
        gate.set()
        await settle(pilot)
        status = str(app.screen.query_one("#probe-status").content)
        assert status.startswith("Probes finished in ") and "(estimate: " in status
        assert not any("finished" in m for m in seen)  # on the Probes screen: the status line, no toast


@run_async
async def test_the_end_is_told_against_the_estimate_start_promised_not_a_re_plan():
    """A run that re-plans (the runner announces more runs than the plan: an extra round) makes the
    plan longer; "finished in 1 s (estimate: N)" names the N the screen showed before Start (a first run's
    range, or 'about' one figure)."""

    import threading

    gate = threading.Event()

    class Replanning(FakeLauncher):
        def __call__(self, config, on_event, cancel):
            gate.wait(10)  # the plan is read before any event moves it

            def more(event):  # every announcement counts four runs beyond the plan
                on_event(event.model_copy(update={"total": app.state.probes.clock.planned + 4}))

            return super().__call__(config, more, cancel)

    app = probes_app(Replanning(steps=2))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        clock = app.state.probes.clock
        promised, promise = clock.estimate_seconds(), clock.promise()
        gate.set()
        await settle(pilot)
        assert clock.estimate_seconds() > promised  # the re-plan made the plan longer
        status = str(app.screen.query_one("#probe-status").content)
        assert f"(estimate: {promise})" in status and promise != clock.promise(), status


TIMES = {"seconds": 4.0, "warmup_seconds": 0.5, "measured_seconds": 1.5}


class Timed(FakeLauncher):
    """The fake runner (behind the probe registry's event adapter, as the TUI's real launcher runs every
    kind: tui.providers.default_launcher) whose runs carry the timings a real run's do (wall time, warm-up
    and measured seconds) and a grade: each round's done event "stable", the suite's run "noisy" (as the
    spread between rounds can grade a run whose rounds were each stable)."""

    def __call__(self, config, on_event, cancel):
        def timed(event):
            if event.kind == "done" and event.run is not None and event.run.status == "ok":
                event = event.model_copy(update={"run": event.run.model_copy(update={**TIMES, "quality": "stable"})})
            on_event(event)

        suite = super().__call__(config, timed, cancel)
        graded = [r.model_copy(update={**TIMES, "quality": "noisy"}) if r.status == "ok" else r for r in suite.runs]
        return suite.model_copy(update={"runs": graded})


@run_async
async def test_a_run_through_the_registry_teaches_the_host_its_figures_and_its_row_keeps_the_numbers(monkeypatch):
    """Through the registry a finished run arrived as a mapping that the TUI read as a bare status, so the
    host learned none of its timed runs' figures from the TUI (the next plan still said "a first run
    here") and the live row lost its median step; the run stays its own model on the way. At the end a
    row says the grade the results table gives its run, not its last round's."""
    from advisor import host_timings
    from advisor.estimates import Load

    learn = host_timings.learn

    def slow_learn(*args):  # the learning thread ends after the end's redraw, as it did live
        time.sleep(0.5)
        learn(*args)

    monkeypatch.setattr(host_timings, "learn", slow_learn)
    monkeypatch.setattr("advisor.estimates.load_now", lambda window=None: Load(2, 0.0))  # one plan text
    app = probes_app(Timed(steps=2))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        promise = app.state.probes.clock.promise()  # a first run's range
        await wait_for(pilot, lambda: app.state.probes.ended is not None, what="the probe's end")
        await wait_for(pilot, lambda: host_timings.path().exists(), what="the learned timings")
        await pilot.pause(0.2)
        await settle(pilot)
        learned = host_timings.figures().measured["training"]
        runs = [rid for rid in app.state.probes.runs if not rid.endswith("-aux")]
        assert runs and all(rid in learned for rid in runs), sorted(learned)
        assert all("median step" in app.state.probes.runs[rid].message for rid in runs)
        # one status per run: the row ends on the suite's grade, as the results table says it
        assert {app.state.probes.runs[rid].status for rid in runs} == {"noisy"}
        # the status line's next plan reads what was learned (it was drawn at the end, before the learning)
        status = str(app.screen.query_one("#probe-status").content)
        assert status.startswith("Probes finished in ") and "Next: " in status
        assert status.endswith(app.screen.estimate_text()) and promise not in status.split("Next: ")[1]


def test_a_live_row_says_its_runs_grade_not_ok():
    """One status per run: a finished row that measured says its grade, as the results table does (a run
    graded unusable read "ok" on its row and "unusable" in the table)."""
    from fixtures.tui.fakes import make_run

    from tui.state import RunProgress

    for grade in ("stable", "noisy", "unusable"):
        row = RunProgress("pytorch-eager-lenet-bs32")
        row.apply(
            "done", None, [], None, "ok", make_run("pytorch", "eager", "lenet").model_copy(update={"quality": grade})
        )
        assert (row.status, row.fraction) == (grade, 1.0)
    failed = RunProgress("mindspore-graph-lenet-bs32")
    failed.apply("done", 0.4, [], None, None, make_run("mindspore", "graph", "lenet", status="failed", error="boom"))
    assert failed.status == "failed" and failed.fraction < 1.0


# ---- a cancel keeps every earlier good result -----------------------------------------------------


@run_async
async def test_a_cancel_keeps_the_earlier_results_and_counts_nothing_as_failed():
    from fixtures.tui.fakes import cached_suite

    launcher = FakeLauncher(steps=400, step_delay=0.01)
    app = probes_app(launcher, cached=cached_suite)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = {r.id: r.images_per_second for r in app.state.probes.result.runs}
        await pilot.press("s")
        await pilot.pause(0.3)
        await pilot.press("c")
        await settle(pilot)
        suite = app.state.probes.result
        assert not any(r.status == "cancelled" for r in suite.runs)  # never run: not a result
        assert {r.id for r in suite.runs} == set(before)  # every earlier run kept
        assert all(r.status == "ok" for r in suite.runs) and all(p.ok for p in suite.parity)
        assert app.screen.query_one("#probe-charts").display  # the charts still have their runs
        status = str(app.screen.query_one("#probe-status").content)
        assert status.startswith("Probes cancelled after ")


# ---- the Recommendation says "recomputing" while its verdict is stale -----------------------------


@run_async
async def test_a_stale_verdict_says_recomputing_until_the_new_one_lands():
    import threading

    from tui.screens.recommendation import RecommendationScreen

    from advisor.report import Report

    gate = threading.Event()
    built = []
    frozen = Report.model_validate_json((ROOT / "tests" / "fixtures" / "tui" / "report.json").read_text())

    def slow_builder(requirements, host, probes, **k):
        if built:  # every build after the first waits for the test
            gate.wait(10)
        built.append(requirements)
        return frozen.model_copy()

    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        requirements_path=str(EXAMPLE),
        report_builder=slow_builder,
        initial_mode="recommendation",
        check_on_start=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RecommendationScreen)
        assert app.state.report is not None and not screen.query_one("#rec-stale").display
        app.state.report_error = "team.size: must be at least 1"  # an error for a field since fixed
        app.rebuild_report()  # an edit: the verdict shown is now for older inputs
        await pilot.pause(0.2)
        assert app.state.report_stale and screen.query_one("#rec-stale").display
        assert "Recomputing" in str(screen.query_one("#rec-stale").content)
        assert app.state.report_error is None  # the fixed field's error is not shown as current
        gate.set()
        await settle(pilot)
        assert not app.state.report_stale and not screen.query_one("#rec-stale").display


# ---- the Requirements form by keyboard --------------------------------------------------------------


@run_async
async def test_a_jump_key_reaches_every_field_and_ctrl_o_reaches_the_file_field():
    from tui.screens.jump import JumpModal

    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        report_builder=lambda *a, **k: None,
        initial_mode="requirements",
        check_on_start=False,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        targets = screen.jump_targets()
        controls = {s.widget_id for s in screen.specs if s.kind != "section"}
        assert {t.widget_id for t in targets} >= controls | {"req-file"}  # every control and the File field
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert isinstance(app.screen, JumpModal)
        await pilot.press(*"deadline")
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is not None and app.focused.id == "f-constraints-deadline-weeks"
        screen.query_one("#req-file").value = ""
        await pilot.press("escape")
        await pilot.press("ctrl+o")  # the File field is empty: go there, not a dead end
        await pilot.pause()
        assert app.focused is not None and app.focused.id == "req-file"


@run_async
async def test_the_results_table_says_which_columns_are_out_of_view_at_80_columns_and_grades_runs():
    from fixtures.tui.fakes import cached_suite

    def graded():
        suite = cached_suite()
        suite.runs[0].quality = "unusable"
        return suite

    app = probes_app(cached=graded)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        title = str(app.screen.query_one("#probe-results-title").content)
        assert "more column(s) to the right (" in title and "compile s" in title  # said, not silently dropped
        row = [str(c) for c in app.screen.query_one("#probe-table").get_row_at(0)]
        assert row[1] == "unusable"  # its grade, as the command line says it: never "ok" for an unusable run
    app = probes_app(cached=cached_suite)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert "more column(s)" not in str(app.screen.query_one("#probe-results-title").content)


# ---- screens built ahead of time ------------------------------------------------------------------


@run_async
async def test_the_other_screens_are_built_styled_and_laid_out_before_their_first_visit():
    import asyncio

    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        report_builder=lambda *a, **k: None,
        initial_mode="host",
        prebuild=True,  # as on a terminal (a headless run builds on first visit)
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(600):
            if all(app._built(mode) for mode in app.MODES):
                break
            await asyncio.sleep(0.05)
        await settle(pilot)
        assert all(app._built(mode) for mode in app.MODES)
        form = app._screen_stacks["requirements"][0]
        field = form.query_one("#f-name")
        assert form.size == app.size  # laid out at the app's size, unseen
        assert form._css_update_count == app._css_update_count  # styled: its first showing need not restyle
        assert form.resumed_at == 0 and app.state.requirements.model is not None  # defaults from this host
        await pilot.press("f2")
        await settle(pilot)
        assert app.screen is form and form.query_one("#f-name") is field  # shown, not composed again
        assert form.resumed_at > 0


def test_the_host_findings_keep_their_indent_when_they_wrap():
    """A finding's message and fix wrapped at 80 columns start their later lines under their first words,
    as `advisor check` prints them (before, a wrapped line started at the left edge)."""
    from rich.console import Console

    from tui.screens.host import FINDING_INDENT, findings_view

    console = Console(width=60, record=True, color_system=None)
    console.print(findings_view(host_report()))
    lines = console.export_text().splitlines()
    warning = lines.index(next(line for line in lines if line.startswith("WARNING")))
    message = lines[warning + 1 : lines.index(next(line for line in lines if "fix:" in line))]
    fix = lines[warning + 1 + len(message) :]
    fix = fix[: next(i for i, line in enumerate(fix) if line.startswith("INFO"))]
    assert len(message) > 1 and len(fix) > 1  # both wrap at this width
    assert all(line.startswith(" " * FINDING_INDENT) and line[FINDING_INDENT] != " " for line in message)
    assert fix[0].strip().startswith("fix: ")
    continued = len(" " * FINDING_INDENT + "fix: ")
    assert all(line.startswith(" " * continued) and line[continued] != " " for line in fix[1:])


# ---- each form field says what it is, in the words the published schema gives an editor ---------


@run_async
async def test_every_form_field_has_a_hint_in_the_models_own_words():
    """The hint line under the form reads the model's field description: before, the weights, the model's
    shape and eight more fields showed only their key, and the form kept a second copy of the rest."""
    from advisor.requirements import ModelSpec, Weights

    app = make_app(host_provider=host_report, probe_launcher=FakeLauncher(), initial_mode="requirements")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        bare = [spec.key for spec in screen.specs if not screen.hint_for(spec).startswith(f"[b]{spec.key}[/b]: ")]
        assert bare == []
        hint = screen.hint_for(next(s for s in screen.specs if s.key == "weights.cost"))
        assert Weights.model_fields["cost"].description in hint
        hint = screen.hint_for(next(s for s in screen.specs if s.key == "model.hidden_size"))
        assert ModelSpec.model_fields["hidden_size"].description in hint and "optional" in hint
        hint = screen.hint_for(next(s for s in screen.specs if s.key == "workload"))
        assert "switch on to fill in" in hint


@run_async
async def test_a_hint_shows_its_description_as_written_on_one_line():
    """A bracket in a description ("[training] for a team that must train ...") was read as a style tag and
    vanished from the hint; a description written over two lines broke the hint line where the source did."""
    from textual.content import Content

    app = make_app(host_provider=host_report, probe_launcher=FakeLauncher(), initial_mode="requirements")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        scope = Content.from_markup(screen.hint_for(next(s for s in screen.specs if s.key == "needs.domestic_scope")))
        assert "[training] for a team" in scope.plain
        model = Content.from_markup(screen.hint_for(next(s for s in screen.specs if s.key == "workload.model")))
        assert "\n" not in model.plain and "custom (give gflops_per_sample)" in model.plain
