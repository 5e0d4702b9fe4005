"""The suite's own honesty: tests that a wrong implementation fails.

- `-o` writes atomically: a file-size limit (RLIMIT_FSIZE, a real OS fault: the write fails with
  EFBIG part-way) while a report is written over an existing file. A plain `open(path, "w")` writer
  truncates the old file and leaves half a document: this test fails it. The atomic writer fails
  in its temp file; the old file stays whole and no temp file is left.
- SIGINT exits 130 with one line; --debug shows the traceback that is otherwise one line."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "prototype-then-ascend.yaml")
LIMIT = 4096  # bytes: the report's JSON is far longer


def _limited_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG from write() instead of a killing signal
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def _advisor(*argv, preexec=None, env=None, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "advisor", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        preexec_fn=preexec,
        # no .pyc writes: under RLIMIT_FSIZE CPython renames a silently truncated .pyc into the tree
        # (its atomic write does not check a partial write), and every later import of it fails
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1", **(env or {})},
    )


def test_a_write_failing_midway_leaves_the_old_file_whole(tmp_path):
    out = tmp_path / "report.md"
    old = "# the previous report\n" * 10
    out.write_text(old)
    proc = _advisor("report", EXAMPLE, "--no-cache", "--json", "-o", str(out), preexec=_limited_file_size)
    assert proc.returncode == 2, proc.stderr
    assert "File too large" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert out.read_text() == old  # not truncated, not half-replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]  # no temp file left


def test_the_same_limit_lets_a_small_document_through(tmp_path):
    """The control: the limit itself does not fail every write (so the test above measures the writer)."""
    out = tmp_path / "config.txt"
    proc = _advisor("config", "--path", preexec=_limited_file_size)
    assert proc.returncode == 0, proc.stderr
    out.write_text(proc.stdout)
    assert out.read_text().strip().endswith("config.toml")


def test_a_new_file_is_not_created_half_written(tmp_path):
    out = tmp_path / "new.md"
    proc = _advisor("report", EXAMPLE, "--no-cache", "--json", "-o", str(out), preexec=_limited_file_size)
    assert proc.returncode == 2 and not out.exists(), proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_sigint_while_waiting_is_exit_130_and_one_line(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # no reader: the writer waits (bounded), which is where the interrupt lands
    proc = subprocess.Popen(
        [sys.executable, "-m", "advisor", "report", EXAMPLE, "--no-cache", "--json", "-o", str(fifo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until the report is built and the writer waits for a reader
        try:
            with open(f"/proc/{proc.pid}/wchan") as fh:
                waiting = fh.read() in ("hrtimer_nanosleep", "do_nanosleep")
        except OSError:
            waiting = False
        if waiting:
            break
        time.sleep(0.1)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip() == "advisor: interrupted" and "Traceback" not in err


def test_debug_shows_the_traceback_that_is_otherwise_one_line(tmp_path):
    missing = str(tmp_path / "missing.yaml")
    plain = _advisor("report", missing)
    assert plain.returncode == 2 and plain.stderr.count("\n") == 1 and "Traceback" not in plain.stderr
    debug = _advisor("--debug", "report", missing)
    assert debug.returncode != 0
    assert "Traceback (most recent call last)" in debug.stderr and "UsageError" in debug.stderr
