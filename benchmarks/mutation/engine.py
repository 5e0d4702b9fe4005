"""Running tests against generated mutants without re-importing the project for each one.

The parent imports the target modules and collects the test files once. A baseline child runs those tests
with a line tracer on the target files, so each mutant runs only the passing tests that execute its line.
Each mutant then runs in a forked child: the mutated function's code object replaces the original one in
every function object built from it (so `from x import f` elsewhere sees the change too), and pytest runs
the covering tests there, stopping at the first failing assertion. A child past its time is killed and
the mutant counted as a timeout, not as killed.
"""

from __future__ import annotations

import functools
import gc
import importlib
import json
import os
import signal
import sys
import tempfile
import time
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import pytest

from mutation.bounded import die_with_parent
from mutation.operators import Mutant, mutated_code
from mutation.outcome import SURVIVED, Outcome

TIMEOUT = "timeout"
# Caches of code no mutant touches and that calls none: kept warm across children.
_NEVER_MUTATED = ("knowledge.", "pydantic", "yaml", "numpy", "scipy", "textual", "rich", "re", "typing")
NOT_COVERED = "not covered"
# No tracebacks: the outcome is read from each report's exception type, and formatting a traceback whose
# locals hold a knowledge base or a report took a minute per failing test on a loaded host, which turned
# mutants that only raise (errored) into timeouts.
_PYTEST_ARGS = ["-q", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=", "-W", "ignore", "--tb=no"]


@dataclass
class TestRecord:
    seconds: float
    passed: bool
    lines: dict[str, list[int]]  # target path -> lines the test executed


def module_name(path: str) -> str:
    return path[: -len(".py")].replace("/", ".").removesuffix(".__init__")


def _quiet() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)


class _Collected:
    def __init__(self) -> None:
        self.ids: list[str] = []

    def pytest_collection_finish(self, session) -> None:
        self.ids = [item.nodeid for item in session.items]


def prepare(root: Path, paths: list[str], test_files: list[str]) -> list[str]:
    """Import the targets and collect the tests in this process (children inherit both); the test ids."""
    for path in paths:
        importlib.import_module(module_name(path))
    import knowledge

    knowledge.load()  # parsed once here: every child starts with the bundled knowledge base cached
    collected = _Collected()
    saved = os.dup(1), os.dup(2)
    _quiet()
    try:
        pytest.main([*_PYTEST_ARGS, "--collect-only", "-m", "not slow", *test_files], plugins=[collected])
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
    return collected.ids


class _Tracer:
    """Which target lines each test executes (threads included)."""

    def __init__(self, root: Path, paths: list[str]) -> None:
        self.files = {str(root / p): p for p in paths}
        self.current: Optional[set] = None
        self.records: dict[str, TestRecord] = {}

    def _local(self, frame, event, arg):
        if event == "line" and self.current is not None:
            self.current.add((frame.f_code.co_filename, frame.f_lineno))
        return self._local

    def _global(self, frame, event, arg):
        return self._local if frame.f_code.co_filename in self.files else None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        # Python turns a trace function off when it raises (a test of deeply nested input reaches the
        # recursion limit inside it): every test after that one would read as reaching no line, and its
        # mutants as not covered or surviving. Armed again before each test.
        if sys.gettrace() is None:
            sys.settrace(self._global)
        self.current = set()
        start = time.perf_counter()
        yield
        lines: dict[str, list[int]] = {}
        for filename, line in self.current:
            lines.setdefault(self.files[filename], []).append(line)
        record = self.records.get(item.nodeid)
        if record is not None:
            record.seconds = time.perf_counter() - start
            record.lines = lines
        self.current = None

    def pytest_runtest_logreport(self, report) -> None:
        record = self.records.setdefault(report.nodeid, TestRecord(0.0, True, {}))
        record.passed = record.passed and not report.failed and not (report.when == "call" and report.skipped)

    def start(self) -> None:
        import threading

        threading.settrace(self._global)
        sys.settrace(self._global)


def baseline(root: Path, paths: list[str], test_ids: list[str], cache: Path) -> dict[str, TestRecord]:
    """Every collected test run once, traced, in a child; kept in `cache` until a file it read changes."""
    if cache.exists():
        raw = json.loads(cache.read_text(encoding="utf-8"))
        return {k: TestRecord(**v) for k, v in raw.items()}
    out = Path(tempfile.mkstemp(prefix="mutation-baseline-", suffix=".json")[1])
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child
        code = 1
        try:
            die_with_parent(parent)
            _quiet()
            tracer = _Tracer(root, paths)
            tracer.start()
            pytest.main([*_PYTEST_ARGS, "-p", "no:randomly", *_by_file(test_ids)], plugins=[tracer])
            sys.settrace(None)
            out.write_text(json.dumps({k: vars(v) for k, v in tracer.records.items()}), encoding="utf-8")
            code = 0
        finally:
            os._exit(code)
    _own_group(pid)
    if _wait(pid, float("inf")) is not None:
        raise RuntimeError("the baseline run did not finish")
    cache.parent.mkdir(parents=True, exist_ok=True)
    os.replace(out, cache)
    return baseline(root, paths, test_ids, cache)


