"""SIGTERM and SIGHUP are handled like SIGINT by check, probe and probe --scaling: the children
(in sessions of their own) are killed, the /tmp/advisor-* folders removed, and the exit status is
128 + the signal (143 / 129). Driven as a user would: a real process, real signals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from probes import launcher
from probes.launcher import PROJECT_ROOT

TAG = "ADVISOR_TEST_TAG"  # the ADVISOR_ prefix is allow-listed: every child inherits it


def _tagged(tag: str) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                if f"{TAG}={tag}".encode() in fh.read().split(b"\0"):
                    out.append(int(name))
        except OSError:
            continue
    return out


def _start(args: list[str], tmp_path: Path, **env) -> tuple[subprocess.Popen, str, Path]:
    tag = uuid.uuid4().hex
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    full = {
        **os.environ,
        TAG: tag,
        "TMPDIR": str(tmp),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PYTHONPATH": PROJECT_ROOT,
        **env,
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "advisor", *args], env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return proc, tag, tmp


def _wait_for_children(proc: subprocess.Popen, tag: str, marker: str, timeout: float = 120) -> None:
    """Until a grandchild of `proc` (a supervised child, or a rank: it carries `marker`) runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        for pid in _tagged(tag):
            if pid == proc.pid:
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    if marker.encode() in fh.read():
                        return
            except OSError:
                continue
        time.sleep(0.2)
    raise AssertionError("no child started")


def _assert_clean(proc: subprocess.Popen, tag: str, tmp: Path, code: int, sig: signal.Signals) -> None:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err[-2000:]
    assert f"terminated by {sig.name}" in err and "Traceback" not in err, err[-2000:]
    deadline = time.monotonic() + 10  # SIGKILLed processes vanish once their parents reap them
    while _tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _tagged(tag) == [], "a child survived the signal"
    assert sorted(p.name for p in tmp.glob("advisor-*")) == []


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_check_signal_kills_hung_smoke_children(tmp_path, sig, code):
    proc, tag, tmp = _start(
        ["check", "--json", "--timeout", "300"],
        tmp_path,
        ADVISOR_TEST_SMOKE_FAULT="pytorch:hang,mindspore:hang",  # framework names as smoke_worker takes them
    )
    _wait_for_children(proc, tag, "probes.check.smoke_worker")
    time.sleep(0.5)  # both frameworks' children started
    proc.send_signal(sig)
    _assert_clean(proc, tag, tmp, code, sig)


@pytest.mark.slow
def test_probe_sigterm_kills_the_worker(tmp_path):
    proc, tag, tmp = _start(
        [
            "probe",
            "--frameworks",
            "pytorch",
            "--models",
            "lenet",
            "--modes",
            "eager",
            "--budget",
            "30",
            "--no-cache",
            "--json",
        ],
        tmp_path,
    )
    _wait_for_children(proc, tag, "probes.training.worker_torch")
    proc.send_signal(signal.SIGTERM)
    _assert_clean(proc, tag, tmp, 143, signal.SIGTERM)


@pytest.mark.slow
def test_scaling_sighup_kills_ranks_in_their_own_sessions(tmp_path):
    proc, tag, tmp = _start(
        [
            "probe",
            "--scaling",
            "--frameworks",
            "pytorch",
            "--ranks",
            "1",
            "--scaling-repeat",
            "1",
            "--scaling-timeout",
            "300",
            "--no-cache",
            "--json",
        ],
        tmp_path,
        ADVISOR_SCALING_FAULT="hang@0",
    )
    _wait_for_children(proc, tag, "rank_torch.py")
    proc.send_signal(signal.SIGHUP)
    _assert_clean(proc, tag, tmp, 129, signal.SIGHUP)


def test_terminating_signals_restores_the_previous_handlers():
    before = signal.getsignal(signal.SIGTERM)
    with launcher.terminating_signals():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before


def test_check_sigint_exits_130_and_kills_hung_smoke_children(tmp_path):
    """Ctrl-C (SIGINT to the process) while both frameworks' smoke children hang: exit 130, one
    line, no traceback, no child left, no temp folder left."""
    proc, tag, tmp = _start(
        ["check", "--json", "--timeout", "300"], tmp_path, ADVISOR_TEST_SMOKE_FAULT="pytorch:hang,mindspore:hang"
    )
    _wait_for_children(proc, tag, "probes.check.smoke_worker")
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "interrupted" in err.lower(), err[-2000:]
    deadline = time.monotonic() + 10
    while _tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _tagged(tag) == [], "a child survived SIGINT"
    assert sorted(p.name for p in tmp.glob("advisor-*")) == []


def _signal_twice(proc: subprocess.Popen, first: signal.Signals, then: signal.Signals, times: int) -> None:
    proc.send_signal(first)
    for _ in range(times):
        time.sleep(0.02)
        try:
            proc.send_signal(then)
        except ProcessLookupError:
            return


