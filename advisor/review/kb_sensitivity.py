"""Sensitivity over the knowledge base's own figures: the softest inputs of the verdict.

The decision model's sensitivity analysis moves the weights and the named constants. The figures the
knowledge base supplies (the 0-5 ecosystem ratings, the dated prices, the throughput references) are
inputs too, and often the weakest ones (a blog rating last checked two years ago). This module moves
each of them within a stated range, re-scores, and reports how far the margin moves and the nearest
flip, single figures first, then the two figures that cut the margin most moved together.

Ranges (the uncertainty we grant each kind of figure, stated so a reviewer can disagree):
  ratings     +-1 point on the 0-5 scale (clamped): a rating is a judgement, one step is its resolution
  prices      +-30%: the spread between providers and terms for one accelerator in prices.yaml
  references  +-20%: the spread between published runs of one model on one accelerator (framework
              version, data loading, batch size) in references.yaml; the same for the MFU references
              of transformer workloads (mfu-references.yaml: the MFU range, or tokens/s per device)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Optional, Protocol

from pydantic import BaseModel

from advisor.decision.findings import said
from advisor.vocabulary import FRAMEWORK_LABELS

if TYPE_CHECKING:
    from knowledge.models import KnowledgeBase


class _Scored(Protocol):  # a Scorecard, or the report's scores in that shape (document._Card)
    scores: list


RATING_STEP = 1.0  # points on the 0-5 scale
PRICE_SHARE = 0.30
REFERENCE_SHARE = 0.20


def ranges() -> str:
    """The searched ranges in words, worded when asked (a catalogue chosen after import reaches it)."""
    return said("kbsens.ranges", rating=RATING_STEP, price=PRICE_SHARE, reference=REFERENCE_SHARE)


@dataclass
class Move:
    """One figure moved to one end of its range, and what the scores did."""

    section: str  # ecosystem | prices | references | mfu_references
    entry: str  # knowledge-base id
    field: str
    before: float
    after: float
    margin: float  # the original winner's lead over the best other eligible workflow, after the move
    top: str  # the winner after the move
    name: str = ""  # the figure in a reader's words (no knowledge-base id), for the first page

    def text(self, plain: bool = False) -> str:
        return said(
            "kbsens.move",
            name=self.name if plain else "",
            entry=self.entry,
            field=self.field,
            before=self.before,
            after=self.after,
        )


def name_of(section: str, entry: BaseModel) -> str:
    """A knowledge-base figure in a reader's words: 'the PyTorch debugging rating', not its id."""
    if section == "ecosystem":
        fw = FRAMEWORK_LABELS.get(str(entry.framework), str(entry.framework))
        dated = getattr(entry, "as_of", None) or getattr(entry, "last_checked", None)
        return said("kbsens.name.rating", framework=fw, aspect=entry.aspect, dated=dated)
    if section == "prices":
        where = " ".join(str(x) for x in (getattr(entry, "provider", None), getattr(entry, "term", None)) if x)
        return said("kbsens.name.price", accelerator=entry.accelerator, where=where)
    framework = FRAMEWORK_LABELS.get(str(entry.framework), str(entry.framework))
    if section == "mfu_references":
        return said(
            "kbsens.name.mfu_reference",
            system=entry.system,
            model=entry.model,
            devices=entry.devices,
            accelerator=entry.accelerator,
        )
    return said(
        "kbsens.name.reference",
        framework=framework,
        model=entry.model,
        devices=entry.devices,
        accelerator=entry.accelerator,
    )


def margin_of(card: _Scored, winner: str) -> tuple[float, str]:
    """(lead of `winner` over the best other eligible workflow, today's top eligible workflow)."""
    eligible = [s for s in card.scores if s.eligible] or list(card.scores)
    top = max(eligible, key=lambda s: s.total).workflow
    mine = next((s.total for s in card.scores if s.workflow == winner), 0.0)
    others = [s.total for s in eligible if s.workflow != winner]
    return (mine - max(others) if others else 0.0), top


