"""The one supervisor of child processes (the training probe's workers, check's smoke tests and,
through probes/scaling/launch.py, torchrun/msrun launches).

Every framework runs in a child: a fresh interpreter with an allow-listed environment, its own
temporary working directory, a hard timeout, and a kill on timeout, cancel or any error in the
parent. Results come back as JSON lines on a dedicated pipe (see probes/channel.py); the child's
stdout/stderr only feed the error reason. A crash or hang is a result, never an exception.

Small parts (pyperf's _utils.popen_killer / _manager.py are the model), which run_child composes
and scaling/launch.py reuses:
- child_environment(): the allow-listed environment, plus a marker variable;
- MessagePipe: the result channel and its reader thread;
- workdir(): a registered temporary folder (removed on exit, and by the signal handler);
- supervised(): registers a live child and kills it (group + marker sweep) if the parent fails;
- wait(): sleep until exit, cancel or the deadline; no polling unless a caller asks for ticks;
- terminating_signals(): SIGTERM / SIGHUP handled like SIGINT for the CLI commands.
The kill takes the child's process group and every process carrying the child's marker variable
(MARKER_ENV), so a grandchild that moved to a session of its own (setsid; torchrun and msrun start
their ranks that way) goes too.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Literal, Optional

Status = Literal["ok", "failed", "timeout", "cancelled"]

# Variables passed to children. Anything else from the parent's environment stays behind, so a
# worker sees the same world whoever started the tool.
_ENV_NAMES = {
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "TERM",
    "SHELL",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "VIRTUAL_ENV",
    "CC",
    "CXX",
    "PYTHONHASHSEED",
    "PYTHONDONTWRITEBYTECODE",  # a parent under a file-size limit must not leave its children truncated .pyc files
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",
    "GLOG_v",
    "RANK_TABLE_FILE",
    "DEVICE_ID",
    "RANK_ID",
    "RANK_SIZE",
    "XDG_CACHE_HOME",
    "ONEDNN_MAX_CPU_ISA",
    "ONEDNN_VERBOSE",
    "GLOO_SOCKET_IFNAME",
    "ORT_DISABLE_TELEMETRY",
}
_ENV_PREFIXES = (
    "LC_",
    "CUDA_",
    "NVIDIA_",
    "NCCL_",
    "ASCEND_",
    "HCCL_",
    "TORCH_",
    "TORCHINDUCTOR_",
    "MS_",
    "MINDSPORE_",
    "TRITON_",
    "ADVISOR_",
)

PROJECT_ROOT = str(Path(__file__).resolve().parent.parent)
# Every process a child starts inherits this variable (a fresh uuid per child): the kill sweep finds
# them by it even after they left the child's process group.
MARKER_ENV = "ADVISOR_RUN_MARKER"


def child_environment(extra: Optional[dict] = None, drop: tuple = ()) -> dict:
    env = {k: v for k, v in os.environ.items() if (k in _ENV_NAMES or k.startswith(_ENV_PREFIXES)) and k not in drop}
    try:
        env["TMPDIR"] = children_tmpdir()
    except OSError:
        pass  # no writable temp folder: the child's own temp files fail as they would have anyway
    # The workers are modules of this project: make them importable from any working directory.
    env["PYTHONPATH"] = PROJECT_ROOT
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("GLOG_v", "3")  # MindSpore reads it at import: keep its logs quiet
    # ONNX Runtime's import-time telemetry (a device id under the cache; a coloured warning where it
    # cannot write one): the tool sends none. A user's own setting passes through.
    env.setdefault("ORT_DISABLE_TELEMETRY", "1")
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
    result: Optional[dict] = None  # the last 'result' message
    messages: list = field(default_factory=list)  # every message, in order
    error: Optional[str] = None  # why it is not ok, in one line
    returncode: Optional[int] = None
    seconds: float = 0.0
    output_tail: str = ""  # last lines of the child's stdout/stderr
    notes: list = field(default_factory=list)  # what the supervisor changed (e.g. a cache folder)

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


def marker_environment(env: dict) -> str:
    """Give `env` a fresh marker (MARKER_ENV) and return it."""
    marker = uuid.uuid4().hex
    env[MARKER_ENV] = marker
    return marker


# Cache folders a framework writes at import or first use (torch.optim imports Inductor, which
# creates TORCHINDUCTOR_CACHE_DIR). One that cannot be written must cost the caching, not the run.
CACHE_VARIABLES = ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "MS_COMPILER_CACHE_PATH")


def _writable_dir(path: str) -> bool:
    p = Path(path)
    while not p.exists() and p != p.parent:  # the nearest existing folder decides
        p = p.parent
    return p.is_dir() and os.access(p, os.W_OK | os.X_OK)


def fallback_caches(env: dict, spare: Path) -> list[str]:
    """Point every unwritable cache folder in `env` into `spare` (a temporary folder); returns
    one note per folder replaced."""
    notes = []
    for name in CACHE_VARIABLES:
        value = env.get(name)
        if value and not _writable_dir(value):
            env[name] = str(spare / name.lower())
            notes.append(f"{name}={value} is not writable: a temporary folder was used (nothing was cached this run)")
    return notes


# ------------------------------------------------------------------ registry of live children

_LOCK = threading.RLock()  # re-entrant: the signal handler may run while the main thread holds it
_LIVE: dict[int, Callable[[], None]] = {}  # id -> kill function of a running child
_DIRS: set[str] = set()  # temporary folders to remove on a terminating signal
# The signal that is stopping this process (SIGINT, SIGTERM, SIGHUP), once its handler ran; None
# otherwise. A child started after it (by a worker thread) is killed at once, not left behind.
_STOPPING: list[int] = []


def stopping() -> Optional[int]:
    """The number of the terminating signal being handled, or None."""
    return _STOPPING[0] if _STOPPING else None


def _kill_all() -> None:
    with _LOCK:
        kills = list(_LIVE.values())
    for kill in kills:
        kill()


def _remove_all_dirs() -> None:
    with _LOCK:
        dirs = list(_DIRS)
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


# ---- temporary folders: owned, and swept when their owner is gone ----------------------------------
#
# A SIGKILL of the parent leaves its advisor-* folders behind (no handler runs). Each folder made here
# holds OWNER_FILE ("pid start-time"); the first folder a process makes sweeps the temp folder of
# advisor-* folders whose owner process is gone. A folder without the file (made by another tool,
# or by an older version) is never touched, nor one of another user.

OWNER_FILE = ".advisor-owner"
_SWEPT = False


def _start_time(pid: int) -> Optional[str]:
    """The process's start time in clock ticks (/proc/PID/stat field 22), None if it is gone; "" when
    /proc is not there to tell (then only os.kill says whether the pid lives)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat_line = fh.read().decode("ascii", "replace")
        return stat_line.rsplit(")", 1)[1].split()[19]
    except FileNotFoundError:
        return None if os.path.isdir("/proc/self") else ""
    except (OSError, IndexError):
        return ""


