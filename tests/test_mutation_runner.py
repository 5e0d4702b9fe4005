"""The mutation runner's own rules (benchmarks/mutation_check.py, benchmarks/mutation/): the sample is a
seeded random draw per package, the score counts only mutants a test ran to the end on, a reviewed
equivalent is matched by its text, and no test child outlives the runner, however the runner ends."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from mutation import equivalent  # noqa: E402
from mutation.operators import Mutant  # noqa: E402

pytestmark = pytest.mark.timeout(180)


def _check_module():
    spec = importlib.util.spec_from_file_location("mutation_check", ROOT / "benchmarks" / "mutation_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mutants(path: str, n: int) -> list[Mutant]:
    return [Mutant(path, "f", i, "constant", i + 1, (i + 1,), str(i), str(i + 1)) for i in range(n)]


# ---- the sample, the score, the reviewed equivalents ------------------------------------------------


def test_the_sample_is_the_same_draw_for_the_same_seed_and_a_different_one_for_another():
    check = _check_module()
    mutants = _mutants("a.py", 200) + _mutants("b.py", 5)
    package_of = {"a.py": "A", "b.py": "B"}
    first = check._sample(mutants, 10, "41", package_of)
    assert first == check._sample(mutants, 10, "41", package_of)
    assert first != check._sample(mutants, 10, "42", package_of)
    by_package = Counter(package_of[m.path] for m in first)
    assert by_package == {"A": 10, "B": 5}  # 10 drawn from A's 200; B has fewer than 10: all of them
    assert first == sorted(first, key=mutants.index)  # in the files' order, not the draw's
    # A package's draw does not depend on which other packages were chosen.
    alone = check._sample(_mutants("a.py", 200), 10, "41", package_of)
    assert alone == [m for m in first if m.path == "a.py"]
    assert check._sample(mutants, 0, "41", package_of) == mutants  # 0: every mutant


def test_the_score_is_killed_over_killed_and_survived_with_the_rest_apart():
    check = _check_module()
    counts = Counter({"killed": 45, "survived": 5, "errored": 7, "timeout": 3, "crashed": 1, "not covered": 20})
    assert check.score(counts) == 45 / 50
    assert check.score(Counter({"not covered": 4})) is None
    row = check._row("decision", counts)
    assert row == "| decision | 81 | 45 | 5 | 7 | 3 | 1 | 20 | 0 | 90% |"


def test_a_reviewed_equivalent_is_matched_by_its_text_not_its_position(monkeypatch):
    (mutant,) = _mutants("advisor/x.py", 1)
    reviewed = equivalent.Equivalent("advisor/x.py", "f", "constant", "0", "1", "a zero-length slice either way")
    monkeypatch.setattr(equivalent, "REVIEWED", (reviewed,))
    assert equivalent.equivalent_why(mutant) == "a zero-length slice either way"
    moved = Mutant("advisor/x.py", "f", 99, "constant", 40, (40,), "0", "1")
    assert equivalent.equivalent_why(moved) == "a zero-length slice either way"
    other = Mutant("advisor/x.py", "f", 0, "constant", 1, (1,), "0", "2")
    assert equivalent.equivalent_why(other) is None


def test_every_reviewed_equivalent_says_why_and_names_a_target_file():
    from mutation.targets import TARGETS

    paths = {path for _, path, _ in TARGETS}
    for e in equivalent.REVIEWED:
        assert e.path in paths and len(e.why) > 20, e


# ---- no test child outlives the runner ---------------------------------------------------------------

# A test that starts a subprocess and then waits: what a mutant's test child looks like mid-run.
_SLOW_TEST = """
import os, subprocess, time

def test_waits():
    sleeper = subprocess.Popen(["sleep", "600"])
    with open({pids!r} + ".tmp", "w") as fh:
        fh.write(f"{{os.getpid()}} {{sleeper.pid}}")
    os.replace({pids!r} + ".tmp", {pids!r})
    time.sleep(600)
