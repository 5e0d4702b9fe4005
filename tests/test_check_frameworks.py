"""Framework detection without importing any framework: metadata, torch/version.py, MindSpore plugins."""

from __future__ import annotations

import sys
from pathlib import Path

from probes.check.models import Accelerator, FrameworkInfo
from probes.check.frameworks import detect_frameworks, infer_devices, parse_torch_version_py

FIX = Path(__file__).parent / "fixtures" / "check"


def test_torch_version_py_of_a_cuda_build():
    values = parse_torch_version_py((FIX / "torch-version-cu121.py.txt").read_text())
    assert values == {
        "__version__": "2.5.1+cu121",
        "cuda": "12.1",
        "hip": None,
        "git_version": "a8d6afb511a69687bbb2b7e88a3cf67917e1697e",
    }


def test_detection_imports_nothing_and_names_builds():
    before = set(sys.modules)
    found = {f.name: f for f in detect_frameworks()}
    assert set(found) == {"pytorch", "mindspore", "torch_npu"}
    assert not {"torch", "mindspore", "torch_npu"} & (set(sys.modules) - before)
    pt, ms = found["pytorch"], found["mindspore"]
    if pt.installed:
        assert pt.version and (pt.build == "cpu" or pt.build.startswith(("cuda", "rocm")))
    if ms.installed:
        assert "cpu" in ms.build
        if tuple(int(x) for x in ms.version.split(".")[:2]) > (2, 2):
            assert "gpu" not in ms.build  # CUDA unsupported after 2.2 even if plugin files ship


def _acc(vendor, i):
    return Accelerator(vendor=vendor, index=i, name="x", source="test")


def test_inferred_devices():
    accs = [_acc("nvidia", 0), _acc("nvidia", 1)] + [_acc("huawei", i) for i in range(3)]
    cuda = FrameworkInfo(name="pytorch", installed=True, version="2.5.1+cu121", build="cuda 12.1")
    cpu = FrameworkInfo(name="pytorch", installed=True, version="2.13.0+cpu", build="cpu")
    ms = FrameworkInfo(name="mindspore", installed=True, version="2.10.0", build="cpu+ascend")
    ms_old = FrameworkInfo(name="mindspore", installed=True, version="2.2.14", build="cpu+ascend+gpu")
    npu = FrameworkInfo(name="torch_npu", installed=True, version="2.5.1", build="ascend")
    assert infer_devices(cuda, accs) == ["cpu", "cuda:0", "cuda:1"]
    assert infer_devices(cpu, accs) == ["cpu"]
    assert infer_devices(ms, accs) == ["CPU", "Ascend:0", "Ascend:1", "Ascend:2"]
    assert infer_devices(ms_old, accs)[-2:] == ["GPU:0", "GPU:1"]
    assert infer_devices(npu, accs) == ["npu:0", "npu:1", "npu:2"]
    assert infer_devices(FrameworkInfo(name="pytorch", installed=False), accs) == []
