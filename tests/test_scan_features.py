"""Price features, not places (part 2): each distinct unportable feature or kernel once, a
small saturating increment per further place; build lines are part of the kernel they build;
tutorials and notebooks apart; a functional data_parallel call is not a DDP port."""

import json
from pathlib import Path

import pytest

import knowledge
from advisor.scan import scan_path
from advisor.scan.estimate import TRIVIAL_DISTRIBUTED_HOURS, pitfalls_for

NET = "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n"


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def _item(result, name):
    return next(i for i in result.effort_breakdown.items if i.item == name)


def test_one_operator_folder_and_its_build_lines_are_one_kernel(tmp_path):
    """detectron2's layout: ROIAlign/ROIAlign_cuda.cu (two kernels), ROIAlign_cpu.cpp, ROIAlign.h, and
    four build lines in setup.py: one operator, priced once plus increments (<= 2x the first)."""
    kernel = "#include <ATen/ATen.h>\n__global__ void fwd(float *x) {}\n__global__ void bwd(float *x) {}\n"
    _write(
        tmp_path,
        {
            "layers/csrc/ROIAlign/ROIAlign_cuda.cu": kernel,
            "layers/csrc/ROIAlign/ROIAlign_cpu.cpp": "#include <torch/extension.h>\nat::Tensor f(at::Tensor x) { return x; }\n",
            "layers/csrc/ROIAlign/ROIAlign.h": "#pragma once\n#include <torch/types.h>\nat::Tensor f(at::Tensor x);\n",
            "setup.py": (
                "from torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension, BuildExtension\n"
                "ext = CUDAExtension\nsources = ['layers/csrc/ROIAlign/ROIAlign_cuda.cu']\n"
                "mods = [CUDAExtension('roi', sources), CppExtension('roi_cpu', sources)]\n"
                "cmd = {'build_ext': BuildExtension}\n"
            ),
            "model.py": NET,
        },
    )
    result = scan_path(tmp_path)
    base = pitfalls_for("custom_extension", knowledge.load())[0].effort_hours
    places = [h for h in result.hazards if h.kind == "custom_extension"]
    assert len(places) >= 6  # 2 kernels, 2 more sources, the extension lines (BuildExtension builds none itself)
    hours = _item(result, "hazard custom_extension").effort_hours
    n = len(places)
    scale = 1 + min(0.05 * (n - 1), 1.0)  # one operator: the rest are increments
    assert hours == pytest.approx((base.low * scale, base.high * scale), abs=0.05)
    assert hours[1] < 2 * base.high + 0.01


def test_two_operators_cost_two_kernels(tmp_path):
    kernel = "#include <ATen/ATen.h>\n__global__ void k(float *x) {}\n"
    _write(tmp_path, {"csrc/nms_cuda.cu": kernel, "csrc/roi_pool_kernel.cu": kernel, "model.py": NET})
    result = scan_path(tmp_path)
    base = pitfalls_for("custom_extension", knowledge.load())[0].effort_hours
    assert _item(result, "hazard custom_extension").effort_hours == pytest.approx((2 * base.low, 2 * base.high))


def test_fx_used_in_many_places_is_one_redesign(tmp_path):
    files = {
        f"pkg/feat{i}.py": "import torch.fx\n\ndef f(m):\n    return torch.fx.symbolic_trace(m)\n" for i in range(12)
    }
    result = scan_path(_write(tmp_path, {**files, "model.py": NET}))
    s = next(k for k in result.hazard_summary if k.kind == "no_equivalent")
    item = _item(result, "hazard no_equivalent")
    first = item.effort_hours[1] / (1 + 0.05 * (s.count - 1))
    assert s.count == 12 and item.effort_hours[1] <= 2 * first + 0.01


def test_functional_data_parallel_is_not_ddp(tmp_path):
    code = "import torch\nfrom torch import nn\n\ndef run(model, x):\n    return nn.parallel.data_parallel(model, x)\n"
    result = scan_path(_write(tmp_path, {"run.py": code, "model.py": NET}))
    s = next(k for k in result.hazard_summary if k.kind == "distributed")
    assert s.risk == "low"
    assert _item(result, "hazard distributed").effort_hours == pytest.approx(TRIVIAL_DISTRIBUTED_HOURS)


