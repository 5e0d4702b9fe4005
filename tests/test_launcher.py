"""The launcher owns child processes: results on their own channel, crashes and hangs as data."""

import os
import sys
import threading
import time

from probes.launcher import Cancel, child_environment, run_child


def _code(src: str) -> list:
    return ["-c", src]


def test_result_travels_apart_from_log_noise():
    out = run_child(_code(
        "import sys, probes.channel as c\n"
        "print('noise on stdout'); print('noise on stderr', file=sys.stderr)\n"
        "c.progress(fraction=0.5)\n"
        "c.result(value=42)\n"), timeout=30)
    assert out.status == "ok", out.error
    assert out.result["value"] == 42
    assert [m["kind"] for m in out.messages] == ["progress", "result"]
    assert "noise on stdout" in out.output_tail


def test_crash_becomes_a_failed_outcome_with_its_reason():
    out = run_child(_code("raise RuntimeError('boom in the worker')"), timeout=30)
    assert out.status == "failed"
    assert "boom in the worker" in out.error
    assert out.returncode == 1


def test_worker_reported_error_is_used():
    out = run_child(_code(
        "import probes.channel as c; c.send('error', message='no device'); raise SystemExit(3)"),
        timeout=30)
    assert out.status == "failed"
    assert out.error == "no device"


def test_signal_death_is_named():
    out = run_child(_code("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"), timeout=30)
    assert out.status == "failed"
    assert "SIGSEGV" in out.error


def test_hang_is_killed_at_the_timeout_with_its_children():
    start = time.monotonic()
    out = run_child(_code(
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "time.sleep(60)\n"), timeout=1.5)
    assert out.status == "timeout"
    assert "timeout" in out.error
    assert time.monotonic() - start < 10


def test_cancel_kills_the_child():
    cancel = Cancel()
    threading.Timer(0.5, cancel.set).start()
    start = time.monotonic()
    out = run_child(_code("import time; time.sleep(60)"), timeout=60, cancel=cancel)
    assert out.status == "cancelled"
    assert time.monotonic() - start < 10


def test_on_message_sees_progress_live():
    seen = []
    out = run_child(_code(
        "import probes.channel as c\n"
        "for i in range(3): c.progress(step=i)\n"
        "c.result(done=True)\n"), timeout=30, on_message=seen.append)
    assert out.ok
    assert [m.get("step") for m in seen if m["kind"] == "progress"] == [0, 1, 2]


def test_environment_is_allow_listed(monkeypatch):
    monkeypatch.setenv("SECRET_TOKEN", "x")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    env = child_environment({"ONEDNN_MAX_CPU_ISA": "AVX2", "CUDA_VISIBLE_DEVICES": None})
    assert "SECRET_TOKEN" not in env
    assert "CUDA_VISIBLE_DEVICES" not in env
    assert env["ONEDNN_MAX_CPU_ISA"] == "AVX2"
    assert env["GLOG_v"] == "3"
    assert env["PATH"].split(os.pathsep)[0] == os.path.dirname(sys.executable)


def test_missing_interpreter_is_a_failed_outcome():
    out = run_child(_code("pass"), timeout=5, python="/nonexistent/python")
    assert out.status == "failed"
    assert "could not start" in out.error
