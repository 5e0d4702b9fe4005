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
from typing import TYPE_CHECKING, Optional

from advisor.decision.likelihood import (
    NOT_PORTED,
    PORTING,
    RULES,
    SCAN_HIT,
    MEASURED_CLEAR,
    MEASURED_HIT,
    UNCONDITIONAL,
    Project,
)

if TYPE_CHECKING:  # the register reads a built report
    from advisor.decision.scorecard import PitfallItem
    from advisor.report import Report

# An exposure below this many expected hours goes under "also known" (assumption: half a working day
# is below what an architect tracks as a risk); at most REGISTER_MAX rows in the register.
REGISTER_MIN_HOURS = 2.0
REGISTER_MAX = 10

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
        # places in excluded files or on an optional path with a fallback raise no risk
        count, kind, eff = h.count - h.excluded - h.optional, h.kind, h.effort_hours
        if count <= 0:
            continue
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
