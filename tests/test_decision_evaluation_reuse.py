"""An evaluation with one constant moved reuses the parts of the default evaluation that did not read
it (the sensitivity search's shortcut): it must give exactly what a whole evaluation gives, for every
searched constant at both ends of its range, and reuse nothing across contexts."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.decision.constants import DEFAULT, searched
from advisor.decision.evaluate import evaluate
from advisor.decision.prepare import prepare_inputs, read_inputs
from advisor.requirements import load_requirements

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


@pytest.mark.parametrize("example", ["prototype-then-ascend", "ascend-production"])
def test_reusing_unmoved_parts_gives_the_whole_evaluation(kb, example):
    ctx, _ = prepare_inputs(read_inputs(load_requirements(ROOT / "examples" / f"{example}.yaml")), kb)
    base = evaluate(ctx, DEFAULT)
    assert {name for name, _wf in base.parts} == {
        "migration",
        "performance",
        "team",
        "deployment",
        "compliance",
        "cost",
    }
    reused = 0
    for c in searched():
        if c.projection:
            continue  # those move the context itself (re-prepared), where nothing is reused
        for v in c.search:
            k = DEFAULT.moved(c.name, v)
            whole, quick = evaluate(ctx, k), evaluate(ctx, k, reuse=base)
            assert quick.scores == whole.scores, (c.name, v)
            assert quick.costs == whole.costs and quick.schedules == whole.schedules, (c.name, v)
            reused += sum(quick.parts[key][0] is base.parts[key][0] for key in quick.parts)
    assert reused > 0  # the shortcut is taken


def test_a_moved_constant_a_part_read_is_worked_out_again(kb):
    ctx, _ = prepare_inputs(read_inputs(load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml")), kb)
    base = evaluate(ctx, DEFAULT)
    quick = evaluate(ctx, DEFAULT.moved("TEAM_SKILL_STEP", 10.0), reuse=base)
    for wf in ("pytorch", "mindspore", "hybrid"):
        assert quick.parts[("team", wf)][0] is not base.parts[("team", wf)][0]
        assert quick.parts[("migration", wf)][0] is base.parts[("migration", wf)][0]


def test_nothing_is_reused_across_contexts(kb):
    req = load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml")
    ctx, _ = prepare_inputs(read_inputs(req), kb)
    other, _ = prepare_inputs(read_inputs(req), kb)
    base = evaluate(ctx, DEFAULT)
    again = evaluate(other, DEFAULT, reuse=base)
    assert all(again.parts[key][0] is not base.parts[key][0] for key in again.parts)
    assert again.scores == base.scores
