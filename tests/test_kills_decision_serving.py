"""Serving capacity, worked by hand: the precision and peak a quantisation runs at on a device, the served
model's figures (weights, KV cache per token, usable memory, bandwidth), the requests in flight that fit,
and the verdicts of a load against the team's devices."""

from __future__ import annotations

import pytest

from advisor.decision.constants import DEFAULT
from advisor.decision.serving_capacity import (
    Efficiency,
    Model,
    fewest_devices,
    judge,
    max_batch,
    model_for,
    served_precision,
)
from advisor.requirements import parse_requirements
from kill_inputs import h100_team


@pytest.fixture(scope="module")
def accs():
    import knowledge

    return {a.id: a for a in knowledge.load().accelerators}


def test_the_figures_the_serving_examples_are_worked_with(accs):
    """H100: 989.4 TFLOPS bf16 and fp16, FP8, 1978.9 int8 TOPS, 3,350 GB/s, 80 GiB; V100: 125 TFLOPS
    fp16 only. SERVING_KV_HEADS 8, SERVING_WORKSPACE_SHARE 10%, efficiencies 0.5/0.8 of bandwidth and
    0.3/0.5 of peak."""
    h, v = accs["h100"], accs["v100"]
    assert (h.bf16_tflops.value, h.fp16_tflops.value, h.fp8, h.int8_tops.value, h.bandwidth_gbs.value) == (
        989.4,
        989.4,
        True,
        1978.9,
        3350.0,
    )
    assert (v.bf16_tflops, v.fp16_tflops.value, v.fp8, v.int8_tops) == (None, 125.0, None, None)
    assert [
        DEFAULT[n]
        for n in (
            "SERVING_KV_HEADS",
            "SERVING_WORKSPACE_SHARE",
            "SERVING_BANDWIDTH_EFFICIENCY_LOW",
            "SERVING_BANDWIDTH_EFFICIENCY_HIGH",
            "SERVING_PREFILL_MFU_LOW",
            "SERVING_PREFILL_MFU_HIGH",
        )
    ] == [8.0, 0.1, 0.5, 0.8, 0.3, 0.5]


@pytest.mark.parametrize(
    "quantization, width, peak",
    [
        ("none", "bf16", 989.4e12),
        ("int8", "int8", 989.4e12),  # weight-only int8 computes at the 16-bit peak
        ("w4a16", "int4", 989.4e12),
        ("fp8", "fp8", 2 * 989.4e12),  # twice the 16-bit dense peak
        ("w8a8", "int8", 1978.9e12),  # the int8 peak
    ],
)
def test_the_precision_and_peak_each_quantisation_serves_at(accs, quantization, width, peak):
    got = served_precision(accs["h100"], quantization)
    assert got[:2] == (width, pytest.approx(peak))


def test_a_device_without_bf16_fp8_or_int8(accs):
    assert served_precision(accs["v100"], "none")[:2] == ("fp16", pytest.approx(125e12))
    assert served_precision(accs["v100"], "fp8")[:2] == (None, None)
    assert served_precision(accs["v100"], "w8a8")[:2] == (None, None)


def _req(devices: int = 8, model: dict | None = None, **serving):
    return h100_team(
        name="llm service",
        devices=devices,
        model={"family": "transformer", "parameters_millions": 6740, "source": "pytorch-code", **(model or {})},
        workload={"model": "transformer", "kind": "inference"},
        serving={"prompt_tokens": 1000, "output_tokens": 200, **serving},
    )


# A 7B model (the Llama-2 7B row: 32 layers, 4096 wide, 32 heads) on an H100:
#   KV cache per token: 32 layers x 2 (K and V) x 8 heads (SERVING_KV_HEADS) x 128 (4096 / 32) x 2 bytes
#     = 131,072 bytes;
#   usable: 80 GiB x 0.93 = 79.886 GB, less the 10% workspace = 71.898 GB;
#   weights 6.74e9 x 2 bytes = 13.48 GB; a request holds 1,200 tokens x 131,072 bytes = 157.3 MB.
_USABLE = 80 * 2**30 * 0.93 * 0.9


