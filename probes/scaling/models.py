"""Pydantic models of the scaling probe: its configuration (input) and its result document.

Every figure says how it was obtained: medians with min-max over interleaved repetitions, measured
here; `label` says whether it is device scaling or (CPU-only host) communication plus contention on
shared cores.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator

SCHEMA_VERSION = "1"

Framework = Literal["pytorch", "mindspore"]
RunStatus = Literal["ok", "failed", "timeout", "cancelled"]


class ScalingConfig(BaseModel):
    """What to measure. Defaults follow the issue: LeNet, both frameworks, 1 and N ranks, 3 repeats."""

    model_config = ConfigDict(extra="forbid")

    frameworks: list[Framework] = Field(default_factory=lambda: ["pytorch", "mindspore"])
    models: list[str] = Field(default_factory=lambda: ["lenet"])
    ranks: Optional[list[int]] = None
    """Rank counts; None = 1 and the host's device count (2 on a CPU-only host)."""
    batch_size: int = Field(32, ge=1)
    """Per-rank batch, as in the single-process probe."""
    steps: int = Field(30, ge=2)
    """Timed steps per phase (synced and no-sync)."""
    warmup: int = Field(5, ge=0)
    repeat: int = Field(3, ge=1)
    """Interleaved repetitions (>= 3 for a reported spread; tests lower it)."""
    threads_per_rank: Optional[int] = Field(None, ge=1)
    """None = the host's cores divided by the largest rank count (same for every rank count)."""
    device: Literal["auto", "cpu"] = "auto"
    """auto: GPUs/NPUs when the host has them, else CPU."""
    timeout: float = Field(300.0, gt=0)
    """Seconds per launch; then the launcher and every rank are killed and the run is failed."""

    @field_validator("ranks")
    @classmethod
    def _ranks(cls, v):
        if v is not None:
            if not v or any(r < 1 for r in v):
                raise ValueError("rank counts must be integers >= 1")
            v = sorted(set(v))
        return v


class Spread(BaseModel):
    """Median and min-max over repetitions (n of them)."""

    median: float
    min: float
    max: float
    n: int


class Startup(BaseModel):
    """Seconds before steady state, for one launch (slowest rank)."""

    launcher_seconds: Optional[float] = None
    """Parent starts the launcher -> the rank script starts (launcher + interpreter start-up)."""
    import_seconds: Optional[float] = None
    init_seconds: Optional[float] = None
    """Process-group / communication init (init_process_group, mindspore init())."""
    build_seconds: Optional[float] = None
    """Network, weights, optimizer, data (and the DDP wrapper)."""
    first_step_seconds: Optional[float] = None
    """The first synced step (MindSpore: includes the graph compile)."""
    total_seconds: Optional[float] = None
    """Launcher start to launcher exit, the whole launch."""


class Gate(BaseModel):
    """Correctness: after synced steps every rank holds the same parameters; the no-sync control
    (each rank its own gradients) must make them differ, or the check proves nothing."""

    sync_max_abs_diff: float
    nosync_max_abs_diff: float
    param_count: int
    params_identical: bool
    control_diverged: bool
    ok: bool


class ScalingRun(BaseModel):
    """One launch: one framework, one model, one rank count, one repetition."""

    id: str
    framework: Framework
    launcher: Literal["torchrun", "msrun"]
    model: str
    ranks: int
    repetition: int
    status: RunStatus
    error: Optional[str] = None
    command: list[str] = Field(default_factory=list)
    device: str = "cpu"
    backend: Optional[str] = None
    world_size: Optional[int] = None
    batch_size_per_rank: int
    threads_per_rank: int
    step_ms: Optional[float] = None
    """Median synced step, slowest rank."""
    nosync_step_ms: Optional[float] = None
    """Median no-sync control step, slowest rank."""
    images_per_second: Optional[float] = None
    """Total over ranks, synced: ranks x batch / step."""
    allreduce_share: Optional[float] = None
    """(synced - no-sync) / synced step time: the share of the step spent on gradient allreduce.
    None at 1 rank (nothing to allreduce) and when below the control's noise: see allreduce_share_note."""
    allreduce_share_note: Optional[str] = None
    """Why there is no share: "not applicable: one rank ..." or "below the noise: ..." with the spread."""
    allreduce_noise: Optional[float] = None
    """The no-sync control's median uncertainty (2 standard errors from its IQR) / synced step."""
    sync_nosync_difference: Optional[float] = None
    """(synced - no-sync) / synced, any sign, also at 1 rank: the raw figure (the host's noise floor)."""
    nnodes: Optional[int] = None
    """Hosts the ranks spanned (a multi-node launch); None: one host."""
    startup: Startup = Field(default_factory=Startup)
    gate: Optional[Gate] = None
    loss_first: Optional[float] = None
    loss_last: Optional[float] = None
    weights_checksum: Optional[str] = None
    framework_version: Optional[str] = None
    output_tail: Optional[str] = None
    """Last lines of the launcher and worker logs, for failed runs only."""


