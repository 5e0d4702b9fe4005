"""Runs the input-pipeline probe: every (framework, loader variant) in its own child, frameworks
alternating, on one uint8 image set prepared in the parent; config.passes interleaved rounds, each
variant merged and graded like a training probe run, with its own starved-or-not verdict."""

from __future__ import annotations

import datetime as dt
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from probes import hostfacts, launcher
from probes.pipeline.models import PipelineConfig, PipelineRun, PipelineSuite

WORKER = {"pytorch": "probes.pipeline.worker_torch", "mindspore": "probes.pipeline.worker_mindspore"}


def default_workers() -> int:
    return max(2, min(hostfacts.usable_cores(), 4))


def plan(config: PipelineConfig) -> list[tuple[str, str, int]]:
    """(framework, variant, workers): each framework's in-process loader, then its parallel ones,
    alternating frameworks so host drift moves both."""
    n = config.workers or default_workers()
    torch_jobs = [("pytorch", "dataloader", 0), ("pytorch", "dataloader", n)]
    ms_jobs = [("mindspore", "generator", n), ("mindspore", "vision", n), ("mindspore", "generator-mp", n)]
    jobs: list[tuple[str, str, int]] = []
    for pair in zip(torch_jobs + [None], ms_jobs):
        jobs += [j for j in pair if j is not None]
    return [j for j in jobs if j[0] in config.frameworks]


def prepare(out: Path, data: Optional[str]) -> dict:
    """uint8 HWC images: the user's CIFAR-10 / MNIST files, or the digits at 32x32 (0-255)."""
    if data:
        from probes.training.data import read_raw

        raw, labels, source = read_raw(data, limit=4096)
        images = raw.transpose(0, 2, 3, 1)
        if images.shape[1] == 28:
            images = np.pad(images, ((0, 0), (2, 2), (2, 2), (0, 0)))
        if images.shape[-1] == 3:  # LeNet-5 takes one channel: the same grey conversion as the probes
            images = np.rint(images @ np.array([0.299, 0.587, 0.114]))[..., None]
        images = images.astype(np.uint8)
    else:
        from probes.accuracy.data import digits

        x, labels, source = digits()
        images = np.clip(np.rint(x[:, 0] * 255.0), 0, 255).astype(np.uint8)[..., None]
    np.savez(out, images=images, labels=labels.astype(np.int32))
    return {"source": source, "samples": int(len(images)), "shape": list(images.shape[1:]), "dtype": "uint8"}


def _one(fw: str, variant: str, workers: int, npz: Path, config: PipelineConfig, cancel) -> PipelineRun:
    """One timed pass of one variant, in its own child."""
    run_id = f"{fw}-{variant}-w{workers}"
    args = ["-m", WORKER[fw], "--npz", str(npz), "--variant", variant, "--workers", str(workers)]
    args += ["--batch-size", str(config.batch_size), "--batches", str(config.batches)]
    if config.threads:
        args += ["--threads", str(config.threads)]
    out = launcher.run_child(args, timeout=config.timeout, cancel=cancel)
    if out.ok and out.result.get("status") == "ok":
        res = {k: v for k, v in out.result.items() if k not in ("kind", "status")}
        return PipelineRun(
            id=run_id, framework=fw, variant=variant, workers=workers, status="ok", seconds=out.seconds, **res
        )
    status = out.result.get("status") if out.ok else out.status
    error = out.result.get("error") if out.ok else out.error
    return PipelineRun(
        id=run_id,
        framework=fw,
        variant=variant,
        workers=workers,
        status=status if status in ("unavailable", "timeout", "cancelled") else "failed",
        error=error,
        seconds=out.seconds,
    )


def _rate(run: PipelineRun, part: str) -> Optional[float]:
    rate = getattr(run, part)
    return rate.samples_per_second if rate is not None else None


