"""The augmentation both frameworks' Python pipelines run, in NumPy (no torchvision): the same ops,
the same order, so a difference in rate is the loader's, not the transform's. Standard library and
numpy only (the workers import it)."""

from __future__ import annotations

import numpy as np

PAD = 4
MEAN, STD = 0.5 * 255, 0.25 * 255  # on 0-255 input, as MindSpore's vision.Normalize expects


def augment(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """uint8 HWC -> float32 CHW: random 32x32 crop of the 4-pixel zero-padded image, random
    horizontal flip, normalise."""
    h, w = image.shape[:2]
    padded = np.pad(image, ((PAD, PAD), (PAD, PAD), (0, 0)))
    top, left = rng.integers(0, 2 * PAD + 1, size=2)
    out = padded[top : top + h, left : left + w]
    if rng.random() < 0.5:
        out = out[:, ::-1]
    out = (out.astype(np.float32) - MEAN) / STD
    return np.ascontiguousarray(out.transpose(2, 0, 1))
