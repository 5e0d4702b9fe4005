"""Published throughput: reference measurements, derating factors, scaling curves, MFU references,
records and serving references."""

from __future__ import annotations

import datetime as _dt
from typing import Literal, Optional

from pydantic import Field, field_validator, model_validator


from knowledge.models.common import (
    Confidence,
    DeratingFactor,
    _Model,
    Sourced,
    SourcedRange,
    _Entry,
)


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
    active_parameters_b: Optional[float] = Field(
        None, gt=0, description="mixture of experts: parameters a token passes through (FLOPs follow these)"
    )
    experts: Optional[int] = Field(None, ge=2, description="mixture of experts: routed experts per MoE layer")
    recompute: Optional[Literal["none", "selective", "full"]] = Field(
        None,
        description="activation recompute the run used, where the source states it (absent: none or selective, "
        "whose overhead is small)",
    )
    fine_tune: Optional[Literal["full", "lora", "qlora"]] = Field(
        None, description="a fine-tuning run (absent: pretraining or continued pretraining)"
    )
    route: Optional[str] = Field(None, description="the routes entry (knowledge base `routes`) it was measured on")
    note: Optional[str] = None
    source: str = Field(min_length=1)
    confidence: Confidence

    @property
    def is_moe(self) -> bool:
        return self.experts is not None

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
    route: Optional[str] = Field(None, description="the routes entry (knowledge base `routes`) it was measured on")
    note: Optional[str] = None
    source: str = Field(min_length=1)
    confidence: Confidence
