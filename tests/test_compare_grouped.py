"""`advisor compare` reads as a reviewer does: the verdict, then the scores, then the evidence they rest
on, then the rest, summarised; a record added or removed whole is one line, prose is left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import knowledge
from advisor.commands.compare import diff
from advisor.measurements import Measured, Measurements
from advisor.render import format as render
from advisor.render import renderer
from advisor.report import build_report
from advisor.requirements import load_requirements
from probes.training.models import ProbeSuite

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def pair():
    kb = knowledge.load()
    req = load_requirements(ROOT / "examples" / "ascend-production.yaml")
    suite = ProbeSuite.model_validate(json.loads((ROOT / "tests/fixtures/report/probes-cpu.json").read_text()))
    bare = build_report(req, Measurements(), kb=kb, created_at="2026-12-01T00:00:00Z")
    # the new report: probe runs read and a tighter deadline, so the verdict's margin and the scores move too
    tight = req.model_copy(update={"constraints": req.constraints.model_copy(update={"deadline_weeks": 6})})
    measured = build_report(tight, Measurements(probes={"training": Measured(suite)}), kb=kb, created_at="x")
    return json.loads(render(bare, "json")), json.loads(render(measured, "json"))


def test_changes_come_grouped_verdict_scores_evidence_then_the_rest(pair):
    old, new = pair
    changes = diff(old, new)
    groups = [c["group"] for c in changes]
    order = ["verdict", "scores", "evidence", "other"]
    assert groups == sorted(groups, key=order.index)  # grouped, in the reader's order
    assert {"verdict", "scores", "evidence"} <= set(groups)
    assert not any(c["path"].endswith(".source") for c in changes)  # citations are prose


def test_the_text_is_grouped_and_short(pair):
    old, new = pair
    changes = diff(old, new)
    text = renderer("compare").format(
        {"old_path": "a.json", "new_path": "b.json", "old": old, "new": new, "changes": changes}
    )
    lines = text.splitlines()
    heads = [i for i, line in enumerate(lines) if not line.startswith(" ") and line.endswith("):")]
    titles = [lines[i].split(" (")[0] for i in heads]
    assert titles[:3] == ["verdict", "scores and weights", "evidence"]
    # eight probe runs added whole: eight lines, not 8 x 22 fields
    added = [line for line in lines if line.strip().startswith("probes.runs[") and "added (" in line]
    assert len(added) == 8
    assert len(lines) < len(changes) / 2
    assert "--json lists every change" in text
