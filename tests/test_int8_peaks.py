"""The 910B family's INT8 peak: no per-chip figure is published, so it is derived from the architecture
(the Da Vinci cube does twice as many INT8 as FP16 multiply-adds per cycle, as the Ascend 910's vendor
figures of 256 TFLOPS FP16 and 512 TOPS INT8 show) and labelled `derived`. With it a W8A8 chat service on
910B is judged against its SLO instead of blocked. Bundled knowledge base."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from advisor.decision.scoring import score
from advisor.decision.serving_capacity import served_precision
from advisor.requirements import parse_requirements

ROOT = Path(__file__).resolve().parents[1]
TEAM = ROOT / "tests" / "fixtures" / "teams" / "inference-llm-product.yaml"


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def acc(kb, ident):
    return next(a for a in kb.accelerators if a.id == ident)


@pytest.mark.parametrize("ident", ["ascend-910b", "ascend-910b4"])
def test_the_910b_int8_peak_is_twice_its_16_bit_peak_and_says_it_is_derived(kb, ident):
    a = acc(kb, ident)
    assert a.int8_tops is not None and a.int8_tops.confidence == "derived"
    assert a.int8_tops.value == 2 * a.fp16_tflops.value
    alt = {x.value for x in a.int8_tops.alternatives}
    assert {2 * x.value for x in a.fp16_tflops.alternatives} <= alt  # the 16-bit range carried over


def test_the_ratio_is_the_one_the_vendor_published_for_the_ascend_910(kb):
    a = acc(kb, "ascend-910")
    assert a.int8_tops.confidence == "vendor" and a.int8_tops.value == 2 * a.fp16_tflops.value


def test_w8a8_on_910b_prefills_at_the_int8_peak(kb):
    width, peak, note = served_precision(acc(kb, "ascend-910b"), "w8a8")
    assert width == "int8" and peak == 560e12 and "int8 peak" in note


def test_a_w8a8_service_on_910b_is_judged_not_blocked(kb):
    data = yaml.safe_load(TEAM.read_text())
    card = score(parse_requirements(copy.deepcopy(data)), None, None, kb, sensitivity=False)
    chosen = next(s for s in card.scores if s.workflow == card.recommendation.workflow)
    assert chosen.eligible, chosen.blocked_by
    serving = next(p.serving for p in card.projections if p.workflow == chosen.workflow)
    assert serving is not None and serving.capacity is not None
    assert serving.capacity.weights_precision == "int8" and serving.capacity.quantization == "w8a8"
    assert not any("no int8 figure" in n for s in card.scores for n in s.blocked_by)
