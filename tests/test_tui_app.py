"""Pilot tests of the TUI: each screen walked with a fake host and a fake probe launcher built from the
real models; the report is the real one (advisor.report over the bundled knowledge base)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.fakes import FakeLauncher, cached_suite, host_report  # noqa: E402
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
EXAMPLES = ROOT / "examples"
pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def _fast_form(monkeypatch):
    fast_form(monkeypatch)


def app_with(**kwargs):
    kwargs.setdefault("host_provider", host_report)
    kwargs.setdefault("probe_launcher", FakeLauncher())
    return make_app(**kwargs)


# ---- navigation ---------------------------------------------------------------------------------


@run_async
async def test_screens_switch_by_key_and_footer_names_them():
    app = app_with()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        labels = {b.description for b in app.BINDINGS}
        assert {"Host", "Reqs", "Probes", "Advice"} <= labels  # short at 80 columns
        wanted = {"Reqs", "Probes", "Advice", "Help", "Quit", "Palette", "Theme"}  # not Host: it is shown
        # The footer recomposes after mount (briefly empty on a loaded host): wait for it, then check.
        await wait_for(
            pilot, lambda: wanted <= {k.description for k in app.screen.query("FooterKey")}, what="the footer keys"
        )
        for key, mode in (("f2", "requirements"), ("f3", "probes"), ("f4", "recommendation"), ("f1", "host")):
            await pilot.press(key)
            await pilot.pause()
            assert app.current_mode == mode
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpModal"
        assert "Requirements" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.current_mode == "host" and type(app.screen).__name__ == "HostScreen"
        await pilot.press("ctrl+q")
    assert app.return_code == 0


# ---- host ---------------------------------------------------------------------------------------


@run_async
async def test_host_screen_shows_the_check_and_refreshes():
    calls = []

    def provider(progress=None, cancel=None):
        calls.append(1)
        return host_report()

    app = app_with(host_provider=provider)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        for expected in (
            "WARN",
            "AMD EPYC 9B45",
            "2.13.0+cpu",
            "mindspore-onednn-reference-conv",
            "ONEDNN_MAX_CPU_ISA=AVX2",
            "none found: CPU only",
        ):
            assert expected in text, expected
        await pilot.press("r")
        await settle(pilot)
        assert len(calls) == 2


@run_async
async def test_host_check_failure_is_a_notification_not_a_crash():
    def provider(progress=None, cancel=None):
        raise RuntimeError("nvidia-smi hung\nsecond line")

    app = app_with(host_provider=provider)
    seen = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert any("nvidia-smi hung" == msg and sev == "error" for _, msg, sev in seen)
        assert "Host check failed: nvidia-smi hung" in screen_text(app)
        await pilot.press("f2")  # still alive and usable
        await pilot.pause()
        assert app.current_mode == "requirements"


# ---- requirements -------------------------------------------------------------------------------


@run_async
async def test_requirements_form_fill_validate_and_save(tmp_path, monkeypatch):
    from textual.widgets import Input, Select, SelectionList, Switch

    from advisor.requirements import load_requirements

    monkeypatch.chdir(tmp_path)
    app = app_with(initial_mode="requirements")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        # Every field of the requirements file has a control.
        from advisor.requirements import Requirements
        from tui.form_spec import form_spec

        for spec in form_spec(Requirements):
            if spec.kind != "section":
                assert screen.query(f"#{spec.widget_id}"), spec.key

        # Type a name and an invalid size: an inline message, and no recommendation.
        screen.query_one("#f-name", Input).focus()
        await pilot.press("ctrl+u", *"Shelf", "tab")
        size = screen.query_one("#f-team-size", Input)
        size.focus()
        await pilot.press("ctrl+u", "x", "tab")
        await settle(pilot)
        assert "expected a whole number" in screen_text(app)
        assert app.state.requirements.model is None and "team.size" in app.state.requirements.problem
        size.focus()
        await pilot.press("ctrl+u", "0")
        await settle(pilot)
        assert "must be at least 1" in screen_text(app)
        size.focus()
        await pilot.press("ctrl+u", "6")
        # Enums, switches and lists.
        screen.query_one("#f-stage", Select).focus()  # by keyboard: open, next option, choose
        await pilot.press("enter", "down", "enter")
        await pilot.pause()
        assert screen.query_one("#f-stage", Select).value == "production"
        screen.query_one("#f-needs-distributed-training", Switch).value = True
        targets = screen.query_one("#f-deployment-targets", SelectionList)
        targets.select("edge-ascend")
        screen.query_one("#f-needs-domestic-substitution", Select).value = "required"
        # The optional workload section: switched on, its required fields are asked for.
        screen.query_one("#sec-f-workload", Switch).value = True
        await settle(pilot)
        assert app.state.requirements.model is None
        assert "workload" in app.state.requirements.problem
        screen.query_one("#f-workload-model", Select).value = "resnet50"
        for wid, value in (("#f-workload-dataset-samples", "50000"), ("#f-workload-epochs", "10")):
            screen.query_one(wid, Input).value = value
        await settle(pilot)
        assert app.state.requirements.model is not None, app.state.requirements.problem
        assert "Valid" in screen_text(app)

        # Save to a file: the same format `advisor report` reads.
        screen.query_one("#req-file", Input).value = "team.yaml"
        await pilot.press("ctrl+s")
        await settle(pilot)
    saved = load_requirements(tmp_path / "team.yaml")
    assert saved.name == "Shelf"
    assert saved.team.size == 6
    assert saved.stage == "production"
    assert saved.needs.distributed_training is True
    assert saved.needs.domestic_substitution == "required"
    assert "edge-ascend" in saved.deployment.targets
    assert saved.workload is not None and saved.workload.model == "resnet50"
    assert saved.workload.dataset_samples == 50000 and saved.workload.epochs == 10.0


@run_async
async def test_requirements_load_round_trips_every_example(tmp_path):
    from textual.widgets import Input

    from advisor.requirements import load_requirements

    app = app_with(initial_mode="requirements")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for example in sorted(EXAMPLES.glob("*.yaml")):
            field = app.screen.query_one("#req-file", Input)
            field.value = str(example)
            await pilot.press("ctrl+o")
            await settle(pilot)
            assert app.state.requirements.model == load_requirements(example), example.name
            out = tmp_path / example.name
            field.value = str(out)
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert load_requirements(out) == load_requirements(example), example.name


@run_async
async def test_requirements_bad_file_is_a_notification(tmp_path):
    from textual.widgets import Input

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nteam: {size: many}\nhardware: {available: [cpu]}\ndeployment: {targets: [cpu-server]}\n")
    app = app_with(initial_mode="requirements")
    seen = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.query_one("#req-file", Input).value = str(bad)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert any(sev == "error" and "team.size" in msg for _, msg, sev in seen), seen
        app.screen.query_one("#req-file", Input).value = str(tmp_path / "missing.yaml")
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert any("no such file" in msg for _, msg, _ in seen)
        assert app.current_mode == "requirements"


@run_async
async def test_requirements_defaults_come_from_the_host_check():
    from textual.widgets import Input, Select, SelectionList

    app = app_with(host_provider=lambda **_: host_report("check_gpu"), initial_mode="requirements")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.query_one("#f-hardware-available", SelectionList).selected == ["nvidia", "cpu"]
        assert screen.query_one("#f-hardware-training-target", Select).value == "nvidia"
        assert screen.query_one("#f-hardware-accelerator", Input).value == "Tesla V100-SXM2-32GB"
        assert screen.query_one("#f-hardware-devices", Input).value == "2"
        assert screen.query_one("#f-deployment-targets", SelectionList).selected == ["nvidia-server"]
        assert app.state.requirements.model is not None and app.state.requirements.model.hardware.devices == 2


# ---- probes -------------------------------------------------------------------------------------


@run_async
async def test_probes_run_show_progress_table_and_parity():
    launcher = FakeLauncher(steps=6)
    app = app_with(probe_launcher=launcher, initial_mode="probes")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for box, on_ in (("#model-resnet18", False), ("#mode-compile", True), ("#mode-pynative", True)):
            app.screen.query_one(box).value = on_  # only LeNet, every mode (the quick profile's budget)
        await pilot.pause(0.3)
        await pilot.press("s")
        await settle(pilot)
        config = launcher.configs[0]
        assert config.models == ["lenet"] and config.budget == 2.0 and config.batch_size == 32
        assert not any(name == "MainThread" for name in launcher.threads)  # ran in a worker
        rows = list(app.screen.query("RunRow"))
        assert len(rows) == 4
        assert all(r.progress.status == "ok" and r.progress.fraction == 1.0 for r in rows)
        assert all(len(r.progress.step_ms) == 6 for r in rows)
        table = app.screen.query_one("#probe-table")
        assert table.row_count == 4
        cells = [str(c) for c in table.get_row_at(0)]
        assert cells[0] == "pytorch eager lenet" and cells[1] == "ok"
        assert "lenet: ok" in screen_text(app)


@run_async
async def test_probes_cancel_kills_the_rest_and_keeps_the_app():
    launcher = FakeLauncher(steps=400, step_delay=0.01)
    app = app_with(probe_launcher=launcher, initial_mode="probes")
    seen = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await wait_for(pilot, launcher.started.is_set, what="probes to start")
        await wait_for(pilot, lambda: app.screen.query("RunRow"), what="a run row")
        assert app.state.probes.running
        await pilot.press("c")
        await settle(pilot)
        assert launcher.cancel_seen.is_set()
        assert not app.state.probes.running
        # the rows say what the cancel stopped; the result holds no run that never ran (not a failure)
        assert {p.status for p in app.state.probes.runs.values()} >= {"cancelled"}
        assert not any(r.status == "cancelled" for r in app.state.probes.result.runs)
        assert any("cancelled" in msg for _, msg, _ in seen)
        # It can run again afterwards.
        launcher.steps, launcher.step_delay = 2, 0.0
        await pilot.press("s")
        await settle(pilot)
        assert {r.status for r in app.state.probes.result.runs} == {"ok"}


@run_async
async def test_failed_run_and_crashing_launcher_are_reported():
    launcher = FakeLauncher(steps=2, fail_runs=("mindspore-graph-lenet-bs32",))
    app = app_with(probe_launcher=launcher, initial_mode="probes")
    seen = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        table = app.screen.query_one("#probe-table")
        failed = [i for i in range(table.row_count) if str(table.get_row_at(i)[1]) == "failed"]
        assert len(failed) == 1 and str(table.get_row_at(failed[0])[6]).startswith("worker exited")
        # The cell is cut at a word; the highlighted row's detail line has the whole reason.
        table.move_cursor(row=failed[0])
        await pilot.pause()
        assert "SIGSEGV" in str(app.screen.query_one("#probe-detail").content)

        def broken(config, on_event, cancel):
            raise OSError("cannot start worker")

        app.core.launchers["training"] = broken
        await pilot.press("s")
        await settle(pilot)
        assert any(sev == "error" and "cannot start worker" in msg for _, msg, sev in seen)
        assert not app.state.probes.running


@run_async
async def test_cached_probe_results_are_shown_on_entry():
    app = app_with(cached_probes=cached_suite, initial_mode="probes")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.query_one("#probe-table").row_count == 8
        assert "cached results for this host" in screen_text(app)


async def _switch_screens_while(app, busy) -> list[bool]:
    """Ten screen switches, each key posted to the app's queue (pilot.press waits for the whole
    process to idle, which a busy probe never allows); for each, whether `busy()` still held when
    the new screen was shown. A loop that never answers ends the test at pytest's timeout."""
    import asyncio

    from textual import events

    seen = []
    for key, mode in (
        ("f1", "host"),
        ("f3", "probes"),
        ("f2", "requirements"),
        ("f4", "recommendation"),
        ("f3", "probes"),
    ) * 2:
        app.post_message(events.Key(key, None))
        while app.current_mode != mode:
            await asyncio.sleep(0.002)
        seen.append(busy())
    return seen


