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
    python benchmarks/mutation_check.py --sample 20 --package decision --survivors /tmp/s.txt
Exit 0 when every planted bug is killed and each package's score reaches --min-score; 1 otherwise;
2 when the unmutated tests fail or a planted bug's text moved.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from mutation import engine  # noqa: E402
from mutation.operators import Mutant, mutants_of  # noqa: E402
from mutation.outcome import KILLED  # noqa: E402
from mutation.planted import PLANTED, Planted  # noqa: E402
from mutation.targets import TARGETS, test_files  # noqa: E402

STATES = ("killed", "errored", "timeout", "crashed", "survived", "not covered")


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
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "mutation.outcome"]
    start = time.monotonic()
    try:
        subprocess.run([*cmd, "-m", "not slow", *args], cwd=tree, env=env, capture_output=True, timeout=timeout)
        summary = json.loads(Path(outcome).read_text(encoding="utf-8") or "{}")
        return summary.get("state", "crashed"), summary.get("by", ""), time.monotonic() - start
    except subprocess.TimeoutExpired:
        return engine.TIMEOUT, "", time.monotonic() - start
    finally:
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
    """Changes when any file the baseline read changes: the project's code, data and tests."""
    digest = hashlib.sha256()
    for rel in sorted(_tracked()):
        if rel.startswith(("advisor/", "probes/", "knowledge/", "tests/")) and (ROOT / rel).is_file():
            digest.update(rel.encode() + b"\0" + (ROOT / rel).read_bytes())
    digest.update(json.dumps([paths, test_files]).encode())
    return digest.hexdigest()[:16]


def _sample(mutants: list[Mutant], every: int) -> list[Mutant]:
    """Every n-th mutant in a stable order (same sample every run)."""
    return mutants[::every] if every > 1 else mutants


def run_generated(args: argparse.Namespace) -> dict[str, Counter]:
    targets = [t for t in TARGETS if not args.package or t[0] in args.package]
    files = args.tests or test_files({package for package, _, _ in targets})
    paths = [path for _, path, _ in targets]
    package_of = {path: package for package, path, _ in targets}
    mutants = [m for _, path, functions in targets for m in mutants_of(ROOT, path, functions)]
    mutants = _sample(mutants, args.sample)
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
    patcher = engine.Patcher(ROOT, paths)
    scores: dict[str, Counter] = defaultdict(Counter)
    survivors: list[str] = []

    def report(m: Mutant, state: str, by: str, seconds: float) -> None:
        scores[package_of[m.path]][state] += 1
        if state != KILLED:
            survivors.append(f"{m.path}:{m.line} {m.function} [{m.operator}] {m.before} -> {m.after}  ({state})")
        if args.verbose or state != KILLED:
            print(f"  {state:11} {seconds:4.1f} s {m.path}:{m.line} [{m.operator}] {m.before} -> {m.after}", flush=True)

    engine.run_all(ROOT, patcher, mutants, records, args.budget, report)
    if args.survivors:
        Path(args.survivors).write_text("\n".join(survivors) + "\n", encoding="utf-8")
    return scores


def table(scores: dict[str, Counter]) -> list[str]:
    head = f"| package | mutants | {' | '.join(STATES)} | score |"
    lines = [head, "|" + "---|" * (len(STATES) + 3)]
    total: Counter = Counter()
    for package, counts in scores.items():
        total.update(counts)
        lines.append(_row(package, counts))
    lines.append(_row("all", total))
    return lines


def _row(name: str, counts: Counter) -> str:
    n = sum(counts.values())
    cells = " | ".join(str(counts[s]) for s in STATES)
    return f"| {name} | {n} | {cells} | {score(counts):.0%} |"


def score(counts: Counter) -> float:
    n = sum(counts.values())
    return counts[KILLED] / n if n else 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--planted", action="store_true", help="only the planted bugs")
    which.add_argument("--generated", action="store_true", help="only the generated mutants")
    parser.add_argument("--only", help="comma list of planted bug names")
    parser.add_argument("--package", action="append", help="generated mutants of this package only (repeatable)")
    parser.add_argument("--tests", action="append", help="test files for the generated mutants (repeatable)")
    parser.add_argument("--sample", type=int, default=1, metavar="N", help="every N-th generated mutant")
    parser.add_argument("--budget", type=float, default=5.0, help="baseline seconds of tests per mutant")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per planted bug's pytest run")
    parser.add_argument("--min-score", type=float, default=0.0, help="fail when a package kills less (0-1)")
    parser.add_argument("--survivors", help="write the mutants not killed to this file")
    parser.add_argument("-v", "--verbose", action="store_true", help="print killed mutants too")
    args = parser.parse_args(argv)
    start = time.monotonic()
    code = 0
    if not args.generated:
        chosen = [p for p in PLANTED if not args.only or p.name in args.only.split(",")]
        print(f"planted bugs ({len(chosen)}):", flush=True)
        killed, code = run_planted(chosen, args.timeout)
        print(f"{killed} of {len(chosen)} planted bugs killed")
        code = code or (0 if killed == len(chosen) else 1)
    if not args.planted:
        scores = run_generated(args)
        print("\n".join(table(scores)))
        low = [p for p, c in scores.items() if score(c) < args.min_score]
        if low:
            print(f"below {args.min_score:.0%}: {', '.join(low)}")
            code = 1
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    print(
        f"mutation run: {time.monotonic() - start:.0f} s wall, {cpu:.0f} s CPU (a loaded host stretches the wall time)"
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
