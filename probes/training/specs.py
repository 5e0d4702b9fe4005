"""The architectures as plain data: the one description both frameworks' networks are built from.

A spec lists each parameter/buffer by its canonical (PyTorch state_dict) name and shape, so the
canonical weights (weights.py), the analytic FLOPs (flops.py) and the parameter-count asserts all
derive from one place and cannot drift apart between frameworks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

MODELS = ("lenet", "resnet18", "resnet50")

# Parameter counts the issue pins (trainable parameters, BN running stats excluded).
PARAM_COUNTS = {"lenet": 61_706, "resnet18": 11_173_962, "resnet50": 23_520_842}

NUM_CLASSES = 10
IMAGE_SIZE = 32

# Stage layout of the CIFAR-style ResNets (3x3 stem, no max-pool).
RESNET_BLOCKS = {"resnet18": ("basic", (2, 2, 2, 2)), "resnet50": ("bottleneck", (3, 4, 6, 3))}
RESNET_WIDTHS = (64, 128, 256, 512)
EXPANSION = {"basic": 1, "bottleneck": 4}


@dataclass(frozen=True)
class Tensor:
    name: str  # canonical name, e.g. "layer1.0.conv1.weight"
    shape: tuple
    kind: str  # conv_weight | conv_bias | linear_weight | linear_bias | bn_weight | bn_bias
    # | bn_mean | bn_var
    trainable: bool = True


@dataclass(frozen=True)
class Layer:
    """One compute layer with its input size, for the FLOPs count."""

    name: str
    op: str  # conv | linear | bn | relu | pool | add
    cin: int
    cout: int
    k: int = 1
    stride: int = 1
    hin: int = 1  # input spatial size (square)
    hout: int = 1


def input_channels(model: str) -> int:
    return 1 if model == "lenet" else 3


def check_model(model: str) -> str:
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; expected one of {', '.join(MODELS)}")
    return model


def layers(model: str) -> list[Layer]:
    """The network as a list of compute layers in forward order (with spatial sizes)."""
    check_model(model)
    if model == "lenet":
        return [
            Layer("conv1", "conv", 1, 6, 5, 1, 32, 28),
            Layer("relu1", "relu", 6, 6, hin=28, hout=28),
            Layer("pool1", "pool", 6, 6, 2, 2, 28, 14),
            Layer("conv2", "conv", 6, 16, 5, 1, 14, 10),
            Layer("relu2", "relu", 16, 16, hin=10, hout=10),
            Layer("pool2", "pool", 16, 16, 2, 2, 10, 5),
            Layer("fc1", "linear", 400, 120),
            Layer("fc2", "linear", 120, 84),
            Layer("fc3", "linear", 84, NUM_CLASSES),
        ]
    block, counts = RESNET_BLOCKS[model]
    exp = EXPANSION[block]
    out = [Layer("conv1", "conv", 3, 64, 3, 1, 32, 32), Layer("bn1", "bn", 64, 64, hin=32, hout=32)]
    cin, size = 64, 32
    for stage, (width, n) in enumerate(zip(RESNET_WIDTHS, counts), start=1):
        for i in range(n):
            stride = 2 if (i == 0 and stage > 1) else 1
            p = f"layer{stage}.{i}"
            hout = size // stride
            if block == "basic":
                out += [
                    Layer(f"{p}.conv1", "conv", cin, width, 3, stride, size, hout),
                    Layer(f"{p}.bn1", "bn", width, width, hin=hout, hout=hout),
                    Layer(f"{p}.conv2", "conv", width, width, 3, 1, hout, hout),
                    Layer(f"{p}.bn2", "bn", width, width, hin=hout, hout=hout),
                ]
            else:  # bottleneck, stride on the 3x3 conv (v1.5)
                out += [
                    Layer(f"{p}.conv1", "conv", cin, width, 1, 1, size, size),
                    Layer(f"{p}.bn1", "bn", width, width, hin=size, hout=size),
                    Layer(f"{p}.conv2", "conv", width, width, 3, stride, size, hout),
                    Layer(f"{p}.bn2", "bn", width, width, hin=hout, hout=hout),
                    Layer(f"{p}.conv3", "conv", width, width * exp, 1, 1, hout, hout),
                    Layer(f"{p}.bn3", "bn", width * exp, width * exp, hin=hout, hout=hout),
                ]
            if stride != 1 or cin != width * exp:
                out += [
                    Layer(f"{p}.shortcut.0", "conv", cin, width * exp, 1, stride, size, hout),
                    Layer(f"{p}.shortcut.1", "bn", width * exp, width * exp, hin=hout, hout=hout),
                ]
            cin, size = width * exp, hout
    out.append(Layer("fc", "linear", cin, NUM_CLASSES))
    return out


def tensors(model: str) -> list[Tensor]:
    """Every parameter and BN buffer, in PyTorch state_dict order (num_batches_tracked excluded)."""
    out: list[Tensor] = []
    for ly in layers(model):
        if ly.op == "conv":
            out.append(Tensor(f"{ly.name}.weight", (ly.cout, ly.cin, ly.k, ly.k), "conv_weight"))
            if model == "lenet":  # the ResNets' convs have no bias (BN follows)
                out.append(Tensor(f"{ly.name}.bias", (ly.cout,), "conv_bias"))
        elif ly.op == "linear":
            out.append(Tensor(f"{ly.name}.weight", (ly.cout, ly.cin), "linear_weight"))
            out.append(Tensor(f"{ly.name}.bias", (ly.cout,), "linear_bias"))
        elif ly.op == "bn":
            c = ly.cout
            out += [
                Tensor(f"{ly.name}.weight", (c,), "bn_weight"),
                Tensor(f"{ly.name}.bias", (c,), "bn_bias"),
                Tensor(f"{ly.name}.running_mean", (c,), "bn_mean", False),
                Tensor(f"{ly.name}.running_var", (c,), "bn_var", False),
            ]
    return out


def param_count(model: str) -> int:
    n = 0
    for t in tensors(model):
        if t.trainable:
            size = 1
            for d in t.shape:
                size *= d
            n += size
    return n


# Canonical (PyTorch) name -> MindSpore name. Structure names are the same in both networks;
# only the BatchNorm parameter names differ.
_MS_BN = {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean", "running_var": "moving_variance"}


def mindspore_name(t: Tensor) -> str:
    if t.kind.startswith("bn_"):
        base, leaf = t.name.rsplit(".", 1)
        return f"{base}.{_MS_BN[leaf]}"
    return t.name


def iter_blocks(model: str) -> Iterator[tuple[str, str, int, int, int]]:
    """(prefix, block kind, cin, width, stride) for each residual block, in order."""
    block, counts = RESNET_BLOCKS[model]
    cin = 64
    for stage, (width, n) in enumerate(zip(RESNET_WIDTHS, counts), start=1):
        for i in range(n):
            stride = 2 if (i == 0 and stage > 1) else 1
            yield f"layer{stage}.{i}", block, cin, width, stride
            cin = width * EXPANSION[block]
