"""A first page whose probe runs all came back unusable says so and what to do, instead of a bare "not
scored" (a newcomer's first run on a busy 2-core host can end that way)."""

from __future__ import annotations

import json

from document_examples import PROBES, ROOT, kb

from advisor.measurements import Measured, Measurements
from advisor.report import build_report
from advisor.requirements import load_requirements
from advisor.review.document import build
from probes.training.models import ProbeSuite


def _first_page_measured(quality: str) -> str:
    data = json.loads(PROBES.read_text(encoding="utf-8"))
    for run in data["runs"]:
        if run.get("status") == "ok":
            run["quality"], run["quality_reasons"] = quality, ["CV 40% over 3 repeats"]
    report = build_report(
        load_requirements(ROOT / "tests" / "fixtures" / "report" / "cpu-team.yaml"),
        Measurements(probes={"training": Measured(ProbeSuite.model_validate(data))}),
        kb=kb(),
        created_at="2026-12-01T00:00:00Z",
    )
    return build(report, kb()).first_page.measured[0]


def test_all_runs_unusable_names_the_cause_and_the_remedy():
    line = _first_page_measured("unusable")
    assert "7 unusable" in line
    assert "not scored: every run that finished was graded unusable" in line
    assert "rerun `advisor probe` when it is quieter" in line
