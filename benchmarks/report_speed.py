"""How fast is one report? Prints CPU-seconds and call counts (not a timed test; the numbers depend on the machine).

For each bundled example: the CPU time of one `build_report` (the median of a few, after one warm-up
that fills the caches of the knowledge base's pure look-ups the way a running TUI has them), the number
of calls to `score`, `prepare` and `evaluate` in one build (counted by the profiler, so exact), and
`advisor report` end to end (a fresh interpreter, its own CPU time and its children's).

Beside each: the figures measured on the main branch before the decision pipeline was made to score
once (2026-12-03, the same 2-core host): build_report 1.44 CPU-s with 49 score calls for
prototype-then-ascend, 2.0 CPU-s with 56 for nvidia-research-team; `advisor report` ~2.9 CPU-s.

Usage: python benchmarks/report_speed.py [--repeats N]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Measured on main before the change (CPU-s of one build_report, score calls per build).
BEFORE = {
    "prototype-then-ascend": (1.44, 49),
    "nvidia-research-team": (2.0, 56),
}
BEFORE_CLI = 2.9  # `advisor report` on the bundled example, CPU-s, end to end
COUNTED = ("score", "prepare", "evaluate")


def _counts(fn) -> dict[str, int]:
    prof = cProfile.Profile()
    prof.runcall(fn)
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    out = dict.fromkeys(COUNTED, 0)
    for (path, _line, name), (_cc, calls, *_rest) in stats.items():
        if name in out and "advisor/decision/" in path.replace(os.sep, "/"):
            out[name] += calls
    return out


def _cli_cpu(example: Path, pycache: str) -> float:
    """`advisor report EXAMPLE --json` in a fresh interpreter: its CPU time and its children's. With
    compiled bytecode, as an installed tool runs (pip compiles on install), even where the shell sets
    PYTHONDONTWRITEBYTECODE: `pycache` is a throw-away PYTHONPYCACHEPREFIX filled by a warm-up run."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(ROOT), GLOG_v="3", PYTHONPYCACHEPREFIX=pycache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-m", "advisor", "report", str(example), "--json"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    import knowledge
    from advisor.measurements import Measurements
    from advisor.report import build_report
    from advisor.requirements import load_requirements

    kb = knowledge.load()
    print(f"{'example':<26} {'CPU-s':>7} {'before':>7} {'score':>6} {'before':>7} {'prepare':>8} {'evaluate':>9}")
    for example in sorted((ROOT / "examples").glob("*.yaml")):
        req = load_requirements(example)

        def build() -> None:
            build_report(req, Measurements(), kb=kb, created_at="2026-12-03T00:00:00Z")

        build()  # warm-up
        cpu = []
        for _ in range(args.repeats):
            t0 = time.process_time()
            build()
            cpu.append(time.process_time() - t0)
        n = _counts(build)
        was_cpu, was_calls = BEFORE.get(example.stem, (None, None))
        print(
            f"{example.stem:<26} {statistics.median(cpu):7.2f} {was_cpu if was_cpu else '-':>7} "
            f"{n['score']:6d} {was_calls if was_calls else '-':>7} {n['prepare']:8d} {n['evaluate']:9d}"
        )
    bundled = ROOT / "examples" / "prototype-then-ascend.yaml"
    with tempfile.TemporaryDirectory() as pycache:
        _cli_cpu(bundled, pycache)  # warm-up: compiles the bytecode
        cli = statistics.median(_cli_cpu(bundled, pycache) for _ in range(args.repeats))
    print(f"advisor report {bundled.name}: {cli:.2f} CPU-s end to end (before: ~{BEFORE_CLI} CPU-s)")


if __name__ == "__main__":
    main()
