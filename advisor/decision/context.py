"""What the scores are made from that no constant moves: the requirements as knowledge-base
conditions, the routes, the projections, the applicable pitfalls and the judged probe evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from advisor.decision.accuracy import AccuracyEvidence
from advisor.decision.constants import DEFAULT, Consts
from advisor.decision.deployment import DeployPath
from advisor.decision.transformer_evidence import TransformerEvidence
from advisor.decision.projections import Projection
from advisor.decision.workflows import Route
from advisor.requirements import Requirements
from advisor.scan.models import ScanResult
from knowledge.models import KnowledgeBase
from probes.training.models import PairedComparison, ProbeSuite

LEVEL_RANK = {"none": 0, "preferred": 1, "required": 2}


def conditions(req: Requirements) -> dict:
    """The dict knowledge-base conditions are evaluated over: the old `domestic_substitution` reads as
    the stricter of the two mandates, `custom_cuda_ops` as any custom kernel counted."""
    d = req.as_conditions()
    n = req.needs
    d["needs"]["domestic_substitution"] = max((n.hardware_mandate, n.framework_mandate), key=LEVEL_RANK.__getitem__)
    d["model"]["custom_cuda_ops"] = req.model.kernel_count > 0
    return d


def placed_conditions(req: Requirements, kb: Optional[KnowledgeBase], route: Route) -> dict:
    """The conditions as the workflow placed at `route` sees them: its hardware kind as the training
    target, its accelerator and devices (a PyTorch workflow placed on Ascend meets the Ascend pitfalls)."""
    from advisor.decision.workflows import fleet_view

    return conditions(fleet_view(req, kb, route))


@dataclass(frozen=True)
class Inputs:
    """What one report scores besides the knowledge base: the requirements and each measurement, read
    once (a saved suite's or scan's JSON validated, the accuracy and input-pipeline results judged)."""

    req: Requirements
    host: Any = None
    """the host check (CheckReport, HostInfo or its JSON), for the notes on what this host could measure"""
    suites: tuple[ProbeSuite, ...] = ()
    scan: Optional[ScanResult] = None
    scaling: Any = None
    """the scaling probe's result (ScalingResult or its JSON)"""
    scaling_here: bool = False
    deploy: Any = None
    """the deployment probe's result (DeployResult or its JSON)"""
    accuracy: Optional[AccuracyEvidence] = None
    feeds: dict = field(default_factory=dict)
    """framework -> its fastest measured input-pipeline variant (advisor.decision.pipeline.PipelineBest)"""
    transformer: Optional[TransformerEvidence] = None


@dataclass
class Context:
    """Everything the scores are made from that does not depend on the constants."""

    req: Requirements
    kb: Optional[KnowledgeBase]
    scan: Optional[ScanResult]
    req_dict: dict
    routes: dict[str, Route]
    best: dict[str, Projection]
    compared: dict[str, Projection]
    basis: str
    weights: list
    wmap: dict[str, float]
    pitfalls: dict[str, list] = field(default_factory=dict)
    comparisons: list[PairedComparison] = field(default_factory=list)
    fixed: dict[str, dict] = field(default_factory=dict)
    """criteria that no constant moves (ecosystem, debugging), worked out once"""
    deploy: list[DeployPath] = field(default_factory=list)
    """the deployment probe's scored paths (advisor.decision.deployment), measured on the probe's host"""
    accuracy: Optional[AccuracyEvidence] = None
    """the accuracy probe's judged gaps (advisor.decision.accuracy): measured evidence for migration risk"""
    transformer: Optional[TransformerEvidence] = None
    """the GPT probe judged (advisor.decision.transformer_evidence): the measured dynamic-shape cost"""
    inputs: Optional[Inputs] = None
    """what it was prepared from, so that a moved constant or knowledge-base figure re-runs only its stage"""
    k: Consts = DEFAULT
    """the constants it was prepared with"""
    reads: dict[str, frozenset[str]] = field(default_factory=dict)
    """stage of the preparation -> the constants it read (advisor.decision.prepare.STAGES)"""
    memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    """what the evaluation works out from the requirements, the scan and the placement (routes,
    projections, pitfalls) alone, whatever the constants: a context made with dataclasses.replace starts
    with none; advisor.decision.prepare.reprepared carries it over when the placement stays"""

    def once(self, key: tuple, work: Callable[[], Any]) -> Any:
        """`work()` worked out once for this context (it may read the requirements, the scan and the
        placement, never a constant, the knowledge base's ratings or the probe evidence)."""
        if key not in self.memo:
            self.memo[key] = work()
        return self.memo[key]
