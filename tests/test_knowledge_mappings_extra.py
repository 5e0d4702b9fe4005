"""The API mappings added for common training-code APIs: present, classified by the scan, and the
behaviour differences their notes claim as 'measured here' still hold on the installed MindSpore."""

import importlib.util
import subprocess
import sys
import textwrap

import pytest

import knowledge
from advisor.scan import scan_path

# torch.Tensor is left out on purpose: the validator compares PyTorch names case-insensitively, so it
# collides with torch.tensor (entry tensor-ctor).
ADDED = {
    "torch.rand": "rand",
    "torch.flatten": "torch-flatten",
    "torch.max": "torch-max",
    "torch.einsum": "einsum",
    "torch.from_numpy": "from-numpy",
    "torch.float32": "dtype-float32",
    "torch.long": "dtype-long",
    "torch.inference_mode": "inference-mode",
    "torch.backends.cudnn.benchmark": "cudnn-benchmark",
    "torch.nn.SiLU": "silu",
    "torch.nn.LeakyReLU": "leaky-relu",
    "torch.nn.ConvTranspose2d": "conv-transpose2d",
    "torch.nn.GroupNorm": "group-norm",
    "torch.nn.ModuleDict": "moduledict",
    "torch.nn.TransformerEncoder": "transformer-encoder",
    "torch.nn.Upsample": "upsample",
    "torch.nn.BCELoss": "bce-loss",
    "torch.nn.L1Loss": "l1-loss",
    "torch.nn.NLLLoss": "nll-loss",
    "torch.nn.functional.gelu": "functional-gelu",
    "torch.nn.functional.log_softmax": "functional-log-softmax",
    "torch.nn.functional.max_pool2d": "functional-max-pool2d",
    "torch.nn.functional.avg_pool2d": "functional-avg-pool2d",
    "torch.nn.functional.adaptive_avg_pool2d": "functional-adaptive-avg-pool2d",
    "torch.nn.functional.mse_loss": "functional-mse-loss",
    "torch.nn.functional.normalize": "functional-normalize",
    "torch.nn.functional.one_hot": "functional-one-hot",
    "torch.nn.functional.scaled_dot_product_attention": "functional-sdpa",
    "torch.nn.init.zeros_": "init-zeros",
    "torch.nn.init.normal_": "init-normal",
    "torch.optim.Adagrad": "adagrad",
    "torch.utils.data.TensorDataset": "tensor-dataset",
    "torch.utils.data.Subset": "subset",
    "torchvision.models.resnet18": "resnet18",
    "torchvision.models.resnet50": "resnet50",
}


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


def test_each_added_name_has_its_own_entry(kb):
    for name, entry_id in ADDED.items():
        entry = kb.api_mapping(name)
        assert entry is not None, name
        assert entry.id == entry_id, name
        assert entry.source.strip() and entry.confidence, name
        if entry.mapping == "differs":
            assert entry.note and entry.effort_hours is not None, name


def test_documented_default_traps_are_not_marked_same(kb):
    # Each of these has a default that silently changes results when copied verbatim.
    for name, fragment in {
        "torch.flatten": "start_dim=1",
        "torch.nn.LeakyReLU": "0.2",
        "torch.nn.functional.avg_pool2d": "stride",
        "torch.nn.init.normal_": "0.01",
        "torch.optim.Adagrad": "0.001",
        "torch.nn.ConvTranspose2d": "pad_mode",
    }.items():
        entry = kb.api_mapping(name)
        assert entry.mapping == "differs", name
        assert fragment in entry.note, name
    assert kb.api_mapping("torch.backends.cudnn.benchmark").mapping == "none"


def test_scan_classifies_a_typical_training_script(tmp_path):
    (tmp_path / "train.py").write_text(
        textwrap.dedent(
            """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.utils.data import TensorDataset, Subset
        import torchvision

        torch.backends.cudnn.benchmark = True
        x = torch.rand(8, 3, 32, 32, dtype=torch.float32)
        y = torch.zeros(8, dtype=torch.long)
        ds = Subset(TensorDataset(x, y), [0, 1])
        act = nn.LeakyReLU(0.1)
        h = F.avg_pool2d(torch.flatten(x, 1), 2)
        opt = torch.optim.Adagrad([], lr=0.01)
        model = torchvision.models.resnet18()
        with torch.inference_mode():
            out = F.one_hot(y, 10)
        """
        )
    )
    result = scan_path(tmp_path)
    by_name = {a.name: a for a in result.apis}
    unmapped = {u.name for u in result.unmapped}
    for name in (
        "torch.backends.cudnn.benchmark",
        "torch.rand",
        "torch.float32",
        "torch.long",
        "torch.utils.data.Subset",
        "torch.utils.data.TensorDataset",
        "torch.nn.LeakyReLU",
        "torch.nn.functional.avg_pool2d",
        "torch.flatten",
        "torch.optim.Adagrad",
        "torchvision.models.resnet18",
        "torch.inference_mode",
        "torch.nn.functional.one_hot",
    ):
        assert name in by_name and name not in unmapped, name
        assert by_name[name].kb_id == ADDED[name], name
    # the specific entry wins over the torchvision.models parent
    assert by_name["torchvision.models.resnet18"].matched == "torchvision.models.resnet18"


_PROBE = """
import numpy as np
from mindspore import Tensor, nn, ops
x = Tensor(np.zeros((1, 2, 3, 4), np.float32))
print(ops.flatten(x).shape)
print(float(nn.LeakyReLU()(Tensor(np.array([-1.0], np.float32))).asnumpy()[0]))
print(ops.avg_pool2d(x, 2).shape)
print(isinstance(ops.max(Tensor(np.array([1.0, 3.0], np.float32))), tuple))
print([p.name for p in nn.GroupNorm(2, 4).get_parameters()])
"""


@pytest.mark.slow
def test_measured_here_claims_hold_on_installed_mindspore():
    """Runs MindSpore (CPU) in a child process so this test process never imports it."""
    if importlib.util.find_spec("mindspore") is None:
        pytest.skip("MindSpore not installed")
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [ln for ln in done.stdout.splitlines() if ln.strip()][-5:]
    assert lines[0] == "(1, 24)"  # start_dim defaults to 1
    assert abs(float(lines[1]) + 0.2) < 1e-6  # alpha defaults to 0.2
    assert lines[2] == "(1, 2, 2, 3)"  # stride defaults to 1, not kernel_size
    assert lines[3] == "True"  # ops.max returns (values, indices)
    assert lines[4] == "['gamma', 'beta']"
