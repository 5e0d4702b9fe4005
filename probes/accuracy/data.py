"""The accuracy probe's data, prepared once in the parent and handed to every worker as one .npz
file, so both frameworks train on byte-identical arrays in the same order.

Digits: `sklearn.datasets.load_digits` (1,797 real 8x8 scans, values 0-16, shipped inside the wheel:
no download), upsampled 4x to LeNet's 32x32 by pixel repetition, scaled to 0-1 and normalised with the
training split's mean and std; a fixed stratified 75/25 split. The per-epoch shuffles come from the
seed, so a seed changes the order, never the weights (those are the probes' canonical ones).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np

SPLIT_SEED = 20240607  # fixed: every run, framework and host sees the same split
TEST_FRACTION = 0.25


def digits() -> tuple[np.ndarray, np.ndarray, str]:
    """(images (N, 1, 32, 32) float32 in 0-1, labels (N,) int32, description)."""
    from sklearn.datasets import load_digits

    d = load_digits()
    images = d.images.astype(np.float32) / 16.0  # (N, 8, 8), 0-1
    images = np.kron(images, np.ones((1, 4, 4), dtype=np.float32))  # (N, 32, 32), each pixel 4x4
    return images[:, None, :, :], d.target.astype(np.int32), "sklearn digits (1,797 real 8x8 scans, upsampled 4x)"


def user_data(path: str, limit: Optional[int] = 4000) -> tuple[np.ndarray, np.ndarray, str]:
    """The user's CIFAR-10 / MNIST files through the training probe's readers, as 1-channel 32x32
    (normalised there; `prepare` then re-normalises with the training split's statistics)."""
    from probes.training.data import _to_model, read_raw

    raw, labels, source = read_raw(path, limit=limit)
    check_split(labels, path)
    return _to_model(raw, "lenet"), labels.astype(np.int32), f"{source}:{Path(path).name}"


MIN_SAMPLES = 8  # the 75/25 split leaves at least 2 test and 6 training samples
MIN_PER_CLASS = 2  # a stratified split puts one of each class on each side


def check_split(labels: np.ndarray, where: str) -> None:
    """DataError naming the data when the stratified 75/25 split cannot be made (scikit-learn's own
    ValueError, raised in the parent after the workers' set-up, was an internal error)."""
    from probes.training.data import DataError

    if len(labels) < MIN_SAMPLES:
        raise DataError(
            f"{where}: {len(labels)} sample(s): the accuracy probe's 75/25 split needs at least {MIN_SAMPLES}"
        )
    classes, counts = np.unique(labels, return_counts=True)
    thin = [int(c) for c, n in zip(classes, counts) if n < MIN_PER_CLASS]
    if thin:
        raise DataError(
            f"{where}: class(es) {', '.join(map(str, thin[:10]))} with fewer than {MIN_PER_CLASS} samples: "
            "the accuracy probe's stratified split needs at least 2 of every class present"
        )


def check_user_data(path: str, limit: Optional[int] = 4000) -> None:
    """--data for the accuracy probe, checked in the parent before any worker (the CLI's check_data
    reads the format; this adds what the split needs). Raises DataError."""
    user_data(path, limit=limit)


def split(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stratified train / test indices, the same on every host."""
    from sklearn.model_selection import train_test_split

    index = np.arange(len(labels))
    train, test = train_test_split(index, test_size=TEST_FRACTION, stratify=labels, random_state=SPLIT_SEED)
    return np.sort(train), np.sort(test)


def prepare(out: Path, seed: int, epochs: int, data: Optional[str] = None) -> dict:
    """Write the arrays for one seed to `out` (.npz); return what describes them."""
    images, labels, source = user_data(data) if data else digits()
    train, test = split(labels)
    mean, std = float(images[train].mean()), float(images[train].std())
    norm = ((images - mean) / std).astype(np.float32)
    rng = np.random.default_rng(seed)
    orders = np.stack([rng.permutation(len(train)) for _ in range(epochs)]).astype(np.int32)
    np.savez(out, x_train=norm[train], y_train=labels[train], x_test=norm[test], y_test=labels[test], orders=orders)
    return {
        "source": source,
        "train_samples": int(len(train)),
        "test_samples": int(len(test)),
        "normalize_mean": round(mean, 6),
        "normalize_std": round(std, 6),
        "split_seed": SPLIT_SEED,
        "classes": int(labels.max()) + 1,
    }


def prepare_uint8(out: Path, n: int = 256) -> dict:
    """The first `n` digits as uint8 HWC 32x32x1 in 0-255 (what an image decoder hands a pipeline),
    with their labels, for the Normalize check."""
    images, labels, source = digits()
    raw = np.clip(np.rint(images[:n, 0] * 255.0), 0, 255).astype(np.uint8)[..., None]
    np.savez(out, images=raw, labels=labels[:n])
    return {"source": source, "samples": int(len(raw))}
