"""The criteria's default weights: each criterion's base and each requirement that raises it, as raw
weights (advisor.decision.weights adds the raises that apply and renormalises all eight to sum to 1; a
weight the user gives replaces the criterion's default and none of these is read for it).

All are assumptions: a judgement of how much each criterion weighs for a team, which is why the
sensitivity analysis moves each in its range and a team can set its own `weights:`."""

from __future__ import annotations

from advisor.decision.constants.base import Constant

RAW = "raw"  # the unit: a raw weight, renormalised with the others
SEARCH = (0.0, 0.3)  # from nothing to about a third of the eight together at their defaults (~0.8)


def _base(criterion: str, value: float, why: str) -> Constant:
    return Constant(
        f"WEIGHT_{criterion.upper()}",
        value,
        RAW,
        f"assumption: {why}",
        f"the default {criterion} weight were",
        SEARCH,
    )


def _raise(name: str, criterion: str, value: float, field: str, why: str) -> Constant:
    return Constant(
        f"WEIGHT_{criterion.upper()}_{name}",
        value,
        RAW,
        f"assumption: {field} raises the {criterion} weight: {why}",
        f"{field} raised the {criterion} weight by",
        SEARCH,
    )


WEIGHTS: list[Constant] = [
    _base("performance", 0.10, "speed matters to every team, and more when the requirements say so"),
    _raise("THROUGHPUT_MEDIUM", "performance", 0.05, "needs.throughput_priority=medium", "throughput is a stated need"),
    _raise("THROUGHPUT_HIGH", "performance", 0.12, "needs.throughput_priority=high", "throughput is a priority"),
    _raise("DISTRIBUTED", "performance", 0.02, "needs.distributed_training", "scaling across devices costs speed"),
    _base("cost", 0.07, "what the project costs, beyond the team's time"),
    _raise("BUDGET", "cost", 0.05, "constraints.budget_usd", "a stated budget is a limit to judge against"),
    _raise("WORKLOAD", "cost", 0.02, "workload", "a stated workload makes the compute cost computable"),
    _base("ecosystem", 0.08, "models, libraries and answers the team can reuse"),
    _raise("HUB_NICE", "ecosystem", 0.05, "needs.huggingface=nice", "the model hub helps"),
    _raise("HUB_ESSENTIAL", "ecosystem", 0.15, "needs.huggingface=essential", "the model hub is essential"),
    _raise("RESEARCH", "ecosystem", 0.03, "stage=research", "research reuses published code"),
    _base("team", 0.14, "the team's skill is the largest single factor in delivery: the largest base"),
    _raise("DEADLINE", "team", 0.05, "constraints.deadline_weeks<=8", "no time to learn a new stack"),
    _base("migration", 0.08, "the work of moving the model between frameworks"),
    _raise("PYTORCH_CODE", "migration", 0.08, "model.source=pytorch-code", "there is code to port"),
    _raise("CUSTOM_OPS", "migration", 0.03, "model.custom_cuda_ops", "custom kernels are the costliest part to port"),
    _raise("DEADLINE", "migration", 0.02, "constraints.deadline_weeks", "migration time counts against a deadline"),
    _base("deployment", 0.10, "the product has to run somewhere"),
    _raise("PRODUCTION", "deployment", 0.04, "stage=production", "the deployment path is needed now"),
    _raise("EDGE_CLOUD", "deployment", 0.05, "needs.edge_cloud", "two places to deploy to"),
    _raise("EDGE_TARGETS", "deployment", 0.03, "deployment.targets (edge)", "edge targets narrow the paths"),
    _base("debugging", 0.04, "debugging is a daily cost, small unless the work is exploratory"),
    _raise("MEDIUM", "debugging", 0.04, "needs.debugging_intensity=medium", "debugging is a stated need"),
    _raise("HIGH", "debugging", 0.10, "needs.debugging_intensity=high", "debugging is most of the work"),
    _raise("EARLY_STAGE", "debugging", 0.03, "stage=research or prototype", "early work is mostly debugging"),
    # Constant on purpose (no raise): a stricter domestic requirement changes the scores and the hard
    # constraint, never the weight, so it can only lower a non-domestic stack's total.
    _base("compliance", 0.10, "the domestic and regulatory mandates, when a team has them"),
]
