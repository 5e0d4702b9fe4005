"""What both accuracy workers share: arguments, batching and the per-epoch bookkeeping.
Standard library and numpy only (a worker imports this, numpy and its one framework)."""

from __future__ import annotations

import argparse
import time


def parser(framework: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"probes.accuracy.worker_{framework}")
    p.add_argument("--npz", required=True, help="arrays written by probes.accuracy.data.prepare")
    p.add_argument("--mode", required=True)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--target", type=float, default=0.95)
    p.add_argument("--stop-at-target", action="store_true", help="stop after the first epoch at the target")
    p.add_argument("--eval-batch", type=int, default=256)
    return p


def load(np, path: str) -> dict:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def epoch_batches(order, batch_size: int):
    """Index arrays of the full batches of one epoch (the last partial batch is dropped, in both
    frameworks, so every step has the same shape)."""
    full = len(order) // batch_size
    return [order[i * batch_size : (i + 1) * batch_size] for i in range(full)]


class Clock:
    """Train and eval seconds per epoch, kept apart; the first step's time apart too."""

    def __init__(self) -> None:
        self.epoch_seconds: list[float] = []
        self.eval_seconds: list[float] = []
        self.first_step_seconds: float | None = None
        self.step_seconds: list[float] = []

    @staticmethod
    def now() -> float:
        return time.perf_counter()
