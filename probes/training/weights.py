"""One canonical initial weight set per model, generated with seeded NumPy and loaded into both
frameworks, so both start from exactly the same point (the checksum goes into every result).

Init: He-normal convs (fan_out, as torchvision ResNets), PyTorch-default uniform for Linear,
BN gamma=1 beta=0, running mean 0 var 1, the ResNets' last BN of each block at gamma=1.
"""

from __future__ import annotations

import hashlib
import math
from functools import lru_cache

import numpy as np

from probes.training import specs

DEFAULT_SEED = 20240601


def _init(t: specs.Tensor, rng: np.random.Generator, fan_in_of: dict) -> np.ndarray:
    shape = t.shape
    if t.kind == "conv_weight":
        fan_out = shape[0] * shape[2] * shape[3]
        return rng.normal(0.0, math.sqrt(2.0 / fan_out), shape)
    if t.kind == "linear_weight":
        bound = 1.0 / math.sqrt(shape[1])
        return rng.uniform(-bound, bound, shape)
    if t.kind in ("linear_bias", "conv_bias"):
        bound = 1.0 / math.sqrt(fan_in_of[t.name])
        return rng.uniform(-bound, bound, shape)
    if t.kind in ("bn_weight", "bn_var"):
        return np.ones(shape)
    return np.zeros(shape)  # bn_bias, bn_mean


@lru_cache(maxsize=4)
def _canonical(model: str, seed: int) -> tuple:
    specs.check_model(model)
    rng = np.random.default_rng(seed)
    fan_in_of = {}
    for t in specs.tensors(model):
        if t.kind in ("conv_weight", "linear_weight"):
            fan = int(np.prod(t.shape[1:]))
            fan_in_of[t.name.rsplit(".", 1)[0] + ".bias"] = fan
    return tuple((t.name, _init(t, rng, fan_in_of).astype(np.float32)) for t in specs.tensors(model))


def canonical(model: str, seed: int = DEFAULT_SEED) -> dict[str, np.ndarray]:
    """{canonical name: float32 array} in state_dict order. Copies: callers may modify them."""
    return {name: arr.copy() for name, arr in _canonical(model, seed)}


def checksum(arrays: dict[str, np.ndarray]) -> str:
    """sha256 over names, shapes and float32 bytes in order (first 16 hex digits)."""
    h = hashlib.sha256()
    for name, arr in arrays.items():
        a = np.ascontiguousarray(arr, dtype=np.float32)
        h.update(name.encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def canonical_checksum(model: str, seed: int = DEFAULT_SEED) -> str:
    return checksum(dict(_canonical(model, seed)))


def mindspore_names(model: str) -> dict[str, str]:
    """Canonical name -> MindSpore parameter name."""
    return {t.name: specs.mindspore_name(t) for t in specs.tensors(model)}
