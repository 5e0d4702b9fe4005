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
