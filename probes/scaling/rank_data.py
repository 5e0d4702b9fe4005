"""INTERIM: per-rank synthetic batch until probes/training/data.py lands (seed offset by rank)."""

from __future__ import annotations


def batch(model: str, batch_size: int, rank: int):
    import numpy as np

    rng = np.random.default_rng(1234 + rank)
    c = 1 if model == "lenet" else 3
    x = rng.standard_normal((batch_size, c, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, batch_size).astype(np.int32)
    return x, y
