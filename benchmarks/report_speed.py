"""How fast is one report? Prints CPU-seconds and call counts (not a timed test; the numbers depend on the machine).

For each bundled example: the CPU time of one `build_report` (the median of a few, after one warm-up
that fills the caches of the knowledge base's pure look-ups the way a running TUI has them): this is
what the TUI's verdict takes after an edit (the app rebuilds the report with the knowledge base already
loaded). Then the number of calls to `score`, `prepare` and `evaluate` in one build (counted by the
profiler, so exact), and `advisor report` end to end (a fresh interpreter, its own CPU time and its
children's): with compiled bytecode as an installed tool runs, with the parsed knowledge base in the
user cache (knowledge.parse_cache) as every run after the first has it, and the first run's figure
(empty cache) beside it.

Beside each: the figures of the session start (2026-12-03 13:20, commit cb9b62f, before the speed
work: no parsed-knowledge-base cache, the requirements' docstrings read per class, every evaluation of
the constant search whole), measured by this script with `--root` on that checkout on the same 2-core
host, which four other processes shared (load ~5): CPU-seconds under load read high, so a fair
before/after runs `--root` on the old checkout right before this one. The load-free figure is the
instruction count (valgrind --tool=callgrind, one `advisor report` of the bundled example with compiled
bytecode and a filled user cache): 4.75 G instructions at the session start, 3.91 G after (-18%).
For the record, before the decision pipeline was made to score once: build_report 1.44 CPU-s with 49
score calls for prototype-then-ascend, 2.0 CPU-s with 56 for nvidia-research-team; `advisor report`
~2.9 CPU-s. (`/usr/bin/time advisor report ...` at the session start said 1.67 user-s: that shell sets
PYTHONDONTWRITEBYTECODE, so every module was compiled from source on each run; `--from-source` prints
that figure too.)

Usage: python benchmarks/report_speed.py [--repeats N] [--root CHECKOUT] [--from-source]
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

# The session start (CPU-s of one build_report, score calls per build), measured by this script (load ~5).
BEFORE = {
    "ascend-production": (0.33, 47),
    "nvidia-research-team": (0.37, 54),
    "prototype-then-ascend": (0.38, 47),
}
BEFORE_CLI = 1.30  # `advisor report` on the bundled example, CPU-s, end to end, bytecode compiled (load ~5)
BEFORE_CLI_SOURCE = 1.67  # the same from source (no bytecode), /usr/bin/time user-s at the session start
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


def _cli_cpu(root: Path, example: Path, pycache: str | None, cache_home: str) -> float:
    """`advisor report EXAMPLE --json` in a fresh interpreter: its CPU time and its children's. With
    `pycache` (a throw-away PYTHONPYCACHEPREFIX, filled by a warm-up run) compiled bytecode is kept, as
    an installed tool runs (pip compiles on install), even where the shell sets PYTHONDONTWRITEBYTECODE;
    with None every module is compiled from source. `cache_home`: the XDG_CACHE_HOME it runs with."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    env.update(PYTHONPATH=str(root), GLOG_v="3", XDG_CACHE_HOME=cache_home)
    if pycache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env["PYTHONPYCACHEPREFIX"] = pycache
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


def _was(value: float | int | None, fmt: str = "") -> str:
    return format(value, fmt) if value else "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (e.g. the main branch's)")
    ap.add_argument("--from-source", action="store_true", help="also `advisor report` with no bytecode kept")
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
        f"{'example':<26} {'build CPU-s':>11} {'before':>7} {'score':>6} {'before':>7} {'prepare':>8} "
        f"{'reprepare':>10} {'evaluate':>9}"
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
            f"{example.stem:<26} {statistics.median(cpu):11.2f} {_was(was_cpu, '.2f'):>7} "
            f"{n['score']:6d} {_was(was_calls):>7} {n['prepare']:8d} {n['reprepare']:10d} {n['evaluate']:9d}"
        )
    print("(build CPU-s: one build_report with the knowledge base loaded, what the TUI's verdict takes after an edit)")
    bundled = root / "examples" / "prototype-then-ascend.yaml"
    with tempfile.TemporaryDirectory() as pycache, tempfile.TemporaryDirectory() as cache_home:
        _cli_cpu(root, bundled, pycache, cache_home)  # warm-up: compiles the bytecode, fills the user cache
        first = _cli_cpu(root, bundled, pycache, tempfile.mkdtemp(dir=cache_home))  # compiled, empty cache
        cli = statistics.median(_cli_cpu(root, bundled, pycache, cache_home) for _ in range(args.repeats))
        print(
            f"advisor report {bundled.name}: {cli:.2f} CPU-s end to end (session start: {_was(BEFORE_CLI, '.2f')}); "
            f"the first run, with an empty user cache: {first:.2f}"
        )
        if args.from_source:
            src = statistics.median(_cli_cpu(root, bundled, None, cache_home) for _ in range(args.repeats))
            print(f"  from source (no bytecode kept): {src:.2f} CPU-s (session start: {BEFORE_CLI_SOURCE} user-s)")


if __name__ == "__main__":
    main()
