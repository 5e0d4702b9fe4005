"""Helpers the criteria share: skill levels, clamping, range text, knowledge-base aspect ratings, and
the hybrid's share of work done in PyTorch."""

from __future__ import annotations

from typing import Optional

from advisor.decision.constants import Consts
from advisor.decision.evidence import Evidence, kb_evidence
from advisor.decision.findings import said
from advisor.requirements import SKILL_LEVELS
from knowledge.models import EcosystemEntry, KnowledgeBase

# Evidence and note a criterion gives with its score.
Scored = tuple[float, list[Evidence], str]

# Hybrid = prototype in PyTorch, then train and serve with MindSpore (seed 000, "两个都要用的场景").
# Share of the work done in the PyTorch stack, per project stage, where a criterion mixes both stacks:
# a research project lives mostly in the prototype, a production one mostly in MindSpore (assumption).
HYBRID_PYTORCH_SHARE = {
    "research": {"ecosystem": 0.7, "debugging": 0.8, "team": 0.6},
    "prototype": {"ecosystem": 0.6, "debugging": 0.7, "team": 0.5},
    "production": {"ecosystem": 0.3, "debugging": 0.35, "team": 0.3},
}


def skill(level: str) -> int:
    return SKILL_LEVELS.index(level)


def clamp(x: float) -> float:
    return max(0.0, min(100.0, x))


def _ecosystem_entries(kb: Optional[KnowledgeBase], framework: str, aspect: str) -> list[EcosystemEntry]:
    if kb is None:
        return []
    return _by_aspect(kb.ecosystem).get((framework, aspect), [])


def _by_aspect(entries: list[EcosystemEntry]) -> dict[tuple[str, str], list[EcosystemEntry]]:
    """(framework, aspect) -> its ratings sorted by id, indexed once per ratings list (a knowledge base
    with a rating moved has a new list; the entry holds the list, so its id cannot pass to another)."""
    held = _INDEX.get(id(entries))
    if held is None or held[0] is not entries:
        index: dict[tuple[str, str], list[EcosystemEntry]] = {}
        for e in sorted(entries, key=lambda e: e.id):
            index.setdefault((str(e.framework), str(e.aspect)), []).append(e)
        if len(_INDEX) >= 256:
            _INDEX.clear()
        held = _INDEX[id(entries)] = (entries, index)
    return held[1]


_INDEX: dict[int, tuple[list, dict]] = {}


def aspect_score(kb: Optional[KnowledgeBase], framework: str, aspect: str) -> tuple[Optional[float], list[Evidence]]:
    entries = _ecosystem_entries(kb, framework, aspect)
    if not entries:
        return None, []
    value = sum(e.score for e in entries) / len(entries) * 20
    return value, [
        kb_evidence(
            e,
            said("crit_common.aspect", framework=framework, aspect=aspect, score=e.score, statement=e.statement),
            e.score,
            figure="rating",
        )
        for e in entries
    ]


def hybrid_share(stage: str, criterion: str, k: Consts) -> float:
    """The hybrid's share of `criterion`'s work done in PyTorch: the table above x HYBRID_SHARE_SCALE."""
    return min(1.0, HYBRID_PYTORCH_SHARE[stage][criterion] * k["HYBRID_SHARE_SCALE"])
