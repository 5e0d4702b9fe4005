"""The TUI, third round: estimates that hold, state that stays honest, output a person reads first time.
One pilot test or more per item, each failing before its fix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.fakes import FakeLauncher, host_report  # noqa: E402
from fixtures.tui.pilot import run_async, settle  # noqa: E402

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
