"""The probe result path, value by value: the step-time summary, the batch rates and the stop rule, the
measurement protocol's own clock and loss check, the load around a run, and the checks a result file
must pass beyond its model (advisor.result_checks). Each expected number is worked from the formula."""

from __future__ import annotations

import math
import os
from types import SimpleNamespace

import numpy as np
import pytest

from advisor.result_checks import first_problem
from probes.training import measure, runner, stats

T9 = 2.262157  # t(0.975, 9): the quantile the parent passes for 10 batch means


# ---- the step-time summary --------------------------------------------------------------------------


def test_two_steps_have_a_sample_standard_deviation():
    """[1, 3] ms: mean 2, sample standard deviation sqrt(2) (n - 1 = 1), CV sqrt(2) / 2."""
    s = stats.summarize([1.0, 3.0])
    assert s["cv"] == pytest.approx(math.sqrt(2) / 2, rel=1e-12)
    assert (s["n"], s["median"], s["min"], s["max"]) == (2, 2.0, 1.0, 3.0)


def test_steps_under_a_millisecond_keep_their_cv():
    """[0.4, 0.6] ms: mean 0.5 (a positive mean, though under 1), std 0.1414, CV 0.2828."""
    s = stats.summarize([0.4, 0.6])
    assert s["cv"] == pytest.approx(math.sqrt(0.02) / 0.5, rel=1e-12)
    assert s["iqr_over_median"] == pytest.approx((0.55 - 0.45) / 0.5, rel=1e-12)
    assert (s["p10"], s["p90"]) == (pytest.approx(0.42), pytest.approx(0.58))


def test_a_group_of_zero_seconds_is_left_out_of_the_batch_rates():
    """Six samples of 8 items in six groups; two took no measurable time: the four others give 8 items/s
    each, the estimate is 8 x 6 / 4 s = 12 items/s."""
    estimate, rates = stats.batch_rates([0.0, 0.0, 1.0, 1.0, 1.0, 1.0], 8.0, n_batches=6)
    assert estimate == 12.0
    assert rates.tolist() == [8.0, 8.0, 8.0, 8.0]


def test_warmup_needs_exactly_two_full_windows():
    assert stats.warmup_stable([1.0] * 10)  # two windows of 5, equal
    assert not stats.warmup_stable([1.0] * 9)
    assert not stats.warmup_stable([2.0] * 5 + [1.0] * 5)  # the earlier window half as fast
    # Only the last two windows: slow steps before them do not count.
    assert stats.warmup_stable([3.0] * 5 + [1.0] * 10)


def test_the_stop_rule_reads_the_cv_of_the_last_20_samples_only():
    """30 samples: the 21st from the end is an outlier (100 ms among 10 ms); the last 20 have CV 0 and
    the batch rates agree, so the rule holds. One more outlier inside the last 20 and it does not."""
    ms = [10.0] * 9 + [100.0] + [10.0] * 20
    seconds = [0.01] * 30
    assert stats.converged(ms, seconds, 32, T9)
    assert not stats.converged([10.0] * 10 + [100.0] + [10.0] * 19, seconds, 32, T9)


# ---- the measurement protocol -----------------------------------------------------------------------


class _Clock:
    def __init__(self, step_s, loss=lambda i: 2.3 / (1 + i)):
        self.t, self.step_s, self.loss = 0.0, step_s, loss

    def __call__(self) -> float:
        return self.t

    def step(self, i: int) -> float:
        self.t += self.step_s(i)
        return self.loss(i)


def test_the_measured_seconds_are_the_measurement_phase_alone():
    """2 ms steps after a 2 s first step: samples of 5 steps (10 ms), converged at 30 samples: 150 steps,
    0.3 s measured (the first step and the warmup not counted)."""
    clock = _Clock(lambda i: 2.0 if i == 0 else 0.002)
    res = measure.run(clock.step, float, measure.Plan(budget_s=5.0, batch_size=32, t_crit=T9), clock=clock)
    assert (res["stop_reason"], res["samples"], res["steps_per_sample"]) == ("converged", 30, 5)
    assert res["measured_seconds"] == pytest.approx(0.3, rel=1e-9)
    assert res["warmup_seconds"] == pytest.approx(0.002 * res["warmup_steps"], rel=1e-9)


def test_a_loss_below_its_first_value_in_any_of_the_last_three_samples_has_fallen():
    """The loss falls to 1.0 and jumps to 9.0 in the last sample only: one of the last three is below the
    first (2.3), so no "did not fall" warning (the worst of the three would say it did not)."""
    clock = _Clock(lambda i: 0.001, loss=lambda i: 2.3 if i == 0 else (9.0 if i >= 45 else 1.0))
    res = measure.run(
        clock.step, float, measure.Plan(budget_s=100.0, batch_size=8, t_crit=T9, max_steps=60), clock=clock
    )
    assert res["loss_last"] == 9.0 and res["loss_first"] == 2.3
    assert not any("loss did not fall" in w for w in res["warnings"])


