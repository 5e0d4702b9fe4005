"""The report as one JSON document (the machine contract; see advisor/schemas/report.schema.json)."""

from __future__ import annotations

from typing import Any

from advisor.output import to_json


def format(report: Any, **options: Any) -> str:
    return to_json(report)


render = format
