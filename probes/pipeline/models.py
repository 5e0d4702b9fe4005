"""Pydantic models of the input-pipeline probe."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.0"


class PipelineConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    frameworks: list[Literal["pytorch", "mindspore"]] = Field(default_factory=lambda: ["pytorch", "mindspore"])
    batch_size: int = Field(32, ge=1, le=1024)
    batches: int = Field(40, ge=2, le=10_000, description="timed batches per measurement")
    workers: Optional[int] = Field(None, ge=1, le=64, description="loader workers; None = usable cores (max 4)")
    threads: Optional[int] = Field(None, ge=1)
    data: Optional[str] = None
    timeout: float = Field(300, gt=0)
    passes: int = Field(
        3,
        ge=1,
        le=20,
        description="interleaved rounds: every variant timed once per round, in a fresh process (the training "
        "probe's --repeat protocol); the spread between passes grades each variant",
    )


class Rate(BaseModel):
    samples: int
    seconds: float
    samples_per_second: Optional[float] = None
    startup_seconds: Optional[float] = None


class PipelineRun(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    framework: str
    variant: str
    workers: int
    status: Literal["ok", "failed", "timeout", "cancelled", "unavailable"]
    error: Optional[str] = None
    alone: Optional[Rate] = Field(None, description="the pipeline alone")
    with_step: Optional[Rate] = Field(None, description="the pipeline feeding a LeNet-5 training step")
    step_only: Optional[Rate] = Field(None, description="the training step on one prepared batch")
    seconds: Optional[float] = None
    settings: dict = Field(default_factory=dict)
    # The protocol (probes.pipeline.runner.merge): the rates above are the median pass; these say how
    # far they can be trusted and whether the step starves, from the passes themselves. `passes` (timed
    # passes merged, 1 in older files) and `quality` (stable | noisy | unusable; None with one pass)
    # travel as extra fields, where advisor.decision.pipeline reads them (run.model_extra).
    repeats: list[float] = Field(default_factory=list, description="samples/s alone, one per pass, in round order")
    quality_reasons: list[str] = Field(default_factory=list)
    starved: Optional[bool] = Field(
        None,
        description="the pipeline alone slower than the step alone in every sense the passes allow; None: undecided",
    )
    feed_ratio: Optional[list[Optional[float]]] = Field(
        None, description="alone / step samples/s: [geometric mean, 95% low, 95% high] over paired passes"
    )
    verdict: Optional[str] = None


class PipelineSuite(BaseModel):
    model_config = ConfigDict(extra="allow")

    kind: Literal["pipeline"] = "pipeline"
    schema_version: str = SCHEMA_VERSION
    created: Optional[str] = None
    seconds: Optional[float] = None
    config: PipelineConfig
    data: dict = Field(default_factory=dict)
    runs: list[PipelineRun] = Field(default_factory=list)
