"""Analytic FLOPs of the probe networks (pure python, from specs.py).

Convention (as torch.utils.flop_counter and MLPerf "utilisation"): only convolutions and matrix
multiplies count, 2 FLOPs per multiply-accumulate; BN, ReLU, pooling, adds and the optimizer are
ignored. Training = forward + backward (grad of input + grad of weights), except the first layer,
whose input needs no gradient: 3 x forward - first layer's forward.
"""

from __future__ import annotations

from probes.training import specs


def forward_macs(model: str) -> int:
    """Multiply-accumulates of one image's forward pass (conv + linear)."""
    total = 0
    for ly in specs.layers(model):
        if ly.op == "conv":
            total += ly.cout * ly.hout * ly.hout * ly.cin * ly.k * ly.k
        elif ly.op == "linear":
            total += ly.cin * ly.cout
    return total


def _first_layer_macs(model: str) -> int:
    ly = specs.layers(model)[0]
    return ly.cout * ly.hout * ly.hout * ly.cin * ly.k * ly.k


def train_flops_per_image(model: str) -> int:
    """FLOPs (= 2 x MACs) of one image's forward + backward, matmul/conv only."""
    fwd = forward_macs(model)
    return 2 * (3 * fwd - _first_layer_macs(model))


def describe(model: str) -> dict:
    return {
        "forward_macs": forward_macs(model),
        "forward_flops": 2 * forward_macs(model),
        "train_flops_per_image": train_flops_per_image(model),
        "convention": "conv+matmul only, 2 FLOPs per MAC; training = 3 x forward minus the "
        "first layer's input gradient",
    }
