"""The report as one JSON document (the machine contract; see advisor/schemas/report.schema.json).

The judged review document (advisor.review.document.ReviewDocument, versioned by its own
`document_version`) travels in the report's `document` field; a report built without it gets it
filled here, so every JSON written has it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.output import to_json

if TYPE_CHECKING:
    from advisor.report import Report


def format(report: Report, **options: object) -> str:
    if report.document is None:
        from advisor.review.document import build

        report = report.model_copy(update={"document": build(report, options.get("kb"))})
    return to_json(report)


render = format