def _owner_alive(pid: int, start: str) -> bool:
    now = _start_time(pid)
    if now is None:
        return False
    if now == "":  # no /proc: the pid alone
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:
            return True
        return True
    return now == start  # the same pid reused by a later process is not the owner


def make_temp_dir(prefix: str = "advisor-worker-") -> Path:
    """mkdtemp with the owner file, after the once-per-process sweep of stale folders."""
    global _SWEPT
    if not _SWEPT:
        _SWEPT = True
        sweep_stale()
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        (path / OWNER_FILE).write_text(f"{os.getpid()} {_start_time(os.getpid()) or ''}\n", encoding="ascii")
    except OSError:
        pass  # a full disk: the folder works, it just cannot be swept later
    with _LOCK:
        _DIRS.add(str(path))  # a terminating signal removes it whichever thread made it
    return path


_CHILD_TMP: list[str] = []


def children_tmpdir() -> str:
    """The TMPDIR every child gets: one owned folder per process (advisor-tmp-*), removed at exit and
    by a terminating signal, swept by a later run if this process is killed. What the frameworks
    leave in a temp folder (torchinductor_<user>, torchelastic_*, multiprocessing's pymp-*) goes
    there instead of the user's temp folder."""
    with _LOCK:
        if not _CHILD_TMP or not os.path.isdir(_CHILD_TMP[0]):
            _CHILD_TMP[:] = [str(make_temp_dir("advisor-tmp-"))]
            atexit.register(shutil.rmtree, _CHILD_TMP[0], True)
        return _CHILD_TMP[0]


