"""The GPT in MindSpore, the same definition as torch_gpt.py (spec.py), loaded with the canonical
weights. Imports mindspore: use only in a MindSpore worker.

MindSpore defaults overridden to match: nn.LayerNorm epsilon (1e-7 -> 1e-5), GELU approximation
(tanh, stated), and the attention is written out (MindSpore's FlashAttentionScore is Ascend-only).
The causal mask is built from a `positions` input, so the graph needs no shape-dependent constant
and the same cell runs with dynamic sequence lengths (Cell.set_inputs).
"""

from __future__ import annotations

import math

import mindspore as ms
import numpy as np
from mindspore import nn, ops

from probes.transformer import spec


class Attention(nn.Cell):
    def __init__(self, s: spec.Shape) -> None:
        super().__init__()
        self.heads, self.hidden = s.heads, s.hidden
        self.head_dim = s.hidden // s.heads
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.qkv = nn.Dense(s.hidden, 3 * s.hidden)
        self.proj = nn.Dense(s.hidden, s.hidden)

    def construct(self, x, positions):
        b, t = x.shape[0], x.shape[1]
        qkv = self.qkv(x).reshape(b, t, 3, self.heads, self.head_dim).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = ops.matmul(q, k.swapaxes(-2, -1)) * self.scale
        future = positions.reshape(1, -1) > positions.reshape(-1, 1)
        scores = ops.masked_fill(scores, future, float("-inf"))
        y = ops.matmul(ops.softmax(scores, axis=-1), v)
        return self.proj(y.transpose(0, 2, 1, 3).reshape(b, t, self.hidden))


class Mlp(nn.Cell):
    def __init__(self, s: spec.Shape) -> None:
        super().__init__()
        self.fc = nn.Dense(s.hidden, spec.MLP_RATIO * s.hidden)
        self.proj = nn.Dense(spec.MLP_RATIO * s.hidden, s.hidden)

    def construct(self, x):
        return self.proj(ops.gelu(self.fc(x), approximate=spec.GELU_APPROXIMATE))


class Block(nn.Cell):
    def __init__(self, s: spec.Shape) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm((s.hidden,), epsilon=spec.LN_EPS)
        self.attn = Attention(s)
        self.ln2 = nn.LayerNorm((s.hidden,), epsilon=spec.LN_EPS)
        self.mlp = Mlp(s)

    def construct(self, x, positions):
        x = x + self.attn(self.ln1(x), positions)
        return x + self.mlp(self.ln2(x))


class Gpt(nn.Cell):
    def __init__(self, s: spec.Shape) -> None:
        super().__init__()
        self.tok_emb = nn.Embedding(s.vocab, s.hidden)
        self.pos_emb = nn.Embedding(s.seq, s.hidden)
        self.blocks = nn.CellList([Block(s) for _ in range(s.layers)])
        self.ln_f = nn.LayerNorm((s.hidden,), epsilon=spec.LN_EPS)

    def construct(self, tokens, positions):
        x = self.tok_emb(tokens) + self.pos_emb(positions)
        for blk in self.blocks:
            x = blk(x, positions)
        return ops.matmul(self.ln_f(x), self.tok_emb.embedding_table.T)  # the tied head


class WithLoss(nn.Cell):
    """Mean cross-entropy over the real (weight 1) tokens, as torch_gpt.loss."""

    def __init__(self, net: Gpt) -> None:
        super().__init__(auto_prefix=False)
        self.net = net

    def construct(self, tokens, targets, weights, positions):
        logits = self.net(tokens, positions)
        vocab = logits.shape[-1]
        ce = ops.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1), reduction="none")
        w = weights.reshape(-1)
        return (ce * w).sum() / w.sum()


def _params(net: nn.Cell) -> dict:
    return {p.name: p for p in net.get_parameters()}


def build(s: spec.Shape, init: dict | None = None) -> Gpt:
    from probes.transformer import weights

    s.check()
    net = Gpt(s)
    params = _params(net)
    n = sum(int(np.prod(p.shape)) for p in params.values())
    if n != spec.param_count(s):
        raise AssertionError(f"MindSpore GPT has {n} parameters, the spec {spec.param_count(s)}")
    arrays = init if init is not None else weights.canonical(s)
    for name, arr in arrays.items():
        p = params.get(spec.mindspore_name(name))
        if p is None or tuple(p.shape) != tuple(arr.shape):
            raise ValueError(f"weight {name} {arr.shape} does not fit the MindSpore GPT")
        p.set_data(ms.Tensor(np.ascontiguousarray(arr, dtype=np.float32)))
    net.set_train(True)
    return net


def optimizer(net: nn.Cell) -> nn.Optimizer:
    group = [{"params": net.trainable_params(), "weight_decay": spec.WEIGHT_DECAY}]
    return nn.Momentum(group, learning_rate=spec.LR, momentum=spec.MOMENTUM)


def export(net: nn.Cell, s: spec.Shape) -> dict[str, np.ndarray]:
    params = _params(net)
    return {t.name: params[spec.mindspore_name(t.name)].asnumpy().copy() for t in spec.tensors(s)}
