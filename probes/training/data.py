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
import stat
import struct
import zlib
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
#
# Every reader is bounded and checks the format before it allocates: a data folder comes from the
# internet, and a 3 MB .gz that inflates to 3 GB, a sparse 20 GB idx file or a 317-byte pickle of
# shared nested lists must be one DataError line, not the host's memory. The same code runs in the
# parent (the up-front check) and in the workers.

# One CIFAR-10 batch file is 30.7 MB, MNIST's training images 47 MB (decompressed): 256 MiB per file
# admits any real file of these formats and refuses what would take the host's memory.
MAX_FILE_BYTES = 256 * 1024 * 1024
# Images read in all: the probes use at most a few thousand; 100,000 keeps a folder of many batch
# files (CIFAR-10's 60,000 included) bounded too.
MAX_IMAGES = 100_000
_CHUNK = 1024 * 1024


def _regular(path: Path) -> int:
    """The size of `path`, which must be a regular file (a FIFO or device would block or never end)."""
    try:
        st = path.stat()
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise DataError(f"{path}: not a regular file: expected a CIFAR-10 or MNIST data file")
    return st.st_size


def _labels_in_range(path: Path, labels: np.ndarray) -> np.ndarray:
    if labels.size and (int(labels.min()) < 0 or int(labels.max()) >= specs.NUM_CLASSES):
        bad = int(labels.max()) if int(labels.max()) >= specs.NUM_CLASSES else int(labels.min())
        raise DataError(f"{path}: label {bad} out of range 0-{specs.NUM_CLASSES - 1}: expected 10 classes")
    return labels.astype(np.int32)