def sweep_stale(folder: Optional[str] = None) -> list[Path]:
    """Remove advisor-* folders (this user's, in the temp folder) whose owner process is gone."""
    base = Path(folder or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        candidates = [p for p in base.glob("advisor-*") if p.is_dir() and not p.is_symlink()]
    except OSError:
        return removed
    uid = os.getuid() if hasattr(os, "getuid") else None
    for path in candidates:
        try:
            if uid is not None and path.stat().st_uid != uid:
                continue
            text = (path / OWNER_FILE).read_text(encoding="ascii").split()
            pid, start = int(text[0]), (text[1] if len(text) > 1 else "")
        except (OSError, ValueError, IndexError):
            continue  # no owner file: not ours to judge
        if pid == os.getpid() or _owner_alive(pid, start):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


@contextlib.contextmanager
def workdir(prefix: str = "advisor-worker-", keep: bool = False) -> Iterator[Path]:
    """A temporary folder, removed on exit (unless `keep`) and by terminating_signals()."""
    path = str(make_temp_dir(prefix))
    with _LOCK:
        _DIRS.add(path)
    try:
        yield Path(path)
    finally:
        with _LOCK:
            _DIRS.discard(path)
        if not keep:
            shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def supervised(kill: Callable[[], None]) -> Iterator[None]:
    """While the block runs, `kill` is what a terminating signal calls; if the block fails (an
    error or an interrupt in the parent), the child is killed before the exception goes on."""
    key = id(kill)
    with _LOCK:
        _LIVE[key] = kill
    try:
        yield
    except BaseException:
        kill()
        raise
    finally:
        with _LOCK:
            _LIVE.pop(key, None)


class Terminated(SystemExit):
    """SIGTERM or SIGHUP reached a command: exit 128 + the signal's number, as a shell reports it."""

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum


_TERMINATING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_IGNORED: dict = {}  # signal -> its handler before _stop ignored it (the outermost block restores it)
_DEPTH = [0]  # terminating_signals blocks open: the outermost one ends the stop


def _stop(signum: int) -> None:
    """The first terminating signal: later ones are ignored while the process cleans up (a second
    Ctrl-C or a burst of SIGHUP once cut an import in half and turned the exit into an internal
    error), then every supervised child is killed and every registered folder removed."""
    if not _STOPPING:
        _STOPPING.append(signum)
    for sig in _TERMINATING:
        try:
            # a handler that does nothing, not SIG_IGN: a signal already pending when the handler
            # changes to SIG_IGN is an OSError ("ignored due to race condition") in CPython
            _IGNORED.setdefault(sig, signal.signal(sig, _ignore))
        except (ValueError, OSError):  # not the main thread: nothing to ignore from here
            pass
    _kill_all()
    _remove_all_dirs()


_HOOK: list = []  # threading.excepthook before the outermost block replaced it


def _quiet_once_stopping(args) -> None:
    """A worker thread's error after a terminating signal is the signal's doing (a module the signal
    left half imported, a child it killed): the command says it was stopped, once, and no thread's
    traceback follows. Before a signal, errors go to the hook that was there."""
    if _STOPPING:
        return
    (_HOOK[0] if _HOOK else threading.__excepthook__)(args)


def _ignore(signum, frame) -> None:
    """A terminating signal after the first: the clean-up it would ask for is already running."""


def _remove_children_tmpdir() -> None:
    with _LOCK:
        folders, _CHILD_TMP[:] = list(_CHILD_TMP), []
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def terminating_signals(signals: tuple = (signal.SIGTERM, signal.SIGHUP), exiting: bool = False) -> Iterator[None]:
    """Handle SIGTERM and SIGHUP like SIGINT for the block (usable as a decorator): kill every
    supervised child (group and marker sweep), remove the registered temporary folders, and
    exit 143 / 129 (130 and KeyboardInterrupt for SIGINT). Further signals are ignored while that
    runs, and any error raised while the block unwinds from a signal is that signal's exit, not an
    error of its own. On any exit by an exception the same clean-up runs, also for children that
    worker threads started. Outside the main thread (where Python cannot install handlers) only
    that clean-up applies. Nested blocks (a command wrapped twice) report the signal once.
    `exiting`: the process ends with the block (the CLI's commands): once a signal stopped it, the
    signals stay ignored, so a burst of them cannot kill the interpreter while it exits."""

    def handler(signum, frame):
        _stop(signum)
        raise Terminated(signum)

    def interrupt(signum, frame):
        # Ctrl-C: kill the children *before* KeyboardInterrupt unwinds, or a `with ThreadPoolExecutor`
        # waits in its exit for worker threads that wait for hung children (until their timeout).
        _stop(signum)
        raise KeyboardInterrupt

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in signals:
            previous[sig] = signal.signal(sig, handler)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            previous[signal.SIGINT] = signal.signal(signal.SIGINT, interrupt)
    with _LOCK:
        _DEPTH[0] += 1
        if _DEPTH[0] == 1:
            _HOOK[:] = [threading.excepthook]
            threading.excepthook = _quiet_once_stopping
    try:
        yield
    except BaseException as exc:
        _kill_all()
        _remove_all_dirs()
        signum = stopping()
        if signum is not None and not isinstance(exc, (Terminated, KeyboardInterrupt)):
            # an error raised while unwinding from the signal: the signal is why the command stopped
            exc = KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)
        if isinstance(exc, Terminated) and not getattr(exc, "reported", False):
            exc.reported = True
            try:
                print(f"advisor: terminated by {signal.Signals(exc.signum).name}", file=sys.stderr)
            except (AttributeError, OSError, ValueError):  # a closed stderr
                pass
        if exc is not sys.exc_info()[1]:
            raise exc from None
        raise
    finally:
        with _LOCK:
            _DEPTH[0] -= 1
            outermost = _DEPTH[0] == 0
        if outermost:
            if not (exiting and _STOPPING):
                for sig, old in [*_IGNORED.items(), *previous.items()]:
                    signal.signal(sig, old)
                if _HOOK:
                    threading.excepthook = _HOOK.pop()
            _IGNORED.clear()
            if not exiting:  # an exiting process keeps saying why it stops (advisor.cli reads it)
                _STOPPING.clear()
            _remove_children_tmpdir()
        elif not _STOPPING:  # an inner block while stopping leaves the signals ignored to the outermost
            for sig, old in previous.items():
                signal.signal(sig, old)