def test_the_served_model_on_a_device(accs):
    m, _ = model_for(_req(requests_per_second=2.0), accs["h100"])
    assert (m.params, m.active, m.shape_layers, m.hidden) == (6.74e9, 6.74e9, 32, 4096)
    assert (m.kv_per_token, m.weight_bytes, m.prompt, m.output) == (131072.0, 2.0, 1000, 200)
    assert m.usable == pytest.approx(_USABLE)
    assert (m.bandwidth, m.peak, m.precision) == (3350e9, pytest.approx(989.4e12), "bf16")
    assert (m.experts, m.top_k, m.per_expert, m.shared) == (1, 1, 0.0, 6.74e9)


def test_the_served_model_quantised_to_4_bits(accs):
    m, _ = model_for(_req(quantization="w4a16", requests_per_second=2.0), accs["h100"])
    assert (m.weight_bytes, m.precision) == (0.515625, "int4")


def test_a_mixture_of_experts_served(accs):
    """8 experts, top-2, 9,000 M held and 3,000 M active: each expert (9e9 - 3e9) / 6 = 1e9, 1e9 shared."""
    moe = {
        "parameters_millions": 9000,
        "active_parameters_millions": 3000,
        "experts": 8,
        "experts_per_token": 2,
        "layers": 32,
        "hidden_size": 4096,
        "attention_heads": 32,
    }
    m, _ = model_for(_req(model=moe, requests_per_second=2.0), accs["h100"])
    assert (m.params, m.active, m.experts, m.top_k) == (9e9, 3e9, 8, 2)
    assert (m.per_expert, m.shared) == (pytest.approx(1e9), pytest.approx(1e9))


