"""Command lines, environment and result paths for the frameworks' own launchers, and one launch.

Never a home-made launcher: torchrun (`--standalone --nproc_per_node`) and msrun (`--worker_num
--local_worker_num --master_addr --master_port --join=True --cluster_time_out --log_dir`) start the
ranks; this module only builds what they need and runs them under probes/launcher.py's
supervisor (allow-listed environment, registered temporary folder, hard timeout, kill of the
process group and of every process carrying the launch's marker variable on timeout, cancel,
error or a terminating signal). Both launchers start their ranks in new sessions (torch elastic
`start_new_session=True`, msrun `os.setsid`), which is why the marker sweep exists. What this
module adds: the launchers' command lines, rank 0's progress file and result, and the msrun
worker watch (a dead worker fails the launch now, not after msrun's heartbeat timeout).
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal, Optional, Protocol

from probes import launcher
from probes.launcher import MARKER_ENV, Cancel, child_environment, kill_tree, marked_processes
from probes.scaling import rank_common

Framework = Literal["pytorch", "mindspore"]
Status = Literal["ok", "failed", "timeout", "cancelled"]

HERE = Path(__file__).resolve().parent
RANK_SCRIPTS = {"pytorch": HERE / "rank_torch.py", "mindspore": HERE / "rank_mindspore.py"}
LAUNCHERS = {"pytorch": "torchrun", "mindspore": "msrun"}
# The same launcher as a module, for an interpreter whose bin/ lacks the console script.
LAUNCHER_MODULES = {
    "pytorch": ["-m", "torch.distributed.run"],
    "mindspore": [
        "-c",
        "import sys; from mindspore.parallel.cluster.run import main; sys.argv[0] = 'msrun'; sys.exit(main())",
    ],
}


class CrossHost(Protocol):
    """A launch across hosts (multinode.Rendezvous): its engine command line and rank environment.
    Typed here so that this module never imports multinode, which builds on it."""

    def build_command(self, spec: LaunchSpec, workdir: Path) -> tuple: ...

    def environment(self, spec: LaunchSpec) -> dict[str, str]: ...


@dataclass(frozen=True)
class LaunchSpec:
    """What one launch runs: one framework, one rank count."""

    framework: Framework
    ranks: int
    model: str = "lenet"
    batch_size: int = 32  # per rank
    steps: int = 30  # timed steps per phase (synced, no-sync)
    warmup: int = 5
    threads: int = 1  # compute threads per rank
    device: str = "cpu"  # torch: cpu|cuda; MindSpore: CPU|GPU|Ascend (case-insensitive)
    timeout: float = 300.0  # whole launch, seconds; then the launch and every rank are killed
    python: Optional[str] = None  # interpreter whose bin/ holds the launchers (default: this one)
    extra_env: tuple = ()  # (name, value) pairs, e.g. the tests' fault hook
    rendezvous: Optional[CrossHost] = None  # ranks across hosts: multinode.Rendezvous (probes/scaling/multinode.py)

    @property
    def on_cpu(self) -> bool:
        return self.device.lower() == "cpu"


@dataclass
class LaunchOutcome:
    status: Status
    command: list
    result: Optional[dict] = None  # rank 0's result.json
    error: Optional[str] = None  # why it is not ok, in one line
    returncode: Optional[int] = None
    seconds: float = 0.0  # launcher start to launcher exit (or kill)
    output_tail: str = ""  # launcher output, then the tails of the worker logs
    marker: str = ""  # the MARKER_ENV value every process of this launch carried

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def free_port() -> int:
    """A free TCP port on loopback for this run's msrun master (a fixed port collides between runs)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def launcher_prefix(framework: Framework, python: Optional[str] = None) -> list:
    """The launcher's argv prefix: its console script next to the interpreter, else the module."""
    python = python or sys.executable
    exe = Path(python).parent / LAUNCHERS[framework]
    if exe.is_file() and os.access(exe, os.X_OK):
        return [str(exe)]
    return [python, *LAUNCHER_MODULES[framework]]


def rank_arguments(spec: LaunchSpec, result_dir: Path) -> list:
    return [
        "--model",
        spec.model,
        "--batch-size",
        str(spec.batch_size),
        "--warmup",
        str(spec.warmup),
        "--steps",
        str(spec.steps),
        "--threads",
        str(spec.threads),
        "--device",
        spec.device,
        "--result-dir",
        str(result_dir),
        "--wait",
        str(int(max(30.0, spec.timeout / 2))),
    ]


