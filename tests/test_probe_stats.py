"""probes.training.stats value by value: the timing summary, the batch-means interval, the stop rule
and the noise warnings, each expected number worked out by hand from the formula in its docstring
(numpy's linear-interpolation percentiles, sample standard deviations), thresholds tested on both sides
of their boundary."""

import math

import pytest

from probes.training import stats


def test_summarize_four_steps():
    s = stats.summarize([1.0, 2.0, 3.0, 4.0])
    sd = math.sqrt((1.5**2 + 0.5**2 + 0.5**2 + 1.5**2) / 3)  # ddof=1
    assert s == pytest.approx(
        {
            "n": 4,
            "median": 2.5,
            "mean": 2.5,
            "p10": 1.3,  # 1 + 0.1 * 3 (linear between the ranks)
            "p90": 3.7,
            "min": 1.0,
            "max": 4.0,
            "cv": sd / 2.5,
            "iqr_over_median": (3.25 - 1.75) / 2.5,
        }
    )


def test_summarize_of_nothing_of_one_step_and_of_zero_times():
    assert stats.summarize([]) == {"n": 0}
    one = stats.summarize([5.0])
    assert one["n"] == 1 and one["cv"] == 0.0 and one["iqr_over_median"] == 0.0 and one["median"] == 5.0
    zeros = stats.summarize([0.0, 0.0])
    assert zeros["cv"] == 0.0 and zeros["iqr_over_median"] == 0.0  # no division by a zero mean or median


def test_batch_rates_split_the_samples_into_contiguous_groups():
    estimate, rates = stats.batch_rates([1.0, 1.0, 2.0, 2.0], 10.0, n_batches=2)
    assert estimate == pytest.approx(10.0 * 4 / 6.0)  # items over total time, not the mean of rates
    assert list(rates) == [10.0, 5.0]  # 2 samples of 10 items in 2 s; then in 4 s
    _, singles = stats.batch_rates([1.0, 1.0, 2.0, 2.0], 10.0)  # more batches than samples: one each
    assert list(singles) == [10.0, 10.0, 5.0, 5.0]


def test_batch_rates_need_four_samples_time_and_two_groups():
    assert stats.batch_rates([1.0, 1.0, 1.0], 10.0) is None
    assert stats.batch_rates([0.0] * 4, 10.0) is None
    assert stats.batch_rates([1.0] * 4, 10.0, n_batches=1) is None
    assert stats.batch_rates([1.0] * 4, 10.0, n_batches=2) is not None


def test_batch_means_ci_is_t_times_the_standard_error_of_the_batch_rates():
    estimate, low, high = stats.batch_means_ci([1.0, 1.0, 2.0, 2.0], 10.0, t_crit=2.0, n_batches=2)
    half = 2.0 * math.sqrt(((10 - 7.5) ** 2 + (5 - 7.5) ** 2) / 1) / math.sqrt(2)  # = 5
    assert (estimate, low, high) == pytest.approx((20 / 3, 20 / 3 - half, 20 / 3 + half))
    assert half == pytest.approx(5.0)
    assert stats.batch_means_ci([1.0] * 3, 10.0, t_crit=2.0) is None


def test_warmup_is_stable_when_two_windows_agree_within_the_tolerance():
    assert not stats.warmup_stable([1.0] * 3, window=2)  # fewer than two windows
    assert stats.warmup_stable([1.0] * 4, window=2)
    assert stats.warmup_stable([4.0, 4.0, 5.0, 5.0], window=2, tol=0.25)  # exactly at the tolerance
    assert not stats.warmup_stable([4.0, 4.0, 5.2, 5.2], window=2, tol=0.25)
    assert not stats.warmup_stable([5.2, 5.2, 4.0, 4.0], window=2, tol=0.2)  # faster counts as well
    assert not stats.warmup_stable([0.0, 0.0, 1.0, 1.0], window=2, tol=10.0)  # no ratio to a zero median
    assert not stats.warmup_stable([1.0] * 9) and stats.warmup_stable([1.0] * 10)  # default: two windows of 5
    assert stats.warmup_stable([1.0] * 5 + [1.02] * 5) and not stats.warmup_stable([1.0] * 5 + [1.04] * 5)


def test_drift_compares_the_first_and_last_thirds():
    assert stats.drift([1.0] * 5) is None
    assert stats.drift([1.0, 1.0, 2.0, 2.0, 3.0, 3.0]) == pytest.approx(2.0)
    assert stats.drift([1.0, 1.0, 5.0, 5.0, 5.0, 3.0, 3.0]) == pytest.approx(2.0)  # thirds of 7: 2 each end
    assert stats.drift([3.0, 3.0, 2.0, 2.0, 1.0, 1.0]) == pytest.approx(-2 / 3)
    assert stats.drift([0.0, 0.0, 1.0, 1.0, 2.0, 2.0]) is None


def _seconds(ms: list[float]) -> list[float]:
    return [m / 1000 for m in ms]


def test_converged_after_enough_steady_samples_with_a_tight_interval():
    steady = [10.0] * 30
    assert stats.converged(steady, _seconds(steady), 8.0, t_crit=2.262)
    assert not stats.converged(steady[:29], _seconds(steady[:29]), 8.0, t_crit=2.262)  # under min_samples
    assert stats.converged(steady[:20], _seconds(steady[:20]), 8.0, t_crit=2.262, min_samples=20)


def test_not_converged_when_the_last_steps_vary_or_the_interval_is_wide():
    noisy = [10.0, 12.0] * 15  # CV of the last 20 about 9.7%, over 5%
    assert not stats.converged(noisy, _seconds(noisy), 8.0, t_crit=2.262)
    assert stats.converged(noisy, _seconds([10.0] * 30), 8.0, t_crit=2.262, cv_target=0.10)
    zeros = [0.0] * 30
    assert not stats.converged(zeros, _seconds([10.0] * 30), 8.0, t_crit=2.262)
    # Steady steps, but the sample times (the interval's input) spread 2x: half-width over 2%.
    wide = [10.0] * 15 + [20.0] * 15
    assert not stats.converged([10.0] * 30, _seconds(wide), 8.0, t_crit=2.262)
    assert stats.converged([10.0] * 30, _seconds(wide), 8.0, t_crit=2.262, ci_target=1.0)


def test_noise_warnings_at_and_under_their_thresholds():
    quiet = {"n": 3, "cv": 0.099, "iqr_over_median": 0.099}
    assert stats.noise_warnings(quiet, [20.0] * 4 + [21.0] * 2) == []  # drift exactly 5%: not over it
    loud = {"n": 3, "cv": 0.10, "iqr_over_median": 0.10}
    assert stats.noise_warnings(loud, [1.0] * 5) == [
        "noisy: step-time CV 10% (>= 10%)",
        "noisy: IQR/median 10% (>= 10%)",
    ]
    assert stats.noise_warnings({"n": 2, "cv": 0.5, "iqr_over_median": 0.5}, []) == []  # too few steps
    assert stats.noise_warnings({"n": 0}, [10.0, 10.0, 10.0, 10.0, 10.6, 10.6]) == [
        "drift: step time rose 6% from the first third of the measurement to the last"
    ]
    assert stats.noise_warnings({"n": 0}, [10.6, 10.6, 10.0, 10.0, 10.0, 10.0]) == [
        "drift: step time fell 6% from the first third of the measurement to the last"
    ]
