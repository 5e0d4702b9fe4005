"""Frameworks, workflows, the ecosystem, pitfalls, prices and cost assumptions."""

from __future__ import annotations

import datetime as _dt
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import Discriminator, Field, Tag, field_validator, model_validator

from knowledge.conditions import holds, parse_condition

from knowledge.models.common import (
    Confidence,
    FrameworkId,
    Vendor,
    WorkflowId,
    Aspect,
    CostKind,
    PriceKind,
    PriceTerm,
    ScanKind,
    _Model,
    Sourced,
    SourcedRange,
    _Entry,
)


class PriceObservation(_Entry):
    """One dated price seen at one provider: USD per device-hour (`hour`), per card, or per server of
    `devices` cards. The loader turns the hourly ones into one `accelerator_hour` cost per accelerator
    (knowledge/pricing.py says how)."""

    accelerator: str = Field(min_length=1, description="accelerator id")
    kind: PriceKind
    usd: float = Field(gt=0, description="USD per device-hour, per card, or per server")
    devices: int = Field(1, ge=1, description="cards in the priced server (kind server)")
    provider: str = Field(min_length=1)
    region: Optional[str] = None
    term: PriceTerm
    observed: _dt.date
    note: Optional[str] = None
    source: str = Field(min_length=1)
    confidence: Confidence

    @field_validator("source")
    @classmethod
    def _source_not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("missing source")
        return v


class FrameworkVersion(_Model):
    """One row of a compatibility matrix."""

    version: str = Field(min_length=1)
    python: list[str] = Field(default_factory=list)
    devices: list[str] = Field(default_factory=list, description="device targets: ascend, gpu, cpu, npu")
    numpy: Optional[str] = Field(None, description="version specifier, e.g. '>=1.20,<2'")
    cann: list[str] = Field(default_factory=list)
    torch: Optional[str] = None
    note: Optional[str] = None
    source: str = Field(min_length=1)
    confidence: Confidence
    last_checked: Optional[_dt.date] = None


class Framework(_Entry):
    id: FrameworkId  # type: ignore[assignment]
    name: str = Field(min_length=1)
    summary: Optional[str] = None
    modes: list[str] = Field(default_factory=list)
    features: list[str] = Field(default_factory=list)
    export_formats: list[str] = Field(default_factory=list)
    versions: list[FrameworkVersion] = Field(default_factory=list)
    source: str = Field(min_length=1)
    confidence: Confidence


class Workflow(_Entry):
    id: WorkflowId  # type: ignore[assignment]
    name: str = Field(min_length=1)
    summary: str = Field(min_length=1)
    good_for: list[str] = Field(default_factory=list)
    bad_for: list[str] = Field(default_factory=list)
    source: str = Field(min_length=1)
    confidence: Confidence = "blog"


class EcosystemEntry(_Entry):
    framework: FrameworkId
    aspect: Aspect
    statement: str = Field(min_length=1)
    score: int = Field(ge=0, le=5)
    as_of: _dt.date
    source: str = Field(min_length=1)
    confidence: Confidence


Milestone = Literal["environment", "single card", "multi-card", "export", "inference"]


class LikelihoodRule(_Model):
    """One likelihood rule of a pitfall: when `when` holds for the project (a condition over the
    project's facts: params_m, family, devices, distributed, stage, target, custom_ops, huggingface,
    must_split, source; empty: always), the pitfall bites with `value`, for the reason `why` (which may
    name the facts in braces: {devices}, {size})."""

    when: list[str] = Field(default_factory=list, description="condition strings; ALL must hold")
    value: float = Field(ge=0, le=1)
    why: str = Field(min_length=1)
    source: str = Field("", description="where the judgement comes from (default: the pitfall's likelihood_source)")
    confidence: Confidence = "assumption"

    @field_validator("when")
    @classmethod
    def _conditions_parse(cls, conditions: list[str]) -> list[str]:
        for cond in conditions:
            parse_condition(cond)
        return conditions


