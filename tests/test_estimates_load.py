"""Learning by load: a figure learned under heavy load must not plan the next run on a quiet host 2x
high, nor one learned quiet plan a loaded host 2x low. The load a step is divided by is the one measured
while the measurement ran (the host's busy CPU less the probe's own), not the one read before it."""

from __future__ import annotations

import pytest

from advisor.estimates import Load, kind_slowdown, measured_load, plan_for
from advisor.estimates import load_now as real_load_now  # the fixture below stands a quiet host in for it
from advisor.progress import ProbeProgress
from probes.base import ProbeEvent

QUIET, BUSY = Load(2, 0.0), Load(2, 6.0)  # BUSY: six other cores' demand on two (a loaded CI box)


def slow(load: Load) -> float:
    """What an accuracy run's parts slow by under `load` (its children run on every core)."""
    return kind_slowdown("accuracy", load, "pytorch-eager")


RID = "pytorch-eager-seed0"


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr("advisor.estimates.load_now", lambda window=None: QUIET)


def config():
    from probes.accuracy.models import AccuracyConfig

    return AccuracyConfig(frameworks=["pytorch"], modes=["eager"], seeds=1, epochs=2)


def marks(foreign: float, wall: float, own: float = 1.0):
    """Two cpu_mark()s `wall` seconds apart: the probe busy on `own` cores, others on `foreign`."""
    start = (1000.0, 50.0, 500.0)
    return [start, (start[0] + (foreign + own) * wall, start[1] + own * wall, start[2] + wall)]


def run_under(monkeypatch, plan_load: Load, foreign: float, took: float) -> None:
    """One measurement planned under `plan_load` whose step took `took` s while others used `foreign` cores."""
    from advisor import host_timings

    readings = iter(marks(foreign, took))
    monkeypatch.setattr("advisor.estimates.cpu_mark", lambda: next(readings))
    p = ProbeProgress.for_config("accuracy", config(), now=0.0, figures=host_timings.figures(), load=plan_load)
    p.on_event(ProbeEvent(kind_name="accuracy", run_id=RID, kind="start"), now=0.0)
    p.on_event(ProbeEvent(kind_name="accuracy", run_id=RID, kind="done"), now=took)
    p.finish(now=took)
    host_timings.learn("accuracy", config(), p)


def planned_s(load: Load) -> float:
    from advisor import host_timings

    plan = plan_for("accuracy", config(), figures=host_timings.figures(), load=load)
    return next(s for s in plan.steps if s.id == RID).seconds


def test_the_load_over_a_measurement_is_the_hosts_busy_cpu_less_the_probes_own():
    got = measured_load(*marks(foreign=3.0, wall=40.0, own=1.5))
    assert got is not None and got.foreign == pytest.approx(3.0) and got.cores >= 1
    assert measured_load(*marks(3.0, wall=1.0)) is None  # a scheduler tick is not a load


def test_a_figure_learned_under_heavy_load_plans_a_quiet_host_at_its_quiet_time_and_back(monkeypatch):
    base = 20.0  # the step's quiet time
    # planned on a quiet reading (the 1-minute average lags), then six other cores' work arrived
    run_under(monkeypatch, QUIET, foreign=6.0, took=base * slow(BUSY))
    assert planned_s(QUIET) == pytest.approx(base, rel=1e-3)  # was slow(BUSY) (2.2x) high
    assert planned_s(BUSY) == pytest.approx(base * slow(BUSY), rel=1e-3)
    # the second recorded load: planned busy, the host went quiet: the figure stays the quiet time
    run_under(monkeypatch, BUSY, foreign=0.0, took=base)
    assert planned_s(QUIET) == pytest.approx(base, rel=1e-3)  # was averaged with base / 2.2
    assert planned_s(BUSY) == pytest.approx(base * slow(BUSY), rel=1e-3)


def test_the_stored_figure_says_the_load_it_was_measured_under(monkeypatch):
    from advisor import host_timings

    run_under(monkeypatch, QUIET, foreign=6.0, took=44.0)
    run_under(monkeypatch, QUIET, foreign=2.0, took=24.0)
    entry = host_timings.figures().measured["accuracy"]["pytorch-eager"]
    assert entry["foreign_cores"] == pytest.approx(4.0) and entry["cores"] == 2  # the mean of the two loads
    assert entry["seconds"] == pytest.approx((44.0 / slow(BUSY) + 24.0 / slow(Load(2, 2.0))) / 2, rel=1e-3)


