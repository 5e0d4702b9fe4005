"""Worker-side helpers shared by both framework workers (standard library only)."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time


def read_status_mb(field: str) -> float | None:
    """A memory field of /proc/self/status in MB (VmHWM: this process's own RSS high-water mark;
    ru_maxrss would inherit the parent's peak across fork/exec)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024.0
    except (OSError, ValueError, IndexError):
        pass
    if field == "VmHWM":  # not Linux: fall back, with the caveat recorded by the caller
        try:
            import resource

            kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            return kb / 1024.0 / (1024.0 if sys.platform == "darwin" else 1.0)
        except (ImportError, OSError, ValueError):  # no `resource` module (Windows) or no rusage
            return None
    return None


def cpu_snapshot() -> dict | None:
    """Host CPU seconds from /proc/stat and this process's own (all threads), taken at both ends of
    the measurement: the parent tells from them how much of the host other processes used while
    this run was timed (None where /proc/stat is unreadable)."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            head = fh.readline().split()
        fields = [int(x) for x in head[1:9]]
    except (OSError, ValueError):
        return None
    if not head or head[0] != "cpu" or len(fields) < 4:
        return None
    user, nice, system, idle, iowait, irq, softirq, steal = fields + [0] * (8 - len(fields))
    hz = float(os.sysconf("SC_CLK_TCK"))
    own = os.times()
    return {
        "busy_s": (user + nice + system + irq + softirq) / hz,
        "steal_s": steal / hz,
        "total_s": sum(fields) / hz,
        "self_cpu_s": own.user + own.system,
        "wall_s": time.monotonic(),
        "cpus": os.cpu_count() or 1,
    }


def cxx_compiler() -> str | None:
    """The C++ compiler torch.compile (inductor) would use, if any."""
    cxx = os.environ.get("CXX")
    if cxx and shutil.which(cxx):
        return shutil.which(cxx)
    for name in ("g++", "c++", "clang++"):
        path = shutil.which(name)
        if path:
            return path
    return None


def count_files(folder: str, limit: int = 100_000) -> int:
    """Files under `folder` (0 if it does not exist), counting stops at `limit`."""
    n = 0
    for _root, _dirs, files in os.walk(folder):
        n += len(files)
        if n >= limit:
            break
    return n


def parser(framework: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"probes.training.worker_{framework}")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="one timed training run")
    r.add_argument("--model", required=True)
    r.add_argument("--mode", required=True)
    r.add_argument("--batch-size", type=int, default=32)
    r.add_argument("--budget", type=float, default=6.0)
    r.add_argument("--threads", type=int, default=0)
    r.add_argument("--device", default="auto")
    r.add_argument("--data", default=None)
    r.add_argument("--max-steps", type=int, default=None)
    r.add_argument("--tuned", default="")
    r.add_argument(
        "--t-crit",
        type=float,
        required=True,
        help="t(0.975, 9) for the stop rule's batch-means interval (the parent computes it)",
    )
    a = sub.add_parser("aux", help="GEMM peak and parity arrays")
    a.add_argument("--out", required=True)
    a.add_argument("--models", default="")
    a.add_argument("--parity-batch", type=int, default=8)
    a.add_argument("--no-gemm", action="store_true")
    a.add_argument("--threads", type=int, default=0)
    a.add_argument("--device", default="auto")
    a.add_argument("--gemm-seconds", type=float, default=0.25)
    return p


GEMM_SIZES = (256, 512, 1024, 2048)
GEMM_SIZES_ACCEL = (4096, 8192)  # an accelerator needs large products to reach its peak


def worker_main(framework: str, cmd_run, cmd_aux, argv=None) -> int:
    """A worker's entry point: run the command; any exception goes back as an 'error' message."""
    import traceback

    from probes import channel

    args = parser(framework).parse_args(argv)
    try:
        return cmd_run(args) if args.cmd == "run" else cmd_aux(args)
    except Exception as exc:  # every failure of a worker becomes an error message for the parent
        tb = traceback.format_exc(limit=3)
        channel.send("error", message=f"{type(exc).__name__}: {exc}"[:500], traceback=tb[-2000:])
        return 1
