"""The probe networks in PyTorch, built from specs.py (no torchvision) and loaded with the
canonical weights. Imports torch: use only in a torch worker."""

from __future__ import annotations

from typing import Optional

import numpy as np
import torch
from torch import nn

from probes.training import specs, weights


class LeNet5(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.relu = nn.ReLU()
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, specs.NUM_CLASSES)

    def forward(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def _bn(c: int) -> nn.BatchNorm2d:
    return nn.BatchNorm2d(c, eps=1e-5, momentum=0.1)  # = MindSpore momentum=0.9


class Block(nn.Module):
    def __init__(self, kind: str, cin: int, width: int, stride: int) -> None:
        super().__init__()
        exp = specs.EXPANSION[kind]
        self.kind = kind
        if kind == "basic":
            self.conv1 = nn.Conv2d(cin, width, 3, stride, 1, bias=False)
            self.bn1 = _bn(width)
            self.conv2 = nn.Conv2d(width, width, 3, 1, 1, bias=False)
            self.bn2 = _bn(width)
        else:
            self.conv1 = nn.Conv2d(cin, width, 1, 1, 0, bias=False)
            self.bn1 = _bn(width)
            self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
            self.bn2 = _bn(width)
            self.conv3 = nn.Conv2d(width, width * exp, 1, 1, 0, bias=False)
            self.bn3 = _bn(width * exp)
        self.relu = nn.ReLU()
        if stride != 1 or cin != width * exp:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, width * exp, 1, stride, 0, bias=False), _bn(width * exp))
        else:
            self.shortcut = nn.Sequential()

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        if self.kind == "basic":
            out = self.bn2(self.conv2(out))
        else:
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
        return self.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, model: str) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        self.bn1 = _bn(64)
        self.relu = nn.ReLU()
        stages: dict[int, list] = {}
        for prefix, kind, cin, width, stride in specs.iter_blocks(model):
            stage = int(prefix.split(".")[0][len("layer") :])
            stages.setdefault(stage, []).append(Block(kind, cin, width, stride))
        for stage, blocks in stages.items():
            setattr(self, f"layer{stage}", nn.Sequential(*blocks))
        self.fc = nn.Linear(specs.RESNET_WIDTHS[-1] * specs.EXPANSION[kind], specs.NUM_CLASSES)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = torch.flatten(torch.mean(x, dim=(2, 3)), 1)
        return self.fc(x)


def load_weights(net: nn.Module, arrays: dict[str, np.ndarray]) -> None:
    state = net.state_dict()
    for name, arr in arrays.items():
        if name not in state or tuple(state[name].shape) != tuple(arr.shape):
            raise ValueError(f"weight {name} {arr.shape} does not fit the torch network")
    net.load_state_dict({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()}, strict=False)


def export_state(net: nn.Module) -> dict[str, np.ndarray]:
    """Parameters and BN buffers under canonical names (num_batches_tracked dropped)."""
    return {
        k: v.detach().cpu().numpy().copy() for k, v in net.state_dict().items() if not k.endswith("num_batches_tracked")
    }


def param_count(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())


def build(model: str, init: Optional[dict] = None, seed: int = weights.DEFAULT_SEED) -> nn.Module:
    """The network `model` (lenet|resnet18|resnet50) with the canonical weights (or `init`),
    in training mode. Asserts the parameter count the spec pins."""
    specs.check_model(model)
    net = LeNet5() if model == "lenet" else ResNet(model)
    n = param_count(net)
    if n != specs.PARAM_COUNTS[model]:
        raise AssertionError(f"torch {model} has {n} parameters, expected {specs.PARAM_COUNTS[model]}")
    load_weights(net, init if init is not None else weights.canonical(model, seed))
    net.train()
    return net


def make_optimizer(
    net: nn.Module, lr: float = 0.01, momentum: float = 0.9, weight_decay: float = 5e-4
) -> torch.optim.Optimizer:
    return torch.optim.SGD(net.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay)
