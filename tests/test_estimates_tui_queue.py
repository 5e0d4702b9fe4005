"""The TUI's plan cannot wait the CLI's 0.5 s for the run queue, so the app keeps one reading a second
(advisor.estimates.queue_tick) and the plan weighs their mean over the last QUEUE_SPAN_S the same way.
The clock and /proc/stat are stand-ins here; the arithmetic is exact (each test starts with no readings:
tests/conftest.py)."""

from __future__ import annotations

import pytest

from advisor import estimates


def _stat(n: int) -> str:
    return f"cpu  1 2 3 4\nprocs_running {n}\nprocs_blocked 0\n"


def test_too_few_readings_leave_the_plan_on_the_average():
    for t in range(estimates.QUEUE_MIN_READINGS - 1):
        estimates.queue_tick(now=100.0 + t, text=_stat(5))
    assert estimates.recent_queue(now=100.0 + estimates.QUEUE_MIN_READINGS) is None


def test_the_mean_of_the_recent_readings_less_the_reader():
    readings = [3, 5, 4, 6, 2]  # mean 4, the reader counted in each: 3 others
    for t, n in enumerate(readings):
        estimates.queue_tick(now=200.0 + t, text=_stat(n))
    assert estimates.recent_queue(now=204.0) == pytest.approx(3.0)


def test_readings_older_than_the_span_are_dropped():
    for t in range(5):
        estimates.queue_tick(now=300.0 + t, text=_stat(9))  # a busy spell
    later = 300.0 + 4 + estimates.QUEUE_SPAN_S + 1
    for t in range(5):
        estimates.queue_tick(now=later + t, text=_stat(2))  # then quiet: one other task
    assert estimates.recent_queue(now=later + 4) == pytest.approx(1.0)
    assert all(at >= later for at, _, _ in estimates._queue_seen)


def test_an_unreadable_stat_keeps_nothing():
    estimates.queue_tick(now=1.0, text="cpu 1 2 3\n")
    assert estimates._queue_seen == []


def test_a_plan_without_a_window_weighs_the_kept_queue_on_a_saturated_host(monkeypatch):
    """load_now() with no window (the TUI's): the busy cores come from the marks; a host with no idle
    core counts its runnable demand, from the kept queue where there is one (RUN_QUEUE_WEIGHT)."""
    seen = {}

    class Reading(estimates.LoadReading):
        def load(self):
            seen["queue"] = self.queue
            return super().load()

    monkeypatch.setattr(estimates, "LoadReading", Reading)
    marks = iter([(0.0, 0.0, 0.0), (20.0, 1.0, 10.0)])  # 2 busy cores of 2 over 10 s, 0.1 of them ours
    monkeypatch.setattr(estimates, "_marks", [next(marks)])
    monkeypatch.setattr(estimates, "cpu_mark", lambda: next(marks))
    monkeypatch.setattr(estimates.time, "monotonic", lambda: 10.0)
    monkeypatch.setattr("probes.hostfacts.usable_cores", lambda: 2)
    monkeypatch.setattr("probes.hostfacts.loadavg", lambda: (9.0, 9.0, 9.0))
    monkeypatch.setattr(estimates.os, "cpu_count", lambda: 2)
    for t in range(5):
        estimates.queue_tick(now=float(t), text=_stat(4))  # 3 others
    load = estimates.load_now()
    assert seen["queue"] == pytest.approx(3.0)
    own = 1.0 / 10.0
    assert load.foreign == pytest.approx(
        estimates.RUN_QUEUE_WEIGHT * (3.0 - own) + (1 - estimates.RUN_QUEUE_WEIGHT) * 9.0
    )
