"""The scan's result models: what `advisor scan --json` prints and what the report helper reads."""

from __future__ import annotations

from typing import Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

from knowledge.models import SCAN_KINDS, ScanKind

# 3: unknown_libraries and ports filled, HazardSummary.optional, kinds missing_option and quantized_training
SCHEMA_VERSION = "3"

# Hazard kinds: the knowledge base's (each explained by a pitfall there), then the scan's own, each
# explained by the data in advisor/scan/patterns.py (fix, effort, before/after, where it was verified).
ScanOnlyKind = Literal["graph_side_effect", "dynamic_shape", "no_equivalent", "missing_option", "quantized_training"]
SCAN_ONLY_KINDS: tuple[str, ...] = ScanOnlyKind.__args__  # type: ignore[attr-defined]
HazardKind = Union[ScanKind, ScanOnlyKind]
HAZARD_KINDS: tuple[str, ...] = SCAN_KINDS + SCAN_ONLY_KINDS

Risk = Literal["low", "medium", "high"]
Route = Literal[
    "manual rewrite",
    "ONNX -> MindIR conversion",
    "adapter layer",
    "stay on PyTorch via torch_npu",
    "nothing to migrate",
]
# Where a file sits in the project: what it costs and whether it counts (tests, examples and tools
# are shown apart and left out of the total by default).
Role = Literal["model", "training", "data", "deployment", "tests", "examples", "tools", "other", "mindspore"]
# MindSpore Dev Toolkit's three bins for the APIs a scan finds.
ToolkitClass = Literal["convertible", "probably_tensor", "no_mapping"]
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
    excluded_uses: int = Field(0, description="Uses in excluded files (tests, examples, tools, --exclude): not costed.")
    toolkit: ToolkitClass = Field("convertible", description="MindSpore Dev Toolkit's bin for it.")
    adapter: bool = Field(True, description="Usable through the MSAdapter/MindTorch adapter (KB adapter field).")
    live_check: str = Field("", description="A failing live check of the mapped MindSpore API (advisor kb verify).")


class UnmappedApi(_Out):
    """A PyTorch API the knowledge base does not know: look it up in the official mapping table."""

    name: str
    count: int
    locations: list[Location] = Field(default_factory=list)
    effort_hours: Hours
    effort_basis: str
    excluded_uses: int = 0
    toolkit: ToolkitClass = "no_mapping"


class Hazard(_Out):
    kind: HazardKind
    file: str
    line: int
    cell: Optional[int] = Field(None, description="Notebook cell (from 1); line is then the line in that cell.")
    message: str
    fix: str
    pitfall: Optional[str] = Field(None, description="KB pitfall id whose scan_kinds names this kind.")
    in_forward: bool = False
    api: Optional[str] = Field(None, description="The API whose use is the hazard, when one is.")
    role: Role = "other"
    excluded: bool = Field(False, description="In an excluded file: shown, not costed, not in risk or route.")
    optional: bool = Field(
        False,
        description="On an optional path with a fallback (a lazy import, an availability guard, a try/except "
        "import, an opt-in extension): priced apart, not in the risk or the route.",
    )
    live_check: str = Field(
        "", description="A failing live check of the MindSpore fix this place needs (advisor kb verify)."
    )


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
    excluded: int = Field(0, description="Places in excluded files (not costed).")
    optional: int = Field(0, description="Places on an optional path with a fallback (priced apart, not costed).")
    example: Optional[FixExample] = None


class FixExample(_Out):
    """The MindSpore-side fix as a pattern: what the PyTorch code looks like, what it becomes."""

    before: str
    after: str
    source: str = ""


class Dependency(_Out):
    """A third-party PyTorch-side library the code imports, and its MindSpore-side counterpart."""

    name: str = Field(description="Import root, e.g. timm.")
    files: int
    uses: int = Field(description="Import statements.")
    first: Location
    mindspore: Optional[str] = Field(None, description="The MindSpore-side equivalent, or None where there is none.")
    mapping: Literal["same", "differs", "none", "unknown"]
    note: str = ""
    optional: bool = Field(False, description="Only imported lazily inside functions (not needed to train the model).")
    excluded: bool = Field(False, description="Only imported from excluded files.")
    effort_hours: Hours = (0.0, 0.0)
    effort_basis: str = ""