# ------------------------------------------------------------------ kill


def marked_processes(marker: str) -> dict:
    """{pid: environment} of this user's processes carrying `marker` in MARKER_ENV (Linux /proc)."""
    needle = f"{MARKER_ENV}={marker}".encode()
    out = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for name in entries:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                items = fh.read().split(b"\0")
        except OSError:  # gone, or another user's: not ours to kill
            continue
        if needle in items:
            env = {}
            for item in items:
                key, sep, value = item.partition(b"=")
                if sep:
                    env[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
            out[int(name)] = env
    return out


def marked_pids(marker: str) -> list:
    return list(marked_processes(marker))


def _descendants(pid: int) -> list:
    """The process tree below `pid` (psutil), for where /proc environ is unreadable."""
    try:
        import psutil
    except ImportError:
        return []
    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def kill_marked(marker: str) -> None:
    """SIGKILL every process carrying `marker`, and its group (never ours): the sweep for a child
    whose Popen never returned to say who it is."""
    for pid in marked_pids(marker):
        try:
            group = os.getpgid(pid)
            if group != os.getpgrp():
                os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def kill_tree(proc: subprocess.Popen, marker: Optional[str] = None) -> None:
    """SIGKILL the child's group, every group of a process carrying its marker, and those
    processes themselves (a setsid grandchild has a group of its own)."""
    pids = set(marked_pids(marker)) if marker else set()
    # The child's own pid only while it runs: once reaped, its pid may belong to someone else.
    alive = proc.poll() is None
    groups = {proc.pid} if alive else set()
    if alive:
        pids.add(proc.pid)
        pids.update(_descendants(proc.pid))
    for pid in pids:
        try:
            groups.add(os.getpgid(pid))
        except OSError:
            pass
    groups.discard(os.getpgrp())  # never our own group
    for pgid in groups:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


# ------------------------------------------------------------------ waiting and reading


def wait(
    proc: subprocess.Popen,
    timeout: float,
    cancel: Optional[Cancel] = None,
    tick: Optional[Callable[[], bool]] = None,
    tick_seconds: float = 0.25,
    start: Optional[float] = None,
) -> str:
    """Sleep until the child exits ("exited"), `cancel` is set ("cancelled"), `timeout` seconds
    from `start` pass ("timeout"), or `tick()` returns True ("stopped"). Without `tick` there is no
    polling: on a 2-core host every wake-up of the parent preempts a worker thread (a 0.1 s poll
    cost ~13%); with one, it is called every `tick_seconds`."""
    wake = threading.Event()
    threading.Thread(target=lambda: (proc.wait(), wake.set()), daemon=True).start()
    if cancel is not None:
        cancel.add_waker(wake.set)
    deadline = (start if start is not None else time.monotonic()) + timeout
    next_tick = time.monotonic() + tick_seconds
    try:
        while proc.poll() is None:
            if cancel is not None and cancel.is_set():
                return "cancelled"
            now = time.monotonic()
            if now >= deadline:
                return "timeout"
            if tick is not None and now >= next_tick:
                next_tick = now + tick_seconds
                if tick():
                    return "stopped"
            wake.wait(timeout=min(deadline, next_tick) - now if tick is not None else deadline - now)
            wake.clear()
        return "exited"
    finally:
        if cancel is not None:
            cancel.remove_waker(wake.set)


def tail(path: Path, limit: int = 4000) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - limit))
            data = fh.read()
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


