"""The milestones of the decision model's schedule (one schedule: the table and the milestones read the
same weeks): the migration at the team's share of time, the field report 'Ascend 910 and MindSpore in
practice' §7.4 two-week full-chain rehearsal (the model's minimum slice, multi-card communication, export,
inference) as its last weeks, then the projected training run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from advisor.numbers import sig
from advisor.render._fmt import hours as fmt_hours
from advisor.render._fmt import num, pair
from advisor.review.risks import min_slice

if TYPE_CHECKING:
    from advisor.report import Report


REHEARSAL_WEEKS = 2.0  # the field report 'Ascend 910 and MindSpore in practice' §7.4: "先花两周做一次完整的压测"
# The rehearsal's four stages in the seed's order, each a milestone; multi-card only with >1 device.
REHEARSAL = [
    ("single card", "single-card training reaches the PyTorch loss curve (precision alignment)"),
    (
        "multi-card",
        "every card busy, scaling efficiency measured (`advisor probe --scaling`)",
    ),
    ("export", "the trained model exported (MindIR / ONNX) and loaded by the target runtime"),
    ("inference", "latency and operator placement checked on the deployment target"),
]


@dataclass
class Phase:
    name: str
    start: tuple[float, float]
    end: tuple[float, float]
    what: str


def rehearsal_stages(report: Report) -> list[tuple[str, str]]:
    """The rehearsal's stages for this project: the first on the model's minimum slice, multi-card only
    when the run uses more devices than that."""
    devices, least = report.requirements.hardware.devices, min_slice(report)
    out = []
    for name, what in REHEARSAL:
        if name == "single card" and least > 1:
            name = f"minimum slice ({least} devices)"
            what = f"training on the model's minimum of {least} devices reaches the reference loss curve"
        if name == "multi-card" and devices <= least:
            continue
        if name == "export" and report.requirements.serving is not None:  # an LLM served from its weights
            what = "the trained weights saved (HuggingFace format) and loaded by the serving runtime"
        out.append((name, what))
    return out


def schedule(report: Report) -> tuple[list[Phase], list[str]]:
    """The milestones of the decision model's own schedule (report.schedules, the one the deadline rule
    reads): the migration at the team's share of time, the rehearsal as the migration's last weeks, then the
    projected training run; each phase [earliest, latest] in weeks from the start."""
    req = report.requirements
    wf = report.recommendation.workflow
    sched = next((s for s in report.schedules if s.workflow == wf), None)
    proj = next((p for p in report.projections if p.workflow == wf), None)
    if sched is None or not sched.hours:
        return [], ["no migration schedule in this report"]
    from advisor.decision.constants import CONSTANTS

    share = CONSTANTS["DEADLINE_SHARE"].value
    per_week = sched.team_hours_per_week * share
    mig = (sched.hours[0] / per_week, sched.hours[1] / per_week)
    phases = [
        Phase(
            "migration / adaptation",
            (0.0, 0.0),
            mig,
            f"{pair(sched.hours[0], sched.hours[1], 'h')} of work for {req.team.size} engineer(s) at {share:.0%} "
            f"of {num(sched.team_hours_per_week)} h/week",
        )
    ]
    stages = rehearsal_stages(report)
    start = (max(0.0, mig[0] - REHEARSAL_WEEKS), max(0.0, mig[1] - REHEARSAL_WEEKS))
    step = ((mig[0] - start[0]) / len(stages), (mig[1] - start[1]) / len(stages))
    t = start
    for name, what in stages:
        end = (t[0] + step[0], t[1] + step[1])
        phases.append(Phase(f"rehearsal: {name}", t, end, what))
        t = end
    t = mig
    if sched.training_weeks and proj is not None:
        tw = sched.training_weeks
        phases.append(
            Phase(
                "production training",
                t,
                (t[0] + tw[0], t[1] + tw[1]),
                f"the projected run: {fmt_hours(proj.time_to_train_hours)} on {proj.accelerator or proj.target} x{proj.devices}",
            )
        )
        t = (t[0] + tw[0], t[1] + tw[1])
    deadline = sched.deadline_weeks
    findings = []
    if deadline is None:
        findings.append("no constraints.deadline_weeks: the schedule is shown without a deadline")
    elif sched.finding:
        findings.append(("**does not fit**: " if sched.fits == "no" else "at risk: ") + sched.finding)
    elif sched.fits == "yes":
        findings.append(
            f"fits: the latest finish, week {t[1]:.1f}, leaves {deadline - t[1]:.1f} of {sig(deadline, 6)} weeks"
        )
    return phases, findings