def test_the_requests_in_flight_that_fit_beside_the_weights(accs):
    """(71.898 - 13.48) GB / 157.29 MB = 371.4: 371 on one device; (2 x 71.898 - 13.48) / 0.15729 = 828.5
    on two."""
    m, _ = model_for(_req(requests_per_second=2.0), accs["h100"])
    assert max_batch(m, 1) == int((_USABLE - 13.48e9) // (131072 * 1200)) == 371
    assert max_batch(m, 2) == int((2 * _USABLE - 13.48e9) // (131072 * 1200)) == 828


def test_a_light_load_is_met_by_one_device(accs):
    """2 requests/s: on one device at the slow efficiencies, prefill (2 x 6.74e9 x 1000 + 2 x 32 x 1000^2 x
    4096) / (989.4e12 x 0.3) = 46.3 ms, a decode step (13.48e9 + b x 131,072 x 1100) / (3350e9 x 0.5); b
    / (1.6096 + 0.0635 b) >= 2 first at b = 4: 1 device meets it."""
    j = judge(_req(requests_per_second=2.0), accs["h100"], 8, None)
    assert (j.verdict, j.devices_needed) == ("meets", 1)
    assert j.capacity.instance_devices == 1 and j.capacity.instances == 8
    assert j.capacity.batch == 1  # 2 requests/s over 8 instances: one in flight each
    assert j.capacity.kv_gb_per_request == round(131072 * 1200 / 1e9, 4)
    assert j.capacity.weights_gb == 13.48
    assert (j.capacity.kv_mb_per_token, j.capacity.max_batch) == (0.1311, 371)  # 131,072 bytes to 4 places
    assert j.capacity.usable_gb_per_device == round(_USABLE / 1e9, 3) == 71.898
    assert j.capacity.ttft_ms.low == round((2 * 6.74e9 * 1000 + 2 * 32 * 1e6 * 4096) / (989.4e12 * 0.5) * 1000, 3)
    assert j.capacity.ttft_ms.high == round((2 * 6.74e9 * 1000 + 2 * 32 * 1e6 * 4096) / (989.4e12 * 0.3) * 1000, 3)


def test_a_load_past_the_teams_devices_needs_more(accs):
    j = judge(_req(devices=1, requests_per_second=100.0), accs["h100"], 1, None)
    assert j.verdict == "needs-devices" and j.devices_needed > 1


def test_a_route_that_cannot_serve_the_quantisation_cannot(accs):
    j = judge(_req(requests_per_second=2.0), accs["h100"], 8, "not on this stack")
    assert (j.verdict, j.devices_needed, j.capacity) == ("cannot", None, None)
    fp8 = judge(_req(quantization="fp8", requests_per_second=2.0), accs["v100"], 8, None)
    assert (fp8.verdict, fp8.devices_needed, fp8.capacity) == ("cannot", None, None)  # what it needs, named


def test_a_moe_decode_step_reads_the_shared_weights_and_the_experts_its_tokens_touch():
    """One request in flight, top-2: 1e9 shared + 2 x 1e9 expert parameters x 2 bytes = 6 GB, + 131,072 x
    1,100 bytes of KV cache, over 1e12 B/s x 0.5: its step; tpot = step + prefill / 100 tokens."""
    m = Model(
        params=9e9,
        active=3e9,
        shape_layers=32,
        hidden=4096,
        kv_per_token=131072.0,
        weight_bytes=2.0,
        shared=1e9,
        per_expert=1e9,
        experts=8,
        top_k=2,
        prompt=100,
        output=100,
        usable=80e9,
        bandwidth=1e12,
        peak=1e15,
        precision="bf16",
    )
    req = parse_requirements(
        {
            "name": "s",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
            "hardware": {"available": ["nvidia"], "training_target": "nvidia", "devices": 8},
            "deployment": {"targets": ["nvidia-server"]},
            "model": {"family": "transformer", "parameters_millions": 9000, "source": "pytorch-code"},
            "serving": {"prompt_tokens": 100, "output_tokens": 100, "concurrency": 1},
        }
    )
    point, _ = fewest_devices(m, req, [1], Efficiency(bandwidth=0.5, prefill=0.5))
    step = (6e9 + 131072 * 150) / 0.5e12
    prefill = (2 * 3e9 * 100 + 2 * 32 * 100**2 * 4096) / 0.5e15
    assert (point.t, point.n, point.batch) == (1, 1, 1)
    assert point.ttft_s == pytest.approx(prefill)
    assert point.tpot_s == pytest.approx(step + prefill / 100)
    assert point.rps == pytest.approx(1 / (prefill + 100 * step))


# ---- the serving references rescaled --------------------------------------------------------------------
# MLPerf Inference rows (fp8, 1 byte a weight): Llama-2 70B (69 B) 3,065.6 and GPT-J (6.05 B) 2,467.5
# tokens/s per H100, GPT-J 815.7 per L40S; BERT-large (0.335 B, an encoder) 1,028.95 samples/s per L4 at
# 2.58 ms. A decoder's rate scales by bandwidth x N_ref / N x the row's bytes / the served bytes; an
# encoder's by 16-bit peak x N_ref / N.


def test_the_rows_the_serving_examples_are_worked_with():
    import knowledge

    from advisor.decision.serving import ROW_BYTES

    kb = knowledge.load()
    rows = [(r.id, r.accelerator, r.precision, r.parameters_b, r.per_device.value) for r in kb.serving_references]
    assert rows == [
        ("mlperf-inf-4.1-llama2-70b-h100-trtllm", "h100", "fp8", 69.0, 3065.6),
        ("mlperf-inf-4.1-gptj-h100-trtllm", "h100", "fp8", 6.05, 2467.5),
        ("mlperf-inf-4.0-gptj-l40s-trtllm", "l40s", "fp8", 6.05, 815.7),
        ("mlperf-inf-3.1-bert-large-l4-trt", "l4", "int8", 0.335, 1028.95),
    ]
    assert (ROW_BYTES["fp8"], DEFAULT["SERVING_ASCEND_EFFICIENCY"], DEFAULT["SINGLE_REFERENCE_WIDEN"]) == (
        1.0,
        0.7,
        0.25,
    )


def test_a_decoder_on_the_rows_own_accelerator_scales_by_size_and_bytes(accs):
    """A 7 B model served at 2 bytes on H100s: only the H100 rows: 3,065.6 x 69 / 7 / 2 and 2,467.5 x 6.05 /
    7 / 2 tokens/s per device."""
    import knowledge

    from advisor.decision.serving import rescaled_rate, scaled_rows

    kb = knowledge.load()
    rows = scaled_rows(kb, accs["h100"], "transformer-decoder", 7.0, 2.0)
    assert [(r.id, v, lat) for r, v, lat in rows] == [
        ("mlperf-inf-4.1-llama2-70b-h100-trtllm", pytest.approx(3065.6 * 69 / 14), None),
        ("mlperf-inf-4.1-gptj-h100-trtllm", pytest.approx(2467.5 * 6.05 / 14), None),
    ]
    assert rescaled_rate(kb, accs["h100"], "transformer-decoder", 7.0, 2.0) == (
        pytest.approx(2467.5 * 6.05 / 14),
        pytest.approx(3065.6 * 69 / 14),
    )
    fp8 = rescaled_rate(kb, accs["h100"], "transformer-decoder", 7.0, 1.0)  # served at the rows' own byte
    assert fp8 == (pytest.approx(2467.5 * 6.05 / 7), pytest.approx(3065.6 * 69 / 7))


def test_a_decoder_on_another_chip_scales_by_bandwidth_and_on_ascend_by_its_efficiency(accs):
    """H200 (4,800 GB/s) has no row: every decoder row x 4,800 / its chip's bandwidth; a 910B (1,200 GB/s)
    the same x SERVING_ASCEND_EFFICIENCY 0.7."""
    import knowledge

    from advisor.decision.serving import rescaled_rate

    kb = knowledge.load()
    bw = {a: accs[a].bandwidth_gbs.value for a in ("h100", "l40s", "h200", "ascend-910b")}
    rates = [3065.6 * 69 / 14 / bw["h100"], 2467.5 * 6.05 / 14 / bw["h100"], 815.7 * 6.05 / 14 / bw["l40s"]]
    assert rescaled_rate(kb, accs["h200"], "transformer-decoder", 7.0, 2.0) == (
        pytest.approx(min(rates) * bw["h200"]),
        pytest.approx(max(rates) * bw["h200"]),
    )
    assert rescaled_rate(kb, accs["ascend-910b"], "transformer-decoder", 7.0, 2.0) == (
        pytest.approx(min(rates) * bw["ascend-910b"] * 0.7),
        pytest.approx(max(rates) * bw["ascend-910b"] * 0.7),
    )


def _served(accs, acc_id: str, architecture: str, params_m: float):
    """A model served, no load stated and no workload: the rows alone give the rate and the latency."""
    from types import SimpleNamespace

    import knowledge

    from advisor.decision.serving import serving_for

    req = parse_requirements(
        {
            "name": "service",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
            "hardware": {"available": ["nvidia"], "training_target": "nvidia", "devices": 2},
            "deployment": {"targets": ["nvidia-server"]},
            "model": {
                "family": "transformer",
                "architecture": architecture,
                "parameters_millions": params_m,
                "source": "pytorch-code",
            },
        }
    )
    route = SimpleNamespace(target="nvidia", framework="pytorch", serving=None)
    return serving_for(route, accs[acc_id], 2, req, knowledge.load())


def test_an_encoder_scales_by_peak_from_its_one_row_widened_with_its_latency(accs):
    """BERT-large's row on an L4 for a 0.67 B encoder on an H100: factor 989.4 / L4's peak x 0.335 / 0.67;
    one row, so x 0.75 and x 1.25; its 2.58 ms batch-1 latency / the factor; 2 devices double the rate."""
    s = _served(accs, "h100", "encoder", 670)
    factor = 989.4 / accs["l4"].fp16_tflops.value * 0.335 / 0.67
    assert (s.unit, s.per_device.low, s.per_device.high) == (
        "samples/s",
        round(1028.95 * factor * 0.75, 3),
        round(1028.95 * factor * 1.25, 3),
    )
    assert (s.total.low, s.total.high) == (
        pytest.approx(2 * 1028.95 * factor * 0.75, abs=2e-3),
        pytest.approx(2 * 1028.95 * factor * 1.25, abs=2e-3),
    )
    assert (s.latency_ms.low, s.latency_ms.high) == (round(2.58 / factor, 3), round(2.58 / factor, 3))


def test_a_decoder_without_a_latency_row_is_floored_by_reading_its_weights(accs):
    """7 B at 2 bytes over 3,350 GB/s: 14e9 / 3.35e12 = 4.179 ms per output token at least."""
    s = _served(accs, "h100", "decoder", 7000)
    assert (s.latency_ms.low, s.latency_ms.high) == (round(14e9 / 3350e9 * 1000, 3), round(14e9 / 3350e9 * 1000, 3))
    assert (s.per_device.low, s.per_device.high) == (round(2467.5 * 6.05 / 14, 3), round(3065.6 * 69 / 14, 3))