@run_async
async def test_keys_are_answered_while_probes_run():
    """The loop must not block while a probe streams events: every key switches the screen while the
    probe is still running. The fake probe would send events for minutes, so a key answered only after
    it ended would read False here. (How fast a key is answered is benchmarks/tui_screens.py's to
    print, not a test's to assert.)"""
    from textual import events

    launcher = FakeLauncher(steps=100_000, step_delay=0.002)  # ~500 events/s until cancelled
    app = app_with(probe_launcher=launcher, initial_mode="probes")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in ("f1", "f2", "f4", "f3"):  # build each screen once (a first visit composes it)
            await pilot.press(key)
            await settle(pilot)
        app.post_message(events.Key("s", "s"))
        await wait_for(pilot, launcher.started.is_set, what="probes to start")
        answered = await _switch_screens_while(app, lambda: app.state.probes.running)
        assert answered == [True] * 10
        assert sum(len(p.step_ms) for p in app.state.probes.runs.values()) > 0
        app.post_message(events.Key("c", "c"))
        await wait_for(pilot, launcher.cancel_seen.is_set, what="the cancel to reach the launcher")
        await settle(pilot)


# ---- recommendation -----------------------------------------------------------------------------


@run_async
async def test_recommendation_follows_the_requirements():
    from textual.widgets import Input, Select, SelectionList, Switch

    app = app_with(requirements_path=str(EXAMPLES / "nvidia-research-team.yaml"), initial_mode="recommendation")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.state.report.recommendation.workflow == "pytorch"
        before = {s.workflow: s.total for s in app.state.report.scores}
        text = " ".join(screen_text(app).split())
        headline = app.state.report.document.first_page.headline
        assert headline.startswith("PyTorch, ") and "confidence" in headline and headline in text
        for crit in ("performance", "team", "compliance"):
            assert crit in text
        # Now change the team's situation on the form: Ascend-only hardware, domestic stack required.
        await pilot.press("f2")
        await settle(pilot)
        form = app.screen
        form.query_one("#f-hardware-available", SelectionList).deselect("nvidia")
        form.query_one("#f-hardware-available", SelectionList).select("ascend")
        form.query_one("#f-hardware-training-target", Select).value = "ascend"
        form.query_one("#f-hardware-accelerator", Input).value = "Ascend 910B"
        targets = form.query_one("#f-deployment-targets", SelectionList)
        targets.deselect("nvidia-server")
        targets.select("ascend-server")
        targets.select("edge-ascend")
        form.query_one("#f-needs-domestic-substitution", Select).value = "required"
        form.query_one("#f-needs-huggingface", Select).value = "none"
        form.query_one("#f-team-mindspore", Select).value = "proficient"
        form.query_one("#f-needs-edge-cloud", Switch).value = True
        await settle(pilot)
        await pilot.press("f4")
        await settle(pilot)
        after = {s.workflow: s.total for s in app.state.report.scores}
        assert after["mindspore"] > before["mindspore"] and after["pytorch"] < before["pytorch"]
        verdict = app.state.report.recommendation.workflow
        assert verdict != "pytorch"
        headline = app.state.report.document.first_page.headline  # the judged document's, as the CLI prints it
        assert headline.startswith({"mindspore": "MindSpore", "hybrid": "Hybrid"}[verdict])
        assert headline in " ".join(screen_text(app).split())


