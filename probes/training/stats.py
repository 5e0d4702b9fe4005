"""Timing statistics for the probe (pure python + numpy; used inside the workers).

Step times are autocorrelated (caches, allocator, frequency), so the throughput CI is built from
batch means (the samples split into contiguous groups), not from a naive t-test on single steps.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

# Two-sided 95% Student t quantiles for small degrees of freedom (df -> t); 1.96 beyond.
_T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
        17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 25: 2.060, 30: 2.042}


def t95(df: int) -> float:
    if df <= 0:
        return math.inf
    if df in _T95:
        return _T95[df]
    smaller = [k for k in _T95 if k <= df]
    return _T95[max(smaller)] if df <= 30 else 1.96


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
        "n": int(a.size), "median": med, "mean": mean,
        "p10": float(np.percentile(a, 10)), "p90": float(np.percentile(a, 90)),
        "min": float(a.min()), "max": float(a.max()),
        "cv": std / mean if mean > 0 else 0.0,
        "iqr_over_median": float(q75 - q25) / med if med > 0 else 0.0,
    }


def batch_means_ci(sample_seconds: Sequence[float], items_per_sample: float,
                   n_batches: Optional[int] = None) -> Optional[tuple[float, float, float]]:
    """Throughput (items/s) with a 95% CI from batch means: (estimate, low, high).

    The samples are split into contiguous groups; each group's throughput is one observation.
    None when there are fewer than 4 samples (not enough for an interval)."""
    s = np.asarray(sample_seconds, dtype=np.float64)
    if s.size == 0 or s.sum() <= 0:
        return None
    estimate = items_per_sample * s.size / float(s.sum())
    if s.size < 4:
        return None
    # Samples already group k steps each: with few of them each is its own batch; with many,
    # 10 contiguous groups (long enough to absorb the autocorrelation).
    m = n_batches or min(s.size, 10)
    groups = np.array_split(s, m)
    rates = np.array([items_per_sample * g.size / g.sum() for g in groups if g.size and g.sum() > 0])
    if rates.size < 2:
        return None
    half = t95(rates.size - 1) * float(rates.std(ddof=1)) / math.sqrt(rates.size)
    return estimate, max(0.0, estimate - half), estimate + half


def warmup_stable(step_ms: Sequence[float], window: int = 5, tol: float = 0.03) -> bool:
    """Two consecutive windows agree: median of the last `window` within `tol` of the previous."""
    if len(step_ms) < 2 * window:
        return False
    last = float(np.median(step_ms[-window:]))
    prev = float(np.median(step_ms[-2 * window:-window]))
    return prev > 0 and abs(last / prev - 1.0) <= tol


def drift(values: Sequence[float]) -> Optional[float]:
    """Relative change of the mean from the first third to the last third (None if < 6 values)."""
    if len(values) < 6:
        return None
    third = len(values) // 3
    first = float(np.mean(values[:third]))
    last = float(np.mean(values[-third:]))
    return (last - first) / first if first > 0 else None


def converged(sample_ms: Sequence[float], sample_seconds: Sequence[float], items_per_sample: float,
              min_samples: int = 30, cv_target: float = 0.05, ci_target: float = 0.02) -> bool:
    """The protocol's stop rule: >= min_samples, CV of the last 20 <= cv_target, CI half-width
    <= ci_target of the estimate."""
    if len(sample_ms) < min_samples:
        return False
    tail = np.asarray(sample_ms[-20:], dtype=np.float64)
    if tail.mean() <= 0 or tail.std(ddof=1) / tail.mean() > cv_target:
        return False
    ci = batch_means_ci(sample_seconds, items_per_sample)
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
        out.append(f"drift: step time {'rose' if d > 0 else 'fell'} {abs(d):.0%} from the first "
                   "third of the measurement to the last")
    return out
