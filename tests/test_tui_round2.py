"""The TUI and CLI, second round: one test or more per item, each failing before its fix:
the TUI's numbers against the CLI's text for the same files, focus and scroll kept, the palette
generated from the bindings, the footer at 80 columns, the export's charts."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.fakes import (  # noqa: E402
    FakeLauncher,
    FakeScalingLauncher,
    host_report,
    pipeline_fixture,
    suite_launcher,
)
from fixtures.tui.pilot import run_async, screen_text, settle, wait_for  # noqa: E402

from tui.app import make_app  # noqa: E402

pytestmark = pytest.mark.timeout(90)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"
PIPELINE = ROOT / "tests" / "fixtures" / "tui" / "pipeline-digits.json"


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    """No test here reads or writes the user's cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


async def press_button(pilot, button_id: str) -> None:
    button = pilot.app.screen.query_one(f"#{button_id}")
    button.scroll_visible(animate=False)
    await pilot.pause()
    button.press()
    await pilot.pause()


# ---- 1: the pipeline feed share is the report's ---------------------------------------------------


def cli_feed_shares(capsys) -> dict[str, str]:
    """framework -> "49%-56%" as `advisor report --pipeline FILE --markdown` prints it."""
    from advisor.cli import main

    assert main(["report", str(EXAMPLE), "--no-cache", "--pipeline", str(PIPELINE), "--markdown"]) == 0
    text = capsys.readouterr().out
    shares = {}
    for share, fw in re.findall(r"would feed (\S+) of the chips: (\w+) ", text):
        shares.setdefault(fw, share)
    return shares


@run_async
async def _tui_feed_text() -> str:
    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        scaling_launcher=FakeScalingLauncher(),
        pipeline_launcher=suite_launcher(pipeline_fixture()),
        requirements_path=str(EXAMPLE),
        initial_mode="probes",
        check_on_start=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press_button(pilot, "pipeline-start")
        await wait_for(pilot, lambda: app.state.pipeline.result is not None, timeout=30, what="the suite")
        await wait_for(pilot, lambda: "would feed" in screen_text(app), timeout=30, what="the feed line")
        return screen_text(app)


def test_the_tui_prints_the_feed_share_the_report_prints(capsys):
    """The TUI said 100% where `advisor report --pipeline` said 24-32% (it divided the
    loader's rate by a projection already capped at that rate). The expected figures are the CLI's text."""
    cli = cli_feed_shares(capsys)
    assert set(cli) >= {"pytorch", "mindspore"}, cli
    text = _tui_feed_text()
    tui = dict(re.findall(r"^(\w+): fastest loader here.*\n\s+on .*?would feed (\S+) of the devices", text, re.M))
    assert tui, text
    for fw, share in tui.items():
        assert share == cli[fw], (fw, share, cli)


# ---- settle() and a superseded exclusive worker -----------------------------------------


@run_async
async def test_settle_survives_an_exclusive_worker_superseded_while_it_waits():
    """The report worker is exclusive: a newer one cancels the older. settle() used to await
    wait_for_complete, which raises WorkerCancelled for the cancelled one."""
    import asyncio

    from textual.app import App

    from fixtures.tui.pilot import settle as settle_

    class Superseding(App):
        finished: list = []

        async def build(self, n: int) -> None:
            # the first outlasts any delay of the timer that supersedes it on a loaded host: only the
            # cancel ends it before the test's time, so which one finishes never depends on the load
            await asyncio.sleep(30.0 if n == 1 else 0.3)
            self.finished.append(n)

        def on_mount(self) -> None:
            self.run_worker(self.build(1), group="report", exclusive=True)
            self.set_timer(0.1, lambda: self.run_worker(self.build(2), group="report", exclusive=True))

    app = Superseding()
    async with app.run_test() as pilot:
        await settle_(pilot)
        assert app.finished == [2]  # the superseded one never finished; the newer one was waited for


