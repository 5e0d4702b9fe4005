"""Criterion weights: defaults raised by the requirements (each bump names the field), user weights
override, all renormalised to sum to 1."""

from __future__ import annotations

from advisor.decision.constants import DEFAULT, Consts
from advisor.decision.findings import said
from advisor.decision.scorecard import Weight
from advisor.requirements import CRITERIA, Requirements


def default_weights(
    req: Requirements, k: Consts = DEFAULT, skip: frozenset[str] = frozenset()
) -> dict[str, tuple[float, list[str]]]:
    """Raw weights from the requirements, with the fields that raised each: the named constants
    WEIGHT_<CRITERION> plus each WEIGHT_<CRITERION>_<RAISE> whose requirement holds (only those are
    read, so only they are searched). `skip`: criteria the user weighted (none of their constants read)."""
    n = req.needs
    w: dict[str, tuple[float, list[str]]] = {}

    def add(name: str, *raises: tuple[bool, str, str]) -> None:
        if name in skip:
            return
        prefix = f"WEIGHT_{name.upper()}"
        value, why = k[prefix], []
        for cond, raise_, fld in raises:
            if cond:
                value += k[f"{prefix}_{raise_}"]
                why.append(fld)
        w[name] = (value, why)

    add(
        "performance",
        (n.throughput_priority == "medium", "THROUGHPUT_MEDIUM", "needs.throughput_priority=medium"),
        (n.throughput_priority == "high", "THROUGHPUT_HIGH", "needs.throughput_priority=high"),
        (n.distributed_training, "DISTRIBUTED", "needs.distributed_training"),
    )
    add(
        "cost",
        (req.constraints.budget_usd is not None, "BUDGET", "constraints.budget_usd"),
        (req.workload is not None, "WORKLOAD", "workload"),
    )
    add(
        "ecosystem",
        (n.huggingface == "nice", "HUB_NICE", "needs.huggingface=nice"),
        (n.huggingface == "essential", "HUB_ESSENTIAL", "needs.huggingface=essential"),
        (req.stage == "research", "RESEARCH", "stage=research"),
    )
    deadline = req.constraints.deadline_weeks
    add("team", (deadline is not None and deadline <= 8, "DEADLINE", "constraints.deadline_weeks<=8"))
    add(
        "migration",
        (req.model.source == "pytorch-code", "PYTORCH_CODE", "model.source=pytorch-code"),
        (req.model.kernel_count > 0, "CUSTOM_OPS", "model.custom_cuda_ops"),
        (deadline is not None, "DEADLINE", "constraints.deadline_weeks"),
    )
    add(
        "deployment",
        (req.stage == "production", "PRODUCTION", "stage=production"),
        (n.edge_cloud, "EDGE_CLOUD", "needs.edge_cloud"),
        (
            any(t in ("mobile", "edge-ascend") for t in req.deployment.targets),
            "EDGE_TARGETS",
            said("weights.edge_targets"),
        ),
    )
    add(
        "debugging",
        (n.debugging_intensity == "medium", "MEDIUM", "needs.debugging_intensity=medium"),
        (n.debugging_intensity == "high", "HIGH", "needs.debugging_intensity=high"),
        (req.stage in ("research", "prototype"), "EARLY_STAGE", f"stage={req.stage}"),
    )
    add("compliance")  # no raise: see WEIGHT_COMPLIANCE's source
    return w


def resolve_weights(req: Requirements, k: Consts = DEFAULT) -> list[Weight]:
    given = req.weights.given() if req.weights else {}
    defaults = default_weights(req, k, skip=frozenset(given))
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
