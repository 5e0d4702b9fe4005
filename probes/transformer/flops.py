"""FLOPs per token of the GPT by the standard accounting (Kaplan et al. 2020 "Scaling Laws for
Neural Language Models" sec. 2.1; PaLM, Chowdhery et al. 2022, appendix B), standard library only.

    training FLOPs / token = 6 N + 12 L H S
      N = the matmul weights a token passes through: 12 L H^2 in the blocks (qkv 3H^2, proj H^2,
          mlp 4H^2 + 4H^2) + H V for the tied output head (a real matmul; the embedding lookups,
          biases, LayerNorm, softmax, GELU and the optimizer are not counted)
      6 = 2 FLOPs per multiply-accumulate x (forward + input gradient + weight gradient)
      12 L H S = attention scores (Q K^T) and the weighted sum (A V), 2 S H multiply-accumulates
          forward per token and layer, x3 with the backward, over the full S x S square (the
          causal half a kernel may skip is counted, as PaLM does)
"""

from __future__ import annotations

from probes.transformer.spec import MLP_RATIO, Shape


def matmul_params(s: Shape) -> int:
    per_layer = 3 * s.hidden**2 + s.hidden**2 + 2 * MLP_RATIO * s.hidden**2
    return s.layers * per_layer + s.hidden * s.vocab


def train_flops_per_token(s: Shape, length: int | None = None) -> int:
    seq = length or s.seq
    return 6 * matmul_params(s) + 12 * s.layers * s.hidden * seq


def describe(s: Shape) -> dict:
    return {
        "formula": "6 N + 12 L H S",
        "N_matmul_params": matmul_params(s),
        "attention_term": 12 * s.layers * s.hidden * s.seq,
        "train_flops_per_token": train_flops_per_token(s),
        "convention": "2 FLOPs per multiply-accumulate, matmuls only (Kaplan 2020; PaLM appendix B), "
        "tied head counted in N, causal half of attention counted",
    }