class UnknownLibrary(_Out):
    """A third-party library the code imports that the scan knows nothing of: not understood, not priced."""

    name: str = Field(description="Import root, e.g. einx.")
    files: int
    uses: int = Field(description="Import statements.")
    first: Location
    optional: bool = Field(False, description="Only imported lazily inside functions.")
    excluded: bool = Field(False, description="Only imported from excluded files.")


class EffortItem(_Out):
    """One line of the estimate: the figures that add up to the total."""

    item: str = Field(
        description="What is costed, e.g. 'port code (model)', 'api torch.nn.Conv2d', 'hazard distributed'."
    )
    kind: Literal["code", "modules", "parity", "api", "hazard", "dependency"]
    count: int = Field(description="Lines, classes, uses or places costed.")
    effort_hours: Hours
    basis: str


class EffortShare(_Out):
    """Hours of one file, package or role: the sum of its lows, plus the root-sum-square of its ranges grouped as the
    total groups them (so none reaches past the total)."""

    name: str
    role: Optional[Role] = None
    files: int = 0
    lines: int = 0
    effort_hours: Hours = (0.0, 0.0)
    excluded: bool = False


class EffortBreakdown(_Out):
    """Where the hours are: per item, role, top-level package and file; excluded files apart."""

    rule: str
    exclude: list[str] = Field(default_factory=list, description="Glob patterns excluded from the total.")
    included_files: int = 0
    excluded_files: int = 0
    excluded_hours: Hours = Field(
        (0.0, 0.0),
        description="What the excluded files and optional paths (lazy hub imports) would add (not in effort_hours).",
    )
    items: list[EffortItem] = Field(default_factory=list)
    by_role: list[EffortShare] = Field(default_factory=list)
    by_package: list[EffortShare] = Field(default_factory=list)
    by_file: list[EffortShare] = Field(default_factory=list)


class Skipped(_Out):
    file: str
    reason: str


class PortOffer(_Out):
    """A maintained MindSpore port of a library the project builds on: adapting it replaces re-implementing."""

    port: str = Field(description="The port's package, e.g. mindone, mindyolo, mindformers, mindcv, mindnlp.")
    upstream: str = Field(description="The PyTorch library it ports, e.g. diffusers, ultralytics, transformers, timm.")
    covered: list[str] = Field(default_factory=list, description="The project's architectures the port has.")
    missing: list[str] = Field(default_factory=list, description="The project's architectures it lacks.")
    files: int = Field(0, description="Project files that use the upstream library.")


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
    effort_hours: Hours = Field(
        (0.0, 0.0), description="[low, high]: sum of lows; low + root-sum-square of the item ranges"
    )
    effort_worst_case_hours: float = Field(0.0, description="Every item at its high end (the plain sum of highs).")
    effort_basis: str = ""
    risk: Risk = "low"
    risk_reasons: list[str] = Field(default_factory=list)
    route: Route = "manual rewrite"
    route_why: str = ""
    route_alternatives: list[str] = Field(default_factory=list)
    # --- schema 2 additions --------------------------------------------------------------------
    framework: Literal["pytorch", "mindspore", "mixed", "none"] = Field(
        "none", description="What the scanned code is written in (by its imports)."
    )
    mindspore_files: int = 0
    nothing_scanned: str = Field("", description="Why nothing could be estimated, when nothing could.")
    effort_breakdown: Optional[EffortBreakdown] = None
    api_classes: dict[str, int] = Field(default_factory=dict, description="Distinct APIs per Dev Toolkit bin.")
    dependencies: list[Dependency] = Field(default_factory=list)
    risk_rule: str = ""
    kb_verified: str = Field(
        "", description="Which live verification of the mapping table the findings carry (advisor kb verify)."
    )
    mindspore_kernels: int = Field(0, description="Native sources written for MindSpore's custom-op interface.")
    not_migration_work: list[str] = Field(
        default_factory=list, description="What was read and is not migration work: MindSpore code, bridges, kernels."
    )
    unknown_libraries: list[UnknownLibrary] = Field(
        default_factory=list,
        description="Third-party libraries the scan has no knowledge of: listed by name, not priced (not understood).",
    )
    ports: list[PortOffer] = Field(
        default_factory=list,
        description="Maintained MindSpore ports of what the project builds on (diffusers -> mindone, ...), with coverage.",
    )


HazardSummary.model_rebuild()