def torchrun_command(spec: LaunchSpec, result_dir: Path) -> list:
    # --standalone: a private rendezvous on a free local port (it overrides MASTER_ADDR/PORT);
    # --max-restarts=0: a crashing rank fails the run instead of being silently restarted.
    return [
        *launcher_prefix("pytorch", spec.python),
        "--standalone",
        f"--nproc_per_node={spec.ranks}",
        "--max-restarts=0",
        str(RANK_SCRIPTS["pytorch"]),
        *rank_arguments(spec, result_dir),
    ]


def msrun_command(spec: LaunchSpec, result_dir: Path, log_dir: Path, port: int) -> list:
    # --join=True: wait for the workers (without it msrun returns at once and the exit code is
    # lost); --cluster_time_out bounds how long the cluster waits for a missing worker.
    return [
        *launcher_prefix("mindspore", spec.python),
        f"--worker_num={spec.ranks}",
        f"--local_worker_num={spec.ranks}",
        "--master_addr=127.0.0.1",
        f"--master_port={port}",
        "--join=True",
        f"--cluster_time_out={int(max(30.0, min(spec.timeout, 600.0)))}",
        f"--log_dir={log_dir}",
        str(RANK_SCRIPTS["mindspore"]),
        *rank_arguments(spec, result_dir),
    ]


def _is_x86() -> bool:
    return platform.machine().lower() in ("x86_64", "amd64", "i686", "x86")


def launch_environment(spec: LaunchSpec, marker: str) -> dict:
    """The allow-listed child environment plus what each engine needs (see measured-here.md)."""
    extra: dict = {MARKER_ENV: marker, "OMP_NUM_THREADS": str(spec.threads)}
    drop: tuple = ()
    if spec.framework == "pytorch":
        # torch reads the oneDNN ISA cap too and gets slower under it: never for torch.
        drop = ("ONEDNN_MAX_CPU_ISA",)
        if spec.on_cpu and not os.environ.get("GLOO_SOCKET_IFNAME"):
            extra["GLOO_SOCKET_IFNAME"] = "lo"  # all ranks on this host: loopback only
    else:
        extra["GLOG_v"] = os.environ.get("GLOG_v", "3")
        if spec.on_cpu and _is_x86():
            # MindSpore's oneDNN picks reference conv kernels on AVX-512 CPUs; the cap restores JIT.
            extra["ONEDNN_MAX_CPU_ISA"] = os.environ.get("ONEDNN_MAX_CPU_ISA", "AVX2")
    if spec.rendezvous is not None:  # across hosts: node rank, gloo's interface (multinode.py)
        extra.update(spec.rendezvous.environment(spec))
    extra.update(dict(spec.extra_env))
    env = child_environment(extra, drop)
    # child_environment puts sys.executable's bin first; msrun starts `python` from PATH, so the
    # interpreter asked for must come first when it is another one.
    if spec.python:
        env["PATH"] = str(Path(spec.python).parent) + os.pathsep + env["PATH"]
    return env


def build_command(spec: LaunchSpec, workdir: Path) -> tuple:
    """(argv, result_dir, log_dir) for one launch inside `workdir`."""
    if spec.rendezvous is not None:  # across hosts: the engines' multi-node flags (multinode.py)
        return spec.rendezvous.build_command(spec, workdir)
    result_dir, log_dir = workdir / "result", workdir / "logs"
    result_dir.mkdir(parents=True, exist_ok=True)
    log_dir.mkdir(parents=True, exist_ok=True)
    if spec.framework == "pytorch":
        return torchrun_command(spec, result_dir), result_dir, log_dir
    return msrun_command(spec, result_dir, log_dir, free_port()), result_dir, log_dir


# ------------------------------------------------------------------------------------------ kill


