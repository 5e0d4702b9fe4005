"""Types, not names (part 4): what a call is comes from the imports and simple assignments.
The code shapes are from real projects: a YOLO repository's NMS, loss and metrics, its TensorRT
backend, a trainer's GradScaler, a diffusion library's einops calls."""

import json

import pytest

from advisor.scan import scan_path


def _scan(tmp_path, code, name="m.py"):
    (tmp_path / name).write_text(code)
    return scan_path(tmp_path)


def _kinds(result, kind):
    return [h for h in result.hazards if h.kind == kind]


def test_numpy_calls_are_not_torch_dynamic_shape_ops(tmp_path):
    code = (
        "import numpy as np\nimport torch\n\n"
        "def stats(labels, boxes):\n"
        "    classes = np.unique(labels[:, 0])\n"
        "    idx = np.array(boxes).nonzero()\n"
        "    arr = np.asarray(boxes)\n"
        "    keep = arr.nonzero()\n"
        "    return classes, idx, keep, torch.tensor(classes)\n"
        "\n"
        "def post(pred):\n"
        "    idx = torch.nonzero(pred)\n"
        "    return idx, pred.unique()\n"
    )
    result = _scan(tmp_path, code)
    lines = sorted(h.line for h in _kinds(result, "dynamic_shape"))
    assert lines == [12, 13]  # torch.nonzero and the tensor's .unique(), not the NumPy ones


def test_boolean_mask_indexing_is_a_dynamic_shape(tmp_path):
    """NMS: `x = x[xc[xi]]`, `x[conf.view(-1) > t]`; build_targets: `j = ...< t`, `t = t[j]`."""
    code = (
        "import torch\n\n"
        "def nms(prediction, conf_thres):\n"
        "    xc = prediction[..., 4] > conf_thres\n"
        "    out = []\n"
        "    for xi, x in enumerate(prediction):\n"
        "        x = x[xc[xi]]\n"
        "        conf, j = x[:, 5:].max(1, keepdim=True)\n"
        "        x = torch.cat((x[:, :4], conf), 1)[conf.view(-1) > conf_thres]\n"
        "        out.append(x)\n"
        "    return out\n"
        "\n"
        "def build_targets(t, r, thr):\n"
        "    j = torch.max(r, 1 / r).max(2)[0] < thr\n"
        "    t = t[j]\n"
        "    return t\n"
        "\n"
        "def reorder(iou, b):\n"
        "    j = iou.argsort()\n"
        "    return b[j]\n"  # an index permutation: fixed size
        "\n"
        "def sizes(ti):\n"
        "    labels = ti.shape[1] == 6\n"
        "    return ti[labels]\n"  # a Python bool from a shape: no mask
    )
    result = _scan(tmp_path, code)
    lines = sorted(h.line for h in _kinds(result, "dynamic_shape"))
    assert lines == [7, 9, 15]
    assert all("boolean-mask indexing" in h.message for h in _kinds(result, "dynamic_shape"))


def test_numpy_boolean_mask_is_not_flagged(tmp_path):
    code = (
        "import numpy as np\nimport torch\n\n"
        "def f(x):\n    a = np.asarray(x)\n    t = torch.zeros(1)\n    return a[a > 0], t\n"
    )
    assert not _kinds(_scan(tmp_path, code), "dynamic_shape")


def test_in_place_only_where_the_semantic_matters(tmp_path):
    code = (
        "import torch\nfrom torch.cuda.amp import GradScaler\n\n"
        "def step(model, opt, loss, x, y):\n"
        "    scaler = GradScaler()\n"
        "    scaler.scale(loss).backward()\n"
        "    scaler.unscale_(opt)\n"
        "    x = x.clamp_(0, 1)\n"  # rebound: the result replaces x anyway
        "    z = (x + y).relu_()\n"  # a temporary: nobody else holds it
        "    y.add_(1)\n"  # the caller's y changes: this one matters
        "    return x, z\n"
    )
    lines = [h.line for h in _kinds(_scan(tmp_path, code), "inplace_op")]
    assert lines == [10]


def test_tensorrt_binding_code_is_not_a_graph_side_effect(tmp_path):
    code = (
        "import torch\nfrom torch import nn\n\n"
        "class DetectMultiBackend(nn.Module):\n"
        "    def __init__(self, w):\n"
        "        super().__init__()\n"
        "        import tensorrt as trt\n"
        "        self.bindings = {}\n"
        "    def forward(self, im):\n"
        "        self.bindings['images'] = im\n"
        "        self.bindings['output'].data.resize_(im.shape)\n"
        "        return self.bindings['output']\n"
        "\n"
        "class Detect(nn.Module):\n"
        "    def forward(self, x):\n"
        "        self.grid[0] = x\n"
        "        return x\n"
    )
    result = _scan(tmp_path, code)
    assert [h.line for h in _kinds(result, "graph_side_effect")] == [16]
    assert not _kinds(result, "inplace_op")


