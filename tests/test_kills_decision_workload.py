"""The transformer's shape and FLOPs per token, worked by hand from the published shapes table
(advisor/decision/workload.py PUBLISHED_SHAPES): which row a size takes, when the row's own depth, width
and heads are kept, what 12 x layers x hidden^2 = N gives otherwise, and 6 N + 12 L s h."""

from __future__ import annotations

import pytest

from advisor.decision.workload import (
    Shape,
    inference_flops_per_token,
    shape_for,
    train_flops_per_token,
    trainable_share,
)
from advisor.requirements import ModelSpec


def _dims(shape: Shape) -> tuple:
    return shape.layers, shape.hidden, shape.heads, shape.sequence, shape.vocabulary


def test_a_published_size_takes_its_row_whole():
    """1,300 M is GPT-3 XL: 24 layers, 2048 wide, 16 heads, 2048 tokens, 50,257 words; every field derived."""
    shape = shape_for(1300)
    assert _dims(shape) == (24, 2048, 16, 2048, 50257)
    assert len(shape.derived) == 5
    assert len(shape_for(1300, 24, 2048, 16, 2048, 50257).derived) == 0


def test_a_size_within_15_percent_of_a_row_is_that_row():
    """1,200 M is within 15% of 1.3 B (0.1 B < 0.195 B): the row as it is."""
    assert _dims(shape_for(1200)) == (24, 2048, 16, 2048, 50257)


def test_another_size_keeps_the_nearest_rows_depth_and_solves_the_width():
    """1,000 M: nearest row in log size is 1.3 B (log 1.3 = 0.26 against log(1 / 0.34) = 1.08), 30% away,
    so not the row: its 24 layers, hidden sqrt(1e9 / (12 x 24)) = 1863.4, rounded to 15 x 128 = 1920,
    1920 / 128 = 15 heads; its sequence and vocabulary."""
    assert _dims(shape_for(1000)) == (24, 1920, 15, 2048, 50257)


def test_a_stated_width_of_another_size_sets_the_depth_and_the_heads():
    """2,200 M is nearest 2.7 B (2560 wide, 32 heads) but 19% away: a stated hidden of 2560 gives
    2.2e9 / (12 x 2560^2) = 27.97 -> 28 layers, and 2560 / 128 = 20 heads, not the row's 32."""
    assert _dims(shape_for(2200, hidden=2560)) == (28, 2560, 20, 2048, 50257)


def test_the_rows_own_width_on_the_rows_size_keeps_its_depth_and_heads():
    assert _dims(shape_for(1300, hidden=2048)) == (24, 2048, 16, 2048, 50257)
    # another width on the row's size: 1.3e9 / (12 x 1024^2) = 103.3 -> 103 layers, 8 heads
    assert _dims(shape_for(1300, hidden=1024)) == (103, 1024, 8, 2048, 50257)


def test_a_stated_depth_solves_the_width():
    """1,300 M at 12 layers: sqrt(1.3e9 / 144) = 3004.6 -> 23 x 128 = 2944, 23 heads; at its own 24 layers
    the row's 2048."""
    assert _dims(shape_for(1300, layers=12)) == (12, 2944, 23, 2048, 50257)
    assert _dims(shape_for(1300, layers=24)) == (24, 2048, 16, 2048, 50257)


def test_tiny_models_are_at_least_one_layer_128_wide_one_head():
    """0.1 M: the 0.125 B row's 12 layers, sqrt(1e5 / 144) = 26 -> 0 x 128, so 128; 1 M at 4096 wide:
    1e6 / (12 x 4096^2) rounds to 0 layers, so 1."""
    assert _dims(shape_for(0.1))[:3] == (12, 128, 1)
    assert shape_for(1, hidden=4096).layers == 1
    assert _dims(shape_for(1, hidden=64)) == (20, 64, 1, 2048, 50257)  # 1e6 / (12 x 4096) = 20.3


def test_the_largest_rows():
    assert _dims(shape_for(175000)) == (96, 12288, 96, 2048, 50257)
    assert _dims(shape_for(6740)) == (32, 4096, 32, 4096, 32000)


_SHAPE = Shape(layers=24, hidden=2048, heads=16, sequence=2048, vocabulary=50257, derived=[])


def test_training_flops_per_token():
    """6 N + 12 L s h = 6e9 + 12 x 24 x 2048 x 2048 = 6e9 + 1,207,959,552; LoRA with 1% trained:
    (4 + 2 x 0.01) N + the attention."""
    assert train_flops_per_token(1e9, _SHAPE) == 7_207_959_552
    assert train_flops_per_token(1e9, _SHAPE, 0.01) == pytest.approx(4.02e9 + 1_207_959_552)


def test_inference_flops_per_token():
    """2 N + 4 L s h = 2e9 + 402,653,184; a third of training's for a dense model."""
    assert inference_flops_per_token(1e9, _SHAPE) == 2_402_653_184
    assert inference_flops_per_token(1e9, _SHAPE) * 3 == train_flops_per_token(1e9, _SHAPE)


def test_the_trainable_share_of_lora_and_full_training():
    base = {"family": "transformer", "parameters_millions": 1000, "source": "pytorch-code"}
    assert trainable_share(ModelSpec(**base)) == 1.0
    assert trainable_share(ModelSpec(**base, fine_tune="full")) == 1.0
    assert trainable_share(ModelSpec(**base, fine_tune="lora")) == 0.01  # LORA_TRAINABLE_SHARE
    assert trainable_share(ModelSpec(**base, fine_tune="qlora", trainable_share=0.05)) == 0.05


def test_a_size_near_a_row_takes_the_row_where_solving_would_differ():
    """6,000 M is within 15% of Llama-2 7B (0.74 B < 1.01 B): its 4096 wide, 32 heads, not the 3968 and 31
    that 12 x 32 x hidden^2 = 6e9 would give; 1,100 M is 15.4% from 1.3 B: solved, 1920 wide."""
    assert _dims(shape_for(6000)) == (32, 4096, 32, 4096, 32000)
    assert _dims(shape_for(1100))[:3] == (24, 1920, 15)
    assert _dims(shape_for(1110))[:3] == (24, 2048, 16)