def test_a_plan_right_after_a_probe_does_not_count_that_probe_as_other_work(monkeypatch):
    """The 1-minute load average still holds the probe that just ended (2 runnable for a minute): the
    plan without a wait (the TUI's) measures the others' CPU since the measurement's own last mark."""
    import time

    from advisor import estimates

    now = time.monotonic()
    monkeypatch.setattr(estimates, "_marks", [(0.0, 0.0, now - 30.0)])  # the last probe's end, 30 s ago
    monkeypatch.setattr("probes.hostfacts.loadavg", lambda: (2.0, 2.0, 2.0))
    monkeypatch.setattr("probes.hostfacts.usable_cores", lambda: 2)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    # 30 s since: the host busy 1.2 cores, 1.1 of them this process and its children (learning, compiling)
    monkeypatch.setattr(estimates, "cpu_mark", lambda: (36.0, 33.0, now))
    assert real_load_now().foreign == pytest.approx(0.1)  # was 2.0: the average
    monkeypatch.setattr(estimates, "_marks", [])  # nothing measured yet in this process: the average
    assert real_load_now().foreign == pytest.approx(2.0)
    # a saturated host (no idle core): its runnable demand beyond the cores counts, less our own
    monkeypatch.setattr(estimates, "_marks", [(0.0, 0.0, now - 30.0)])
    monkeypatch.setattr("probes.hostfacts.loadavg", lambda: (9.0, 9.0, 9.0))
    monkeypatch.setattr(estimates, "cpu_mark", lambda: (59.0, 15.0, now))
    assert real_load_now().foreign == pytest.approx(9.0 - 0.5)


def test_a_saturated_hosts_demand_is_counted_less_this_processs_own_probes_of_late(monkeypatch):
    """Back to back (the benchmark, the TUI): the 1-minute average still held the kind that just ran,
    and on a host with no idle core the plan read it all as other work (3.3-4.5 of 2 cores here)."""
    import time

    from advisor import estimates

    now = time.monotonic()
    monkeypatch.setattr(estimates, "_marks", [(0.0, 0.0, now - 40.0)])  # the last kind's start, 40 s ago
    monkeypatch.setattr("probes.hostfacts.loadavg", lambda: (3.5, 3.0, 2.0))
    monkeypatch.setattr("probes.hostfacts.usable_cores", lambda: 2)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    # since then: this process's probe used 1.5 cores of the 2 busy; the 0.5 s window: both busy, half a
    # core of it this process's (its last child exiting)
    readings = iter([(80.0, 60.0, now - 0.5), (81.0, 60.25, now)])
    monkeypatch.setattr(estimates, "cpu_mark", lambda: next(readings))
    monkeypatch.setattr(estimates, "procs_running", lambda: None)  # no run queue to read: the average alone
    own_lately = 60.25 / 40.0
    assert real_load_now(window=0.01).foreign == pytest.approx(3.5 - own_lately)  # was 3.5 - 0.5


def saturated_plan(monkeypatch, average: float, running: int | None, window: float | None = 0.01) -> Load:
    """The plan's load on a host whose two cores were both busy with other work over the window, at a
    1-minute load average of `average`, the run queue read as `running` tasks (the reader among them)."""
    import time

    from advisor import estimates

    now = time.monotonic()
    # without a window the plan measures since this process's last mark: both cores busy since, too
    monkeypatch.setattr(estimates, "_marks", [(42.0, 40.0, now - 30.0)] if window is None else [])
    monkeypatch.setattr("probes.hostfacts.loadavg", lambda: (average, average, average))
    monkeypatch.setattr("probes.hostfacts.usable_cores", lambda: 2)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    readings = iter([(100.0, 40.0, now - 1.0), (102.0, 40.0, now)])
    monkeypatch.setattr(estimates, "cpu_mark", lambda: next(readings))
    monkeypatch.setattr(estimates, "procs_running", lambda: running)
    return real_load_now(window=window)


def test_a_saturated_hosts_demand_weighs_the_run_queue_sampled_now_against_the_lagging_average(monkeypatch):
    """A second run after a slower first opened 1.54x (accuracy) and 1.41x (deployment) high: the 1-minute
    average still held the busier minute before (7.8 on 2 cores) while the host had turned quieter. The
    plan's window now samples the run queue too (procs_running, the reader left out), and the named rule
    weighs the two; the reading is kept with the load, so a replay can judge another rule."""
    from advisor.estimates import RUN_QUEUE_WEIGHT

    load = saturated_plan(monkeypatch, average=7.8, running=4)  # three others runnable now
    assert load.foreign == pytest.approx(RUN_QUEUE_WEIGHT * 3.0 + (1 - RUN_QUEUE_WEIGHT) * 7.8)  # was 7.8
    assert load.reading.queue == pytest.approx(3.0) and load.reading.average == pytest.approx(7.8)
    assert load.reading.load() == load  # the rule again, from what the plan read
    # a host turned busier than its average: the queue raises the plan as well
    assert saturated_plan(monkeypatch, average=2.5, running=9).foreign > 2.5


def test_without_a_run_queue_sample_the_average_rule_stands(monkeypatch):
    """The TUI plans without a wait (no window: no queue sampled), and /proc may have no procs_running:
    the 1-minute average alone, as before."""
    assert saturated_plan(monkeypatch, average=7.8, running=None).foreign == pytest.approx(7.8)
    tui = saturated_plan(monkeypatch, average=7.8, running=4, window=None)
    assert tui.reading.queue is None and tui.foreign == pytest.approx(7.8)


def test_the_run_queue_is_read_from_proc_stat():
    from advisor.estimates import procs_running

    text = "cpu  1 2 3 4\nctxt 99\nprocs_running 7\nprocs_blocked 0\n"
    assert procs_running(text) == 7
    assert procs_running("cpu  1 2 3 4\n") is None and procs_running("procs_running x\n") is None
