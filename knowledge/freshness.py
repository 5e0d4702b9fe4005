"""How current the knowledge base is: entries not checked for a while, and prices that are old.

`today` is always a parameter (default: `today()`), so checks and tests do not depend on the clock;
`ADVISOR_TODAY=YYYY-MM-DD` pins it for a whole run.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass
from typing import Any

from knowledge.pricing import months_between

STALE_MONTHS = 12  # an entry or a price older than this many months needs a look: prices move within a year
TODAY_ENV = "ADVISOR_TODAY"


def today() -> _dt.date:
    """The date checks are made against: ADVISOR_TODAY when set (YYYY-MM-DD), else the system date."""
    pinned = os.environ.get(TODAY_ENV, "").strip()
    if pinned:
        try:
            return _dt.date.fromisoformat(pinned)
        except ValueError:
            raise ValueError(f"{TODAY_ENV}: expected a date YYYY-MM-DD, got {pinned!r}") from None
    return _dt.date.today()


@dataclass(frozen=True)
class Stale:
    """One entry that needs a look: never checked (`last_checked` None) or checked `age_months` ago."""

    section: str
    entry_id: str
    last_checked: _dt.date | None
    age_months: float | None

    def describe(self) -> str:
        if self.last_checked is None:
            return f"{self.section}:{self.entry_id}: never checked (no last_checked)"
        return f"{self.section}:{self.entry_id}: last checked {self.last_checked} ({self.age_months:.0f} months ago)"

    def as_dict(self) -> dict[str, Any]:
        return {
            "section": self.section,
            "id": self.entry_id,
            "last_checked": self.last_checked.isoformat() if self.last_checked else None,
            "age_months": None if self.age_months is None else round(self.age_months, 1),
        }


def stale_entries(
    kb: Any, months: float = STALE_MONTHS, on: _dt.date | None = None, sections: list[str] | None = None
) -> list[Stale]:
    """Entries never checked or last checked more than `months` before `on` (default today()),
    oldest first, never-checked last."""
    from knowledge.models import SECTIONS

    on = on or today()
    found: list[Stale] = []
    for section in sections or list(SECTIONS):
        for entry in kb.section(section):
            checked = getattr(entry, "last_checked", None)
            if checked is None:
                found.append(Stale(section, entry.id, None, None))
            elif months_between(checked, on) > months:
                found.append(Stale(section, entry.id, checked, months_between(checked, on)))
    return sorted(found, key=lambda s: (s.last_checked is None, s.last_checked or on, s.section, s.entry_id))


def old_prices(kb: Any, months: float = STALE_MONTHS, on: _dt.date | None = None) -> list[str]:
    """One warning per accelerator price in use (`accelerator_hour` costs) dated more than `months`
    before `on`, and per purchase-price observation that old."""
    on = on or today()
    warnings: list[str] = []
    for cost in kb.costs:
        if cost.kind != "accelerator_hour":
            continue
        age = months_between(cost.as_of, on)
        if age > months:
            warnings.append(
                f"costs:{cost.id}: the {cost.accelerator} price in use is dated {cost.as_of}, "
                f"{age:.0f} months before {on} (older than {months:g}); record a newer observation "
                "in prices.yaml or your own --kb file"
            )
    for p in kb.prices:
        if p.kind != "hour" and months_between(p.observed, on) > months:
            warnings.append(
                f"prices:{p.id}: {p.kind} price observed {p.observed}, "
                f"{months_between(p.observed, on):.0f} months before {on} (older than {months:g})"
            )
    return warnings
