"""Price features, not places (issue 27, part 2): each distinct unportable feature or kernel once, a
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
    assert len(places) >= 7  # 2 kernels, 2 more sources, the build lines
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
    files = {f"pkg/feat{i}.py": "import torch.fx\n\ndef f(m):\n    return torch.fx.symbolic_trace(m)\n" for i in range(12)}
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
        {"model.py": NET, "tutorials/fx/trace.py": fx, "notebooks/demo.ipynb": _notebook(fx), "analysis.ipynb": _notebook(fx)},
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