class Pitfall(_Entry):
    title: str = Field(min_length=1)
    symptom: str = Field(min_length=1)
    cause: str = Field(min_length=1)
    fix: str = Field(min_length=1)
    workflows: list[WorkflowId] = Field(min_length=1)
    applies_when: list[str] = Field(
        default_factory=list, description="condition strings over the requirements; ALL must hold"
    )
    hours: Optional[Sourced] = Field(None, description="time it cost in the field reports")
    effort_hours: Optional[SourcedRange] = Field(None, description="typical cost to fix")
    scan_kinds: list[ScanKind] = Field(default_factory=list)
    source: str = Field(min_length=1)
    confidence: Confidence
    serving: bool = Field(
        False,
        description="also bites an inference-only product (model conversion, operators, versions at serving); "
        "False: a training pitfall, not charged to a product that trains nothing",
    )
    routes: list[str] = Field(
        default_factory=list,
        description="route ids it belongs to (routes.yaml); empty: every route of its workflows",
    )
    fixes: dict[str, str] = Field(
        default_factory=dict,
        description="the mitigation on a route of this framework (torch_npu, pytorch, mindspore), where it "
        "differs from `fix`: a torch_npu route is never told to export with mindspore.export",
    )
    owner: Optional[str] = Field(None, description="who retires it (platform, data engineer, ...): the risk register")
    milestone: Optional[Milestone] = Field(
        None,
        description="the rehearsal stage that retires it (environment, single card, multi-card, export, inference)",
    )
    likelihood: list[LikelihoodRule] = Field(
        default_factory=list,
        description="how likely it bites a project, first matching rule wins (no rule: the general likelihood)",
    )
    porting: bool = Field(
        False, description="a hazard of porting PyTorch code: unlikely when nothing is ported (NOT_PORTED)"
    )
    likelihood_source: Optional[str] = Field(None, description="where the likelihood rules come from")

    @model_validator(mode="after")
    def _rules_have_a_source(self) -> "Pitfall":
        if any(not r.source for r in self.likelihood):
            if not self.likelihood_source:
                raise ValueError("likelihood rules need a source (likelihood_source, or a source on each rule)")
            rules = [
                r if r.source else r.model_copy(update={"source": self.likelihood_source}) for r in self.likelihood
            ]
            object.__setattr__(self, "likelihood", rules)
        return self

    def fix_for(self, framework: Optional[str]) -> str:
        """The mitigation on a route of `framework` (the general fix when none is recorded for it)."""
        return self.fixes.get(framework or "", self.fix)

    @field_validator("applies_when")
    @classmethod
    def _conditions_parse(cls, conditions: list[str]) -> list[str]:
        for cond in conditions:
            parse_condition(cond)  # raises ValueError naming the bad condition
        return conditions

    def applies(self, requirements: Any) -> bool:
        """True when every `applies_when` condition holds for the requirements (dict or model)."""
        return all(holds(cond, requirements) for cond in self.applies_when)


def _value_or_range(data: Any) -> str:
    """Pick the model by shape, so a bad entry gets one set of errors instead of both union branches'."""
    if isinstance(data, dict):
        return "Sourced" if "value" in data else "SourcedRange"
    return "Sourced" if isinstance(data, Sourced) else "SourcedRange"


class CostAssumption(_Entry):
    """A price or energy factor. For kind `pue`, `usd` holds the dimensionless PUE factor."""

    kind: CostKind
    accelerator: Optional[str] = None
    usd: Annotated[
        Union[Annotated[SourcedRange, Tag("SourcedRange")], Annotated[Sourced, Tag("Sourced")]],
        Discriminator(_value_or_range),
    ] = Field(description="a single value {value, ...} or a range {low, high, ...}")
    unit: Optional[str] = None
    as_of: _dt.date
    note: Optional[str] = None
    source: str = Field(min_length=1)
    confidence: Confidence

    @model_validator(mode="after")
    def _accelerator_for_hourly(self) -> "CostAssumption":
        if self.kind == "accelerator_hour" and not self.accelerator:
            raise ValueError("kind accelerator_hour needs an accelerator id")
        return self


RouteStage = Literal["training", "serving"]
Parallelism = Literal["dp", "tp", "pp", "sp", "cp", "ep"]
OptimizerSharding = Literal["zero", "distributed-optimizer", "optimizer-parallel"]
Quantization = Literal["none", "int8", "w8a8", "w4a16", "fp8", "int4"]
Precision = Literal["fp32", "bf16", "fp16"]
FineTune = Literal["full", "lora", "qlora"]
DeploymentTargetId = Literal["nvidia-server", "ascend-server", "cpu-server", "mobile", "edge-ascend"]
DeployPath = Literal["native", "vendor-converter", "export"]


