"""Timing statistics for the probe (pure python + numpy; used inside the workers).

Step times are autocorrelated (caches, allocator, frequency), so the throughput CI is built from
batch means (the samples split into contiguous groups), not from a naive t-test on single steps.
The Student-t quantile comes from the parent (scipy.stats, probes.quality): the workers stay
free of scipy, and no quantile table is kept here.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

# The stop rule's interval uses this many contiguous batch means (>= 30 samples: always 10), so the
# parent passes one quantile, t(0.975, N_BATCHES - 1), on the worker's command line.
N_BATCHES = 10


def summarize(step_ms: Sequence[float]) -> dict:
    """median, mean, p10, p90, min, max, cv, iqr_over_median, n of per-step times (ms)."""
    a = np.asarray(step_ms, dtype=np.float64)
    if a.size == 0:
        return {"n": 0}
    med = float(np.median(a))
    mean = float(a.mean())
    q25, q75 = np.percentile(a, [25, 75])
    std = float(a.std(ddof=1)) if a.size > 1 else 0.0
    return {
        "n": int(a.size),
        "median": med,
        "mean": mean,
        "p10": float(np.percentile(a, 10)),
        "p90": float(np.percentile(a, 90)),
        "min": float(a.min()),
        "max": float(a.max()),
        "cv": std / mean if mean > 0 else 0.0,
        "iqr_over_median": float(q75 - q25) / med if med > 0 else 0.0,
    }


def batch_rates(
    sample_seconds: Sequence[float], items_per_sample: float, n_batches: int = N_BATCHES
) -> Optional[tuple[float, np.ndarray]]:
    """(estimate, per-batch throughputs): the samples split into at most `n_batches` contiguous
    groups, each group's throughput one observation. None with fewer than 4 samples."""
    s = np.asarray(sample_seconds, dtype=np.float64)
    if s.size < 4 or s.sum() <= 0:
        return None
    estimate = items_per_sample * s.size / float(s.sum())
    groups = np.array_split(s, min(s.size, n_batches))
    rates = np.array([items_per_sample * g.size / g.sum() for g in groups if g.size and g.sum() > 0])
    return (estimate, rates) if rates.size >= 2 else None


def batch_means_ci(
    sample_seconds: Sequence[float], items_per_sample: float, t_crit: float, n_batches: int = N_BATCHES
) -> Optional[tuple[float, float, float]]:
    """Throughput (items/s) with a 95% CI from batch means: (estimate, low, high); `t_crit` is
    t(0.975, batches - 1) from the caller. The low end is NOT clamped at 0: a low end at or
    below 0 means the run cannot bound its own throughput (probes.quality calls it unusable)."""
    got = batch_rates(sample_seconds, items_per_sample, n_batches)
    if got is None:
        return None
    estimate, rates = got
    half = t_crit * float(rates.std(ddof=1)) / math.sqrt(rates.size)
    return estimate, estimate - half, estimate + half


def warmup_stable(step_ms: Sequence[float], window: int = 5, tol: float = 0.03) -> bool:
    """Two consecutive windows agree: median of the last `window` within `tol` of the previous."""
    if len(step_ms) < 2 * window:
        return False
    last = float(np.median(step_ms[-window:]))
    prev = float(np.median(step_ms[-2 * window : -window]))
    return prev > 0 and abs(last / prev - 1.0) <= tol


def drift(values: Sequence[float]) -> Optional[float]:
    """Relative change of the mean from the first third to the last third (None if < 6 values)."""
    if len(values) < 6:
        return None
    third = len(values) // 3
    first = float(np.mean(values[:third]))
    last = float(np.mean(values[-third:]))
    return (last - first) / first if first > 0 else None


def converged(
    sample_ms: Sequence[float],
    sample_seconds: Sequence[float],
    items_per_sample: float,
    t_crit: float,
    min_samples: int = 30,
    cv_target: float = 0.05,
    ci_target: float = 0.02,
) -> bool:
    """The protocol's stop rule: >= min_samples, CV of the last 20 <= cv_target, CI half-width
    <= ci_target of the estimate (`t_crit` = t(0.975, N_BATCHES - 1), from the parent)."""
    if len(sample_ms) < min_samples:
        return False
    tail = np.asarray(sample_ms[-20:], dtype=np.float64)
    if tail.mean() <= 0 or tail.std(ddof=1) / tail.mean() > cv_target:
        return False
    ci = batch_means_ci(sample_seconds, items_per_sample, t_crit)
    return ci is not None and (ci[2] - ci[1]) / 2 <= ci_target * ci[0]


def noise_warnings(summary: dict, sample_ms: Sequence[float]) -> list[str]:
    """The protocol's warnings: CV >= 10%, IQR/median >= 10%, drift > 5%."""
    out = []
    if summary.get("n", 0) >= 3:
        if summary["cv"] >= 0.10:
            out.append(f"noisy: step-time CV {summary['cv']:.0%} (>= 10%)")
        if summary["iqr_over_median"] >= 0.10:
            out.append(f"noisy: IQR/median {summary['iqr_over_median']:.0%} (>= 10%)")
    d = drift(sample_ms)
    if d is not None and abs(d) > 0.05:
        out.append(
            f"drift: step time {'rose' if d > 0 else 'fell'} {abs(d):.0%} from the first "
            "third of the measurement to the last"
        )
    return out