# ---- 2: the cached runs used are named ------------------------------------------------------------


@run_async
async def test_the_probes_screen_names_every_cached_run_with_date_host_and_command():
    from fixtures.tui.fakes import cached_suite

    from advisor import cache

    suite = cached_suite()
    suite.created, suite.host.fingerprint = "2026-11-29T07:30:00Z", "f00dfeed"
    cache.save_probes(suite, "f00dfeed", command="advisor probe --budget 90")
    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        scaling_launcher=FakeScalingLauncher(),
        cached_probes=lambda: cache.load_cached_probes("f00dfeed"),
        initial_mode="probes",
        check_on_start=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: "cached run(s)" in screen_text(app), what="the cached runs")
        text = " ".join(screen_text(app).split())
        assert (
            f"{len(suite.runs)} cached run(s) measured 2026-11-29 07:30 UTC on host f00dfeed "
            "by `advisor probe --budget 90`:" in text
        )
        for run in suite.runs:
            assert run.id in text


# ---- 3: Escape keeps your place in the Requirements form ------------------------------------------


@run_async
async def test_escape_in_the_form_keeps_the_place_and_the_keys_still_scroll():
    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        scaling_launcher=FakeScalingLauncher(),
        requirements_path=str(EXAMPLE),
        initial_mode="requirements",
        check_on_start=False,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        devices = app.screen.query_one("#f-hardware-devices")
        order = [w for w in app.screen.focus_chain]
        after = order[order.index(devices) + 1]
        for _ in range(len(order)):  # Tab from the top, as a user does
            if app.focused is devices:
                break
            await pilot.press("tab")
        assert app.focused is devices
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is not devices and not hasattr(app.focused, "cursor_position")  # out of the field
        form = app.screen.query_one("#req-form")
        form.scroll_home(animate=False)
        await pilot.pause()
        await pilot.press("pagedown")
        await pilot.pause()
        assert form.scroll_y > 0, "PageDown scrolls the form after Escape"
        y = form.scroll_y
        await pilot.press("up")
        await pilot.pause()
        assert form.scroll_y < y, "the arrows scroll it too"
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused is after, (app.focused, after)  # the field after devices, not the File field
        await pilot.press("escape")
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.focused is devices


# ---- 4: one progress model, a planned total and an ETA, for every kind ----------------------------


@pytest.mark.parametrize("kind", ["accuracy", "pipeline"])
def test_accuracy_and_pipeline_show_the_planned_total_and_an_eta(kind):
    import threading

    from fixtures.tui.fakes import accuracy_fixture

    hold = threading.Event()
    result = accuracy_fixture() if kind == "accuracy" else pipeline_fixture()

    @run_async
    async def go():
        app = make_app(
            host_provider=host_report,
            probe_launcher=FakeLauncher(),
            scaling_launcher=FakeScalingLauncher(),
            report_builder=lambda *a, **k: None,
            initial_mode="probes",
            check_on_start=False,
            **{f"{kind}_launcher": suite_launcher(result, hold=hold)},
        )
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await press_button(pilot, f"{kind}-start")
            state = getattr(app.state, kind)
            await wait_for(pilot, lambda: any(p.fraction > 0 for p in state.runs.values()), what="a run half-way")
            planned = state.clock.planned
            unit = state.clock.unit  # the pipeline's steps are its passes (one child each)
            await wait_for(pilot, lambda: f"0 of {planned} {unit} finished, about" in screen_text(app), what="the ETA")
            assert "finished so far" not in screen_text(app)
            hold.set()
            await wait_for(pilot, lambda: not state.running, what="the end")
            return planned

    planned = go()
    config_runs = len(result.runs)  # the fixture replays every run the default config plans
    assert planned >= config_runs > 0


