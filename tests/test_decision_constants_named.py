"""The deployment path's points, the team's skill points and the base hours of re-implementing a model are
named constants the sensitivity search moves (they were bare numbers: a module table, literals in the
team criterion, module constants the search never saw). Each is read through Consts: moving one moves
exactly the number it names.

tests/fixtures/tui/deploy-lenet.json is a real `advisor probe --deploy` result (every path exported,
served and agreed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.decision.constants import CONSTANTS, DEFAULT, Consts, searched
from advisor.decision.criteria.migration import port_base_hours
from advisor.decision.criteria.team import team_score
from advisor.decision.deployment import deployment_evidence
from advisor.decision.scoring import score
from advisor.requirements import load_requirements

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = json.loads((ROOT / "tests" / "fixtures" / "tui" / "deploy-lenet.json").read_text())
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"
DEPLOY_POINTS = (
    "SERVES_POINTS",
    "PARITY_POINTS",
    "LATENCY_POINTS",
    "PARITY_FAIL_CAP",
    "SERVE_FAIL_CAP",
    "FALLBACK_PENALTY",
)
FAMILIES = ("cnn", "transformer", "rnn", "gnn", "other")
NAMED = (
    *DEPLOY_POINTS,
    "TEAM_SKILL_BASE",
    "TEAM_SKILL_STEP",
    *(f"PORT_HOURS_{f.upper()}_{end}" for f in FAMILIES for end in ("LOW", "HIGH")),
)


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


@pytest.mark.parametrize("name", NAMED)
def test_each_is_sourced_and_searched_around_its_value(name):
    c = CONSTANTS[name]
    assert c in searched()
    assert c.source.strip() and c.what.strip()
    lo, hi = c.search
    assert lo <= c.value <= hi and lo < hi


def test_the_deployment_points_act_only_with_a_deployment_result():
    for name in DEPLOY_POINTS:
        assert CONSTANTS[name].acts_when == "deploy" and CONSTANTS[name].projection


def test_every_measured_path_moves_point_for_point_with_the_serve_points():
    default = {(r.framework, r.target): r.score for r in deployment_evidence(DEPLOY)}
    k = DEFAULT.moved("SERVES_POINTS", 4.0)
    lower = {(r.framework, r.target): r.score for r in deployment_evidence(DEPLOY, k=k)}
    moved = [key for key, s in default.items() if s is not None]
    assert moved  # the fixture measured some paths
    for key in moved:  # every path here served: 50 + 10 + 20 + 20 = 100 at most, never clamped
        assert lower[key] == default[key] - 6
    assert all(isinstance(s, int) for s in lower.values() if s is not None)  # whole points in the JSON


def test_the_note_states_the_points_used():
    k = Consts({"PARITY_POINTS": 15.0, "LATENCY_POINTS": 25.0})
    rows = deployment_evidence(DEPLOY, k=k)
    assert any("parity 15, latency vs source 25 (assumption)" in r.note for r in rows if r.measured)


def test_the_team_score_is_base_plus_a_step_per_level():
    req = load_requirements(EXAMPLE)
    levels = ("none", "basic", "proficient", "expert")
    pt = levels.index(req.team.pytorch)
    score_, _ev, note = team_score("pytorch", req, DEFAULT)
    assert score_ == 25 + 25 * pt and note == "25 + 25 per PyTorch skill level"
    k = Consts({"TEAM_SKILL_BASE": 10.0, "TEAM_SKILL_STEP": 20.0})
    moved, _ev, note = team_score("pytorch", req, k)
    assert moved == min(100.0, 10 + 20 * pt) and note == "10 + 20 per PyTorch skill level"
    assert team_score("pytorch", req, Consts({"TEAM_SKILL_BASE": 50.0, "TEAM_SKILL_STEP": 33.0}))[0] <= 100.0


@pytest.mark.parametrize("family", FAMILIES)
def test_the_port_hours_of_each_family_are_its_constants(family):
    name = f"PORT_HOURS_{family.upper()}"
    assert port_base_hours(family, DEFAULT) == (CONSTANTS[f"{name}_LOW"].value, CONSTANTS[f"{name}_HIGH"].value)
    assert port_base_hours(family, Consts({f"{name}_HIGH": 99.0}))[1] == 99.0


def test_the_search_reads_the_port_hours_of_the_teams_family_only(kb):
    req = load_requirements(EXAMPLE)
    card = score(req, kb=kb)
    items = {c.name: c for c in card.constant_sensitivity}
    for family in FAMILIES:
        for end in ("LOW", "HIGH"):
            assert f"PORT_HOURS_{family.upper()}_{end}" in items
    # a family the team's model is not: nothing read it, so it cannot move the verdict
    other = next(f for f in FAMILIES if f != req.model.family)
    assert "stays on top" in items[f"PORT_HOURS_{other.upper()}_LOW"].note


def test_the_default_weights_are_named_constants_and_read_only_where_they_apply():
    from advisor.decision.weights import default_weights, resolve_weights

    req = load_requirements(EXAMPLE)
    noted: set[str] = set()
    raw = default_weights(req, DEFAULT.noting(noted))
    for name, (value, because) in raw.items():
        base = CONSTANTS[f"WEIGHT_{name.upper()}"]
        assert base in searched() and base.source.startswith("assumption")
        raises = sorted(n for n in noted if n.startswith(f"WEIGHT_{name.upper()}_"))
        assert len(raises) == len(because)  # one constant read per requirement that raised it
        assert value == pytest.approx(base.value + sum(CONSTANTS[n].value for n in raises), abs=1e-12)
    moved = {w.name: w.raw for w in resolve_weights(req, DEFAULT.moved("WEIGHT_TEAM", 0.3))}
    assert moved["team"] == pytest.approx(raw["team"][0] - 0.14 + 0.3, abs=1e-12)


def test_a_weight_the_user_gives_reads_none_of_its_default_constants():
    from advisor.decision.weights import resolve_weights
    from advisor.requirements import parse_requirements

    data = load_requirements(EXAMPLE).model_dump(mode="json", exclude_none=True)
    data["weights"] = {"team": 0.5}
    req = parse_requirements(data)
    noted: set[str] = set()
    resolve_weights(req, DEFAULT.noting(noted))
    assert not any(n.startswith("WEIGHT_TEAM") for n in noted)
    assert "WEIGHT_PERFORMANCE" in noted


def test_a_moved_default_weight_is_re_prepared_for_the_search(kb):
    from advisor.decision.prepare import prepare_inputs, read_inputs, reprepared

    ctx, _ = prepare_inputs(read_inputs(load_requirements(EXAMPLE)), kb)
    assert "WEIGHT_COMPLIANCE" in ctx.reads["weights"]
    again = reprepared(ctx, DEFAULT.moved("WEIGHT_COMPLIANCE", 0.3))
    assert again.wmap["compliance"] > ctx.wmap["compliance"]
    assert sum(again.wmap.values()) == pytest.approx(1.0, abs=1e-12)
    item = next(
        c for c in score(load_requirements(EXAMPLE), kb=kb).constant_sensitivity if c.name == "WEIGHT_COMPLIANCE"
    )
    # the bundled example: a domestic mandate; a heavier compliance weight hands the verdict to hybrid
    assert item.threshold is not None and 0.1 < item.threshold < 0.3 and item.new_top != card_top(kb)


def card_top(kb) -> str:
    return score(load_requirements(EXAMPLE), kb=kb, sensitivity=False).recommendation.workflow


@pytest.mark.parametrize("example", ["prototype-then-ascend", "nvidia-research-team"])
def test_re_ranking_under_moved_weights_is_what_a_whole_evaluation_ranks(kb, example):
    from advisor.decision.evaluate import evaluate
    from advisor.decision.prepare import prepare_inputs, read_inputs, reprepared
    from advisor.decision.sensitivity import reweighed_top

    req = load_requirements(ROOT / "examples" / f"{example}.yaml")
    ctx, _ = prepare_inputs(read_inputs(req), kb)
    base = evaluate(ctx, DEFAULT).scores
    for name in sorted(ctx.reads["weights"]):
        lo, hi = CONSTANTS[name].search
        for v in (lo, (lo + hi) / 2, hi):
            k = DEFAULT.moved(name, v)
            again = reprepared(ctx, k)
            assert reweighed_top(base, again.wmap) == evaluate(again, k).top(), (name, v)
