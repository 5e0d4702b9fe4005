"""Which price the advisor uses when the knowledge base holds several (one home for the policy).

Price observations are dated (provider, region, term, date, source). The policy, stated once:

1. terms: on-demand observations when there are any (reserved, spot and capacity-block prices are
   commitments or interruptions a team may not accept); otherwise every term;
2. newest: per provider, its newest observation; a provider whose newest is more than
   `WINDOW_MONTHS` older than the newest observation of all is dropped (it describes an older market);
3. median: the value is the median of what is left, the range is its minimum and maximum, and the
   date is the newest observation's (the report prints it; `advisor kb validate` warns when it is old).

The loader turns each accelerator's hourly choice into one `accelerator_hour` cost entry with id
`<accelerator>-hour`, so everything that reads costs sees one price per accelerator.
"""

from __future__ import annotations

import datetime as _dt
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

POLICY = (
    "on-demand prices when there are any, else every term; per provider its newest observation, "
    "dropping providers more than 12 months older than the newest; the median of those, their range shown"
)
WINDOW_MONTHS = 12
_TRUST = ("vendor", "secondary", "blog", "derived", "assumption")  # strongest first
UNIT = {"hour": "USD per device-hour", "card": "USD per card", "server": "USD per server"}


def months_between(earlier: _dt.date, later: _dt.date) -> float:
    """Whole and fractional months from `earlier` to `later` (30.44-day months; negative if reversed)."""
    return (later - earlier).days / 30.44


@dataclass(frozen=True)
class PriceChoice:
    """The chosen price: `value` (median), `low`-`high` (range), `as_of` (newest date), the
    observations it rests on, and the weakest confidence among them."""

    value: float
    low: float
    high: float
    as_of: _dt.date
    oldest: _dt.date
    observations: tuple[Any, ...]
    confidence: str
    kind: str
    policy: str = POLICY

    @property
    def providers(self) -> list[str]:
        return [o.provider for o in self.observations]

    def describe(self) -> str:
        span = (
            f" (range {self.low:g}-{self.high:g} across {len(self.observations)} providers)"
            if len(self.observations) > 1
            else f" ({self.observations[0].provider})"
        )
        return f"{self.value:g} {UNIT[self.kind]}{span}, observed {self.as_of}"


def choose(observations: Iterable[Any]) -> PriceChoice | None:
    """Apply the policy to observations of one accelerator and one kind (None when there are none)."""
    obs = list(observations)
    if not obs:
        return None
    kinds = {o.kind for o in obs}
    if len(kinds) > 1:
        raise ValueError(f"choose() needs one kind of price, got {sorted(kinds)}")
    on_demand = [o for o in obs if o.term == "on-demand"]
    pool = on_demand or obs
    newest_by_provider: dict[str, Any] = {}
    for o in sorted(pool, key=lambda o: (o.observed, o.id)):
        newest_by_provider[o.provider.strip().lower()] = o  # later (newer) wins
    newest = max(o.observed for o in newest_by_provider.values())
    used = sorted(
        (o for o in newest_by_provider.values() if months_between(o.observed, newest) <= WINDOW_MONTHS),
        key=lambda o: (o.usd, o.id),
    )
    values = [o.usd for o in used]
    confidence = max((o.confidence for o in used), key=_TRUST.index)
    return PriceChoice(
        value=round(statistics.median(values), 4),
        low=min(values),
        high=max(values),
        as_of=newest,
        oldest=min(o.observed for o in used),
        observations=tuple(used),
        confidence=confidence,
        kind=next(iter(kinds)),
    )


def hourly_cost_entries(prices: Iterable[Any], label: str) -> dict[str, dict]:
    """Raw `costs` entries (`<accelerator>-hour`) derived from the hourly observations, by id."""
    by_acc: dict[str, list[Any]] = {}
    for p in prices:
        if p.kind == "hour":
            by_acc.setdefault(p.accelerator, []).append(p)
    out: dict[str, dict] = {}
    for acc, obs in sorted(by_acc.items()):
        c = choose(obs)
        assert c is not None
        alternatives = [
            {
                "value": o.usd,
                "source": o.source,
                "confidence": o.confidence,
                "note": f"{o.provider}{', ' + o.region if o.region else ''}, {o.term}, observed {o.observed} ({o.id})",
            }
            for o in c.observations
        ]
        terms = "on-demand " if all(o.term == "on-demand" for o in c.observations) else ""
        if len(c.observations) == 1:
            note = f"the newest {terms}price of one provider ({c.observations[0].provider}), observed {c.as_of}"
        else:
            note = (
                f"median of {len(c.observations)} providers' newest {terms}prices, range {c.low:g}-{c.high:g}, "
                f"observed {c.oldest}..{c.as_of}"
            )
        out[f"{acc}-hour"] = {
            "id": f"{acc}-hour",
            "kind": "accelerator_hour",
            "accelerator": acc,
            "usd": {
                "value": c.value,
                "source": f"{label}: {', '.join(o.id for o in c.observations)}",
                "confidence": c.confidence,
                "note": note,
                "alternatives": alternatives,
            },
            "unit": "USD per device-hour",
            "as_of": c.as_of,
            "note": f"chosen by the price policy: {POLICY}",
            # the date travels with the source, so whatever cites this price shows how old it is
            "source": f"{label}: {note}",
            "confidence": c.confidence,
            "last_checked": max((o.last_checked or o.observed) for o in c.observations),
        }
    return out