@run_async
async def test_deploy_shows_its_steps_as_the_runner_announces_them():
    import threading

    from fixtures.tui.fakes import deploy_launcher

    hold = threading.Event()
    launcher = deploy_launcher(hold=hold)
    steps = len(launcher.steps)
    original = launcher.__call__

    def announcing(config, on_event, cancel):  # the real runner's DeployEvents carry the step total
        return original(config, lambda e: on_event({**e, "total": steps}), cancel)

    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        scaling_launcher=FakeScalingLauncher(),
        report_builder=lambda *a, **k: None,
        deploy_launcher=announcing,
        initial_mode="probes",
        check_on_start=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press_button(pilot, "deploy-start")
        await wait_for(pilot, launcher.started.is_set, what="a step")
        # planned from the config before the first event (advisor.progress.planned_for), then the runner's total
        await wait_for(pilot, lambda: re.search(r"0 of \d+ steps finished, about", screen_text(app)), what="the ETA")
        hold.set()
        await wait_for(pilot, lambda: not app.state.deploy.running, what="the end")


# ---- 5: scroll positions ---------------------------------------------------------------------------


@run_async
async def test_the_probes_screen_keeps_its_scroll_when_a_probe_is_cancelled_or_finishes():
    launcher = FakeLauncher(steps=400, step_delay=0.01)
    app = make_app(
        host_provider=host_report,
        probe_launcher=launcher,
        scaling_launcher=FakeScalingLauncher(),
        report_builder=lambda *a, **k: None,
        initial_mode="probes",
        check_on_start=False,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        body = app.screen.query_one("#probe-body")
        app.screen.query_one("#probe-start").focus()
        await pilot.press("enter")
        await wait_for(pilot, launcher.started.is_set, what="probes to start")
        await pilot.pause(0.3)
        body.scroll_end(animate=False)
        await pilot.pause()
        where = body.scroll_y
        assert where > 0
        await pilot.press("c")
        await wait_for(pilot, lambda: not app.state.probes.running, what="the cancel")
        await settle(pilot)
        assert body.scroll_y >= min(where, body.max_scroll_y) - 1, (
            body.scroll_y,
            where,
            body.max_scroll_y,
            app.focused,
        )


@run_async
async def test_recommendation_scrolls_to_the_verdict_when_a_new_file_is_loaded():
    examples = sorted((ROOT / "examples").glob("*.yaml"))
    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        scaling_launcher=FakeScalingLauncher(),
        requirements_path=str(examples[0]),
        initial_mode="recommendation",
        check_on_start=False,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.state.report is not None, what="the report")
        body = app.screen.query_one("#rec-body")
        body.scroll_end(animate=False)
        await pilot.pause()
        assert body.scroll_y > 0
        first = app.state.report
        assert app.load_requirements(str(examples[1]))
        await wait_for(pilot, lambda: app.state.report is not None and app.state.report is not first, what="new")
        await settle(pilot)
        assert body.scroll_y == 0


# ---- 6: every action in the command palette, from the list the bindings are made from -------------


@run_async
async def test_the_palette_and_the_bindings_are_made_from_one_list():
    from textual.binding import Binding

    from tui.app import AdvisorApp

    app = make_app(host_provider=host_report, probe_launcher=FakeLauncher(), check_on_start=False)
    async with app.run_test(size=(80, 24)):
        palette = {c.title for c in app.get_system_commands(app.screen)}
    for mode, cls in AdvisorApp.MODES.items():
        own = [b for b in cls.BINDINGS if isinstance(b, Binding) and not b.action.startswith("app.")]
        own = [b for b in own if b.action != "leave_field"]  # AdvisorScreen's Escape: a key, not a command
        assert [(b.key, b.action) for b in own] == [(a.key, a.action) for a in cls.ACTIONS], mode
        for act in cls.ACTIONS:
            assert f"{cls.SUB_TITLE}: {act.name} ({act.key})" in palette
    # what the issue found missing, found by the words a user types
    for word in ("Deploy", "Accuracy", "Pipeline", "Export"):
        assert any(word.lower() in title.lower() for title in palette), word


