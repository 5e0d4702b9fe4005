"""Runs the input-pipeline probe: every (framework, loader variant) in its own child, frameworks
alternating, on one uint8 image set prepared in the parent."""

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


def run_suite(
    config: PipelineConfig,
    cancel: Optional[launcher.Cancel] = None,
    on_event: Optional[Callable[[str, dict], None]] = None,
) -> PipelineSuite:
    start = time.monotonic()
    suite = PipelineSuite(config=config, created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
    with tempfile.TemporaryDirectory(prefix="advisor-pipeline-") as tmp:
        npz = Path(tmp) / "images.npz"
        suite.data = prepare(npz, config.data)
        for fw, variant, workers in plan(config):
            run_id = f"{fw}-{variant}-w{workers}"
            if on_event:
                on_event(run_id, {"kind": "start"})
            args = [
                "-m",
                WORKER[fw],
                "--npz",
                str(npz),
                "--variant",
                variant,
                "--workers",
                str(workers),
                "--batch-size",
                str(config.batch_size),
                "--batches",
                str(config.batches),
            ]
            if config.threads:
                args += ["--threads", str(config.threads)]
            out = launcher.run_child(args, timeout=config.timeout, cancel=cancel)
            if out.ok and out.result.get("status") == "ok":
                res = {k: v for k, v in out.result.items() if k not in ("kind", "status")}
                run = PipelineRun(
                    id=run_id, framework=fw, variant=variant, workers=workers, status="ok", seconds=out.seconds, **res
                )
            else:
                status = out.result.get("status") if out.ok else out.status
                error = out.result.get("error") if out.ok else out.error
                run = PipelineRun(
                    id=run_id,
                    framework=fw,
                    variant=variant,
                    workers=workers,
                    status=status if status in ("unavailable", "timeout", "cancelled") else "failed",
                    error=error,
                    seconds=out.seconds,
                )
            suite.runs.append(run)
            if on_event:
                on_event(run_id, {"kind": "done", "run": run})
            if cancel is not None and cancel.is_set():
                break
    suite.seconds = time.monotonic() - start
    return suite
