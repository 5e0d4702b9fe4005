"""The projection's arithmetic, worked by hand on the peak path (the accelerator's peak x the knowledge
base's derating ranges), where every factor can be read off: GFLOPs per sample, the operator-coverage
half a first-party or an adapter framework takes, the devices and the communication's kept range, the
published record and the loader's caps, then the time, the cost and the tokens a transformer's rate
gives. The knowledge-base figures used are asserted first, so a changed figure says so instead of
failing obscurely."""

from __future__ import annotations

import pytest

from advisor.decision.constants import DEFAULT
from advisor.decision.projections import project, team_recompute, tokens_gflops, workload_gflops
from advisor.requirements import parse_requirements
from kill_inputs import h100_team


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def test_the_knowledge_base_figures_the_examples_are_worked_with(kb):
    """Operator coverage loses 10-30% of peak, memory bandwidth 10-40%; an H100 peaks at 989.4 TFLOPS
    (16-bit) and rents at $2.995 an hour; a 910B at 280 or ~320 TFLOPS; MLPerf's 8 x H100 ResNet-50 record
    is 6,875 images/s per device; the loader delivers INPUT_PIPELINE_PER_HOST 20,000 images/s a host."""
    from advisor.decision.projections import _derating, _price

    assert (_derating(kb, "operator_coverage").loss.low, _derating(kb, "operator_coverage").loss.high) == (0.1, 0.3)
    assert (_derating(kb, "memory_bandwidth").loss.low, _derating(kb, "memory_bandwidth").loss.high) == (0.1, 0.4)
    accs = {a.id: a for a in kb.accelerators}
    assert (accs["h100"].fp16_tflops.value, _price(kb, accs["h100"]).usd.value) == (989.4, 2.995)
    peak = accs["ascend-910b"].fp16_tflops or accs["ascend-910b"].bf16_tflops
    assert [peak.value] + [a.value for a in peak.alternatives] == [280.0, 320.0]
    assert [(r.model, r.accelerator, r.per_device) for r in kb.records] == [("resnet50", "h100", 6875.0)]
    assert (DEFAULT["INPUT_PIPELINE_PER_HOST"], DEFAULT["DEVICES_PER_HOST"]) == (20000.0, 8.0)


def _vision(devices: int, gflops=None, model: str = "custom", target: str = "nvidia", samples: int = 1_000_000, **w):
    accelerator = {"nvidia": "H100", "ascend": "910B"}[target]
    return parse_requirements(
        {
            "name": "vision",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
            "hardware": {
                "available": [target],
                "training_target": target,
                "accelerator": accelerator,
                "devices": devices,
            },
            "deployment": {"targets": [f"{target}-server"]},
            "model": {"family": "cnn", "parameters_millions": 25.6, "source": "pytorch-code"},
            "workload": {
                "model": model,
                "dataset_samples": samples,
                **({"gflops_per_sample": gflops} if gflops else {}),
                **w,
            },
        }
    )


# A first-party framework takes the lower half of the operator-coverage loss (10-20%), an adapter the upper
# (20-30%); memory bandwidth 10-40% for both:
#   first-party: slow end (1 - 0.2)(1 - 0.4) = 0.48 of peak, fast end (1 - 0.1)(1 - 0.1) = 0.81;
#   adapter:     slow end (1 - 0.3)(1 - 0.4) = 0.42,          fast end (1 - 0.2)(1 - 0.1) = 0.72.


