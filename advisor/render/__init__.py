"""Output formats for a Report: one interface, `format(report, **options) -> str`, per format module.

Modelled on pip-audit's `_format/interface.py`: every format is a module in FORMATS exposing
`format(report, **options) -> str` and, where a format writes companion files (the Markdown form's
SVG charts), `assets(report, output_path, **options) -> dict[filename, text]`. Options a format does not use are
ignored, so callers (the CLI, the TUI, later `check` / `scan` / `probe` tables) pass what they have.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from advisor.errors import UsageError

# Modules are imported on use so that `import advisor.render` stays cheap (matplotlib only on charts).
FORMATS: dict[str, str] = {
    "json": "advisor.render.json",
    "markdown": "advisor.render.markdown",
    "table": "advisor.render.table",
    "html": "advisor.render.html",
}


class Format(Protocol):
    """What a format module provides (structural: a module satisfies it)."""

    def format(self, report: Any, **options: Any) -> str: ...


def formatter(fmt: str) -> Format:
    if fmt not in FORMATS:
        raise UsageError(f"unknown output format {fmt!r}: expected one of {', '.join(FORMATS)}")
    return importlib.import_module(FORMATS[fmt])  # type: ignore[return-value]


def format(report: Any, fmt: str = "json", **options: Any) -> str:
    """The report as text in one of FORMATS."""
    return formatter(fmt).format(report, **options)


def assets(report: Any, fmt: str, output: Any, **options: Any) -> dict[str, str]:
    """Companion files a format writes beside `output` (file name -> text; none for most formats).
    Pass them back as `format(..., assets=...)` so that the document links exactly these files."""
    make = getattr(formatter(fmt), "assets", None)
    return make(report, output, **options) if make is not None and output else {}


render = format  # the name existing callers (TUI, tests) use
