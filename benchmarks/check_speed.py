"""How fast is `advisor check`? Prints ratios (not a timed test; the numbers depend on the machine).

- `advisor check --json` (real smoke tests, parallel children) against the yardstick a user feels:
  the slower of a bare `import torch` and a bare `import mindspore`, each in a fresh interpreter.
  Target: at most 1.1x (the smoke children run in parallel, so the floor is about the slower import
  plus its smoke test; the parent's own work overlaps them). The older figure against the sum of
  both imports is printed too.
- `advisor check --json --no-smoke`: its own work, i.e. wall time minus a bare interpreter start
  (`python -c pass`), and the time run_check reports for itself. Target: under 1 s.

Runs are interleaved (A B C A B C ...) so a burst of load on a shared machine hits every variant;
the median of the repeats is reported, with min-max, and the ratio is also taken pair by pair
(each `check --json` against the slower import of its own round), whose median is the headline.

On a shared machine, load from other users moves every wall time; the ratios are taken within a
round, the load average is printed per round, and `--baseline DIR` (repeatable) adds `check --json`
of another checkout (e.g. the main branch) to each round, for a before/after under the same load.

Every variant runs with compiled bytecode, as an installed tool does (pip compiles on install): a
throw-away PYTHONPYCACHEPREFIX, filled by one untimed warm-up round, even where the shell sets
PYTHONDONTWRITEBYTECODE (then each run would compile the project's own modules again, ~0.05 s).

Usage: python benchmarks/check_speed.py [--repeats N] [--baseline DIR ...]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV.update({"GLOG_v": "3", "PYTHONPATH": str(ROOT)})


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


CPU: dict[str, list[float]] = {}


def timed(args: list[str], name: str = "", root: Path = ROOT) -> tuple[float, str]:
    cpu_start = _children_cpu()
    start = time.perf_counter()
    env = {**ENV, "PYTHONPATH": str(root)}
    proc = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=root, env=env, stdin=subprocess.DEVNULL
    )
    seconds = time.perf_counter() - start
    # CPU time of the process and its children (smoke workers): unlike wall time, it does not grow
    # when other users load the machine.
    CPU.setdefault(name, []).append(_children_cpu() - cpu_start)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{args} failed ({proc.returncode}): {proc.stderr[-500:]}")
    return seconds, proc.stdout


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):6.2f} s (min {min(values):.2f}, max {max(values):.2f}, n={len(values)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--baseline",
        type=Path,
        action="append",
        default=[],
        help="another checkout whose `check --json` joins each round (repeatable)",
    )
    args = parser.parse_args()
    ENV["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="check-speed-pyc-")

    variants = {
        "python -c pass": ["-c", "pass"],
        "import torch": ["-c", "import torch"],
        "import mindspore": ["-c", "import mindspore"],
        "check --json": ["-m", "advisor", "check", "--json"],
        "check --json --no-smoke": ["-m", "advisor", "check", "--json", "--no-smoke"],
    }
    roots = {name: ROOT for name in variants}
    baselines = []
    for path in args.baseline:
        name = f"check --json ({path.resolve().name})"
        variants[name], roots[name] = variants["check --json"], path.resolve()
        baselines.append(name)
    for name, argv in variants.items():  # warm-up: bytecode compiled, caches (oneDNN, ORT) filled
        timed(argv, "warm-up", roots[name])
    times: dict[str, list[float]] = {k: [] for k in variants}
    own_reported: list[float] = []
    loads: list[float] = []
    load_before = os.getloadavg()[0]
    for _ in range(args.repeats):
        loads.append(os.getloadavg()[0])
        for name, argv in variants.items():
            seconds, out = timed(argv, name, roots[name])
            times[name].append(seconds)
            if name == "check --json --no-smoke":
                own_reported.append(json.loads(out)["seconds"])
    load_after = os.getloadavg()[0]

    med = {k: statistics.median(v) for k, v in times.items()}
    bare = med["import torch"] + med["import mindspore"]
    slower = max(med["import torch"], med["import mindspore"])
    print(f"machine: {os.cpu_count()} CPUs, load average {load_before:.2f} before, {load_after:.2f} after")
    print("load average at the start of each round: " + ", ".join(f"{x:.1f}" for x in loads))
    for name, values in times.items():
        print(f"  {name:<26} {summary(values)}   CPU {statistics.median(CPU[name]):.2f} s")
    print()
    pairs = [c / max(t, m) for c, t, m in zip(times["check --json"], times["import torch"], times["import mindspore"])]
    ratio = statistics.median(pairs)
    print(
        f"check --json / slower bare import (per round, median of {len(pairs)}): {ratio:.2f}x "
        f"(min {min(pairs):.2f}, max {max(pairs):.2f}; target <= 1.1x) {'OK' if ratio <= 1.1 else 'OVER'}"
    )
    print(f"check --json / slower bare import (medians): {med['check --json'] / slower:.2f}x")
    print("  per round: " + ", ".join(f"{x:.2f}" for x in pairs))
    for name in baselines:
        base = [b / max(t, m) for b, t, m in zip(times[name], times["import torch"], times["import mindspore"])]
        after = [c / b for c, b in zip(times["check --json"], times[name])]
        print(
            f"{name} / slower bare import (per round, median): {statistics.median(base):.2f}x "
            f"(per round: {', '.join(f'{x:.2f}' for x in base)}); "
            f"this tree / it (per round, median): {statistics.median(after):.2f}x"
        )
    # On a loaded machine the wall ratio flatters `check` (its two children draw two shares of the
    # CPU against the bare import's one). CPU time does not: an idle host with `cores` CPUs needs at
    # least CPU / cores of wall for the check, against the slower import's own CPU time.
    cores = os.cpu_count() or 1
    import_cpu = max(statistics.median(CPU["import torch"]), statistics.median(CPU["import mindspore"]))
    floors = {
        k: statistics.median(CPU[k]) / cores / import_cpu
        for k in CPU
        if k.startswith("check --json") and "no-smoke" not in k
    }
    print(
        f"CPU floor on an idle {cores}-CPU host (check CPU / {cores} / slower import's CPU, load-robust): "
        + "; ".join(f"{k}: {v:.2f}x" for k, v in floors.items())
    )
    print(f"check --json / both imports in sequence:     {med['check --json'] / bare:.2f}x  (the old yardstick)")
    own = med["check --json --no-smoke"] - med["python -c pass"]
    print(
        f"check --no-smoke own work (wall - python -c pass): {own:.2f} s  (target < 1 s) "
        f"{'OK' if own < 1.0 else 'OVER'}"
    )
    print(f"check --no-smoke run_check's own timer:             {statistics.median(own_reported):.2f} s")
    own_cpu = statistics.median(CPU["check --json --no-smoke"]) - statistics.median(CPU["python -c pass"])
    print(f"check --no-smoke own CPU time (user+sys - python -c pass): {own_cpu:.2f} s")
    return 0


if __name__ == "__main__":
    try:
        code = main()
    finally:
        if "PYTHONPYCACHEPREFIX" in ENV:
            shutil.rmtree(ENV["PYTHONPYCACHEPREFIX"], ignore_errors=True)
    sys.exit(code)
