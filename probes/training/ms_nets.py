"""The probe networks in MindSpore, the same architectures as torch_nets.py, loaded with the
canonical weights. Imports mindspore: use only in a MindSpore worker (GLOG_v set before import).

The MindSpore defaults that silently differ from PyTorch are overridden here: Conv2d
pad_mode='pad' (not 'same') and has_bias (False by default), BatchNorm momentum=0.9 (MindSpore's
convention = torch 0.1), MaxPool2d stride=2 (default 1), and cells start in inference mode
(build() calls set_train()), and nn.Momentum's weight decay skipping
BatchNorm gamma/beta (make_optimizer).
"""

from __future__ import annotations

from typing import Optional

import mindspore as ms
import numpy as np
from mindspore import nn, ops

from probes.training import specs, weights


def _conv(cin, cout, k, stride=1, pad=0, bias=False):
    return nn.Conv2d(cin, cout, k, stride=stride, pad_mode="pad", padding=pad, has_bias=bias)


def _bn(c):
    return nn.BatchNorm2d(c, eps=1e-5, momentum=0.9)


class LeNet5(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = _conv(1, 6, 5, bias=True)
        self.conv2 = _conv(6, 16, 5, bias=True)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(400, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, specs.NUM_CLASSES)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


class Block(nn.Cell):
    def __init__(self, kind: str, cin: int, width: int, stride: int) -> None:
        super().__init__()
        exp = specs.EXPANSION[kind]
        self.basic = kind == "basic"
        if self.basic:
            self.conv1 = _conv(cin, width, 3, stride, 1)
            self.bn1 = _bn(width)
            self.conv2 = _conv(width, width, 3, 1, 1)
            self.bn2 = _bn(width)
        else:
            self.conv1 = _conv(cin, width, 1)
            self.bn1 = _bn(width)
            self.conv2 = _conv(width, width, 3, stride, 1)
            self.bn2 = _bn(width)
            self.conv3 = _conv(width, width * exp, 1)
            self.bn3 = _bn(width * exp)
        self.relu = nn.ReLU()
        self.has_shortcut = stride != 1 or cin != width * exp
        if self.has_shortcut:
            self.shortcut = nn.SequentialCell([_conv(cin, width * exp, 1, stride), _bn(width * exp)])

    def construct(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        if self.basic:
            out = self.bn2(self.conv2(out))
        else:
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
        if self.has_shortcut:
            x = self.shortcut(x)
        return self.relu(out + x)


class ResNet(nn.Cell):
    def __init__(self, model: str) -> None:
        super().__init__()
        self.conv1 = _conv(3, 64, 3, 1, 1)
        self.bn1 = _bn(64)
        self.relu = nn.ReLU()
        stages: dict[int, list] = {}
        kind = "basic"
        for prefix, kind, cin, width, stride in specs.iter_blocks(model):
            stage = int(prefix.split(".")[0][len("layer") :])
            stages.setdefault(stage, []).append(Block(kind, cin, width, stride))
        self.layer1 = nn.SequentialCell(stages[1])
        self.layer2 = nn.SequentialCell(stages[2])
        self.layer3 = nn.SequentialCell(stages[3])
        self.layer4 = nn.SequentialCell(stages[4])
        self.mean = ops.ReduceMean(keep_dims=False)
        self.fc = nn.Dense(specs.RESNET_WIDTHS[-1] * specs.EXPANSION[kind], specs.NUM_CLASSES)

    def construct(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.mean(x, (2, 3)))


def _params(net: nn.Cell) -> dict:
    return {p.name: p for p in net.get_parameters()}


def load_weights(net: nn.Cell, model: str, arrays: dict[str, np.ndarray]) -> None:
    params = _params(net)
    names = weights.mindspore_names(model)
    for name, arr in arrays.items():
        p = params.get(names.get(name, name))
        if p is None or tuple(p.shape) != tuple(arr.shape):
            raise ValueError(f"weight {name} {arr.shape} does not fit the MindSpore network")
        p.set_data(ms.Tensor(np.ascontiguousarray(arr, dtype=np.float32)))


def export_state(net: nn.Cell, model: str) -> dict[str, np.ndarray]:
    """Parameters and BN statistics under canonical (PyTorch) names, in canonical order."""
    params = _params(net)
    return {canon: params[msname].asnumpy().copy() for canon, msname in weights.mindspore_names(model).items()}


def param_count(net: nn.Cell) -> int:
    return int(sum(int(np.prod(p.shape)) for p in net.trainable_params()))


def build(model: str, init: Optional[dict] = None, seed: int = weights.DEFAULT_SEED) -> nn.Cell:
    """The network `model` (lenet|resnet18|resnet50) with the canonical weights (or `init`),
    in training mode. Asserts the parameter count the spec pins."""
    specs.check_model(model)
    net = LeNet5() if model == "lenet" else ResNet(model)
    n = param_count(net)
    if n != specs.PARAM_COUNTS[model]:
        raise AssertionError(f"MindSpore {model} has {n} parameters, expected {specs.PARAM_COUNTS[model]}")
    load_weights(net, model, init if init is not None else weights.canonical(model, seed))
    net.set_train(True)
    return net


def make_optimizer(net: nn.Cell, lr: float = 0.01, momentum: float = 0.9, weight_decay: float = 5e-4) -> nn.Optimizer:
    """nn.Momentum = torch SGD(momentum) with weight decay on every parameter, as torch does.

    Passed as one parameter group on purpose: with a plain parameter list MindSpore silently
    skips weight decay on BatchNorm gamma/beta (names containing 'gamma'/'beta'); parity caught
    it as a 5e-6 (= lr x wd x gamma) difference after one step."""
    group = [{"params": net.trainable_params(), "weight_decay": weight_decay}]
    return nn.Momentum(group, learning_rate=lr, momentum=momentum)


def loss_fn() -> nn.Cell:
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
