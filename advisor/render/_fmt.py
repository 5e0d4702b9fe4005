"""Number and range formatting shared by the text renderers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from advisor.numbers import num as num  # the one number formatter (the decision model's prose uses it too)
from advisor.sanitize import md_cell

if TYPE_CHECKING:
    from advisor.report import RunSummary


LABELS = {"pytorch": "PyTorch", "mindspore": "MindSpore", "hybrid": "Hybrid"}


def md_table(header: list[str], rows: list[list[str]], align: list[str] | None = None) -> list[str]:
    """The one Markdown table of every renderer (escaping included): `l`/`r` alignment per column,
    default first column left, the rest right."""
    align = align or ["l"] + ["r"] * (len(header) - 1)
    sep = ["---:" if a == "r" else ":---" for a in align]

    # md_cell: one line, no table break, no link, image or raw HTML (advisor.sanitize, the one escaping)
    return ["| " + " | ".join(md_cell(h) for h in header) + " |", "| " + " | ".join(sep) + " |"] + [
        "| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows
    ]


class Ranged(Protocol):
    """A low-high range: the report's Span, or any object with the two floats."""

    low: float
    high: float


def pair(low: float, high: float, unit: str = "") -> str:
    """A low-high range: one number when the two are the same."""
    text = num(low) if abs(high - low) <= 1e-9 * max(1.0, abs(high)) else f"{num(low)}-{num(high)}"
    return f"{text} {unit}".strip()


def span(s: Ranged | None, unit: str = "") -> str:
    """A Span as text."""
    if s is None:
        return "-"
    return pair(s.low, s.high, unit)


def hours(s: Ranged | None) -> str:
    """A time span in the unit that reads best."""
    if s is None:
        return "-"
    if s.high < 1:
        return pair(s.low * 60, s.high * 60, "min")
    if s.high > 72:
        return pair(s.low / 24, s.high / 24, "days")
    return pair(s.low, s.high, "h")


def usd(s: Ranged | Mapping[str, float] | None) -> str:
    if s is None:
        return "-"
    return "$" + span(s)


def run_label(run: RunSummary) -> str:
    parts = [run.framework, run.mode or "", run.model or "", f"bs{run.batch_size}" if run.batch_size else ""]
    return " ".join(p for p in parts if p)


def bar(value: float, best: float, width: int = 40) -> str:
    """A text bar; eighths of a block for resolution."""
    if best <= 0 or value <= 0:
        return ""
    eighths = round(value / best * width * 8)
    full, rest = divmod(eighths, 8)
    return "█" * full + ("" if rest == 0 else " ▏▎▍▌▋▊▉"[rest])


NOT_APPLICABLE = "n/a"  # a workflow that does not apply to the project: no criteria, no total


def criterion_cell(score: object, i: int) -> str:
    """One criterion's score in a table column, or "n/a" for a workflow that does not apply."""
    if not getattr(score, "applicable", True):
        return NOT_APPLICABLE
    return f"{score.criteria[i].score:.0f}"  # type: ignore[attr-defined]


def total_cell(score: object) -> str:
    """A workflow's total (one decimal), or "n/a" for a workflow that does not apply."""
    if not getattr(score, "applicable", True):
        return NOT_APPLICABLE
    return f"{float(score.total):.1f}"  # type: ignore[attr-defined]