@run_async
async def test_the_palette_finds_deploy_accuracy_pipeline_and_export_by_name():
    from textual.command import CommandPalette

    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        scaling_launcher=FakeScalingLauncher(),
        report_builder=lambda *a, **k: None,
        initial_mode="probes",
        check_on_start=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for word in ("Deploy", "Accuracy", "Pipeline", "export"):
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
            await pilot.press(*word)
            await pilot.pause(0.5)
            found = " ".join(str(o.prompt) for o in app.screen.query("CommandList").first()._options)
            assert word.lower() in found.lower() and "No matches" not in found, (word, found)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette), what="closed")


# ---- 7: charts ---------------------------------------------------------------------------------------


def chart_text(chart_cls, data, size=(37, 24), **kwargs) -> tuple[str, object]:
    """What a chart draws for `data`, in a box as wide as the half-screen it gets at 80 columns."""
    from textual.app import App

    class One(App):
        def compose(self):
            yield chart_cls(id="chart")

    @run_async
    async def draw():
        app = One()
        async with app.run_test(size=size) as pilot:
            chart = app.query_one("#chart")
            chart.show(data, **kwargs)
            await pilot.pause()
            await pilot.pause()
            return chart.render().plain, chart

    return draw()


def test_weight_shift_to_flip_draws_one_labelled_bar_per_row():
    from advisor.decision.scorecard import SensitivityItem
    from tui.widgets.charts import TornadoChart

    names = ["deployment", "migration", "team", "ecosystem", "cost", "compliance"]  # the 6 over 8 rows
    items = [
        SensitivityItem(criterion=n, weight=0.1, threshold=0.1 + shift, note="")
        for n, shift in zip(names, (-0.09, 0.05, 0.1, 0.12, 0.3, 0.45))
    ]
    text, _ = chart_text(TornadoChart, items)
    rows = [line for line in text.splitlines() if "█" in line or "#" in line.split("┤")[-1]]
    assert len(rows) == len(names), text  # no row drawn twice, none merged
    for name in names:
        (row,) = [line for line in text.splitlines() if line.strip().startswith(name + "┤")]
        assert "█" in row, (name, text)  # each label has its bar on its own row


def test_img_s_ticks_are_round_numbers():
    from fixtures.tui.fakes import cached_suite

    from tui.widgets.charts import ThroughputChart

    text, _ = chart_text(ThroughputChart, cached_suite(), model="lenet")
    ticks = text.splitlines()[-1].split()
    assert ticks and ticks[0] == "0", text
    values = [int(t.replace(",", "")) for t in ticks]  # no 2415.1: every tick a whole number
    step = values[1] - values[0]
    assert all(b - a == step for a, b in zip(values, values[1:]))
    assert str(step).rstrip("0") in ("1", "2", "5"), step  # 1, 2 or 5 x 10^k apart


@run_async
async def test_the_accuracy_legend_is_under_the_chart_not_over_its_points():
    from fixtures.tui.fakes import accuracy_fixture

    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        scaling_launcher=FakeScalingLauncher(),
        report_builder=lambda *a, **k: None,
        accuracy_launcher=suite_launcher(accuracy_fixture()),
        initial_mode="probes",
        check_on_start=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press_button(pilot, "accuracy-start")
        await wait_for(pilot, lambda: app.state.accuracy.result is not None, what="the suite")
        await settle(pilot)
        chart = app.screen.query_one("#chart-accuracy")
        drawn = chart.render().plain
        for name in ("pt eager", "ms graph"):
            assert name not in drawn  # plotext's legend sat in the top-left corner, over epochs 1-2
        legend = " ".join(screen_text(app).split())
        assert "pt eager" in legend and "ms graph" in legend and "· target" in legend