@run_async
async def test_invalid_requirements_explain_the_missing_recommendation():
    from textual.widgets import Input

    app = app_with(requirements_path=str(EXAMPLES / "ascend-production.yaml"), initial_mode="requirements")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.query_one("#f-model-parameters-millions", Input).value = "-3"
        await settle(pilot)
        await pilot.press("f4")
        await pilot.pause()
        assert app.state.report is None
        assert "model.parameters_millions: must be greater than 0" in screen_text(app)


@run_async
async def test_export_json_and_markdown(tmp_path):
    from textual.widgets import Input

    app = app_with(
        requirements_path=str(EXAMPLES / "prototype-then-ascend.yaml"),
        cached_probes=cached_suite,
        initial_mode="recommendation",
    )
    seen = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.query_one("#rec-export-path", Input).value = str(tmp_path / "review")
        await pilot.press("j")
        await pilot.press("m")
        await settle(pilot)
        assert app.screen.query("#rec-export-row")
        bad = tmp_path / "no" / "such" / "dir" / "r"
        app.screen.query_one("#rec-export-path", Input).value = str(bad)
        await pilot.press("j")
        await settle(pilot)
    doc = json.loads((tmp_path / "review.json").read_text())
    assert doc["schema_version"] and doc["recommendation"]["workflow"] in ("pytorch", "mindspore", "hybrid")
    assert doc["requirements"]["name"] == "Retail shelf recognition"
    assert len(doc["probes"]["runs"]) == 8  # the cached results went into the report
    markdown = (tmp_path / "review.md").read_text()
    assert markdown.startswith("#") and "Retail shelf recognition" in markdown
    assert any(sev == "error" and "does not exist" in msg for _, msg, sev in seen)


