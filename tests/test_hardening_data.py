"""A data folder is data: `advisor probe --data DIR` never runs code from a CIFAR-10 Python batch."""

from __future__ import annotations

import gzip
import os
import pickle
import struct
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from probes.training.data import DataError, read_cifar_py, read_raw


class _Payload:
    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.marker}",))


def test_a_crafted_batch_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    batch = tmp_path / "data_batch_1"
    batch.write_bytes(pickle.dumps({b"data": _Payload(str(marker)), b"labels": [0]}, protocol=2))
    with pytest.raises(DataError, match="refusing posix.system|refusing os.system"):
        read_cifar_py(batch)
    assert not marker.exists()


@pytest.mark.parametrize("protocol", [2, 4])
def test_a_real_format_batch_still_reads(tmp_path, protocol):
    data = np.arange(4 * 3072, dtype=np.uint8).reshape(4, 3072)
    batch = tmp_path / "data_batch_1"
    batch.write_bytes(
        pickle.dumps(
            {
                b"batch_label": b"training batch 1 of 5",
                b"labels": [0, 1, 2, 9],
                b"data": data,
                b"filenames": [b"a.png"] * 4,
            },
            protocol=protocol,
        )
    )
    images, labels = read_cifar_py(batch)
    assert images.shape == (4, 3, 32, 32) and labels.tolist() == [0, 1, 2, 9]
    assert np.array_equal(images.reshape(4, 3072), data)


def test_an_object_array_is_refused(tmp_path):
    batch = tmp_path / "data_batch_1"
    batch.write_bytes(pickle.dumps({b"data": np.array([[1] * 3072], dtype=object), b"labels": [0]}, protocol=2))
    with pytest.raises(DataError):
        read_cifar_py(batch)


# --- bounded, format-checked readers -----------------------------------------------------

BAD_DATA = Path(__file__).resolve().parent / "fixtures" / "bad-input" / "data"
DATA_CASES = sorted(p for p in BAD_DATA.iterdir() if p.is_dir())
NEEDLES = {
    "cifar-bin-label-255": "label 255 out of range 0-9",
    "cifar-py-label-99": "label 99 out of range 0-9",
    "cifar-py-labels-an-int": "'labels' must be a list",
    "cifar-py-nested-list-bomb": "'data' must be a uint8 array",
    "mnist-corrupt-gzip": "cannot read",
    "mnist-gzip-header-claims-4gb": "the idx header says (5000000, 28, 28)",
    "mnist-label-99": "label 99 out of range 0-9",
    "mnist-truncated-header": "truncated idx header",
}


def test_every_bad_data_folder_has_its_expected_message():
    assert sorted(p.name for p in DATA_CASES) == sorted(NEEDLES)


@pytest.mark.parametrize("folder", DATA_CASES, ids=[p.name for p in DATA_CASES])
def test_a_bad_data_folder_is_one_data_error_in_the_reader(folder):
    """The reader the workers use (read_raw), with and without a limit: the same refusal."""
    for limit in (None, 32):
        with pytest.raises(DataError) as exc:
            read_raw(folder, limit=limit)
        assert NEEDLES[folder.name] in str(exc.value)
        assert len(str(exc.value).splitlines()) == 1


@pytest.mark.parametrize("flag", ["", "--accuracy", "--pipeline"])
@pytest.mark.parametrize("folder", DATA_CASES, ids=[p.name for p in DATA_CASES])
def test_a_bad_data_folder_is_one_line_exit_2_before_any_worker(folder, flag, capsys, monkeypatch):
    import probes.launcher as launcher

    monkeypatch.setattr(launcher, "run_child", lambda *a, **k: pytest.fail("a worker started"))
    from advisor.cli import main

    argv = ["probe", *([flag] if flag else []), "--frameworks", "pytorch", "--data", str(folder)]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("advisor: error: --data: "), err
    assert NEEDLES[folder.name] in err


def _idx(dims, payload: bytes) -> bytes:
    return struct.pack(f">4B{len(dims)}I", 0, 0, 8, len(dims), *dims) + payload


def test_a_sparse_huge_idx_file_is_refused_from_its_header(tmp_path):
    """20 GB of holes (no disk used) behind an honest header: refused before any read."""
    images = tmp_path / "train-images-idx3-ubyte"
    n = 20 * 1024**3 // 784
    with open(images, "wb") as fh:
        fh.write(_idx((n, 28, 28), b""))
        fh.truncate(16 + n * 784)
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(_idx((1,), b"\x00"))
    tracemalloc.start()
    with pytest.raises(DataError, match="idx header says"):
        read_raw(tmp_path, limit=32)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 * 1024**2


def test_a_gzip_bomb_is_read_no_further_than_needed(tmp_path):
    """An honest 60,000-image header, 47 MB of zeros compressed to ~46 KB: 32 images are read,
    not the whole stream."""
    n = 60_000
    (tmp_path / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(_idx((n, 28, 28), bytes(n * 784)), 1))
    (tmp_path / "train-labels-idx1-ubyte.gz").write_bytes(gzip.compress(_idx((n,), bytes(n)), 1))
    tracemalloc.start()
    x, y, kind = read_raw(tmp_path, limit=32)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert x.shape == (32, 1, 28, 28) and y.shape == (32,) and kind == "mnist-idx"
    assert peak < 8 * 1024**2  # 32 x 784 bytes plus gzip's buffers; the whole stream is 47 MB


def test_an_idx_file_shorter_than_its_header_is_refused(tmp_path):
    (tmp_path / "train-images-idx3-ubyte").write_bytes(_idx((10, 28, 28), bytes(784 * 3)))
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(_idx((10,), bytes(10)))
    with pytest.raises(DataError, match="header says"):
        read_raw(tmp_path)


def test_a_fifo_as_data_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "data_batch_1.bin"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match="not a regular file"):
        read_raw(fifo)


def test_a_real_format_mnist_folder_still_reads(tmp_path):
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 256, (40, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, 40, dtype=np.uint8)
    (tmp_path / "train-images-idx3-ubyte").write_bytes(_idx((40, 28, 28), pixels.tobytes()))
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(_idx((40,), labels.tobytes()))
    x, y, _ = read_raw(tmp_path, limit=30)
    assert np.array_equal(x[:, 0], pixels[:30]) and y.tolist() == labels[:30].tolist()
