"""A held-out list of device names as nvidia-smi / npu-smi print them (and as users write them), each
resolving to the entry of that exact board: a weaker board must never borrow a stronger one's figures.

The names follow the vendors' naming: nvidia-smi `--query-gpu=name` ("Tesla V100-PCIE-32GB",
"NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 4090") and the Name column of `npu-smi info` ("910B3",
"310P3", "Ascend910" on Atlas A3 hosts)."""

from __future__ import annotations

import pytest

import knowledge


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


SMI_NAMES = [
    # nvidia-smi --query-gpu=name
    ("Tesla V100-SXM2-32GB", "v100"),
    ("Tesla V100-SXM2-16GB", "v100-16gb"),
    ("Tesla V100-PCIE-32GB", "v100-pcie-32gb"),
    ("Tesla V100-PCIE-16GB", "v100-pcie-16gb"),
    ("Tesla V100S-PCIE-32GB", "v100s"),
    ("NVIDIA A100-SXM4-40GB", "a100-40gb"),
    ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
    ("NVIDIA A100-PCIE-40GB", "a100-pcie-40gb"),
    ("NVIDIA A100 80GB PCIe", "a100-pcie-80gb"),
    ("NVIDIA A800-SXM4-80GB", "a800"),
    ("NVIDIA A800 80GB PCIe", "a800-pcie"),
    ("NVIDIA H100 80GB HBM3", "h100"),
    ("NVIDIA H100 PCIe", "h100-pcie"),
    ("NVIDIA H100 NVL", "h100-nvl"),
    ("NVIDIA H800", "h800"),
    ("NVIDIA H20", "h20"),
    ("NVIDIA H200", "h200"),
    ("NVIDIA H200 NVL", "h200-nvl"),
    ("NVIDIA B200", "b200"),
    ("NVIDIA L40S", "l40s"),
    ("NVIDIA L20", "l20"),
    ("NVIDIA A10", "a10"),
    ("NVIDIA GeForce RTX 3090", "rtx-3090"),
    ("NVIDIA GeForce RTX 4090", "rtx-4090"),
    ("NVIDIA GeForce RTX 5090", "rtx-5090"),
    # MIG instances print the parent board's name first
    ("NVIDIA H100 80GB HBM3 MIG 1g.10gb", "h100"),
    ("NVIDIA H100 PCIe MIG 1g.10gb", "h100-pcie"),
    # npu-smi info, Name column
    ("910B1", "ascend-910b"),
    ("910B2", "ascend-910b"),
    ("910B2C", "ascend-910b"),
    ("910B3", "ascend-910b"),
    ("910B4", "ascend-910b4"),
    ("Ascend910", "ascend-910c"),
    ("910A", "ascend-910"),
    ("910ProB", "ascend-910"),
    ("310P3", "ascend-310p"),
    ("310B1", "ascend-310b"),
    ("310B4", "ascend-310b"),
    ("310", "ascend-310"),
]

USER_NAMES = [
    ("Ascend 910", "ascend-910"),  # not the 910C, whose npu-smi name is 'Ascend910'
    ("ascend 910", "ascend-910"),
    ("Ascend 910C", "ascend-910c"),
    ("Atlas 300I Pro", "atlas-300i-pro"),  # one 310P, not the two-chip Duo
    ("Atlas 300I Duo", "atlas-300i-duo"),
    ("Atlas 200I DK A2", "ascend-310b"),
    ("V100", "v100"),
    ("V100-PCIe", "v100-pcie-32gb"),
    ("V100S", "v100s"),
    ("H100 PCIe", "h100-pcie"),
    ("H100 NVL", "h100-nvl"),
    ("H200 NVL", "h200-nvl"),
    ("RTX 4090", "rtx-4090"),
    ("rtx 3090", "rtx-3090"),
    ("A800", "a800"),
    ("H800", "h800"),
    ("H20", "h20"),
    ("L20", "l20"),
    ("B200", "b200"),
    ("B300", "b300"),
]


@pytest.mark.parametrize("name, expected", SMI_NAMES + USER_NAMES)
def test_each_name_resolves_to_its_own_board(kb, name, expected):
    found = kb.find_accelerator(name)
    assert found is not None, f"{name!r} is unknown"
    assert found.id == expected, f"{name!r} -> {found.id}, expected {expected}"


def test_every_smi_name_resolves_to_the_entry_that_lists_it(kb):
    for acc in kb.accelerators:
        for name in acc.smi_names:
            assert kb.find_accelerator(name).id == acc.id, name


def test_every_alias_resolves_to_its_entry(kb):
    for acc in kb.accelerators:
        for name in [acc.name, *acc.aliases]:
            assert kb.find_accelerator(name).id == acc.id, name


@pytest.mark.parametrize("name", ["NVIDIA A10G", "Ascend910B9", "GeForce GTX 1080", "NVIDIA T4"])
def test_unlisted_boards_stay_unknown(kb, name):
    assert kb.find_accelerator(name) is None


def test_weaker_boards_do_not_carry_full_spec_figures(kb):
    # the boards a hardware review named: their own, lower figures
    def fig(acc_id, field):
        return getattr(kb.get(acc_id, "accelerators"), field).value

    assert (
        fig("v100-pcie-32gb", "fp32_tflops"),
        fig("v100-pcie-32gb", "fp16_tflops"),
        fig("v100-pcie-32gb", "tdp_w"),
    ) == (14, 112, 250)
    assert fig("h100-pcie", "fp16_tflops") == 756 and fig("h100-pcie", "bandwidth_gbs") == 2000
    assert fig("h100-pcie", "tdp_w") == 350
    assert fig("h100-nvl", "fp16_tflops") < fig("h100", "fp16_tflops")
    assert fig("h200-nvl", "fp16_tflops") < fig("h200", "fp16_tflops")
    assert fig("atlas-300i-pro", "int8_tops") * 2 == fig("atlas-300i-duo", "int8_tops")


def test_remembered_names_follow_a_copy_with_other_accelerators(kb):
    """find_accelerator remembers its answers per accelerators list: a copy of the knowledge base with
    a changed entry (the knowledge-base sensitivity search makes such copies) is answered from its own."""
    first = kb.find_accelerator("A100")
    assert first is not None and kb.find_accelerator("A100") is first
    changed = first.model_copy(update={"name": "A100 (changed)"})
    copy = kb.model_copy(update={"accelerators": [changed if a is first else a for a in kb.accelerators]})
    assert copy.find_accelerator("A100") is changed
    assert kb.find_accelerator("A100") is first  # the original still answers with its own entry
    assert kb.find_accelerator(None) is None and kb.find_accelerator("") is None
