"""Serving an LLM against its load and latency targets (`serving:`), from hand arithmetic: weights at the
served width plus the KV cache of every request in flight against usable memory, prefill from
compute, decode from bandwidth, the verdict and the devices that would meet the targets, the
precisions a device and a route can serve, and MLPerf rows rescaled by their bytes per weight."""

from __future__ import annotations

import copy
import dataclasses
import math

import pytest

from advisor.decision.projections import project
from advisor.decision.workflows import routes
from advisor.requirements import parse_requirements
from knowledge.models import Route as StackRoute

GB, GIB = 1e9, 2**30


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def service(params_m: float, accelerator: str, devices: int, target: str, **serving) -> dict:
    return {
        "name": "llm service",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
        "hardware": {"available": [target], "training_target": target, "accelerator": accelerator, "devices": devices},
        "deployment": {"targets": [f"{target}-server"]},
        "model": {"family": "transformer", "parameters_millions": params_m, "source": "pytorch-code"},
        "workload": {"model": "transformer", "kind": "inference"},
        "serving": serving,
    }


def served(kb, data, serving_route=None, workflow="pytorch"):
    req = parse_requirements(copy.deepcopy(data))
    r = routes(req, kb)[workflow]
    if serving_route is not None:
        r = dataclasses.replace(r, serving=serving_route)
    return project(workflow, req, kb, [], route=r).serving


def serving_route(quantization: list[str], precisions: list[str]) -> StackRoute:
    return StackRoute(
        id="test-serving",
        name="a serving runtime built in the test",
        stage="serving",
        workflows=["pytorch"],
        vendor="huawei",
        framework="torch_npu",
        supports={"families": ["transformer"], "quantization": quantization, "precisions": precisions},
        serves=["ascend-server"],
        path="native",
        source="test",
        confidence="assumption",
    )


# The case: a 32B model (LLaMA 33B shape: 60 layers, hidden 6656, 52 heads) for 300 agents with
# 8K-token prompts on 4 x Atlas 300I Duo (96 GiB LPDDR4X, 408 GB/s, 140 TFLOPS fp16 per card).
AGENTS = dict(concurrency=300, prompt_tokens=8192, output_tokens=256, ttft_ms=15000, tpot_ms=200)
KV_PER_TOKEN = 60 * 2 * 8 * 128 * 2  # layers x (K, V) x 8 KV heads x head size 128 x 2 bytes
USABLE = 96 * GIB * 0.9 * 0.9  # USABLE_MEMORY_ASCEND, then SERVING_WORKSPACE_SHARE


def test_the_32b_agent_service_per_card_by_hand(kb):
    """One card: weights 32e9 x 2 bytes = 64 GB (fp16: the 310P has no bf16); it holds
    floor((83.49 - 64) / (245,760 B x 8,448)) = 9 requests; a prompt's prefill is 2 x 32e9 x 8192 + 2 x 60 x
    8192^2 x 6656 FLOPs at 30-50% of 140 TFLOPS: 8.3-13.8 s to the first token (the issue's hand figure:
    8-13 s); a decode step of 9 reads 64 GB + 9 x 245,760 x (8192 + 128) bytes at 50-80% of 408 GB/s:
    22-36 tokens/s a card, 89-143 for 4 cards run apart (the issue's 170-200: inside 0.5-2x)."""
    c = served(kb, service(32000, "Atlas 300I Duo", 1, "ascend", **AGENTS)).capacity
    assert c.weights_precision == "fp16" and any("no bf16" in n for n in c.notes)
    assert c.weights_gb == pytest.approx(64.0) and c.instance_devices == 1
    assert c.max_batch == math.floor((USABLE - 64e9) / (KV_PER_TOKEN * (8192 + 256))) == 9
    prefill = 2 * 32e9 * 8192 + 2 * 60 * 8192**2 * 6656
    assert c.ttft_ms.high == pytest.approx(prefill / (140e12 * 0.3) * 1000, rel=1e-4)
    assert c.ttft_ms.low == pytest.approx(prefill / (140e12 * 0.5) * 1000, rel=1e-4)
    read = 64e9 + 9 * KV_PER_TOKEN * (8192 + 128)
    assert c.decode_tokens_per_second.low == pytest.approx(9 / (read / (408e9 * 0.5)), rel=1e-4)
    assert c.decode_tokens_per_second.high == pytest.approx(9 / (read / (408e9 * 0.8)), rel=1e-4)
    four = (4 * c.decode_tokens_per_second.low, 4 * c.decode_tokens_per_second.high)
    assert 0.5 <= four[0] / 170 and four[1] / 200 <= 2


def test_four_cards_serve_as_the_instance_size_that_carries_the_most(kb):
    """On the team's 4 cards the capacity takes one tensor-parallel instance of 4 (MindIE runs the 300I Duo
    at world size 4 or 8): 4 x 83.49 GB less the 64 GB of weights holds floor(269.98 / 2.076) = 130 requests
    against 4 x 9 = 36 on cards run apart; prefill 4x faster (2.1-3.4 s)."""
    c = served(kb, service(32000, "Atlas 300I Duo", 4, "ascend", **AGENTS)).capacity
    assert c.instance_devices == 4 and c.instances == 1
    assert c.max_batch == math.floor((4 * USABLE - 64e9) / (KV_PER_TOKEN * 8448)) == 130
    prefill = 2 * 32e9 * 8192 + 2 * 60 * 8192**2 * 6656
    assert c.ttft_ms.low == pytest.approx(prefill / (4 * 140e12 * 0.5) * 1000, rel=1e-4)


