"""CLI wiring: help, version, bad usage as one line with exit code 2."""

import subprocess
import sys

from advisor import __version__
from advisor.cli import main


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert __version__ in capsys.readouterr().out


def test_unknown_command_is_one_line_exit_2(capsys):
    assert main(["no-such-command"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("advisor: error:")
    assert len(err.strip().splitlines()) == 1


def test_python_dash_m_works():
    out = subprocess.run([sys.executable, "-m", "advisor", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert "usage: advisor" in out.stdout


def test_bad_knowledge_base_override_is_one_line_exit_2(tmp_path, monkeypatch, capsys):
    (tmp_path / "accelerators.yaml").write_text("accelerators: [{id: x, vendor: nobody}]\n")
    monkeypatch.setenv("ADVISOR_KB_DIR", str(tmp_path))
    from knowledge.loader import clear_cache

    clear_cache()
    try:
        code = main(["scan", str(tmp_path)])
    finally:
        clear_cache()
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "accelerators.yaml" in err


def test_a_folder_as_output_is_refused_for_every_writer(tmp_path, capsys):
    from advisor.errors import UsageError
    from advisor.output import write_atomic

    try:
        write_atomic(tmp_path, "x")
    except UsageError as exc:
        assert "is a folder" in str(exc)
    else:
        raise AssertionError("a folder was accepted as an output file")
    from pathlib import Path

    example = Path(__file__).resolve().parent.parent / "examples" / "nvidia-research-team.yaml"
    assert main(["report", str(example), "--no-cache", "-o", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_written_files_get_ordinary_permissions(tmp_path):
    import os
    import stat

    from advisor.output import write_atomic

    old = os.umask(0o022)
    try:
        path = write_atomic(tmp_path / "r.json", "{}\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_closed_pipe_exits_0_and_other_failures_are_one_internal_error_line(monkeypatch, capsys):
    """BrokenPipeError was listed after `except Exception`, so a reader that went away read as an
    internal error; any other failure stays one line with exit 1."""
    import advisor.commands.config as config_command

    def closed(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(config_command, "run", closed)
    assert main(["config"]) == 0
    assert capsys.readouterr().err == ""

    def broken(args):
        raise RuntimeError("no such thing")

    monkeypatch.setattr(config_command, "run", broken)
    assert main(["config"]) == 1
    err = capsys.readouterr().err
    assert err == "advisor: internal error: RuntimeError: no such thing (run with --debug for the traceback)\n"


def _offered_words(parser) -> dict[str, set[str]]:
    """What each command's parser accepts by name: its visible flags and its positional choices."""
    import argparse

    from advisor.cli import _subparsers

    words = {}
    for name, sub in _subparsers(parser).items():
        found = set()
        for action in sub._actions:
            if action.help == argparse.SUPPRESS:
                continue
            found.update(action.option_strings)
            if not action.option_strings and action.choices:
                found.update(str(c) for c in action.choices)
        words[name] = found
    return words


def test_the_hand_written_completion_offers_exactly_what_the_parser_accepts():
    """The bash script, run by bash, completes every command to its parser's visible options (and
    the zsh script lists the same words): a new or renamed flag cannot be left out (kept
    instead of shtab, which would add a dependency and remove no code)."""
    import re
    import shutil

    import pytest

    from advisor.cli import build_parser, completion_script

    parser = build_parser()
    expected = _offered_words(parser)
    zsh = completion_script("zsh", parser)
    for name, words in expected.items():
        listed = re.search(rf"^\s+{re.escape(name)}\) opts=\((.*)\) ;;$", zsh, re.M)
        assert listed and set(listed.group(1).split()) == words, name
    if not shutil.which("bash"):
        pytest.skip("no bash to run the bash script")
    probe = "".join(
        f'COMP_WORDS=(advisor {name} ""); COMP_CWORD=2; COMPREPLY=(); _advisor; echo "{name}: ${{COMPREPLY[*]}}"\n'
        for name in expected
    )
    out = subprocess.run(
        ["bash", "-c", completion_script("bash", parser) + probe], capture_output=True, text=True, check=True
    ).stdout
    got = {line.split(":")[0]: set(line.split(":", 1)[1].split()) for line in out.splitlines()}
    for name, words in expected.items():
        if words:  # a command with no options falls back to file names
            assert got[name] == words, name
    assert "--max-steps" not in got["probe"] and "--scaling" in got["probe"] and "--models" in got["probe"]
