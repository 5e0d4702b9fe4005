"""Held-out teams (LLM pretraining, an inference-only product, two fleets, bad input), with
figures an engineer computes by hand: FLOPs = (6 N + 12 L s h) x tokens; rate = devices x 16-bit peak
x MFU (the knowledge base's 910B rows: 280-320 TFLOPS, MindFormers MFU 47-70%)."""

from __future__ import annotations

import copy

import pytest

from advisor.decision.scoring import score
from advisor.errors import UsageError
from advisor.requirements import parse_requirements
from advisor.validation import kb_problems


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def card(kb, data):
    return score(parse_requirements(copy.deepcopy(data)), None, None, kb, sensitivity=False)


def llm_team(**hardware) -> dict:
    return {
        "name": "llm",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "basic", "size": 6},
        "hardware": {"available": ["nvidia", "ascend"], "training_target": "ascend", **hardware},
        "deployment": {"targets": ["ascend-server"]},
        "model": {"family": "transformer", "parameters_millions": 7000, "source": "pytorch-code"},
        "workload": {"model": "transformer", "tokens": 2e10},
    }


def test_30b_pretraining_on_16_910b_misses_a_12_week_deadline(kb):
    data = llm_team(accelerator="Ascend 910B", devices=16, network="roce-ib")
    data["model"]["parameters_millions"] = 30000
    data["workload"]["tokens"] = 3e11
    data["constraints"] = {"deadline_weeks": 12}
    c = card(kb, data)
    p = next(p for p in c.projections if p.workflow == "mindspore")
    # LLaMA 33B shape (60 layers, 6656 hidden, sequence 2048): 6 x 30e9 + 12 x 60 x 2048 x 6656 = 189.8 GFLOP/token
    per_token = 6 * 30e9 + 12 * 60 * 2048 * 6656
    # the 910B's own MindFormers rows, each tokens/s x its FLOPs per token over the first-listed 280 TFLOPS:
    # 7B 4160 x 46.93 G = 69.7%, 13B 1691 x 88.07 G = 53.2%, Llama 3 8B 2581 x 61.06 G = 56.3% (8 cards each,
    # x0.85-0.95 from 8 to 16 on the HCCS + RoCE curve), 70B 337 x 446.3 G = 53.7% (64 cards: carries its loss)
    mfu_7b = 4160 * (6 * 6.74e9 + 12 * 32 * 4096 * 4096) / 280e12
    mfu_13b = 1691 * (6 * 13e9 + 12 * 40 * 4096 * 5120) / 280e12
    mfu_70b = 337 * (6 * 69e9 + 12 * 80 * 4096 * 8192) / 280e12
    # ModelLink / MindSpeed-LLM's 7B on 8 cards: 2730 x 46.93 G = 45.8%, the slowest
    mfu_ms_7b = 2730 * (6 * 6.74e9 + 12 * 32 * 4096 * 4096) / 280e12
    fast = 3e11 * per_token / (16 * 280e12 * mfu_7b * 0.95) / 3600
    slow = 3e11 * per_token / (16 * 280e12 * min(mfu_13b * 0.85, mfu_ms_7b * 0.85, mfu_70b)) / 3600
    assert p.training_hours.low == pytest.approx(fast, rel=1e-3)
    assert p.training_hours.high == pytest.approx(slow, rel=1e-3)
    extra = p.failure_allowance_hours  # a run of months: restarts and checkpoints on top
    assert p.time_to_train_hours.low == pytest.approx(p.training_hours.low + extra.low, abs=2e-4)
    assert 0 < extra.low < 0.02 * p.training_hours.low
    weeks = p.time_to_train_hours.low / 168
    assert weeks > 12  # 26+ weeks of training alone against 12
    for s in c.schedules:
        assert s.fits == "no" and "training alone" in s.finding
    assert not any(s.eligible for s in c.scores)
    assert "No workflow meets every hard constraint" in c.recommendation.summary


