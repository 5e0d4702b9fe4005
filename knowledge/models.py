"""Pydantic models for every knowledge-base section.

Every number is a `Sourced` value (or `SourcedRange`) that says where it came from and how far to
trust it; entries carry their own `source` and `confidence` too. Input models forbid unknown keys so
a typo in a user's override file is an error, not a silently ignored field.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, PrivateAttr, Tag, field_validator, model_validator

from knowledge.conditions import holds, parse_condition

Confidence = Literal["vendor", "secondary", "blog", "derived", "assumption"]
Vendor = Literal["nvidia", "huawei", "generic"]
FrameworkPath = Literal["pytorch-cuda", "pytorch-npu", "mindspore", "pytorch-cpu", "mindspore-cpu"]
FrameworkId = Literal["pytorch", "mindspore", "torch_npu"]
WorkflowId = Literal["pytorch", "mindspore", "hybrid"]
Aspect = Literal["model_hub", "libraries", "community", "debugging", "documentation", "deployment", "hardware"]
MappingKind = Literal["same", "differs", "none"]
DeratingFactor = Literal["operator_coverage", "memory_bandwidth", "communication"]
CostKind = Literal["accelerator_hour", "electricity_kwh", "pue", "engineer_day"]
# What a price observation prices: one device for an hour, one card bought, one server bought.
PriceKind = Literal["hour", "card", "server"]
PriceTerm = Literal["on-demand", "reserved", "spot", "capacity-block", "list", "street"]
InterconnectScope = Literal["chip-to-chip", "intra-node", "host-bus", "inter-node"]

# The hazard kinds the migration scan reports; each must be explained by some pitfall.
ScanKind = Literal[
    "tensor_control_flow",
    "inplace_op",
    "hook",
    "cuda_amp",
    "distributed",
    "custom_extension",
    "dataloader_option",
    "lr_scheduler",
    "normalize",
    "model_hub",
]
SCAN_KINDS: tuple[str, ...] = ScanKind.__args__  # type: ignore[attr-defined]

NonEmpty = Field(min_length=1)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Sourced(_Model):
    """One number with its provenance. `alternatives` keeps other sources' values when they disagree."""

    value: float = Field(ge=0)
    source: str = Field(min_length=1, description="URL, repository path, or seed file name")
    confidence: Confidence
    note: Optional[str] = None
    alternatives: list["Sourced"] = Field(default_factory=list)

    @field_validator("source")
    @classmethod
    def _source_not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("missing source")
        return v


class SourcedRange(_Model):
    """A range [low, high] with its provenance (used where sources give spans or estimates)."""

    low: float = Field(ge=0)
    high: float = Field(ge=0)
    source: str = Field(min_length=1)
    confidence: Confidence
    note: Optional[str] = None

    @field_validator("source")
    @classmethod
    def _source_not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("missing source")
        return v

    @model_validator(mode="after")
    def _ordered(self) -> "SourcedRange":
        if self.low > self.high:
            raise ValueError(f"low ({self.low}) is greater than high ({self.high})")
        return self

    @property
    def mid(self) -> float:
        return (self.low + self.high) / 2


class _Entry(_Model):
    """Common to every entry: a kebab/snake-case id unique within its section, and the date someone
    last checked it against its sources (`advisor kb stale` lists the old and the unchecked)."""

    id: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9_.\-]*$")
    last_checked: Optional[_dt.date] = Field(None, description="date the entry was last checked against its sources")


class Accelerator(_Entry):
    vendor: Vendor
    name: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list, description="other names users write")
    smi_names: list[str] = Field(default_factory=list, description="names nvidia-smi / npu-smi print for this device")
    fp32_tflops: Optional[Sourced] = None
    fp16_tflops: Optional[Sourced] = None
    bf16_tflops: Optional[Sourced] = None
    int8_tops: Optional[Sourced] = None
    memory_gb: Optional[Sourced] = None
    bandwidth_gbs: Optional[Sourced] = None
    tdp_w: Optional[Sourced] = None
    usable_memory_gb: Optional[Sourced] = Field(
        None, description="memory a framework can allocate, where the reserve is known (npu-smi counts reserved memory)"
    )
    training_capable: bool = Field(True, description="False for inference-only parts (Ascend 310 family, 300I cards)")
    interconnect: Optional[str] = None
    links: list[str] = Field(default_factory=list, description="ids of interconnects entries this board uses")
    year: Optional[int] = None
    framework_paths: list[FrameworkPath] = Field(default_factory=list)
    note: Optional[str] = None
    source: str = Field(min_length=1)
    confidence: Confidence


