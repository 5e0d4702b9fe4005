"""What every knowledge-base section shares: the confidence scale, the literal vocabularies, sourced values
and the entry base class."""

from __future__ import annotations

import datetime as _dt
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


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
