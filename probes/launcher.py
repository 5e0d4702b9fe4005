"""The one module that owns child processes.

Every framework runs in a child: a fresh interpreter with an allow-listed environment, its own
temporary working directory, a hard timeout, and a kill (whole process group) on timeout, cancel or
any error in the parent. Results come back as JSON lines on a dedicated pipe (see probes/channel.py);
the child's stdout/stderr only feed the error reason. A crash or hang is a result, never an exception.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal, Optional

Status = Literal["ok", "failed", "timeout", "cancelled"]

# Variables passed to children. Anything else from the parent's environment stays behind, so a
# worker sees the same world whoever started the tool.
_ENV_NAMES = {
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM", "SHELL",
    "LD_LIBRARY_PATH", "LD_PRELOAD", "VIRTUAL_ENV", "CC", "CXX", "PYTHONHASHSEED",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE", "GLOG_v", "RANK_TABLE_FILE", "DEVICE_ID", "RANK_ID", "RANK_SIZE",
    "XDG_CACHE_HOME", "ONEDNN_MAX_CPU_ISA", "ONEDNN_VERBOSE", "GLOO_SOCKET_IFNAME",
}
_ENV_PREFIXES = ("LC_", "CUDA_", "NVIDIA_", "NCCL_", "ASCEND_", "HCCL_", "TORCH_", "TORCHINDUCTOR_",
                 "MS_", "MINDSPORE_", "TRITON_", "ADVISOR_")

PROJECT_ROOT = str(Path(__file__).resolve().parent.parent)


def child_environment(extra: Optional[dict] = None, drop: tuple = ()) -> dict:
    env = {k: v for k, v in os.environ.items()
           if (k in _ENV_NAMES or k.startswith(_ENV_PREFIXES)) and k not in drop}
    # The workers are modules of this project: make them importable from any working directory.
    env["PYTHONPATH"] = PROJECT_ROOT
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("GLOG_v", "3")  # MindSpore reads it at import: keep its logs quiet
    # The interpreter's own bin (a venv's) first: launchers like msrun start `python` from PATH.
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    for k, v in (extra or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = str(v)
    return env


@dataclass
class ChildOutcome:
    status: Status
    result: Optional[dict] = None          # the last 'result' message
    messages: list = field(default_factory=list)  # every message, in order
    error: Optional[str] = None            # why it is not ok, in one line
    returncode: Optional[int] = None
    seconds: float = 0.0
    output_tail: str = ""                  # last lines of the child's stdout/stderr

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class Cancel:
    """A cancel flag shared with the caller (e.g. the TUI's cancel key)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._wakers: list = []

    def set(self) -> None:
        self._event.set()
        for wake in list(self._wakers):
            wake()

    def is_set(self) -> bool:
        return self._event.is_set()

    def add_waker(self, wake: Callable[[], None]) -> None:
        """Call `wake()` when cancelled (at once if already), so waiters need not poll."""
        self._wakers.append(wake)
        if self.is_set():
            wake()

    def remove_waker(self, wake: Callable[[], None]) -> None:
        if wake in self._wakers:
            self._wakers.remove(wake)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass


def _tail(path: Path, limit: int = 4000) -> str:
    try:
        data = path.read_bytes()[-limit:]
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


def _last_error_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if "Error" in ln or "error" in ln or "Exception" in ln:
            return ln[:300]
    return lines[-1][:300] if lines else ""


def run_child(
    args: list[str],
    *,
    timeout: float,
    env_extra: Optional[dict] = None,
    env_drop: tuple = (),
    python: Optional[str] = None,
    on_message: Optional[Callable[[dict], None]] = None,
    cancel: Optional[Cancel] = None,
    keep_workdir: bool = False,
) -> ChildOutcome:
    """Run `python ARGS...` (e.g. ["-m", "probes.smoke_worker", "torch"]) as an isolated child.

    The child talks back through probes.channel; `on_message` is called (in a reader thread) for
    every message as it arrives, e.g. to drive a progress bar.
    """
    python = python or sys.executable
    workdir = Path(tempfile.mkdtemp(prefix="advisor-worker-"))
    log_path = workdir / "child-output.log"
    read_fd, write_fd = os.pipe()
    env = child_environment(env_extra, env_drop)
    env["ADVISOR_RESULT_FD"] = str(write_fd)
    outcome = ChildOutcome(status="failed")
    start = time.monotonic()
    proc = None
    try:
        with open(log_path, "wb") as log:
            try:
                proc = subprocess.Popen(
                    [python, *args], cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                    stdout=log, stderr=subprocess.STDOUT, pass_fds=(write_fd,),
                    start_new_session=True,  # its own process group: kill takes its children too
                )
            except OSError as exc:
                os.close(write_fd)
                os.close(read_fd)
                outcome.error = f"could not start {python}: {exc}"
                return outcome
            os.close(write_fd)

            def reader() -> None:
                with os.fdopen(read_fd, "r", encoding="utf-8", errors="replace") as fh:
                    for line in fh:
                        try:
                            msg = json.loads(line)
                        except ValueError:
                            continue
                        outcome.messages.append(msg)
                        if msg.get("kind") == "result":
                            outcome.result = msg
                        if on_message is not None:
                            try:
                                on_message(msg)
                            except Exception:  # a display problem must not lose the result
                                pass

            thread = threading.Thread(target=reader, daemon=True)
            thread.start()
            # Sleep until the child exits, the cancel flag wakes us, or the deadline: no polling,
            # because on a 2-core host every wake-up of the parent preempts a worker thread.
            wake = threading.Event()
            threading.Thread(target=lambda: (proc.wait(), wake.set()), daemon=True).start()
            if cancel is not None:
                cancel.add_waker(wake.set)
            deadline = start + timeout
            try:
                while proc.poll() is None:
                    if cancel is not None and cancel.is_set():
                        _kill_group(proc)
                        proc.wait()
                        outcome.status, outcome.error = "cancelled", "cancelled by the user"
                        break
                    left = deadline - time.monotonic()
                    if left <= 0:
                        _kill_group(proc)
                        proc.wait()
                        outcome.status = "timeout"
                        outcome.error = f"no result within the {timeout:.0f} s timeout; the process was killed"
                        break
                    wake.wait(timeout=left)
                    wake.clear()
            finally:
                if cancel is not None:
                    cancel.remove_waker(wake.set)
            # Grandchildren may hold the pipe open: kill the group, then give the reader a moment.
            _kill_group(proc)
            thread.join(timeout=2.0)
        outcome.returncode = proc.returncode
        outcome.seconds = time.monotonic() - start
        outcome.output_tail = _tail(log_path)
        if outcome.status in ("timeout", "cancelled"):
            return outcome
        errors = [m for m in outcome.messages if m.get("kind") == "error"]
        if outcome.result is not None and proc.returncode == 0:
            outcome.status = "ok"
        elif errors:
            outcome.error = str(errors[-1].get("message") or errors[-1])
        elif proc.returncode and proc.returncode < 0:
            sig = -proc.returncode
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            outcome.error = f"the process died from signal {name}"
            detail = _last_error_line(outcome.output_tail)
            if detail:
                outcome.error += f": {detail}"
        else:
            detail = _last_error_line(outcome.output_tail) or "no result was sent"
            outcome.error = f"exit code {proc.returncode}: {detail}"
        return outcome
    except BaseException:
        if proc is not None and proc.poll() is None:
            _kill_group(proc)
        raise
    finally:
        if not keep_workdir:
            shutil.rmtree(workdir, ignore_errors=True)
