"""The scorecard: what `score()` returns (criteria per workflow, weights, verdict, its confidence and
sensitivity, pitfalls), as pydantic models the report embeds and the JSON schema describes."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.evidence import Evidence
from advisor.decision.memory import MemoryFit
from advisor.decision.projections import Projection
from advisor.decision.schedule import Schedule
from advisor.decision.tco import TotalCost


class Criterion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    weight: float = Field(description="normalised weight (all criteria sum to 1)")
    score: float = Field(ge=0, le=100)
    evidence: list[Evidence] = Field(default_factory=list)
    note: str = ""


class StackPin(BaseModel):
    model_config = ConfigDict(extra="forbid")

    package: str
    version: str
    confirmed: bool = Field(True, description="False: no vendor table states this pairing (see note)")
    note: Optional[str] = None


class StackUsed(BaseModel):
    """One knowledge-base route a workflow runs, with its pinned stack."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="routes.yaml id")
    name: str
    stage: Literal["training", "serving"]
    framework: str
    target: Optional[str] = Field(None, description="serving: the deployment target it serves here")
    path: Optional[str] = Field(None, description="serving: native | vendor-converter | export")
    pins: list[StackPin] = Field(default_factory=list)
    source: str
    confidence: str


class RouteChoice(BaseModel):
    """The stack a workflow is scored on: where it trains and what it runs for training and serving."""

    model_config = ConfigDict(extra="forbid")

    training: str = Field(description="the training route's name ('nothing is trained' for a serving-only product)")
    serving: str = Field(description="the serving route per deployment target, 'name (target)' joined by '; '")
    target: str = Field(description="hardware kind it trains (or serves) on: nvidia | ascend | cpu")
    accelerator: Optional[str] = Field(None, description="knowledge-base accelerator id")
    devices: Optional[int] = None
    placement: Optional[str] = Field(None, description="how the place was chosen among several (fleets, kinds)")
    stacks: list[StackUsed] = Field(default_factory=list, description="the training route, then each serving route")


class WorkflowScore(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workflow: Literal["pytorch", "mindspore", "hybrid"]
    total: float = Field(ge=0, le=100, description="0 when the workflow does not apply (applicable false: not a score)")
    eligible: bool
    applicable: bool = Field(True, description="False: the workflow does not apply to this project (not a score)")
    not_applicable: Optional[str] = Field(None, description="why it does not apply")
    route: Optional[RouteChoice] = Field(None, description="the stack it is scored on")
    blocked_by: list[str] = Field(default_factory=list, description="hard constraints it violates")
    criteria: list[Criterion]
    pitfalls: list[str] = Field(default_factory=list, description="ids of knowledge-base pitfalls that apply")
    migration_hours: Optional[list[float]] = Field(None, description="[low, high] hours of migration/adaptation work")


class Weight(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    weight: float
    raw: float
    origin: Literal["default", "user"]
    because: list[str] = Field(default_factory=list, description="requirements that raised it")


class EvidenceQuality(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: float = Field(description="1 (assumption) to 5 (measured), weighted by how much each criterion decides")
    label: Literal["good", "fair", "weak", "none"]
    counts: dict[str, int] = Field(
        default_factory=dict, description="evidence items in the deciding criteria, by quality class"
    )
    note: str = ""


class NearestFlip(BaseModel):
    model_config = ConfigDict(extra="forbid")

    what: str = Field(description="'weight:<criterion>' or 'constant:<NAME>'")
    value: float
    threshold: float
    relative_change: float = Field(
        description="|threshold - value| / |value| (or / the searched range when value is 0)"
    )
    new_top: str
    note: str


class Confidence(BaseModel):
    """The three parts a verdict's confidence is made of, each shown."""

    model_config = ConfigDict(extra="forbid")

    level: Literal["high", "medium", "low"]
    decided_by: Literal["scores", "hard-constraint", "nothing-eligible"]
    decided_note: str
    margin: float
    tie: bool = Field(description="the margin is below TIE_MARGIN: reported as a tie, not a win")
    margin_level: Literal["high", "medium", "low"]
    evidence: EvidenceQuality
    nearest_flip: Optional[NearestFlip] = None
    steps: list[str] = Field(default_factory=list, description="why the level is below the margin's")


class Recommendation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workflow: Literal["pytorch", "mindspore", "hybrid"]
    confidence: Literal["high", "medium", "low"]
    margin: float = Field(description="points ahead of the runner-up (eligible workflows)")
    runner_up: Optional[str] = None
    inside_noise: bool = Field(False, description="measured differences that decide it lie inside the probes' noise")
    summary: str
    reasons: list[str]
    confidence_parts: Optional[Confidence] = None


class SensitivityItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    criterion: str
    weight: float
    threshold: Optional[float] = Field(None, description="weight at which the top workflow changes (others rescaled)")
    new_top: Optional[str] = None
    note: str


class ConstantSensitivity(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    value: float
    unit: str
    source: str
    threshold: Optional[float] = Field(None, description="nearest value at which the top workflow changes")
    new_top: Optional[str] = None
    note: str


class PitfallItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    title: str
    workflows: list[str]
    symptom: str
    cause: str
    fix: str
    expected_hours: Optional[float] = Field(None, description="used for ordering: mid of effort_hours, else hours")
    effort_hours: Optional[list[float]] = None
    hours_in_field_report: Optional[float] = None
    conditions: list[str] = Field(default_factory=list)
    source: str
    confidence: str
    owner: Optional[str] = Field(None, description="who retires it (the knowledge base's pitfall owner)")
    milestone: Optional[str] = Field(None, description="the rehearsal stage that retires it")
    likelihood: Optional[float] = Field(None, description="how likely it bites this project (before measurements)")
    likelihood_why: Optional[str] = None


class MandateReading(BaseModel):
    """The verdict under one reading of `needs.domestic_substitution`: hardware and framework (the
    default), or hardware only (torch_npu on Ascend meets it)."""

    model_config = ConfigDict(extra="forbid")

    reading: Literal["hardware-and-framework", "hardware-only"]
    hardware: str = Field(description="the hardware mandate under this reading")
    framework: str = Field(description="the framework mandate under this reading")
    workflow: str = Field(description="the recommended workflow under this reading")
    total: float
    eligible: bool
    margin: float
    used: bool = Field(description="the reading the verdict above uses")


class Scorecard(BaseModel):
    model_config = ConfigDict(extra="forbid")

    weights: list[Weight]
    scores: list[WorkflowScore]
    recommendation: Recommendation
    sensitivity: list[SensitivityItem]
    projections: list[Projection]
    comparison_basis: str = Field(description="basis shared by all workflows' performance/cost comparison")
    pitfalls: list[PitfallItem]
    assumptions: list[str]
    constant_sensitivity: list[ConstantSensitivity] = Field(default_factory=list)
    costs: list[TotalCost] = Field(default_factory=list, description="total cost of ownership per workflow")
    schedules: list[Schedule] = Field(
        default_factory=list, description="migration schedule per workflow against the deadline"
    )
    memory: list[MemoryFit] = Field(
        default_factory=list, description="memory fit per workflow's training target (absent on CPU)"
    )
    hardware_basis: Optional[str] = Field(
        None, description="what hardware each workflow is compared on (undecided target)"
    )
    mandate_readings: list[MandateReading] = Field(
        default_factory=list,
        description="the verdict under each reading of needs.domestic_substitution (hardware only; hardware and "
        "framework), when the file states it without domestic_hardware / domestic_framework",
    )
    mandate_flip: Optional[str] = Field(
        None, description="set when the verdict depends on how the mandate is read: what the other reading gives"
    )