def _runs_rank_script(pid: int) -> bool:
    """The rank script itself, not msrun's log-tailing helpers (which carry the same RANK_ID)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return RANK_SCRIPTS["mindspore"].name.encode() in fh.read()
    except OSError:
        return False


class WorkerWatch:
    """msrun notices a dead worker at once but then waits for its scheduler's heartbeat timeout
    (~30-45 s measured) before exiting. Watch the workers ourselves: a rank whose processes are
    gone without its rank<r>.json written died early, and the launch fails now."""

    def __init__(self, marker: str, result_dir: Path) -> None:
        self.marker, self.result_dir = marker, result_dir
        self.seen: set = set()
        self.missing: dict = {}  # rank -> the check at which its processes were first gone
        self.checks = 0

    def dead_ranks(self) -> Optional[list]:
        alive = set()
        for pid, env in marked_processes(self.marker).items():
            if env.get("MS_ROLE") == "MS_WORKER" and env.get("RANK_ID", "").isdigit() and _runs_rank_script(pid):
                alive.add(int(env["RANK_ID"]))
        self.seen |= alive
        self.checks += 1
        for rank in alive:
            self.missing.pop(rank, None)
        for rank in self.seen - alive:
            if not (self.result_dir / f"rank{rank}.json").exists():  # else: finished normally
                self.missing.setdefault(rank, self.checks)
        # Gone for 4 checks (~1 s: not a race with writing its file). msrun then kills the other
        # workers, so report the rank(s) gone first.
        gone = [(first, rank) for rank, first in self.missing.items() if self.checks - first >= 3]
        if not gone:
            return None
        earliest = min(first for first, _ in gone)
        return sorted(rank for first, rank in gone if first == earliest)


def kill_launch(proc: subprocess.Popen, marker: str) -> None:
    """SIGKILL the launcher's group, every rank's group, and anything else carrying the marker."""
    kill_tree(proc, marker)


# ---------------------------------------------------------------------------------------- launch


def _tail(path: Path, limit: int = 3000) -> str:
    return launcher.tail(path, limit)


def _torchrun_root_cause(text: str) -> str:
    """torchrun's failure summary names the first failing rank and its exit code."""
    _, found, rest = text.rpartition("Root Cause")
    if not found:
        return ""
    fields = {}
    for ln in rest.splitlines():
        key, sep, value = ln.strip().partition(":")
        if sep and key.strip() in ("rank", "exitcode") and key.strip() not in fields:
            fields[key.strip()] = value.strip()
    if "rank" not in fields:
        return ""
    code = fields.get("exitcode", "?").split(" (pid")[0].strip()
    return f"rank {fields['rank'].split(' ')[0]} failed first (exit code {code})"


def _error_line(text: str) -> str:
    cause = _torchrun_root_cause(text)
    body = text.split("ChildFailedError")[0]  # a rank's own exception comes before the summary
    lines = [ln.strip() for ln in body.splitlines() if ln.strip()]
    detail = ""
    for ln in reversed(lines):
        if ("Error" in ln or "Exception" in ln) and not ln.startswith(("File ", "raise ")):
            detail = ln[:300]
            break
    if cause:
        return f"{cause}: {detail}" if detail and "elastic" not in detail else cause
    return detail or (lines[-1][:300] if lines else "")


def _dead_rank_error(dead: list, log_dir: Path) -> str:
    """Name the rank that died first; when several vanished together (msrun kills the rest at
    once), the one whose worker log holds an error is the culprit."""
    for rank in dead:
        detail = _error_line(_tail(log_dir / f"worker_{rank}.log"))
        if detail and ("Error" in detail or "Exception" in detail):
            return (
                f"rank {rank} exited before finishing (crashed): {detail}; msrun was stopped "
                "without waiting for its scheduler's heartbeat timeout"
            )
    who = f"rank {dead[0]}" if len(dead) == 1 else f"ranks {', '.join(map(str, dead))} (which went first is unknown)"
    return (
        f"{who} exited before finishing (crashed, no error in its log); msrun was stopped "
        "without waiting for its scheduler's heartbeat timeout"
    )


class _ProgressFile:
    """Rank 0's progress file, passed on to `on_progress(stage, fraction)` when it changes."""

    def __init__(self, path: Path, on_progress: Callable[[str, float], None]) -> None:
        self.path, self.on_progress, self.seen = path, on_progress, None

    def poll(self) -> None:
        try:
            mtime = self.path.stat().st_mtime
            if mtime == self.seen:
                return
            doc = json.loads(self.path.read_text())
        except (OSError, ValueError):  # not written yet, or caught mid-write: next tick
            return
        self.seen = mtime
        try:
            self.on_progress(str(doc.get("stage", "")), float(doc.get("fraction", 0.0)))
        except Exception:  # a display problem must not kill the run
            pass


