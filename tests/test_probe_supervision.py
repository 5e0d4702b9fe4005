"""The training probe under a hung framework: the aux child's timeout ends that framework's part
(its runs are not each left to wait out their own timeout), and nothing it started survives."""

from __future__ import annotations

import time

from probes.training import runner
from probes.training.models import ProbeConfig

HANG = "tests.fixtures.supervision.hang_worker"


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"  # killed, not yet reaped by init
    except OSError:
        return True


def test_aux_timeout_skips_the_frameworks_runs_and_kills_a_setsid_grandchild(monkeypatch, tmp_path):
    log = tmp_path / "log"
    monkeypatch.setenv("ADVISOR_TEST_LOG", str(log))
    monkeypatch.setattr(runner, "WORKER", {"pytorch": HANG, "mindspore": HANG})
    monkeypatch.setattr(runner, "AUX_HUNG_SECONDS", 2.0)  # the default 60 s, scaled to the 3 s timeout
    config = ProbeConfig(
        frameworks=["pytorch"],
        models=["lenet", "resnet18"],
        modes=["eager", "compile"],
        budget=1.0,
        batch_size=8,
        timeout=3.0,
        compile_cache_dir=str(tmp_path / "c"),
    )
    suite = runner.run_suite(config)
    started = log.read_text().split("\n")
    assert started.count("aux") == 1 and started.count("run") == 0, started
    assert len(suite.runs) == 4
    for run in suite.runs:
        assert run.status == "failed" and run.error.startswith("not started: pytorch's first child"), run
        assert "timeout" in run.error
    grandchild = int(next(ln for ln in started if ln.startswith("grandchild")).split()[1])
    deadline = time.monotonic() + 10
    while not _gone(grandchild):
        assert time.monotonic() < deadline, "the hung import's setsid grandchild survived"
        time.sleep(0.1)
