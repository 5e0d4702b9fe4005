"""The three bundled examples as the review-document tests read them: each built once with the real
2-vCPU probe run fixture (tests/fixtures/report/probes-cpu.json, one run graded unusable here to check
the marking; the others as measured) and rendered in every format. Shared by
tests/test_document_consistency.py and tests/test_html_browser.py."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
PROBES = ROOT / "tests" / "fixtures" / "report" / "probes-cpu.json"
FORMATS = ("markdown", "html", "table", "json")
UNUSABLE = 1  # index of the run graded unusable in the test copy of the fixture


@lru_cache(maxsize=1)
def kb():
    import knowledge

    return knowledge.load()


def suite():
    from probes.training.models import ProbeSuite

    data = json.loads(PROBES.read_text(encoding="utf-8"))
    ok = [i for i, r in enumerate(data["runs"]) if r.get("status") == "ok"]
    run = data["runs"][ok[UNUSABLE]]
    run["quality"], run["quality_reasons"] = (
        "unusable",
        ["graded unusable for this test (marking in tables and charts)"],
    )
    return ProbeSuite.model_validate(data)


@lru_cache(maxsize=None)
def built(stem: str):
    """(report, document, {format: text}) for one example."""
    from advisor.review.document import build
    from advisor.render import format as render
    from advisor.report import build_report
    from advisor.measurements import Measured, Measurements
    from advisor.requirements import load_requirements

    report = build_report(
        load_requirements(ROOT / "examples" / f"{stem}.yaml"),
        Measurements(probes={"training": Measured(suite())}),
        kb=kb(),
        created_at="2026-12-01T00:00:00Z",
    )
    doc = build(report, kb())
    texts = {fmt: render(report, fmt, kb=kb(), document=doc) for fmt in FORMATS}
    return report, doc, texts