class RankCount(BaseModel):
    """One rank count of one framework and model, over the repetitions that succeeded."""

    ranks: int
    runs_ok: int
    runs_total: int
    images_per_second: Optional[Spread] = None
    step_ms: Optional[Spread] = None
    nosync_step_ms: Optional[Spread] = None
    allreduce_share: Optional[Spread] = None
    allreduce_share_note: Optional[str] = None
    """Why the share is missing (1 rank) or in how many runs it was below the control's noise."""
    sync_nosync_difference: Optional[Spread] = None
    """The raw (synced - no-sync) / synced difference, any sign (at 1 rank: the noise floor)."""
    efficiency: Optional[Spread] = None
    """images/s(N) / (N x images/s(1)), paired per repetition (interleaved runs)."""
    contention_factor: Optional[Spread] = None
    """step(1) / no-sync step(N): slowdown from sharing the host, communication excluded."""
    communication_factor: Optional[Spread] = None
    """no-sync step(N) / synced step(N) = 1 - allreduce share. efficiency = contention x communication."""
    launcher_seconds: Optional[Spread] = None
    init_seconds: Optional[Spread] = None
    first_step_seconds: Optional[Spread] = None
    total_seconds: Optional[Spread] = None
    gate_ok: Optional[bool] = None
    """All successful multi-rank runs passed the correctness gate (None for 1 rank)."""


class FrameworkScaling(BaseModel):
    framework: Framework
    launcher: Literal["torchrun", "msrun"]
    model: str
    status: Literal["ok", "partial", "failed", "unavailable", "cancelled"]
    reason: Optional[str] = None
    device: str = "cpu"
    backend: Optional[str] = None
    batch_size_per_rank: int
    threads_per_rank: int
    rank_counts: list[RankCount] = Field(default_factory=list)
    efficiency: Optional[float] = None
    """Median scaling efficiency at the largest rank count measured."""
    allreduce_share: Optional[float] = None
    """Median allreduce share of the step at the largest rank count measured."""


class InterHostLink(BaseModel):
    """The link the inter-host runs went over, as node 0 sees it (read, not measured)."""

    interface: Optional[str] = None
    """The interface the master address routes through (None: not found)."""
    source_address: Optional[str] = None
    """This host's address toward the master."""
    speed_mbps: Optional[int] = None
    """/sys/class/net/IFACE/speed where readable (not for loopback or most virtual links)."""
    speed_source: str = ""
    loopback: bool = False
    """True: every "host" ran on this machine; the figures measure loopback, not a network."""


class InterHostSide(BaseModel):
    """One side of the comparison: the same rank count across hosts (inter) or on one host (intra)."""

    runs: int
    step_ms: Optional[Spread] = None
    nosync_step_ms: Optional[Spread] = None
    images_per_second: Optional[Spread] = None
    allreduce_share: Optional[Spread] = None
    allreduce_share_note: Optional[str] = None


class InterHostFramework(BaseModel):
    framework: Framework
    launcher: Literal["torchrun", "msrun"]
    model: str
    backend: Optional[str] = None
    world_size: int
    runs_ok: int
    runs_total: int
    status: Literal["ok", "partial", "failed"]
    reason: Optional[str] = None
    gate_ok: Optional[bool] = None
    inter: Optional[InterHostSide] = None
    """world_size ranks spread over nnodes hosts."""
    intra: Optional[InterHostSide] = None
    """world_size ranks on node 0 alone (None: skipped with --no-intra-host or failed)."""
    inter_over_intra_step: Optional[Spread] = None
    """Synced step across hosts / on one host, paired by repetition: the link's cost (> 1 slower)."""
    efficiency: Optional[Spread] = None
    """images/s across hosts / (world x images/s of 1 rank on node 0), paired by repetition."""


class InterHost(BaseModel):
    """The scaling probe across hosts (advisor probe --scaling --nnodes N ...), written by node 0."""

    nnodes: int
    ranks_per_node: int
    world_size: int
    master: str
    rendezvous_timeout_s: float
    link: InterHostLink
    frameworks: list[InterHostFramework] = Field(default_factory=list)


class ScalingResult(BaseModel):
    schema_version: str = SCHEMA_VERSION
    kind: Literal["scaling"] = "scaling"
    created: str
    host: dict = Field(default_factory=dict)
    label: Literal["device-scaling", "cpu-contention"]
    label_text: str
    config: ScalingConfig
    frameworks: list[FrameworkScaling] = Field(default_factory=list)
    runs: list[ScalingRun] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    inter_host: Optional[InterHost] = None
    """Multi-node runs only: intra- vs inter-host at the same rank count, and the link."""


class ScalingEvent(BaseModel):
    """Progress for a CLI line or the TUI's Probes screen."""

    kind: Literal["start", "progress", "done"]
    run_id: str
    fraction: float
    """Of the whole probe (all launches), 0-1."""
    run_fraction: Optional[float] = None
    """progress: of this launch's steps, 0-1 (rank 0's position)."""
    message: str
    run: Optional[ScalingRun] = None
    index: Optional[int] = None
    """This launch's position in the plan (1-based)."""
    total: Optional[int] = None
    """Launches planned (the progress display's total)."""