def test_one_h100_at_its_derated_peak(kb):
    """1,000 GFLOPs a sample: 989.4e12 / 1e12 = 989.4 samples/s at peak, x 0.48 = 474.912, x 0.81 = 801.414.
    1e6 samples: 1e6 / 801.414 / 3600 = 0.3466 h to 1e6 / 474.912 / 3600 = 0.5849 h, at $2.995 an hour."""
    p = project("pytorch", _vision(1, 1000), kb, [], basis_cap="peak")
    assert (p.basis, p.native) == ("peak", True)
    assert (p.images_per_second.low, p.images_per_second.high) == (474.912, 801.414)
    assert (p.training_hours.low, p.training_hours.high) == (0.3466, 0.5849)
    assert (p.time_to_train_hours.low, p.time_to_train_hours.high) == (0.3466, 0.5849)
    assert (p.compute_cost_usd.low, p.compute_cost_usd.high) == (round(0.3466 * 2.995, 2), round(0.5849 * 2.995, 2))


def test_eight_devices_multiply_by_the_devices_and_the_communications_kept_range(kb):
    """8 x 474.912 x kept.low, 8 x 801.414 x kept.high (the host curve at 8: 0.78-0.95); the cost is
    the hours x 8 devices x $2.995."""
    p = project("pytorch", _vision(8, 1000), kb, [], basis_cap="peak")
    kept = p.communication.kept
    assert (kept.low, kept.high) == (0.78, 0.95)
    assert p.images_per_second.low == pytest.approx(474.912 * 8 * 0.78, abs=1e-3)
    assert p.images_per_second.high == pytest.approx(801.414 * 8 * 0.95, abs=1e-3)
    hours = p.time_to_train_hours
    assert hours.low == round(1e6 / (801.414 * 8 * 0.95) / 3600, 4)
    assert (p.compute_cost_usd.low, p.compute_cost_usd.high) == (
        round(hours.low * 8 * 2.995, 2),
        round(hours.high * 8 * 2.995, 2),
    )


def test_epochs_multiply_the_samples(kb):
    p = project("pytorch", _vision(1, 1000, epochs=3), kb, [], basis_cap="peak")
    assert (p.training_hours.low, p.training_hours.high) == (
        round(3e6 / 801.414 / 3600, 4),
        round(3e6 / 474.912 / 3600, 4),
    )


def test_an_adapter_takes_the_upper_half_of_the_operator_coverage_loss(kb):
    """910B: 280 x 0.42 = 117.6 (the lower peak at the slow end) to 320 x 0.72 = 230.4 for PyTorch through
    torch_npu; MindSpore, first-party: 280 x 0.48 = 134.4 to 320 x 0.81 = 259.2."""
    adapter = project("pytorch", _vision(1, 1000, target="ascend"), kb, [], basis_cap="peak")
    assert (adapter.native, adapter.images_per_second.low, adapter.images_per_second.high) == (False, 117.6, 230.4)
    native = project("mindspore", _vision(1, 1000, target="ascend"), kb, [], basis_cap="peak")
    assert (native.native, native.images_per_second.low, native.images_per_second.high) == (True, 134.4, 259.2)


def test_the_loader_caps_an_image_rate_per_host(kb):
    """10 GFLOPs a sample: 80,141 images/s on one H100 at its fast end, more than the 20,000 a host's
    loader delivers: both ends at 20,000. 16 devices are two hosts: 40,000."""
    one = project("pytorch", _vision(1, 10), kb, [], basis_cap="peak")
    assert (one.images_per_second.low, one.images_per_second.high) == (20000.0, 20000.0)
    two = project("pytorch", _vision(16, 10), kb, [], basis_cap="peak")
    assert (two.images_per_second.low, two.images_per_second.high) == (40000.0, 40000.0)
    assert two.time_to_train_hours.low == round(1e6 / 40000 / 3600, 4)


def test_the_published_record_caps_the_rate_on_its_accelerator(kb):
    """ResNet-50 (24.5 GFLOPs a sample, WORKLOAD_GFLOPS) on one H100: 989.4e3 / 24.5 x 0.48 = 19,384
    images/s at the slow end, past the record's 6,875 per device: both ends at 6,875 (under the loader's
    20,000)."""
    req = _vision(1, model="resnet50")
    assert workload_gflops(req) == 24.5
    p = project("pytorch", req, kb, [], basis_cap="peak")
    assert (p.images_per_second.low, p.images_per_second.high) == (6875.0, 6875.0)


