"""How likely a knowledge-base pitfall is to bite this project on one workflow: the judgement the
decision model (expected migration hours) and the review's risk register both read.

Likelihoods are judgements (`assumption`), each stated with why, from the project's model size and
scale, stage, code features and deployment target.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from advisor.decision.memory import MemoryFit
from advisor.requirements import Requirements

# Likelihood (0-1) that a pitfall bites, before the per-pitfall rules below (assumption).
UNCONDITIONAL = 0.5  # applies to every project on the workflow
SCAN_HIT = 0.95  # the migration scan found the hazard in the project's code
# A probe measured the pitfall's symptom (accuracy gap beyond the tolerance, a pipeline that cannot
# feed the target) or measured it absent (assumption: a measurement on a small model and on this
# host's CPU is strong evidence, not proof, for the team's model and hosts).
MEASURED_HIT = 0.95
MEASURED_CLEAR = 0.1
# Parameters (millions) above which a model is "large" when the decision model's memory fit is absent:
# seed 002 §7.1: one card cannot hold a model of "a dozen hundred million" parameters (assumption: 1000 M).
LARGE_MODEL_M = 1000.0
SMALL_MODEL_M = 100.0  # a "small model on a fast chip" (seed 002 §5.3), assumption


@dataclass
class Project:
    params_m: float | None
    family: str
    devices: int
    distributed: bool
    stage: str
    target: str
    custom_ops: bool
    huggingface: str
    must_split: bool | None
    source: str = "new"


def project_of(req: Requirements, fit: Optional[MemoryFit]) -> Project:
    """The project from the requirements and a workflow's memory fit (the scorecard's own view, before
    a report exists: the migration schedule weighs pitfalls by the same likelihoods)."""
    m, hw, needs = req.model, req.hardware, req.needs
    split = None if fit is None or fit.strategy == "unknown" else fit.must_split
    return Project(
        m.parameters_millions,
        m.family,
        hw.devices,
        needs.distributed_training,
        req.stage,
        hw.training_target,
        m.custom_cuda_ops,
        needs.huggingface,
        split,
        m.source,
    )


def likelihood(pitfall_id: str, conditions: list[str], p: Project, workflow: str) -> float:
    """The register's likelihood that a pitfall bites this project on this workflow."""
    rule = RULES.get(pitfall_id)
    if rule is not None:
        value = rule(p)[0]
    else:
        value = 0.6 if conditions else UNCONDITIONAL
    if pitfall_id in PORTING and workflow == "mindspore" and p.source != "pytorch-code":
        value *= NOT_PORTED
    return value


def _size(p: Project) -> str:
    """'an 11.7M-parameter cnn' (with its article: the register reads as prose)."""
    text = f"{p.params_m:g}M-parameter {p.family}" if p.params_m else f"{p.family} model of unstated size"
    an = text[0] in "aeiou8" or text.split("M")[0].split(".")[0] in ("11", "18") or text.startswith("11")
    return ("an " if an else "a ") + text


Rule = Callable[[Project], tuple[float, str]]


def _auto_parallel(p: Project) -> tuple[float, str]:
    if p.must_split:
        return 0.7, "the model must be split across devices (memory fit): automatic parallelism is in play"
    if p.must_split is False or (p.params_m is not None and p.params_m < LARGE_MODEL_M):
        return 0.05, (
            f"{_size(p)} fits one device: data parallelism suffices and automatic parallelism is not "
            "needed (seed 002 §7.1-7.2)"
        )
    return 0.4, "model size unknown or large: automatic parallelism may be needed"


def _pipeline(p: Project) -> tuple[float, str]:
    if p.target == "ascend" and p.params_m is not None and p.params_m < SMALL_MODEL_M:
        return 0.7, f"{_size(p)} on a fast chip: the input pipeline is the likely bottleneck (seed 002 §5.3)"
    return 0.4, "large models keep the accelerator busy longer per sample"


def _power(p: Project) -> tuple[float, str]:
    if p.devices >= 8 and p.stage == "production":
        return 0.6, f"{p.devices} cards in production: at least one 8-card server to power and cool (seed 002 §1.3)"
    if p.devices >= 8:
        return (
            0.35,
            f"{p.devices} cards, not yet in production: bites when the servers are hosted on site, not in a cloud",
        )
    return 0.15, f"{p.devices} card(s): below one 8-card server's power budget"


def _comm(p: Project) -> tuple[float, str]:
    if p.devices >= 16:
        return (
            0.7,
            f"{p.devices} devices span servers: below 30% of linear at 64 cards on weak interconnect (seed 004 §2.1)",
        )
    if p.devices > 1:
        return 0.35, f"{p.devices} devices in one server: ~70% of linear at 8 cards (seed 004 §2.1)"
    return 0.05, "one device: no communication"


def _hccl(p: Project) -> tuple[float, str]:
    if p.devices > 1:
        return 0.6, f"{p.devices} Ascend cards: rank table, device ids and NIC IPs must all be right (seed 002 §5.4)"
    return 0.1, "one card: HCCL is not used"


def _operator(p: Project) -> tuple[float, str]:
    if p.custom_ops:
        return 0.8, "custom CUDA operators have no Ascend counterpart"
    if p.family == "cnn":
        return 0.2, "a standard CNN: its operators are covered on Ascend"
    return 0.5, f"a {p.family} model: recent structures are supported late (seed 004 §5.3)"


def _hub(p: Project) -> tuple[float, str]:
    return {
        "essential": (0.9, "HuggingFace is essential to the project"),
        "nice": (0.35, "HuggingFace is nice to have"),
    }.get(p.huggingface, (0.1, "no HuggingFace dependence"))


def _memory_reserve(p: Project) -> tuple[float, str]:
    if p.params_m is not None and p.params_m < SMALL_MODEL_M:
        return 0.15, f"{_size(p)} is far from the memory limit"
    return 0.5, "a large model runs near the memory limit, where the reserve matters"


RULES: dict[str, Rule] = {
    "auto-parallel-limits": _auto_parallel,
    "data-pipeline-bottleneck": _pipeline,
    "datacenter-power-planning": _power,
    "distributed-communication-bottleneck": _comm,
    "hccl-configuration": _hccl,
    "unsupported-operator": _operator,
    "pretrained-weights-hub": _hub,
    "npu-smi-reserved-memory": _memory_reserve,
    "version-matrix": lambda p: (
        0.8,
        "the driver/CANN/framework chain is where most Ascend set-ups first fail (seed 002 §3.2)",
    ),
    "precision-alignment": lambda p: (
        0.7,
        "every ported model must be checked against the PyTorch loss curve (seed 004 §5.1)",
    ),
    "numpy-2-breaks-mindspore": lambda p: (0.1, "the pinned stack above holds NumPy below 2"),
    "graph-compile-overhead": lambda p: (0.9, "every Graph-mode run compiles first; minutes, not engineering days"),
    "custom-cuda-ops": lambda p: (0.95, "model.custom_cuda_ops is true"),
    "graph-dynamic-control-flow": lambda p: (0.9, "model.dynamic_control_flow is true"),
    "graph-dynamic-shapes": lambda p: (0.9, "model.dynamic_shapes is true: every new length compiles a graph"),
}


# Pitfalls of porting PyTorch code: unlikely when nothing is ported (MindSpore from the start on a new
# model); the factor is a judgement (assumption).
PORTING = (
    "ddp-to-mindspore-parallel",
    "normalize-range",
    "lr-scheduler-api",
    "layer-default-differences",
    "inplace-ops",
    "hooks-pynative-only",
    "mixed-precision-config",
    "precision-alignment",
)
NOT_PORTED = 0.3
