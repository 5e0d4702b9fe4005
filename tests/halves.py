"""`make test`: the suite as two pytest processes side by side, the framework tests (marked `slow`: child
processes that import torch or MindSpore and use every core while they train) beside the rest (reports,
the TUI, the scan: one Python thread each, which leaves the second core idle). On 2 cores this took the
suite from 25 to 15 minutes here, every test passing; the suite is made to pass on a loaded host.

The `slow` half's output is kept and printed whole after the other half's, so neither is interleaved.
Arguments go to both pytest processes. With a `-m` of its own (or `ADVISOR_TEST_SERIAL=1`) it is one
plain pytest run. Exit status: pytest's, the worse half's (5, "no tests collected", only when neither
half collected any)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

NO_TESTS = 5  # pytest's exit status when nothing was collected


def combined(*codes: int) -> int:
    """One exit status for the halves: a failure if any failed; 5 only when no half ran a test."""
    ran = [c for c in codes if c != NO_TESTS]
    if not ran:
        return NO_TESTS
    return next((c for c in ran if c != 0), 0)


def wants_serial(args: list[str]) -> bool:
    """The caller chose tests by marker (one run does it), or asked for one run."""
    return os.environ.get("ADVISOR_TEST_SERIAL") == "1" or any(a == "-m" or a.startswith("-m") for a in args)


def main(args: list[str]) -> int:
    pytest = [sys.executable, "-m", "pytest"]
    if wants_serial(args):
        return subprocess.call([*pytest, *args])
    with tempfile.TemporaryFile() as slow_output:
        slow = subprocess.Popen([*pytest, "-m", "slow", *args], stdout=slow_output, stderr=subprocess.STDOUT)
        try:
            rest = subprocess.call([*pytest, "-m", "not slow", *args])
            slow_code = slow.wait()
        finally:
            if slow.poll() is None:  # interrupted: the framework half goes too
                slow.kill()
                slow.wait()
        print("\n==== the framework tests (-m slow), run beside the rest ====", flush=True)
        slow_output.seek(0)
        shutil.copyfileobj(slow_output, sys.stdout.buffer)
        sys.stdout.flush()
    return combined(rest, slow_code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