def test_a_run_of_centuries_is_not_a_projection(kb):
    """1e5 GFLOPs a sample and 1e12 samples: 1e12 / 8.01 / 3600 = 3.5e7 h even at the fast end, past
    MEANINGFUL_MAX_HOURS (876,600 h, a century): no rate, basis none."""
    assert DEFAULT["MEANINGFUL_MAX_HOURS"] == 876600.0
    p = project("pytorch", _vision(1, 1e5, samples=10**12), kb, [], basis_cap="peak")
    assert (p.basis, p.images_per_second, p.training_hours) == ("none", None, None)
    ok = project("pytorch", _vision(1, 1e5, samples=10**9), kb, [], basis_cap="peak")  # 1e9 / 4.75 / 3600: 58,000 h
    assert ok.basis == "peak" and ok.training_hours.high == round(1e9 / 4.74912 / 3600, 4)


# ---- a transformer: tokens, the MFU and the recompute -------------------------------------------------


def _llm(devices: int = 8, **model):
    return h100_team(
        name="llm",
        devices=devices,
        team_size=6,
        model={
            "family": "transformer",
            "parameters_millions": 1300,
            "source": "pytorch-code",
            "layers": 24,
            "hidden_size": 2048,
            "attention_heads": 16,
            "sequence_length": 2048,
            **model,
        },
        workload={"model": "transformer", "tokens": 1e10},
        needs={"distributed_training": devices > 1},
    )


def test_a_transformers_flops_per_sequence():
    """6 x 1.3e9 + 12 x 24 x 2048 x 2048 = 9,007,959,552 FLOPs a token, x 2048 tokens a sequence."""
    req = _llm()
    assert tokens_gflops(req) == pytest.approx(9.007959552)
    assert workload_gflops(req) == pytest.approx(9.007959552 * 2048)


def test_the_teams_recompute_without_a_layout_is_the_stated_modes_share_of_a_step():
    """A forward pass over a training step: (2 N + 4 L s h) / (6 N + 12 L s h) = 1/3 for dense training;
    selective RECOMPUTE_SELECTIVE_SHARE (0.1) of it; LoRA's step is lighter, so the pass weighs more."""
    assert team_recompute(_llm(recompute="none"), None) == 0.0
    assert team_recompute(_llm(recompute="full"), None) == pytest.approx(1 / 3)
    assert team_recompute(_llm(recompute="selective"), None) == pytest.approx(1 / 30)
    assert team_recompute(_llm(), None) is None
    attention = 12 * 24 * 2048 * 2048
    lora = team_recompute(_llm(recompute="full", fine_tune="lora"), None)
    assert lora == pytest.approx((2 * 1.3e9 + attention / 3) / (4.02 * 1.3e9 + attention))


def test_a_transformers_rate_gives_its_tokens_mfu_and_time(kb):
    """Whatever the MFU references give: tokens/s = sequences/s x 2048; the MFU = sequences/s x GFLOPs a
    sequence / (8 x 989.4e3); the hours = 1e10 / 2048 sequences / the rate / 3600."""
    p = project("pytorch", _llm(), kb, [])
    ips, tps = p.images_per_second, p.tokens_per_second
    assert p.basis == "reference" and ips.unit == "sequences/s"
    assert (tps.low, tps.high) == (pytest.approx(ips.low * 2048, abs=1.1), pytest.approx(ips.high * 2048, abs=1.1))
    g = 9.007959552 * 2048
    assert p.mfu.low == pytest.approx(ips.low * g / (8 * 989.4e3), abs=1e-4)
    assert p.mfu.high == pytest.approx(ips.high * g / (8 * 989.4e3), abs=1e-4)
    assert p.training_hours.low == pytest.approx(1e10 / 2048 / ips.high / 3600, rel=1e-3)
    assert p.training_hours.high == pytest.approx(1e10 / 2048 / ips.low / 3600, rel=1e-3)
    assert 0 < p.mfu.low < p.mfu.high < 1


