"""A projected rate that underflows, or a time of centuries, is a finding, not a number: the
projection says why ("the projection is not meaningful: ...") and prints no time, cost or energy. A
range that only crosses a bound keeps its numbers and a warning (tests/test_decision_model.py)."""

from __future__ import annotations

import copy

import pytest

from advisor.decision.scoring import score
from advisor.requirements import parse_requirements


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def team(**model) -> dict:
    return {
        "name": "sanity",
        "stage": "production",
        "team": {"pytorch": "proficient", "mindspore": "basic", "size": 8},
        "hardware": {"available": ["ascend"], "training_target": "ascend", "accelerator": "Ascend 910B", "devices": 8},
        "deployment": {"targets": ["ascend-server"]},
        "model": {"family": "transformer", "parameters_millions": 7000, "source": "pytorch-code", **model},
        "needs": {"distributed_training": True},
        "workload": {"model": "transformer", "tokens": 1e12},
    }


def projections(kb, data):
    return score(parse_requirements(copy.deepcopy(data)), None, None, kb, sensitivity=False).projections


def withheld(p) -> bool:
    return p.time_to_train_hours is None and p.compute_cost_usd is None and p.energy_kwh is None


def test_a_sequence_of_ten_million_tokens_is_a_finding_not_a_division_by_zero(kb):
    # 6 N + 12 L s h per token with s = 1e7 (32 layers, hidden 4096): ~1.6e13 FLOP per token, ~1.6e20 per
    # sequence, so a 910B at any MFU here trains a sequence in days and 1e12 tokens (1e5 sequences) take
    # centuries: the old code rounded the rate to 0.000 sequences/s and divided by it
    for p in projections(kb, team(sequence_length=10_000_000)):
        assert withheld(p) and p.basis == "none"
        assert any(
            w.startswith("the projection is not meaningful:") and "MEANINGFUL_MAX_HOURS" in w for w in p.warnings
        )


def test_an_underflowing_peak_is_a_finding_not_a_division_by_zero(kb):
    accs = []
    for a in kb.accelerators:
        if a.id == "ascend-910b":
            tiny = a.fp16_tflops.model_copy(update={"value": 5e-324, "alternatives": []})
            a = a.model_copy(update={"fp16_tflops": tiny, "bf16_tflops": None})
        accs.append(a)
    for p in projections(kb.model_copy(update={"accelerators": accs}), team()):
        assert withheld(p)
        assert any(w.startswith("the projection is not meaningful:") for w in p.warnings)
