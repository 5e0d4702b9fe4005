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
    code = (
        "import sys, advisor.cli, advisor.commands.tui; p = advisor.cli.build_parser(); "
        "p.parse_args(['tui']); assert 'textual' not in sys.modules, 'textual imported'"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)


def test_without_a_terminal_it_says_what_to_use_instead(capsys):
    """Run headless (CI, a pipe, stdin from /dev/null), Textual would spin with nothing to draw on."""
    out = subprocess.run(
        [sys.executable, "-m", "advisor", "tui"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert out.returncode == 2
    err = out.stderr.strip().splitlines()
    assert len(err) == 1 and "needs a terminal" in err[0] and "advisor report" in err[0]


# ---- CLI errors that help, examples, -V, completion, the config file ----------------


def test_a_mistyped_command_suggests_the_right_one(capsys):
    assert main(["reprt", "x.yaml"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "did you mean `report`?" in err[0]


def test_an_unknown_flag_shows_the_subcommands_usage_and_a_guess(capsys):
    assert main(["probe", "--budjet", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("advisor: error: advisor probe: unrecognized arguments: --budjet")
    assert "did you mean `--budget`" in err[0]
    assert err[1].startswith("usage: advisor probe")


def test_every_help_has_examples_and_dash_capital_v_prints_the_version(capsys):
    import pytest as _pytest

    from advisor import __version__
    from advisor.cli import EXAMPLES, _subparsers, build_parser

    parser = build_parser()
    for name, sub in _subparsers(parser).items():
        assert name in EXAMPLES, f"no examples for `advisor {name}`"
        assert "examples:" in sub.format_help(), name
    with _pytest.raises(SystemExit):
        main(["-V"])
    assert __version__ in capsys.readouterr().out


def test_completion_scripts_name_every_command_and_option(capsys):
    import shutil

    for shell in ("bash", "zsh"):
        assert main(["completion", shell]) == 0
        script = capsys.readouterr().out
        for word in ("report", "probe", "--budget", "--markdown", "config"):
            assert word in script
        assert "--max-steps" not in script  # hidden options stay hidden
        if shutil.which(shell):
            out = subprocess.run([shell, "-n"], input=script, text=True, capture_output=True)
            assert out.returncode == 0, out.stderr


def test_config_file_sets_defaults_that_flags_override(tmp_path, monkeypatch, capsys):
    from advisor import config
    from advisor.cli import build_parser

    path = tmp_path / "config.toml"
    path.write_text('[probe]\nbudget = 10.0\nthreads = 2\n[report]\nformat = "markdown"\nkb = ["~/team-kb"]\n')
    monkeypatch.setenv("ADVISOR_CONFIG", str(path))
    settings = config.load()
    parser = build_parser(settings)
    assert parser.parse_args(["probe"]).budget == 10.0
    assert parser.parse_args(["probe", "--budget", "3"]).budget == 3.0
    assert parser.parse_args(["probe"]).threads == 2
    args = parser.parse_args(["report", "x.yaml"])
    config.apply_format(args, settings)
    assert args.markdown and args.kb == [str(Path("~/team-kb").expanduser())]
    args = parser.parse_args(["report", "x.yaml", "--json"])
    config.apply_format(args, settings)
    assert args.json and not args.markdown
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    assert str(path) in out and "probe.budget   10.0" in out and "config file" in out


def test_a_bad_config_file_lists_every_problem_and_exits_2(tmp_path, monkeypatch, capsys):
    path = tmp_path / "config.toml"
    path.write_text('[probe]\nbudget = -1\nbudjet = 3\n[report]\nformat = "pdf"\n')
    monkeypatch.setenv("ADVISOR_CONFIG", str(path))
    assert main(["config"]) == 2
    err = capsys.readouterr().err
    assert "probe.budget: expected a number" in err and "probe.budjet: unknown setting" in err
    assert "report.format: expected one of json, markdown, table" in err
    path.write_text("[probe\n")
    assert main(["config"]) == 2
    assert "not valid TOML" in capsys.readouterr().err


def test_xdg_config_home_locates_the_file(tmp_path, monkeypatch):
    from advisor import config

    monkeypatch.delenv("ADVISOR_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config.config_path() == tmp_path / "framework-advisor" / "config.toml"


def test_make_run_says_what_its_first_use_installs_and_shows_pips_progress(tmp_path):
    """`make run` on a fresh clone sat silent for 4.5 minutes (pip --quiet hid the downloads): its first
    use says what it installs, how big and how long, and leaves pip's progress on (on stderr, so
    `make run > report.md` still holds only the report)."""
    done = subprocess.run(
        ["make", "-n", "run", f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    out = done.stderr + done.stdout  # the set-up's commands go to stderr with the rest of its talk
    assert "--quiet" not in out and "--progress-bar on" in out
    assert "about 4 GB" in out and "4-5 minutes" in out and "PyTorch 2.13.0" in out and "MindSpore 2.10.0" in out
    pip = next(line for line in out.splitlines() if "pip install" in line)
    assert pip.rstrip().endswith(">&2")  # pip talks on stderr: stdout keeps the report alone
    assert "SOURCE_DATE_EPOCH=" in out  # the headless report's date is the example's: the same document twice