# ---- the measured path: a probe run of the workload's own model ----------------------------------------


@pytest.fixture(scope="module")
def cpu_suite():
    """This host's probe suite (tests/fixtures/report): PyTorch's fastest ResNet-18 run is the compiled one,
    106.31 images/s, 95% CI 103.65-108.97, 3.3 GFLOPs an image."""
    import json
    from pathlib import Path

    suite = json.loads((Path(__file__).parent / "fixtures" / "report" / "probes-cpu.json").read_text(encoding="utf-8"))
    (best,) = [r for r in suite["runs"] if r["id"] == "pytorch-compile-resnet18-bs32"]
    assert (best["images_per_second"], best["ci95"], best["train_flops_per_image"]) == (
        106.31,
        [103.65, 108.97],
        3300000000,
    )
    return suite


def _cpu_team(gflops: float = 3.3, devices: int = 1):
    """tests/fixtures/report/cpu-team.yaml: ResNet-18 on CPU servers, 50,000 samples x 10 epochs."""
    import yaml
    from pathlib import Path

    data = yaml.safe_load((Path(__file__).parent / "fixtures" / "report" / "cpu-team.yaml").read_text(encoding="utf-8"))
    data["workload"]["gflops_per_sample"] = gflops
    data["hardware"]["devices"] = devices
    return parse_requirements(data)


def test_a_measured_run_gives_its_confidence_interval(kb, cpu_suite):
    """103.65-108.97 images/s on one device; 5e5 samples: 5e5 / 108.97 / 3600 = 1.2746 h to 1.34 h."""
    p = project("pytorch", _cpu_team(), kb, [cpu_suite])
    assert p.basis == "measured"
    assert (p.images_per_second.low, p.images_per_second.high) == (103.65, 108.97)
    assert (p.training_hours.low, p.training_hours.high) == (
        round(5e5 / 108.97 / 3600, 4),
        round(5e5 / 103.65 / 3600, 4),
    )


def test_a_measured_run_is_scaled_by_the_workloads_flops_beyond_5_percent(kb, cpu_suite):
    """6.6 GFLOPs a sample is twice the probe's 3.3: x 0.5 = 51.825-54.485; 3.2 is within 5% (3.3 / 3.2 =
    1.031): kept as measured."""
    double = project("pytorch", _cpu_team(6.6), kb, [cpu_suite])
    assert (double.images_per_second.low, double.images_per_second.high) == (51.825, 54.485)
    near = project("pytorch", _cpu_team(3.2), kb, [cpu_suite])
    assert (near.images_per_second.low, near.images_per_second.high) == (103.65, 108.97)


def test_a_measured_run_on_more_devices_keeps_the_communications_range(kb, cpu_suite):
    """2 devices x 103.65 x kept 0.8, 2 x 108.97 x 0.92."""
    p = project("pytorch", _cpu_team(devices=2), kb, [cpu_suite])
    assert (p.communication.kept.low, p.communication.kept.high) == (0.8, 0.92)
    assert (p.images_per_second.low, p.images_per_second.high) == (
        pytest.approx(2 * 103.65 * 0.8, abs=1e-3),
        pytest.approx(2 * 108.97 * 0.92, abs=1e-3),
    )


def test_a_run_without_an_interval_is_taken_as_10_percent_either_side(kb, cpu_suite):
    import copy

    bare = copy.deepcopy(cpu_suite)
    for run in bare["runs"]:
        run["ci95"] = None
    p = project("pytorch", _cpu_team(), kb, [bare])
    assert (p.images_per_second.low, p.images_per_second.high) == (
        pytest.approx(106.31 * 0.9, abs=1e-3),
        pytest.approx(106.31 * 1.1, abs=1e-3),
    )