def test_an_inadequate_serving_box_says_so_with_the_devices_that_would_meet_it(kb):
    """300 requests in flight, 130 fit on the 4 cards: the verdict says it cannot, with the arithmetic, and
    names the count that meets every target at the pessimistic end; that count does, one fewer does not."""
    data = service(32000, "Atlas 300I Duo", 4, "ascend", **AGENTS)
    slo = served(kb, data).slo
    assert slo.verdict == "needs-devices" and slo.devices == 4 and slo.devices_needed > 4
    assert "300 requests in flight" in slo.reason and "130 fit" in slo.reason
    data["hardware"]["devices"] = slo.devices_needed
    assert served(kb, data).slo.verdict == "meets"
    data["hardware"]["devices"] = slo.devices_needed - 1
    assert served(kb, data).slo.verdict == "needs-devices"


def test_a_first_token_target_below_any_prefill_cannot_be_met(kb):
    """An 8K prompt takes 2 x 32e9 x 8192 (+ attention) FLOPs: 1.03 s even on 8 cards at 50% of peak, so a
    500 ms TTFT target fails whatever the count."""
    data = service(32000, "Atlas 300I Duo", 4, "ascend", **{**AGENTS, "ttft_ms": 500})
    slo = served(kb, data).slo
    assert slo.verdict == "cannot" and "time to first token" in slo.reason


def test_a_service_within_its_targets_meets_on_the_teams_devices(kb):
    """7B chat on 8 x H100, 64 in flight, 1K prompts: one H100 holds (71.9 - 14) GB / (131,072 B x 1,280) =
    345 requests; prefill 2 x 7e9 x 1024 + 2 x 32 x 1024^2 x 4096 FLOPs at 30% of 989.4 TFLOPS = 50 ms; a
    step of 64 requests reads 14 GB + 64 x 131,072 x 1,152 B at 50% of 3,350 GB/s = 14.4 ms, and each token
    also waits 64 x 50 ms / 256 of prefills: 27 ms < 50 ms. One device meets it."""
    s = served(
        kb,
        service(
            7000, "H100", 8, "nvidia", concurrency=64, prompt_tokens=1024, output_tokens=256, ttft_ms=1000, tpot_ms=50
        ),
    )
    assert s.slo.verdict == "meets" and s.slo.devices_needed == 1
    usable = 80 * GIB * 0.93 * 0.9
    assert s.capacity.max_batch == math.floor((usable - 14e9) / (32 * 2 * 8 * 128 * 2 * 1280))
    prefill = (2 * 7e9 * 1024 + 2 * 32 * 1024**2 * 4096) / (989.4e12 * 0.3)
    step = (14e9 + 64 * 32 * 2 * 8 * 128 * 2 * 1152) / (3350e9 * 0.5)
    assert step + 64 * prefill / 256 == pytest.approx(0.027, abs=0.002)


def test_precisions_a_device_or_route_cannot_serve(kb):
    data = service(7000, "Ascend 910B", 8, "ascend", concurrency=64, quantization="fp8")
    slo = served(kb, data).slo
    assert slo.verdict == "cannot" and "FP8" in slo.reason  # no FP8 tensor cores on the 910B
    data = service(7000, "Atlas 300I Duo", 4, "ascend", concurrency=16, quantization="int8")
    route = serving_route(["none", "w8a8", "w4a16"], ["bf16", "fp16"])
    slo = served(kb, data, route).slo
    assert slo.verdict == "cannot" and "does not list int8" in slo.reason
    data["serving"]["quantization"] = "w8a8"  # int8 weights and activations at the card's 280 TOPS
    s = served(kb, data, route)
    assert s.slo.verdict == "meets" and s.runtime == "a serving runtime built in the test"
    assert s.capacity.weights_gb == pytest.approx(7.0)  # 1 byte a weight


def test_quantised_weights_shrink_memory_and_decode_time(kb):
    """w4a16: 4 bits + a 16-bit scale per 128 weights = 4.125 bits; the same 32B is 16.5 GB instead of 64."""
    q = served(kb, service(32000, "Atlas 300I Duo", 4, "ascend", **{**AGENTS, "quantization": "w4a16"})).capacity
    assert q.weights_gb == pytest.approx(32e9 * 4.125 / 8 / GB, abs=1e-3)
    t = q.instance_devices
    assert q.max_batch == math.floor((t * USABLE - 32e9 * 4.125 / 8) / (KV_PER_TOKEN * 8448))


def test_a_training_team_with_a_serving_load_gets_its_serving_verdict(kb):
    data = service(7000, "H100", 8, "nvidia", concurrency=64)
    data["workload"] = {"model": "transformer", "tokens": 1e9}
    req = parse_requirements(data)
    p = project("pytorch", req, kb, [])
    assert p.time_to_train_hours is not None and p.serving.slo.verdict == "meets"
