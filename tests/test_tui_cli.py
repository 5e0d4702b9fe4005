"""`advisor tui` and bare `advisor`: wiring, a bad --requirements file as one line (exit 2), and
Textual imported only on the interactive path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from advisor.cli import main

ROOT = Path(__file__).resolve().parent.parent


class _Started:
    def __init__(self):
        self.calls = []

    def __call__(self, **kwargs):
        self.calls.append(kwargs)
        return self

    def run(self):
        return None


@pytest.fixture
def started(monkeypatch):
    import tui.app
    from advisor.commands import tui as tui_command

    monkeypatch.setattr(tui_command, "_interactive", lambda: True)  # pytest has no terminal
    fake = _Started()
    monkeypatch.setattr(tui.app, "make_app", fake)
    return fake


def test_bare_advisor_and_tui_start_the_app(started):
    assert main([]) == 0
    assert main(["tui"]) == 0
    assert started.calls == [{"requirements_path": None}, {"requirements_path": None}]


def test_tui_with_a_requirements_file(started):
    example = str(ROOT / "examples" / "prototype-then-ascend.yaml")
    assert main(["tui", "--requirements", example]) == 0
    assert started.calls == [{"requirements_path": example}]


def test_bad_requirements_file_is_one_line_and_exit_2(started, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nstage: someday\n")
    assert main(["tui", "--requirements", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("advisor: error: ") and str(bad) in err[0]
    assert main(["tui", "--requirements", str(tmp_path / "none.yaml")]) == 2
    assert started.calls == []


def test_textual_only_on_the_interactive_path():
    code = ("import sys, advisor.cli, advisor.commands.tui; p = advisor.cli.build_parser(); "
            "p.parse_args(['tui']); assert 'textual' not in sys.modules, 'textual imported'")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)


def test_without_a_terminal_it_says_what_to_use_instead(capsys):
    """Run headless (CI, a pipe, stdin from /dev/null), Textual would spin with nothing to draw on."""
    out = subprocess.run([sys.executable, "-m", "advisor", "tui"], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 2
    err = out.stderr.strip().splitlines()
    assert len(err) == 1 and "needs a terminal" in err[0] and "advisor report" in err[0]
