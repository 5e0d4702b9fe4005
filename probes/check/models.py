"""Result models of `advisor check` (host, accelerators, frameworks, findings).

Parent-side only: collectors fill them, the smoke worker's plain-dict payload is validated into them.
Every collector returns data, never raises: a probe that could not run says so in `status`/`error`.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

# Bump the minor number for added fields, the major one for renamed/removed ones.
SCHEMA_VERSION = "1.1"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- host -------------------------------------------------------------------------------------


class CpuInfo(_Model):
    model: Optional[str] = None
    vendor: Optional[str] = None
    architecture: Optional[str] = None
    physical_cores: Optional[int] = Field(None, description="usable physical cores (capped by limits)")
    logical_cores: Optional[int] = Field(None, description="usable logical CPUs: affinity and cgroup quota applied")
    host_physical_cores: Optional[int] = None
    host_logical_cores: Optional[int] = Field(None, description="what the kernel reports for the whole machine")
    flags: list[str] = Field(default_factory=list, description="flags relevant to ML kernels only")
    frequency_mhz: Optional[float] = None
    limited_by: Optional[str] = Field(None, description="what lowered logical_cores below the host count")


class MemoryInfo(_Model):
    total_mb: Optional[int] = Field(None, description="usable memory: host total or the cgroup limit, the lower")
    available_mb: Optional[int] = None
    host_total_mb: Optional[int] = None
    limited_by: Optional[str] = None


class DiskInfo(_Model):
    path: str
    free_mb: Optional[int] = None
    total_mb: Optional[int] = None
    error: Optional[str] = None


class CgroupLimits(_Model):
    version: Optional[Literal[1, 2]] = None
    cpu_quota: Optional[float] = Field(None, description="CPUs allowed by the CFS quota (cpu.max / cfs_quota_us)")
    cpuset_cpus: Optional[int] = None
    memory_limit_mb: Optional[int] = None
    memory_usage_mb: Optional[int] = None


class ContainerInfo(_Model):
    detected: bool = False
    kind: Optional[str] = Field(None, description="docker, podman, kubernetes, lxc, ... when recognisable")
    hints: list[str] = Field(default_factory=list, description="what the guess rests on")
    cgroup: CgroupLimits = Field(default_factory=CgroupLimits)


class HostInfo(_Model):
    hostname: Optional[str] = None
    os: Optional[str] = None
    os_release: Optional[str] = None
    kernel: Optional[str] = None
    python: Optional[str] = None
    python_executable: Optional[str] = None
    cpu: CpuInfo = Field(default_factory=CpuInfo)
    memory: MemoryInfo = Field(default_factory=MemoryInfo)
    disk: Optional[DiskInfo] = None
    container: ContainerInfo = Field(default_factory=ContainerInfo)
    errors: list[str] = Field(default_factory=list, description="parts that could not be read, and why")


# --- accelerators ------------------------------------------------------------------------------


class DeviceProcess(_Model):
    pid: Optional[int] = None
    name: Optional[str] = None
    memory_mb: Optional[float] = None


class Accelerator(_Model):
    """One chip: a two-chip NPU gives two entries."""

    vendor: Literal["nvidia", "huawei"]
    index: int = Field(description="the logical device index frameworks use (order on the host)")
    name: str
    memory_total_mb: Optional[float] = None
    memory_used_mb: Optional[float] = None
    source: str = Field(description="nvml, nvidia-smi or npu-smi")
    uuid: Optional[str] = None
    bus_id: Optional[str] = None
    npu_id: Optional[int] = None
    chip_id: Optional[int] = None
    phy_id: Optional[int] = None
    health: Optional[str] = None
    compute_capability: Optional[str] = None
    utilization_pct: Optional[float] = None
    temperature_c: Optional[float] = None
    power_w: Optional[float] = None
    processes: list[DeviceProcess] = Field(default_factory=list, description="processes using this chip")


ProbeStatus = Literal["ok", "absent", "failed"]


class NvidiaInfo(_Model):
    status: ProbeStatus = "absent"
    source: Optional[Literal["nvml", "nvidia-smi"]] = None
    reason: Optional[str] = Field(None, description="why absent or failed")
    driver_version: Optional[str] = None
    cuda_driver_version: Optional[str] = None
    gpu_count: int = 0
    notes: list[str] = Field(default_factory=list)


class CannInfo(_Model):
    version: Optional[str] = None
    path: Optional[str] = Field(None, description="toolkit root the version was read from")
    version_file: Optional[str] = None
    env_home: Optional[str] = Field(None, description="ASCEND_TOOLKIT_HOME or ASCEND_HOME_PATH as set")
    lib_on_ld_path: Optional[bool] = Field(None, description="toolkit lib64 on LD_LIBRARY_PATH")


class AscendInfo(_Model):
    status: ProbeStatus = "absent"
    reason: Optional[str] = None
    smi_version: Optional[str] = None
    driver_version: Optional[str] = None
    device_nodes: list[str] = Field(default_factory=list)
    chip_count: int = 0
    cann: CannInfo = Field(default_factory=CannInfo)
    visible_devices: Optional[str] = Field(None, description="ASCEND_RT_VISIBLE_DEVICES, else ASCEND_DEVICE_ID")
    notes: list[str] = Field(default_factory=list)


# --- frameworks --------------------------------------------------------------------------------

FrameworkName = Literal["pytorch", "mindspore", "torch_npu"]


class DeviceSmoke(_Model):
    device: str
    ok: bool
    seconds: Optional[float] = Field(None, description="matmul + backward, first call, synchronised")
    error: Optional[str] = None


class ConvCheck(_Model):
    """MindSpore CPU convolution speed against a GEMM of the same FLOPs, measured live."""

    shape: str
    conv_ms: float
    gemm_ms: float
    ratio: float
    slow: bool
    capped_conv_ms: Optional[float] = Field(None, description="same conv with ONEDNN_MAX_CPU_ISA=AVX2")
    capped_ratio: Optional[float] = None
    capped_error: Optional[str] = None
    capped_measured: Optional[str] = Field(
        None,
        description="when the AVX2 rerun was measured, if taken from the per-host cache (null: measured in this check)",
    )
    measured: Optional[str] = Field(
        None,
        description="when this convolution was timed, if taken from the per-host cache after an earlier check "
        "confirmed the trap on the same host, MindSpore install and oneDNN settings (null: timed in this check)",
    )


class SmokeResult(_Model):
    status: Literal["ok", "failed", "timeout", "skipped"]
    ok: Optional[bool] = Field(None, description="null when the smoke test did not run")
    seconds: Optional[float] = Field(None, description="wall time of the child process")
    import_seconds: Optional[float] = None
    devices: list[DeviceSmoke] = Field(default_factory=list)
    error: Optional[str] = None
    output_tail: Optional[str] = Field(None, description="end of the child's output, on failure")
    conv_check: Optional[ConvCheck] = None


class FrameworkInfo(_Model):
    name: FrameworkName
    installed: bool
    version: Optional[str] = None
    distribution: Optional[str] = None
    build: Optional[str] = Field(None, description="e.g. cpu, cuda 12.1, ascend")
    location: Optional[str] = None
    devices: list[str] = Field(default_factory=list)
    devices_source: Optional[Literal["smoke", "inferred"]] = None
    details: dict[str, Optional[str]] = Field(default_factory=dict)
    smoke: SmokeResult = Field(default_factory=lambda: SmokeResult(status="skipped"))


# --- findings and report -----------------------------------------------------------------------

Severity = Literal["error", "warning", "info"]


class Finding(_Model):
    severity: Severity
    code: str
    message: str
    fix: Optional[str] = None
    evidence: Optional[str] = Field(None, description="what the finding rests on (measured, read, KB id)")


class CheckReport(_Model):
    schema_version: str = SCHEMA_VERSION
    tool_version: str
    created_at: str
    seconds: float
    host: HostInfo
    accelerators: list[Accelerator]
    nvidia: NvidiaInfo
    ascend: AscendInfo
    frameworks: list[FrameworkInfo]
    packages: dict[str, Optional[str]] = Field(default_factory=dict, description="numpy etc.")
    findings: list[Finding]
    verdict: Literal["pass", "warn", "fail"]
