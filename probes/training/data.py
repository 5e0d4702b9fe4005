"""Training batches, identical in both frameworks: seeded synthetic (a learnable task) or real
CIFAR-10 (binary `cifar-10-batches-bin` or Python pickle `cifar-10-batches-py` layout) and MNIST
(idx, optionally .gz). NumPy only: each worker converts the arrays to its own tensors.

Images come out float32 NCHW at 32x32, normalised; labels int32 (MindSpore's sparse CE wants int32;
torch workers convert to int64). LeNet takes 1 channel (CIFAR converted to grey), the ResNets 3
(MNIST repeated to 3 channels, padded 28 -> 32).
"""

from __future__ import annotations

import gzip
import pickle
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from probes.training import specs

DATA_SEED = 12345
CIFAR_RECORD = 1 + 3 * 32 * 32


class DataError(ValueError):
    """A data path that cannot be read; the message names the file and what is expected."""


@dataclass
class Batches:
    images: np.ndarray  # (n_batches, batch, C, 32, 32) float32
    labels: np.ndarray  # (n_batches, batch) int32
    source: str  # "synthetic" or a description of the files read

    def __len__(self) -> int:
        return int(self.images.shape[0])


def synthetic(model: str, batch_size: int, n_batches: int = 8, seed: int = DATA_SEED) -> Batches:
    """Seeded learnable batches: each class is a fixed random template plus noise, so a network
    can learn the task and the loss must fall within a few steps."""
    c = specs.input_channels(model)
    rng = np.random.default_rng(seed)
    templates = rng.normal(0.0, 1.0, (specs.NUM_CLASSES, c, 32, 32)).astype(np.float32)
    labels = rng.integers(0, specs.NUM_CLASSES, (n_batches, batch_size)).astype(np.int32)
    noise = rng.normal(0.0, 1.0, (n_batches, batch_size, c, 32, 32)).astype(np.float32)
    images = templates[labels] * 0.5 + noise * 0.5
    return Batches(np.ascontiguousarray(images, dtype=np.float32), labels, "synthetic")


# ---------------------------------------------------------------- readers (raw uint8 NHWC/NCHW)


def read_cifar_bin(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """One CIFAR-10 binary file: records of 1 label byte + 3072 pixel bytes (CHW)."""
    raw = np.fromfile(path, dtype=np.uint8)
    if raw.size == 0 or raw.size % CIFAR_RECORD:
        raise DataError(
            f"{path}: not a CIFAR-10 binary file (size {raw.size} is not a multiple of {CIFAR_RECORD}-byte records)"
        )
    rec = raw.reshape(-1, CIFAR_RECORD)
    labels = rec[:, 0].astype(np.int32)
    if labels.max() >= specs.NUM_CLASSES:
        raise DataError(f"{path}: label {labels.max()} out of range 0-9: not CIFAR-10")
    return rec[:, 1:].reshape(-1, 3, 32, 32), labels


class _CifarUnpickler(pickle.Unpickler):
    """Admits only what the CIFAR-10 Python format holds (a dict of bytes, lists of ints and one
    uint8 array): `pickle.load` on a downloaded file would run any callable the file names."""

    ALLOWED = {
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("_codecs", "encode"),  # how protocol 2 stores bytes written by Python 3
    }

    def find_class(self, module: str, name: str):
        if (module, name) in self.ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f"refusing {module}.{name}: a CIFAR-10 batch holds only arrays, lists, bytes and numbers"
        )


