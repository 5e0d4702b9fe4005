"""The probe result path, for the mutants a fresh draw (seed 2030, taken after every other kill test was
written) found surviving: the stop rule's CV as a sample standard deviation, the progress reports' figures
(the share of the budget spent, the step time and the rate, in both phases), the rate at the median step
time, and the first round's start-up a merged run keeps and marks. Each expected number is worked from the
code's own rule with a clock that moves only when a step runs."""

from __future__ import annotations

import math

import pytest

from probes.training import measure, runner, stats
from probes.training.models import ProbeSuite
from probes.training.models import ProbeRun

T9 = 2.262157  # t(0.975, 9): the quantile the parent passes for 10 batch means


def test_the_stop_rules_cv_is_the_sample_standard_deviation_over_the_mean():
    """30 samples whose last 20 are 1 - a and 1 + a ms in turn (mean 1; sample standard deviation, n - 1 =
    19, a sqrt(20/19)), with a set so that CV is 0.049: under the 5% target, so the rule holds (equal
    seconds make the interval's width 0). Dividing by n - 2 instead would read 0.049 sqrt(19/18) = 0.0503,
    over it. A CV of 0.051 fails."""

    def samples(cv: float) -> list[float]:
        a = cv * math.sqrt(19 / 20)
        return [1.0] * 10 + [1.0 - a if i % 2 else 1.0 + a for i in range(20)]

    assert stats.converged(samples(0.049), [0.01] * 30, 32, T9)
    assert 0.049 * math.sqrt(19 / 18) > 0.05
    assert not stats.converged(samples(0.051), [0.01] * 30, 32, T9)


class _Clock:
    """Every step takes 0.25 s (the first `first` s); time moves only when one runs."""

    def __init__(self, first: float = 0.25):
        self.t, self.first = 0.0, first

    def __call__(self) -> float:
        return self.t

    def step(self, i: int) -> float:
        self.t += self.first if i == 0 else 0.25
        return 2.3 / (1 + i)


def test_progress_reports_the_budgets_share_the_step_time_and_the_rate():
    """Steps of 0.25 s, batch 8, a 100 s budget. Warmup: a report after each step (each is past the 0.2 s
    throttle) until the two windows of five agree at the tenth, which ends warmup before its report: nine
    reports at 0.25 j s of 100 (j = 1..9). A sample of 0.010 s target is one 0.25 s step; the rule holds at
    the 30th sample (CV 0, interval 0), before its report: 29 reports at (2.5 + 0.25 n) s of 100. Every
    report: 250 ms a step and 8 / 250 ms = 32 images/s; the run's rate and its median-step rate are 32."""
    seen = []
    clock = _Clock()
    res = measure.run(
        clock.step, float, measure.Plan(budget_s=100.0, batch_size=8, t_crit=T9), on_progress=seen.append, clock=clock
    )
    assert (res["warmup_steps"], res["steps_per_sample"], res["samples"], res["stop_reason"]) == (
        10,
        1,
        30,
        "converged",
    )
    warm = [p for p in seen if p["phase"] == "warmup"]
    meas = [p for p in seen if p["phase"] == "measure"]
    assert [p["fraction"] for p in warm] == pytest.approx([0.25 * j / 100 for j in range(1, 10)])
    assert [p["fraction"] for p in meas] == pytest.approx([(2.5 + 0.25 * n) / 100 for n in range(1, 30)])
    assert {(p["step_ms"], p["images_per_second"]) for p in seen} == {(250.0, 32.0)}
    assert (res["images_per_second"], res["images_per_second_median"]) == (32.0, 32.0)
    assert res["warnings"] == []  # converged, a falling loss, no noise: nothing to warn of


def test_a_merged_run_keeps_the_first_rounds_start_up_and_says_so():
    """--repeat 2: the first round at 120 images/s took 5 s to its first step and compiled in 2 s with
    cold caches; the second, at 100, 1 s and 0.5 s. The lower middle repeat (100) is the body shown, but
    the start-up a user meets once is the first round's, and the merged run marks where it came from."""

    def repeat(ips: float, first_step: float, compile_s: float, cache: str) -> ProbeRun:
        return ProbeRun(
            id="pytorch-compile-lenet-bs8",
            framework="pytorch",
            mode="compile",
            model="lenet",
            batch_size=8,
            status="ok",
            images_per_second=ips,
            first_step_seconds=first_step,
            compile_seconds=compile_s,
            settings={"compile_cache": cache},
        )

    (merged,) = runner._merge_repeats([repeat(120.0, 5.0, 2.0, "cold"), repeat(100.0, 1.0, 0.5, "warm")])
    assert merged.images_per_second == 100.0
    assert (merged.first_step_seconds, merged.compile_seconds) == (5.0, 2.0)
    assert merged.settings["compile_cache"] == "cold"
    assert merged.settings["compile_seconds_repeats"] == [2.0, 0.5]
    assert "start_up_from" in merged.settings


