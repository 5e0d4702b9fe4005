"""One interface for every output: `renderer(kind, fmt, **options).format(result) -> str`.

Modelled on pip-audit's `_format/interface.py`: a small abstract class, `Renderer`, whose one
method `format(result) -> str` turns a result into text, and one implementation per output. Options
(the width, `scan --by`, `probe --pipeline --feed`) go to the constructor, so a command picks a
renderer by (kind, format) and calls `format` on what it measured:

    kind      a result of    formats
    report    advisor report json, markdown, table, html (modules in advisor/render/, REPORT_FORMATS)
    check     advisor check  json, table (advisor/render/tables/check.py)
    scan      advisor scan   json, table (tables/scan.py)
    probe     the training probe, accuracy, pipeline, scaling, deploy: json, table (tables/<kind>.py)
    <kind>    any other registered probe kind (probes.base.KINDS): json, table (tables/generic.py)
    compare   advisor compare: table (tables/compare.py); its json is built by the command

Every kind's "json" is the same door, advisor.output.to_json (the report's json module uses it too).
Renderers are imported on use, so that `import advisor.render` stays cheap (matplotlib only on charts).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from typing import Any, Protocol

from advisor.errors import UsageError


class Renderer(ABC):
    """One output of one kind of result."""

    @abstractmethod
    def format(self, result: Any) -> str:
        """The result as text (a whole document: ends with a newline)."""


class Json(Renderer):
    """The machine form of every kind: one JSON document (pydantic models dumped in JSON mode)."""

    def __init__(self, **options: Any) -> None:  # options of the text forms do not apply
        pass

    def format(self, result: Any) -> str:
        from advisor.output import to_json

        return to_json(result)


# The report's formats are modules exposing `format(report, **options) -> str` (and, for Markdown,
# `assets(...)`); the report helpers own them. Options a format does not use are ignored.
REPORT_FORMATS: dict[str, str] = {
    "json": "advisor.render.json",
    "markdown": "advisor.render.markdown",
    "table": "advisor.render.table",
    "html": "advisor.render.html",
}

# The terminal text of every other kind: "module:Class", each Class a Renderer.
TABLES: dict[str, str] = {
    "check": "advisor.render.tables.check:CheckTable",
    "scan": "advisor.render.tables.scan:ScanText",
    "probe": "advisor.render.tables.probe:ProbeTable",
    "accuracy": "advisor.render.tables.accuracy:AccuracyTable",
    "pipeline": "advisor.render.tables.pipeline:PipelineTable",
    "scaling": "advisor.render.tables.scaling:ScalingTable",
    "deploy": "advisor.render.tables.deploy:DeployTable",
    "gpt": "advisor.render.tables.gpt:GptTable",
    "compare": "advisor.render.tables.compare:CompareText",
}
# Any other registered probe kind (probes.base.KINDS): GenericTable(kind), its Result as it is.
GENERIC = "advisor.render.tables.generic:GenericTable"
KINDS = ("report", *TABLES)


class Format(Protocol):
    """What a report format module provides (structural: a module satisfies it)."""

    def format(self, report: Any, **options: Any) -> str: ...


def formatter(fmt: str) -> Format:
    """The report format module `fmt`, or one UsageError line naming the formats."""
    if fmt not in REPORT_FORMATS:
        raise UsageError(f"unknown output format {fmt!r}: expected one of {', '.join(REPORT_FORMATS)}")
    return importlib.import_module(REPORT_FORMATS[fmt])  # type: ignore[return-value]


class ReportFormat(Renderer):
    """A report format module behind the same interface (its options kept for `format`)."""

    def __init__(self, fmt: str, **options: Any) -> None:
        self.module = formatter(fmt)
        self.options = options

    def format(self, result: Any) -> str:
        return self.module.format(result, **self.options)


def renderer(kind: str, fmt: str = "table", **options: Any) -> Renderer:
    """The renderer of `kind` results in `fmt` ("json" or "table"; a report has more, REPORT_FORMATS)."""
    if kind == "report":
        return ReportFormat(fmt, **options)
    generic = kind not in TABLES and _registered_probe_kind(kind)
    if kind not in TABLES and not generic:
        raise ValueError(f"no renderer for {kind!r}: expected one of {', '.join(KINDS)} or a probe kind")
    if fmt == "json":
        return Json(**options)
    if fmt != "table":
        raise UsageError(f"unknown output format {fmt!r} for {kind}: expected one of json, table")
    if generic:  # a kind with no table of its own: its Result as it is
        module, _, name = GENERIC.partition(":")
        return getattr(importlib.import_module(module), name)(kind, **options)
    module, _, name = TABLES[kind].partition(":")
    return getattr(importlib.import_module(module), name)(**options)


def _registered_probe_kind(kind: str) -> bool:
    from probes.base import KINDS as PROBE_KINDS

    return kind in PROBE_KINDS