def _notebook(code: str) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "source": code}], "metadata": {}, "nbformat": 4})


def test_tutorials_and_notebooks_are_apart_from_the_total(tmp_path):
    fx = "import torch\nimport torch.fx\n\ndef f(m):\n    return torch.fx.symbolic_trace(m)\n"
    _write(
        tmp_path,
        {
            "model.py": NET,
            "tutorials/fx/trace.py": fx,
            "notebooks/demo.ipynb": _notebook(fx),
            "analysis.ipynb": _notebook(fx),
        },
    )
    result = scan_path(tmp_path)
    assert all(h.excluded for h in result.hazards if h.kind == "no_equivalent")
    assert "hazard no_equivalent" not in {i.item for i in result.effort_breakdown.items}
    assert result.effort_breakdown.excluded_hours[1] > 0
    roles = {s.name for s in result.effort_breakdown.by_role}
    assert "examples (excluded)" in roles


def test_a_project_of_tutorials_only_is_priced_and_labelled(tmp_path):
    _write(tmp_path, {f"tutorials/0{i}-basics/main.py": NET for i in range(3)})
    result = scan_path(tmp_path)
    assert result.effort_hours[1] > 0
    assert any("tutorials/notebooks only" in r for r in result.risk_reasons)


def _arch(name: str, n_blocks: int) -> str:
    blocks = "".join(
        f"class {name}Block{i}(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        f"        self.c = nn.Conv2d(3, 3, 3)\n\n    def forward(self, x):\n        return self.c(x)\n\n\n"
        for i in range(n_blocks)
    )
    held = ", ".join(f"{name}Block{i}()" for i in range(n_blocks))
    return (
        "import torch\nfrom torch import nn\n\n\n" + blocks + f"class {name}(nn.Module):\n    def __init__(self):\n"
        f"        super().__init__()\n        self.blocks = nn.Sequential({held})\n\n    def forward(self, x):\n"
        "        return self.blocks(x)\n"
    )


def test_parity_per_architecture_and_weight_conversion(tmp_path):
    """Two model families (files whose top-level module no other module holds) need two parity checks;
    loading pretrained weights adds the converter once and the dearer per-architecture figure."""
    from advisor.scan import effort

    _write(tmp_path, {"models/resnet.py": _arch("ResNet", 8), "models/vgg.py": _arch("VGG", 8), "train.py": NET})
    scratch = scan_path(tmp_path)
    parity = _item(scratch, "parity verification per architecture")
    assert parity.count == 2
    lo, hi = effort.PARITY_HOURS["scratch"]
    assert parity.effort_hours == pytest.approx((lo * 1.5, hi * 1.5))  # 1 + max(1/2, 0.5)
    assert "checkpoint/weight conversion" not in {i.item for i in scratch.effort_breakdown.items}

    (tmp_path / "train.py").write_text(NET + "\nsd = torch.hub.load_state_dict_from_url('https://x/resnet.pth')\n")
    weights = scan_path(tmp_path)
    names = {i.item: i for i in weights.effort_breakdown.items}
    assert names["checkpoint/weight conversion"].effort_hours == effort.WEIGHT_CONVERSION_HOURS
    lo, hi = effort.PARITY_HOURS["weights"]
    assert names["parity verification per architecture"].effort_hours == pytest.approx((lo * 1.5, hi * 1.5))


def test_training_entry_points_in_tools_are_part_of_the_port(tmp_path):
    train = (
        "import torch\n\ndef main(model, data):\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x in data:\n        model(x).sum().backward()\n        opt.step()\n"
    )
    _write(
        tmp_path,
        {"tools/train_net.py": train, "tools/visualize.py": "import torch\nx = torch.zeros(1)\n", "model.py": NET},
    )
    result = scan_path(tmp_path)
    by_file = {s.name: s for s in result.effort_breakdown.by_file}
    assert not by_file["tools/train_net.py"].excluded
    assert by_file["tools/visualize.py"].excluded
    # unless the user excludes it by name
    result = scan_path(tmp_path, exclude=["tools/train_net.py"])
    assert {s.name: s for s in result.effort_breakdown.by_file}["tools/train_net.py"].excluded
