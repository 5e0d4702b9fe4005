"""The real app end to end: the real host check (without framework smoke tests), the real probe
runner (LeNet, PyTorch eager only, 1 s budget, child processes through probes.launcher), the real
report and the real cache (in a temporary XDG_CACHE_HOME)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.pilot import fast_form, run_async, screen_text, settle, wait_for  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def quick_check(progress=None, cancel=None):
    from advisor.check.host import run_check

    return run_check(smoke=False, progress=progress, cancel=cancel)


@run_async
async def test_real_probe_from_the_tui(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from textual.widgets import Input

    from tui.app import make_app

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    fast_form(monkeypatch)
    app = make_app(
        host_provider=quick_check,
        requirements_path=str(ROOT / "examples" / "prototype-then-ascend.yaml"),
        initial_mode="probes",
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.state.host.report is not None, timeout=60, what="host check")
        for box in ("#fw-mindspore", "#mode-compile", "#mode-graph", "#mode-pynative", "#model-resnet18"):
            app.screen.query_one(box).value = False
        app.screen.query_one("#probe-budget", Input).value = "1"
        await pilot.pause()
        await pilot.press("s")
        await wait_for(pilot, lambda: app.state.probes.running, timeout=5, what="probes to start")
        await wait_for(pilot, lambda: not app.state.probes.running, timeout=240, what="probes to finish")
        await settle(pilot)
        suite = app.state.probes.result
        assert [r.id for r in suite.runs] == ["pytorch-eager-lenet-bs32"]
        run = suite.runs[0]
        assert run.status == "ok", run.error
        # What is deterministic: the run measured something and its losses are numbers. Whether the
        # loss fell depends on how many steps the 1 s budget allowed on this (possibly loaded) host.
        assert run.images_per_second > 0 and run.total_steps >= 2
        assert math.isfinite(run.loss_first) and math.isfinite(run.loss_last)
        row = app.screen.query_one("#run-pytorch-eager-lenet-bs32")
        # one status per run: the live row says the run's grade, as the table's status column does
        assert row.progress.status == (run.quality or "ok") and row.progress.fraction == 1.0
        assert len(row.progress.step_ms) > 0  # live step times reached the sparkline
        table = app.screen.query_one("#probe-table")
        # The status column is the run's grade (stable, noisy or unusable on a loaded host).
        assert table.row_count == 1 and str(table.get_row_at(0)[1]) == (run.quality or "ok")
        # The report now carries the measured run.
        await wait_for(
            pilot,
            lambda: app.state.report is not None and app.state.report.probes.runs,
            timeout=10,
            what="report with the run",
        )
        assert app.state.report.probes.runs[0].id == run.id
    # Saved to the (temporary) cache: a new app shows it on entry.
    app2 = make_app(host_provider=quick_check, initial_mode="probes", check_on_start=False)
    async with app2.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app2.state.probes.result is not None, timeout=30, what="cache")
        await settle(pilot)
        assert app2.state.probes.result.runs[0].id == run.id
        assert "cached results for this host" in screen_text(app2)
