"""The JSON form carries the judged document once the Report model has its `document` field (schema
1.4, WIRING in advisor/report.py): the renderer fills it when a report was built without it, and the
saved JSON validates back into the same document. Tested on a Report subclass with the field, the
shape the wiring gives Report itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import knowledge
from advisor.review.document import DOCUMENT_VERSION, ReviewDocument, build
from advisor.render import format as render
from advisor.report import Report, build_report
from advisor.measurements import Measurements
from advisor.requirements import load_requirements

ROOT = Path(__file__).resolve().parents[1]


class WiredReport(Report):
    document: Optional[ReviewDocument] = None


def test_json_fills_the_document_and_it_reads_back_the_same():
    kb = knowledge.load()
    base = build_report(
        load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml"),
        Measurements(),
        kb=kb,
        created_at="2026-01-01T00:00:00Z",
    )
    report = WiredReport.model_validate(base.model_dump())
    data = json.loads(render(report, "json", kb=kb))
    assert data["document"]["document_version"] == DOCUMENT_VERSION
    again = WiredReport.model_validate(data)
    assert again.document == build(base, kb)
    assert render(again, "markdown", kb=kb) == render(base, "markdown", kb=kb)
