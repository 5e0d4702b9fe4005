"""The migration schedule against the deadline: hours of work per part, in weeks of the team's time,
and the share of the team's time before the deadline they take (a continuous pressure, not a step)."""

from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.constants import DEFAULT, Consts


class Phase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    hours: list[float]
    weeks: list[float] = Field(description="[low, high] weeks of the whole team")


class Schedule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workflow: str
    hours: list[float] = Field(description="[low, high] migration/adaptation hours")
    team_hours_per_week: float
    weeks: list[float] = Field(description="[low, high] weeks of the whole team")
    deadline_weeks: Optional[float] = None
    allowed_hours: Optional[float] = Field(None, description="deadline x team x hours/week x DEADLINE_SHARE")
    pressure: Optional[float] = Field(None, description="mid hours / allowed hours (1 = the whole allowance)")
    fits: Optional[str] = Field(None, description="yes | maybe (the high end does not) | no (not even the low end)")
    phases: list[Phase] = Field(default_factory=list)
    finding: Optional[str] = None


def schedule(
    workflow: str, parts: list[tuple[str, float, float]], team_size: int, deadline: Optional[float], k: Consts = DEFAULT
) -> Schedule:
    per_week = team_size * k["HOURS_PER_WEEK"]
    low, high = sum(p[1] for p in parts), sum(p[2] for p in parts)
    out = Schedule(
        workflow=workflow,
        hours=[round(low, 2), round(high, 2)],
        team_hours_per_week=per_week,
        weeks=[round(low / per_week, 3), round(high / per_week, 3)],
        phases=[
            Phase(name=n, hours=[round(a, 2), round(b, 2)], weeks=[round(a / per_week, 3), round(b / per_week, 3)])
            for n, a, b in parts
            if b > 0
        ],
    )
    if deadline is None:
        return out
    allowed = per_week * deadline * k["DEADLINE_SHARE"]
    out.deadline_weeks, out.allowed_hours = deadline, round(allowed, 2)
    out.pressure = round((low + high) / 2 / allowed, 4) if allowed > 0 else None
    out.fits = "yes" if high <= allowed else ("maybe" if low <= allowed else "no")
    if out.fits == "no":
        out.finding = (
            f"the migration cannot fit: at least {low:g} h against {allowed:g} h "
            f"({k['DEADLINE_SHARE']:.0%} of {team_size} x {k['HOURS_PER_WEEK']:g} h x {deadline:g} weeks)"
        )
    elif out.fits == "maybe":
        out.finding = (
            f"the migration fits only at the low end of its estimate ({low:g}-{high:g} h against {allowed:g} h)"
        )
    return out


def pressure_penalty(sched: Schedule, k: Consts = DEFAULT) -> float:
    """Points the migration criterion loses as the hours approach the deadline allowance: continuous and
    strictly increasing in the pressure, DEADLINE_PRESSURE_POINTS at the allowance, never more than twice it."""
    if sched.pressure is None:
        return 0.0
    p = sched.pressure
    return 2 * k["DEADLINE_PRESSURE_POINTS"] * p / (1 + p)
