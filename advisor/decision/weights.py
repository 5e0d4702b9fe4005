"""Criterion weights: defaults raised by the requirements (each bump names the field), user weights
override, all renormalised to sum to 1."""

from __future__ import annotations

from advisor.decision.scorecard import Weight
from advisor.requirements import CRITERIA, Requirements


def default_weights(req: Requirements) -> dict[str, tuple[float, list[str]]]:
    """Raw weights from the requirements, with the fields that raised each."""
    n = req.needs
    w: dict[str, tuple[float, list[str]]] = {}

    def add(name: str, base: float, *bumps: tuple[bool, float, str]) -> None:
        value, why = base, []
        for cond, amount, fld in bumps:
            if cond:
                value += amount
                why.append(fld)
        w[name] = (value, why)

    add(
        "performance",
        0.10,
        (n.throughput_priority == "medium", 0.05, "needs.throughput_priority=medium"),
        (n.throughput_priority == "high", 0.12, "needs.throughput_priority=high"),
        (n.distributed_training, 0.02, "needs.distributed_training"),
    )
    add(
        "cost",
        0.07,
        (req.constraints.budget_usd is not None, 0.05, "constraints.budget_usd"),
        (req.workload is not None, 0.02, "workload"),
    )
    add(
        "ecosystem",
        0.08,
        (n.huggingface == "nice", 0.05, "needs.huggingface=nice"),
        (n.huggingface == "essential", 0.15, "needs.huggingface=essential"),
        (req.stage == "research", 0.03, "stage=research"),
    )
    add(
        "team",
        0.14,
        (
            req.constraints.deadline_weeks is not None and req.constraints.deadline_weeks <= 8,
            0.05,
            "constraints.deadline_weeks<=8",
        ),
    )
    add(
        "migration",
        0.08,
        (req.model.source == "pytorch-code", 0.08, "model.source=pytorch-code"),
        (req.model.kernel_count > 0, 0.03, "model.custom_cuda_ops"),
        (req.constraints.deadline_weeks is not None, 0.02, "constraints.deadline_weeks"),
    )
    add(
        "deployment",
        0.10,
        (req.stage == "production", 0.04, "stage=production"),
        (n.edge_cloud, 0.05, "needs.edge_cloud"),
        (any(t in ("mobile", "edge-ascend") for t in req.deployment.targets), 0.03, "deployment.targets (edge)"),
    )
    add(
        "debugging",
        0.04,
        (n.debugging_intensity == "medium", 0.04, "needs.debugging_intensity=medium"),
        (n.debugging_intensity == "high", 0.10, "needs.debugging_intensity=high"),
        (req.stage in ("research", "prototype"), 0.03, f"stage={req.stage}"),
    )
    # Constant on purpose: a stricter domestic requirement changes the scores and the hard
    # constraint, never the weight, so it can only lower a non-domestic stack's total.
    add("compliance", 0.10)
    return w


def resolve_weights(req: Requirements) -> list[Weight]:
    defaults = default_weights(req)
    given = req.weights.given() if req.weights else {}
    raw = {name: (given[name] if name in given else defaults[name][0]) for name in CRITERIA}
    total = sum(raw.values()) or 1.0
    return [
        Weight(
            name=name,
            weight=raw[name] / total,
            raw=raw[name],
            origin="user" if name in given else "default",
            because=[] if name in given else defaults[name][1],
        )
        for name in CRITERIA
    ]