# ---- the reference path: published ResNet-50 runs scaled by FLOPs ---------------------------------------
# ImageNet ResNet-50 (24.5 GFLOPs an image) references of PyTorch: on one A100 80GB 938 (TF32) and 2,470
# (AMP) images/s, on eight 906 and 2,077.625 a device; on V100s 356-1,200 (16GB: 367, 1,200; 32GB: 356,
# 1,156); MindSpore on eight Ascend 910s 2,169.5 a device. 16-bit peaks: A100 312, V100 125, H100 989.4.


def _cnn(target: str, accelerator: str, devices: int, model: str = "resnet50", gflops=None):
    workload = {"model": model, "dataset_samples": 1281167, **({"gflops_per_sample": gflops} if gflops else {})}
    return parse_requirements(
        {
            "name": "vision",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
            "hardware": {
                "available": [target],
                "training_target": target,
                "accelerator": accelerator,
                "devices": devices,
            },
            "deployment": {"targets": [f"{target}-server"]},
            "model": {"family": "cnn", "parameters_millions": 25.6, "source": "pytorch-code"},
            "workload": workload,
        }
    )


def _rate(p) -> tuple:
    return p.images_per_second.low, p.images_per_second.high


def test_single_device_references_on_the_accelerator_scaled_by_flops(kb):
    """One A100: its single-device runs, 938-2,470; a workload of 49 GFLOPs an image, half that."""
    assert _rate(project("pytorch", _cnn("nvidia", "A100-80GB", 1), kb, [], basis_cap="reference")) == (938.0, 2470.0)
    half = project("pytorch", _cnn("nvidia", "A100-80GB", 1, "custom", 49), kb, [], basis_cap="reference")
    assert _rate(half) == (469.0, 1235.0)


def test_multi_device_references_carry_their_own_loss_and_more_devices_add_the_curves(kb):
    """Eight A100s: the eight-device runs as they are, 906 x 8 = 7,248 to 2,077.625 x 8 = 16,621 (their
    loss is in them: no communication range); sixteen: x 16 and the curve from 8 to 16 devices, 0.468 /
    0.78 = 0.6 at the slow end and 0.9025 / 0.95 = 0.95 at the fast end."""
    eight = project("pytorch", _cnn("nvidia", "A100-80GB", 8), kb, [], basis_cap="reference")
    assert (_rate(eight), eight.communication.basis) == ((7248.0, 16621.0), "in-reference")
    sixteen = project("pytorch", _cnn("nvidia", "A100-80GB", 16), kb, [], basis_cap="reference")
    assert _rate(sixteen) == (
        pytest.approx(906 * 16 * 0.6, abs=1e-3),
        pytest.approx(2077.625 * 16 * 0.95, abs=1e-3),
    )


def test_no_reference_on_the_chip_takes_the_share_of_peak_reached_on_the_vendors_others(kb):
    """H100, 1,000 GFLOPs an image: the NVIDIA PyTorch runs reached 356 x 24.5 / 125e3 = 6.98% (a V100) to
    1,200 x 24.5 / 125e3 = 23.52% of peak; x 989.4 images/s at peak: 69.04-232.71."""
    p = project("pytorch", _cnn("nvidia", "H100", 1, "custom", 1000), kb, [], basis_cap="reference")
    assert _rate(p) == (
        pytest.approx(989.4 * 356 * 24.5 / 125e3, abs=1e-3),
        pytest.approx(989.4 * 1200 * 24.5 / 125e3, abs=1e-3),
    )


def test_an_adapter_without_references_takes_the_first_partys_times_the_adapter_ratio(kb):
    """PyTorch on eight Ascend 910s: MindSpore's 2,169.5 x 8 = 17,356 images/s x the adapter's share of
    first-party throughput, (1 - 0.3) / (1 - 0.1) = 0.778 to (1 - 0.2) / (1 - 0.1) = 0.889."""
    p = project("pytorch", _cnn("ascend", "ascend-910", 8), kb, [], basis_cap="reference")
    assert _rate(p) == (pytest.approx(17356 * 0.7 / 0.9, abs=1e-3), pytest.approx(17356 * 0.8 / 0.9, abs=1e-3))


