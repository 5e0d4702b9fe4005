"""Judging the input-pipeline probe: does the loader keep the training step fed, here and on the
target accelerator?

The seeds name the data pipeline as the bottleneck that leaves an NPU at 30% (the Ascend field
report, its data-pipeline section; the migration-route report on performance tuning): a pipeline
delivering fewer samples/s than the step consumes starves the step, and a host pipeline that keeps a
CPU step fed can still starve eight accelerators.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.findings import Finding, finding, said
from advisor.decision.probe_fields import data_source, pipeline_extra
from advisor.sanitize import quoted_label


def _passes(best: list) -> Finding:
    """How many timed passes the cited rates rest on, and how they were graded."""
    passes = min(b.passes for b in best)
    if passes <= 1:
        return finding("pipeline.passes.one")
    return finding("pipeline.passes.graded", passes=passes, grades=[b.quality for b in best])


def starved(run: Any) -> Optional[bool]:
    """True when the pipeline alone delivers fewer samples/s than the step alone consumes: the probe's own
    verdict over its interleaved passes where it made one, else the one-point comparison (older files)."""
    if run.starved is not None:
        return run.starved
    if run.status != "ok" or not run.alone or not run.step_only:
        return None
    if not run.alone.samples_per_second or not run.step_only.samples_per_second:
        return None
    return run.alone.samples_per_second < run.step_only.samples_per_second


def best_rate(suite: Any, framework: str) -> Optional[tuple[float, str]]:
    """The fastest loader variant of `framework` (samples/s alone, run id)."""
    rates = [
        (r.alone.samples_per_second, r.id)
        for r in suite.runs
        if r.framework == framework and r.status == "ok" and r.alone and r.alone.samples_per_second
    ]
    return max(rates) if rates else None


def feed_fraction(pipeline_rate: float, device_rate: float, devices: int) -> float:
    """Share of `devices` accelerators, each consuming `device_rate` samples/s, that one host's
    pipeline delivering `pipeline_rate` samples/s keeps busy (at most 1)."""
    need = device_rate * max(1, devices)
    return min(1.0, pipeline_rate / need) if need > 0 else 1.0


def verdict(run: Any) -> str:
    s = starved(run)
    if s is None:
        return run.error or run.status
    alone, step = run.alone.samples_per_second, run.step_only.samples_per_second
    return said("pipeline.starved" if s else "pipeline.keeps_up", alone=alone, step=step)


# --- the pipeline probe as report evidence ----------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PipelineRunJudgement(_Out):
    id: str
    framework: str
    variant: str
    workers: int
    status: str
    alone: Optional[float] = Field(None, description="samples/s the pipeline delivers alone")
    with_step: Optional[float] = Field(None, description="samples/s feeding the LeNet-5 training step")
    step_only: Optional[float] = Field(None, description="samples/s the training step alone consumes")
    samples: Optional[int] = Field(None, description="samples timed for `alone`")
    seconds: Optional[float] = None
    starved: Optional[bool] = None
    verdict: str


class PipelineBest(_Out):
    """The fastest loader variant of one framework: the rate a team that tunes its loader would get."""

    framework: str
    run_id: str
    variant: str
    workers: int
    samples_per_second: float
    samples: Optional[int] = None
    seconds: Optional[float] = None
    passes: int = Field(1, description="timed passes behind the rate (the probe's `passes`, else one)")
    quality: Optional[str] = Field(None, description="the probe's stability grade (stable | noisy | unusable)")


class PipelineEvidence(_Out):
    """The input-pipeline probe's result (`advisor probe --pipeline`) as the report reads it."""

    source: Literal["none", "file"] = "none"
    file: Optional[str] = None
    created: Optional[str] = None
    batch_size: Optional[int] = None
    data: Optional[str] = None
    runs: list[PipelineRunJudgement] = Field(default_factory=list)
    best: list[PipelineBest] = Field(default_factory=list)
    note: str = ""


class PipelineFeed(_Out):
    """One host's measured pipeline against the target's projected per-device step rate."""

    framework: str
    run_id: str
    samples_per_second: float = Field(description="measured: the pipeline alone, one host")
    hosts: float
    devices_per_host: int
    device_rate: list[float] = Field(description="projected samples/s per device [low, high]")
    fraction: list[float] = Field(description="share of a host's devices the pipeline keeps fed [low, high]")
    capped: bool = Field(description="the projected throughput was capped at hosts x the transferred rate")
    applied: bool = Field(True, description="the rate transfers to the target host and bounds the projection")
    host_rate: Optional[float] = Field(None, description="samples/s per target host by the transfer rule")
    rule: str = Field("", description="how the measured rate transfers to the target host, or why it does not")
    detail: str


NOT_MEASURED = said("pipeline.not_measured")


def _rate(r: Any) -> Optional[float]:
    return r.samples_per_second if r is not None else None


