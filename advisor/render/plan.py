"""Plan and cost, from the figures the report holds: the migration / adaptation work as a schedule
against constraints.deadline_weeks and team.size, the seeds' validation plan as milestones (the field report 'Ascend 910 and MindSpore in practice'
§7.4: a two-week full-chain rehearsal: single card, multi-card communication, export, inference), and
the TCO parts (compute, energy, engineering) side by side per workflow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from advisor.render._fmt import hours as fmt_hours
from advisor.render._fmt import num

if TYPE_CHECKING:
    from advisor.decision.evidence import Span
    from advisor.report import Report


HOURS_PER_PERSON_WEEK = 40.0  # the scoring's team-week (team size x 40 h), assumption
REHEARSAL_WEEKS = 2.0  # the field report 'Ascend 910 and MindSpore in practice' §7.4: "先花两周做一次完整的压测"
# The rehearsal's four stages in the seed's order, each a milestone; multi-card only with >1 device.
REHEARSAL = [
    ("single card", "single-card training reaches the PyTorch loss curve (precision alignment)"),
    (
        "multi-card",
        "multi-card communication: every card busy, scaling efficiency measured (`advisor probe --scaling`)",
    ),
    ("export", "the trained model exported (MindIR / ONNX) and loaded by the target runtime"),
    ("inference", "inference on the deployment target: latency and operator placement checked"),
]


@dataclass
class Phase:
    name: str
    start: tuple[float, float]
    end: tuple[float, float]
    what: str


def _range(v: Span | list[float] | None) -> tuple[float, float] | None:
    """A [low, high] list (migration_hours) or a Span (time_to_train_hours) as a pair."""
    if v is None:
        return None
    if isinstance(v, list):
        return (float(v[0]), float(v[1])) if len(v) == 2 else None
    return float(v.low), float(v.high)


def schedule(report: Report) -> tuple[list[Phase], list[str]]:
    """Phases in weeks from the start, each [earliest, latest], and findings (a plan past the deadline)."""
    req = report.requirements
    size = req.team.size
    deadline = req.constraints.deadline_weeks
    devices = req.hardware.devices
    wf = report.recommendation.workflow
    top = next((s for s in report.scores if s.workflow == wf), None)
    proj = next((p for p in report.projections if p.workflow == wf), None)
    work = _range(top.migration_hours if top is not None else None) or (0.0, 0.0)
    weeks = (work[0] / (size * HOURS_PER_PERSON_WEEK), work[1] / (size * HOURS_PER_PERSON_WEEK))
    phases = [
        Phase(
            "migration / adaptation",
            (0.0, 0.0),
            weeks,
            f"{num(work[0])}-{num(work[1])} h of work for {size} engineer(s) at {HOURS_PER_PERSON_WEEK:g} h/week",
        )
    ]
    t = weeks
    stages = [s for s in REHEARSAL if devices > 1 or s[0] != "multi-card"]
    step = REHEARSAL_WEEKS / len(stages)
    for name, what in stages:
        phases.append(Phase(f"rehearsal: {name}", t, (t[0] + step, t[1] + step), what))
        t = (t[0] + step, t[1] + step)
    train = _range(proj.time_to_train_hours) if proj is not None else None
    if proj is not None and train:
        span = (train[0] / (24 * 7), train[1] / (24 * 7))  # wall-clock weeks of the production run
        phases.append(
            Phase(
                "production training",
                t,
                (t[0] + span[0], t[1] + span[1]),
                f"the projected run: {fmt_hours(proj.time_to_train_hours)} on {proj.accelerator or proj.target} x{proj.devices}",
            )
        )
        t = (t[0] + span[0], t[1] + span[1])
    findings = []
    if deadline:
        if t[0] > deadline:
            findings.append(
                f"**does not fit**: even the earliest finish, week {t[0]:.1f}, is past the {deadline:g}-week deadline"
            )
        elif t[1] > deadline:
            findings.append(
                f"at risk: the latest finish, week {t[1]:.1f}, is past the {deadline:g}-week deadline "
                f"(earliest {t[0]:.1f})"
            )
        else:
            findings.append(
                f"fits: the latest finish, week {t[1]:.1f}, leaves {deadline - t[1]:.1f} of {deadline:g} weeks"
            )
    else:
        findings.append("no constraints.deadline_weeks: the schedule is shown without a deadline")
    return phases, findings
