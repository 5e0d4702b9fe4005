"""Accelerators and their interconnects."""

from __future__ import annotations

from typing import Optional

from pydantic import Field


from knowledge.models.common import (
    Confidence,
    Vendor,
    FrameworkPath,
    InterconnectScope,
    Sourced,
    _Entry,
)


class Accelerator(_Entry):
    vendor: Vendor
    name: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list, description="other names users write")
    smi_names: list[str] = Field(default_factory=list, description="names nvidia-smi / npu-smi print for this device")
    fp32_tflops: Optional[Sourced] = None
    fp16_tflops: Optional[Sourced] = None
    bf16_tflops: Optional[Sourced] = None
    int8_tops: Optional[Sourced] = None
    memory_gb: Optional[Sourced] = Field(
        None, description="the vendor's capacity figure, binary gigabytes (an '80 GB' HBM part holds 80 GiB)"
    )
    bandwidth_gbs: Optional[Sourced] = None
    tdp_w: Optional[Sourced] = None
    server_power_w: Optional[Sourced] = Field(
        None,
        description="datasheet maximum power of the vendor's server built on this accelerator, per server "
        "(CPUs, memory, network and storage included)",
    )
    server_devices: Optional[int] = Field(None, ge=1, description="accelerators in that server")
    fp8: Optional[bool] = Field(
        None,
        description="computes FP8 natively (Hopper, Ada, Blackwell tensor cores); absent: not stated, taken as no",
    )
    usable_memory_gb: Optional[Sourced] = Field(
        None,
        description="memory a framework can allocate (GiB, as memory_gb), where the reserve is known "
        "(npu-smi counts reserved memory)",
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
