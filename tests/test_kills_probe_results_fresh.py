"""The probe result path, for the mutants a fresh draw (seed 2028) found surviving: the stop rule's
confidence-interval half-width, the warmup's median of its last five steps, the measurement's budget
clock, the progress throttle, the steal share's rounding, the worker's message kind kept out of a run,
and the achieved GFLOP/s only for runs that finished. Each expected number is worked from the code's
own rule with a clock that moves only when a step runs."""

from __future__ import annotations


from probes import launcher
from probes.training import measure, runner, stats
from probes.training.models import ProbeConfig, ProbeRun, ProbeSuite

T9 = 2.262157  # t(0.975, 9): the quantile the parent passes for 10 batch means


class _Clock:
    """Time moves by `step_s(i)` when step i runs, and at no other moment."""

    def __init__(self, step_s, loss=lambda i: 2.3 / (1 + i)):
        self.t, self.step_s, self.loss = 0.0, step_s, loss

    def __call__(self) -> float:
        return self.t

    def step(self, i: int) -> float:
        self.t += self.step_s(i)
        return self.loss(i)


def test_the_stop_rule_compares_the_ci_half_width_not_a_third_of_it():
    """30 samples of equal step time (CV 0) whose seconds differ by batch: the batch-means interval has
    some half-width h around the estimate e. The rule holds at a target of 1.001 h / e (h against the
    estimate, not against the low end e - h) and fails at 0.8 h / e, which a third of the width (0.67 h)
    would still pass."""
    ms = [10.0] * 30
    seconds = [0.01 * (1 + 0.02 * (i % 4)) for i in range(30)]
    est, low, high = stats.batch_means_ci(seconds, 32, T9)
    half = (high - low) / 2
    assert half > 0
    assert half / est > 0.002  # wide enough that the low end would fail the 1.001 target
    assert stats.converged(ms, seconds, 32, T9, ci_target=1.001 * half / est)
    assert not stats.converged(ms, seconds, 32, T9, ci_target=0.8 * half / est)


def test_the_sample_size_comes_from_the_median_of_the_last_five_warmup_steps():
    """Warmup steps of 1, 1, 1, 3, 3 ms twice: the two windows' medians agree (1 ms), so warmup stops
    after ten. The last five sorted are [1, 1, 1, 3, 3]: median 1 ms, so a 10 ms sample holds
    ceil(10 / 1) = 10 steps (the last six would give 3 ms and 4 steps)."""
    warm = [0.001, 0.001, 0.001, 0.003, 0.003] * 2
    clock = _Clock(lambda i: 0.5 if i == 0 else (warm[i - 1] if i <= 10 else 0.001))
    res = measure.run(clock.step, float, measure.Plan(budget_s=5.0, batch_size=8, t_crit=T9), clock=clock)
    assert res["warmup_steps"] == 10 and not res["warmup_capped"]
    assert res["steps_per_sample"] == 10


def test_the_median_is_the_middle_of_the_last_five_not_of_six_nor_their_second():
    """Warmup steps of 3, 3, 3, 1, 1 then 1, 3, 3, 3, 1 ms (both windows' medians 3 ms). The last five
    sorted are [1, 1, 3, 3, 3]: the middle one is 3 ms, so a 10 ms sample holds ceil(10 / 3) = 4 steps;
    the middle of the last six ([1, 1, 1, 3, 3, 3]) or the second of the five would be 1 ms, 10 steps."""
    warm = [0.003, 0.003, 0.003, 0.001, 0.001, 0.001, 0.003, 0.003, 0.003, 0.001]
    clock = _Clock(lambda i: 0.5 if i == 0 else (warm[i - 1] if i <= 10 else 0.003))
    res = measure.run(clock.step, float, measure.Plan(budget_s=5.0, batch_size=8, t_crit=T9), clock=clock)
    assert res["warmup_steps"] == 10 and not res["warmup_capped"]
    assert res["steps_per_sample"] == 4


def _slow_run(on_progress=None) -> dict:
    """A 10 s first step, then 0.25 s steps with a 3 s budget: warmup is capped at 0.75 s (three steps),
    each sample is one step, and the budget holds at 0.75 + 0.25 n >= 3 s of the run after the first
    step: n = 9 samples (none converge: the rule needs 30)."""
    clock = _Clock(lambda i: 10.0 if i == 0 else 0.25)
    return measure.run(
        clock.step, float, measure.Plan(budget_s=3.0, batch_size=8, t_crit=T9), on_progress=on_progress, clock=clock
    )


def test_the_budget_counts_from_the_warmups_start_not_from_the_clocks_zero():
    res = _slow_run()
    assert (res["warmup_steps"], res["warmup_capped"]) == (3, True)
    assert (res["stop_reason"], res["steps_per_sample"], res["samples"]) == ("budget", 1, 9)


def test_progress_is_reported_after_every_sample_longer_than_a_fifth_of_a_second():
    """In the run above, each 0.25 s sample is past the 0.2 s throttle: a report after each of the first
    eight samples (the ninth ends the run before its report)."""
    seen = []
    _slow_run(on_progress=seen.append)
    assert sum(1 for p in seen if p["phase"] == "measure") == 8


def test_progress_waits_a_fifth_of_a_second_since_the_last_report():
    """A 10 s first step, then 0.125 s steps with a 2 s budget: warmup capped at 0.5 s (four steps, the
    last report after the second, at 0.25 s), then one step a sample until 0.5 + 0.125 n >= 2: n = 12.
    A sample reports when more than 0.2 s passed since the last report: after samples 1, 3, 5, 7, 9 and
    11 (0.375 s, then 0.25 s apart), six reports, not one a sample."""
    seen = []
    clock = _Clock(lambda i: 10.0 if i == 0 else 0.125)
    res = measure.run(
        clock.step, float, measure.Plan(budget_s=2.0, batch_size=8, t_crit=T9), on_progress=seen.append, clock=clock
    )
    assert (res["warmup_steps"], res["samples"]) == (4, 12)
    assert sum(1 for p in seen if p["phase"] == "measure") == 6


def test_the_steal_share_is_kept_to_four_places():
    """1 tick stolen of 3 between the snapshots: 1/3, kept as 0.3333 (not 0.33333)."""
    before = {"busy": 0.0, "total": 0.0, "steal": 0.0}
    after = {"busy": 2.0, "total": 3.0, "steal": 1.0}
    assert runner.run_load(before, after, 0.0, 1.0, 1)["steal"] == 0.3333


def test_the_workers_message_kind_does_not_become_a_field_of_the_run():
    job = runner.Job("pytorch", "eager", "lenet", 8)
    out = launcher.ChildOutcome(status="ok", result={"kind": "result", "status": "ok", "images_per_second": 100.0})
    run = runner._run_from_outcome(job, ProbeConfig(), out)
    assert run.status == "ok" and run.images_per_second == 100.0
    assert "kind" not in run.model_dump()


def test_a_run_that_did_not_finish_gets_no_achieved_rate():
    """A failed run that still carries a rate and a FLOP count (a worker's partial result) is skipped: only
    a finished run's images/s x FLOPs/image is an achieved rate."""
    failed = ProbeRun(
        id="a",
        framework="pytorch",
        mode="eager",
        model="resnet18",
        batch_size=8,
        device="cpu",
        status="failed",
        images_per_second=20.0,
        train_flops_per_image=3_328_997_376,
    )
    suite = ProbeSuite(gemm_peak={"pytorch": 300.0}, gemm_details={"pytorch": {"device": "cpu"}})
    suite.runs = [failed]
    runner._add_efficiency(suite)
    assert failed.achieved_gflops is None and failed.mfu is None