class Interconnect(_Entry):
    """A link between chips, cards or hosts; `bandwidth_gbs` is per device, both directions unless a note
    says otherwise."""

    name: str = Field(min_length=1)
    vendor: Vendor
    scope: InterconnectScope
    generation: Optional[str] = None
    bandwidth_gbs: Sourced
    max_devices: Optional[int] = Field(None, ge=1, description="devices one domain of this link joins")
    note: Optional[str] = None
    source: str = Field(min_length=1)
    confidence: Confidence


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

    @field_validator("applies_when")
    @classmethod
    def _conditions_parse(cls, conditions: list[str]) -> list[str]:
        for cond in conditions:
            parse_condition(cond)  # raises ValueError naming the bad condition
        return conditions

    def applies(self, requirements: Any) -> bool:
        """True when every `applies_when` condition holds for the requirements (dict or model)."""
        return all(holds(cond, requirements) for cond in self.applies_when)


class ApiMapping(_Entry):
    pytorch: str = Field(
        min_length=1,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$",
        description="fully qualified name, e.g. torch.nn.Conv2d",
    )
    mindspore: Optional[str] = None
    mapping: MappingKind
    note: str = ""
    fix: Optional[str] = None
    effort_hours: Optional[SourcedRange] = Field(None, description="per distinct API used")
    pitfall: Optional[str] = None
    scan_kind: Optional[ScanKind] = Field(None, description="hazard kind the scan reports for it")
    scan_hazard: Optional[Literal["dynamic_shape", "no_equivalent"]] = Field(
        None, description="scan-only hazard kind for it (explained by the scan itself, not by a pitfall)"
    )
    adapter: Optional[bool] = Field(
        None, description="usable through MSAdapter/MindTorch; unset = follows the mapping (same/differs yes, none no)"
    )
    before: Optional[str] = Field(None, description="short PyTorch pattern for the fix example")
    after: Optional[str] = Field(None, description="the MindSpore pattern it becomes")
    source: str = Field(min_length=1)
    confidence: Confidence

    @model_validator(mode="after")
    def _none_has_no_target(self) -> "ApiMapping":
        if self.mapping != "none" and not self.mindspore:
            raise ValueError(f"mapping '{self.mapping}' needs a mindspore name (or use mapping: none)")
        if (self.before is None) != (self.after is None):
            raise ValueError("before and after come together (a fix example has both)")
        return self


class Reference(_Entry):
    """A published throughput. `images_per_second` is the total over all `devices`."""

    model: str = Field(min_length=1)
    dataset: str = Field(min_length=1)
    accelerator: str = Field(min_length=1, description="accelerator id")
    devices: int = Field(ge=1)
    framework: Literal["pytorch", "mindspore"]
    framework_version: Optional[str] = None
    mode: str = Field(min_length=1, description="eager | graph | pynative | ...")
    batch_size: int = Field(ge=1, description="per device")
    precision: str = Field(min_length=1)
    images_per_second: Sourced
    note: Optional[str] = None
    source: str = Field(min_length=1)
    confidence: Confidence

    @property
    def images_per_second_per_device(self) -> float:
        return self.images_per_second.value / self.devices


class Derating(_Entry):
    factor: DeratingFactor
    loss: SourcedRange = Field(description="fraction of peak lost, 0-1")
    note: Optional[str] = None

    @field_validator("loss")
    @classmethod
    def _fraction(cls, v: SourcedRange) -> SourcedRange:
        if not (0.0 <= v.low <= 1.0 and 0.0 <= v.high <= 1.0):
            raise ValueError("loss must be fractions between 0 and 1")
        return v


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


class CurvePoint(_Model):
    devices: int = Field(ge=1, description="total devices")
    efficiency: SourcedRange = Field(description="fraction of linear throughput kept, 0-1")

    @field_validator("efficiency")
    @classmethod
    def _fraction(cls, v: SourcedRange) -> SourcedRange:
        if not (0.0 <= v.low <= 1.0 and 0.0 <= v.high <= 1.0):
            raise ValueError("efficiency must be fractions between 0 and 1")
        return v


