"""Held-out workloads: an engineer's hand figures, worked out before the tool was run, with the rules an
engineer uses (6 N FLOPs a token, 4 N for a frozen base, + 2 N for full recompute; 16 bytes a parameter
of mixed-precision Adam; an MFU range from experience; the market's hourly price; weights + KV cache and
bandwidth for serving). The tool's middle must land within 0.5-2x of the hand figure's middle for
memory, time and cost, and an inadequate serving box must be said to be inadequate."""

from __future__ import annotations

import copy

import pytest

from advisor.decision.projections import project
from advisor.requirements import parse_requirements


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def team(params_m: float, accelerator: str, devices: int, target: str, tokens: float, **model) -> dict:
    return {
        "name": "held-out",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "basic", "size": 6},
        "hardware": {
            "available": [target],
            "training_target": target,
            "accelerator": accelerator,
            "devices": devices,
            "network": "roce-ib",
        },
        "deployment": {"targets": [f"{target}-server"]},
        "model": {"family": "transformer", "parameters_millions": params_m, "source": "pytorch-code", **model},
        "needs": {"distributed_training": devices > 1},
        "workload": {"model": "transformer", "tokens": tokens},
    }


def mid(low: float, high: float) -> float:
    return (low + high) / 2


def within_half_to_twice(tool: float, hand: float) -> bool:
    return 0.5 <= tool / hand <= 2.0


def run(kb, data, workflow="pytorch"):
    return project(workflow, parse_requirements(copy.deepcopy(data)), kb, [])


def test_a_13b_continued_pretraining_on_32_910b(kb):
    """By hand: 6 x 13e9 = 78 GFLOP a token x 1e11 tokens = 7.8e21 FLOPs over 32 x 280 TFLOPS at 35-50% MFU:
    482-672 h. Model states 13e9 x 16 B = 208 GB. At $1.5-3 per NPU-hour: $23k-65k."""
    p = run(kb, team(13000, "Ascend 910B", 32, "ascend", 1e11, from_checkpoint=True), "mindspore")
    assert within_half_to_twice(p.time_to_train_hours.mid, mid(482, 672))
    assert within_half_to_twice(p.memory.states_gb, 208)
    assert within_half_to_twice(p.compute_cost_usd.mid, mid(482 * 32 * 1.5, 672 * 32 * 3))


def test_a_mixture_of_experts_on_32_h100(kb):
    """A Mixtral-size MoE (46.7B, 12.9B active, 8 experts, top 2), 2e11 tokens. By hand: 6 x 12.9e9 = 77.4 GFLOP
    a token (the active parameters) = 1.55e22 FLOPs over 32 x 989 TFLOPS at 25-40% MFU (the all-to-all
    costs): 340-545 h. States: every expert, 46.7e9 x 16 B = 747 GB: sharded over the 32. $2.5-3.5/h."""
    data = team(46700, "H100", 32, "nvidia", 2e11, experts=8, experts_per_token=2, active_parameters_millions=12900)
    p = run(kb, data)
    assert within_half_to_twice(p.time_to_train_hours.mid, mid(340, 545))
    assert within_half_to_twice(p.memory.states_gb, 747)
    assert p.memory.must_split and p.memory.strategy != "does-not-fit"
    assert within_half_to_twice(p.compute_cost_usd.mid, mid(340 * 32 * 2.5, 545 * 32 * 3.5))


def test_a_70b_lora_with_full_recompute_on_8_a100(kb):
    """1e9 tokens of LoRA on a 70B (1% trained), full recompute. By hand: a frozen base runs forward (2N) and
    back to the activations (2N), recompute adds a forward (2N): 6 x 70e9 = 420 GFLOP a token = 4.2e20 FLOPs
    over 8 x 312 TFLOPS at 30-45%: 83-125 h. $1.3-2 per A100-hour: $860-2,000."""
    data = team(70000, "A100 80GB", 8, "nvidia", 1e9, fine_tune="lora", trainable_share=0.01, recompute="full")
    p = run(kb, data)
    assert within_half_to_twice(p.time_to_train_hours.mid, mid(83, 125))
    # the bf16 base alone is 140 GB: it must be split over the 8 cards
    assert p.memory.must_split and p.memory.strategy != "does-not-fit"
    assert within_half_to_twice(p.compute_cost_usd.mid, mid(83 * 8 * 1.3, 125 * 8 * 2))


def test_a_70b_qlora_on_one_h100(kb):
    """2e7 tokens of QLoRA on a 70B, one H100, full recompute. By hand: 420 GFLOP a token (as LoRA) =
    8.4e18 FLOPs at 25-40% of 989 TFLOPS (dequantising the 4-bit base costs): 5.9-9.4 h. Memory: the 4-bit
    base ~0.5 B a parameter = 35 GB + the 0.7B adapters at 16 B = 11.2 GB: 46 GB, it fits one card."""
    data = team(70000, "H100", 1, "nvidia", 2e7, fine_tune="qlora", trainable_share=0.01, recompute="full")
    p = run(kb, data)
    assert within_half_to_twice(p.time_to_train_hours.mid, mid(5.9, 9.4))
    assert within_half_to_twice(p.memory.states_gb, 35 + 11.2)
    assert not p.memory.must_split
    assert within_half_to_twice(p.compute_cost_usd.mid, mid(5.9 * 2.5, 9.4 * 3.5))


def test_a_7b_chat_service_on_two_l40s(kb):
    """32 chats in flight, 512-token prompts, 256-token answers, 7B in bf16 on 2 x L40S (48 GB, 864 GB/s,
    362 TFLOPS). By hand, per card (16 chats): a decode step reads 14 GB + 16 x 131 kB x 640 = 15.3 GB at
    ~60% of 864 GB/s: 30 ms; a prompt's prefill 2 x 7e9 x 512 FLOPs at ~40% of 362 TFLOPS: 50 ms; each
    chat takes 16 x 50 ms + 256 x 30 ms = 8.5 s: 1.9 chats/s, 480 answer tokens/s a card, ~960 for two."""
    data = team(7000, "L40S", 2, "nvidia", 1.0)
    data["workload"] = {"model": "transformer", "kind": "inference"}
    data["serving"] = {"concurrency": 32, "prompt_tokens": 512, "output_tokens": 256}
    s = run(kb, data).serving
    assert within_half_to_twice(s.capacity.output_tokens_per_second.mid, 960)
    assert s.slo.verdict == "meets"


def test_the_inadequate_agent_box_is_called_inadequate(kb):
    """The issue's 32B for 300 agents (8K prompts) on 4 x Atlas 300I Duo, held to 15 s to the first token and
    200 ms a token: by hand a card holds 9 such requests beside its 64 GB of fp16 weights, so 300 need 34+
    cards' memory before latency is counted: inadequate, and the verdict names a count above that."""
    data = team(32000, "Atlas 300I Duo", 4, "ascend", 1.0)
    data["workload"] = {"model": "transformer", "kind": "inference"}
    data["serving"] = {
        "concurrency": 300,
        "prompt_tokens": 8192,
        "output_tokens": 256,
        "ttft_ms": 15000,
        "tpot_ms": 200,
    }
    slo = run(kb, data).serving.slo
    assert slo.verdict == "needs-devices" and slo.devices_needed >= 34