def test_two_fleets_each_workflow_uses_its_own(kb):
    data = llm_team(accelerators=[{"kind": "H100", "count": 8}, {"kind": "Ascend 910B", "count": 16}])
    data["hardware"]["training_target"] = "undecided"
    data["deployment"] = {"targets": ["nvidia-server", "ascend-server"]}
    c = card(kb, data)
    by = {p.workflow: p for p in c.projections}
    assert (by["pytorch"].accelerator, by["pytorch"].devices) == ("h100", 8)
    assert (by["mindspore"].accelerator, by["mindspore"].devices) == ("ascend-910b", 16)
    assert any("fleet used: 16 x Ascend 910B" in n for n in by["mindspore"].notes)
    # 7B: 6 x 7e9 + 12 x 32 x 4096^2 = 48.44 GFLOP/token x 2e10 tokens; 8 x 989.4 TFLOPS x the 16-bit MFU range
    # Llama 3's one H100 row, MFU 38-43% widened +-25% (a single reference): 0.506 at the fast end; its
    # 16,384 GPUs carry their own communication loss, so 8 take no scaling factor
    per_token = 6 * 7e9 + 12 * 32 * 4096 * 4096
    h = by["pytorch"].training_hours
    assert h.low == pytest.approx(2e10 * per_token / (8 * 989.4e12 * 0.405 * 1.25) / 3600, rel=1e-3)


def test_an_inference_only_product_on_atlas_300i_pro(kb):
    data = {
        "name": "bert service",
        "stage": "production",
        "team": {"pytorch": "proficient", "mindspore": "basic", "size": 4},
        "hardware": {"available": ["ascend"], "training_target": "ascend", "accelerator": "Atlas 300I Pro"},
        "deployment": {"targets": ["ascend-server"]},
        "model": {"family": "transformer", "parameters_millions": 340, "source": "pytorch-code"},
        "workload": {"model": "transformer", "kind": "inference"},
    }
    assert kb_problems(parse_requirements(data), kb) == []
    c = card(kb, data)
    for p in c.projections:
        assert p.time_to_train_hours is None and p.memory is None and "inference" in p.basis_detail
    data["workload"] = {"model": "transformer", "tokens": 1e9}  # the same chip for training: refused
    problems = kb_problems(parse_requirements(data), kb)
    assert len(problems) == 1 and "inference-only" in problems[0] and "workload.kind: inference" in problems[0]


@pytest.mark.parametrize(
    "change, field",
    [
        ({"workload": {"model": "resnet50", "tokens": 1e9, "dataset_samples": 10}}, "workload.tokens"),
        ({"model": {"family": "cnn", "layers": 50}}, "model.layers"),
        ({"model": {"family": "transformer", "trainable_share": 0.01}}, "model.trainable_share"),
        ({"model": {"family": "transformer", "hidden_size": 1000, "attention_heads": 3}}, "model.hidden_size"),
        ({"workload": {"model": "transformer"}}, "dataset_samples"),
        (
            {
                "hardware": {
                    "available": ["ascend"],
                    "accelerator": "H100",
                    "accelerators": [{"kind": "Ascend 910B", "count": 8}],
                }
            },
            "hardware.accelerators",
        ),
    ],
)
def test_bad_workload_input_is_one_line_naming_the_field(change, field):
    data = llm_team(accelerator="Ascend 910B", devices=8)
    data.update(change)
    with pytest.raises(UsageError) as exc:
        parse_requirements(data, "team.yaml")
    text = str(exc.value)
    assert text.startswith("team.yaml: ") and field in text and "\n" not in text