@pytest.mark.parametrize(
    "first, then, times, code, line",
    [
        (signal.SIGINT, signal.SIGINT, 1, 130, "advisor: interrupted"),  # a double Ctrl-C
        (signal.SIGHUP, signal.SIGHUP, 8, 129, "advisor: terminated by SIGHUP"),  # a terminal closing
    ],
)
def test_a_second_signal_while_cleaning_up_changes_nothing(tmp_path, first, then, times, code, line):
    """The first signal's clean-up kills the children (importing psutil on the way): further signals are
    ignored while it runs, so none cuts an import in half (that was an internal error, exit 1)."""
    proc, tag, tmp = _start(
        ["check", "--json", "--timeout", "300"], tmp_path, ADVISOR_TEST_SMOKE_FAULT="pytorch:hang,mindspore:hang"
    )
    _wait_for_children(proc, tag, "probes.check.smoke_worker")
    time.sleep(0.5)
    _signal_twice(proc, first, then, times)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err[-2000:]
    assert err.strip().splitlines()[-1] == line and "internal error" not in err and "Traceback" not in err, err
    assert err.count(line) == 1, err
    deadline = time.monotonic() + 10
    while _tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _tagged(tag) == [], "a child survived"
    assert sorted(p.name for p in tmp.glob("advisor-*")) == []


def test_an_error_raised_while_unwinding_from_a_signal_is_the_signals_exit(capsys):
    """A second signal, or the first one, can leave a module half imported; whatever error that raises
    on the way out, the command ends as the signal says (exit 143), said once."""
    with pytest.raises(launcher.Terminated) as stopped:
        with launcher.terminating_signals():
            with launcher.terminating_signals():  # a command wrapped twice reports it once
                launcher._stop(signal.SIGTERM)
                raise AttributeError("partially initialized module 'psutil' has no attribute 'Error'")
    assert stopped.value.code == 143
    assert capsys.readouterr().err == "advisor: terminated by SIGTERM\n"
    assert launcher.stopping() is None and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_child_started_after_the_signals_sweep_is_killed_at_once(tmp_path, monkeypatch):
    """A worker thread may start a child after the handler swept the registered ones: it is killed as
    soon as it exists (it lives in a session of its own: no terminal signal reaches it)."""
    monkeypatch.setattr(launcher.tempfile, "tempdir", str(tmp_path))
    with pytest.raises(launcher.Terminated):
        with launcher.terminating_signals():
            launcher._STOPPING.append(signal.SIGTERM)
            out = launcher.run_child(["-c", "import time; time.sleep(600)"], timeout=600)
            assert out.status == "failed" and "SIGKILL" in (out.error or ""), out
            raise launcher.Terminated(signal.SIGTERM)
    assert [p.name for p in tmp_path.iterdir()] == []


def test_children_keep_their_temp_files_in_a_folder_removed_with_the_command(tmp_path, monkeypatch):
    """torch.compile's torchinductor_<user>, torchrun's torchelastic_*, multiprocessing's pymp-*: what
    a child leaves in its temp folder goes to one owned folder per command, removed when it ends."""
    monkeypatch.setattr(launcher.tempfile, "tempdir", str(tmp_path))
    script = (
        "import os, tempfile; from probes import channel\n"
        "d = tempfile.mkdtemp(prefix='torchinductor_'); open(os.path.join(d, 'k'), 'w').write('x')\n"
        "channel.result(folder=d)\n"
    )
    with launcher.terminating_signals():
        out = launcher.run_child(["-c", script], timeout=120)
        assert out.ok, out.error
        folder = Path(out.result["folder"])
        assert folder.is_dir() and folder.parent.name.startswith("advisor-tmp-") and folder.parent.parent == tmp_path
    assert not folder.exists() and [p.name for p in tmp_path.iterdir()] == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, marker, sig, code",
    [
        (["kb", "verify", "--subset", "ci", "--json"], "probes.kbverify.worker_", signal.SIGTERM, 143),
        (
            ["report", "examples/prototype-then-ascend.yaml", "--run-probes", "--json"],
            "probes.training.worker_",
            signal.SIGHUP,
            129,
        ),
    ],
    ids=["kb-verify-sigterm", "report-run-probes-sighup"],
)
def test_every_command_that_starts_children_handles_sigterm_and_sighup(tmp_path, args, marker, sig, code):
    """One wrapper (advisor.cli) for every command: `kb verify` and `report --run-probes` too kill their
    workers and leave no temp folder and no kbverify-*.json."""
    proc, tag, tmp = _start(args, tmp_path)
    _wait_for_children(proc, tag, marker)
    proc.send_signal(sig)
    _assert_clean(proc, tag, tmp, code, sig)
    assert sorted(p.name for p in tmp.iterdir()) == []  # kbverify-*.json, advisor-tmp-*, pymp-* included
