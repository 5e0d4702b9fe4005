"""advisor/decision/kb_sensitivity.py and the document's margin without measurements: the knowledge
base's own figures (ratings, prices, references) moved within their stated ranges, each re-scored."""

from __future__ import annotations

from pathlib import Path

import pytest

import knowledge
from advisor.decision import kb_sensitivity as ks
from advisor.decision.document import build, margin_without_measurements
from advisor.decision.scoring import score
from advisor.report import build_report
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
    report = build_report(req, kb=kb, created_at="2026-01-01T00:00:00Z")
    w = margin_without_measurements(report, kb)
    assert w.measured_inputs == [] and not w.moved and "nothing was measured" in w.note
    assert w.margin == pytest.approx(report.recommendation.margin, abs=1e-6)
    doc = build(report, kb)
    assert doc.kb_sensitivity is not None and doc.kb_sensitivity.ranges == ks.RANGES
    assert doc.first_page.would_change[-1].startswith("knowledge-base figures")