def run_launch(
    spec: LaunchSpec,
    cancel: Optional[Cancel] = None,
    keep_workdir: bool = False,
    workdir: Optional[Path] = None,
    on_progress: Optional[Callable[[str, float], None]] = None,
) -> LaunchOutcome:
    """Run one launch to its end, a timeout or a cancel. Never raises for a failing run.
    `on_progress(stage, fraction)` is called as rank 0 moves through its steps."""
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = stack.enter_context(launcher.workdir("advisor-scaling-", keep=keep_workdir))
        return _launch(spec, Path(workdir), cancel, on_progress)


def _launch(
    spec: LaunchSpec, workdir: Path, cancel: Optional[Cancel], on_progress: Optional[Callable[[str, float], None]]
) -> LaunchOutcome:
    marker = uuid.uuid4().hex
    command, result_dir, log_dir = build_command(spec, workdir)
    env = launch_environment(spec, marker)
    launcher.fallback_caches(env, workdir)
    out = LaunchOutcome(status="failed", command=command, marker=marker)
    launcher_log = workdir / "launcher.log"
    start = time.monotonic()
    with open(launcher_log, "wb") as log:
        env[rank_common.T0_ENV] = repr(time.time())
        try:
            proc = subprocess.Popen(
                command,
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            out.error = f"could not start {command[0]}: {exc}"
            return out
        progress = _ProgressFile(result_dir / rank_common.PROGRESS_NAME, on_progress) if on_progress else None
        watch = WorkerWatch(marker, result_dir) if spec.framework == "mindspore" else None
        dead_ranks: list = []

        def tick() -> bool:
            if progress is not None:
                progress.poll()
            if watch is not None:
                dead_ranks[:] = watch.dead_ranks() or []
            return bool(dead_ranks)

        with launcher.supervised(lambda: kill_launch(proc, marker)):
            # The worker watch counts checks at 0.25 s (see WorkerWatch); a progress line needs less.
            how = launcher.wait(
                proc,
                spec.timeout,
                cancel,
                start=start,
                tick=tick if (progress or watch) else None,
                tick_seconds=0.25 if watch else 0.5,
            )
            out.seconds = time.monotonic() - start
            # Always sweep: on success nothing is left, on failure ranks may still be running.
            kill_launch(proc, marker)
            proc.wait()
    if how == "cancelled":
        out.status, out.error = "cancelled", "cancelled by the user"
    elif how == "timeout":
        out.status = "timeout"
        out.error = (
            f"{LAUNCHERS[spec.framework]} with {spec.ranks} ranks did not finish "
            f"within {spec.timeout:.0f} s (a rank hung?); every process was killed"
        )
    out.returncode = proc.returncode
    out.output_tail = _collect_tails(launcher_log, log_dir)
    if dead_ranks:
        out.error = _dead_rank_error(dead_ranks, log_dir)
    result_file = result_dir / rank_common.RESULT_NAME
    if result_file.exists():
        try:
            out.result = json.loads(result_file.read_text())
        except ValueError as exc:
            out.result, out.error = None, f"unreadable {rank_common.RESULT_NAME}: {exc}"
    if out.status in ("timeout", "cancelled") or out.error:
        return out
    if out.result is not None and "error" in out.result:
        out.error = f"rank 0: {out.result['error']}"
    elif proc.returncode != 0:
        detail = _error_line(out.output_tail)
        out.error = f"{LAUNCHERS[spec.framework]} exit code {proc.returncode}" + (f": {detail}" if detail else "")
    elif out.result is None:
        out.error = f"{LAUNCHERS[spec.framework]} exited 0 but rank 0 wrote no {rank_common.RESULT_NAME}"
    else:
        out.status = "ok"
    return out


def _collect_tails(launcher_log: Path, log_dir: Path) -> str:
    parts = [_tail(launcher_log)]
    for p in sorted(log_dir.glob("*.log")):  # msrun's worker_N.log / scheduler.log
        parts.append(f"--- {p.name}\n{_tail(p, 1500)}")
    return "\n".join(x for x in parts if x)
