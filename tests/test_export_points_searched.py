"""EXPORT_OK_POINTS is one named, searched constant (it was two: a module constant the sensitivity
analysis could not move, and EXPORT_WORKS_SCORE, the same 50 under another name for the cap rule).

tests/fixtures/tui/deploy-lenet.json is a REAL `advisor probe --deploy` result of LeNet on this
project's 2-vCPU machine kind (every path exported, served and agreed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.decision.constants import CONSTANTS, Consts, searched
from advisor.decision.deployment import SERVE_FAIL_CAP, deployment_evidence
from advisor.decision.scoring import score
from advisor.requirements import load_requirements

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = json.loads((ROOT / "tests" / "fixtures" / "tui" / "deploy-lenet.json").read_text())
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def test_one_constant_searched_where_it_acts():
    c = CONSTANTS["EXPORT_OK_POINTS"]
    assert c.value == 50 and c in searched() and c.projection and c.acts_when == "deploy"
    assert "EXPORT_WORKS_SCORE" not in CONSTANTS
    assert c.search[0] < SERVE_FAIL_CAP < c.search[1]


def test_a_working_path_moves_point_for_point_with_it():
    default = {(r.framework, r.target): r.score for r in deployment_evidence(DEPLOY)}
    lower = {(r.framework, r.target): r.score for r in deployment_evidence(DEPLOY, export_points=30)}
    for key, s in default.items():
        if s is None:
            assert lower[key] is None  # not measured stays not measured
        else:  # every real path here exported and served (at most 50+10+20+20 = 100: never clamped)
            assert lower[key] == s - 20
    assert all(isinstance(s, int) for s in lower.values() if s is not None)  # whole points in the JSON


def test_the_note_states_the_points_used():
    rows = deployment_evidence(DEPLOY, export_points=40)
    assert any("points: export 40, serves 10" in r.note for r in rows if r.measured)


def test_the_search_skips_it_without_a_deployment_result_and_tries_it_with_one(kb):
    req = load_requirements(EXAMPLE)
    plain = score(req, kb=kb)
    item = next(c for c in plain.constant_sensitivity if c.name == "EXPORT_OK_POINTS")
    assert "no deploy result" in item.note and item.threshold is None
    measured = score(req, kb=kb, deploy=DEPLOY)
    item = next(c for c in measured.constant_sensitivity if c.name == "EXPORT_OK_POINTS")
    assert "no deploy result" not in item.note


def test_moving_it_reaches_the_scores_of_a_cpu_server_team(kb):
    base = load_requirements(EXAMPLE)  # a CPU-server target: the measured path is the fit itself
    req = base.model_copy(update={"deployment": base.deployment.model_copy(update={"targets": ["cpu-server"]})})
    a = score(req, kb=kb, deploy=DEPLOY, sensitivity=False)
    b = score(req, kb=kb, deploy=DEPLOY, sensitivity=False, constants={"EXPORT_OK_POINTS": 20.0})
    assert Consts({"EXPORT_OK_POINTS": 20.0})["EXPORT_OK_POINTS"] == 20.0
    deployment = lambda card: [c.score for s in card.scores for c in s.criteria if c.name == "deployment"]  # noqa: E731
    assert [x - y for x, y in zip(deployment(a), deployment(b))] == [30.0, 30.0, 30.0]