class RouteSupports(_Model):
    """What a route can do, as its own documentation states it; the decision model's arithmetic reads
    these (which layouts and optimizer sharding its memory search may use, which precisions and
    quantisations its serving capacity may assume), never the route's name."""

    families: list[str] = Field(default_factory=list, description="model families (cnn, transformer, ...)")
    parallelism: list[Parallelism] = Field(default_factory=lambda: ["dp"])
    optimizer_sharding: list[OptimizerSharding] = Field(default_factory=list)
    fine_tune: list[FineTune] = Field(default_factory=lambda: ["full"])
    quantization: list[Quantization] = Field(default_factory=lambda: ["none"])
    precisions: list[Precision] = Field(default_factory=lambda: ["fp32"])
    architectures: list[Literal["decoder", "encoder"]] = Field(
        default_factory=list, description="transformer architectures (empty: both)"
    )
    moe: bool = Field(False, description="mixture-of-experts models (expert parallelism, grouped matmul)")


class Pin(_Model):
    """One package of a route's stack at the version its vendor pairs with the rest."""

    package: str = Field(min_length=1)
    version: str = Field(min_length=1, description="exact version (PEP 440 for Python packages)")
    confirmed: bool = Field(True, description="False: the pairing was not found in a vendor table (said in `note`)")
    note: Optional[str] = None


class Route(_Entry):
    """A stack a team actually runs for one stage (training or serving) on one vendor's hardware: e.g.
    MindSpeed-LLM on torch_npu, MindSpore Transformers, vLLM-Ascend, MindIE, Megatron or FSDP on CUDA."""

    name: str = Field(min_length=1)
    stage: RouteStage
    workflows: list[WorkflowId] = Field(min_length=1, description="the workflows that may take this route")
    vendor: Vendor
    framework: FrameworkId
    accelerators: list[str] = Field(
        default_factory=list, description="accelerator ids it is documented on (empty: any of the vendor's)"
    )
    supports: RouteSupports = Field(default_factory=RouteSupports)
    min_parameters_millions: Optional[float] = Field(
        None,
        gt=0,
        description="smallest model it is meant for (an LLM suite's parallelism buys nothing below it; the reason "
        "is in routes.yaml's header)",
    )
    general: bool = Field(
        False,
        description="the framework itself (plain torch_npu, plain MindSpore): taken when no specialised route fits",
    )
    ports: list[str] = Field(
        default_factory=list,
        description="PyTorch libraries whose models it carries over (a maintained MindSpore port: diffusers -> "
        "mindone); the port's package is `port`",
    )
    port: Optional[str] = Field(None, description="the port's package name, as the migration scan names it")
    serves: list[DeploymentTargetId] = Field(
        default_factory=list, description="serving: the deployment targets it serves"
    )
    path: Optional[DeployPath] = Field(
        None,
        description="serving: native (the trained weights load as they are), vendor-converter (a vendor tool "
        "converts them, e.g. ATC -> OM) or export (an export/convert step with operator gaps)",
    )
    pins: list[Pin] = Field(default_factory=list, description="the stack at vendor-checked versions")
    released: Optional[_dt.date] = Field(None, description="release date of the pinned version")
    source: str = Field(min_length=1)
    confidence: Confidence

    @model_validator(mode="after")
    def _serving_fields(self) -> "Route":
        if self.stage == "serving" and (not self.serves or self.path is None):
            raise ValueError("a serving route needs `serves` (deployment targets) and `path`")
        if self.stage == "training" and (self.serves or self.path is not None):
            raise ValueError("`serves` and `path` are for serving routes")
        return self

    @property
    def stack(self) -> str:
        """'mindspeed-llm 26.1.0, torch 2.7.1, torch-npu 2.7.1.post8, CANN 9.1.0' (the pins in order)."""
        return ", ".join(f"{p.package} {p.version}" + ("" if p.confirmed else " (unconfirmed)") for p in self.pins)