def read_cifar_py(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """One CIFAR-10 Python pickle batch: {b'data': (N, 3072) uint8, b'labels': [N]}, read with an
    unpickler that refuses every global outside the format (no code runs from a data folder)."""
    try:
        with open(path, "rb") as fh:
            d = _CifarUnpickler(fh, encoding="bytes").load()
    except Exception as exc:  # pickle raises many types on bad input: all of them mean "not CIFAR"
        raise DataError(f"{path}: not a CIFAR-10 Python batch ({exc})") from None
    data = d.get(b"data", d.get("data")) if isinstance(d, dict) else None
    labels = d.get(b"labels", d.get("labels")) if isinstance(d, dict) else None
    if data is None or labels is None:
        raise DataError(f"{path}: a CIFAR-10 Python batch needs 'data' and 'labels' keys")
    if getattr(data, "dtype", None) is not None and data.dtype.hasobject:
        raise DataError(f"{path}: 'data' holds Python objects: expected a uint8 array")
    data = np.asarray(data, dtype=np.uint8)
    if data.ndim != 2 or data.shape[1] != 3072 or len(labels) != data.shape[0]:
        raise DataError(f"{path}: 'data' must be (N, 3072) with N labels, got {data.shape}")
    return data.reshape(-1, 3, 32, 32), np.asarray(labels, dtype=np.int32)


def _open_maybe_gz(path: Path):
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def read_idx(path: Path) -> np.ndarray:
    """An MNIST idx file (ubyte images: magic 2051, labels: magic 2049), optionally gzipped."""
    with _open_maybe_gz(path) as fh:
        head = fh.read(4)
        if len(head) != 4 or head[0] != 0 or head[1] != 0 or head[2] != 0x08:
            raise DataError(f"{path}: not an idx file of unsigned bytes")
        ndim = head[3]
        dims = struct.unpack(f">{ndim}I", fh.read(4 * ndim))
        data = np.frombuffer(fh.read(), dtype=np.uint8)
    if data.size != int(np.prod(dims)):
        raise DataError(f"{path}: header says {dims} but holds {data.size} bytes")
    return data.reshape(dims)


def _find(folder: Path, patterns: list[str]) -> list[Path]:
    out: list[Path] = []
    for pat in patterns:
        out += sorted(p for p in folder.glob(pat) if p.is_file())
    return out


def read_raw(path: str | Path, limit: Optional[int] = None) -> tuple[np.ndarray, np.ndarray, str]:
    """Read a dataset folder (or one file) in any supported layout: (uint8 NCHW, labels, kind)."""
    p = Path(path).expanduser()
    if not p.exists():
        raise DataError(f"{p}: no such file or folder")
    folder = p if p.is_dir() else p.parent
    for sub in ("cifar-10-batches-bin", "cifar-10-batches-py"):
        if (folder / sub).is_dir():
            folder = folder / sub
    files = [p] if p.is_file() else []
    bins = (
        files
        if files and p.suffix == ".bin"
        else ([] if files else _find(folder, ["data_batch_*.bin", "test_batch.bin"]))
    )
    if bins:
        parts = [read_cifar_bin(f) for f in bins]
        kind = "cifar10-bin"
    else:
        pys = (
            files
            if files and p.name.startswith(("data_batch", "test_batch"))
            else ([] if files else [f for f in _find(folder, ["data_batch_*", "test_batch"]) if not f.suffix])
        )
        if pys:
            parts = [read_cifar_py(f) for f in pys]
            kind = "cifar10-py"
        else:
            imgs = _find(folder, ["*images-idx3-ubyte*", "*images.idx3-ubyte*"])
            labs = _find(folder, ["*labels-idx1-ubyte*", "*labels.idx1-ubyte*"])
            if not imgs or not labs:
                raise DataError(
                    f"{p}: expected CIFAR-10 (data_batch_*.bin or the Python "
                    "data_batch_* pickles) or MNIST (*-images-idx3-ubyte + "
                    "*-labels-idx1-ubyte) files"
                )
            x, y = read_idx(imgs[0]), read_idx(labs[0])
            if x.ndim != 3 or y.ndim != 1 or x.shape[0] != y.shape[0]:
                raise DataError(f"{imgs[0]}: images {x.shape} and labels {y.shape} do not match")
            parts = [(x[:, None, :, :], y.astype(np.int32))]
            kind = "mnist-idx"
    x = np.concatenate([a for a, _ in parts])
    y = np.concatenate([b for _, b in parts]).astype(np.int32)
    if limit is not None:
        x, y = x[:limit], y[:limit]
    return x, y, kind


def _to_model(x: np.ndarray, model: str) -> np.ndarray:
    """uint8 NCHW (any channel count, 28 or 32 px) -> normalised float32 for `model`."""
    x = x.astype(np.float32) / 255.0
    if x.shape[-1] == 28:
        x = np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)))
    want = specs.input_channels(model)
    if x.shape[1] == 3 and want == 1:
        x = (0.299 * x[:, 0] + 0.587 * x[:, 1] + 0.114 * x[:, 2])[:, None]
    elif x.shape[1] == 1 and want == 3:
        x = np.repeat(x, 3, axis=1)
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    std = x.std(axis=(0, 2, 3), keepdims=True) + 1e-6
    return np.ascontiguousarray((x - mean) / std, dtype=np.float32)


def from_path(path: str | Path, model: str, batch_size: int, n_batches: int = 8) -> Batches:
    """Full batches of real data (the last partial batch dropped: never time other shapes)."""
    need = batch_size * n_batches
    x, y, kind = read_raw(path, limit=need)
    n_full = len(y) // batch_size
    if n_full == 0:
        raise DataError(f"{path}: {len(y)} images, fewer than one batch of {batch_size}")
    n = n_full * batch_size
    images = _to_model(x[:n], model).reshape(n_full, batch_size, specs.input_channels(model), 32, 32)
    return Batches(images, y[:n].reshape(n_full, batch_size), f"{kind}:{Path(path).name}")


def batches(model: str, batch_size: int, data: Optional[str] = None, n_batches: int = 8) -> Batches:
    return synthetic(model, batch_size, n_batches) if not data else from_path(data, model, batch_size, n_batches)
