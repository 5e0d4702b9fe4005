"""Plan and cost, from the figures the report holds: the migration / adaptation work as a schedule
against constraints.deadline_weeks and team.size, the seeds' validation plan as milestones (seed 002
§7.4: a two-week full-chain rehearsal: single card, multi-card communication, export, inference), and
the TCO parts (compute, energy, engineering) side by side per workflow.

When the decision model's own `schedule` / `tco` keys are in the report they take precedence (they
are rendered by advisor.render.decision_sections, or generically by `generic` below).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from advisor.render._fmt import hours as fmt_hours
from advisor.render._fmt import md_table as _table
from advisor.render._fmt import num
from advisor.render.summary import get

if TYPE_CHECKING:
    from advisor.report import Report


HOURS_PER_PERSON_WEEK = 40.0  # the scoring's team-week (team size x 40 h), assumption
REHEARSAL_WEEKS = 2.0  # seed 002 §7.4: "先花两周做一次完整的压测"
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
DECISION_KEYS = ("memory_fit", "scaling_curve", "tco", "schedule")
DECISION_TITLES = {
    "memory_fit": "Memory fit",
    "scaling_curve": "Scaling curve",
    "tco": "Total cost of ownership",
    "schedule": "Schedule",
}


@dataclass
class Phase:
    name: str
    start: tuple[float, float]
    end: tuple[float, float]
    what: str


def _range(v: Any) -> tuple[float, float] | None:
    if v is None:
        return None
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return float(v[0]), float(v[1])
    low, high = get(v, "low"), get(v, "high")
    return (float(low), float(high)) if low is not None and high is not None else None


def schedule(report: Report) -> tuple[list[Phase], list[str]]:
    """Phases in weeks from the start, each [earliest, latest], and findings (a plan past the deadline)."""
    req = get(report, "requirements")
    size = int(get(get(req, "team"), "size", 1) or 1)
    deadline = get(get(req, "constraints"), "deadline_weeks")
    devices = int(get(get(req, "hardware"), "devices", 1) or 1)
    wf = get(get(report, "recommendation"), "workflow")
    top = next((s for s in get(report, "scores", []) if get(s, "workflow") == wf), None)
    proj = next((p for p in get(report, "projections", []) if get(p, "workflow") == wf), None)
    work = _range(get(top, "migration_hours")) or (0.0, 0.0)
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
    train = _range(get(proj, "time_to_train_hours"))
    if train:
        span = (train[0] / (24 * 7), train[1] / (24 * 7))  # wall-clock weeks of the production run
        phases.append(
            Phase(
                "production training",
                t,
                (t[0] + span[0], t[1] + span[1]),
                f"the projected run: {fmt_hours(get(proj, 'time_to_train_hours'))} on {get(proj, 'accelerator') or get(proj, 'target')} x{get(proj, 'devices', 1)}",
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


def generic(value: Any, depth: int = 0) -> list[str]:
    """Any JSON-like value as Markdown: scalars inline, dicts as bullet lists, lists of flat dicts as
    tables. Used for report keys this renderer does not know in detail."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    pad = "  " * depth
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{pad}- {k}:")
                out += generic(v, depth + 1)
            else:
                out.append(f"{pad}- {k}: {_scalar(v)}")
        return out
    if isinstance(value, list):
        if (
            value
            and all(isinstance(v, dict) for v in value)
            and all(not isinstance(x, (dict, list)) or _short(x) for v in value for x in v.values())
        ):
            keys = list(dict.fromkeys(k for v in value for k in v))
            return _table(keys, [[_scalar(v.get(k)) for k in keys] for v in value], ["l"] * len(keys))
        return [
            line
            for v in value
            for line in ([f"{pad}- {_scalar(v)}"] if not isinstance(v, (dict, list)) else generic(v, depth))
        ]
    return [f"{pad}{_scalar(value)}"]


def _short(x: Any) -> bool:
    return isinstance(x, list) and len(x) <= 4 and all(not isinstance(i, (dict, list)) for i in x)


def _scalar(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return num(v)
    if isinstance(v, list):
        return ", ".join(_scalar(x) for x in v)
    return str(v)