def merge(passes: list[PipelineRun]) -> PipelineRun:
    """The passes of one variant as one run, under the training probe's protocol (probes.quality):
    the median pass's rates; graded by the min-max spread of the alone rates (REPEAT_SPREAD), one
    pass left ungraded; starved decided from the paired alone/step ratios of the passes (a t
    interval that excludes 1), never from a ratio the spread cannot separate from 1."""
    from probes.quality import MIN_PAIRS, REPEAT_SPREAD, _grade, paired_ratio, repeat_spread

    ok = [p for p in passes if p.status == "ok" and _rate(p, "alone") and _rate(p, "step_only")]
    if not ok:
        last = passes[-1].model_copy(deep=True)
        last.passes, last.quality, last.verdict = len(passes), None, last.error or last.status
        return last
    rates = [_rate(p, "alone") for p in ok]
    body = sorted(ok, key=lambda p: _rate(p, "alone"))[(len(ok) - 1) // 2].model_copy(deep=True)
    body.passes, body.quality = len(ok), None  # extra fields (see PipelineRun)
    body.repeats = [round(r, 3) for r in rates]
    body.seconds = round(sum(p.seconds or 0.0 for p in passes), 3)
    if len(passes) > len(ok):
        body.quality_reasons.append(f"{len(passes) - len(ok)} of {len(passes)} passes failed, left out")
    if len(ok) >= 2:
        body.quality, reason = _grade(repeat_spread(rates), REPEAT_SPREAD, f"spread between {len(ok)} passes (min-max)")
        if reason:
            body.quality_reasons.append(reason)
    ratio = paired_ratio([(_rate(p, "alone"), _rate(p, "step_only")) for p in ok])
    if ratio is not None:
        body.feed_ratio = [round(v, 4) if v is not None else None for v in ratio]
        mean, low, high = ratio
        if len(ok) < MIN_PAIRS or low is None:
            body.verdict = f"undecided: one pass ({mean:.2f}x the step's rate), no spread to decide on"
        elif body.quality == "unusable":
            body.verdict = f"undecided: the passes disagree too much ({'; '.join(body.quality_reasons)})"
        elif high < 1:
            body.starved = True
            body.verdict = f"starved: the pipeline delivers {mean:.2f}x the step's rate (95% {low:.2f}-{high:.2f})"
        elif low > 1:
            body.starved = False
            body.verdict = f"keeps up: {mean:.2f}x the step's rate (95% {low:.2f}-{high:.2f})"
        else:
            body.verdict = f"undecided: {mean:.2f}x the step's rate, 95% {low:.2f}-{high:.2f} includes 1"
    return body


def run_suite(
    config: PipelineConfig,
    cancel: Optional[launcher.Cancel] = None,
    on_event: Optional[Callable[[str, dict], None]] = None,
) -> PipelineSuite:
    """config.passes interleaved rounds (A B C ... A B C ..., fresh processes, frameworks alternating
    inside a round): host drift moves every variant alike; each variant merged from its passes."""
    start = time.monotonic()
    suite = PipelineSuite(config=config, created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
    jobs = plan(config)
    missing = hostfacts.missing_frameworks(config.frameworks)  # no child: its worker would say so after an import
    passes: dict[str, list[PipelineRun]] = {}
    with tempfile.TemporaryDirectory(prefix="advisor-pipeline-") as tmp:
        npz = Path(tmp) / "images.npz"
        suite.data = prepare(npz, config.data)
        for round_no in range(config.passes):
            for fw, variant, workers in jobs:
                run_id = f"{fw}-{variant}-w{workers}"
                if on_event and round_no == 0:
                    on_event(run_id, {"kind": "start"})
                if fw in missing:
                    run = PipelineRun(id=run_id, framework=fw, variant=variant, workers=workers, status="unavailable",
                                      error=hostfacts.not_installed_reason(fw))  # fmt: skip
                else:
                    run = _one(fw, variant, workers, npz, config, cancel)
                passes.setdefault(run_id, []).append(run)
                if on_event:  # epoch/epochs: the progress fields the accuracy probe's events use
                    on_event(run_id, {"kind": "pass", "epoch": round_no + 1, "epochs": config.passes, "run": run})
                if cancel is not None and cancel.is_set():
                    break
            if cancel is not None and cancel.is_set():
                break
    for run_id, runs in passes.items():
        run = merge(runs)
        suite.runs.append(run)
        if on_event:
            on_event(run_id, {"kind": "done", "run": run})
    suite.seconds = time.monotonic() - start
    return suite
