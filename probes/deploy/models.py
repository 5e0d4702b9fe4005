"""Pydantic models of the deployment probe: its configuration, the export and serve steps, the
parity checks and the whole result. Workers send plain dicts; the runner validates them here."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.0"

Framework = Literal["pytorch", "mindspore"]
Model = Literal["lenet", "resnet18", "resnet50"]
Status = Literal["ok", "failed", "timeout", "unavailable", "cancelled", "skipped"]

# Export formats per framework (the paths) and the engines that serve each artefact.
FORMATS: dict[str, tuple[str, ...]] = {"pytorch": ("onnx", "torch.export"), "mindspore": ("mindir", "onnx")}
SOURCE_ENGINE = {"pytorch": "torch-eager", "mindspore": "mindspore-graph"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class DeployConfig(_Strict):
    frameworks: list[Framework] = Field(default_factory=lambda: ["pytorch", "mindspore"])
    models: list[Model] = Field(default_factory=lambda: ["lenet", "resnet18"])
    batch_sizes: list[int] = Field(
        default_factory=lambda: [1, 32], description="latency at the smallest, throughput at the largest"
    )
    budget: float = Field(
        2.0, gt=0, le=3600, description="seconds of warmup + measurement per batch size per serve step"
    )
    formats: Optional[list[str]] = Field(None, description="only these export formats (default: all)")
    threads: Optional[int] = Field(None, ge=1, description="threads in every engine; None = usable cores")
    timeout: Optional[float] = Field(None, gt=0, description="per-child timeout; None = from the budget")
    max_calls: Optional[int] = Field(None, ge=3, description="hard cap on calls per batch size (tests)")
    inject_op: Optional[Literal["cummax"]] = Field(
        None, description="test hook: append an operator the exporters reject, to see the failure reported"
    )
    tune: bool = Field(
        True, description="ONEDNN_MAX_CPU_ISA=AVX2 for MindSpore on AVX-512 hosts, as the training probe"
    )
    keep_dir: Optional[str] = Field(None, description="keep the artefacts in this folder (default: deleted)")


class ExportStep(_Open):
    """One (framework, format, model) export."""

    id: str = Field(description='e.g. "pytorch-onnx-lenet"')
    framework: Framework
    format: str
    model: Model
    status: Status
    error: Optional[str] = None
    operator: Optional[str] = Field(None, description="the operator the exporter rejected, when it says")
    exporter: Optional[str] = Field(None, description="which exporter ran, e.g. torch.onnx dynamo")
    opset: Optional[int] = Field(None, description="ONNX default-domain opset")
    seconds: Optional[float] = Field(None, description="the export call alone")
    size_bytes: Optional[int] = None
    dynamic_batch: Optional[bool] = None
    files: list[str] = Field(default_factory=list, description="artefact files (names)")
    notes: list[str] = Field(default_factory=list)
    child_seconds: Optional[float] = None
    settings: dict = Field(default_factory=dict)


class Timing(_Open):
    batch_size: int
    first_call_seconds: Optional[float] = None
    latency_ms: dict = Field(default_factory=dict, description="n, p50, p95, p99, mean, min, max, cv")
    images_per_second: Optional[float] = None
    ci95: Optional[list[float]] = None
    calls: Optional[int] = None
    stop_reason: Optional[str] = None
    warnings: list[str] = Field(default_factory=list)


class ServeStep(_Open):
    """One artefact (or the source network) served on one engine."""

    id: str = Field(description='e.g. "pytorch-onnx-lenet@onnxruntime-cpu"')
    framework: Framework
    artefact: str = Field(description="source | onnx | torch.export | mindir")
    model: Model
    engine: str = Field(
        description="torch-eager | torch.export | mindspore-graph | mindspore-graphcell | "
        "onnxruntime-cpu | onnxruntime-cuda | onnxruntime-tensorrt | mindspore-lite"
    )
    provider: Optional[str] = None
    status: Status
    error: Optional[str] = None
    import_seconds: Optional[float] = None
    load_seconds: Optional[float] = Field(None, description="load the artefact / build the network")
    first_inference_seconds: Optional[float] = Field(
        None, description="load + the first call at the smallest batch (includes compile)"
    )
    timings: list[Timing] = Field(default_factory=list, description="one per batch size")
    latency_ms: Optional[dict] = Field(None, description="at the smallest batch size")
    throughput: Optional[float] = Field(None, description="images/s at the largest batch size")
    peak_memory_mb: Optional[float] = Field(None, description="VmHWM of the serving process")
    rss_after_import_mb: Optional[float] = None
    placement: Optional[dict] = Field(None, description="per-node execution provider (ONNX Runtime)")
    warnings: list[str] = Field(default_factory=list)
    child_seconds: Optional[float] = None
    settings: dict = Field(default_factory=dict)


class ParityCheck(_Open):
    id: str
    model: Model
    kind: Literal["export", "cross"]
    a: str = Field(description="reference serve step id")
    b: str
    batch_size: Optional[int] = None
    status: Literal["ok", "failed", "skipped"]
    ok: bool = False
    max_abs_diff: Optional[float] = None
    max_rel_diff: Optional[float] = Field(None, description="max |a-b| / max |a|")
    tolerance: Optional[float] = Field(None, description="absolute, = rel_tolerance x max(1, max |a|)")
    rel_tolerance: Optional[float] = None
    error: Optional[str] = None


class DeployResult(_Open):
    schema_version: str = SCHEMA_VERSION
    kind: Literal["deploy"] = "deploy"
    tool_version: Optional[str] = None
    created: Optional[str] = None
    seconds: Optional[float] = None
    host: dict = Field(default_factory=dict)
    config: Optional[DeployConfig] = None
    engines: list[dict] = Field(default_factory=list, description="installed_engines()")
    exports: list[ExportStep] = Field(default_factory=list)
    serves: list[ServeStep] = Field(default_factory=list)
    parity: list[ParityCheck] = Field(default_factory=list)
    not_measured: list[str] = Field(default_factory=list, description="engines absent here, with the reason")
    warnings: list[str] = Field(default_factory=list)


class DeployEvent(_Open):
    step_id: str
    kind: Literal["start", "done"]
    message: Optional[str] = None
    status: Optional[str] = None
    index: Optional[int] = None
    total: Optional[int] = None
