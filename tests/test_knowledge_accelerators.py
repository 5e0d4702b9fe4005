"""Device names as users write them and as nvidia-smi / npu-smi print them map to KB entries."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import knowledge

SMI = Path(__file__).parent / "fixtures" / "knowledge" / "smi"


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


@pytest.mark.parametrize(
    "name, expected",
    [
        ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
        ("NVIDIA A100-SXM4-40GB", "a100-40gb"),
        ("NVIDIA A100-PCIE-40GB", "a100-pcie-40gb"),  # the PCIe board is an entry of its own
        ("nvidia a100-sxm4-80gb", "a100-80gb"),
        ("A100 80GB", "a100-80gb"),
        ("Tesla V100-SXM2-32GB", "v100"),
        ("Tesla V100-SXM2-16GB", "v100-16gb"),
        ("NVIDIA H100 80GB HBM3", "h100"),
        ("NVIDIA H200", "h200"),
        ("NVIDIA L40S", "l40s"),
        ("NVIDIA A10", "a10"),
        ("910B3", "ascend-910b"),
        ("910B2C", "ascend-910b"),
        ("910B1", "ascend-910b"),
        ("910B4", "ascend-910b4"),
        ("Ascend 910B", "ascend-910b"),
        ("Ascend910", "ascend-910c"),
        ("910A", "ascend-910"),
        ("ascend-910", "ascend-910"),
        ("310P3", "ascend-310p"),
        ("310", "ascend-310"),
        ("310B1", "ascend-310b"),
        ("cpu", "cpu"),
        ("NVIDIA A100-SXM4-80GB MIG 1g.10gb", "a100-80gb"),  # whole-word containment
    ],
)
def test_find_accelerator(kb, name, expected):
    found = kb.find_accelerator(name)
    assert found is not None and found.id == expected


@pytest.mark.parametrize("name", ["", "NVIDIA A10G", "Ascend910B9", "GeForce GTX 1080"])
def test_unknown_names_give_none(kb, name):
    assert kb.find_accelerator(name) is None


def test_nvidia_smi_fixture_names_map(kb):
    lines = (SMI / "nvidia-smi-query.csv").read_text().splitlines()
    names = [line.split(", ")[1] for line in lines if line.strip()]
    assert len(names) == 9
    found = {n: kb.find_accelerator(n) for n in names}
    assert all(found.values()), [n for n, a in found.items() if a is None]
    assert all(a.vendor == "nvidia" for a in found.values())


def _npu_names(text: str) -> list[str]:
    # the first row of each NPU block: "| <npu id>  <name>  | <health> |"
    return re.findall(r"^\|\s*\d+\s+([A-Za-z0-9]+)\s+\|\s*(?:OK|Warning|Alarm|Critical)\s+\|", text, re.M)


@pytest.mark.parametrize(
    "fixture, expected",
    [
        ("npu-smi-910b3.txt", "ascend-910b"),
        ("npu-smi-910b4-multi.txt", "ascend-910b4"),
        ("npu-smi-310p3.txt", "ascend-310p"),
        ("npu-smi-a3.txt", "ascend-910c"),
    ],
)
def test_npu_smi_fixture_names_map(kb, fixture, expected):
    names = _npu_names((SMI / fixture).read_text())
    assert names
    assert {kb.find_accelerator(n).id for n in names} == {expected}


def test_memory_matches_what_npu_smi_reports(kb):
    # npu-smi HBM totals: 910B3 65536 MB, 910B4 32768 MB
    assert kb.find_accelerator("910B3").memory_gb.value == 64
    assert kb.find_accelerator("910B4").memory_gb.value == 32


def test_every_issue_accelerator_present(kb):
    ids = {a.id for a in kb.accelerators}
    assert {
        "v100",
        "a100-40gb",
        "a100-80gb",
        "h100",
        "h200",
        "l40s",
        "a10",
        "ascend-910",
        "ascend-910b",
        "ascend-910b4",
        "ascend-910c",
        "ascend-310",
        "ascend-310p",
        "ascend-310b",
        "cpu",
    } <= ids
    for acc in kb.accelerators:
        assert acc.framework_paths, acc.id
        if acc.vendor == "nvidia":
            assert "pytorch-cuda" in acc.framework_paths and "mindspore" not in acc.framework_paths
        if acc.id.startswith("ascend-910"):
            assert {"mindspore", "pytorch-npu"} <= set(acc.framework_paths)