def test_slow_steps_are_measured_one_a_sample_up_to_the_hard_minimum_past_the_budget():
    """0.2 s steps, a 1 s budget: warmup capped after 2 steps (0.4 s), then samples of 1 step (a step is
    over 10 ms); the budget is spent after 3 samples, but fewer than 5 (min_samples_hard) are kept going
    up to 3 budgets: 5 samples, 1.4 s in all."""
    clock = _Clock(lambda i: 0.2)
    res = measure.run(clock.step, float, measure.Plan(budget_s=1.0, batch_size=8, t_crit=T9), clock=clock)
    assert (res["warmup_steps"], res["steps_per_sample"], res["samples"], res["stop_reason"]) == (2, 1, 5, "budget")


def test_steps_of_a_whole_budget_stop_at_three_budgets_with_what_they_have():
    """1 s steps, a 1 s budget: 2 warmup steps (2 s), then one sample reaches 3 s, three budgets: stop."""
    clock = _Clock(lambda i: 1.0)
    res = measure.run(clock.step, float, measure.Plan(budget_s=1.0, batch_size=8, t_crit=T9), clock=clock)
    assert (res["warmup_steps"], res["samples"], res["stop_reason"]) == (2, 1, "budget")


def test_a_loss_above_its_first_value_in_all_of_the_last_three_samples_did_not_fall():
    """The samples end at steps 20, 30, 40 and 50; the loss is 9.0 from step 25: the last three samples
    are all above the first loss (2.3), though the one before them (1.0) is not: "did not fall"."""
    clock = _Clock(lambda i: 0.001, loss=lambda i: 2.3 if i == 0 else (9.0 if i >= 25 else 1.0))
    res = measure.run(
        clock.step, float, measure.Plan(budget_s=100.0, batch_size=8, t_crit=T9, max_steps=60), clock=clock
    )
    assert res["samples"] == 4 and res["steps_per_sample"] == 10
    assert any(w.startswith("loss did not fall (2.3 -> 9)") for w in res["warnings"]), res["warnings"]


# ---- the load around a run --------------------------------------------------------------------------


def test_no_contention_is_claimed_without_both_snapshots_or_without_time():
    snap = {"busy": 1000.0, "total": 4000.0, "steal": 0.0}
    later = {"busy": 1400.0, "total": 4400.0, "steal": 0.0}
    for before, after, wall in ((None, later, 2.0), (snap, None, 2.0), (snap, later, 0.0)):
        try:
            out = runner.run_load(before, after, 1.0, wall, 2)
        except Exception as exc:  # noqa: BLE001 - the rule under test is that it answers, not raises
            pytest.fail(f"run_load({before}, {after}, wall {wall}) raised {exc!r}")
        assert "contention" not in out and "foreign_cores" not in out, out
    # 400 clock ticks busy over 2 s of wall, 1 s of it this child's: 1.5 other cores.
    hz = os.sysconf("SC_CLK_TCK")
    assert runner.run_load(snap, later, 1.0, 2.0, 2)["foreign_cores"] == round((400 / hz - 1.0) / 2.0, 2)
    assert "foreign_cores" in runner.run_load(snap, later, 0.1, 0.5, 2)  # under a second of wall still counts


def test_the_load_over_the_timed_measurement_from_the_workers_two_snapshots():
    """Over 1 s: 3 CPU-s in all, 1 of them stolen (a third, to 4 places), 2 busy of which 1 this worker's:
    one other core busy; 2 threads on 2 cores, so the other process took half of the run's threads."""
    a = {"wall_s": 10.0, "total_s": 30.0, "busy_s": 5.0, "self_cpu_s": 2.0, "steal_s": 0.5, "cpus": 2}
    b = {"wall_s": 11.0, "total_s": 33.0, "busy_s": 7.0, "self_cpu_s": 3.0, "steal_s": 1.5, "cpus": 2}
    assert runner.window_load([a, b], threads=2) == {
        "steal": 0.3333,
        "foreign_cores": 1.0,
        "contention": 0.5,
        "load_measured_over": "the timed measurement",
    }
    assert runner.window_load([a, a], threads=2) is None  # no time passed
    # 2.234 busy, 1 own: 1.234 other cores, to 2 places; the contention (1.234 + 2 - 2) / 2 to 3
    busier = {**b, "busy_s": 7.234}
    assert runner.window_load([a, busier], threads=2)["foreign_cores"] == 1.23
    assert runner.window_load([a, busier], threads=2)["contention"] == 0.617
    assert runner.window_load(None, threads=2) is None


