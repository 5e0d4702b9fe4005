"""Pydantic models of the transformer probe (kind "gpt"): its configuration, one timed run, the
dynamic-shape ways, the attention kernels, parity and the whole result. The workers send plain
dicts; the parent validates them here (workers never import pydantic)."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

from probes.training.models import HostSummary, ParityCheck, StepTime

SCHEMA_VERSION = "1.0"

Framework = Literal["pytorch", "mindspore"]
Mode = Literal["eager", "compile", "graph", "pynative"]
Way = Literal["padded", "bucketed", "variable"]
Variant = Literal["eager", "compile", "compile-dynamic", "graph", "graph-dynamic", "pynative"]
RunStatus = Literal["ok", "failed", "timeout", "unavailable", "cancelled"]
Quality = Literal["stable", "noisy", "unusable"]

MODES_OF: dict[str, tuple[str, ...]] = {"pytorch": ("eager", "compile"), "mindspore": ("graph", "pynative")}
# The dynamic-shape variants: (framework, the mode they need, what they are)
VARIANTS: dict[str, tuple[str, str, str]] = {
    "eager": ("pytorch", "eager", "PyTorch eager"),
    "compile": ("pytorch", "compile", "torch.compile (default: static, then automatic dynamic)"),
    "compile-dynamic": ("pytorch", "compile", "torch.compile(dynamic=True)"),
    "graph": ("mindspore", "graph", "MindSpore GRAPH_MODE, static shapes"),
    "graph-dynamic": ("mindspore", "graph", "MindSpore GRAPH_MODE, Cell.set_inputs dynamic dims"),
    "pynative": ("mindspore", "pynative", "MindSpore PYNATIVE_MODE"),
}
WAYS: tuple[str, ...] = ("padded", "bucketed", "variable")
# The variants measured by default: an eager framework's baseline, both frameworks' compilers with
# dynamic dimensions and MindSpore's static graph (the decision reads graph and graph-dynamic). The
# other two (torch.compile's default, static then automatic dynamic: two cold compiles per way, the
# costliest child; PyNative, eager like PyTorch eager) are measured when asked for (--dynamic all).
DEFAULT_VARIANTS: tuple[str, ...] = ("eager", "compile-dynamic", "graph", "graph-dynamic")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class GptConfig(_Strict):
    """What to measure. Defaults: a GPT small enough for a 2-core CPU (4 layers, hidden 256,
    4 heads, sequence 128, vocabulary 8192), every framework and mode, parity, the dynamic ways."""

    frameworks: list[Framework] = Field(default_factory=lambda: ["pytorch", "mindspore"])
    modes: list[Mode] = Field(default_factory=lambda: ["eager", "compile", "graph", "pynative"])
    layers: int = Field(4, ge=1, le=48)
    hidden: int = Field(256, ge=8, le=8192)
    heads: int = Field(4, ge=1, le=128)
    seq: int = Field(128, ge=8, le=8192, description="the maximum sequence length (positions)")
    vocab: int = Field(8192, ge=16, le=262144)
    batch_size: int = Field(8, ge=1, le=1024, description="sequences per step")
    budget: float = Field(6.0, gt=0, le=3600, description="seconds of warmup + measurement per run")
    threads: Optional[int] = Field(None, ge=1, description="None = the cores found idle before each round")
    repeat: int = Field(2, ge=1, le=20, description="interleaved rounds (A B C D A B C D ...)")
    max_repeat: Optional[int] = Field(3, ge=1, le=20, description="cap on rounds while a comparison is undecided")
    parity: bool = True
    gemm: bool = Field(True, description="measure the on-host GEMM peak (the MFU basis)")
    attention: bool = Field(True, description="report the attention kernels and time SDPA against written-out")
    dynamic: bool = Field(True, description="measure the padded / bucketed / variable-length ways")
    # the schedule's defaults keep the default probe within minutes on a 2-core host: 8 batches over 4
    # lengths, twice (16 batches of 8 lengths three times took ~70 min of an 88-min default run there)
    dynamic_variants: list[Variant] = Field(default_factory=lambda: list(DEFAULT_VARIANTS))
    dynamic_ways: list[Way] = Field(default_factory=lambda: list(WAYS))
    dynamic_steps: int = Field(8, ge=2, le=1000, description="batches in the variable-length schedule")
    dynamic_distinct: int = Field(4, ge=2, le=256, description="distinct lengths in that schedule")
    dynamic_passes: int = Field(2, ge=2, le=100, description="passes over the schedule (the first compiles)")
    tune: bool = Field(True, description="ONEDNN_MAX_CPU_ISA=AVX2 for MindSpore on AVX-512 hosts, as the CNN probe")
    max_steps: Optional[int] = Field(None, ge=2, description="hard cap on steps per timed run (tests)")
    timeout: Optional[float] = Field(None, gt=0, description="per-child timeout; None = from the budget")
    compile_cache_dir: Optional[str] = Field(None, description="TORCHINDUCTOR_CACHE_DIR root")

    @model_validator(mode="after")
    def _shape(self) -> "GptConfig":
        if self.hidden % self.heads:
            raise ValueError(f"hidden {self.hidden} must be a multiple of heads {self.heads}")
        if self.dynamic_distinct > self.seq - max(2, self.seq // 4) + 1:
            raise ValueError(f"dynamic_distinct {self.dynamic_distinct} exceeds the lengths seq/4..seq offers")
        return self


# The quick profile (`advisor probe --models gpt --quick`): each framework's default mode (PyTorch eager
# against MindSpore graph) in two interleaved rounds, no extra round, and the dynamic-shape cost of those
# two modes on a short schedule (padded against truly variable): a few minutes on a 2-core host
# (benchmarks/probe_estimates.py), where the full default measures every mode and way.
GPT_QUICK: dict = {
    "modes": ["eager", "graph"],
    "budget": 2.0,
    "repeat": 2,
    "max_repeat": 2,
    "attention": False,
    "dynamic_variants": ["eager", "graph"],
    "dynamic_ways": ["padded", "variable"],
    "dynamic_steps": 6,
    "dynamic_distinct": 3,
    "dynamic_passes": 2,
}


class GptRun(_Open):
    """One (framework, mode) timed run of the fixed-length batches. Only status 'ok' has numbers."""

    id: str = Field(description='e.g. "pytorch-eager-gpt"')
    framework: Framework
    mode: Mode
    status: RunStatus
    error: Optional[str] = None
    device: Optional[str] = None
    tokens_per_step: Optional[int] = None
    tokens_per_second: Optional[float] = Field(None, description="measured tokens / measured seconds")
    tokens_per_second_median: Optional[float] = None
    ci95: Optional[list[float]] = Field(None, description="[low, high] tokens/s, 95% CI from batch means")
    step_time_ms: Optional[StepTime] = None
    first_step_seconds: Optional[float] = None
    compile_seconds: Optional[float] = Field(None, description="first step minus a steady step (compile modes)")
    graph_compiles: Optional[int] = None
    import_seconds: Optional[float] = None
    build_seconds: Optional[float] = None
    peak_memory_mb: Optional[float] = None
    memory_source: Optional[str] = None
    rss_after_import_mb: Optional[float] = None
    train_flops_per_token: Optional[int] = Field(None, description="6N + 12LHS (probes.transformer.flops)")
    flop_counter: Optional[dict] = Field(None, description="torch FlopCounterMode cross-check (eager run)")
    achieved_gflops: Optional[float] = None
    mfu: Optional[float] = Field(None, description="achieved FLOP/s over this framework's on-host GEMM peak")
    loss_first: Optional[float] = None
    loss_last: Optional[float] = None
    stop_reason: Optional[str] = None
    warnings: list[str] = Field(default_factory=list)
    samples: Optional[int] = None
    steps_per_sample: Optional[int] = None
    measured_steps: Optional[int] = None
    total_steps: Optional[int] = None
    measured_seconds: Optional[float] = None
    warmup_steps: Optional[int] = None
    warmup_seconds: Optional[float] = None
    warmup_capped: Optional[bool] = None
    sample_step_ms: list[float] = Field(default_factory=list)
    repeats: list[float] = Field(default_factory=list, description="tokens/s of each round")
    quality: Optional[Quality] = None
    quality_reasons: list[str] = Field(default_factory=list)
    seconds: Optional[float] = None
    settings: dict = Field(default_factory=dict)


class DynamicWay(_Open):
    way: Way
    steps: int
    passes: int
    distinct_lengths: int
    shapes: list[int] = Field(description="sequence lengths the framework saw")
    compiles: int
    compiles_source: str
    compile_seconds: float = Field(description="sum over compiling steps of (step time - its steady time)")
    stall_steps: int = Field(0, description="slow steps without a new graph (lazy backward graphs, new kernels)")
    stall_seconds: float = 0.0
    total_seconds: float
    steady_tokens_per_second: Optional[float] = Field(None, description="real tokens/s over the last pass")
    end_to_end_tokens_per_second: Optional[float] = Field(None, description="real tokens/s, compiles included")
    padding_share: float = Field(description="share of the computed tokens that were padding")
    first_step_seconds: Optional[float] = None
    loss_first: Optional[float] = None
    loss_last: Optional[float] = None


class DynamicRun(_Open):
    id: str
    framework: Framework
    variant: Variant
    status: RunStatus
    error: Optional[str] = None
    how: Optional[str] = None
    compiles_counter: Optional[str] = None
    ways: list[DynamicWay] = Field(default_factory=list)
    seconds: Optional[float] = None
    peak_memory_mb: Optional[float] = None


class DynamicVerdict(_Open):
    """One variant's variable-length cost: truly variable against the best padded/bucketed way."""

    framework: Framework
    variant: Variant
    compiles: dict[str, int] = Field(default_factory=dict, description="way -> graph compiles")
    compile_seconds: dict[str, float] = Field(default_factory=dict)
    variable_cost: Optional[float] = Field(
        None, description="1 - end-to-end tokens/s of variable / of the best other way (compiles included)"
    )
    variable_steady_cost: Optional[float] = Field(None, description="the same on steady tokens/s (compiles excluded)")
    best_way: Optional[Way] = None
    text: str


