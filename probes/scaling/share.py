"""The allreduce share of one launch, judged against the no-sync control's own noise.

share = (synced - no-sync) / synced step, medians of the slowest rank. Two cases are not a share:
- one rank: there is nothing to allreduce (DDP and MindSpore skip the reduction), so any difference
  between the two kinds of step is noise; the share is not applicable (None + the reason);
- a difference smaller than the control's noise (or a negative one, the control slower than the
  synced step): "below the noise", with the control's spread, instead of a fraction that is really
  noise (a 1-rank MindSpore run measured -0.08 median, -0.18 once).
The raw difference is kept apart (`sync_nosync_difference`) as the host's noise floor.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Optional

# Standard error of a median ~ sqrt(pi/2) * sigma / sqrt(n) (asymptotic, normal data) and
# sigma ~ IQR / 1.349 (normal data): robust to the few slow outlier steps of a shared host.
MEDIAN_SE_FACTOR = math.sqrt(math.pi / 2)
IQR_PER_SIGMA = 1.349
# assumption: a difference within 2 standard errors of the control's median is not told from noise.
NOISE_Z = 2.0

NOT_APPLICABLE = "not applicable: one rank has nothing to allreduce"


@dataclass(frozen=True)
class ShareVerdict:
    share: Optional[float]  # None when not applicable or below the noise
    difference: Optional[float]  # (synced - no-sync) / synced, any sign: the raw figure
    noise: Optional[float]  # the control's median uncertainty as a share of the synced step
    note: Optional[str]  # why there is no share, with the figures


def _quartiles(values: list) -> tuple:
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def control_noise(nosync: list) -> Optional[float]:
    """NOISE_Z standard errors of the control's median step (seconds), from its interquartile range."""
    if not nosync:
        return None
    lo, hi = _quartiles(sorted(nosync))
    return NOISE_Z * MEDIAN_SE_FACTOR * (hi - lo) / IQR_PER_SIGMA / math.sqrt(len(nosync))


def _slowest(rank_docs: list, key: str) -> list:
    """The step times of the rank whose median is largest (the one the step waits for)."""
    rows = [r.get(key) or [] for r in rank_docs]
    rows = [r for r in rows if r]
    return max(rows, key=statistics.median) if rows else []


def judge(n_ranks: int, rank_docs: list) -> ShareVerdict:
    sync, nosync = _slowest(rank_docs, "sync_step_s"), _slowest(rank_docs, "nosync_step_s")
    if not sync or not nosync:
        return ShareVerdict(None, None, None, NOT_APPLICABLE if n_ranks == 1 else None)
    step, control = statistics.median(sync), statistics.median(nosync)
    if step <= 0:
        return ShareVerdict(None, None, None, None)
    diff = (step - control) / step
    noise = control_noise(nosync) / step
    if n_ranks == 1:
        return ShareVerdict(None, diff, noise, NOT_APPLICABLE)
    if diff <= 0 or abs(diff) <= noise:
        lo, hi = _quartiles(sorted(nosync))
        return ShareVerdict(
            None,
            diff,
            noise,
            (
                f"below the noise: synced {step * 1e3:.2f} ms vs no-sync {control * 1e3:.2f} ms "
                f"({diff:+.0%}), within the control's +-{noise:.0%} (its 25-75% spread "
                f"{lo * 1e3:.2f}-{hi * 1e3:.2f} ms over {len(nosync)} steps)"
            ),
        )
    return ShareVerdict(diff, diff, noise, None)


def summary_note(n_ranks: int, runs: list) -> Optional[str]:
    """One note for a rank count over its successful runs (ScalingRun objects)."""
    if n_ranks == 1:
        return NOT_APPLICABLE
    below = [r for r in runs if r.allreduce_share is None and r.allreduce_share_note]
    if not below:
        return None
    noises = [r.allreduce_noise for r in below if r.allreduce_noise is not None]
    widest = f"; the control's noise up to +-{max(noises):.0%} of the step" if noises else ""
    return f"below the noise in {len(below)} of {len(runs)} run(s){widest}"


def cell(rank_count) -> Optional[str]:
    """The table's short text when a rank count has no share (else None: print the share)."""
    if rank_count.allreduce_share is not None or not rank_count.allreduce_share_note:
        return None
    return "n/a (1 rank)" if rank_count.ranks == 1 else "< noise"
