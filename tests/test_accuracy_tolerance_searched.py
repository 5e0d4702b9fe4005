"""ACCURACY_TOLERANCE is a named, searched constant: the scoring reads it through Consts, so the
sensitivity analysis can move it (the measured gap's interval is judged again against the moved value).

The gaps below are ILLUSTRATIVE: the real two-seed accuracy result (tests/fixtures/report) with its one
gap replaced, as tests/test_report_measured.py does, to exercise verdicts this machine did not produce."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.decision.accuracy import ACCURACY_TOLERANCE, verdict_at
from advisor.decision.constants import CONSTANTS, searched
from advisor.decision.scoring import score
from advisor.requirements import load_requirements

ROOT = Path(__file__).resolve().parents[1]
ACCURACY = ROOT / "tests" / "fixtures" / "report" / "accuracy-2vcpu.json"
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def _accuracy(per_seed: list[float]) -> dict:
    doc = json.loads(ACCURACY.read_text())
    mean = sum(per_seed) / len(per_seed)
    doc["gaps"][0].update(per_seed=per_seed, mean=mean, ci95=[mean - 0.002, mean + 0.002])
    return doc


def _migration(card, workflow: str):
    s = next(s for s in card.scores if s.workflow == workflow)
    return next(c for c in s.criteria if c.name == "migration")


def test_it_is_one_constant_with_a_source_and_a_search_range():
    c = CONSTANTS["ACCURACY_TOLERANCE"]
    assert c.value == ACCURACY_TOLERANCE == 0.01
    assert c in searched() and c.search[0] < c.value < c.search[1]
    assert "assumption" in c.source and not c.projection  # judged in evaluate: no re-preparing


@pytest.mark.parametrize(
    ("low", "high", "seeds", "tolerance", "verdict"),
    [
        (-0.031, -0.027, 2, 0.01, "differs"),
        (-0.031, -0.027, 2, 0.04, "same"),
        (-0.031, -0.027, 2, 0.029, "undecided"),
        (-0.005, 0.005, 1, 0.01, "undecided"),  # one seed: no spread to judge by
        (-0.01, 0.01, 3, 0.01, "same"),  # the bound itself is inside
    ],
)
def test_the_interval_is_judged_against_the_tolerance(low, high, seeds, tolerance, verdict):
    assert verdict_at(low, high, seeds, tolerance) == verdict


def test_moving_the_tolerance_moves_the_penalty(kb):
    req = load_requirements(EXAMPLE)
    acc = _accuracy([-0.031, -0.027])  # outside +-1 point: the penalty at the default
    at_default = score(req, kb=kb, accuracy=acc, sensitivity=False)
    wide = score(req, kb=kb, accuracy=acc, sensitivity=False, constants={"ACCURACY_TOLERANCE": 0.04})
    penalty = CONSTANTS["ACCURACY_GAP_PENALTY"].value
    for wf in ("mindspore", "hybrid"):
        assert "ACCURACY_GAP_PENALTY" in _migration(at_default, wf).note
        assert "ACCURACY_GAP_PENALTY" not in _migration(wide, wf).note
        gained = _migration(wide, wf).score - _migration(at_default, wf).score
        assert gained == pytest.approx(penalty, abs=1e-3) or _migration(at_default, wf).score == 0.0
    assert _migration(wide, "pytorch").score == _migration(at_default, "pytorch").score  # no port, no gap


def test_the_report_lists_it_in_the_constant_sensitivity(kb):
    req = load_requirements(EXAMPLE)
    card = score(req, kb=kb, accuracy=_accuracy([-0.031, -0.027]))
    item = next(c for c in card.constant_sensitivity if c.name == "ACCURACY_TOLERANCE")
    assert item.value == 0.01 and item.source == CONSTANTS["ACCURACY_TOLERANCE"].source
