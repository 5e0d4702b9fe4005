"""How likely a knowledge-base pitfall is to bite this project on one workflow: the judgement the
decision model (expected migration hours) and the review's risk register both read.

Likelihoods are judgements (`assumption`), each stated with why, from the project's model size and
scale, stage, code features and deployment target: the rules are data on the pitfalls (pitfalls.yaml
`likelihood`, with their source), the general levels named constants.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Callable, Optional

from advisor.decision.constants import CONSTANTS
from advisor.decision.findings import said
from advisor.decision.memory import MemoryFit
from advisor.requirements import Requirements
from knowledge.conditions import holds
from knowledge.models import Pitfall
from knowledge.models.stacks import LikelihoodRule

# The likelihoods that are not a pitfall's own rule (pitfalls.yaml `likelihood`), each a named constant
# (advisor.decision.constants) with its source and the range the sensitivity search moves.
UNCONDITIONAL = CONSTANTS["LIKELIHOOD_UNCONDITIONAL"].value  # applies to every project on the workflow
CONDITIONAL = CONSTANTS["LIKELIHOOD_CONDITIONAL"].value  # its conditions hold, no rule of its own
SCAN_HIT = CONSTANTS["LIKELIHOOD_SCAN_HIT"].value  # the migration scan found the hazard in the project's code
MEASURED_HIT = CONSTANTS["LIKELIHOOD_MEASURED_HIT"].value  # a probe measured the pitfall's symptom
MEASURED_CLEAR = CONSTANTS["LIKELIHOOD_MEASURED_CLEAR"].value  # a probe measured it absent
NOT_PORTED = CONSTANTS["LIKELIHOOD_NOT_PORTED"].value  # a porting hazard where nothing is ported
# Parameters (millions) above which a model is "large" when the decision model's memory fit is absent:
# the field report 'Ascend 910 and MindSpore in practice' §7.1: one card cannot hold a model of "a dozen
# hundred million" parameters (assumption: 1000 M).
LARGE_MODEL_M = 1000.0
SMALL_MODEL_M = 100.0  # a "small model on a fast chip" (same report, §5.3), assumption
SERVER_DEVICES = 8  # accelerators in one training server (Atlas 800T A2, DGX/HGX)


@dataclass(frozen=True)
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


def _size_class(p: Project) -> str:
    if p.must_split is False:
        return "small" if p.params_m is not None and p.params_m < SMALL_MODEL_M else "medium"
    if p.params_m is None:
        return "unknown"
    if p.params_m < SMALL_MODEL_M:
        return "small"
    return "medium" if p.params_m < LARGE_MODEL_M else "large"


def _devices_band(devices: int) -> str:
    # one card; a few; one 8-card server (SERVER_DEVICES); several servers (from 16)
    if devices <= 1:
        return "one"
    if devices < SERVER_DEVICES:
        return "few"
    return "server" if devices < 2 * SERVER_DEVICES else "servers"


def facts(p: Project) -> dict:
    """The project as the pitfalls' likelihood rules read it (their `when` conditions)."""
    return {
        "size_class": _size_class(p),
        "devices_band": _devices_band(p.devices),
        "must_split": p.must_split,
        "target": p.target,
        "stage": p.stage,
        "family": p.family,
        "custom_ops": p.custom_ops,
        "huggingface": p.huggingface,
        "source": p.source,
        "distributed": p.distributed,
    }


def judge(
    rules: Sequence[LikelihoodRule],
    conditions: Sequence[str],
    porting: bool,
    p: Project,
    workflow: str,
    observed: Sequence[tuple[str, str]] = (),
) -> tuple[float, str]:
    """(likelihood, why) that a pitfall bites this project on this workflow: its first rule whose
    conditions hold over the project's facts; without one, LIKELIHOOD_CONDITIONAL for a pitfall with
    conditions, else LIKELIHOOD_UNCONDITIONAL. A porting hazard where nothing is ported is scaled by
    NOT_PORTED. `observed` is the project's values its conditions rested on (path, value), which the
    reason names rather than the conditions' own alternatives."""
    f = facts(p)
    rule = next((r for r in rules if all(holds(c, f) for c in r.when)), None)
    if rule is not None:
        value, why = rule.value, rule.why.format(size=_size(p), devices=p.devices, family=p.family)
    elif conditions:
        held = tuple(f"{path}={value}" for path, value in observed) or tuple(conditions)
        value, why = CONDITIONAL, said("likelihood.why.conditions", held=held)
    else:
        value, why = UNCONDITIONAL, said("likelihood.why.always")
    if porting and workflow == "mindspore" and p.source != "pytorch-code":
        value *= NOT_PORTED
        why = said("likelihood.why.not_ported", source=p.source)
    return value, why


def likelihood(pitfall: Pitfall, p: Project, workflow: str) -> float:
    """The register's likelihood that a knowledge-base pitfall bites this project on this workflow."""
    key = (id(pitfall), p, workflow)
    held = _JUDGED.get(key)
    if held is None or held[0] is not pitfall:
        if len(_JUDGED) >= _JUDGED_MAX:
            _JUDGED.clear()
        held = _JUDGED[key] = (
            pitfall,
            judge(pitfall.likelihood, pitfall.applies_when, pitfall.porting, p, workflow)[0],
        )
    return held[1]


# The judgements already made: a pure function of the (frozen) pitfall, the project and the workflow,
# asked again for every re-scoring of the sensitivity searches. Keyed by the pitfall's identity, which
# the entry holds, so that the key cannot pass to another pitfall.
_JUDGED: dict[tuple[int, Project, str], tuple[Pitfall, float]] = {}
_JUDGED_MAX = 50_000


def _size(p: Project) -> str:
    """'an 11.7M-parameter cnn' (with its article: the register reads as prose)."""
    return said("likelihood.size", params_m=p.params_m, family=p.family)


class _BundledRules(Mapping):
    """pitfall id -> rule(Project) -> (likelihood, why), read from the bundled knowledge base's pitfalls
    (the data's one home is pitfalls.yaml); for readers that hold a pitfall id, not the pitfall."""

    def _pitfalls(self) -> dict[str, Pitfall]:
        import knowledge

        return {x.id: x for x in knowledge.load().pitfalls if x.likelihood}

    def __getitem__(self, pid: str) -> Callable[[Project], tuple[float, str]]:
        pit = self._pitfalls()[pid]
        return lambda p: judge(pit.likelihood, [], False, p, "")

    def __iter__(self) -> Iterator[str]:
        return iter(self._pitfalls())

    def __len__(self) -> int:
        return len(self._pitfalls())


RULES: Mapping[str, Callable[[Project], tuple[float, str]]] = _BundledRules()


def _porting_ids() -> tuple[str, ...]:
    import knowledge

    return tuple(x.id for x in knowledge.load().pitfalls if x.porting)


class _Porting(Sequence):
    """The ids of the pitfalls marked `porting: true` (bundled knowledge base)."""

    def __getitem__(self, i):  # type: ignore[override]
        return _porting_ids()[i]

    def __len__(self) -> int:
        return len(_porting_ids())

    def __contains__(self, pid: object) -> bool:
        return pid in _porting_ids()


PORTING: Sequence[str] = _Porting()
