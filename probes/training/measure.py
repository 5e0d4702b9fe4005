"""The measurement protocol (shared by both framework workers; pure python).

first step (compile) timed alone -> warmup until two windows agree (>= 5 steps, capped at 25% of
the budget) -> measurement in samples of k steps (each >= ~10 ms, one sync per sample) until the
stop rule holds or the budget is spent. See shared/reference/probe-protocol.md.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from probes.training import stats


@dataclass
class Plan:
    budget_s: float  # warmup + measurement, per run
    batch_size: int
    t_crit: float  # t(0.975, stats.N_BATCHES - 1) from the parent (scipy.stats)
    warmup_cap_frac: float = 0.25
    min_warmup: int = 5
    sample_target_s: float = 0.010
    min_samples: int = 30
    min_samples_hard: int = 5  # kept even past the budget (up to 3x budget)
    max_steps: Optional[int] = None
    snapshot: Optional[Callable[[], Optional[dict]]] = None  # common.cpu_snapshot: load while timed


def run(
    step: Callable[[int], Any],
    sync: Callable[[Any], float],
    plan: Plan,
    on_progress: Optional[Callable[[dict], None]] = None,
    clock: Callable[[], float] = time.perf_counter,
) -> dict:
    """Drive `step(i)` (one training step, returns a handle such as the loss tensor) and
    `sync(handle)` (waits for the device, returns the loss as float). Returns the raw timings,
    the summary and why it stopped."""
    bs = plan.batch_size
    i = 0
    t0 = clock()
    loss_first = sync(step(i))
    first_step_s = clock() - t0
    i += 1
    losses = [loss_first]

    # Warmup: single steps, each synced, until stable; capped at 25% of the budget.
    warm_ms: list[float] = []
    w_start = clock()
    cap = plan.warmup_cap_frac * plan.budget_s
    warmup_capped = False
    last_report = w_start
    # A --max-steps leaves its second half to measurement: steps that never settle (a loaded host) would
    # otherwise spend every step on warmup and leave no measured rate at all.
    warm_limit = None if plan.max_steps is None else plan.max_steps - max(1, plan.max_steps // 2)
    while True:
        if warm_limit is not None and i >= warm_limit:
            warmup_capped = len(warm_ms) >= 2
            break
        t = clock()
        losses.append(sync(step(i)))
        warm_ms.append((clock() - t) * 1e3)
        i += 1
        if len(warm_ms) >= plan.min_warmup and stats.warmup_stable(warm_ms):
            break
        if clock() - w_start >= cap and len(warm_ms) >= 2:
            warmup_capped = True
            break
        if on_progress and clock() - last_report > 0.2:
            last_report = clock()
            on_progress(
                {
                    "phase": "warmup",
                    "fraction": min(1.0, (clock() - w_start) / plan.budget_s),
                    "step_ms": warm_ms[-1],
                    "images_per_second": bs / warm_ms[-1] * 1e3,
                }
            )
    warmup_s = clock() - w_start
    est_s = (sorted(warm_ms[-5:])[len(warm_ms[-5:]) // 2] / 1e3) if warm_ms else first_step_s
    k = max(1, math.ceil(plan.sample_target_s / max(est_s, 1e-9) - 1e-6))

    # Measurement.
    sample_s: list[float] = []
    sample_ms: list[float] = []
    load_start = plan.snapshot() if plan.snapshot else None
    m_start = clock()
    stop_reason = "budget"
    while True:
        if plan.max_steps is not None and i + k > plan.max_steps:
            if sample_s or i >= plan.max_steps:
                stop_reason = "max_steps"
                break
            k = plan.max_steps - i  # the steps left as one sample: a rate from fewer steps beats none
        t = clock()
        h = None
        for _ in range(k):
            h = step(i)
            i += 1
        loss = sync(h)
        dt = clock() - t
        losses.append(loss)
        sample_s.append(dt)
        sample_ms.append(dt / k * 1e3)
        elapsed = clock() - w_start
        if stats.converged(sample_ms, sample_s, k * bs, plan.t_crit, plan.min_samples):
            stop_reason = "converged"
            break
        if elapsed >= plan.budget_s and (len(sample_s) >= plan.min_samples_hard or elapsed >= 3 * plan.budget_s):
            stop_reason = "budget"
            break
        if on_progress and clock() - last_report > 0.2:
            last_report = clock()
            on_progress(
                {
                    "phase": "measure",
                    "fraction": min(1.0, elapsed / plan.budget_s),
                    "step_ms": sample_ms[-1],
                    "images_per_second": bs / sample_ms[-1] * 1e3,
                }
            )
    measured_s = clock() - m_start
    load_end = plan.snapshot() if plan.snapshot else None

    summary = stats.summarize(sample_ms)
    n_images = bs * k * len(sample_s)
    ips = n_images / sum(sample_s) if sample_s and sum(sample_s) > 0 else None
    warnings = stats.noise_warnings(summary, sample_ms)
    if warmup_capped:
        cap_text = (
            f"half of --max-steps {plan.max_steps}"
            if warm_limit is not None and len(warm_ms) + 1 >= warm_limit
            else f"{plan.warmup_cap_frac:.0%} of the budget"
        )
        warnings.append(f"warmup hit its cap ({cap_text}) before step times settled")
    if stop_reason == "budget" and sample_s:
        warnings.append(
            "budget spent before the stop rule held (>= 30 samples, CV <= 5%, "
            "CI half-width <= 2%): a longer --budget gives a tighter number"
        )
    if not all(math.isfinite(x) for x in losses):
        warnings.append("loss is not finite")
    elif len(losses) >= 3 and not min(losses[-3:]) < losses[0]:
        few = f" in only {i} steps" if i < 50 else ""
        warnings.append(f"loss did not fall{few} ({losses[0]:.4g} -> {losses[-1]:.4g})")
    return {
        "first_step_seconds": first_step_s,
        "warmup_steps": len(warm_ms),
        "warmup_seconds": warmup_s,
        "warmup_capped": warmup_capped,
        "warmup_step_ms": warm_ms,
        "steps_per_sample": k,
        "samples": len(sample_s),
        "sample_step_ms": sample_ms,
        "measured_steps": k * len(sample_s),
        "measured_seconds": measured_s,
        "images_per_second": ips,  # its CI: the parent, from sample_step_ms (probes.quality)
        "images_per_second_median": (bs / summary["median"] * 1e3) if summary.get("median") else None,
        "step_time_ms": summary,
        "stop_reason": stop_reason,
        "loss_first": losses[0],
        "loss_last": losses[-1],
        "total_steps": i,
        "warnings": warnings,
        "load_window": [load_start, load_end] if load_start and load_end else None,
    }
