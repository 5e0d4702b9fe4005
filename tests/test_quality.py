"""probes.quality on synthetic timings: the stable / noisy / unusable rule (drift, bursts, a bimodal
host, a CI that reaches 0) and the paired ratio of runs measured in alternation. No framework, no
clock: every figure below follows from the arithmetic of the synthetic samples."""

import math

import numpy as np
import pytest
from scipy import stats as st

from probes import quality
from probes.training.models import ProbeRun
from probes.training import stats


def facts(samples_ms, k=8, bs=32, **kw):
    run = ProbeRun(
        id="x",
        framework="pytorch",
        mode="eager",
        model="lenet",
        batch_size=bs,
        status="ok",
        sample_step_ms=list(samples_ms),
        steps_per_sample=k,
        settings=kw,
    )
    return quality.facts_of(run)


def grade(samples_ms, **kw):
    return quality.classify(facts(samples_ms, **kw))


def test_quantiles_come_from_scipy():
    assert quality.t_quantile(9) == pytest.approx(st.t.ppf(0.975, 9))
    assert quality.stop_rule_t() == pytest.approx(2.2621571627409915)
    assert quality.t_quantile(1) == pytest.approx(12.7062047, rel=1e-6)


def test_tight_samples_are_stable_with_a_scipy_interval():
    q, reasons = grade([1.0 + 0.01 * (-1) ** i for i in range(30)])
    assert (q, reasons) == ("stable", [])
    est, low, high = quality.throughput_ci([1.0] * 30, 8, 32)
    assert est == pytest.approx(32_000) and low == pytest.approx(est) and high == pytest.approx(est)


def test_slow_drift_is_noisy_and_strong_drift_unusable():
    # Linear 1.00 -> 1.12 ms: last third / first third = 1.101 / 1.019 = +8% (noisy, stable <= 5%);
    # CV 3.5% and the batch-means half-width ~2.4% stay within their stable bounds.
    q, reasons = grade(np.linspace(1.0, 1.12, 30))
    assert q == "noisy" and len(reasons) == 1 and reasons[0].startswith("drift")
    # 1.0 -> 1.6 ms: +41% drift (unusable above 25%).
    q, reasons = grade(np.linspace(1.0, 1.6, 30))
    assert q == "unusable" and any(r.startswith("drift") and "unusable" in r for r in reasons)


def test_bursts_raise_the_cv():
    # Two 1.5 ms stalls among 30 samples, mid-run: CV 12.3% -> noisy (drift 0, half-width 4.4%).
    s = [1.0] * 30
    s[12] = s[17] = 1.5
    q, reasons = grade(s)
    assert q == "noisy" and [r.split(" ")[0] for r in reasons] == ["step-time"]
    # Three 10 ms stalls: CV 145% -> unusable.
    s = [1.0] * 30
    s[5] = s[14] = s[25] = 10.0
    assert grade(s)[0] == "unusable"


def test_a_bimodal_host_is_never_stable():
    # Alternating 1 ms / 2 ms samples: CV 34% (noisy), every batch of 3 mixes both modes.
    q, reasons = grade([1.0, 2.0] * 15)
    assert q == "noisy" and any("CV 34%" in r for r in reasons)
    # The fast mode first, the slow one after: +100% drift -> unusable.
    assert grade([1.0] * 15 + [2.0] * 15)[0] == "unusable"


def test_an_interval_reaching_zero_is_unusable_not_clamped():
    # The case: a few wildly different samples. 5 samples, t(0.975, 4) = 2.776.
    f = facts([7.0, 2.5, 9.0, 3.1, 60.0], k=1)
    assert f.ci[1] < 0
    q, reasons = quality.classify(f)
    assert q == "unusable" and "reaches 0" in reasons[0]


def test_too_few_samples_are_unusable():
    assert grade([1.0, 1.0, 1.0, 1.0])[0] == "unusable"


def test_steal_and_contention_follow_their_bounds():
    tight = [1.0] * 30
    assert grade(tight, steal=0.04)[0] == "stable"
    assert grade(tight, steal=0.10)[0] == "noisy"
    assert grade(tight, steal=0.30)[0] == "unusable"
    q, reasons = grade(tight, contention=0.2, foreign_cores=1.4)
    assert q == "noisy" and "1.4 cores" in reasons[0]
    assert grade(tight, contention=0.6)[0] == "unusable"


def test_assess_replaces_a_worker_interval_and_skips_failed_runs():
    run = ProbeRun(
        id="x",
        framework="pytorch",
        mode="eager",
        model="lenet",
        batch_size=32,
        status="ok",
        ci95=[0.0, 9e9],
        sample_step_ms=[1.0] * 30,
        steps_per_sample=8,
    )
    quality.assess(run)
    assert run.ci95 == [pytest.approx(32_000), pytest.approx(32_000)] and run.quality == "stable"
    failed = ProbeRun(id="y", framework="pytorch", mode="eager", model="lenet", batch_size=32, status="failed")
    assert quality.assess(failed).quality is None