def pipeline_evidence(suite: Any, file: Optional[str] = None) -> PipelineEvidence:
    """Judge a PipelineSuite (or its JSON dict); None gives the 'not measured' evidence."""
    if suite is None:
        return PipelineEvidence(note=NOT_MEASURED)
    if isinstance(suite, dict):
        from probes.pipeline.models import PipelineSuite

        suite = PipelineSuite.model_validate(suite)
    runs = [
        PipelineRunJudgement(
            id=r.id,
            framework=r.framework,
            variant=r.variant,
            workers=r.workers,
            status=r.status,
            alone=_rate(r.alone),
            with_step=_rate(r.with_step),
            step_only=_rate(r.step_only),
            samples=r.alone.samples if r.alone else None,
            seconds=r.alone.seconds if r.alone else None,
            starved=starved(r),
            verdict=verdict(r),
        )
        for r in suite.runs
    ]
    best = []
    for fw in dict.fromkeys(r.framework for r in suite.runs):
        found = best_rate(suite, fw)
        if found is None:
            continue
        run = next(r for r in suite.runs if r.id == found[1])
        best.append(
            PipelineBest(
                framework=fw,
                run_id=run.id,
                variant=run.variant,
                workers=run.workers,
                samples_per_second=round(found[0], 3),
                samples=run.alone.samples,
                seconds=round(run.alone.seconds, 4),
                passes=int(pipeline_extra(run.model_extra).passes or 1),
                quality=pipeline_extra(run.model_extra).quality,
            )
        )
    data = data_source(suite.data)
    what = quoted_label(data.source or data.name or suite.config.data or said("pipeline.bundled_digits"))
    note = (
        said("pipeline.measured", data=what, batch=suite.config.batch_size, passes=_passes(best))
        if best
        else said("pipeline.no_run")
    )
    return PipelineEvidence(
        source="file",
        file=file,
        created=suite.created,
        batch_size=suite.config.batch_size,
        data=str(what),
        runs=runs,
        best=best,
        note=note,
    )


def feed_share(rate: float, low: float, high: float, devices: int, per_host: int) -> tuple:
    """One host's pipeline (`rate` samples/s) against a projected [low, high] total images/s on
    `devices` devices, `per_host` to a host: (hosts, devices on a host, per-device [low, high] rate,
    the fed share at the high and at the low end of the projection)."""
    devices = max(1, devices)
    on_host = min(devices, per_host)
    hosts = max(1.0, devices / per_host)
    d_low, d_high = low / devices, high / devices
    return hosts, on_host, d_low, d_high, feed_fraction(rate, d_high, on_host), feed_fraction(rate, d_low, on_host)


def transfer(best: PipelineBest, min_passes: float, workers_per_host: float) -> tuple[bool, float, Finding]:
    """(applies, samples/s per target host, the rule as a finding). The measuring host is not the target
    host: the rate transfers per loader worker to PIPELINE_WORKERS_PER_HOST workers, and only when it
    was timed over PIPELINE_MIN_PASSES passes and graded stable."""
    if best.passes < min_passes or best.quality != "stable":
        return (
            False,
            best.samples_per_second,
            finding("pipeline.rule.not_applied", passes=best.passes, quality=best.quality, min_passes=min_passes),
        )
    per_worker = best.samples_per_second / max(1, best.workers)
    host = per_worker * workers_per_host
    return (
        True,
        host,
        finding("pipeline.rule.per_worker", per_worker=per_worker, workers=workers_per_host, host=host),
    )


def pipeline_feed(
    best: PipelineBest,
    low: float,
    high: float,
    devices: int,
    per_host: int,
    where: str,
    min_passes: float = 3.0,
    workers_per_host: float = 32.0,
) -> PipelineFeed:
    """The measured pipeline against a projected [low, high] total images/s on `devices` devices
    (`per_host` to a host); capped when hosts x the transferred rate is below the projection and the
    rate transfers at all (advisor.decision.pipeline.transfer)."""
    applied, host_rate, rule = transfer(best, min_passes, workers_per_host)
    hosts, on_host, d_low, d_high, f_low, f_high = feed_share(host_rate, low, high, devices, per_host)
    cap = hosts * host_rate
    capped = applied and cap < high
    detail = said(
        "pipeline.feed",
        devices=devices,
        where=where,
        fed_low=f_low,
        fed_high=f_high,
        framework=best.framework,
        variant=best.variant,
        workers=best.workers,
        rate=best.samples_per_second,
        samples=best.samples,
        seconds=best.seconds,
        on_host=on_host,
        take_low=on_host * d_low,
        take_high=on_host * d_high,
        rule=rule,
        capped=capped,
        applied=applied,
        hosts=hosts,
        host_rate=host_rate,
        cap=cap,
    )
    return PipelineFeed(
        framework=best.framework,
        run_id=best.run_id,
        samples_per_second=best.samples_per_second,
        hosts=round(hosts, 3),
        devices_per_host=on_host,
        device_rate=[round(d_low, 3), round(d_high, 3)],
        fraction=[round(f_low, 4), round(f_high, 4)],
        capped=capped,
        applied=applied,
        host_rate=round(host_rate, 3),
        rule=str(rule),
        detail=detail,
    )
