"""The transformer probe's result through the whole report: `advisor report --gpt FILE` reads it, the
migration criterion and the risk register of the workflows that run MindSpore graph mode move by the
stated amount, the expected hours use the same likelihood as the register, and an unusable run moves
nothing. The result is the real 2-vCPU run of tests/test_gpt_evidence.py, regraded where a case needs
a stable measurement (the probe's own verdicts recomputed), so the arithmetic is the module's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.decision import transformer_evidence as te
from advisor.review.risks import register
from advisor.report import build_report
from advisor.measurements import Measured, Measurements
from advisor.requirements import parse_requirements
from knowledge.loader import load
from tests.test_gpt_evidence import FIXTURE, _result

ROOT = Path(__file__).resolve().parents[1]

TEAM = {
    "name": "gpt-wiring",
    "team": {"pytorch": "basic", "mindspore": "proficient", "size": 4},
    "hardware": {
        "available": ["ascend"],
        "training_target": "ascend",
        "accelerator": "Ascend 910B",
        "devices": 8,
    },
    "deployment": {"targets": ["ascend-server"]},
    "model": {"family": "transformer", "parameters_millions": 125.0, "dynamic_shapes": True},
}


@pytest.fixture(scope="module")
def kb():
    return load()


def _migration(report, wf: str):
    s = next(s for s in report.scores if s.workflow == wf)
    return next(c for c in s.criteria if c.name == "migration")


def test_an_unmitigated_measured_cost_takes_the_stated_points_off_the_graph_mode_workflows(kb):
    req = parse_requirements(TEAM)
    # variable lengths cost 60% against padding; neither mitigation was measured
    res = _result(
        e2e={("graph", "padded"): 1000.0, ("graph", "variable"): 400.0},
        drop=(("graph-dynamic", "variable"), ("graph", "bucketed")),
    )
    base = build_report(req, Measurements(), kb=kb, created_at="2026-12-02T00:00:00Z")
    moved = build_report(
        req, Measurements(probes={"gpt": Measured(res, "file", "gpt.json")}), kb=kb, created_at="2026-12-02T00:00:00Z"
    )
    finding = moved.transformer.dynamic
    assert finding is not None and finding.usable and finding.cost == pytest.approx(0.6)
    penalty = te.constant("DYNAMIC_SHAPE_PENALTY") * 0.6
    for wf in ("hybrid", "mindspore"):
        before, after = _migration(base, wf), _migration(moved, wf)
        assert after.score == pytest.approx(max(0.0, before.score - penalty), abs=1e-6)
        assert any(e.ref == "gpt:dynamic-shapes" for e in after.evidence)
    # PyTorch never runs MindSpore graph mode: untouched
    assert _migration(moved, "pytorch").score == pytest.approx(_migration(base, "pytorch").score)
    # the register (of the recommended workflow, MindSpore for this Ascend-only team) reads the measured likelihood
    assert moved.recommendation.workflow == "mindspore"
    reg = register(moved)
    row = next(r for r in [*reg.risks, *reg.also_known] if r.id == te.PITFALL)
    assert row.likelihood == pytest.approx(te.constant("DYNAMIC_MEASURED_HIT"))
    assert "transformer probe" in row.why


def test_an_unusable_measurement_moves_nothing(kb):
    req = parse_requirements(TEAM)
    real = json.loads(FIXTURE.read_text())  # all four runs graded unusable on the loaded host
    base = build_report(req, Measurements(), kb=kb, created_at="2026-12-02T00:00:00Z")
    moved = build_report(
        req,
        Measurements(probes={"gpt": Measured(real, "file", str(FIXTURE))}),
        kb=kb,
        created_at="2026-12-02T00:00:00Z",
    )
    assert moved.transformer.source == "file"
    assert [s.total for s in moved.scores] == [s.total for s in base.scores]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "advisor", "report", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_report_reads_gpt_file_and_refuses_another_kind(tmp_path):
    req = tmp_path / "team.yaml"
    req.write_text(json.dumps(TEAM))  # JSON is YAML
    ok = _cli(str(req), "--gpt", str(FIXTURE), "--json", "--no-cache")
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["transformer"]["source"] == "file" and doc["transformer"]["file"] == str(FIXTURE)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"kind": "accuracy"}))
    bad = _cli(str(req), "--gpt", str(wrong), "--json", "--no-cache")
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0 and '"gpt"' in bad.stderr and "Traceback" not in bad.stderr