def test_a_report_past_the_budget_says_the_whole_budget_not_more():
    """A 10 s first step, then 0.25 s steps with a 1 s budget: warmup is capped at 0.25 s of it after two
    steps (a report after the first), so a sample is one step. The budget is spent at the second sample
    (0.5 + 0.25 x 2 = 1 s), but the rule keeps five samples: reports after samples 1 to 4 at 0.75, 1, 1.25
    and 1.5 s of the 1 s budget read 0.75 and then 1.0: the share spent is never past the whole."""
    seen = []
    clock = _Clock(first=10.0)
    res = measure.run(
        clock.step, float, measure.Plan(budget_s=1.0, batch_size=8, t_crit=T9), on_progress=seen.append, clock=clock
    )
    assert (res["warmup_steps"], res["warmup_capped"], res["samples"], res["stop_reason"]) == (2, True, 5, "budget")
    assert [p["fraction"] for p in seen if p["phase"] == "measure"] == [0.75, 1.0, 1.0, 1.0]


# ---- found by a later fresh draw (seed 2032) -------------------------------------------------------------


def test_a_run_keeps_its_wall_seconds_to_a_millisecond_and_drops_the_raw_warmup_steps():
    """The worker's outcome took 12.34567 s: the run keeps 12.346. Its raw warmup step times (the warmup's
    own record) stay with the worker, not in the run."""
    from probes import launcher

    job = runner.Job("pytorch", "eager", "lenet", 8)
    result = {"status": "ok", "images_per_second": 100.0, "warmup_step_ms": [3.0, 2.0, 2.0]}
    run = runner._run_from_outcome(job, runner.ProbeConfig(), launcher.ChildOutcome("ok", result, seconds=12.34567))
    assert (run.status, run.seconds) == ("ok", 12.346)
    assert "warmup_step_ms" not in run.model_dump()


def test_the_drift_compares_the_first_and_last_thirds():
    """Twelve values, 1, 2 and 3 four times each: the first third's mean 1, the last's 3, a drift of
    (3 - 1) / 1 = 2. Nine values 1, 1, 3, 2, 2, 2, 3, 5, 5: thirds of three, (13/3 - 5/3) / (5/3) = 1.6 (the
    first and last quarters, two values each, would read (5 - 1) / 1 = 4). Fewer than six values: none."""
    assert stats.drift([1.0] * 4 + [2.0] * 4 + [3.0] * 4) == 2.0
    assert stats.drift([1.0, 1.0, 3.0, 2.0, 2.0, 2.0, 3.0, 5.0, 5.0]) == pytest.approx(1.6)
    assert stats.drift([1.0] * 5) is None


def test_no_mfu_against_a_peak_measured_on_another_device():
    """A CUDA run achieving 8 x 1e9 / 1e9 x 100 = 800 GFLOP/s, against a GEMM peak of 1,000 measured on the
    CPU: the achieved rate is kept, but no MFU (a ratio across devices says nothing)."""
    r = ProbeRun(
        id="a",
        framework="pytorch",
        mode="eager",
        model="resnet18",
        batch_size=8,
        device="cuda",
        status="ok",
        images_per_second=100.0,
        train_flops_per_image=8_000_000_000,
    )
    suite = ProbeSuite(gemm_peak={"pytorch": 1000.0}, gemm_details={"pytorch": {"device": "cpu"}})
    suite.runs = [r]
    runner._add_efficiency(suite)
    assert (r.achieved_gflops, r.mfu) == (800.0, None)


def test_a_worker_that_ran_and_failed_is_a_failed_run_not_an_unavailable_framework():
    """The child ended normally but its result says the run failed: a failed run with the worker's error;
    only a result saying "unavailable" (the framework is not installed) is an unavailable run."""
    from probes import launcher

    job = runner.Job("pytorch", "eager", "lenet", 8)
    failed = launcher.ChildOutcome("ok", {"status": "failed", "error": "out of memory"})
    unavailable = launcher.ChildOutcome("ok", {"status": "unavailable", "error": "no torch"})
    timeout = launcher.ChildOutcome("timeout", {"status": "unavailable"}, error="timed out")
    runs = [runner._run_from_outcome(job, runner.ProbeConfig(), o) for o in (failed, unavailable, timeout)]
    assert [(r.status, r.error) for r in runs] == [
        ("failed", "out of memory"),
        ("unavailable", "no torch"),
        ("timeout", "timed out"),
    ]