def last_error_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if "Error" in ln or "error" in ln or "Exception" in ln:
            return ln[:300]
    return lines[-1][:300] if lines else ""


def signal_name(returncode: int) -> str:
    sig = -returncode
    return signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)


class MessagePipe:
    """The result channel: a pipe whose write end the child inherits (ADVISOR_RESULT_FD) and a
    reader thread that parses its JSON lines into `messages` / `result`."""

    def __init__(self, on_message: Optional[Callable[[dict], None]] = None) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self.on_message = on_message
        self.messages: list = []
        self.result: Optional[dict] = None
        self._thread: Optional[threading.Thread] = None

    def start(self) -> None:
        """Once the child holds the write end: close ours and read until every writer is gone."""
        os.close(self.write_fd)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def abandon(self) -> None:
        """The child never started: close both ends."""
        os.close(self.write_fd)
        os.close(self.read_fd)

    def _read(self) -> None:
        with os.fdopen(self.read_fd, "r", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(msg, dict):
                    continue
                self.messages.append(msg)
                if msg.get("kind") == "result":
                    self.result = msg
                if self.on_message is not None:
                    try:
                        self.on_message(msg)
                    except Exception:  # a display problem must not lose the result
                        pass

    def join(self, timeout: float = 2.0) -> None:
        if self._thread is not None:
            self._thread.join(timeout=timeout)


# ------------------------------------------------------------------ one child


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
    """Run `python ARGS...` (e.g. ["-m", "probes.check.smoke_worker", "torch"]) as an isolated child.

    The child talks back through probes.channel; `on_message` is called (in a reader thread) for
    every message as it arrives, e.g. to drive a progress bar.
    """
    python = python or sys.executable
    outcome = ChildOutcome(status="failed")
    start = time.monotonic()
    with workdir("advisor-worker-", keep=keep_workdir) as folder:
        env = child_environment(env_extra, env_drop)
        marker = marker_environment(env)
        outcome.notes = fallback_caches(env, folder)
        pipe = MessagePipe(on_message)
        env["ADVISOR_RESULT_FD"] = str(pipe.write_fd)
        log_path = folder / "child-output.log"
        with open(log_path, "wb") as log:
            started: list[subprocess.Popen] = []  # the child, once Popen returns
            # Registered before the child exists: a signal handled between Popen and the registration
            # would otherwise miss a child that outlives this process (its own session: no terminal
            # signal reaches it).
            with supervised(lambda: kill_tree(started[0], marker) if started else kill_marked(marker)):
                try:
                    proc = subprocess.Popen(
                        [python, *args],
                        cwd=folder,
                        env=env,
                        stdin=subprocess.DEVNULL,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        pass_fds=(pipe.write_fd,),
                        start_new_session=True,  # its own process group: kill takes its children too
                    )
                except OSError as exc:
                    pipe.abandon()
                    outcome.error = f"could not start {python}: {exc}"
                    return outcome
                started.append(proc)
                if stopping() is not None:  # the signal's sweep ran before this child existed
                    kill_tree(proc, marker)
                pipe.start()
                how = wait(proc, timeout, cancel, start=start)
                # Grandchildren may hold the pipe open or outlive the child: kill them all, then
                # give the reader a moment.
                kill_tree(proc, marker)
                proc.wait()
                pipe.join()
        outcome.messages, outcome.result = pipe.messages, pipe.result
        outcome.returncode = proc.returncode
        outcome.seconds = time.monotonic() - start
        outcome.output_tail = tail(log_path)
    if how == "cancelled":
        outcome.status, outcome.error = "cancelled", "cancelled by the user"
        return outcome
    if how == "timeout":
        outcome.status = "timeout"
        outcome.error = f"no result within the {timeout:.0f} s timeout; the process was killed"
        return outcome
    errors = [m for m in outcome.messages if m.get("kind") == "error"]
    if outcome.result is not None and proc.returncode == 0:
        outcome.status = "ok"
    elif errors:
        outcome.error = str(errors[-1].get("message") or errors[-1])
    elif proc.returncode and proc.returncode < 0:
        outcome.error = f"the process died from signal {signal_name(proc.returncode)}"
        detail = last_error_line(outcome.output_tail)
        if detail:
            outcome.error += f": {detail}"
    else:
        detail = last_error_line(outcome.output_tail) or "no result was sent"
        outcome.error = f"exit code {proc.returncode}: {detail}"
    return outcome