def test_existing_mindspore_code_is_priced_both_ways(kb):
    data = llm_team(accelerator="Ascend 910B", devices=8)
    data["model"].update(parameters_millions=1300, source="mindspore-code")
    data["team"] = {"pytorch": "basic", "mindspore": "expert", "size": 6}
    c = card(kb, data)
    phases = {s.workflow: {p.name: p.hours for p in s.phases} for s in c.schedules}
    reverse = phases["pytorch"]["port the MindSpore code to PyTorch (api-mappings in reverse)"]
    differs = [m for m in kb.api_mappings if m.mapping == "differs" and m.effort_hours]
    # transformer re-implementation 8-40 h + 0.3 (REVERSE_PORT_API_SHARE) x each differing API's effort
    assert reverse[0] == pytest.approx(8 + 0.3 * sum(m.effort_hours.low for m in differs), abs=0.01)
    assert reverse[1] == pytest.approx(40 + 0.3 * sum(m.effort_hours.high for m in differs), abs=0.01)
    assert reverse[0] > 4 and reverse[1] > 4 * 24  # 21-104 h, not the 4-24 h the issue found
    # staying on MindSpore charges none of the PyTorch->MindSpore porting pitfalls
    new = copy.deepcopy(data)
    new["model"]["source"] = "new"
    stay = next(s for s in c.scores if s.workflow == "mindspore").migration_hours
    assert stay == next(s for s in card(kb, new).scores if s.workflow == "mindspore").migration_hours
    assert not any("port" in name for name in phases["mindspore"])


def bert_service(accelerator: str, available: str) -> dict:
    return {
        "name": "bert service",
        "stage": "production",
        "team": {"pytorch": "proficient", "mindspore": "basic", "size": 4},
        "hardware": {"available": [available], "training_target": available, "accelerator": accelerator},
        "deployment": {"targets": [f"{available}-server"]},
        "model": {
            "family": "transformer",
            "architecture": "encoder",
            "parameters_millions": 335,
            "source": "pytorch-code",
        },
        "workload": {"model": "transformer", "kind": "inference"},
    }


def test_an_inference_product_is_scored_on_its_serving_path_by_hand(kb):
    """BERT-Large served on one Atlas 300I Pro. The only encoder row is MLPerf v3.1's
    L4 (1,028.95 samples/s, 2.58 ms at batch 1): scaled by 16-bit peak (70 / 121 TFLOPS) and size
    (0.335 / 0.335), widened +-25% as a single row (SINGLE_REFERENCE_WIDEN), x0.7 on Ascend
    (SERVING_ASCEND_EFFICIENCY)."""
    c = card(kb, bert_service("Atlas 300I Pro", "ascend"))
    hw = 70 / 121
    for p in c.projections:
        s = p.serving
        assert s is not None and s.unit == "samples/s" and s.references == ["mlperf-inf-3.1-bert-large-l4-trt"]
        assert s.per_device.low == pytest.approx(1028.95 * hw * 0.75 * 0.7, rel=1e-3)
        assert s.per_device.high == pytest.approx(1028.95 * hw * 1.25 * 0.7, rel=1e-3)
        assert s.latency_ms.low == pytest.approx(2.58 / hw / 0.7, rel=1e-3)
        assert p.time_to_train_hours is None and p.memory is None
    # each workflow serves through its serving route (knowledge base routes)
    assert {p.serving.runtime for p in c.projections} == {"ATC -> OM (AscendCL)", "MindSpore Lite"}
    perf = {s.workflow: next(x for x in s.criteria if x.name == "performance") for s in c.scores}
    assert all("serving through" in x.note for x in perf.values())
    # nothing trains: no training pitfall, and moving the model is its conversion, not a re-implementation
    training_only = {p.id for p in kb.pitfalls if not p.serving}
    assert training_only >= {"datacenter-power-planning", "hccl-configuration", "lr-scheduler-api", "nan-under-o2"}
    assert all(not set(s.pitfalls) & training_only for s in c.scores)
    assert not {p.id for p in c.pitfalls} & training_only
    phases = {s.workflow: [p.name for p in s.phases] for s in c.schedules}
    assert all(not any(n.startswith("port") for n in names) for names in phases.values())


def test_serving_on_nvidia_outruns_the_same_product_on_a_smaller_ascend_card(kb):
    """The same encoder on an L4 (the row's own card: no scaling, no Ascend factor) serves faster than on a
    300I Pro; the performance criterion compares the two fleets' serving rates."""
    data = bert_service("L4", "nvidia")
    data["hardware"] = {"available": ["nvidia", "ascend"], "training_target": "undecided"}
    data["hardware"]["accelerators"] = [{"kind": "L4", "count": 1}, {"kind": "Atlas 300I Pro", "count": 1}]
    c = card(kb, data)
    by = {p.workflow: p for p in c.projections}
    assert by["pytorch"].accelerator == "l4" and by["mindspore"].accelerator == "atlas-300i-pro"
    assert by["pytorch"].serving.per_device.mid == pytest.approx(1028.95, rel=1e-3)
    ratio = by["mindspore"].serving.total.mid / by["pytorch"].serving.total.mid
    assert ratio == pytest.approx(70 / 121 * 0.7, rel=1e-3)
    perf = {s.workflow: next(x for x in s.criteria if x.name == "performance").score for s in c.scores}
    assert perf["pytorch"] == 100 and perf["mindspore"] == pytest.approx(100 * ratio, abs=0.01)


