"""What both pipeline workers share: arguments and the timing loop (stdlib + numpy only)."""

from __future__ import annotations

import argparse
import time


def parser(framework: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"probes.pipeline.worker_{framework}")
    p.add_argument("--npz", required=True, help="uint8 HWC images and labels")
    p.add_argument("--variant", required=True)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--batches", type=int, default=40, help="timed batches per measurement")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=0)
    return p


def timed(batches, count: int, warmup: int, step=None) -> dict:
    """Pull `warmup` then `count` batches (running `step` on each when given): samples/s."""
    it = iter(batches)
    first = time.perf_counter()
    for _ in range(warmup):
        batch = next(it)
        if step is not None:
            step(batch)
    start = time.perf_counter()
    samples = 0
    for _ in range(count):
        batch = next(it)
        if step is not None:
            step(batch)
        samples += len(batch[1])
    seconds = time.perf_counter() - start
    return {
        "samples": samples,
        "seconds": seconds,
        "samples_per_second": samples / seconds if seconds else None,
        "startup_seconds": start - first,
    }
