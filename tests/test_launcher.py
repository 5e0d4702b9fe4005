"""The launcher owns child processes: results on their own channel, crashes and hangs as data."""

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from probes.launcher import Cancel, child_environment, run_child


def _code(src: str) -> list:
    return ["-c", src]


def test_result_travels_apart_from_log_noise():
    out = run_child(
        _code(
            "import sys, probes.channel as c\n"
            "print('noise on stdout'); print('noise on stderr', file=sys.stderr)\n"
            "c.progress(fraction=0.5)\n"
            "c.result(value=42)\n"
        ),
        timeout=30,
    )
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
    out = run_child(
        _code("import probes.channel as c; c.send('error', message='no device'); raise SystemExit(3)"), timeout=30
    )
    assert out.status == "failed"
    assert out.error == "no device"


def test_signal_death_is_named():
    out = run_child(_code("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"), timeout=30)
    assert out.status == "failed"
    assert "SIGSEGV" in out.error


def _gone(pid: int) -> bool:
    """No such process, or killed and not yet reaped by init (a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _wait_gone(pid: int) -> bool:
    """A SIGKILLed process ends when the kernel next schedules it: poll for that, a bounded number of times."""
    for _ in range(200):
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


def test_hang_is_killed_at_the_timeout_with_its_children(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    out = run_child(
        _code(
            "import subprocess, sys, time\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
            "time.sleep(60)\n"
        ),
        timeout=3,
    )
    assert out.status == "timeout"
    assert "timeout" in out.error
    assert _wait_gone(int(pidfile.read_text()))  # the child's own child went with it


def test_cancel_kills_the_child(tmp_path):
    pidfile = tmp_path / "child.pid"
    cancel = Cancel()

    def cancel_once_running() -> None:
        for _ in range(600):  # the child has started once it wrote its pid
            if pidfile.exists() and pidfile.read_text():
                break
            time.sleep(0.05)
        cancel.set()

    threading.Thread(target=cancel_once_running, daemon=True).start()
    out = run_child(
        _code(f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(60)"),
        timeout=60,
        cancel=cancel,
    )
    assert out.status == "cancelled"  # ended by the cancel, not by the 60 s sleep or the timeout
    assert _wait_gone(int(pidfile.read_text()))


def test_on_message_sees_progress_live():
    seen = []
    out = run_child(
        _code("import probes.channel as c\nfor i in range(3): c.progress(step=i)\nc.result(done=True)\n"),
        timeout=30,
        on_message=seen.append,
    )
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


def test_hung_child_with_a_setsid_grandchild_leaves_nothing_running(tmp_path):
    """A hung import that forks a grandchild into a session of its own: out of the child's process
    group, still found by the marker every process of the child inherits."""
    pidfile = tmp_path / "grandchild.pid"
    out = run_child(
        _code(
            "import os, subprocess, sys, time\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'], start_new_session=True)\n"
            f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
            "time.sleep(120)\n"
        ),
        timeout=3,
    )
    assert out.status == "timeout"
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(grandchild, 0)
        except ProcessLookupError:
            break
        with open(f"/proc/{grandchild}/stat") as fh:  # killed but not yet reaped by init: a zombie
            if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                break
        time.sleep(0.1)
    else:
        raise AssertionError("the setsid grandchild survived")


def test_unwritable_cache_folder_falls_back_to_a_temporary_one(tmp_path):
    """A cache folder that cannot be made (here under a regular file, which stops root too; a
    read-only mount behaves the same) costs the caching, not the run."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    out = run_child(
        _code(
            "import os, probes.channel as c\n"
            "d = os.environ['TORCHINDUCTOR_CACHE_DIR']; os.makedirs(d, exist_ok=True)\n"
            "c.result(dir=d)\n"
        ),
        timeout=30,
        env_extra={"TORCHINDUCTOR_CACHE_DIR": str(blocker / "inductor")},
    )
    assert out.status == "ok", out.error
    assert not out.result["dir"].startswith(str(blocker))
    assert any("TORCHINDUCTOR_CACHE_DIR" in n and "not writable" in n for n in out.notes)


# --- the stale temp-folder sweep ----------------------------------------------------------


def _sigkilled_owner_folder(tmp_path) -> Path:
    """A real process makes its folder through the launcher, then dies by SIGKILL (no handler runs)."""
    import subprocess
    import sys

    code = (
        "import os, signal, tempfile; tempfile.tempdir = os.environ['T']; "
        "from probes import launcher; p = launcher.make_temp_dir('advisor-worker-'); "
        "print(p, flush=True); os.kill(os.getpid(), signal.SIGKILL)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "T": str(tmp_path)}, timeout=60
    )
    assert proc.returncode == -9, proc.stderr
    return Path(proc.stdout.strip())


def test_a_folder_left_by_a_killed_process_is_swept(tmp_path):
    from probes import launcher

    left = _sigkilled_owner_folder(tmp_path)
    assert left.is_dir() and (left / launcher.OWNER_FILE).is_file()
    assert launcher.sweep_stale(str(tmp_path)) == [left]
    assert not left.exists()


def test_live_owners_and_unowned_folders_are_kept(tmp_path):
    from probes import launcher

    mine = tmp_path / "advisor-worker-live"
    mine.mkdir()
    parent = os.getppid()
    (mine / launcher.OWNER_FILE).write_text(f"{parent} {launcher._start_time(parent)}\n")
    unowned = tmp_path / "advisor-worker-unowned"
    unowned.mkdir()
    other = tmp_path / "not-advisor"
    other.mkdir()
    (other / launcher.OWNER_FILE).write_text("999999999 1\n")
    assert launcher.sweep_stale(str(tmp_path)) == []
    assert mine.is_dir() and unowned.is_dir() and other.is_dir()


def test_a_reused_pid_is_not_the_owner(tmp_path):
    """The pid lives, but started at another time than the folder's owner: that owner is gone."""
    from probes import launcher

    folder = tmp_path / "advisor-worker-reused"
    folder.mkdir()
    parent = os.getppid()
    (folder / launcher.OWNER_FILE).write_text(f"{parent} 1\n")
    if launcher._start_time(parent) in ("", "1"):
        pytest.skip("no /proc start times here")
    assert launcher.sweep_stale(str(tmp_path)) == [folder]


def test_children_run_without_onnxruntime_telemetry_unless_the_user_says_otherwise(monkeypatch):
    # ORT writes a telemetry device id under the cache at import and, where it cannot (HOME a file),
    # prints a coloured warning on stderr: the workers get ORT_DISABLE_TELEMETRY=1.
    from probes.launcher import child_environment

    monkeypatch.delenv("ORT_DISABLE_TELEMETRY", raising=False)
    assert child_environment()["ORT_DISABLE_TELEMETRY"] == "1"
    monkeypatch.setenv("ORT_DISABLE_TELEMETRY", "0")
    assert child_environment()["ORT_DISABLE_TELEMETRY"] == "0"


def test_onnxruntime_imported_for_check_prints_nothing_with_home_a_file(tmp_path):
    pytest.importorskip("onnxruntime")
    home = tmp_path / "home"
    home.write_text("a file, not a folder")
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env.update(HOME=str(home), XDG_CACHE_HOME="", PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    code = "from probes.deploy.engines import ort_providers; print(ort_providers())"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0 and "CPUExecutionProvider" in proc.stdout
    assert proc.stderr == "", proc.stderr  # without the variable: "[W:onnxruntime:Default, telemetry_1ds.cc..."