def test_two_repeats_are_merged_into_the_lower_middle_one():
    """--repeat 2: 120 then 100 images/s; the number shown is the lower middle one (100) and both are
    listed in the order they ran."""
    from probes.training.models import ProbeRun

    def repeat(ips: float) -> ProbeRun:
        return ProbeRun(
            id="pytorch-eager-lenet-bs8",
            framework="pytorch",
            mode="eager",
            model="lenet",
            batch_size=8,
            status="ok",
            images_per_second=ips,
            ci95=[ips - 2.0, ips + 2.0],
        )

    (merged,) = runner._merge_repeats([repeat(120.0), repeat(100.0)])
    assert merged.images_per_second == 100.0
    assert merged.repeats == [120.0, 100.0]
    assert merged.ci95 == [98.0, 102.0]
    # Only the first repeat compiled: every repeat's compile time is listed, None where it had none
    first, second = repeat(120.0), repeat(100.0)
    first.compile_seconds = 1.5
    (merged,) = runner._merge_repeats([first, second])
    assert merged.settings["compile_seconds_repeats"] == [1.5, None]
    # Repeats that all failed: nothing to take a median of; the first is kept as it ran.
    failed = [repeat(120.0).model_copy(update={"status": "failed", "images_per_second": None}) for _ in range(2)]
    try:
        (kept,) = runner._merge_repeats(failed)
    except Exception as exc:  # noqa: BLE001 - the rule under test is that it answers, not raises
        pytest.fail(f"merging two failed repeats raised {exc!r}")
    assert kept is failed[0]


# ---- what a result file must hold beyond its model --------------------------------------------------


def _gap(ci95, per_seed, mean=0.01):
    return SimpleNamespace(ci95=ci95, per_seed=per_seed, mean=mean)


def test_an_accuracy_result_is_checked_gap_by_gap_and_run_by_run():
    ok = SimpleNamespace(gaps=[_gap([-0.01, 0.02], [0.0, 0.01])], runs=[SimpleNamespace(final_accuracy=0.98)])
    assert first_problem("accuracy", ok) is None
    one_end = SimpleNamespace(gaps=[_gap([0.01], [0.0])], runs=[])
    assert first_problem("accuracy", one_end) == "gaps[0]: expected ci95 [low, high] and per_seed values"
    no_seeds = SimpleNamespace(gaps=[_gap([0.0, 0.1], [])], runs=[])
    assert first_problem("accuracy", no_seeds) == "gaps[0]: expected ci95 [low, high] and per_seed values"
    beyond = SimpleNamespace(gaps=[_gap([0.0, 0.1], [0.0]), _gap([0.0, 1.5], [0.1])], runs=[])
    assert first_problem("accuracy", beyond) == "gaps[1]: an accuracy gap beyond 1 (accuracies are fractions 0-1)"
    assert first_problem("accuracy", SimpleNamespace(gaps=[_gap([0.0, 0.1], [0.0], mean=-1.01)], runs=[])) == (
        "gaps[0]: an accuracy gap beyond 1 (accuracies are fractions 0-1)"
    )
    runs = [
        SimpleNamespace(final_accuracy=None),
        SimpleNamespace(final_accuracy=1.0),
        SimpleNamespace(final_accuracy=98.0),
    ]
    assert first_problem("accuracy", SimpleNamespace(gaps=[], runs=runs)) == (
        "runs[2].final_accuracy: 98.0 is not a fraction 0-1"
    )
    assert first_problem("accuracy", SimpleNamespace(gaps=[], runs=[SimpleNamespace(final_accuracy=0.0)])) is None
    assert first_problem("accuracy", SimpleNamespace(gaps=[], runs=[SimpleNamespace(final_accuracy=1.5)])) == (
        "runs[0].final_accuracy: 1.5 is not a fraction 0-1"
    )


def _way(end_to_end, steady):
    return SimpleNamespace(end_to_end_tokens_per_second=end_to_end, steady_tokens_per_second=steady)


def test_a_transformer_result_needs_positive_rates_wherever_it_gives_one():
    good = SimpleNamespace(
        runs=[SimpleNamespace(tokens_per_second=None), SimpleNamespace(tokens_per_second=120.0)],
        dynamic=[SimpleNamespace(ways=[_way(None, 50.0), _way(10.0, None)])],
    )
    assert first_problem("gpt", good) is None
    zero_run = SimpleNamespace(
        runs=[SimpleNamespace(tokens_per_second=1.0), SimpleNamespace(tokens_per_second=0.0)], dynamic=[]
    )
    assert first_problem("gpt", zero_run) == "runs[1].tokens_per_second: 0.0: expected a positive rate"
    steady = SimpleNamespace(
        runs=[], dynamic=[SimpleNamespace(ways=[]), SimpleNamespace(ways=[_way(5.0, 1.0), _way(5.0, -2.0)])]
    )
    assert first_problem("gpt", steady) == "dynamic[1].ways[1].steady_tokens_per_second: -2.0: expected a positive rate"
    end = SimpleNamespace(runs=[], dynamic=[SimpleNamespace(ways=[_way(0.0, 3.0)])])
    assert first_problem("gpt", end) == "dynamic[0].ways[0].end_to_end_tokens_per_second: 0.0: expected a positive rate"


def test_a_kind_without_checks_has_no_problem_beyond_its_model():
    assert first_problem("deploy", SimpleNamespace()) is None


def test_nan_rates_are_no_positive_rate():
    nan_run = SimpleNamespace(runs=[SimpleNamespace(tokens_per_second=float(np.nan))], dynamic=[])
    assert first_problem("gpt", nan_run) == "runs[0].tokens_per_second: nan: expected a positive rate"
