"""The risk register: the knowledge-base pitfalls that apply to the recommended workflow, ranked by
exposure = likelihood for THIS project x expected fix hours, each with an owner, the rehearsal
milestone that retires it and a mitigation; the migration scan's hazards join when model.code_path
was scanned. Low-exposure pitfalls are folded under "also known".

Likelihoods are judgements (`assumption`), each stated with why, from the project's model size and
scale, stage, code features and deployment target; a scan hit (the hazard found in the code) is
near-certain. Pure: reads the report document only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional

from advisor.decision.memory import MemoryFit
from advisor.requirements import Requirements

if TYPE_CHECKING:  # advisor.report imports the decision model; the register only reads the document
    from advisor.decision.scorecard import PitfallItem
    from advisor.report import Report

# Likelihood (0-1) that a pitfall bites, before the per-pitfall rules below (assumption).
UNCONDITIONAL = 0.5  # applies to every project on the workflow
SCAN_HIT = 0.95  # the migration scan found the hazard in the project's code
# A probe measured the pitfall's symptom (accuracy gap beyond the tolerance, a pipeline that cannot
# feed the target) or measured it absent (assumption: a measurement on a small model and on this
# host's CPU is strong evidence, not proof, for the team's model and hosts).
MEASURED_HIT = 0.95
MEASURED_CLEAR = 0.1
# An exposure below this many expected hours goes under "also known" (assumption: half a working day
# is below what an architect tracks as a risk); at most REGISTER_MAX rows in the register.
REGISTER_MIN_HOURS = 2.0
REGISTER_MAX = 10
# Parameters (millions) above which a model is "large" when the decision model's memory fit is absent:
# seed 002 §7.1: one card cannot hold a model of "a dozen hundred million" parameters (assumption: 1000 M).
LARGE_MODEL_M = 1000.0
SMALL_MODEL_M = 100.0  # a "small model on a fast chip" (seed 002 §5.3), assumption

OWNER = {
    "platform": (
        "version-matrix",
        "datacenter-power-planning",
        "hccl-configuration",
        "npu-smi-reserved-memory",
        "torch-npu-adapter-overhead",
        "mindspore-gpu-unsupported",
        "numpy-2-breaks-mindspore",
    ),
    "distributed-training engineer": (
        "ddp-to-mindspore-parallel",
        "distributed-communication-bottleneck",
        "auto-parallel-limits",
    ),
    "data engineer": ("data-pipeline-bottleneck", "cifar-binary-format", "normalize-range"),
    "deployment engineer": ("model-conversion-chain", "operator-fallback-cpu"),
    "tech lead": ("pretrained-weights-hub",),
}
# The seed 002 §7.4 rehearsal stage that retires a risk (environment first, then single card,
# multi-card communication, export, inference).
MILESTONE = {
    "environment": (
        "version-matrix",
        "datacenter-power-planning",
        "npu-smi-reserved-memory",
        "torch-npu-adapter-overhead",
        "mindspore-gpu-unsupported",
        "numpy-2-breaks-mindspore",
    ),
    "multi-card": (
        "hccl-configuration",
        "ddp-to-mindspore-parallel",
        "distributed-communication-bottleneck",
        "auto-parallel-limits",
    ),
    "export": ("model-conversion-chain",),
    "inference": ("operator-fallback-cpu",),
}


def _role(pid: str, table: dict[str, tuple[str, ...]], default: str) -> str:
    return next((k for k, ids in table.items() if pid in ids), default)


@dataclass
class Risk:
    id: str
    title: str
    likelihood: float
    why: str
    hours: tuple[float, float]
    owner: str
    milestone: str
    mitigation: str
    source: str = ""
    kb_id: str | None = None
    scan: str = ""

    @property
    def expected(self) -> float:
        return (self.hours[0] + self.hours[1]) / 2

    @property
    def exposure(self) -> float:
        return self.likelihood * self.expected


@dataclass
class Register:
    workflow: str
    risks: list[Risk] = field(default_factory=list)
    also_known: list[Risk] = field(default_factory=list)


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


def project(report: Report, workflow: Optional[str] = None) -> Project:
    """The project as the register judges it. The memory fit is the recommended (or given) workflow's
    projection's: `Projection.memory` (issue 28: the register read a `memory_fit` field that does not
    exist, so a model that must be split was judged 'size unknown')."""
    req = report.requirements
    model, hw, needs = req.model, req.hardware, req.needs
    wf = workflow or report.recommendation.workflow
    fit = next((p.memory for p in report.projections if p.workflow == wf and p.memory is not None), None)
    if fit is None:
        fit = next((m for m in report.memory), None)
    split = None if fit is None or fit.strategy == "unknown" else fit.must_split
    return Project(
        model.parameters_millions,
        model.family,
        hw.devices,
        needs.distributed_training,
        req.stage,
        hw.training_target,
        model.custom_cuda_ops,
        needs.huggingface,
        split,
        model.source,
    )


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


def _from_pitfall(item: PitfallItem, p: Project, workflow: str = "") -> Risk:
    pid = item.id
    rule = RULES.get(pid)
    conditions = list(item.conditions)
    if rule is not None:
        likelihood, why = rule(p)
    elif conditions:
        likelihood, why = 0.6, "applies because " + ", ".join(conditions)
    else:
        likelihood, why = UNCONDITIONAL, "applies to every project on this workflow"
    if pid in PORTING and workflow == "mindspore" and p.source != "pytorch-code":
        likelihood, why = (
            likelihood * NOT_PORTED,
            (f"model.source is {p.source}: written for MindSpore, no PyTorch code to port (habits still carry over)"),
        )
    eff = item.effort_hours
    hours = (float(eff[0]), float(eff[1])) if eff else (float(item.expected_hours or 0.0),) * 2
    return Risk(
        pid,
        item.title,
        likelihood,
        why,
        hours,
        _role(pid, OWNER, "ML engineer"),
        _role(pid, MILESTONE, "single card"),
        item.fix,
        item.source,
        pid,
    )


def _measured(report: Report, wf: str, risks: dict[str, Risk]) -> None:
    """The accuracy, transformer and input-pipeline probes set the likelihood of the pitfalls they measure."""
    acc = report.accuracy
    verdict = acc.verdict
    r = risks.get("precision-alignment")
    if r is not None and verdict in ("same", "differs"):
        gap = next((g for g in acc.gaps if g.verdict == verdict), None)
        r.likelihood = MEASURED_HIT if verdict == "differs" else MEASURED_CLEAR
        r.why = f"measured by the accuracy probe ({acc.data}): {gap.line if gap is not None else ''}"
    t = report.transformer
    adj = t.adjustment(wf)
    r = risks.get(adj.pitfall) if adj is not None else None
    if r is not None and adj.likelihood is not None:
        r.likelihood = adj.likelihood
        r.why = f"measured by the transformer probe ({t.model}, on {t.host}): {adj.line}"
    proj = next((p for p in report.projections if p.workflow == wf), None)
    feed = proj.input_pipeline if proj is not None else None
    r = risks.get("data-pipeline-bottleneck")
    if r is not None and feed is not None and feed.applied:  # one short pass never moves it
        r.likelihood = MEASURED_HIT if feed.capped else MEASURED_CLEAR
        r.why = f"measured by the pipeline probe: {feed.detail}"


def register(report: Report, workflow: Optional[str] = None) -> Register:
    """The register of the recommended workflow (or of `workflow`), from a built Report (a saved JSON
    document is validated into one by whoever read it: the risks never import the report, no circle)."""
    wf = workflow or report.recommendation.workflow
    p = project(report, wf)
    risks = {r.id: r for r in (_from_pitfall(item, p, wf) for item in report.pitfalls)}
    scan = report.scan
    for h in scan.hazard_summary if scan is not None else []:
        count, kind, eff = h.count or 1, h.kind, h.effort_hours
        found = f"`advisor scan` found {count} place(s) ({kind}) in {scan.path or 'the code'}"
        pid = h.pitfall
        if pid and pid in risks:
            r = risks[pid]
            r.likelihood, r.why, r.scan = SCAN_HIT, found, found
            r.hours = (max(r.hours[0], eff[0]), max(r.hours[1], eff[1]))
        else:
            rid = pid or f"scan-{kind}"
            risks[rid] = Risk(
                rid,
                h.title or kind,
                SCAN_HIT,
                found,
                eff,
                "ML engineer",
                "single card",
                h.fix or "see `advisor scan` for each place",
                kb_id=pid or None,
                scan=found,
            )
    _measured(report, wf, risks)
    ranked = sorted(risks.values(), key=lambda r: (-r.exposure, r.id))
    reg = Register(wf)
    for r in ranked:
        (reg.risks if r.exposure >= REGISTER_MIN_HOURS and len(reg.risks) < REGISTER_MAX else reg.also_known).append(r)
    return reg