def read_cifar_bin(path: Path, limit: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
    """One CIFAR-10 binary file: records of 1 label byte + 3072 pixel bytes (CHW); at most `limit`
    records are read."""
    size = _regular(path)
    if size == 0 or size % CIFAR_RECORD:
        raise DataError(
            f"{path}: not a CIFAR-10 binary file (size {size} is not a multiple of {CIFAR_RECORD}-byte records)"
        )
    if size > MAX_FILE_BYTES:
        raise DataError(f"{path}: {size:,} bytes: expected a CIFAR-10 batch file of at most {MAX_FILE_BYTES:,} bytes")
    records = size // CIFAR_RECORD if limit is None else min(size // CIFAR_RECORD, max(limit, 0))
    try:
        raw = np.fromfile(path, dtype=np.uint8, count=records * CIFAR_RECORD)
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: cannot read: {exc}") from None
    if raw.size != records * CIFAR_RECORD:
        raise DataError(f"{path}: shorter than its size says (changed while read?)")
    rec = raw.reshape(-1, CIFAR_RECORD)
    return rec[:, 1:].reshape(-1, 3, 32, 32), _labels_in_range(path, rec[:, 0])


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

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("refusing a persistent id: a CIFAR-10 batch holds only plain values")


def _flat_ints(path: Path, labels, n: int) -> np.ndarray:
    """CIFAR's `labels`: a flat list (or 1-D integer array) of `n` ints, checked element by element
    before NumPy sees it: a list of shared nested lists (a few hundred bytes of pickle) would
    otherwise expand to billions of elements inside np.asarray."""
    if isinstance(labels, np.ndarray):
        if labels.ndim != 1 or labels.dtype.kind not in "iu" or labels.shape[0] != n:
            raise DataError(f"{path}: 'labels' must be {n} integers, got an array {labels.dtype} {labels.shape}")
        return labels
    if not isinstance(labels, list) or len(labels) != n:
        got = f"{len(labels)} items" if isinstance(labels, list) else type(labels).__name__
        raise DataError(f"{path}: 'labels' must be a list of {n} integers (one per image), got {got}")
    if not all(type(v) is int for v in labels):
        raise DataError(f"{path}: 'labels' must hold integers only (a nested list or other value found)")
    if any(v < 0 or v >= specs.NUM_CLASSES for v in labels):
        bad = next(v for v in labels if v < 0 or v >= specs.NUM_CLASSES)
        raise DataError(f"{path}: label {bad} out of range 0-{specs.NUM_CLASSES - 1}: expected 10 classes")
    return np.asarray(labels, dtype=np.int64)


def read_cifar_py(path: Path, limit: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
    """One CIFAR-10 Python pickle batch: {b'data': (N, 3072) uint8, b'labels': [N]}, read with an
    unpickler that refuses every global outside the format (no code runs from a data folder); the
    file size is capped first, so the unpickled objects are bounded by it."""
    size = _regular(path)
    if size > MAX_FILE_BYTES:
        raise DataError(f"{path}: {size:,} bytes: expected a CIFAR-10 batch file of at most {MAX_FILE_BYTES:,} bytes")
    try:
        with open(path, "rb") as fh:
            d = _CifarUnpickler(fh, encoding="bytes").load()
    except Exception as exc:  # pickle raises many types on bad input: all of them mean "not CIFAR"
        raise DataError(f"{path}: not a CIFAR-10 Python batch ({type(exc).__name__}: {str(exc)[:120]})") from None
    if not isinstance(d, dict):
        raise DataError(f"{path}: a CIFAR-10 Python batch is a dict, got {type(d).__name__}")
    data = d.get(b"data", d.get("data"))
    labels = d.get(b"labels", d.get("labels"))
    if data is None or labels is None:
        raise DataError(f"{path}: a CIFAR-10 Python batch needs 'data' and 'labels' keys")
    if not isinstance(data, np.ndarray):
        raise DataError(f"{path}: 'data' must be a uint8 array, got {type(data).__name__}")
    if data.dtype.hasobject:
        raise DataError(f"{path}: 'data' holds Python objects: expected a uint8 array")
    if data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != 3072:
        raise DataError(f"{path}: 'data' must be (N, 3072) uint8, got {data.dtype} {data.shape}")
    y = _flat_ints(path, labels, data.shape[0])
    if limit is not None:
        data, y = data[: max(limit, 0)], y[: max(limit, 0)]
    return data.reshape(-1, 3, 32, 32), _labels_in_range(path, y)


def _read_exactly(fh, n: int, path: Path) -> bytes:
    """n bytes from a (maybe gzip) stream, in chunks: a lying header never allocates more than
    the file really holds."""
    parts: list[bytes] = []
    got = 0
    while got < n:
        chunk = fh.read(min(_CHUNK, n - got))
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    if got < n:
        raise DataError(f"{path}: truncated: the idx header promises {n:,} more bytes, the file holds {got:,}")
    return b"".join(parts)


def read_idx(path: Path, limit: Optional[int] = None) -> np.ndarray:
    """An MNIST idx file (ubyte images: magic 2051, labels: magic 2049), optionally gzipped; at
    most `limit` items (first dimension) are read, and never more than MAX_FILE_BYTES."""
    size = _regular(path)
    try:
        with _open_maybe_gz(path) as fh:
            head = fh.read(4)
            if len(head) != 4 or head[0] != 0 or head[1] != 0 or head[2] != 0x08:
                raise DataError(f"{path}: not an idx file of unsigned bytes (magic 0x00000801 or 0x00000803)")
            ndim = head[3]
            if ndim not in (1, 3):
                raise DataError(f"{path}: idx with {ndim} dimensions: expected 1 (labels) or 3 (images)")
            dims_raw = fh.read(4 * ndim)
            if len(dims_raw) != 4 * ndim:
                raise DataError(f"{path}: truncated idx header (expected {ndim} dimensions)")
            dims = list(struct.unpack(f">{ndim}I", dims_raw))
            if ndim == 3 and (dims[1], dims[2]) not in ((28, 28), (32, 32)):
                raise DataError(f"{path}: images of {dims[1]}x{dims[2]} pixels: expected 28x28 (MNIST) or 32x32")
            count = dims[0] if limit is None else min(dims[0], max(limit, 0))
            item = int(np.prod(dims[1:])) if ndim > 1 else 1
            want = count * item
            if dims[0] * item > MAX_FILE_BYTES:  # what the header claims, before reading any of it
                raise DataError(
                    f"{path}: the idx header says {tuple(dims)} ({dims[0] * item:,} bytes): "
                    f"expected an MNIST file of at most {MAX_FILE_BYTES:,} bytes"
                )
            if path.suffix != ".gz" and 4 + 4 * ndim + dims[0] * item != size:
                raise DataError(f"{path}: header says {tuple(dims)} but the file holds {size - 4 - 4 * ndim:,} bytes")
            data = np.frombuffer(_read_exactly(fh, want, path), dtype=np.uint8)
    except (OSError, EOFError, zlib.error) as exc:  # a corrupt gzip stream, a read error
        raise DataError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    dims[0] = count
    return data.reshape(dims)


def _open_maybe_gz(path: Path):
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def _find(folder: Path, patterns: list[str]) -> list[Path]:
    out: list[Path] = []
    for pat in patterns:
        out += sorted(p for p in folder.glob(pat) if p.is_file())
    return out


def read_raw(path: str | Path, limit: Optional[int] = None) -> tuple[np.ndarray, np.ndarray, str]:
    """Read a dataset folder (or one file) in any supported layout: (uint8 NCHW, labels, kind);
    at most `limit` images (and never more than MAX_IMAGES), reading no file further than needed."""
    limit = MAX_IMAGES if limit is None else min(limit, MAX_IMAGES)
    p = Path(path).expanduser()
    try:
        exists, is_dir = p.exists(), p.is_dir()
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        raise DataError(f"{p}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    if not exists:
        raise DataError(f"{p}: no such file or folder")
    if not is_dir:
        _regular(p)
    folder = p if is_dir else p.parent
    for sub in ("cifar-10-batches-bin", "cifar-10-batches-py"):
        if (folder / sub).is_dir():
            folder = folder / sub
    files = [p] if not is_dir else []
    bins = (
        files
        if files and p.suffix == ".bin"
        else ([] if files else _find(folder, ["data_batch_*.bin", "test_batch.bin"]))
    )
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    if bins:
        kind = "cifar10-bin"
        for f in bins:
            parts.append(read_cifar_bin(f, limit - sum(len(b) for _, b in parts)))
            if sum(len(b) for _, b in parts) >= limit:
                break
    else:
        pys = (
            files
            if files and p.name.startswith(("data_batch", "test_batch"))
            else ([] if files else [f for f in _find(folder, ["data_batch_*", "test_batch"]) if not f.suffix])
        )
        if pys:
            kind = "cifar10-py"
            for f in pys:
                parts.append(read_cifar_py(f, limit - sum(len(b) for _, b in parts)))
                if sum(len(b) for _, b in parts) >= limit:
                    break
        else:
            imgs = _find(folder, ["*images-idx3-ubyte*", "*images.idx3-ubyte*"])
            labs = _find(folder, ["*labels-idx1-ubyte*", "*labels.idx1-ubyte*"])
            if not imgs or not labs:
                raise DataError(
                    f"{p}: expected CIFAR-10 (data_batch_*.bin or the Python "
                    "data_batch_* pickles) or MNIST (*-images-idx3-ubyte + "
                    "*-labels-idx1-ubyte) files"
                )
            x, y = read_idx(imgs[0], limit), read_idx(labs[0], limit)
            if x.ndim != 3 or y.ndim != 1 or x.shape[0] != y.shape[0]:
                raise DataError(f"{imgs[0]}: images {x.shape} and labels {y.shape} do not match")
            parts = [(x[:, None, :, :], _labels_in_range(labs[0], y))]
            kind = "mnist-idx"
    x = np.concatenate([a for a, _ in parts])
    y = np.concatenate([b for _, b in parts]).astype(np.int32)
    if len(y) == 0:
        raise DataError(f"{p}: holds no images")
    return x[:limit], y[:limit], kind


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
