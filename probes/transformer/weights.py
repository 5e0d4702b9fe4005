"""One canonical initial weight set per GPT shape (seeded NumPy), loaded into both frameworks."""

from __future__ import annotations

import math

import numpy as np

from probes.training.weights import checksum
from probes.transformer import spec

DEFAULT_SEED = 20261201


def canonical(s: spec.Shape, seed: int = DEFAULT_SEED) -> dict[str, np.ndarray]:
    """{canonical name: float32 array} in spec.tensors order."""
    rng = np.random.default_rng(seed)
    out = {}
    for t in spec.tensors(s):
        if t.kind in ("embedding", "linear_weight"):
            std = spec.INIT_STD / (math.sqrt(2 * s.layers) if t.residual else 1.0)
            arr = rng.normal(0.0, std, t.shape)
        elif t.kind == "ln_weight":
            arr = np.ones(t.shape)
        else:
            arr = np.zeros(t.shape)
        out[t.name] = arr.astype(np.float32)
    return out


def canonical_checksum(s: spec.Shape, seed: int = DEFAULT_SEED) -> str:
    return checksum(canonical(s, seed))