"""

# The runner's two ways of starting a test child: a forked child per generated mutant (engine.run_mutant)
# and a pytest subprocess per planted bug (mutation_check._pytest).
_RUNNERS = {
    "generated": """
from mutation import engine
from mutation.operators import Mutant

class Unpatched:
    def apply(self, root, mutant):
        pass

mutant = Mutant("x.py", "f", 0, "constant", 1, (1,), "1", "2")
print(engine.run_mutant(Path(root), Unpatched(), mutant, [test], timeout=timeout))
""",
    "planted": """
import importlib.util
spec = importlib.util.spec_from_file_location("mutation_check", Path(root) / "benchmarks" / "mutation_check.py")
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)
print(check._pytest(Path(root), (test,), timeout))
""",
}


def _runner(tmp_path: Path, kind: str, timeout: float) -> tuple[subprocess.Popen, Path]:
    pids = tmp_path / "pids"
    test = tmp_path / "test_waits.py"
    test.write_text(textwrap.dedent(_SLOW_TEST.format(pids=str(pids))), encoding="utf-8")
    script = tmp_path / "runner.py"
    script.write_text(
        "import sys\nfrom pathlib import Path\n"
        f"root, test, timeout = {str(ROOT)!r}, {str(test)!r}, {timeout!r}\n"
        "sys.path[:0] = [str(Path(root) / 'benchmarks'), root]\n" + textwrap.dedent(_RUNNERS[kind]),
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [sys.executable, str(script)], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return proc, pids


def _pids_when_started(proc: subprocess.Popen, pids: Path) -> list[int]:
    """The test child's pid and its subprocess's, once the test is waiting (or the runner's output)."""
    while not pids.exists():
        if proc.poll() is not None:
            pytest.fail(f"the runner ended before its test started: {proc.communicate()}")
        time.sleep(0.05)
    return [int(p) for p in pids.read_text().split()]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"  # a zombie has ended; only its exit status waits to be read


def _gone(pids: list[int], within_s: float = 60.0) -> list[int]:
    """The pids still running once every one has ended or `within_s` passed (a bound for a loaded host,
    not a measurement: the test asserts on which processes remain)."""
    deadline = time.monotonic() + within_s
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in pids if _alive(p)]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc (Linux)")
@pytest.mark.parametrize("kind", sorted(_RUNNERS))
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "Ctrl-C"])
def test_a_runner_killed_mid_mutant_leaves_no_test_child_nor_its_subprocess(tmp_path, kind, how):
    proc, pids_file = _runner(tmp_path, kind, timeout=600)
    try:
        pids = _pids_when_started(proc, pids_file)
        os.kill(proc.pid, how)
        proc.wait(timeout=60)
        assert _gone(pids) == [], f"left running after the runner was killed: {pids}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _gone(_pids_or_none(pids_file), within_s=0):
            os.kill(pid, signal.SIGKILL)


