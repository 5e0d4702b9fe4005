"""How far one measurement can be trusted on this host, and the paired comparisons (parent side).

The statistics come from scipy.stats (Student-t quantiles for the batch-means interval of a run and
for the paired ratio); the workers never import scipy (probes.training.stats is numpy only).

The rule, applied to every run with status "ok" (each threshold below is named and stated in the
reasons a run carries; they are this project's choices, marked `assumption`, anchored on the
protocol's stop rule and pyperf / torch.utils.benchmark warning levels, see
shared/reference/probe-protocol.md):

    measure        stable when      unusable when          (noisy in between)
    samples        -                < 5 (no interval)
    CI low end     -                <= 0 (the run cannot bound its own throughput)
    CI half-width  <= 5% of est.    > 25% of the estimate
    step-time CV   <= 10%           > 50%
    drift          <= 5%            > 25%   (mean of the last third vs the first third)
    steal          <= 5%            > 25%   (hypervisor steal during the run)
    contention     <= 10%           > 50%   (share of the run's threads other processes took)

A run is "unusable" when any measure crosses its unusable bound, "stable" when every known measure
is within its stable bound, else "noisy". Nothing is clamped: a CI whose low end reaches 0 makes the
run unusable instead of being shown as "0-2,701". A merged --repeat run takes its median usable
repeat's grade, worsened by the min-max spread of the usable repeats (stable <= 10%, unusable > 50%);
with no usable repeat it is unusable. "contention" = max(0, others' cores + threads - cores) / threads,
others' cores being all busy CPU time during the child minus the child's own (probes.training.runner.run_load).

Paired comparison of runs A and B of one model: in round r, A_r and B_r were measured in alternation
(fresh processes, A B A B ...), so a drifting host moves both. ratio = geometric mean of
ips(A_r) / ips(B_r) over the rounds where neither side was unusable; its 95% CI is the t interval of
the mean log ratio (df = pairs - 1). Decidable only with >= 2 such pairs, neither merged side
unusable, and a CI that excludes 1. Its quality: "unusable" when a side is unusable or no pair is
usable; "stable" when decidable, both sides stable and the CI half-width <= 5% of the ratio; else
"noisy".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from probes.training.models import PairedComparison, ProbeRun
from probes.training import stats

# (stable bound, unusable bound) per measure: assumption, see the module docstring.
CI_REL = (0.05, 0.25)
CV = (0.10, 0.50)
DRIFT = (0.05, 0.25)
STEAL = (0.05, 0.25)
CONTENTION = (0.10, 0.50)
MIN_SAMPLES = 5  # the worker keeps at least 5 samples even past its budget
REPEAT_SPREAD = (0.10, 0.50)  # min-max spread of repeat throughputs over their median
MIN_PAIRS = 2  # one pair has no spread: nothing to build an interval from
RANK = {"stable": 0, "noisy": 1, "unusable": 2}

WHAT_TO_DO = (
    "quiet the host (stop other jobs), give a longer --budget, use fewer --threads, "
    "or allow more interleaved rounds (--repeat / --max-repeat)"
)


def t_quantile(df: int, level: float = 0.95) -> float:
    from scipy import stats as st  # the parent only; imported late to keep the CLI start fast

    return float(st.t.ppf(0.5 + level / 2, df))


def stop_rule_t() -> float:
    """t(0.975, N_BATCHES - 1), passed to the workers for their stop rule."""
    return t_quantile(stats.N_BATCHES - 1)


def throughput_ci(
    sample_step_ms: Sequence[float], steps_per_sample: int, batch_size: int
) -> Optional[tuple[float, float, float]]:
    """(estimate, low, high) images/s: the batch-means interval with a scipy t quantile."""
    seconds = [ms * steps_per_sample / 1e3 for ms in sample_step_ms]
    got = stats.batch_rates(seconds, steps_per_sample * batch_size)
    if got is None:
        return None
    estimate, rates = got
    half = t_quantile(rates.size - 1) * float(rates.std(ddof=1)) / math.sqrt(rates.size)
    return estimate, estimate - half, estimate + half


@dataclass
class Facts:
    samples: int = 0
    ci: Optional[tuple[float, float, float]] = None
    cv: Optional[float] = None
    drift: Optional[float] = None
    steal: Optional[float] = None
    contention: Optional[float] = None
    foreign_cores: Optional[float] = None


def _grade(value: Optional[float], bounds: tuple[float, float], text: str) -> tuple[str, Optional[str]]:
    if value is None:
        return "stable", None
    stable, unusable = bounds
    if value > unusable:
        return "unusable", f"{text} {value:.0%} (unusable above {unusable:.0%})"
    if value > stable:
        return "noisy", f"{text} {value:.0%} (stable at most {stable:.0%})"
    return "stable", None


def classify(f: Facts) -> tuple[str, list[str]]:
    """The stated rule: (quality, reasons); reasons name every measure outside its stable bound."""
    graded = []
    if f.samples < MIN_SAMPLES or f.ci is None:
        graded.append(("unusable", f"{f.samples} timing samples: too few for an interval (at least {MIN_SAMPLES})"))
    else:
        est, low, high = f.ci
        if low <= 0:
            graded.append(
                ("unusable", f"95% CI {low:.1f}-{high:.1f} img/s reaches 0: the run cannot bound its own throughput")
            )
        graded.append(_grade((high - low) / 2 / est if est > 0 else math.inf, CI_REL, "95% CI half-width"))
    graded.append(_grade(f.cv, CV, "step-time CV"))
    graded.append(
        _grade(abs(f.drift) if f.drift is not None else None, DRIFT, "drift (last third vs first third of the samples)")
    )
    graded.append(_grade(f.steal, STEAL, "hypervisor steal"))
    who = f"other processes used {f.foreign_cores:.1f} cores: " if f.foreign_cores is not None else ""
    graded.append(_grade(f.contention, CONTENTION, f"{who}contention (share of this run's threads they took)"))
    quality = max((g for g, _ in graded), key=RANK.__getitem__)
    return quality, [r for _, r in graded if r]


def facts_of(run: ProbeRun) -> Facts:
    samples = list(run.sample_step_ms or [])
    ci = None
    if samples and run.steps_per_sample:
        ci = throughput_ci(samples, run.steps_per_sample, run.batch_size)
    a = np.asarray(samples, dtype=np.float64)
    cv = float(a.std(ddof=1) / a.mean()) if a.size > 1 and a.mean() > 0 else None
    return Facts(
        samples=len(samples),
        ci=ci,
        cv=cv,
        drift=stats.drift(samples),
        steal=run.settings.get("steal"),
        contention=run.settings.get("contention"),
        foreign_cores=run.settings.get("foreign_cores"),
    )


def graded(warnings: Sequence[str]) -> list[str]:
    """A run's warnings less the worker's own noise notes (step-time CV, IQR, drift: probes.training.stats
    .noise_warnings): the grade states each spread once, with its bound, so no note is said twice."""
    return [w for w in warnings if not w.startswith(("noisy: ", "drift: ", "repeats differ by "))]


def assess(run: ProbeRun) -> ProbeRun:
    """Set ci95 (scipy, from the raw samples, never clamped), quality and quality_reasons."""
    if run.status != "ok":
        run.quality, run.quality_reasons = None, []
        return run
    f = facts_of(run)
    run.ci95 = [f.ci[1], f.ci[2]] if f.ci else None
    run.quality, run.quality_reasons = classify(f)
    run.warnings = graded(run.warnings)
    return run


def repeat_spread(values: Sequence[float]) -> float:
    """The min-max spread of repeat throughputs over their median (REPEAT_SPREAD grades it); inf where the
    median is not positive."""
    med = float(np.median(values))
    return (max(values) - min(values)) / med if med > 0 else math.inf


def merge_quality(body: ProbeRun, values: Sequence[float], usable: int, total: int) -> None:
    """A merged --repeat run: the median repeat's quality, worsened by the spread between repeats."""
    if usable == 0:
        body.quality = "unusable"
        body.quality_reasons = [f"all {total} repeats unusable"] + body.quality_reasons
        return
    if len(values) >= 2:
        grade, reason = _grade(repeat_spread(values), REPEAT_SPREAD, f"spread between {len(values)} repeats (min-max)")
        if reason:
            body.quality_reasons.append(reason)
        if RANK[grade] > RANK[body.quality or "stable"]:
            body.quality = grade
    if usable < total:
        body.quality_reasons.append(f"{total - usable} of {total} repeats unusable, left out")


