"""Typed readers of the probe results' free-form mappings: the fields a probe keeps as a mapping (its
model says `dict`) that the decision model reads, each read here once into a model with the keys it
uses, so no judging code reads a result by string key.

Every key is optional and unknown keys are ignored: the probes own these formats (and may add to
them); a key missing from an older result reads as absent. A mapping that does not hold what its
format says (a number where a name belongs) reads as empty: the judging code then says the figure is
not there, as it does for an older result."""

from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class _View(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Latency(_View):
    """A serve step's latency percentiles at its smallest batch, milliseconds (probes.deploy)."""

    p50: Optional[float] = None


class Fallback(_View):
    op: str = ""


class Placement(_View):
    """Where ONNX Runtime placed each node (probes.deploy.placement): the chosen execution provider, the
    node count and the nodes that fell back to another provider."""

    chosen: str = ""
    nodes: int = 0
    fallback: list[Fallback] = Field(default_factory=list)
    fallback_ops: list[str] = Field(default_factory=list)


class NormalizeVariant(_View):
    batch_mean: float
    batch_std: float
    loss_first: float


class NormalizeVariants(_View):
    pytorch_values_0_1: Optional[NormalizeVariant] = None
    correct_0_255: Optional[NormalizeVariant] = None


class NormalizeCheck(_View):
    """The accuracy probe's Normalize trap check (MindSpore's Normalize on uint8 input, both value scales)."""

    variants: NormalizeVariants = Field(default_factory=NormalizeVariants)
    error: Optional[str] = None


class DataSource(_View):
    """What a probe trained or loaded: its data's source and name (the accuracy and pipeline probes)."""

    source: Optional[str] = None
    name: Optional[str] = None


class HostNames(_View):
    """The names a probe's host facts may carry (the scaling probe keeps them as a mapping; a suite's host
    keeps them beside its typed fields)."""

    hostname: Optional[str] = None
    cpu_model: Optional[str] = None
    name: Optional[str] = None


class VendorPeak(_View):
    """The datasheet peak a suite was judged against (advisor.decision.vendor_peak writes it)."""

    accelerator: Optional[str] = None
    fp32_gflops: Optional[float] = None


class RunSettings(_View):
    """The settings of a timed run that judging reads: the device's own name (cuda / npu runs)."""

    device_name: Optional[str] = None


class PipelineRunExtra(_View):
    """What an input-pipeline run carries beside its typed fields: the passes over the data and its grade."""

    passes: Optional[float] = None
    quality: Optional[str] = None


def _read(view: type[_View], mapping: Optional[dict]):
    try:
        return view.model_validate(mapping or {})
    except ValidationError:
        return view()


def latency(mapping: Optional[dict]) -> Latency:
    return _read(Latency, mapping)


def placement(mapping: Optional[dict]) -> Placement:
    return _read(Placement, mapping)


def normalize_check(mapping: Optional[dict]) -> NormalizeCheck:
    return _read(NormalizeCheck, mapping)


def data_source(mapping: Optional[dict]) -> DataSource:
    return _read(DataSource, mapping)


def host_names(mapping: Optional[dict]) -> HostNames:
    return _read(HostNames, mapping)


def peak(mapping: Optional[dict]) -> VendorPeak:
    return _read(VendorPeak, mapping)


def run_settings(mapping: Optional[dict]) -> RunSettings:
    return _read(RunSettings, mapping)


def pipeline_extra(mapping: Optional[dict]) -> PipelineRunExtra:
    return _read(PipelineRunExtra, mapping)
