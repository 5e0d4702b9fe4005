"""How fast is one report? Prints CPU-seconds and call counts (not a timed test; the numbers depend on the machine).

For each bundled example: the CPU time of one `build_report` (the median of a few, after one warm-up
that fills the caches of the knowledge base's pure look-ups the way a running TUI has them), the number
of calls to `score`, `prepare` and `evaluate` in one build (counted by the profiler, so exact), and
`advisor report` end to end (a fresh interpreter, its own CPU time and its children's).

Beside each: the figures measured on the main branch before the decision pipeline was made to score
once (2026-12-03, the same 2-core host): build_report 1.44 CPU-s with 49 score calls for
prototype-then-ascend, 2.0 CPU-s with 56 for nvidia-research-team; `advisor report` ~2.9 CPU-s.

Usage: python benchmarks/report_speed.py [--repeats N] [--root CHECKOUT]
(`--root /work/main` measures another checkout's code under the same load, for a before/after.)
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

# Measured on main before the change (CPU-s of one build_report, score calls per build).
BEFORE = {
    "prototype-then-ascend": (1.44, 49),
    "nvidia-research-team": (2.0, 56),
}
BEFORE_CLI = 2.9  # `advisor report` on the bundled example, CPU-s, end to end
# Counted by the profiler: a scorecard made (score_context; `score` where a checkout has no
# score_context), a full preparation (prepare_inputs; `prepare` before), a partial one (reprepared),
# an evaluation.
COUNTED = {
    "score_context": "score",
    "prepare_inputs": "prepare",
    "reprepared": "reprepare",
    "evaluate": "evaluate",
}
OLD_NAMES = {"score": "score", "prepare": "prepare"}


def _counts(fn) -> dict[str, int]:
    prof = cProfile.Profile()
    prof.runcall(fn)
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    found = {(name, path) for (path, _line, name) in stats if "advisor/decision/" in path.replace(os.sep, "/")}
    names = {n for n, _ in found}
    wanted = dict(COUNTED) if "score_context" in names else {**OLD_NAMES, "evaluate": "evaluate"}
    out = dict.fromkeys(COUNTED.values(), 0)
    for (path, _line, name), (_cc, calls, *_rest) in stats.items():
        if name in wanted and "advisor/decision/" in path.replace(os.sep, "/"):
            out[wanted[name]] += calls
    return out


def _cli_cpu(root: Path, example: Path, pycache: str) -> float:
    """`advisor report EXAMPLE --json` in a fresh interpreter: its CPU time and its children's. With
    compiled bytecode, as an installed tool runs (pip compiles on install), even where the shell sets
    PYTHONDONTWRITEBYTECODE: `pycache` is a throw-away PYTHONPYCACHEPREFIX filled by a warm-up run."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(root), GLOG_v="3", PYTHONPYCACHEPREFIX=pycache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-m", "advisor", "report", str(example), "--json"],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (e.g. the main branch's)")
    args = ap.parse_args()
    root = args.root.resolve()
    sys.path.insert(0, str(root))

    import knowledge
    from advisor.measurements import Measurements
    from advisor.report import build_report
    from advisor.requirements import load_requirements

    kb = knowledge.load()
    print(f"measuring {root}")
    print(
        f"{'example':<26} {'CPU-s':>6} {'before':>7} {'score':>6} {'before':>7} {'prepare':>8} {'reprepare':>10} "
        f"{'evaluate':>9}"
    )
    for example in sorted((root / "examples").glob("*.yaml")):
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
            f"{example.stem:<26} {statistics.median(cpu):6.2f} {was_cpu if was_cpu else '-':>7} "
            f"{n['score']:6d} {was_calls if was_calls else '-':>7} {n['prepare']:8d} {n['reprepare']:10d} "
            f"{n['evaluate']:9d}"
        )
    bundled = root / "examples" / "prototype-then-ascend.yaml"
    with tempfile.TemporaryDirectory() as pycache:
        _cli_cpu(root, bundled, pycache)  # warm-up: compiles the bytecode
        cli = statistics.median(_cli_cpu(root, bundled, pycache) for _ in range(args.repeats))
    print(f"advisor report {bundled.name}: {cli:.2f} CPU-s end to end (before: ~{BEFORE_CLI} CPU-s)")


if __name__ == "__main__":
    main()