def paired_ratio(pairs: Sequence[tuple[float, float]]) -> Optional[tuple[float, Optional[float], Optional[float]]]:
    """(ratio, low, high) of a/b over pairs measured in alternation; low/high None with one pair."""
    good = [(a, b) for a, b in pairs if a and b and a > 0 and b > 0]
    if not good:
        return None
    logs = np.log([a / b for a, b in good])
    mean = float(logs.mean())
    if len(logs) < 2:
        return math.exp(mean), None, None
    half = t_quantile(len(logs) - 1) * float(logs.std(ddof=1)) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def compare(
    model: str, a_id: str, b_id: str, rounds: dict[int, dict[str, ProbeRun]], side_quality: dict[str, Optional[str]]
) -> PairedComparison:
    """One paired comparison from the rounds ({round: {run id: run}}) and the merged sides' quality."""
    c = PairedComparison(model=model, a=a_id, b=b_id)
    pairs, left_out = [], 0
    for _, by_id in sorted(rounds.items()):
        ra, rb = by_id.get(a_id), by_id.get(b_id)
        if not ra or not rb or ra.status != "ok" or rb.status != "ok":
            continue
        if "unusable" in (ra.quality, rb.quality):
            left_out += 1
            continue
        pairs.append((ra.images_per_second, rb.images_per_second))
    got = paired_ratio(pairs)
    c.pairs = len(pairs) if got else 0
    if left_out:
        c.reasons.append(f"{left_out} round(s) left out: a side was unusable there")
    for side in (a_id, b_id):
        if side_quality.get(side) in (None, "unusable"):
            what = "did not run" if side_quality.get(side) is None else "is unusable"
            c.reasons.append(f"{side} {what}")
    if got:
        c.ratio, low, high = got
        if low is not None:
            c.ci95 = [low, high]
    if c.pairs < MIN_PAIRS:
        c.reasons.append(f"{c.pairs} usable pair(s): at least {MIN_PAIRS} are needed for an interval")
    sides_bad = any(side_quality.get(s) in (None, "unusable") for s in (a_id, b_id))
    if c.ci95 and c.ci95[0] <= 1.0 <= c.ci95[1]:
        c.reasons.append(
            f"the ratio's 95% CI {c.ci95[0]:.3f}-{c.ci95[1]:.3f} includes 1: no measurable difference here"
        )
    c.decidable = bool(c.ci95) and c.pairs >= MIN_PAIRS and not sides_bad and not c.ci95[0] <= 1.0 <= c.ci95[1]
    if sides_bad or c.pairs == 0:
        c.quality = "unusable"
    elif (
        c.decidable
        and all(side_quality.get(s) == "stable" for s in (a_id, b_id))
        and (c.ci95[1] - c.ci95[0]) / 2 / c.ratio <= CI_REL[0]
    ):
        c.quality = "stable"
    else:
        c.quality = "noisy"
    if not c.decidable:
        c.reasons.append("not decidable here: " + WHAT_TO_DO)
    return c


def comparisons(
    model: str, ids: Sequence[str], rounds: dict[int, dict[str, ProbeRun]], side_quality: dict[str, Optional[str]]
) -> list[PairedComparison]:
    """Every pair of runs of one model, in the order the runs were planned."""
    return [compare(model, a, b, rounds, side_quality) for i, a in enumerate(ids) for b in ids[i + 1 :]]
