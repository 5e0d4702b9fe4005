"""The MFU references, worked by hand: a reference's MFU from its tokens/s x (6 N + 12 L s h) over its
accelerator's first-listed 16-bit peak, and which references a job's MFU range is drawn from (this
accelerator, this route, the vendor's other chips, MoE and fine-tuning runs), widened when there is one."""

from __future__ import annotations

import pytest

from advisor.decision.constants import DEFAULT
from advisor.decision.throughput import listed_peak, mfu_range, reference_mfu


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


@pytest.fixture(scope="module")
def accs(kb):
    return {a.id: a for a in kb.accelerators}


def _ref(kb, ref_id):
    (ref,) = [r for r in kb.mfu_references if r.id == ref_id]
    return ref


def test_a_stated_mfu_is_taken_as_stated(kb):
    assert reference_mfu(_ref(kb, "llama3-405b-h100-bf16"), kb) == (0.38, 0.43)


def test_an_mfu_from_tokens_per_second_on_the_910b(kb, accs):
    """MindFormers Llama-2 7B on 910Bs: 4,160 tokens/s per device x (6 x 6.74e9 + 12 x 32 x 4096 x 4096)
    FLOPs a token over 280 TFLOPS (the 910B's first-listed 16-bit peak)."""
    assert listed_peak(accs["ascend-910b"]) == 280.0
    flops = 6 * 6.74e9 + 12 * 32 * 4096 * 4096
    assert reference_mfu(_ref(kb, "mindformers-llama2-7b-910b"), kb) == (
        pytest.approx(4160 * flops / 280e12),
        pytest.approx(4160 * flops / 280e12),
    )


def test_a_moe_references_mfu_counts_its_active_parameters(kb, accs):
    """DeepSeek-V2 on H800s: 1,607.5 tokens/s x (6 x 21e9 + 12 x 60 x 4096 x 5120) over the H800's peak."""
    peak = listed_peak(accs["h800"])
    flops = 6 * 21e9 + 12 * 60 * 4096 * 5120
    low, high = reference_mfu(_ref(kb, "deepseek-v2-h800-moe"), kb)
    assert low == high == pytest.approx(1607.5 * flops / (peak * 1e12))


def test_fp32_training_has_no_mfu_reference(kb, accs):
    assert mfu_range(kb, accs["h100"], "fp32") is None


def test_one_reference_on_the_accelerator_is_widened_by_a_quarter_of_its_middle(kb, accs):
    """H100, bf16: only Llama 3 405B (38-43%) ran on it; mid 0.405, SINGLE_REFERENCE_WIDEN 0.25: 0.30375 to
    0.50625."""
    assert DEFAULT["SINGLE_REFERENCE_WIDEN"] == 0.25
    r = mfu_range(kb, accs["h100"], "bf16")
    assert [x.id for x in r.refs] == ["llama3-405b-h100-bf16"] and r.same_accelerator
    assert (r.low, r.high) == (pytest.approx(0.405 * 0.75), pytest.approx(0.405 * 1.25))
    assert [(p.low, p.high) for p in r.per_reference] == [(r.low, r.high)]


def test_several_references_on_the_accelerator_span_their_lowest_and_highest(kb, accs):
    """A100 80GB: Megatron 1T 33-39% and Megatron 530B 54.2%: 0.33-0.542, not widened."""
    r = mfu_range(kb, accs["a100-80gb"], "fp16")
    assert sorted(x.id for x in r.refs) == ["megatron-1t-a100-fp16", "megatron-530b-a100-selective"]
    assert (r.low, r.high, r.same_accelerator) == (0.33, 0.542, True)
    assert sorted((p.low, p.high) for p in r.per_reference) == [(0.33, 0.39), (0.542, 0.542)]


def test_the_workflows_own_route_first(kb, accs):
    """On the 910B with the mindspeed-llm route only its own reference counts (widened, alone)."""
    own = mfu_range(kb, accs["ascend-910b"], "bf16", route="mindspeed-llm")
    (only,) = own.refs
    assert only.id == "mindspeed-llm-llama2-7b-910b" and own.same_accelerator
    mid = reference_mfu(only, kb)[0]
    assert (own.low, own.high) == (pytest.approx(mid * 0.75), pytest.approx(mid * 1.25))
    every = mfu_range(kb, accs["ascend-910b"], "bf16")
    assert len(every.refs) == 5
    spans = [reference_mfu(x, kb) for x in every.refs]
    assert (every.low, every.high) == (min(s[0] for s in spans), max(s[1] for s in spans))


def test_a_left_out_reference_is_not_drawn_on(kb, accs):
    r = mfu_range(kb, accs["a100-80gb"], "fp16", exclude=frozenset({"megatron-530b-a100-selective"}))
    assert [x.id for x in r.refs] == ["megatron-1t-a100-fp16"]
    assert (r.low, r.high) == (pytest.approx(0.36 * 0.75), pytest.approx(0.36 * 1.25))


def test_no_reference_on_the_chip_takes_the_vendors_other_chips(kb, accs):
    """An H200 has none: the NVIDIA dense 16-bit references (H100, A100s), not the same accelerator."""
    r = mfu_range(kb, accs["h200"], "bf16")
    assert sorted(x.id for x in r.refs) == [
        "llama3-405b-h100-bf16",
        "megatron-1t-a100-fp16",
        "megatron-530b-a100-selective",
    ]
    assert (r.low, r.high, r.same_accelerator) == (0.33, 0.542, False)


def test_a_mixture_of_experts_takes_the_moe_references(kb, accs):
    r = mfu_range(kb, accs["h800"], "bf16", moe=True)
    assert sorted(x.id for x in r.refs) == ["deepseek-v2-h800-moe", "deepseek-v3-h800-moe"]
    assert r.same_accelerator
    spans = [reference_mfu(x, kb) for x in r.refs]
    assert (r.low, r.high) == (min(s[0] for s in spans), max(s[1] for s in spans))


def test_a_fine_tuning_job_without_fine_tuning_references_takes_the_full_training_ones(kb, accs):
    r = mfu_range(kb, accs["h100"], "bf16", fine_tune=True)
    assert [x.id for x in r.refs] == ["llama3-405b-h100-bf16"]
