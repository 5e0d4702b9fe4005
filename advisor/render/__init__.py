"""Output formats for a Report: a small registry of `name -> module with render(report) -> str`."""

from __future__ import annotations

import importlib
from typing import Any

from advisor.errors import UsageError

# Modules are imported on use so that `import advisor.render` stays cheap.
FORMATS: dict[str, str] = {
    "json": "advisor.render.json",
    "markdown": "advisor.render.markdown",
    "table": "advisor.render.table",
}


def render(report: Any, fmt: str = "json") -> str:
    """The report as text in one of FORMATS."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown output format {fmt!r}: expected one of {', '.join(FORMATS)}")
    return importlib.import_module(FORMATS[fmt]).render(report)