# ------------------------------------------------------------------ paired comparisons


def run(rid, ips, q="stable"):
    return ProbeRun(
        id=rid,
        framework="pytorch",
        mode="eager",
        model="lenet",
        batch_size=32,
        status="ok",
        images_per_second=ips,
        quality=q,
    )


def rounds_of(pairs, qa="stable", qb="stable"):
    return {r: {"a": run("a", a, qa), "b": run("b", b, qb)} for r, (a, b) in enumerate(pairs)}


def test_paired_ratio_follows_a_drifting_host():
    # The host slows 5% per run: A (true 2000 img/s) and B (true 1000) alternate A B A B ...
    # Each pair sees nearly the same slowdown, so the ratio stays within the within-pair step
    # (at most 5%) of the true 2, although A's first and B's last value differ by a factor 1.5.
    slow = [1 + 0.05 * t for t in range(10)]
    pairs = [(2000 / slow[2 * r], 1000 / slow[2 * r + 1]) for r in range(5)]
    c = quality.compare("lenet", "a", "b", rounds_of(pairs), {"a": "stable", "b": "stable"})
    assert c.pairs == 5 and c.decidable and abs(c.ratio / 2 - 1) < 0.05
    assert 1.0 < c.ci95[0] <= c.ratio <= c.ci95[1]
    assert pairs[0][0] / pairs[-1][1] == pytest.approx(2000 / 1000 * slow[9] / slow[0])


def test_paired_ratio_interval_is_the_t_interval_of_log_ratios():
    pairs = [(110.0, 100.0), (125.0, 100.0), (118.0, 100.0)]
    ratio, low, high = quality.paired_ratio(pairs)
    logs = np.log([1.10, 1.25, 1.18])
    half = st.t.ppf(0.975, 2) * logs.std(ddof=1) / math.sqrt(3)
    assert ratio == pytest.approx(math.exp(logs.mean()))
    assert (low, high) == (pytest.approx(math.exp(logs.mean() - half)), pytest.approx(math.exp(logs.mean() + half)))


def test_equal_runs_on_a_bimodal_host_are_not_decidable():
    # Both sides run at the same speed; rounds alternate between a fast and a slow host state,
    # with 3% jitter between the two runs of a pair: the ratio's CI includes 1.
    jitter = [1.03, 0.97, 1.02, 0.98]
    pairs = [((1000 if r % 2 else 500) * jitter[r], 1000 if r % 2 else 500) for r in range(4)]
    c = quality.compare("lenet", "a", "b", rounds_of(pairs), {"a": "noisy", "b": "noisy"})
    assert not c.decidable and c.quality == "noisy" and c.ci95[0] < 1 < c.ci95[1]
    assert any("includes 1" in r for r in c.reasons)
    assert any("quiet the host" in r and "--budget" in r and "--threads" in r for r in c.reasons)


def test_an_unusable_side_or_one_pair_never_decides():
    pairs = [(2000.0, 1000.0), (2100.0, 1000.0), (1950.0, 1000.0)]
    c = quality.compare("lenet", "a", "b", rounds_of(pairs, qb="unusable"), {"a": "stable", "b": "unusable"})
    assert not c.decidable and c.quality == "unusable" and c.pairs == 0
    assert "3 round(s) left out" in c.reasons[0] and "b is unusable" in c.reasons[1]
    one = quality.compare("lenet", "a", "b", rounds_of(pairs[:1]), {"a": "stable", "b": "stable"})
    assert not one.decidable and one.pairs == 1 and one.ratio == pytest.approx(2.0) and one.ci95 is None
    assert any("at least 2" in r for r in one.reasons)


def test_a_side_that_never_ran_is_named():
    c = quality.compare("lenet", "a", "b", {0: {"a": run("a", 100.0)}}, {"a": "stable", "b": None})
    assert not c.decidable and c.quality == "unusable" and "b did not run" in c.reasons


def test_comparisons_cover_every_pair_once():
    rounds = {0: {i: run(i, 100.0 * (n + 1)) for n, i in enumerate("abc")}}
    got = quality.comparisons("lenet", ["a", "b", "c"], rounds, dict.fromkeys("abc", "stable"))
    assert [(c.a, c.b) for c in got] == [("a", "b"), ("a", "c"), ("b", "c")]


def test_merged_repeats_worsen_with_their_spread():
    body = run("a", 100.0)
    quality.merge_quality(body, [90.0, 100.0, 160.0], usable=3, total=3)
    assert body.quality == "unusable" and "spread between 3 repeats" in body.quality_reasons[0]
    body = run("a", 100.0)
    quality.merge_quality(body, [95.0, 100.0, 110.0], usable=3, total=4)
    assert body.quality == "noisy" and "1 of 4 repeats unusable" in body.quality_reasons[-1]


def test_worker_stats_have_no_quantile_table():
    assert not hasattr(stats, "_T95") and not hasattr(stats, "t95")
