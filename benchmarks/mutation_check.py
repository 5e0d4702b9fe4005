"""A short mutation check (issue 31): planted bugs in the output writer, the bad-input readers and the
decision model, each applied to a temporary copy of the tree; the tests that should notice it run
there; a bug the tests fail on is "killed", one they pass with "survived" (a test that cannot fail).

Hand-written rather than mutmut/cosmic-ray (neither is a dependency): each mutant is a bug someone
could really write, named, with the test files that claim to cover it. Expensive (a pytest run per
mutant): keep the list short and the test selection targeted.

    python benchmarks/mutation_check.py            # every mutant
    python benchmarks/mutation_check.py --only writer-plain-open --keep
Exit 0 when every mutant is killed, 1 when one survived, 2 when the unmutated tree fails its tests.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # file in the tree
    old: str  # text replaced (must occur exactly once)
    new: str
    tests: tuple[str, ...]  # pytest arguments: files, -k selections
    why: str


MUTANTS = (
    Mutant(
        "writer-plain-open",
        "advisor/output.py",
        '        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as fh:\n'
        "            fh.write(text)\n"
        "        os.chmod(tmp, mode)\n"
        "        os.replace(tmp, target)\n",
        "        os.close(fd)\n"
        "        os.unlink(tmp)\n"
        '        with open(target, "w", encoding="utf-8") as fh:\n'
        "            fh.write(text)\n",
        ("tests/test_hardening_suite.py", "-k", "midway or half_written"),
        "-o written in place: a failure mid-write truncates the old file",
    ),
    Mutant(
        "cache-failure-loses-o",
        "advisor/commands/probe.py",
        "        except (OSError, UsageError) as exc:  # ENOSPC, EROFS, a file where the cache folder goes",
        "        except OSError as exc:  # ENOSPC, EROFS, a file where the cache folder goes",
        ("tests/test_hardening_keep.py",),
        "write_atomic's UsageError from the cache escapes (the issue's lost measurement)",
    ),
    Mutant(
        "data-label-range-dropped",
        "probes/training/data.py",
        "    if labels.size and (int(labels.min()) < 0",
        "    if False and (int(labels.min()) < 0",
        ("tests/test_hardening_data.py",),
        "labels 99/255 accepted; the run fails later",
    ),
    Mutant(
        "data-pickle-structure-unchecked",
        "probes/training/data.py",
        "    if not isinstance(data, np.ndarray):\n",
        "    if False:\n",
        ("tests/test_hardening_data.py",),
        "a nested list as 'data' reaches NumPy (the 317-byte bomb)",
    ),
    Mutant(
        "yaml-duplicate-keys-allowed",
        "advisor/safe_yaml.py",
        "        if duplicate:\n",
        "        if False:\n",
        ("tests/test_bad_input_catalogue.py", "tests/test_hardening_medium.py", "-k", "duplicate"),
        "a duplicated key silently keeps the last value",
    ),
    Mutant(
        "limits-zero-memory-allowed",
        "advisor/limits.py",
        '"usable_memory_gb": Limit(0, 1e5, "GB", low_open=True)',
        '"usable_memory_gb": Limit(0, 1e5, "GB")',
        ("tests/test_hardening_medium.py", "-k", "kb_overrides"),
        "usable_memory_gb: 0 accepted (a division by zero later)",
    ),
    Mutant(
        "writer-temp-left-on-failure",
        "advisor/output.py",
        "        try:\n            os.unlink(tmp)\n        except OSError:\n            pass\n        if isinstance(exc, OSError):",
        "        try:\n            pass\n        except OSError:\n            pass\n        if isinstance(exc, OSError):",
        ("tests/test_hardening_suite.py", "tests/test_hardening_io.py"),
        "a failed -o leaves its hidden temp file beside the target (a stray partial file)",
    ),
    Mutant(
        "writer-fallback-not-written",
        "advisor/output.py",
        "            return str(write_atomic(Path(folder) / name, text))",
        "            return str(Path(folder) / name)",
        ("tests/test_hardening_keep.py",),
        "the named fallback is announced but never written: the measurement is lost",
    ),
    Mutant(
        "to-json-allows-nan",
        "advisor/output.py",
        "ensure_ascii=False, allow_nan=False)",
        "ensure_ascii=False, allow_nan=True)",
        ("tests/test_hardening_medium.py", "-k", "finite or kb_overrides"),
        "Infinity written into --json output (the tool's own compare refuses the file)",
    ),
    Mutant(
        "json-reader-accepts-nan",
        "advisor/output.py",
        "        return json.loads(text, parse_constant=_no_constant)",
        "        return json.loads(text)",
        ("tests/test_bad_input_catalogue.py", "tests/test_hardening_heldout.py", "-k", "nan or infinity or non_finite"),
        "NaN / Infinity in a result file read as numbers",
    ),
    Mutant(
        "json-reader-unbounded",
        "advisor/output.py",
        "MAX_JSON_BYTES = 32 * 1024 * 1024",
        "MAX_JSON_BYTES = 32 * 1024 * 1024 * 1024",
        ("tests/test_hardening_heldout.py", "-k", "sparse"),
        "a 1 GB result file read whole into memory",
    ),
    Mutant(
        "terminal-escapes-kept",
        "advisor/sanitize.py",
        '    return _SURROGATES.sub("\\ufffd", _CONTROLS.sub("", _ESCAPES.sub("", text)))',
        '    return _SURROGATES.sub("\\ufffd", text)',
        ("tests/test_hardening_io.py", "tests/test_hardening_heldout.py", "-k", "escape"),
        "terminal escapes from YAML keys, ids and file names reach the error line and the documents",
    ),
    Mutant(
        "limits-throughput-unbounded",
        "advisor/limits.py",
        '"images_per_second": Limit(0, 1e9, "images/s")',
        '"images_per_second": Limit(0, 1e300, "images/s")',
        ("tests/test_hardening_medium.py", "-k", "absurd_probe"),
        "throughput 1e300 accepted as a measurement",
    ),
    Mutant(
        "data-idx-header-trusted",
        "probes/training/data.py",
        "            if dims[0] * item > MAX_FILE_BYTES:",
        "            if False:",
        ("tests/test_hardening_data.py",),
        "an idx header claiming gigabytes allocated before a byte is read",
    ),
    Mutant(
        "decision-adam-bytes",
        "advisor/decision/memory.py",
        "    return StateBytes(2.0, 2.0, 4.0 + 4.0 * moments, 2.0)",
        "    return StateBytes(2.0, 2.0, 2.0 + 4.0 * moments, 2.0)",
        ("tests/test_decision_model.py", "-k", "memory"),
        "mixed-precision Adam at 14 bytes per parameter instead of 16",
    ),
    Mutant(
        "decision-power-budget-x10",
        "advisor/decision/tco.py",
        "        factor = proj.devices / 1000 * (1",
        "        factor = proj.devices / 100 * (1",
        ("tests/test_decision_model.py", "-k", "tco"),
        "the power budget ten times too large (the issue's planted bug)",
    ),
)


def _copy_tree(dest: Path) -> None:
    """The working tree's files git knows or would add (tracked + untracked, not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for raw in filter(None, listed):
        rel = raw.decode()
        src = ROOT / rel
        if not src.is_file() or src.is_symlink():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)


