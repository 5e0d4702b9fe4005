"""Judging the accuracy probe: is the cross-framework gap in final test accuracy "the same"?

The seeds' headline (the measured-comparison report, its training-accuracy table: 93.2% / 93.1% /
93.0% after 50 epochs) is that accuracy is practically the same, so the frameworks compute the same
thing. Here that is a measured statement with a tolerance: the 95% interval of the gap, paired by
seed, must lie inside +-ACCURACY_TOLERANCE.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.constants import CONSTANTS
from advisor.decision.findings import said
from advisor.decision.probe_fields import data_source, normalize_check
from advisor.sanitize import quoted_label

# assumption: one percentage point is the smallest accuracy difference a team would act on; the
# seeds' three frameworks differ by 0.2 points, and one test image of the digits split is 0.22. Its home
# is advisor.decision.constants (searched by the sensitivity analysis); the scoring reads it through Consts.
ACCURACY_TOLERANCE = CONSTANTS["ACCURACY_TOLERANCE"].value


def verdict_at(low: float, high: float, seeds: int, tolerance: float) -> str:
    """ "same" | "differs" | "undecided" of a paired gap's 95% interval against +-tolerance."""
    if seeds < 2:
        return "undecided"
    if -tolerance <= low and high <= tolerance:
        return "same"
    if high < -tolerance or low > tolerance:
        return "differs"
    return "undecided"


GAP_CODE = {"same": "accuracy.gap.same", "differs": "accuracy.gap.differs", "undecided": "accuracy.gap.undecided"}


def gap_verdict(gap: Any, tolerance: float = ACCURACY_TOLERANCE) -> tuple[str, str]:
    """("same" | "differs" | "undecided", one line saying why)."""
    low, high = gap.ci95
    seeds = len(gap.per_seed)
    verdict = verdict_at(low, high, seeds, tolerance)
    if seeds < 2:
        return "undecided", said("accuracy.gap.one_seed", a=gap.a, b=gap.b, mean=gap.mean)
    line = said(
        GAP_CODE[verdict], a=gap.a, b=gap.b, mean=gap.mean, low=low, high=high, seeds=seeds, tolerance=tolerance
    )
    return verdict, line


def normalize_verdict(mapping: dict) -> str:
    """What the Normalize check showed, in one line."""
    check = normalize_check(mapping)
    wrong, right = check.variants.pytorch_values_0_1, check.variants.correct_0_255
    if not wrong or not right:
        return said("accuracy.normalize.not_run", error=check.error)
    return said(
        "accuracy.normalize.trap",
        wrong_mean=wrong.batch_mean,
        wrong_std=wrong.batch_std,
        wrong_loss=wrong.loss_first,
        right_mean=right.batch_mean,
        right_std=right.batch_std,
        right_loss=right.loss_first,
    )


# --- the accuracy probe as report evidence ---------------------------------------------------------

VERDICT_RANK = {"same": 0, "undecided": 1, "differs": 2}


class GapJudgement(BaseModel):
    """One cross-framework gap (run a minus run b, paired by seed) and what it says."""

    model_config = ConfigDict(extra="forbid")

    a: str
    b: str
    verdict: Literal["same", "differs", "undecided"]
    line: str
    mean: float
    ci95: list[float]
    per_seed: list[float]
    seeds: int


class ModeAccuracy(BaseModel):
    """One framework and mode over its seeds: final accuracy and time to the target."""

    model_config = ConfigDict(extra="forbid")

    framework: str
    mode: str
    runs_ok: int
    runs_total: int
    final_accuracy: Optional[list[float]] = Field(None, description="[median, min, max] over the seeds")
    reached_target: int = Field(0, description="seeds that reached the target accuracy")
    epochs_to_target: Optional[float] = Field(None, description="median over the seeds that reached it")
    seconds_to_target: Optional[float] = Field(None, description="median, compile included")
    failures: list[str] = Field(default_factory=list)


