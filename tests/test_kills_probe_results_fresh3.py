"""The survivors of the fresh seed-2038 draw of the probe-result mutants (92%: 34 killed, 3 survived, the
mutation tracer fixed), each a behaviour a reader of the results relies on: the worker's raw load
snapshots turned into the run's settings and not kept as a field of it, and the others' busy cores judged
against every CPU of the host, not this process's share of them. (The third, the step-count rounding
guard's width, is a reviewed equivalent: benchmarks/mutation/equivalent.py.)"""

from __future__ import annotations

import os

from probes import launcher
from probes.training import runner
from probes.training.models import ProbeConfig


def test_the_workers_load_snapshots_become_settings_not_a_field_of_the_run():
    job = runner.Job("pytorch", "eager", "lenet", 8)
    snap = {"wall_s": 0.0, "total_s": 0.0, "busy_s": 0.0, "self_cpu_s": 0.0, "steal_s": 0.0, "cpus": 2}
    window = [snap, {**snap, "wall_s": 1.0, "total_s": 2.0, "busy_s": 1.5, "self_cpu_s": 1.0}]
    result = {"kind": "result", "status": "ok", "images_per_second": 100.0, "load_window": window}
    run = runner._run_from_outcome(job, ProbeConfig(), launcher.ChildOutcome(status="ok", result=result))
    assert run.status == "ok" and run.images_per_second == 100.0
    assert "load_window" not in run.model_dump()


def test_the_others_cores_contend_against_every_cpu_of_the_host_not_this_process_share(monkeypatch):
    """4 CPUs on the host, this process allowed 2 of them: the others' 2.5 busy cores over 1 s contend with
    a 2-thread run by max(0, 2.5 + 2 - 4) / 2 = 0.25 (judged against 2 cores it would read 1.25)."""
    monkeypatch.setattr(runner.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(runner, "usable_cores", lambda: 2)
    hz = os.sysconf("SC_CLK_TCK")
    before = {"busy": 0.0, "total": 0.0, "steal": 0.0}
    after = {"busy": 2.5 * hz, "total": 4.0 * hz, "steal": 0.0}
    got = runner.run_load(before, after, 0.0, 1.0, 2)
    assert got["foreign_cores"] == 2.5 and got["contention"] == 0.25


# ---- the fresh seed-2041 draw (95%: 36 killed, 2 survived; the other, the floor under a step measured at
# zero seconds, differs only for a clock that did not move)


def test_a_timed_window_shorter_than_a_second_still_gives_its_load():
    """The worker's two snapshots 0.25 s apart on 2 CPUs (0.5 CPU-s in all): the host busy 0.375 CPU-s, the
    run's own 0.125: the others used (0.375 - 0.125) / 0.25 = 1.0 core, and a 2-thread run met
    max(0, 1.0 + 2 - 2) / 2 = 0.5 contention, with nothing stolen."""
    a = {"wall_s": 0.0, "total_s": 0.0, "busy_s": 0.0, "self_cpu_s": 0.0, "steal_s": 0.0, "cpus": 2}
    b = {"wall_s": 0.25, "total_s": 0.5, "busy_s": 0.375, "self_cpu_s": 0.125, "steal_s": 0.0, "cpus": 2}
    assert runner.window_load([a, b], 2) == {
        "steal": 0.0,
        "foreign_cores": 1.0,
        "contention": 0.5,
        "load_measured_over": "the timed measurement",
    }
    # a clock that went backwards between the snapshots (wall -0.25 s) gives no load, whatever the CPUs read
    back = {**a, "wall_s": 0.25}
    assert runner.window_load([back, b | {"wall_s": 0.0}], 2) is None