def test_serving_constants_enter_the_sensitivity_search(kb):
    from advisor.decision.constants import CONSTANTS

    for name in ("SINGLE_REFERENCE_WIDEN", "LORA_TRAINABLE_SHARE", "SERVING_ASCEND_EFFICIENCY"):
        assert CONSTANTS[name].search is not None and CONSTANTS[name].projection
    full = score(parse_requirements(bert_service("Atlas 300I Pro", "ascend")), None, None, kb)
    assert {"SERVING_ASCEND_EFFICIENCY", "SINGLE_REFERENCE_WIDEN"} <= {c.name for c in full.constant_sensitivity}


def test_a_decoder_service_without_a_stated_load_is_rated_at_a_full_batch(kb):
    """A 7B chat model served on 8 x H20 with no `serving:` block: the rate is the capacity arithmetic's at a
    full batch of the defaults (1,024-token prompts, 256-token answers), not judged. By hand, per H20 (96 GiB,
    4,000 GB/s, 148 TFLOPS bf16): usable 96 GiB x 0.93 x 0.9 = 86.3 GB holds (86.3 - 14) GB / (131,072 B x
    1,280) = 430 requests; a step of 430 is compute-bound, 2 x 7e9 x 430 FLOPs at 30% of 148 TFLOPS; a
    prompt's prefill (2 x 7e9 x 1024 + 2 x 32 x 1024^2 x 4096) FLOPs at 30%; 430 / (430 x prefill + 256 x
    step) requests/s x 256 tokens. The MLPerf rows rescaled by bandwidth, size and bytes (FP8 rows, 16-bit
    service: x 1/2) stand beside it as evidence."""
    data = {
        "name": "chat service",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "none", "size": 5},
        "hardware": {"available": ["nvidia"], "training_target": "nvidia", "accelerator": "H20", "devices": 8},
        "deployment": {"targets": ["nvidia-server"]},
        "model": {"family": "transformer", "parameters_millions": 7000, "source": "pytorch-code"},
        "workload": {"model": "transformer", "kind": "inference"},
    }
    s = next(p for p in card(kb, data).projections if p.workflow == "pytorch").serving
    assert s.unit == "tokens/s" and s.runtime == "vLLM" and s.slo is None  # the serving route on NVIDIA
    usable = 96 * 2**30 * 0.93 * 0.9
    kv = 32 * 2 * 8 * 128 * 2
    batch = int((usable - 14e9) // (kv * 1280))
    assert s.capacity.max_batch == batch == 430
    step = 2 * 7e9 * batch / (148e12 * 0.3)
    prefill = (2 * 7e9 * 1024 + 2 * 32 * 1024**2 * 4096) / (148e12 * 0.3)
    assert s.per_device.low == pytest.approx(batch / (batch * prefill + 256 * step) * 256, rel=1e-3)
    assert s.total.mid == pytest.approx(8 * s.per_device.mid, rel=1e-3)
    rows = {
        "mlperf-inf-4.1-llama2-70b-h100-trtllm": 3065.6 * 4000 / 3350 * 69.0 / 7 / 2,
        "mlperf-inf-4.1-gptj-h100-trtllm": 2467.5 * 4000 / 3350 * 6.05 / 7 / 2,
        "mlperf-inf-4.0-gptj-l40s-trtllm": 815.7 * 4000 / 864 * 6.05 / 7 / 2,
    }
    assert set(s.references) == set(rows)
    assert any(f"give {min(rows.values()):,.0f}-{max(rows.values()):,.0f} per device" in n for n in s.notes)
