"""The scan's result models: what `advisor scan --json` prints and what the report helper reads."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from knowledge.models import SCAN_KINDS, ScanKind

SCHEMA_VERSION = "1"

# The hazard kinds are the knowledge base's: each must be explained by a pitfall there.
HazardKind = ScanKind
HAZARD_KINDS: tuple[str, ...] = SCAN_KINDS

Risk = Literal["low", "medium", "high"]
Route = Literal["manual rewrite", "ONNX -> MindIR conversion", "adapter layer"]
Hours = tuple[float, float]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Location(_Out):
    file: str = Field(description="Path relative to the scanned folder, with forward slashes.")
    line: int
    cell: Optional[int] = Field(None, description="Notebook code cell (from 1); line is then the line in that cell.")


class ApiUse(_Out):
    """A PyTorch API the knowledge base maps to MindSpore."""

    name: str = Field(description="Fully qualified, e.g. torch.nn.Conv2d.")
    count: int
    mapping: Literal["same", "differs", "none"]
    mindspore: Optional[str] = None
    note: str = ""
    fix: Optional[str] = None
    kb_id: str = Field(description="Knowledge-base api_mappings id that classified it.")
    matched: str = Field(description="The KB name it matched (the name itself, or a parent like torch.distributed).")
    pitfall: Optional[str] = None
    locations: list[Location] = Field(default_factory=list, description="First few uses.")
    effort_hours: Hours
    effort_basis: str


class UnmappedApi(_Out):
    """A PyTorch API the knowledge base does not know: look it up in the official mapping table."""

    name: str
    count: int
    locations: list[Location] = Field(default_factory=list)
    effort_hours: Hours
    effort_basis: str


class Hazard(_Out):
    kind: HazardKind
    file: str
    line: int
    cell: Optional[int] = Field(None, description="Notebook cell (from 1); line is then the line in that cell.")
    message: str
    fix: str
    pitfall: Optional[str] = Field(None, description="KB pitfall id whose scan_kinds names this kind.")
    in_forward: bool = False


class HazardSummary(_Out):
    """One line per hazard kind found: how often, where, and what fixing it costs."""

    kind: HazardKind
    count: int
    files: int
    risk: Risk
    pitfall: Optional[str] = None
    also: list[str] = Field(
        default_factory=list,
        description="Other KB pitfalls for this kind that may add work in some settings (e.g. on Ascend); not in the estimate.",
    )
    title: str = ""
    fix: str
    effort_hours: Hours
    effort_basis: str


class Skipped(_Out):
    file: str
    reason: str


class ScanResult(_Out):
    """Migration scan of a PyTorch code base: APIs, hazards, effort, risk and route."""

    schema_version: str = SCHEMA_VERSION
    path: str = Field(description="The folder or file scanned, as given.")
    kb_version: str = ""
    python_files: int = 0
    extension_sources: int = 0
    lines: int = 0
    apis: list[ApiUse] = Field(default_factory=list)
    unmapped: list[UnmappedApi] = Field(default_factory=list)
    hazards: list[Hazard] = Field(default_factory=list)
    hazard_summary: list[HazardSummary] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)
    effort_hours: Hours = Field((0.0, 0.0), description="[low, high]: sum of lows; low + root-sum-square of the item ranges")
    effort_worst_case_hours: float = Field(0.0, description="Every item at its high end (the plain sum of highs).")
    effort_basis: str = ""
    risk: Risk = "low"
    risk_reasons: list[str] = Field(default_factory=list)
    route: Route = "manual rewrite"
    route_why: str = ""
    route_alternatives: list[str] = Field(default_factory=list)
