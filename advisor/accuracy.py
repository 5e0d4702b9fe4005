"""Judging the accuracy probe: is the cross-framework gap in final test accuracy "the same"?

The seeds' headline (the measured-comparison report, its training-accuracy table: 93.2% / 93.1% /
93.0% after 50 epochs) is that accuracy is practically the same, so the frameworks compute the same
thing. Here that is a measured statement with a tolerance: the 95% interval of the gap, paired by
seed, must lie inside +-ACCURACY_TOLERANCE.
"""

from __future__ import annotations

from typing import Any

# assumption: one percentage point is the smallest accuracy difference a team would act on; the
# seeds' three frameworks differ by 0.2 points, and one test image of the digits split is 0.22.
ACCURACY_TOLERANCE = 0.01


def gap_verdict(gap: Any, tolerance: float = ACCURACY_TOLERANCE) -> tuple[str, str]:
    """("same" | "differs" | "undecided", one line saying why)."""
    low, high = gap.ci95
    seeds = len(gap.per_seed)
    if seeds < 2:
        return "undecided", (
            f"{gap.a} - {gap.b}: {gap.mean * 100:+.2f} points at one seed: no spread to judge "
            '"the same" by; --seeds 3 gives an interval'
        )
    span = f"{gap.mean * 100:+.2f} points (95% CI {low * 100:+.2f} to {high * 100:+.2f}, {seeds} seeds)"
    if -tolerance <= low and high <= tolerance:
        return "same", f"{gap.a} - {gap.b}: {span}, inside +-{tolerance * 100:.0f} point"
    if high < -tolerance or low > tolerance:
        return "differs", f"{gap.a} - {gap.b}: {span}, outside +-{tolerance * 100:.0f} point"
    return "undecided", (
        f"{gap.a} - {gap.b}: {span}: the interval crosses +-{tolerance * 100:.0f} point; "
        "more seeds (--seeds 3) narrow it"
    )


def normalize_verdict(check: dict) -> str:
    """What the Normalize check showed, in one line."""
    v = check.get("variants") or {}
    wrong, right = v.get("pytorch_values_0_1"), v.get("correct_0_255")
    if not wrong or not right:
        return "Normalize check: " + (check.get("error") or "not run")
    return (
        f"Normalize trap: PyTorch-style 0-1 mean/std on uint8 input gave a batch mean of {wrong['batch_mean']:.1f} "
        f"(std {wrong['batch_std']:.1f}) and a first loss of {wrong['loss_first']:.2f}; the 0-255 values give "
        f"{right['batch_mean']:.2f} (std {right['batch_std']:.2f}) and {right['loss_first']:.2f}"
    )
