"""Pydantic models of the accuracy probe: what to run, one run, the whole suite."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.0"
RUNS = {"pytorch": ("eager", "compile"), "mindspore": ("graph", "pynative")}


class AccuracyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    frameworks: list[Literal["pytorch", "mindspore"]] = Field(default_factory=lambda: ["pytorch", "mindspore"])
    modes: list[Literal["eager", "compile", "graph", "pynative"]] = Field(
        default_factory=lambda: ["eager", "graph"],
        description="eager and graph by default: compile and pynative add minutes on a 2-core host",
    )
    epochs: int = Field(8, ge=1, le=200)
    seeds: int = Field(3, ge=1, le=10, description="data orders; runs interleaved seed by seed")
    target: float = Field(0.95, gt=0, le=1, description="test accuracy to reach")
    batch_size: int = Field(32, ge=1, le=1024)
    lr: float = Field(0.01, gt=0, le=10)
    threads: Optional[int] = Field(None, ge=1)
    data: Optional[str] = Field(None, description="CIFAR-10 / MNIST folder instead of the bundled digits")
    timeout: float = Field(900, gt=0, description="per-run child timeout, seconds")


class AccuracyRun(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    framework: str
    mode: str
    seed: int
    status: Literal["ok", "failed", "timeout", "cancelled", "unavailable"]
    error: Optional[str] = None
    accuracy: list[float] = Field(default_factory=list, description="test accuracy after each epoch")
    loss: list[float] = Field(default_factory=list, description="mean training loss of each epoch")
    epoch_seconds: list[float] = Field(default_factory=list, description="training wall time of each epoch")
    eval_seconds: list[float] = Field(default_factory=list)
    first_step_seconds: Optional[float] = None
    compile_seconds: Optional[float] = Field(None, description="first step minus a median step")
    final_accuracy: Optional[float] = None
    epochs_to_target: Optional[int] = None
    seconds_to_target: Optional[float] = Field(None, description="training wall time to the target, compile included")
    seconds_to_target_steady: Optional[float] = Field(None, description="the same without the compile time")
    seconds: Optional[float] = Field(None, description="wall time of the child process")
    settings: dict = Field(default_factory=dict)


class AccuracyGap(BaseModel):
    """Final test accuracy of run a minus run b, per seed (same data order), and its spread."""

    a: str
    b: str
    per_seed: list[float]
    mean: float
    ci95: list[float]
    max_abs: float


class AccuracySuite(BaseModel):
    model_config = ConfigDict(extra="allow")

    kind: Literal["accuracy"] = "accuracy"
    schema_version: str = SCHEMA_VERSION
    created: Optional[str] = None
    seconds: Optional[float] = None
    config: AccuracyConfig
    data: dict = Field(default_factory=dict, description="source, split sizes, normalisation")
    runs: list[AccuracyRun] = Field(default_factory=list)
    gaps: list[AccuracyGap] = Field(default_factory=list)
    normalize_check: Optional[dict] = None
    warnings: list[str] = Field(default_factory=list)