class ScalingCurve(_Entry):
    """Data-parallel scaling efficiency as a function of devices, per link class (advisor.decision.communication)."""

    link: Literal["nvlink", "hccs", "pcie", "roce-ib", "ethernet"]
    scope: Literal["host", "network"] = Field(
        description="host: devices of one host; network: the link between hosts, at a total device count"
    )
    points: list[CurvePoint] = Field(min_length=2)
    note: Optional[str] = None
    source: str = Field(min_length=1)
    confidence: Confidence

    @model_validator(mode="after")
    def _falls_with_n(self) -> "ScalingCurve":
        pts = sorted(self.points, key=lambda p: p.devices)
        for a, b in zip(pts, pts[1:]):
            if b.efficiency.low > a.efficiency.low or b.efficiency.high > a.efficiency.high:
                raise ValueError(f"efficiency must not rise with devices ({a.devices} -> {b.devices})")
        return self


class MfuReference(_Entry):
    """A published model-FLOPs utilisation (MFU) of a training run: a stated MFU range, or tokens/s per
    device with the model's size and shape from which the advisor derives it against the knowledge
    base's peak (advisor.decision.throughput). Precision is the compute precision of the run: a
    bf16/fp16 job is only ever projected from 16-bit references."""

    accelerator: str = Field(min_length=1, description="accelerator id")
    precision: Literal["bf16", "fp16", "fp8"]
    family: Literal["transformer-decoder", "transformer-encoder"]
    framework: Literal["pytorch", "mindspore"]
    system: str = Field(min_length=1, description="the stack: Megatron-LM, MindFormers, ...")
    model: str = Field(min_length=1)
    devices: int = Field(ge=1)
    as_of: _dt.date = Field(description="date of the result")
    mfu: Optional[SourcedRange] = Field(None, description="MFU as the source states it (fractions 0-1)")
    tokens_per_second_per_device: Optional[Sourced] = None
    parameters_b: Optional[float] = Field(None, gt=0, description="model size (billions), to derive MFU")
    layers: Optional[int] = Field(None, ge=1)
    hidden: Optional[int] = Field(None, ge=1)
    sequence: Optional[int] = Field(None, ge=1)
    note: Optional[str] = None
    source: str = Field(min_length=1)
    confidence: Confidence

    @model_validator(mode="after")
    def _mfu_or_tokens(self) -> "MfuReference":
        if self.mfu is not None:
            if not 0 < self.mfu.low <= self.mfu.high <= 1:
                raise ValueError("mfu must be fractions between 0 and 1")
            return self
        needed = (self.tokens_per_second_per_device, self.parameters_b, self.layers, self.hidden, self.sequence)
        if any(v is None for v in needed):
            raise ValueError("give mfu, or tokens_per_second_per_device with parameters_b, layers, hidden and sequence")
        return self


class Record(_Entry):
    """A published record (MLPerf Training closed division): no projection of the same model on the
    same accelerator is faster per device."""

    model: str = Field(min_length=1, description="workload.model it bounds (resnet50, ...)")
    accelerator: str = Field(min_length=1, description="accelerator id")
    devices: int = Field(ge=1)
    samples_per_second: Sourced = Field(description="total over the devices")
    benchmark: str = Field(min_length=1)
    as_of: _dt.date
    source: str = Field(min_length=1)
    confidence: Confidence

    @property
    def per_device(self) -> float:
        return self.samples_per_second.value / self.devices


# Section name (as used on the command line and as YAML top-level key) -> (attribute, model).
class ServingReference(_Entry):
    """A published serving result: throughput per device (output tokens/s for a decoder, samples/s for
    an encoder) of a named model on an accelerator and runtime, and its batch-1 latency where the
    source gives one. The advisor scales it to the team's model and accelerator (advisor.decision.serving)."""

    accelerator: str = Field(min_length=1, description="accelerator id")
    runtime: str = Field(min_length=1, description="TensorRT-LLM, TensorRT, vLLM, MindIE, ...")
    family: Literal["transformer-decoder", "transformer-encoder"]
    model: str = Field(min_length=1)
    parameters_b: float = Field(gt=0, description="model size (billions)")
    precision: Literal["bf16", "fp16", "fp8", "int8"]
    scenario: str = Field(min_length=1, description="MLPerf scenario or the source's set-up")
    devices: int = Field(ge=1)
    as_of: _dt.date = Field(description="date of the result")
    per_device: Sourced = Field(description="output tokens/s (decoder) or samples/s (encoder) per device")
    latency_ms: Optional[Sourced] = Field(None, description="batch-1 latency per request (encoder) where given")
    note: Optional[str] = None
    source: str = Field(min_length=1)
    confidence: Confidence


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