class AccuracyEvidence(BaseModel):
    """The accuracy probe's result (`advisor probe --accuracy`) as the report reads it."""

    model_config = ConfigDict(extra="forbid")

    source: Literal["none", "file"] = "none"
    file: Optional[str] = None
    created: Optional[str] = None
    data: Optional[str] = Field(None, description="what the probe trained on (bundled digits, or --data)")
    target: Optional[float] = None
    tolerance: float = ACCURACY_TOLERANCE
    verdict: Optional[Literal["same", "differs", "undecided"]] = Field(
        None, description="the worst gap's verdict (differs > undecided > same); null: no gap measured"
    )
    gaps: list[GapJudgement] = Field(default_factory=list)
    modes: list[ModeAccuracy] = Field(default_factory=list)
    normalize: Optional[str] = None
    warnings: list[str] = Field(default_factory=list)
    note: str = ""


NOT_MEASURED = said("accuracy.not_measured")
# the worst gap's verdict -> the evidence's note
MEASURED_CODE = {
    "same": "accuracy.measured.same",
    "differs": "accuracy.measured.differs",
    "undecided": "accuracy.measured.undecided",
}


def _median(xs: list[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _modes(runs: list[Any]) -> list[ModeAccuracy]:
    out = []
    for fw, mode in dict.fromkeys((r.framework, r.mode) for r in runs):
        mine = [r for r in runs if (r.framework, r.mode) == (fw, mode)]
        ok = [r for r in mine if r.status == "ok"]
        finals = [r.final_accuracy for r in ok if r.final_accuracy is not None]
        hit = [r for r in ok if r.epochs_to_target is not None]
        out.append(
            ModeAccuracy(
                framework=fw,
                mode=mode,
                runs_ok=len(ok),
                runs_total=len(mine),
                final_accuracy=[round(_median(finals), 4), round(min(finals), 4), round(max(finals), 4)]
                if finals
                else None,
                reached_target=len(hit),
                epochs_to_target=_median([float(r.epochs_to_target) for r in hit]) if hit else None,
                seconds_to_target=round(_median([r.seconds_to_target for r in hit if r.seconds_to_target]), 3)
                if any(r.seconds_to_target for r in hit)
                else None,
                failures=[
                    f"{r.id}: {r.status}" + (f": {r.error}" if r.error else "") for r in mine if r.status != "ok"
                ],
            )
        )
    return out


def accuracy_evidence(
    suite: Any, file: Optional[str] = None, tolerance: float = ACCURACY_TOLERANCE
) -> AccuracyEvidence:
    """Judge an AccuracySuite (or its JSON dict); None gives the 'not measured' evidence."""
    if suite is None:
        return AccuracyEvidence(note=NOT_MEASURED)
    if isinstance(suite, dict):
        from probes.accuracy.models import AccuracySuite

        suite = AccuracySuite.model_validate(suite)
    gaps = []
    for g in suite.gaps:
        verdict, line = gap_verdict(g, tolerance)
        gaps.append(
            GapJudgement(
                a=g.a,
                b=g.b,
                verdict=verdict,
                line=line,
                mean=round(g.mean, 6),
                ci95=[round(x, 6) for x in g.ci95],
                per_seed=[round(x, 6) for x in g.per_seed],
                seeds=len(g.per_seed),
            )
        )
    worst = max((g.verdict for g in gaps), key=VERDICT_RANK.__getitem__, default=None)
    data = data_source(suite.data)
    what = quoted_label(data.source or data.name or (suite.config.data or said("accuracy.bundled_digits")))
    note = said("accuracy.no_gap") if worst is None else said(MEASURED_CODE[worst], data=what)
    return AccuracyEvidence(
        source="file",
        file=file,
        created=suite.created,
        data=str(what),
        target=suite.config.target,
        tolerance=tolerance,
        verdict=worst,
        gaps=gaps,
        modes=_modes(suite.runs),
        normalize=normalize_verdict(suite.normalize_check) if suite.normalize_check else None,
        warnings=list(suite.warnings),
        note=note,
    )