def _figures(
    kb: KnowledgeBase, frameworks: set[str], accelerators: set[str]
) -> Iterable[tuple[str, BaseModel, str, float, list[float]]]:
    """(section, entry, field, value, the values to try) for every figure that can enter a criterion."""
    for e in kb.ecosystem:
        if e.framework in frameworks:
            v = float(e.score)
            yield (
                "ecosystem",
                e,
                "score",
                v,
                sorted({max(0.0, v - RATING_STEP), min(5.0, v + RATING_STEP)} - {v}),
            )
    for p in kb.prices:
        if p.accelerator in accelerators:
            v = float(p.usd)
            yield "prices", p, "usd", v, [round(v * (1 - PRICE_SHARE), 6), round(v * (1 + PRICE_SHARE), 6)]
    for r in kb.references:
        if r.accelerator in accelerators:
            v = float(r.images_per_second.value)
            yield (
                "references",
                r,
                "images_per_second",
                v,
                [round(v * (1 - REFERENCE_SHARE), 3), round(v * (1 + REFERENCE_SHARE), 3)],
            )
    for m in getattr(kb, "mfu_references", []):
        if m.accelerator not in accelerators:
            continue
        if m.mfu is not None:  # the range moves as a whole: its middle is the figure shown
            v = (float(m.mfu.low) + float(m.mfu.high)) / 2
            field = "mfu"
        elif m.tokens_per_second_per_device is not None:
            v = float(m.tokens_per_second_per_device.value)
            field = "tokens_per_second_per_device"
        else:
            continue
        yield "mfu_references", m, field, v, [round(v * (1 - REFERENCE_SHARE), 6), round(v * (1 + REFERENCE_SHARE), 6)]


def _replace(kb: KnowledgeBase, moves: list[tuple[str, BaseModel, str, float]]) -> KnowledgeBase:
    """A copy of the (frozen) knowledge base with the given figures set."""
    sections: dict[str, list[BaseModel]] = {}
    for section, entry, field, value in moves:
        items = sections.setdefault(section, list(getattr(kb, section)))
        i = next(k for k, x in enumerate(items) if x.id == entry.id)
        if field in ("images_per_second", "tokens_per_second_per_device"):
            nested = getattr(items[i], field)
            new = items[i].model_copy(update={field: nested.model_copy(update={"value": value})})
        elif field == "mfu":  # scale the stated range so that its middle is `value`
            mfu = items[i].mfu
            k = value / ((mfu.low + mfu.high) / 2)
            new = items[i].model_copy(
                update={"mfu": mfu.model_copy(update={"low": min(1.0, mfu.low * k), "high": min(1.0, mfu.high * k)})}
            )
        else:
            new = items[i].model_copy(update={field: value})
        items[i] = new
    return kb.model_copy(update=sections)


@dataclass
class Result:
    searched: int
    baseline: float
    winner: str
    moves: list[Move]  # one per figure: the end of its range that cuts the margin most, worst first
    nearest: Optional[Move]  # the first single move that flips the verdict (smallest change), or None
    pair: Optional[tuple[Move, Move, float, str]]  # the two worst moves together: margin after, top after


def search(
    kb: KnowledgeBase,
    rescore: Callable[[KnowledgeBase], _Scored],
    winner: str,
    frameworks: set[str],
    accelerators: set[str],
) -> Result:
    """Move each knowledge-base figure within its range; `rescore(kb)` returns a Scorecard."""
    base, _ = margin_of(rescore(kb), winner)
    worst: dict[tuple[str, str, str], Move] = {}
    chosen: dict[tuple[str, str, str], tuple[str, BaseModel, str, float]] = {}
    n = 0
    for section, entry, field, value, tries in _figures(kb, frameworks, accelerators):
        n += 1
        for after in tries:
            card = rescore(_replace(kb, [(section, entry, field, after)]))
            margin, top = margin_of(card, winner)
            key = (section, entry.id, field)
            if margin < base - 1e-9 and (key not in worst or margin < worst[key].margin):
                worst[key] = Move(section, entry.id, field, value, after, margin, top, name_of(section, entry))
                chosen[key] = (section, entry, field, after)
    moves = sorted(worst.values(), key=lambda m: (m.margin, m.section, m.entry))
    flips = [m for m in moves if m.top != winner or m.margin < 0]
    nearest = flips[0] if flips else None
    pair = None
    if len(moves) >= 2:
        a, b = moves[0], moves[1]
        card = rescore(_replace(kb, [chosen[(a.section, a.entry, a.field)], chosen[(b.section, b.entry, b.field)]]))
        margin, top = margin_of(card, winner)
        pair = (a, b, margin, top)
    return Result(n, base, winner, moves, nearest, pair)
