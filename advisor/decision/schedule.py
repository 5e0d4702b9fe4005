"""The schedule against the deadline: migration hours per part, in weeks of the team's time, and the
share of the team's time before the deadline they take (a continuous pressure, not a step); then the
projected training time: the migration takes DEADLINE_SHARE of the team's calendar,
training runs around the clock after it. A workflow whose training alone cannot finish by the
deadline does not fit, whatever its migration."""

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
    expected_hours: Optional[float] = Field(
        None,
        description="the pitfalls weighted by the risk register's likelihoods, the other parts at their middle "
        "(the full range `hours` charges every pitfall in full, an overstatement a reviewer would object to)",
    )
    training_weeks: Optional[list[float]] = Field(
        None, description="[low, high] calendar weeks of the projected training run (24 h a day)"
    )
    calendar_weeks: Optional[list[float]] = Field(
        None, description="[low, high] migration (at DEADLINE_SHARE of the team's time) + training"
    )
    finding: Optional[str] = None


HOURS_PER_CALENDAR_WEEK = 168.0  # a training run goes on day and night


def schedule(
    workflow: str,
    parts: list[tuple[str, float, float]],
    team_size: int,
    deadline: Optional[float],
    k: Consts = DEFAULT,
    training_hours: Optional[tuple[float, float]] = None,
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
    share = k["DEADLINE_SHARE"]
    if training_hours is not None:
        t_low, t_high = (h / HOURS_PER_CALENDAR_WEEK for h in training_hours)
        out.training_weeks = [round(t_low, 3), round(t_high, 3)]
        out.calendar_weeks = [round(low / (per_week * share) + t_low, 3), round(high / (per_week * share) + t_high, 3)]
    if deadline is None:
        return out
    allowed = per_week * deadline * share
    out.deadline_weeks, out.allowed_hours = deadline, round(allowed, 2)
    out.pressure = round((low + high) / 2 / allowed, 4) if allowed > 0 else None
    out.fits = "yes" if high <= allowed else ("maybe" if low <= allowed else "no")
    if out.calendar_weeks is not None and out.training_weeks is not None:
        # training uses the calendar left after the migration (the migration's own pressure stays as it was)
        c_low, c_high = out.calendar_weeks
        if out.training_weeks[0] > deadline:
            out.fits = "no"
            out.finding = (
                f"training alone cannot finish by the deadline: {out.training_weeks[0]:.1f}-{out.training_weeks[1]:.1f} "
                f"weeks of projected training against {deadline:g} weeks"
            )
            return out
        if c_low > deadline:
            out.fits = "no"
            out.finding = (
                f"migration and training together cannot fit: at least {c_low:.1f} weeks "
                f"(migration at {share:.0%} of the team's time, then {out.training_weeks[0]:.1f} weeks of training) "
                f"against {deadline:g} weeks"
            )
            return out
        if c_high > deadline and out.fits == "yes":
            out.fits = "maybe"
            out.finding = (
                f"migration and training fit only at the fast end: {c_low:.1f}-{c_high:.1f} weeks against {deadline:g}"
            )
            return out
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
