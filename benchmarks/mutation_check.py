"""The mutation run: does the fast suite fail, by an assertion, when the code is wrong?

Two kinds of mutant. Planted bugs (mutation/planted.py): named bugs someone could really write, applied
to a copy of the tree, with the tests that claim to catch them. Generated mutants (mutation/operators.py):
every comparison negated, constant off by one, arithmetic, boolean or min/max operator swapped, argument
pair swapped and droppable statement dropped, inside the functions of the decision arithmetic, the cache
and writer, the probe result path and the renderers' number formatting (mutation/targets.py); each runs
only the tests that execute its line (mutation/engine.py).

A mutant is killed only by a failing assertion. A timeout, a crash at import and an exception that no
assertion checked are counted apart, never as killed; so is a mutant no fast test reaches.

    python benchmarks/mutation_check.py                   # planted bugs and every generated mutant
    python benchmarks/mutation_check.py --planted         # the planted bugs only (a few minutes)
    python benchmarks/mutation_check.py --sample 60 --seed 41 --package decision --survivors /tmp/s.txt
    python benchmarks/mutation_check.py --smoke           # is the runner still working (about a minute)
Exit 0 when every planted bug is killed and each package's score reaches --min-score; 1 otherwise;
2 when the unmutated tests fail or a planted bug's text moved.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from mutation import engine  # noqa: E402
from mutation.operators import Mutant, mutants_of  # noqa: E402
from mutation.equivalent import EQUIVALENT, equivalent_why  # noqa: E402
from mutation.outcome import CRASHED, ERRORED, KILLED, SURVIVED  # noqa: E402
from mutation.planted import PLANTED, Planted  # noqa: E402
from mutation.targets import TARGETS, test_files  # noqa: E402

STATES = (KILLED, SURVIVED, ERRORED, engine.TIMEOUT, CRASHED, engine.NOT_COVERED, EQUIVALENT)


def _tracked() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    return [raw.decode() for raw in listed if raw]


def _copy_tree(dest: Path) -> None:
    for rel in _tracked():
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)


def _pytest(tree: Path, args: tuple[str, ...], timeout: float) -> tuple[str, str, float]:
    """(state, deciding test, seconds) of a pytest child on the tree, judged by mutation.outcome."""
    fd, outcome = tempfile.mkstemp(prefix="mutation-outcome-", suffix=".json")
    os.close(fd)
    # Bytecode is written in the copy: the tests' own subprocesses then start from it instead of
    # compiling the project again each time.
    env = {
        **os.environ,
        "PYTHONPATH": f"{tree}{os.pathsep}{tree / 'benchmarks'}",
        "XDG_CACHE_HOME": str(tree / ".mutation-cache"),
        "MUTATION_OUTCOME": outcome,
    }
    cmd = [sys.executable, "-m", "pytest", "-q", "--tb=no", "-p", "no:cacheprovider", "-p", "mutation.outcome"]
    start = time.monotonic()
    # A session of its own, ended whole on a timeout; it ends itself if this process dies (mutation.bounded).
    child = subprocess.Popen(
        [*cmd, "-m", "not slow", *args],
        cwd=tree,
        env={**env, "MUTATION_PARENT": str(os.getpid())},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        child.wait(timeout=timeout)
        summary = json.loads(Path(outcome).read_text(encoding="utf-8") or "{}")
        return summary.get("state", "crashed"), summary.get("by", ""), time.monotonic() - start
    except subprocess.TimeoutExpired:
        return engine.TIMEOUT, "", time.monotonic() - start
    finally:
        if child.poll() is None:  # a timeout, or this run interrupted
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        os.unlink(outcome)


def run_planted(chosen: list[Planted], timeout: float) -> tuple[int, int]:
    """(killed, exit code so far) for the planted bugs, on a temporary copy of the tree."""
    tmp = Path(tempfile.mkdtemp(prefix="mutation-check-"))
    tree = tmp / "tree"
    try:
        _copy_tree(tree)
        for p in chosen:
            if (tree / p.path).read_text(encoding="utf-8").count(p.old) != 1:
                print(f"{p.name}: the planted text is not in {p.path} exactly once (the code moved): update it")
                return 0, 2
        # A selection that fails unmutated would count its mutants as killed: those are not judged.
        broken = set()
        for selection in dict.fromkeys(p.tests for p in chosen):
            state, by, secs = _pytest(tree, selection, timeout)
            if state != "survived":
                print(f"  baseline: {' '.join(selection)}: {state} unmutated ({by}) in {secs:.0f} s")
                broken.add(selection)
        killed = 0
        for p in chosen:
            if p.tests in broken:
                print(f"  {p.name:36} {'not judged':9}         its tests fail unmutated")
                continue
            path = tree / p.path
            original = path.read_text(encoding="utf-8")
            path.write_text(original.replace(p.old, p.new), encoding="utf-8")
            try:
                state, by, secs = _pytest(tree, p.tests, timeout)
            finally:
                path.write_text(original, encoding="utf-8")
            killed += state == KILLED
            print(
                f"  {p.name:36} {state:9} {secs:4.0f} s  {p.why}" + (f"\n  {'':36} by {by}" if by else ""), flush=True
            )
        return killed, 2 if broken else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _fingerprint(paths: list[str], test_files: list[str]) -> str:
    """Changes when any file the baseline read changes: the project's code and data, the chosen test
    files and what they share (conftest.py, fixtures, helpers), and the tracer; not another test file."""
    chosen = set(test_files)
    digest = hashlib.sha256()
    for rel in sorted(_tracked()):
        if not rel.startswith(("advisor/", "probes/", "knowledge/", "tests/")) or not (ROOT / rel).is_file():
            continue
        name = rel.rsplit("/", 1)[-1]
        if rel.startswith("tests/") and name.startswith("test_") and rel not in chosen:
            continue
        digest.update(rel.encode() + b"\0" + (ROOT / rel).read_bytes())
    digest.update(json.dumps([paths, test_files]).encode())
    digest.update((ROOT / "benchmarks" / "mutation" / "engine.py").read_bytes())  # how the baseline traces
    return digest.hexdigest()[:16]


def _sample(mutants: list[Mutant], size: int, seed: str, package_of: dict[str, str]) -> list[Mutant]:
    """`size` mutants of each package drawn at random, the same draw for the same seed and code (each
    package from its own generator, so choosing fewer packages leaves a package's draw unchanged); all of
    a package's mutants when it has no more than `size`, or when `size` is 0. Kept in the files' order."""
    if not size:
        return mutants
    by_package: dict[str, list[Mutant]] = defaultdict(list)
    for m in mutants:
        by_package[package_of[m.path]].append(m)
    chosen = set()
    for package, group in by_package.items():
        drawn = random.Random(f"{seed}:{package}").sample(group, size) if size < len(group) else group
        chosen.update(m.key for m in drawn)
    return [m for m in mutants if m.key in chosen]


def run_generated(args: argparse.Namespace) -> dict[str, Counter]:
    targets = [t for t in TARGETS if not args.package or t[0] in args.package]
    files = args.tests or test_files({package for package, _, _ in targets}, smoke=args.smoke)
    paths = [path for _, path, _ in targets]
    package_of = {path: package for package, path, _ in targets}
    mutants = [m for _, path, functions in targets for m in mutants_of(ROOT, path, functions)]
    if args.at:  # the mutants on these lines only (checking that a new test kills what it was written for)
        mutants = [m for m in mutants if f"{m.path}:{m.line}" in args.at]
    elif not args.smoke:  # drawn from every mutant, reached by a test or not, so the score is the package's
        mutants = _sample(mutants, args.sample, args.seed, package_of)
    print(f"{len(mutants)} generated mutants in {len(paths)} files; collecting and tracing the tests ...", flush=True)
    start = time.monotonic()
    test_ids = engine.prepare(ROOT, paths, files)
    cache = Path(tempfile.gettempdir()) / "advisor-mutation" / f"baseline-{_fingerprint(paths, files)}.json"
    records = engine.baseline(ROOT, paths, test_ids, cache)
    failing = sorted(t for t, r in records.items() if not r.passed)
    print(
        f"baseline: {len(records)} tests, {len(failing)} not passing (left out) in {time.monotonic() - start:.0f} s",
        flush=True,
    )
    if args.smoke:  # does the machinery still work: mutants the smoke's few test files reach
        reached = [m for m in mutants if engine.covering(records, m, args.budget)]
        mutants = _sample(reached, args.sample, args.seed, package_of)
        print(f"smoke: {len(mutants)} of the {len(reached)} mutants its tests reach, seed {args.seed}", flush=True)
    patcher = engine.Patcher(ROOT, paths)
    scores: dict[str, Counter] = defaultdict(Counter)
    survivors: list[str] = []

    def report(m: Mutant, state: str, by: str, seconds: float) -> None:
        scores[package_of[m.path]][state] += 1
        if state != KILLED:
            survivors.append(f"{m.path}:{m.line} {m.function} [{m.operator}] {m.before} -> {m.after}  ({state})")
        if args.verbose or state != KILLED:
            print(f"  {state:11} {seconds:4.1f} s {m.path}:{m.line} [{m.operator}] {m.before} -> {m.after}", flush=True)

    judged = []
    for m in mutants:
        why = equivalent_why(m, ROOT)
        if why:
            report(m, EQUIVALENT, why, 0.0)
        else:
            judged.append(m)
    rest = 0.0 if args.smoke else args.rest_budget  # the smoke only asks whether the runner still works
    engine.run_all(ROOT, patcher, judged, records, args.budget, report, rest)
    if args.survivors:
        Path(args.survivors).write_text("\n".join(survivors) + "\n", encoding="utf-8")
    return scores


def table(scores: dict[str, Counter]) -> list[str]:
    head = f"| package | mutants | {' | '.join(STATES)} | score |"
    lines = [head, "|" + "---|" * (len(STATES) + 3)]
    total: Counter = Counter()
    for package in sorted(scores):
        total.update(scores[package])
        lines.append(_row(package, scores[package]))
    lines.append(_row("all", total))
    return lines


def _row(name: str, counts: Counter) -> str:
    n = sum(counts.values())
    cells = " | ".join(str(counts[s]) for s in STATES)
    judged = score(counts)
    return f"| {name} | {n} | {cells} | {'-' if judged is None else f'{judged:.0%}'} |"


def score(counts: Counter) -> Optional[float]:
    """killed / (killed + survived): the mutants a test ran to the end on. Errors, timeouts, crashes, lines
    no test reaches and reviewed equivalents are counted apart (the table shows them); None when none."""
    judged = counts[KILLED] + counts[SURVIVED]
    return counts[KILLED] / judged if judged else None


# The smoke's planted bugs: one through each of the runner's paths that the generated smoke does not take
# (a copy of the tree, a pytest child, a named test): a formatting unit and a merged repeat.
SMOKE_PLANTED = ("days-as-hours-over-8", "repeat-keeps-best-interval")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--planted", action="store_true", help="only the planted bugs")
    which.add_argument("--generated", action="store_true", help="only the generated mutants")
    parser.add_argument("--only", help="comma list of planted bug names")
    parser.add_argument("--package", action="append", help="generated mutants of this package only (repeatable)")
    parser.add_argument("--tests", action="append", help="test files for the generated mutants (repeatable)")
    parser.add_argument(
        "--sample", type=int, default=0, metavar="N", help="N generated mutants per package, drawn at random (0: all)"
    )
    parser.add_argument("--seed", default="41", help="the random draw's seed (same seed and code, same mutants)")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="is the runner still working: --sample (default 3) reached mutants per package with a few fast "
        "test files each, and two planted bugs; fails when a mutant crashes or nothing is killed",
    )
    parser.add_argument("--at", action="append", metavar="PATH:LINE", help="only the mutants on this line (repeatable)")
    parser.add_argument(
        "--budget",
        type=float,
        default=15.0,
        help="seconds of the covering tests' traced baseline time per mutant, fastest tests first (tracing makes "
        "a test building a whole report look about 5 times slower than it runs)",
    )
    parser.add_argument(
        "--rest-budget",
        type=float,
        default=240.0,
        help="a mutant the budgeted tests let through then runs the rest of its covering tests, fastest first, "
        "up to this many more seconds of baseline time (0: only the budgeted ones)",
    )
    parser.add_argument("--timeout", type=float, default=600, help="seconds per planted bug's pytest run")
    parser.add_argument("--min-score", type=float, default=0.0, help="fail when a package kills less (0-1)")
    parser.add_argument("--survivors", help="write the mutants not killed to this file")
    parser.add_argument("-v", "--verbose", action="store_true", help="print killed mutants too")
    args = parser.parse_args(argv)
    if args.smoke:
        args.sample = args.sample or 3
        args.only = args.only or ",".join(SMOKE_PLANTED)
    start, load = time.monotonic(), os.getloadavg()[0]
    code = 0
    if not args.generated:
        chosen = [p for p in PLANTED if not args.only or p.name in args.only.split(",")]
        print(f"planted bugs ({len(chosen)}):", flush=True)
        killed, code = run_planted(chosen, args.timeout)
        print(f"{killed} of {len(chosen)} planted bugs killed")
        code = code or (0 if killed == len(chosen) else 1)
    if not args.planted:
        scores = run_generated(args)
        drawn = f"{args.sample} per package drawn with seed {args.seed}" if args.sample else "all"
        print(f"generated mutants: {drawn}; score = killed / (killed + survived)")
        print("\n".join(table(scores)))
        low = [p for p, c in scores.items() if (score(c) or 0.0) < args.min_score]
        if low:
            print(f"below {args.min_score:.0%}: {', '.join(low)}")
            code = 1
        if args.smoke:
            total = sum(scores.values(), Counter())
            if total[CRASHED] or not total[KILLED]:
                print(f"smoke: {total[CRASHED]} mutants crashed, {total[KILLED]} killed: the runner is broken")
                code = 1
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    print(
        f"mutation run: {time.monotonic() - start:.0f} s wall, {cpu:.0f} s CPU, load average {load:.1f} at the "
        f"start and {os.getloadavg()[0]:.1f} at the end (a loaded host stretches the wall time)"
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
