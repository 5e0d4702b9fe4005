"""Sensitivity: the weight of each criterion, and the value of each searched constant, at which the
top workflow would change."""

from __future__ import annotations

from typing import Optional

from advisor.decision.constants import DEFAULT, Constant, searched
from advisor.decision.context import Context
from advisor.decision.evaluate import Evaluation, evaluate, rank
from advisor.decision.findings import said
from advisor.decision.prepare import reprepared
from advisor.decision.scorecard import ConstantSensitivity, SensitivityItem, WorkflowScore
from advisor.requirements import CRITERIA


def weight_sensitivity(scores: list[WorkflowScore], top: str) -> list[SensitivityItem]:
    """For each criterion: the weight (others rescaled to keep the sum 1) at which `top` loses first place."""
    pool = [s for s in scores if s.eligible] or [s for s in scores if s.applicable]
    items = []
    for i, name in enumerate(CRITERIA):
        w0 = pool[0].criteria[i].weight
        rest = 1 - w0

        def line(s: WorkflowScore) -> tuple[float, float]:
            r = (sum(c.weight * c.score for j, c in enumerate(s.criteria) if j != i) / rest) if rest > 0 else 0.0
            return s.criteria[i].score, r  # total(w) = w*score + (1-w)*r

        top_s = next(s for s in pool if s.workflow == top)
        ts, tr = line(top_s)
        best: Optional[tuple[float, str]] = None
        for other in pool:
            if other.workflow == top:
                continue
            os_, or_ = line(other)
            d_score, d_rest = ts - os_, tr - or_
            denom = d_rest - d_score
            if abs(denom) < 1e-12:
                continue
            w = d_rest / denom
            if 1e-9 < w < 1 - 1e-9 and abs(w - w0) > 1e-9:
                # only a crossing where `other` is ahead beyond it counts
                probe = w + (1e-6 if w > w0 else -1e-6)
                if probe * os_ + (1 - probe) * or_ > probe * ts + (1 - probe) * tr:
                    if best is None or abs(w - w0) < abs(best[0] - w0):
                        best = (w, other.workflow)
        if best is None:
            items.append(
                SensitivityItem(
                    criterion=name, weight=round(w0, 4), note=said("sensitivity.weight.stays", top=top, criterion=name)
                )
            )
        else:
            w, who = best
            items.append(
                SensitivityItem(
                    criterion=name,
                    weight=round(w0, 4),
                    threshold=round(w, 4),
                    new_top=who,
                    note=said("sensitivity.weight.flips", who=who, criterion=name, weight=w0, threshold=w),
                )
            )
    return items


_GRID = 10


def reweighed_top(scores: list[WorkflowScore], wmap: dict[str, float]) -> str:
    """The top workflow of these scores under other weights: the totals as `evaluate` makes them
    (criterion weights to 6 places, totals to 3). The weights move no criterion score and no hard
    constraint, so this is what a whole evaluation with them would rank first."""
    totals = {
        s.workflow: round(sum(round(wmap[c.name], 6) * c.score for c in s.criteria), 3) if s.applicable else s.total
        for s in scores
    }
    return rank([s.model_copy(update={"total": totals[s.workflow]}) for s in scores])[0].workflow


def constant_sensitivity(
    ctx: Context, top: str, read: Optional[set[str]] = None, base: Optional[Evaluation] = None
) -> list[ConstantSensitivity]:
    """For each searched constant: the nearest value (in its range) at which the top workflow changes,
    found on a grid and refined by bisection; re-scores through `evaluate` with that one constant moved.
    A constant a stage of the preparation reads (the projections', `projection`, or the default
    weights') re-runs the stages that read it (skipped for a context not prepared from its inputs).
    `read`: the constants the preparation and the evaluation read; one they never read cannot move the
    verdict, and is not searched. `base`: the evaluation at the defaults; with it a constant only the
    weights read re-ranks its scores under the moved weights instead of evaluating again, and an
    evaluation with a constant moved reuses its parts that did not read that constant."""
    items = []
    prepared = frozenset().union(*ctx.reads.values()) if ctx.reads else frozenset()
    weights_only = ctx.reads.get("weights", frozenset()) - frozenset().union(
        *(names for stage, names in ctx.reads.items() if stage != "weights")
    )
    for c in searched():
        staged = c.projection or c.name in prepared
        if staged and ctx.inputs is None:
            continue
        lo, hi = c.search
        v0 = c.value
        if c.acts_when and not getattr(ctx, c.acts_when):  # nothing it applies to: it cannot move the verdict
            items.append(_stays_on_top(c, top, c.acts_when))
            continue
        if read is not None and c.name not in read:  # nothing read it: every value gives today's scores
            items.append(_stays_on_top(c, top))
            continue

        def top_at(v: float, c: Constant = c, staged: bool = staged) -> str:
            k = DEFAULT.moved(c.name, v)
            if base is not None and c.name in weights_only:
                return reweighed_top(base.scores, reprepared(ctx, k).wmap)
            if staged:
                return evaluate(reprepared(ctx, k), k).top()
            return evaluate(ctx, k, reuse=base).top()

        # The totals are piecewise linear in an evaluation constant: when neither end of its range
        # changes the winner, no value between does (up to clamping); only then is the grid skipped.
        # The projections are not linear in theirs, so those always take the grid.
        ends = {v: top_at(v) for v in (lo, hi)}
        grid = (
            [lo, hi]
            if all(t == top for t in ends.values()) and not c.projection
            else sorted({lo + (hi - lo) * i / _GRID for i in range(_GRID + 1)} | {v0})
        )
        tops = {v: ends[v] if v in ends else top_at(v) for v in grid}
        flips = [v for v in grid if tops[v] != top]
        if not flips:
            items.append(_stays_on_top(c, top))
            continue
        v1 = min(flips, key=lambda v: abs(v - v0))
        a, b = v0, v1  # a keeps `top`, b does not; bisect between them
        for _ in range(8):
            m = (a + b) / 2
            if top_at(m) == top:
                a = m
            else:
                b = m
        who = top_at(b)
        thr = float(f"{b:.3g}")  # a round threshold to print; a number, so no thousands separator
        if top_at(thr) == top:
            thr = round(b, 6)  # the short form fell on the side that keeps `top`: keep the exact one
        if c.name == "MIGRATION_HOURS_FACTOR":
            note = said("sensitivity.constant.migration_factor", top=top, who=who, threshold=thr)
        else:
            note = said("sensitivity.constant.flips", who=who, what=c.what, threshold=thr, unit=c.unit, value=v0)
        items.append(
            ConstantSensitivity(
                name=c.name, value=v0, unit=c.unit, source=c.source, threshold=thr, new_top=who, note=note
            )
        )
    return items


def _stays_on_top(c: Constant, top: str, missing: Optional[str] = None) -> ConstantSensitivity:
    """`missing`: the result the constant acts on, absent here (None: it was searched)."""
    lo, hi = c.search
    note = said("sensitivity.constant.stays", top=top, name=c.name, low=lo, high=hi, missing=missing)
    return ConstantSensitivity(name=c.name, value=c.value, unit=c.unit, source=c.source, note=note)