@run_async
async def test_probe_choices_are_checked_before_starting():
    from textual.widgets import Checkbox, Input

    launcher = FakeLauncher()
    app = app_with(probe_launcher=launcher, initial_mode="probes")
    seen = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.query_one("#probe-budget", Input).value = "fast"
        await pilot.press("s")
        screen.query_one("#probe-budget", Input).value = "1"
        screen.query_one("#fw-pytorch", Checkbox).value = False
        for mode in ("graph", "pynative"):
            screen.query_one(f"#mode-{mode}", Checkbox).value = False
        await pilot.press("s")
        screen.query_one("#mode-graph", Checkbox).value = True
        screen.query_one("#probe-batch", Input).value = "100000"
        await pilot.press("s")
        await settle(pilot)
        problems = [msg for _, msg, sev in seen if sev == "error"]
        assert problems[0] == "budget: expected a number"
        assert problems[1].startswith("no chosen mode belongs to a chosen framework")
        assert problems[2] == "batch_size: Input should be less than or equal to 4096"
        assert launcher.configs == []


@run_async
async def test_without_a_file_the_advice_starts_from_defaults_and_this_host():
    app = app_with(host_provider=lambda **_: host_report("check_gpu"), initial_mode="recommendation")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.state.report is not None
        hardware = app.state.report.requirements.hardware
        assert hardware.available == ["nvidia", "cpu"] and hardware.devices == 2
        assert app.state.report.document.first_page.headline in " ".join(screen_text(app).split())
        await pilot.press("f2")  # the form shows the same starting point
        await settle(pilot)
        assert app.screen.query_one("#f-hardware-training-target").value == "nvidia"


@run_async
async def test_data_a_screen_cannot_show_is_a_notification():
    class Odd:  # a report whose fields are not what the screen expects
        scores = property(lambda self: 1 / 0)
        sensitivity = property(lambda self: 1 / 0)
        recommendation = property(lambda self: 1 / 0)
        document = property(lambda self: 1 / 0)

    app = app_with(
        requirements_path=str(EXAMPLES / "ascend-production.yaml"),
        report_builder=lambda *a, **k: Odd(),
        initial_mode="recommendation",
    )
    seen = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.press("f4")
        await settle(pilot)
        assert any(sev == "error" and "ZeroDivisionError" in msg for _, msg, sev in seen), seen
        assert app.current_mode == "recommendation"