def test_tuple_targets_on_self_and_item_as_range_bound(tmp_path):
    code = (
        "import torch\nfrom torch import nn\n\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x, n):\n"
        "        self.cache[0], self.last = x, x\n"
        "        for i in range(n.item()):\n"
        "            x = x + 1\n"
        "        return x\n"
    )
    result = _scan(tmp_path, code)
    assert [h.line for h in _kinds(result, "graph_side_effect")] == [6]
    assert [h.line for h in _kinds(result, "tensor_control_flow")] == [7]


def test_einops_priced_by_usage_and_ema_fid_in_the_inventory(tmp_path):
    calls = "".join("    x = rearrange(x, 'b c h w -> b h w c')\n" for _ in range(40))
    code = (
        "import torch\nfrom einops import rearrange, repeat\nfrom functools import reduce\n"
        "from ema_pytorch import EMA\nfrom pytorch_fid.inception import InceptionV3\n\n"
        "def f(x):\n" + calls + "    x = repeat(x, 'b -> b 2')\n    return reduce(lambda a, b: a, [x])\n"
    )
    result = _scan(tmp_path, code)
    deps = {d.name: d for d in result.dependencies}
    assert {"einops", "ema_pytorch", "pytorch_fid"} <= set(deps)
    # 2-8 h for the shim, 0.05-0.25 h for each of the 41 einops calls (functools.reduce is not one)
    assert deps["einops"].effort_hours == pytest.approx((2.0 + 41 * 0.05, 8.0 + 41 * 0.25))
    assert deps["pytorch_fid"].mapping == "none"


def test_notebook_branch_of_only_magics_still_parses(tmp_path):
    src = "import torch\nif torch.cuda.is_available():\n    %env CUDA=1\nelif True:\n    !nvidia-smi\nx = torch.zeros(1)\n"
    nb = {"cells": [{"cell_type": "code", "source": src}], "metadata": {}, "nbformat": 4}
    (tmp_path / "demo.ipynb").write_text(json.dumps(nb))
    result = scan_path(tmp_path)
    assert not result.skipped and result.python_files == 1
    assert not any("could not be parsed" in r for r in result.risk_reasons)


def test_in_place_on_temporaries_and_rebound_functional_calls(tmp_path):
    """timm's optimizers: `(grad - last).mul_(g).add_(grad)`; detectron2: `out = F.relu_(out)`."""
    code = (
        "import torch\nimport torch.nn.functional as F\n\n"
        "def step(grad, last, out, buf, g):\n"
        "    c = (grad - last).mul_(g).add_(grad)\n"
        "    out = F.relu_(out)\n"
        "    buf.mul_(g).add_(grad)\n"  # buf is the caller's: matters (the first in the chain)
        "    return c, out\n"
    )
    result = _scan(tmp_path, code)
    assert [h.line for h in _kinds(result, "inplace_op")] == [7]


def test_hub_cache_paths_are_not_hub_models(tmp_path):
    code = "import torch\n\ndef cache():\n    return torch.hub.get_dir()\n"
    assert not _kinds(_scan(tmp_path, code), "model_hub")


def test_a_mask_inside_from_numpy_and_hub_reexports_are_not_flagged(tmp_path):
    """DensePose's evaluator: `torch.from_numpy(py[pt_mask > -1])`; timm: `from torch.hub import urlparse`."""
    code = (
        "import torch\nfrom torch.hub import urlparse\n\n"
        "def f(py, pt_mask, url):\n    parts = urlparse(url)\n    return torch.from_numpy(py[pt_mask > -1]), parts\n"
    )
    result = _scan(tmp_path, code)
    assert not _kinds(result, "dynamic_shape") and not _kinds(result, "model_hub")


def test_methods_of_third_party_objects_are_not_in_place_tensor_ops(tmp_path):
    """Precision sample of round 4 (denoising-diffusion-pytorch): `accelerator.clip_grad_norm_(...)` on an
    accelerate.Accelerator held on self and aliased to a local. The type comes from the import and the
    assignments, not from the name: a name also assigned a tensor in the module is unknown again."""
    body = (
        "import torch\nfrom accelerate import Accelerator\nimport ema_pytorch\n\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.accelerator = Accelerator(split_batches=True)\n"
        "        self.ema = ema_pytorch.EMA(model)\n"
        "        self.model = model\n\n"
        "    def step(self, x):\n"
        "        accelerator = self.accelerator\n"
        "        accelerator.clip_grad_norm_(self.model.parameters(), 1.0)\n"  # line 13
        "        self.accelerator.clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "        self.ema.copy_params_from_model_to_ema_()\n"
        "        x.clamp_(-1.0, 1.0)\n"  # line 16
        "        return x\n"
    )
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "train.py").write_text(body)
    assert [h.line for h in scan_path(tmp_path / "a").hazards if h.kind == "inplace_op"] == [16]
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "train.py").write_text(body + "\n\ndef other():\n    accelerator = torch.zeros(3)\n")
    # clip_grad_norm_ is gradient clipping whatever holds it (a different API in MindSpore), never an
    # in-place tensor op: an untyped receiver no longer makes it one
    assert [h.line for h in scan_path(tmp_path / "b").hazards if h.kind == "inplace_op"] == [16]
