"""The schedule against the deadline: migration hours per part, in weeks of the team's time, and the
share of the team's time before the deadline they take (a continuous pressure, not a step); then the
projected training time: the migration takes DEADLINE_SHARE of the team's calendar,
training runs around the clock after it. A workflow whose training alone cannot finish by the
deadline does not fit, whatever its migration."""

from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.constants import DEFAULT, Consts
from advisor.decision.findings import Finding, finding


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
    finding_code: Optional[str] = Field(
        None,
        exclude=True,
        description="the finding's code in advisor.wording.catalogue (the decision model reads it, never the words)",
    )


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
            return _found(
                out,
                "no",
                finding(
                    "schedule.training_past_deadline",
                    training_low=out.training_weeks[0],
                    training_high=out.training_weeks[1],
                    deadline=deadline,
                ),
            )
        if c_low > deadline:
            return _found(
                out,
                "no",
                finding(
                    "schedule.calendar_past_deadline",
                    calendar_low=c_low,
                    share=share,
                    training_low=out.training_weeks[0],
                    deadline=deadline,
                ),
            )
        if c_high > deadline and out.fits == "yes":
            return _found(
                out,
                "maybe",
                finding("schedule.calendar_fast_end_only", calendar_low=c_low, calendar_high=c_high, deadline=deadline),
            )
    if out.fits == "no":
        return _found(
            out,
            "no",
            finding(
                "schedule.migration_past_deadline",
                low=low,
                allowed=allowed,
                share=share,
                team_size=team_size,
                hours_per_week=k["HOURS_PER_WEEK"],
                deadline=deadline,
            ),
        )
    if out.fits == "maybe":
        return _found(out, "maybe", finding("schedule.migration_low_end_only", low=low, high=high, allowed=allowed))
    return out


def _found(out: Schedule, fits: str, found: Finding) -> Schedule:
    """The schedule with its verdict and the finding that sets it (its code kept beside the catalogue's words)."""
    out.fits, out.finding, out.finding_code = fits, str(found), found.code
    return out


def pressure_penalty(sched: Schedule, k: Consts = DEFAULT) -> float:
    """Points the migration criterion loses as the hours approach the deadline allowance: continuous and
    strictly increasing in the pressure, DEADLINE_PRESSURE_POINTS at the allowance, never more than twice it."""
    if sched.pressure is None:
        return 0.0
    p = sched.pressure
    return 2 * k["DEADLINE_PRESSURE_POINTS"] * p / (1 + p)
