"""advisor/review/kb_sensitivity.py and the document's margin without measurements: the knowledge
base's own figures (ratings, prices, references) moved within their stated ranges, each re-scored."""

from __future__ import annotations

from pathlib import Path

import pytest

import knowledge
from advisor.review import kb_sensitivity as ks
from advisor.review.document import build, margin_without_measurements
from advisor.decision.scoring import score
from advisor.report import build_report
from advisor.measurements import Measurements
from advisor.requirements import load_requirements

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


@pytest.fixture(scope="module")
def req():
    return load_requirements(EXAMPLE)


def _margin(card, winner):
    totals = {s.workflow: s.total for s in card.scores if s.eligible}
    return totals[winner] - max(v for k, v in totals.items() if k != winner)


def test_each_move_is_one_figure_at_the_end_of_its_range_and_its_margin_is_the_rescored_one(kb, req):
    rescore = lambda k: score(req, None, None, k, None, sensitivity=False)  # noqa: E731
    base = rescore(kb)
    winner = base.recommendation.workflow
    res = ks.search(kb, rescore, winner, {"pytorch", "mindspore", "torch_npu"}, {"ascend-910b"})
    assert res.searched > 10 and res.baseline == pytest.approx(_margin(base, winner))
    assert res.moves, "some knowledge-base figure must move the margin of a verdict that rests on ratings"
    assert [m.margin for m in res.moves] == sorted(m.margin for m in res.moves)
    first = res.moves[0]
    if first.section == "ecosystem":
        assert abs(first.after - first.before) == ks.RATING_STEP and 0 <= first.after <= 5
        # re-score by hand: that one rating moved, nothing else
        entry = next(e for e in kb.ecosystem if e.id == first.entry)
        moved = kb.model_copy(
            update={
                "ecosystem": [
                    e if e.id != entry.id else e.model_copy(update={"score": first.after}) for e in kb.ecosystem
                ]
            }
        )
        assert _margin(rescore(moved), winner) == pytest.approx(first.margin)
    assert all(m.margin < res.baseline for m in res.moves)
    a, b, margin, _top = res.pair
    assert margin <= min(a.margin, b.margin) + 1e-9 or margin < res.baseline  # two moves cut at least as far as one


def test_the_document_says_whether_the_measurements_moved_the_verdict(kb, req):
    report = build_report(req, Measurements(), kb=kb, created_at="2026-01-01T00:00:00Z")
    w = margin_without_measurements(report, kb)
    assert w.measured_inputs == [] and not w.moved and "nothing was measured" in w.note
    assert w.margin == pytest.approx(report.recommendation.margin, abs=1e-6)
    doc = build(report, kb)
    assert doc.kb_sensitivity is not None and doc.kb_sensitivity.ranges == ks.ranges()
    assert doc.first_page.would_change[-1].startswith("knowledge-base figures")


def test_mfu_references_are_searched_and_moving_one_moves_the_projection(kb):
    """The MFU references a transformer workload is projected from are knowledge-base
    figures inside the search; moving one (+20%) moves the projected tokens/s of the workflow it serves."""
    from advisor.requirements import Requirements

    nvidia = Requirements.model_validate(  # a 7B bf16 model on 8 x 910B, projected from MFU references
        {
            "name": "llm",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 6},
            "hardware": {
                "available": ["ascend"],
                "training_target": "ascend",
                "accelerator": "Ascend 910B",
                "devices": 8,
            },
            "deployment": {"targets": ["ascend-server"]},
            "model": {
                "family": "transformer",
                "parameters_millions": 7000,
                "source": "pytorch-code",
                "precision": "bf16",
            },
            "needs": {"distributed_training": True},
            "workload": {"model": "transformer", "tokens": 1e11, "batch_size": 256},
        }
    )
    base = score(nvidia, None, None, kb, None, sensitivity=False)
    accelerators = {p.accelerator for p in base.projections if p.accelerator}
    found = [
        f for f in ks._figures(kb, {"pytorch", "mindspore", "torch_npu"}, accelerators) if f[0] == "mfu_references"
    ]
    assert found, f"no MFU reference searched for {accelerators}"
    section, entry, field, value, tries = found[0]
    assert tries == [pytest.approx(value * 0.8), pytest.approx(value * 1.2)]
    moved = ks._replace(kb, [(section, entry, field, value * 1.2)])
    after = next(m for m in moved.mfu_references if m.id == entry.id)
    if field == "mfu":  # the whole range scaled: its middle is the moved figure
        assert (after.mfu.low + after.mfu.high) / 2 == pytest.approx(value * 1.2)
        assert after.mfu.low / after.mfu.high == pytest.approx(entry.mfu.low / entry.mfu.high)
    again = score(
        nvidia, None, None, ks._replace(kb, [(s, e, f, v * 1.2) for s, e, f, v, _ in found]), None, sensitivity=False
    )
    before = {p.workflow: p.tokens_per_second for p in base.projections}
    changed = [
        p.workflow
        for p in again.projections
        if p.tokens_per_second is not None
        and before[p.workflow] is not None
        and p.tokens_per_second.high != pytest.approx(before[p.workflow].high)
    ]
    assert changed, "raising every searched MFU reference by 20% moved no projection"


def test_an_mfu_range_moves_as_a_whole(kb):
    found = [
        f for f in ks._figures(kb, {"pytorch"}, {"h100", "a100-80gb"}) if f[0] == "mfu_references" and f[2] == "mfu"
    ]
    assert found, "no MFU-range reference for h100 / a100-80gb"
    section, entry, field, value, _ = found[0]
    assert value == pytest.approx((entry.mfu.low + entry.mfu.high) / 2)
    after = next(m for m in ks._replace(kb, [(section, entry, field, value * 0.8)]).mfu_references if m.id == entry.id)
    assert (after.mfu.low, after.mfu.high) == (pytest.approx(entry.mfu.low * 0.8), pytest.approx(entry.mfu.high * 0.8))
    assert "MFU reference on" in ks.name_of(section, entry) and entry.id not in ks.name_of(section, entry)