def _pytest(tree: Path, args: tuple[str, ...], timeout: float) -> tuple[int, float]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    env["XDG_CACHE_HOME"] = str(tree / ".mutation-cache")
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not slow", *args],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        code = proc.returncode
    except subprocess.TimeoutExpired:
        code = -1
    return code, time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma list of mutant names")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per pytest run")
    parser.add_argument("--keep", action="store_true", help="keep the temporary tree")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="mutation-check-"))
    tree = tmp / "tree"
    try:
        _copy_tree(tree)
        # The baseline: every distinct selection the mutants use, unmutated (a selection that fails
        # already would count every mutant as killed).
        for selection in dict.fromkeys(m.tests for m in chosen):
            code, secs = _pytest(tree, selection, args.timeout)
            print(f"baseline: {' '.join(selection)}: {'pass' if code == 0 else f'FAIL ({code})'} in {secs:.0f} s")
            if code != 0:
                return 2
        killed = 0
        for m in chosen:
            path = tree / m.path
            original = path.read_text(encoding="utf-8")
            if original.count(m.old) != 1:
                print(f"{m.name}: the planted text is not in {m.path} exactly once (the code moved): update the mutant")
                return 2
            path.write_text(original.replace(m.old, m.new), encoding="utf-8")
            try:
                code, secs = _pytest(tree, m.tests, args.timeout)
            finally:
                path.write_text(original, encoding="utf-8")
            state = "killed" if code not in (0, 5) else "SURVIVED"
            killed += state == "killed"
            print(f"{m.name:34} {state:9} {secs:5.0f} s  {m.why}")
        print(f"{killed} of {len(chosen)} planted bugs killed")
        return 0 if killed == len(chosen) else 1
    finally:
        if args.keep:
            print(f"tree kept: {tree}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
