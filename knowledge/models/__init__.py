"""Pydantic models for every knowledge-base section.

Every number is a `Sourced` value (or `SourcedRange`) that says where it came from and how far to
trust it; entries carry their own `source` and `confidence` too. Input models forbid unknown keys so
a typo in a user's override file is an error, not a silently ignored field.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from knowledge.models.common import (
    Confidence,
    Vendor,
    FrameworkPath,
    FrameworkId,
    WorkflowId,
    Aspect,
    MappingKind,
    DeratingFactor,
    CostKind,
    PriceKind,
    PriceTerm,
    InterconnectScope,
    ScanKind,
    SCAN_KINDS,
    NonEmpty,
    _Model,
    Sourced,
    SourcedRange,
    _Entry,
)
from knowledge.models.hardware import Accelerator, Interconnect
from knowledge.models.mappings import ApiMapping
from knowledge.models.stacks import (
    CostAssumption,
    EcosystemEntry,
    Framework,
    FrameworkVersion,
    Pitfall,
    PriceObservation,
    Route,
    RouteSupports,
    Workflow,
)
from knowledge.models.workloads import (
    CurvePoint,
    Derating,
    MfuReference,
    Record,
    Reference,
    ScalingCurve,
    ServingReference,
)

__all__ = [
    "Accelerator",
    "ApiMapping",
    "Aspect",
    "Confidence",
    "CostAssumption",
    "CostKind",
    "CurvePoint",
    "Derating",
    "DeratingFactor",
    "EcosystemEntry",
    "Framework",
    "FrameworkId",
    "FrameworkPath",
    "FrameworkVersion",
    "Interconnect",
    "InterconnectScope",
    "KnowledgeBase",
    "MappingKind",
    "MfuReference",
    "NonEmpty",
    "Pitfall",
    "PriceKind",
    "PriceObservation",
    "PriceTerm",
    "Record",
    "Reference",
    "SCAN_KINDS",
    "SECTIONS",
    "ScalingCurve",
    "ScanKind",
    "Route",
    "RouteSupports",
    "ServingReference",
    "Sourced",
    "SourcedRange",
    "Vendor",
    "Workflow",
    "WorkflowId",
    "_Entry",
    "_Model",
]

SECTIONS: dict[str, tuple[str, type[_Entry]]] = {
    "accelerators": ("accelerators", Accelerator),
    "frameworks": ("frameworks", Framework),
    "workflows": ("workflows", Workflow),
    "ecosystem": ("ecosystem", EcosystemEntry),
    "pitfalls": ("pitfalls", Pitfall),
    "api-mappings": ("api_mappings", ApiMapping),
    "references": ("references", Reference),
    "derating": ("derating", Derating),
    "costs": ("costs", CostAssumption),
    "prices": ("prices", PriceObservation),
    "interconnects": ("interconnects", Interconnect),
    "scaling-curves": ("scaling_curves", ScalingCurve),
    "mfu-references": ("mfu_references", MfuReference),
    "records": ("records", Record),
    "serving-references": ("serving_references", ServingReference),
    "routes": ("routes", Route),
}


def _norm(name: str) -> str:
    """Case- and punctuation-insensitive key so 'A100-SXM4-80GB' matches 'a100 sxm4 80gb'."""
    return "".join(ch for ch in name.lower() if ch.isalnum())


def _words(name: str) -> str:
    """Lower-case words separated by single spaces, for whole-word containment checks."""
    return " ".join(re.findall(r"[a-z0-9]+", name.lower()))


class KnowledgeBase(BaseModel):
    """The merged, validated knowledge base. `version` is a hash of the content it was built from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str
    sources: list[str] = Field(default_factory=list, description="files merged, in order")
    accelerators: list[Accelerator] = Field(default_factory=list)
    frameworks: list[Framework] = Field(default_factory=list)
    workflows: list[Workflow] = Field(default_factory=list)
    ecosystem: list[EcosystemEntry] = Field(default_factory=list)
    pitfalls: list[Pitfall] = Field(default_factory=list)
    api_mappings: list[ApiMapping] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    derating: list[Derating] = Field(default_factory=list)
    costs: list[CostAssumption] = Field(default_factory=list)
    prices: list[PriceObservation] = Field(default_factory=list)
    interconnects: list[Interconnect] = Field(default_factory=list)
    scaling_curves: list[ScalingCurve] = Field(default_factory=list)
    mfu_references: list[MfuReference] = Field(default_factory=list)
    records: list[Record] = Field(default_factory=list)
    serving_references: list[ServingReference] = Field(default_factory=list)
    routes: list[Route] = Field(default_factory=list)
    # find_accelerator's answers by name, for the accelerators list they were found in: the decision model
    # asks the same few names hundreds of times per report (the sensitivity searches re-prepare it).
    _found: list = PrivateAttr(default_factory=lambda: [None, {}])  # [that list, {name: entry}]

    def section(self, name: str) -> list[_Entry]:
        """Entries of a section by its command-line name (e.g. 'api-mappings')."""
        attr, _ = SECTIONS[name]
        return getattr(self, attr)

    def find(self, entry_id: str) -> list[tuple[str, _Entry]]:
        """All (section, entry) pairs with this id (ids are unique per section; 'pytorch' is both
        a framework and a workflow)."""
        return [(s, e) for s in SECTIONS for e in self.section(s) if e.id == entry_id]

    def get(self, entry_id: str, section: Optional[str] = None) -> Optional[_Entry]:
        """Any entry by id, or `section:id`/`section/id`. A bare id that exists in several sections
        returns the first in section order (accelerators, frameworks, workflows, ...)."""
        for sep in (":", "/"):
            if section is None and sep in entry_id and entry_id.split(sep, 1)[0] in SECTIONS:
                section, entry_id = entry_id.split(sep, 1)
        for sec, entry in self.find(entry_id):
            if section is None or sec == section:
                return entry
        return None

    def find_accelerator(self, name: str) -> Optional[Accelerator]:
        """Map a user-written or smi-printed device name to its entry (case-insensitive).

        Order: the exact id; a name exactly as nvidia-smi / npu-smi print it (case and spacing aside);
        names and aliases ignoring punctuation; smi names ignoring punctuation; else the longest name,
        alias or smi name contained word by word (e.g. 'NVIDIA A100-SXM4-80GB MIG 1g.10gb'). Names and
        aliases come before punctuation-free smi names so a user's 'Ascend 910' is the 910, while
        npu-smi's 'Ascend910' (printed on Atlas A3 hosts) is the 910C."""
        memo = self._found
        if memo[0] is not self.accelerators:  # another list (a copy with new entries): start over
            memo[:] = [self.accelerators, {}]
        found = memo[1]
        if name not in found:
            found[name] = self._match_accelerator(name)
        return found[name]

    def _match_accelerator(self, name: str) -> Optional[Accelerator]:
        key = _norm(name or "")
        if not key:
            return None
        lowered = name.strip().lower()
        for acc in self.accelerators:
            if acc.id == lowered:
                return acc
        spaced = " ".join(lowered.split())
        for acc in self.accelerators:
            if spaced in {" ".join(n.lower().split()) for n in acc.smi_names}:
                return acc
        for fields in (lambda a: [a.name, *a.aliases, a.id], lambda a: a.smi_names):
            for acc in self.accelerators:
                if key in {_norm(n) for n in fields(acc)}:
                    return acc
        words = f" {_words(name)} "
        best: tuple[int, Optional[Accelerator]] = (0, None)
        for acc in self.accelerators:
            for n in [acc.name, *acc.aliases, *acc.smi_names]:
                w = _words(n)
                # whole words only: 'Ascend910' must not match inside 'Ascend910B3'
                if len(w) >= 4 and f" {w} " in words and len(w) > best[0]:
                    best = (len(w), acc)
        return best[1]

    def prices_for(self, accelerator: str, kind: Optional[str] = None) -> list[PriceObservation]:
        """Every price observation of an accelerator (newest first), optionally of one kind."""
        found = [p for p in self.prices if p.accelerator == accelerator and (kind is None or p.kind == kind)]
        return sorted(found, key=lambda p: (p.observed, p.id), reverse=True)

    def price_for(self, accelerator: str, kind: str = "hour") -> Optional[Any]:
        """The price the advisor uses for an accelerator, chosen by knowledge.pricing.POLICY (a
        `PriceChoice` with value, range, date and the observations behind it), or None."""
        from knowledge.pricing import choose

        return choose(self.prices_for(accelerator, kind))

    def interconnects_for(self, accelerator: str) -> list[Interconnect]:
        """The interconnect entries an accelerator's `links` name, in that order."""
        acc = self.get(accelerator, "accelerators")
        by_id = {i.id: i for i in self.interconnects}
        return [by_id[i] for i in getattr(acc, "links", []) if i in by_id]

    def pitfalls_for(self, workflow: str, requirements: Any = None) -> list[Pitfall]:
        """Pitfalls of a workflow; with requirements, only those whose conditions hold."""
        return [
            p for p in self.pitfalls if workflow in p.workflows and (requirements is None or p.applies(requirements))
        ]

    def api_mapping(self, pytorch_name: str) -> Optional[ApiMapping]:
        """The mapping for a fully qualified torch name."""
        for m in self.api_mappings:
            if m.pytorch == pytorch_name:
                return m
        return None

    def costs_for(self, kind: str, accelerator: Optional[str] = None) -> list[CostAssumption]:
        return [c for c in self.costs if c.kind == kind and (accelerator is None or c.accelerator == accelerator)]
