"""Every output of the tool: one interface, `renderer(kind, fmt, **options).format(result) -> str`
(advisor/render/interface.py); the terminal tables of check, scan and the probes in
advisor/render/tables/.

For a Report, the format modules (json, markdown, table, html) expose `format(report, **options)`
and, where a format writes companion files (the Markdown form's SVG charts),
`assets(report, output_path, **options) -> dict[filename, text]`; `format(report, fmt)` below is
`renderer("report", fmt).format(report)`.
"""

from __future__ import annotations

from os import PathLike
from typing import TYPE_CHECKING, Any

from advisor.render.interface import REPORT_FORMATS, Format, Renderer, formatter, renderer

if TYPE_CHECKING:
    from advisor.report import Report


FORMATS = REPORT_FORMATS  # the report's formats, the name callers use

__all__ = ["FORMATS", "Format", "Renderer", "assets", "format", "formatter", "render", "renderer"]


def format(report: Report, fmt: str = "json", **options: Any) -> str:
    """The report as text in one of FORMATS."""
    return renderer("report", fmt, **options).format(report)


def assets(report: Report, fmt: str, output: str | PathLike[str], **options: Any) -> dict[str, str]:
    """Companion files a format writes beside `output` (file name -> text; none for most formats).
    Pass them back as `format(..., assets=...)` so that the document links exactly these files."""
    make = getattr(formatter(fmt), "assets", None)
    return make(report, output, **options) if make is not None and output else {}


render = format  # the name existing callers (TUI, tests) use