def test_the_cost_evidence_names_the_price_and_the_servers_power(kb):
    """8 H100s: the rental price ($2.995 a device-hour) and the DGX's 10.2 kW for 8, of which a fleet draws
    TYPICAL_DRAW_LOW-HIGH (65-85%) while training: 6.63-8.67 kW over the hours to train."""
    assert (DEFAULT["TYPICAL_DRAW_LOW"], DEFAULT["TYPICAL_DRAW_HIGH"]) == (0.65, 0.85)
    p = project("pytorch", _vision(8, 1000), kb, [], basis_cap="peak")
    assert [(e.kind, e.ref, e.value) for e in p.cost_evidence] == [
        ("knowledge", "h100-hour", [2.995, 2.995]),
        ("knowledge", "h100", 10200.0),
    ]
    hours = p.time_to_train_hours
    assert p.energy_kwh.low == pytest.approx(6.63 * hours.low, abs=0.01)
    assert p.energy_kwh.high == pytest.approx(8.67 * hours.high, abs=0.01)


# ---- the MFU path on 8 H100s -----------------------------------------------------------------------------
# The one H100 reference (Llama 3 405B, 38-43% MFU) widened by a quarter of its middle: 0.30375-0.50625;
# its 16,384 devices carry their own communication loss (no factor on 8). sequences/s = MFU x 989.4e3
# GFLOP/s x 8 devices / GFLOPs a sequence.


def test_the_mfu_path_from_the_widened_reference(kb):
    g = 9.007959552 * 2048
    p = project("pytorch", _llm(), kb, [])
    assert _rate(p) == (
        pytest.approx(0.30375 * 989.4e3 * 8 / g, abs=1e-3),
        pytest.approx(0.50625 * 989.4e3 * 8 / g, abs=1e-3),
    )
    assert (p.mfu.low, p.mfu.high, p.time_factors) == (0.3038, 0.5063, [])


def test_qlora_trains_fewer_flops_a_token_and_pays_the_dequantisation(kb):
    """QLoRA: (4 + 2 x 0.01) x 1.3e9 + 12 L s h = 6.434 GFLOPs a token; x 1 / (1 + QLORA_DEQUANT_OVERHEAD 0.3)."""
    assert DEFAULT["QLORA_DEQUANT_OVERHEAD"] == 0.3
    g = (4.02 * 1.3e9 + 12 * 24 * 2048 * 2048) / 1e9 * 2048
    p = project("pytorch", _llm(fine_tune="qlora"), kb, [])
    assert [(f.name, f.low, f.high) for f in p.time_factors] == [("qlora-dequantisation", 0.7692, 0.7692)]
    assert _rate(p) == (
        pytest.approx(0.30375 * 989.4e3 * 8 / g / 1.3, abs=1e-3),
        pytest.approx(0.50625 * 989.4e3 * 8 / g / 1.3, abs=1e-3),
    )


def test_the_teams_full_recompute_divides_by_one_and_a_third(kb):
    """Full recompute adds a forward pass, a third of a step (the layout's recompute overhead 0.3333);
    the reference ran without: x (1 + 0) / (1 + 0.3333), the stored overhead, listed as 0.75."""
    p = project("pytorch", _llm(recompute="full"), kb, [])
    assert p.memory.layout.recompute_overhead == 0.3333
    assert [(f.name, f.low, f.high) for f in p.time_factors] == [("recompute", 0.75, 0.75)]
    g = 9.007959552 * 2048
    assert _rate(p)[0] == pytest.approx(0.30375 * 989.4e3 * 8 / g / 1.3333, abs=1e-3)
