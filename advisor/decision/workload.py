"""The workload model of a transformer: its shape (given, or derived from the parameter count by
published shapes, and said so) and the FLOPs a token costs.

FLOPs per token follow the standard accounting: 6 N (forward 2 N, backward 4 N; Kaplan et al. 2020,
"Scaling Laws for Neural Language Models", §2.1) plus the attention term 6 x 2 x layers x sequence x
hidden (the s x s score and value products, which 6 N leaves out; Kaplan's C = 6N + 6 n_layer n_ctx
d_attn with d_attn = hidden; Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on
GPU Clusters Using Megatron-LM", eq. 3, counts the same terms). Full activation recompute adds one
forward pass (2 N + the attention forward): 8 N instead of 6 N of hardware FLOPs, which Narayanan's
eq. 3 counts (the factor 4 instead of 3) and model FLOPs utilisation does not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from advisor.decision.constants import DEFAULT, Consts
from advisor.decision.findings import finding, said
from advisor.requirements import ModelSpec

# Published shapes, (parameters in billions, layers, hidden, heads, sequence, vocabulary, source; the
# catalogue names the model and its paper by the source's code).
# A model of another size takes the layers of the nearest row (in log size) and the hidden size
# that 12 x layers x hidden^2 = N gives, rounded to 128, 128-wide heads.
PUBLISHED_SHAPES: tuple[tuple[float, int, int, int, int, int, str], ...] = (
    (0.125, 12, 768, 12, 2048, 50257, "shape.source.gpt3_small"),
    (0.34, 24, 1024, 16, 512, 30522, "shape.source.bert_large"),
    (1.3, 24, 2048, 16, 2048, 50257, "shape.source.gpt3_xl"),
    (2.7, 32, 2560, 32, 2048, 50257, "shape.source.gpt3_2_7b"),
    (6.74, 32, 4096, 32, 4096, 32000, "shape.source.llama2_7b"),
    (13.0, 40, 5120, 40, 4096, 32000, "shape.source.llama2_13b"),
    (32.5, 60, 6656, 52, 2048, 32000, "shape.source.llama_33b"),
    (69.0, 80, 8192, 64, 4096, 32000, "shape.source.llama2_70b"),
    (175.0, 96, 12288, 96, 2048, 50257, "shape.source.gpt3_175b"),
)
# Within this share of a published size the published shape is taken as it is.
SAME_SIZE_SHARE = 0.15


@dataclass(frozen=True)
class Shape:
    layers: int
    hidden: int
    heads: int
    sequence: int
    vocabulary: int
    derived: list[str]
    """The fields not given in the requirements, with how they were derived."""


def shape_for(
    parameters_millions: float,
    layers: Optional[int] = None,
    hidden: Optional[int] = None,
    heads: Optional[int] = None,
    sequence: Optional[int] = None,
    vocabulary: Optional[int] = None,
) -> Shape:
    """The transformer's shape: given fields as given, the rest from the nearest published shape."""
    n = parameters_millions * 1e6
    row = min(PUBLISHED_SHAPES, key=lambda r: abs(math.log(r[0] * 1e9 / n)))
    size, r_layers, r_hidden, r_heads, r_seq, r_vocab, source = row
    published = finding(source)
    same = abs(size * 1e9 - n) <= SAME_SIZE_SHARE * size * 1e9
    derived: list[str] = []
    if layers is None:
        # the published row's depth only with its width: a stated width of another size sets the depth
        own = hidden is None or (same and hidden == r_hidden)
        layers = r_layers if own else max(1, round(n / (12 * hidden * hidden)))
        derived.append(said("shape.derived.published", field="layers", value=layers, source=published))
    if hidden is None:
        hidden = r_hidden if same and layers == r_layers else max(128, round(math.sqrt(n / (12 * layers)) / 128) * 128)
        if same and layers == r_layers:
            derived.append(said("shape.derived.published", field="hidden", value=hidden, source=published))
        else:
            derived.append(said("shape.derived.hidden_solved", hidden=hidden))
    if heads is None:
        heads = r_heads if same and hidden == r_hidden else max(1, hidden // 128)
        if same and hidden == r_hidden:
            derived.append(said("shape.derived.published", field="heads", value=heads, source=published))
        else:
            derived.append(said("shape.derived.heads_128", heads=heads))
    if sequence is None:
        sequence = r_seq
        derived.append(said("shape.derived.published", field="sequence", value=sequence, source=published))
    if vocabulary is None:
        vocabulary = r_vocab
        derived.append(said("shape.derived.published", field="vocabulary", value=vocabulary, source=published))
    return Shape(layers, hidden, heads, sequence, vocabulary, derived)


def active_parameters(model: ModelSpec) -> float:
    """Parameters a token passes through: every parameter of a dense model, the active ones of a MoE."""
    return (model.active_parameters_millions or model.parameters_millions) * 1e6


def trainable_share(m: ModelSpec, k: Consts = DEFAULT) -> float:
    """Share of the parameters with gradients and optimizer states: LoRA/QLoRA's adapters, else all."""
    return (m.trainable_share or k["LORA_TRAINABLE_SHARE"]) if m.fine_tune in ("lora", "qlora") else 1.0


def model_shape(model: ModelSpec) -> Shape:
    """The shape of a requirements' `model` (a transformer; a MoE's of its active size)."""
    return shape_for(
        active_parameters(model) / 1e6,
        model.layers,
        model.hidden_size,
        model.attention_heads,
        model.sequence_length,
        model.vocabulary,
    )


def train_flops_per_token(parameters: float, shape: Shape, trainable_share: float = 1.0) -> float:
    """Model FLOPs per training token: 6 N + 12 L s h (Kaplan et al. 2020). LoRA: the frozen weights
    still run forward (2 N) and propagate gradients to the activations (2 N), only the weight
    gradients (2 N) shrink to the trainable share."""
    dense = (4.0 + 2.0 * trainable_share) * parameters
    return dense + 12.0 * shape.layers * shape.sequence * shape.hidden


def inference_flops_per_token(parameters: float, shape: Shape) -> float:
    """Forward FLOPs per generated or scored token: 2 N + 4 L s h (the attention forward)."""
    return 2.0 * parameters + 4.0 * shape.layers * shape.sequence * shape.hidden
