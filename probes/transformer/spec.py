"""The GPT's shape and parameter list, one definition for both frameworks (standard library only).

Decoder-only, pre-LN blocks (x + attn(ln1(x)), x + mlp(ln2(x))), learned positions, causal
self-attention, GELU with the tanh approximation, LayerNorm eps 1e-5, a final LayerNorm, and the
output head tied to the token embedding (logits = h @ tok_emb.weight^T: no separate head matrix).
Canonical names are PyTorch's; MindSpore's differ where its cells name them differently.
"""

from __future__ import annotations

from dataclasses import dataclass

LN_EPS = 1e-5  # torch's default; MindSpore's nn.LayerNorm default is 1e-7 (set explicitly there)
GELU_APPROXIMATE = "tanh"  # torch's default is exact erf; MindSpore's nn.GELU default is tanh
MLP_RATIO = 4
INIT_STD = 0.02  # GPT-2: normal(0, 0.02); residual projections scaled by 1/sqrt(2 layers)

# The optimizer, the same in both: SGD with momentum (torch.optim.SGD = mindspore nn.Momentum).
# Not AdamW: MindSpore's nn.AdamWeightDecay divides m by sqrt(v) + eps without Adam's bias
# correction (torch.optim.AdamW applies it), so the same hyper-parameters would not be the same rule.
LR = 0.01
MOMENTUM = 0.9
WEIGHT_DECAY = 0.0


@dataclass(frozen=True)
class Shape:
    layers: int = 4
    hidden: int = 256
    heads: int = 4
    seq: int = 128
    vocab: int = 8192

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    def check(self) -> None:
        if self.hidden % self.heads:
            raise ValueError(f"hidden {self.hidden} is not a multiple of heads {self.heads}")


@dataclass(frozen=True)
class Tensor:
    name: str  # canonical (PyTorch) name
    shape: tuple
    kind: str  # embedding | linear_weight | linear_bias | ln_weight | ln_bias
    residual: bool = False  # a residual projection (GPT-2 scales its init)


def tensors(s: Shape) -> list[Tensor]:
    h, f = s.hidden, MLP_RATIO * s.hidden
    out = [Tensor("tok_emb.weight", (s.vocab, h), "embedding"), Tensor("pos_emb.weight", (s.seq, h), "embedding")]
    for i in range(s.layers):
        p = f"blocks.{i}."
        out += [
            Tensor(p + "ln1.weight", (h,), "ln_weight"),
            Tensor(p + "ln1.bias", (h,), "ln_bias"),
            Tensor(p + "attn.qkv.weight", (3 * h, h), "linear_weight"),
            Tensor(p + "attn.qkv.bias", (3 * h,), "linear_bias"),
            Tensor(p + "attn.proj.weight", (h, h), "linear_weight", residual=True),
            Tensor(p + "attn.proj.bias", (h,), "linear_bias"),
            Tensor(p + "ln2.weight", (h,), "ln_weight"),
            Tensor(p + "ln2.bias", (h,), "ln_bias"),
            Tensor(p + "mlp.fc.weight", (f, h), "linear_weight"),
            Tensor(p + "mlp.fc.bias", (f,), "linear_bias"),
            Tensor(p + "mlp.proj.weight", (h, f), "linear_weight", residual=True),
            Tensor(p + "mlp.proj.bias", (h,), "linear_bias"),
        ]
    out += [Tensor("ln_f.weight", (h,), "ln_weight"), Tensor("ln_f.bias", (h,), "ln_bias")]
    return out


def param_count(s: Shape) -> int:
    total = 0
    for t in tensors(s):
        n = 1
        for d in t.shape:
            n *= d
        total += n
    return total


def mindspore_name(name: str) -> str:
    """MindSpore's parameter name: LayerNorm gamma/beta, Embedding embedding_table."""
    if name.endswith("emb.weight"):
        return name[: -len("weight")] + "embedding_table"
    if ".ln" in name or name.startswith("ln_f."):
        return name.replace(".weight", ".gamma").replace(".bias", ".beta")
    return name


# The convention differences between the two frameworks' defaults, each overridden so both run
# the same model (shown with the parity result).
CONVENTIONS = [
    "layer-norm epsilon: torch nn.LayerNorm 1e-5, MindSpore nn.LayerNorm 1e-7 by default: 1e-5 in both",
    "GELU: torch nn.GELU exact (erf) by default, MindSpore nn.GELU tanh by default: tanh in both",
    "attention mask: torch SDPA is_causal=True (upper triangle -inf), MindSpore has no CPU fused "
    "attention: the same mask built from the positions and filled with -inf by hand",
    "weight tying: the head reuses the token embedding in both (MindSpore's parameter "
    "tok_emb.embedding_table, torch tok_emb.weight); its gradient sums both uses",
    "initialisation: one NumPy weight set (normal 0.02, residual projections 0.02/sqrt(2 layers), "
    "biases 0, LayerNorm 1/0) loaded into both; neither framework's own init is used",
    "LayerNorm parameters: torch weight/bias, MindSpore gamma/beta (renamed on load)",
    "optimizer: SGD momentum (torch SGD = MindSpore nn.Momentum); not AdamW: MindSpore's "
    "nn.AdamWeightDecay has no bias correction",
]
