"""The serving measurement (pure python + numpy; used inside the deploy workers).

The training probe's rules applied to inference calls: the first call timed alone (it includes
lazy initialisation and, in graph engines, compilation) -> warmup until two windows of 5 calls agree
(capped at 25% of the budget) -> measurement of single calls, each returning host arrays (synced),
until the stop rule holds (>= MIN_LATENCY_SAMPLES calls, CV of the last 20 <= 5%, CI half-width
<= 2%) or the budget is spent. Latency percentiles come from single calls; throughput is images
over measured time at that batch size (calls are sequential: one request at a time).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Optional

import numpy as np

from probes.training import stats

# P99 needs about 100 calls before it is more than the maximum of what was seen.
MIN_LATENCY_SAMPLES = 100
WARMUP_CAP_FRAC = 0.25
MIN_WARMUP = 5
MIN_SAMPLES_HARD = 5  # kept even past the budget (up to 3x the budget)


def percentiles(ms: list[float]) -> dict:
    a = np.asarray(ms, dtype=np.float64)
    if a.size == 0:
        return {"n": 0}
    s = stats.summarize(ms)
    return {
        "n": int(a.size),
        "p50": float(np.percentile(a, 50)),
        "p95": float(np.percentile(a, 95)),
        "p99": float(np.percentile(a, 99)),
        "mean": s["mean"],
        "min": s["min"],
        "max": s["max"],
        "cv": s["cv"],
        "iqr_over_median": s["iqr_over_median"],
    }


def time_calls(
    call: Callable[[], Any],
    batch: int,
    budget_s: float,
    max_calls: Optional[int] = None,
    clock: Callable[[], float] = time.perf_counter,
) -> dict:
    """Drive `call()` (one inference that returns host arrays). Returns the first-call time,
    warmup, latency percentiles (ms), throughput (images/s, 95% CI) and why it stopped."""
    t0 = clock()
    call()
    first_s = clock() - t0
    n_calls = 1
    warm_ms: list[float] = []
    w_start = clock()
    capped = False
    # With a call cap, warmup gets at most half of it: the measurement always has calls left.
    warm_cap = None if max_calls is None else max(1, max_calls // 2)
    while warm_cap is None or n_calls < warm_cap:
        t = clock()
        call()
        warm_ms.append((clock() - t) * 1e3)
        n_calls += 1
        if len(warm_ms) >= MIN_WARMUP and stats.warmup_stable(warm_ms):
            break
        if clock() - w_start >= WARMUP_CAP_FRAC * budget_s and len(warm_ms) >= 2:
            capped = True
            break
    ms: list[float] = []
    secs: list[float] = []
    stop = "budget"
    while True:
        if max_calls is not None and n_calls >= max_calls:
            stop = "max_calls"
            break
        t = clock()
        call()
        dt = clock() - t
        n_calls += 1
        ms.append(dt * 1e3)
        secs.append(dt)
        elapsed = clock() - w_start
        if len(ms) >= MIN_LATENCY_SAMPLES and stats.converged(ms, secs, batch, t_crit(), MIN_LATENCY_SAMPLES):
            stop = "converged"
            break
        if elapsed >= budget_s and (len(ms) >= MIN_SAMPLES_HARD or elapsed >= 3 * budget_s):
            break
    ci = stats.batch_means_ci(secs, batch, t_crit()) if secs else None
    ips = batch * len(secs) / sum(secs) if secs and sum(secs) > 0 else None
    lat = percentiles(ms)
    warnings = stats.noise_warnings(stats.summarize(ms), ms) if ms else []
    if capped:
        warnings.append("warmup hit its cap (25% of the budget) before call times settled")
    if 0 < len(ms) < MIN_LATENCY_SAMPLES:
        warnings.append(
            f"only {len(ms)} timed calls: P99 is close to the slowest call seen "
            f"(a longer --budget gives >= {MIN_LATENCY_SAMPLES})"
        )
    return {
        "batch_size": batch,
        "first_call_seconds": first_s,
        "warmup_calls": len(warm_ms),
        "latency_ms": lat,
        "images_per_second": ips,
        "ci95": [ci[1], ci[2]] if ci else None,
        "calls": n_calls,
        "stop_reason": stop,
        "warnings": warnings,
    }


def serve_all(
    make_call: Callable[[int], Callable[[], Any]],
    batch_sizes: list[int],
    budget_s: float,
    max_calls: Optional[int] = None,
    clock: Callable[[], float] = time.perf_counter,
) -> list[dict]:
    """time_calls for each batch size (make_call(b) prepares the input once, outside the clock)."""
    return [time_calls(make_call(b), b, budget_s, max_calls, clock) for b in batch_sizes]


# t(0.975, N_BATCHES - 1) = t(0.975, 9), for a timer that runs in the parent without ADVISOR_T_CRIT.
# Written out so that this module (imported by the workers) never reaches scipy; a test pins it to
# scipy's value and to N_BATCHES, so it cannot drift.
T_CRIT_975_DF9 = 2.262157162798205


def t_crit() -> float:
    """t(0.975, batches - 1) for the stop rule and the interval: computed with scipy in the parent
    (probes.quality.stop_rule_t) and handed over in ADVISOR_T_CRIT, as the training workers get it."""
    import os

    value = os.environ.get("ADVISOR_T_CRIT")
    return float(value) if value is not None else T_CRIT_975_DF9
