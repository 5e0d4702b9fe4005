"""`make test` runs the suite as two pytest processes (tests/halves.py): its exit status and when it runs
one plain pytest instead."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import halves

ROOT = Path(__file__).resolve().parent.parent


def test_a_failing_half_fails_the_run_and_no_tests_is_not_a_failure():
    assert halves.combined(0, 0) == 0
    assert halves.combined(1, 0) == 1 and halves.combined(0, 1) == 1
    assert halves.combined(5, 0) == 0 and halves.combined(0, 5) == 0  # one half had nothing selected
    assert halves.combined(5, 5) == 5  # neither collected a test: pytest's own "no tests"
    assert halves.combined(5, 2) == 2  # an interrupted or broken half is never hidden by the other


def test_a_marker_of_the_callers_own_or_the_switch_gives_one_run(monkeypatch):
    monkeypatch.delenv("ADVISOR_TEST_SERIAL", raising=False)
    assert not halves.wants_serial(["-p", "no:cacheprovider", "--durations=30"])
    assert halves.wants_serial(["-m", "not slow"]) and halves.wants_serial(["-mslow"])
    monkeypatch.setenv("ADVISOR_TEST_SERIAL", "1")
    assert halves.wants_serial([])


def test_both_halves_run_and_the_framework_half_is_printed_after(tmp_path):
    """A tiny suite with one slow and one other test: both run, each once, and the exit status is 0;
    with a failing slow test the run fails."""
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: framework\n")
    (tmp_path / "test_pair.py").write_text(
        "import pytest\n\n@pytest.mark.slow\ndef test_framework():\n    pass\n\ndef test_report():\n    pass\n"
    )
    run = [sys.executable, str(ROOT / "tests" / "halves.py"), "-q", "-p", "no:cacheprovider"]
    env = {k: v for k, v in os.environ.items() if k != "ADVISOR_TEST_SERIAL"}
    out = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    rest, framework = out.stdout.split("==== the framework tests (-m slow), run beside the rest ====")
    assert "1 passed, 1 deselected" in rest and "1 passed, 1 deselected" in framework
    (tmp_path / "test_pair.py").write_text(
        "import pytest\n\n@pytest.mark.slow\ndef test_framework():\n    assert False\n\ndef test_report():\n    pass\n"
    )
    out = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 1 and "1 failed" in out.stdout