class AttentionKernel(_Open):
    framework: Framework
    fused: Optional[str] = None
    backend: Optional[str] = Field(None, description="the kernel actually selected here, or 'not available on CPU'")
    available: Optional[bool] = None
    error: Optional[str] = None
    step_ms: dict[str, float] = Field(default_factory=dict, description="training step ms: sdpa vs manual (torch)")
    sdpa_over_manual: Optional[float] = Field(None, description="manual step time / SDPA step time (>1: SDPA faster)")


class GptParity(_Open):
    ok: bool
    status: Literal["ok", "failed", "skipped", "unavailable"] = "ok"
    batch_size: Optional[int] = None
    checks: list[ParityCheck] = Field(default_factory=list)
    tolerance_derivation: Optional[dict] = None
    conventions: list[str] = Field(default_factory=list, description="framework defaults that differ, and what ran")
    error: Optional[str] = None
    likely_cause: Optional[str] = None


class GptComparison(_Open):
    """tokens/s of run a over run b, from rounds measured in alternation (probes.quality)."""

    a: str
    b: str
    ratio: Optional[float] = None
    ci95: Optional[list[float]] = None
    pairs: int = 0
    decidable: bool = False
    reasons: list[str] = Field(default_factory=list)


class GptResult(_Open):
    schema_version: str = SCHEMA_VERSION
    kind: Literal["gpt"] = "gpt"
    tool_version: Optional[str] = None
    created: Optional[str] = None
    seconds: Optional[float] = None
    host: HostSummary = Field(default_factory=HostSummary)
    config: Optional[GptConfig] = None
    param_count: Optional[int] = None
    weights_checksum: Optional[str] = None
    flops: dict = Field(default_factory=dict, description="the FLOPs/token formula and its terms")
    gemm_peak: dict[str, float] = Field(default_factory=dict, description="framework -> GFLOP/s fp32 matmul here")
    gemm_details: dict[str, dict] = Field(
        default_factory=dict, description="framework -> how the peak was measured (other processes' busy cores)"
    )
    frameworks: dict[str, dict] = Field(default_factory=dict)
    runs: list[GptRun] = Field(default_factory=list)
    comparisons: list[GptComparison] = Field(default_factory=list)
    parity: Optional[GptParity] = None
    attention: list[AttentionKernel] = Field(default_factory=list)
    dynamic: list[DynamicRun] = Field(default_factory=list)
    dynamic_verdicts: list[DynamicVerdict] = Field(default_factory=list)
    verdicts: list[str] = Field(default_factory=list, description="the findings in sentences")
    adaptation: dict = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)


class GptEvent(_Open):
    """Live progress: start / progress / done per child (run set on done)."""

    run_id: str
    kind: Literal["start", "progress", "done"]
    fraction: Optional[float] = None
    step_ms: Optional[float] = None
    tokens_per_second: Optional[float] = None
    message: Optional[str] = None
    index: Optional[int] = None
    total: Optional[int] = None


def run_id(framework: str, mode: str) -> str:
    return f"{framework}-{mode}-gpt"