def _pids_or_none(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc (Linux)")
@pytest.mark.parametrize("kind", sorted(_RUNNERS))
def test_a_mutant_past_its_time_is_a_timeout_and_its_whole_group_ends(tmp_path, kind):
    proc, pids_file = _runner(tmp_path, kind, timeout=20)
    try:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        assert out.startswith("('timeout', ''"), out
        assert pids_file.exists(), "the test never started: the timeout ended pytest's start-up instead"
        assert _gone(_pids_or_none(pids_file)) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ---- the runner end to end, small enough for the suite -----------------------------------------------


def test_the_smoke_run_traces_patches_and_judges_mutants_of_the_number_formatting(tmp_path):
    """`--smoke` on one package and one test file: the tests collected and traced, three mutants they
    reach drawn with the fixed seed, each patched into a forked child and judged; the table printed.
    (`make bench` runs the whole smoke: every package and two planted bugs.)"""
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # its own baseline cache: traced afresh here
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "mutation_check.py"),
            "--generated",
            "--smoke",
            "--package",
            "number formatting",
            "--tests",
            "tests/test_number_formatting.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "smoke: 3 of the" in done.stdout
    (row,) = [line for line in done.stdout.splitlines() if line.startswith("| number formatting |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    counts = dict(zip(("killed", "survived", "errored", "timeout", "crashed", "not covered"), map(int, cells[2:8])))
    assert cells[1] == "3" and counts["crashed"] == 0 and counts["not covered"] == 0
    assert counts["killed"] >= 1, row


# ---- the planted bugs still find the code they plant into ------------------------------------------


def test_every_planted_bug_finds_its_text_exactly_once():
    """A refactor that moves a planted line would stop `make mutation` at its first stale bug; the suite
    says which one instead (the power budget's moved once, unnoticed until the planted run)."""
    from mutation.planted import PLANTED

    stale = [b.name for b in PLANTED if (ROOT / b.path).read_text(encoding="utf-8").count(b.old) != 1]
    assert stale == []
    assert all(b.old != b.new for b in PLANTED)


# ---- which tests a mutant meets ------------------------------------------------------------------------


def test_a_mutant_meets_its_fastest_covering_tests_and_a_survivor_the_rest():
    """Four tests reach line 1 (0.1, 0.2, 20 and 30 s traced): within a 15 s budget the two fast ones; a
    mutant they let through then meets the other two (a report-building test that pins the line), and the
    state is the second run's."""
    from mutation import engine
    from mutation.outcome import KILLED, SURVIVED

    records = {
        name: engine.TestRecord(seconds, True, {"m.py": [1]})
        for name, seconds in (("a", 0.1), ("b", 0.2), ("c", 20.0), ("d", 30.0))
    }
    records["e"] = engine.TestRecord(0.05, True, {"m.py": [2]})  # another line
    records["f"] = engine.TestRecord(0.01, False, {"m.py": [1]})  # failing without the mutant: never used
    mutant = Mutant("m.py", "f", 1, "constant", 1, (1,), "0", "1")
    assert engine.covering(records, mutant, 15.0) == ["a", "b"]
    assert engine.covering(records, mutant, 240.0, skip=frozenset({"a", "b"})) == ["c", "d"]

    class Patcher:
        def can_patch(self, m):
            return True

    ran, seen = [], []

    def run_mutant(root, patcher, m, tests, timeout):
        ran.append(tests)
        return (SURVIVED, "", 1.0) if len(ran) == 1 else (KILLED, tests[0], 2.0)

    real = engine.run_mutant
    engine.run_mutant = run_mutant
    try:
        engine.run_all(ROOT, Patcher(), [mutant], records, 15.0, lambda *a: seen.append(a), 240.0)
        assert ran == [["a", "b"], ["c", "d"]] and seen == [(mutant, KILLED, "c", 3.0)]
        ran.clear(), seen.clear()
        engine.run_all(ROOT, Patcher(), [mutant], records, 15.0, lambda *a: seen.append(a), 0.0)
        assert ran == [["a", "b"]] and seen == [(mutant, SURVIVED, "", 1.0)]  # no rest budget: the smoke's
    finally:
        engine.run_mutant = real


def test_a_test_that_turns_tracing_off_does_not_blind_the_tests_after_it(tmp_path, monkeypatch):
    """Python drops a trace function that raises (a test of deeply nested input can reach the recursion
    limit inside it); here a test turns tracing off itself. The test after it still has its lines."""
    from mutation import engine

    (tmp_path / "target.py").write_text("def f():\n    x = 1\n    return x\n")
    (tmp_path / "test_x.py").write_text(
        textwrap.dedent(
            """
            import sys
            import target

            def test_a():
                sys.settrace(None)

            def test_b():
                assert target.f() == 1
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    records = engine.baseline(tmp_path, ["target.py"], ["test_x.py::test_a", "test_x.py::test_b"], tmp_path / "b.json")
    assert {k: sorted(v) for k, v in records["test_x.py::test_b"].lines.items()} == {"target.py": [2, 3]}