def _by_file(test_ids: list[str]) -> list[str]:
    """Whole files where every test of the file is asked for (shorter command lines, same tests)."""
    return list(dict.fromkeys(t.split("::")[0] for t in test_ids))


class Patcher:
    """Function objects by (file, qualified name), found once in the parent; children swap their code."""

    def __init__(self, root: Path, paths: list[str]) -> None:
        files = {str(root / p): p for p in paths}
        self.functions: dict[tuple[str, str], list[types.FunctionType]] = {}
        self.caches: list = []
        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType) and obj.__code__.co_filename in files:
                key = (files[obj.__code__.co_filename], obj.__code__.co_qualname)
                self.functions.setdefault(key, []).append(obj)
            elif isinstance(obj, functools._lru_cache_wrapper) and not getattr(obj, "__module__", "").startswith(
                _NEVER_MUTATED
            ):
                self.caches.append(obj)

    def can_patch(self, mutant: Mutant) -> bool:
        return (mutant.path, mutant.function) in self.functions

    def apply(self, root: Path, mutant: Mutant) -> None:
        code = mutated_code(root, mutant)
        for fn in self.functions[(mutant.path, mutant.function)]:
            fn.__code__ = code
        for cache in self.caches:  # a result computed before the change must not hide it
            cache.cache_clear()


def run_mutant(
    root: Path, patcher: Patcher, mutant: Mutant, test_ids: list[str], timeout: float
) -> tuple[str, str, float]:
    """(state, the test that decided it, seconds) for one mutant, in a forked child."""
    out = Path(tempfile.mkstemp(prefix="mutation-outcome-", suffix=".json")[1])
    start = time.monotonic()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            die_with_parent(parent)  # its own group: a timeout ends the subprocesses a test started too
            _quiet()
            patcher.apply(root, mutant)
            outcome = Outcome()
            pytest.main([*_PYTEST_ARGS, "-p", "no:randomly", *test_ids], plugins=[outcome])
            out.write_text(json.dumps(outcome.summary()), encoding="utf-8")
            code = 0
        finally:
            os._exit(code)
    _own_group(pid)
    state = _wait(pid, timeout)
    seconds = time.monotonic() - start
    try:
        if state is None:
            summary = json.loads(out.read_text(encoding="utf-8") or "{}")
            return summary.get("state", "crashed"), summary.get("by", ""), seconds
        return state, "", seconds
    finally:
        out.unlink(missing_ok=True)


def _wait(pid: int, timeout: float) -> Optional[str]:
    """None when the child exited 0, else "crashed" or TIMEOUT; the child's group ends on a timeout and
    on anything that stops the wait (Ctrl-C, SIGTERM turned into an exception)."""
    deadline = time.monotonic() + timeout
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return None if status == 0 else "crashed"
            if time.monotonic() > deadline:
                _end(pid)
                return TIMEOUT
            time.sleep(0.02)
    except BaseException:
        _end(pid)
        raise


def _own_group(pid: int) -> None:
    """Set from both sides of the fork, so a timeout right after it still finds the child's group."""
    try:
        os.setpgid(pid, pid)
    except (PermissionError, ProcessLookupError):
        pass  # the child already did (and may have run exec) or is gone


def _end(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def covering(
    records: dict[str, TestRecord], mutant: Mutant, budget_s: float, skip: frozenset[str] = frozenset()
) -> list[str]:
    """The passing tests that execute the mutant's line, fastest first, up to `budget_s` of baseline time
    (those in `skip` left out)."""
    lines = set(mutant.lines)
    hits = [
        (r.seconds, test_id)
        for test_id, r in records.items()
        if r.passed and test_id not in skip and lines.intersection(r.lines.get(mutant.path, ()))
    ]
    chosen, spent = [], 0.0
    for seconds, test_id in sorted(hits):
        if chosen and spent + seconds > budget_s:
            break
        chosen.append(test_id)
        spent += seconds
    return chosen


def run_all(
    root: Path,
    patcher: Patcher,
    mutants: list[Mutant],
    records: dict[str, TestRecord],
    budget_s: float,
    report: Callable[[Mutant, str, str, float], None],
    rest_budget_s: float = 0.0,
) -> None:
    """Each mutant against its fastest covering tests (up to `budget_s` of baseline time); one those let
    through then against the rest of its covering tests, fastest first, up to `rest_budget_s` more: a line
    that a hundred quick unit tests reach may be pinned only by a slower test that builds a whole report,
    and "survived" should mean no covering test caught it, not that the quick ones did not."""
    for mutant in mutants:
        tests = covering(records, mutant, budget_s)
        if not tests:
            report(mutant, NOT_COVERED, "", 0.0)
            continue
        if not patcher.can_patch(mutant):
            report(mutant, SURVIVED, "function object not found", 0.0)
            continue
        expected = sum(records[t].seconds for t in tests)
        state, by, seconds = run_mutant(root, patcher, mutant, tests, timeout=10 + 5 * expected)
        rest = covering(records, mutant, rest_budget_s, skip=frozenset(tests)) if state == SURVIVED else []
        if rest and rest_budget_s > 0:
            expected = sum(records[t].seconds for t in rest)
            state, by, more = run_mutant(root, patcher, mutant, rest, timeout=10 + 5 * expected)
            seconds += more
        report(mutant, state, by, seconds)
