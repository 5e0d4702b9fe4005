"""A data folder is data: `advisor probe --data DIR` never runs code from a CIFAR-10 Python batch."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from probes.training.data import DataError, read_cifar_py


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