def test_a_note_when_every_workflow_is_blocked():
    from advisor.decision.scorecard import WorkflowScore
    from tui.widgets.charts import ScoreChart

    scores = [
        WorkflowScore(workflow=w, eligible=False, total=0, criteria=[]) for w in ("pytorch", "mindspore", "hybrid")
    ]
    text, _ = chart_text(ScoreChart, scores)
    assert "Scores: all workflows blocked" in text


# ---- 8: the footer at 80 columns -------------------------------------------------------------------


def footer_keys(app) -> list[tuple[str, str, int]]:
    return [(k.key_display or k.key, k.description, k.region.right) for k in app.screen.query("FooterKey")]


@run_async
async def test_the_footer_at_80_columns_shows_the_global_keys_uncut_even_with_a_menu_open():
    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        scaling_launcher=FakeScalingLauncher(),
        report_builder=lambda *a, **k: None,
        initial_mode="host",
        check_on_start=False,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for mode in ("host", "requirements", "probes", "recommendation"):
            app.switch_mode(mode)
            await settle(pilot)
            await wait_for(pilot, lambda: len(footer_keys(app)) > 4, what=f"the {mode} footer")
            keys = footer_keys(app)
            assert {"^q", "^p", "^t"} <= {k for k, _, _ in keys}, (mode, keys)
            assert all(right <= 80 for _, _, right in keys), (mode, keys)  # none cut at the edge
        app.switch_mode("requirements")
        await settle(pilot)
        app.screen.query("Select").first().focus()
        await pilot.pause()
        await pilot.press("enter")  # the select's menu opens: its "esc Dismiss menu" joins the footer
        await settle(pilot)
        await wait_for(pilot, lambda: "Dismiss menu" in {d for _, d, _ in footer_keys(app)}, what="menu keys")
        keys = footer_keys(app)
        assert {"^q", "^p", "^t", "^s", "^o"} <= {k for k, _, _ in keys}, keys  # F1-F4 back after Escape
        assert all(right <= 80 for _, _, right in keys), keys
        await pilot.press("escape")
        await settle(pilot)
        await wait_for(pilot, lambda: "f4" in {k for k, _, _ in footer_keys(app)}, what="the screens' keys again")


# ---- 9: the TUI's Markdown export writes the charts, as `-o review.md` does -------------------------


def test_the_markdown_export_writes_the_charts_the_cli_writes(tmp_path, capsys):
    from advisor.cli import main

    cli, tui = tmp_path / "cli", tmp_path / "tui"
    cli.mkdir(), tui.mkdir()
    assert main(["report", str(EXAMPLE), "--no-cache", "-o", str(cli / "review.md")]) == 0
    cli_svgs = sorted(p.name for p in cli.glob("*.svg"))
    assert cli_svgs, "the CLI writes its charts beside the document"

    @run_async
    async def export() -> None:
        app = make_app(
            host_provider=host_report,
            probe_launcher=FakeLauncher(),
            scaling_launcher=FakeScalingLauncher(),
            requirements_path=str(EXAMPLE),
            initial_mode="recommendation",
            check_on_start=False,
        )
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await wait_for(pilot, lambda: app.state.report is not None, what="the report")
            assert app.export_report("markdown", str(tui / "review.md")) is not None

    export()
    tui_svgs = sorted(p.name for p in tui.glob("*.svg"))
    assert tui_svgs == cli_svgs
    doc = (tui / "review.md").read_text()
    for name in tui_svgs:
        assert f"({name})" in doc  # linked from the document, as the CLI's
        assert (tui / name).read_text().lstrip().startswith("<svg")


@run_async
async def test_the_export_refuses_a_fifo_instead_of_freezing_the_screen(tmp_path):
    import os

    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        scaling_launcher=FakeScalingLauncher(),
        requirements_path=str(EXAMPLE),
        initial_mode="recommendation",
        check_on_start=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.state.report is not None, what="the report")
        assert app.export_report("markdown", str(fifo)) is None
    assert not list(tmp_path.glob("*.svg"))
