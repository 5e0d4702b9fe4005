"""One canonical initial weight set per GPT shape (seeded NumPy), loaded into both frameworks; its checksum
is the one the workers compute over the arrays they loaded (probes.training.weights.checksum)."""

from __future__ import annotations

import math

import numpy as np

from probes.training.weights import checksum
from probes.transformer import spec

__all__ = ["canonical", "checksum"]

DEFAULT_SEED = 20261201


def canonical(s: spec.Shape, seed: int = DEFAULT_SEED) -> dict[str, np.ndarray]:
    """{canonical name: float32 array} in spec.tensors order, drawn at float32 (the workers' precision):
    a float64 draw first would take twice the memory of the weights for nothing. Made in the worker
    only, after its memory check (probes.transformer.memory)."""
    rng = np.random.default_rng(seed)
    out = {}
    for t in spec.tensors(s):
        if t.kind in ("embedding", "linear_weight"):
            std = spec.INIT_STD / (math.sqrt(2 * s.layers) if t.residual else 1.0)
            arr = rng.standard_normal(t.shape, dtype=np.float32)
            arr *= np.float32(std)
        elif t.kind == "ln_weight":
            arr = np.ones(t.shape, dtype=np.float32)
        else:
            arr = np.zeros(t.shape, dtype=np.float32)
        out[t.name] = arr
    return out
