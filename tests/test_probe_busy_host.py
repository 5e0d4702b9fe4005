"""End to end on a host that CPU burners keep busy: a real PyTorch run measured beside them is
marked noisy or unusable (never a confident number, never a CI clamped at 0), and the probe
measured with the cores it found idle. The assertions follow from the burners, not from timing:
3 x cores always-runnable burners leave no core idle and take far more than the 10% of the run's
threads that the stable bound allows (their fair share beside one thread is 6/7 of the cores; the
bound is crossed once they hold more than cores - 0.9 of them)."""

import subprocess
import sys
import time

import pytest

from probes import quality
from probes.training import runner
from probes.training.models import ProbeConfig


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_run_beside_cpu_burners_is_flagged_and_uses_the_idle_cores():
    cores = runner.usable_cores()
    # Each burner in a session of its own, as the probe's worker is: with the kernel's autogroup
    # scheduling a session shares the CPUs as one group, so burners in the test's session would
    # leave the worker a whole core and the host would look quiet to it (it measured 0.009).
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL, start_new_session=True)
        for _ in range(3 * cores)
    ]
    try:
        time.sleep(0.3)  # the burners are running before the round counts the idle cores
        cfg = ProbeConfig(
            frameworks=["pytorch"],
            models=["lenet"],
            modes=["eager"],
            batch_size=8,
            budget=1.0,
            parity=False,
            gemm=False,
            repeat=1,
            max_repeat=None,
        )
        suite = runner.run_suite(cfg)
    finally:
        for b in burners:
            b.kill()
        for b in burners:
            b.wait()
    (run,) = suite.runs
    assert run.status == "ok", run.error
    assert run.quality in ("noisy", "unusable"), (run.quality, run.settings)
    assert any("contention" in r for r in run.quality_reasons)
    assert run.settings["contention"] > quality.CONTENTION[0]
    if run.ci95 is None or run.ci95[0] <= 0:
        assert run.quality == "unusable"
    # threads = idle cores: none was idle, so one thread, recorded with the reason.
    assert run.settings["threads"] == 1 and run.settings["threads_reason"].startswith("idle cores")
    (log,) = suite.adaptation
    assert log["threads"] == [1] and "undecided" in log["stopped"]
