"""Pydantic models of the training probe: its configuration, one run, the whole suite, and the
live events the CLI progress bar and the TUI consume. The workers send plain dicts; the parent
validates them into these models (workers never import pydantic)."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.0"

Framework = Literal["pytorch", "mindspore"]
Mode = Literal["eager", "compile", "graph", "pynative"]
Model = Literal["lenet", "resnet18", "resnet50"]
RunStatus = Literal["ok", "failed", "timeout", "unavailable", "cancelled"]
Quality = Literal["stable", "noisy", "unusable"]

MODES_OF: dict[str, tuple[str, ...]] = {"pytorch": ("eager", "compile"), "mindspore": ("graph", "pynative")}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Open(BaseModel):
    """Output models: extra keys a newer worker sends are kept, not rejected."""

    model_config = ConfigDict(extra="allow")


class ProbeConfig(_Strict):
    """What to measure. Defaults: the short suite for a 2-core CPU (LeNet + ResNet-18, every
    installed framework and mode)."""

    frameworks: list[Framework] = Field(default_factory=lambda: ["pytorch", "mindspore"])
    models: list[Model] = Field(default_factory=lambda: ["lenet", "resnet18"])
    modes: list[Mode] = Field(default_factory=lambda: ["eager", "compile", "graph", "pynative"])
    batch_size: int = Field(32, ge=1, le=4096)
    budget: float = Field(6.0, gt=0, le=3600, description="seconds of warmup + measurement per run")
    device: Literal["auto", "cpu", "cuda", "npu"] = "auto"
    threads: Optional[int] = Field(
        None,
        ge=1,
        description="threads in both frameworks; None = the cores "
        "found idle before each round (at most the usable cores)",
    )
    data: Optional[str] = Field(None, description="CIFAR-10 (bin or py layout) or MNIST idx folder")
    repeat: int = Field(
        2,
        ge=1,
        le=20,
        description="interleaved rounds per model (A B A B ...; median of "
        "medians, paired ratios between the runs); 2 is the "
        "fewest that give a paired interval",
    )
    max_repeat: Optional[int] = Field(
        3,
        ge=1,
        le=20,
        description="cap on rounds: while a comparison is not decidable, "
        "more rounds (each extra one at twice the budget, up to "
        "4x) up to this many; None = exactly `repeat` rounds",
    )
    parity: bool = True
    gemm: bool = Field(True, description="measure the on-host GEMM peak (the MFU basis)")
    tune: bool = Field(
        True,
        description="apply the measured host fixes (ONEDNN_MAX_CPU_ISA=AVX2 for "
        "MindSpore on AVX-512 hosts); False measures the untuned default",
    )
    max_steps: Optional[int] = Field(None, ge=2, description="hard cap on steps per run (tests)")
    timeout: Optional[float] = Field(None, gt=0, description="per-child timeout; None = from the budget")
    compile_cache_dir: Optional[str] = Field(
        None, description="TORCHINDUCTOR_CACHE_DIR; None = a folder under the user cache"
    )


# The quick profile (`advisor probe --quick`, the TUI's first run): each framework's default mode on
# LeNet-5 (PyTorch eager against MindSpore graph) in two interleaved rounds, the fewest that give a
# paired interval: about a minute on a 2-core host (benchmarks/probe_estimates.py). On a loaded host a
# round's runs can be graded unusable (another session took the core), which left a side with no usable
# run and the first report "not scored"; one extra round at twice the budget, only while a comparison is
# undecided, is the cap: measured here at a load of 2-8 on 2 cores, it adds 20-30 s (a LeNet-5 round of
# two children), so the profile stays under about 1.5 min.
QUICK = {"models": ["lenet"], "modes": ["eager", "graph"], "budget": 2.0, "repeat": 2, "max_repeat": 3}


class StepTime(_Open):
    n: int = 0
    median: Optional[float] = None
    mean: Optional[float] = None
    p10: Optional[float] = None
    p90: Optional[float] = None
    min: Optional[float] = None
    max: Optional[float] = None
    cv: Optional[float] = None
    iqr_over_median: Optional[float] = None


class ProbeRun(_Open):
    """One (framework, mode, model, batch size) run. Only status 'ok' carries measurements."""

    id: str = Field(description='e.g. "pytorch-eager-resnet18-bs32"')
    framework: Framework
    mode: Mode
    model: Model
    batch_size: int
    device: Optional[str] = None
    status: RunStatus
    error: Optional[str] = None
    images_per_second: Optional[float] = Field(None, description="measured images / measured seconds")
    images_per_second_median: Optional[float] = Field(None, description="batch / median step time: robust to stalls")
    ci95: Optional[list[float]] = Field(None, description="[low, high] images/s, 95% CI from batch means")
    step_time_ms: Optional[StepTime] = None
    first_step_seconds: Optional[float] = Field(None, description="first step alone (includes compile)")
    compile_seconds: Optional[float] = Field(None, description="first step minus a steady step (compile modes)")
    import_seconds: Optional[float] = None
    build_seconds: Optional[float] = None
    peak_memory_mb: Optional[float] = None
    memory_source: Optional[str] = None
    rss_after_import_mb: Optional[float] = Field(None, description="RSS baseline after the framework import")
    host_peak_rss_mb: Optional[float] = Field(None, description="VmHWM when peak_memory_mb is the device's")
    device_reserved_mb: Optional[float] = None
    train_flops_per_image: Optional[int] = Field(None, description="analytic conv+matmul FLOPs, fwd+bwd")
    achieved_gflops: Optional[float] = None
    mfu: Optional[float] = Field(None, description="achieved FLOP/s over this framework's on-host GEMM peak")
    mfu_vendor: Optional[float] = Field(None, description="achieved FLOP/s over the vendor fp32 peak (KB)")
    loss_first: Optional[float] = None
    loss_last: Optional[float] = None
    stop_reason: Optional[str] = Field(None, description="converged | budget | max_steps")
    warnings: list[str] = Field(default_factory=list)
    samples: Optional[int] = None
    steps_per_sample: Optional[int] = None
    measured_steps: Optional[int] = None
    total_steps: Optional[int] = Field(None, description="every step run, first and warmup included")
    measured_seconds: Optional[float] = None
    warmup_steps: Optional[int] = None
    warmup_seconds: Optional[float] = None
    warmup_capped: Optional[bool] = Field(None, description="warmup stopped at 25% of the budget")
    sample_step_ms: list[float] = Field(default_factory=list, description="raw per-step ms per sample")
    repeats: list[float] = Field(default_factory=list, description="images/s of each repeat (--repeat)")
    quality: Optional[Quality] = Field(
        None, description="stable | noisy | unusable by the rule in probes.quality (None when the run did not finish)"
    )
    quality_reasons: list[str] = Field(default_factory=list, description="each measure outside its stable bound")
    seconds: Optional[float] = Field(None, description="wall time of the child process")
    settings: dict = Field(default_factory=dict, description="everything set that changes the number")


class ParityCheck(_Open):
    name: str
    metric: str
    value: float
    tolerance: float
    ok: bool


class ParityResult(_Open):
    model: Model
    ok: bool
    status: Literal["ok", "failed", "skipped", "unavailable"] = "ok"
    max_abs_diff: Optional[float] = None
    checks: list[ParityCheck] = Field(default_factory=list)
    error: Optional[str] = None
    likely_cause: Optional[str] = None
    batch_size: Optional[int] = None


class PairedComparison(_Open):
    """Throughput of run a over run b of one model, from rounds measured in alternation."""

    model: Model
    a: str = Field(description="run id")
    b: str = Field(description="run id")
    ratio: Optional[float] = Field(None, description="images/s of a / images/s of b: geometric mean over pairs")
    ci95: Optional[list[float]] = Field(None, description="[low, high] of the ratio (t interval of the log ratios)")
    pairs: int = Field(0, description="rounds where both sides were usable")
    quality: Optional[Quality] = None
    decidable: bool = Field(False, description="False when the CI includes 1 or either side is unusable")
    reasons: list[str] = Field(default_factory=list)


class HostSummary(_Open):
    cpu_model: Optional[str] = None
    logical_cores: Optional[int] = None
    physical_cores: Optional[int] = None
    memory_total_mb: Optional[int] = None
    os: Optional[str] = None
    kernel: Optional[str] = None
    python: Optional[str] = None
    avx512: Optional[bool] = None
    fingerprint: Optional[str] = None
    loadavg_before: Optional[list[float]] = None
    loadavg_after: Optional[list[float]] = None
    steal_fraction: Optional[float] = Field(None, description="hypervisor steal time during the probe (0-1)")


class ProbeSuite(_Open):
    schema_version: str = SCHEMA_VERSION
    tool_version: Optional[str] = None
    created: Optional[str] = Field(None, description="UTC ISO timestamp")
    seconds: Optional[float] = None
    host: HostSummary = Field(default_factory=HostSummary)
    config: Optional[ProbeConfig] = None
    gemm_peak: dict[str, float] = Field(default_factory=dict, description="framework -> GFLOP/s (fp32 matmul, on host)")
    gemm_details: dict[str, dict] = Field(default_factory=dict)
    vendor_peak: Optional[dict] = Field(None, description="accelerator fp32 peak from the knowledge base")
    frameworks: dict[str, dict] = Field(default_factory=dict, description="name -> {installed, version}")
    runs: list[ProbeRun] = Field(default_factory=list)
    parity: list[ParityResult] = Field(default_factory=list)
    comparisons: list[PairedComparison] = Field(default_factory=list)
    adaptation: list[dict] = Field(
        default_factory=list, description="per model: rounds, budgets, threads, idle cores, and why the rounds stopped"
    )
    warnings: list[str] = Field(default_factory=list)

    def run(self, framework: str, mode: str, model: str) -> Optional[ProbeRun]:
        for r in self.runs:
            if (r.framework, r.mode, r.model) == (framework, mode, model):
                return r
        return None


class ProbeEvent(_Open):
    """Live progress: start / progress / done per run (run set on done)."""

    run_id: str
    kind: Literal["start", "progress", "done"]
    fraction: Optional[float] = None
    step_ms: Optional[float] = None
    images_per_second: Optional[float] = None
    run: Optional[ProbeRun] = None
    message: Optional[str] = None
    index: Optional[int] = Field(None, description="position of this job in the suite (1-based)")
    total: Optional[int] = None


def run_id(framework: str, mode: str, model: str, batch_size: int) -> str:
    return f"{framework}-{mode}-{model}-bs{batch_size}"
