"""The GPT in PyTorch (spec.py is the definition), loaded with the canonical weights.

`attention="sdpa"` uses F.scaled_dot_product_attention(is_causal=True) (the fused kernel torch
picks); `attention="manual"` is the same arithmetic written out (softmax(QK^T/sqrt(d) + mask) V),
the path MindSpore takes on CPU, so the two can be timed against each other.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from probes.transformer import spec


class Attention(nn.Module):
    def __init__(self, s: spec.Shape, kind: str) -> None:
        super().__init__()
        self.heads, self.kind = s.heads, kind
        self.qkv = nn.Linear(s.hidden, 3 * s.hidden)
        self.proj = nn.Linear(s.hidden, s.hidden)

    def forward(self, x):
        b, t, h = x.shape
        q, k, v = self.qkv(x).split(h, dim=2)
        q, k, v = (z.view(b, t, self.heads, h // self.heads).transpose(1, 2) for z in (q, k, v))
        if self.kind == "sdpa":
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(h // self.heads))
            pos = torch.arange(t, device=x.device)
            scores = scores.masked_fill(pos[None, :] > pos[:, None], float("-inf"))
            y = torch.softmax(scores, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, h))


class Mlp(nn.Module):
    def __init__(self, s: spec.Shape) -> None:
        super().__init__()
        self.fc = nn.Linear(s.hidden, spec.MLP_RATIO * s.hidden)
        self.proj = nn.Linear(spec.MLP_RATIO * s.hidden, s.hidden)

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x), approximate=spec.GELU_APPROXIMATE))


class Block(nn.Module):
    def __init__(self, s: spec.Shape, attention: str) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(s.hidden, eps=spec.LN_EPS)
        self.attn = Attention(s, attention)
        self.ln2 = nn.LayerNorm(s.hidden, eps=spec.LN_EPS)
        self.mlp = Mlp(s)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Gpt(nn.Module):
    def __init__(self, s: spec.Shape, attention: str = "sdpa") -> None:
        super().__init__()
        self.tok_emb = nn.Embedding(s.vocab, s.hidden)
        self.pos_emb = nn.Embedding(s.seq, s.hidden)
        self.blocks = nn.ModuleList([Block(s, attention) for _ in range(s.layers)])
        self.ln_f = nn.LayerNorm(s.hidden, eps=spec.LN_EPS)

    def forward(self, tokens):
        pos = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.tok_emb(tokens) + self.pos_emb(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.ln_f(x) @ self.tok_emb.weight.t()  # the tied head


def loss(logits, targets, weights):
    """Mean cross-entropy over the real (weight 1) tokens."""
    ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="none")
    w = weights.reshape(-1)
    return (ce * w).sum() / w.sum()


def build(s: spec.Shape, attention: str = "sdpa", init: dict | None = None) -> Gpt:
    from probes.transformer import weights

    s.check()
    net = Gpt(s, attention)
    n = sum(p.numel() for p in net.parameters())
    if n != spec.param_count(s):
        raise AssertionError(f"PyTorch GPT has {n} parameters, the spec {spec.param_count(s)}")
    arrays = init if init is not None else weights.canonical(s)
    state = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()}
    net.load_state_dict(state, strict=True)
    return net.train()


def optimizer(net: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.SGD(net.parameters(), lr=spec.LR, momentum=spec.MOMENTUM, weight_decay=spec.WEIGHT_DECAY)


def export(net: nn.Module) -> dict[str, np.ndarray]:
    return {k: v.detach().cpu().numpy().copy() for k, v in net.state_dict().items()}
