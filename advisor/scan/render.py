"""The default human-readable output of `advisor scan`: a summary, then tables."""

from __future__ import annotations

import shutil
import textwrap
from collections import defaultdict

from tabulate import tabulate

from advisor.scan.models import ScanResult

MAX_PLACES = 4
WIDTH = 100  # when not on a terminal (a pipe, -o FILE)


def output_width() -> int:
    """The terminal's width (WIDTH when not a terminal), within 60-160."""
    return max(60, min(shutil.get_terminal_size((WIDTH, 24)).columns, 160))


def _num(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".") if x < 10 else f"{x:.0f}"


def _h(pair: tuple[float, float]) -> str:
    return f"{_num(pair[0])}-{_num(pair[1])} h"


def _effort(item) -> str:
    """An API costed inside a hazard kind says so instead of showing 0-0 h."""
    if item.effort_basis.startswith("counted in the "):
        return "in " + item.effort_basis.split()[3]
    return _h(item.effort_hours)


def _at(item) -> str:
    """file:line, or file[cell N]:line in a notebook."""
    cell = f"[cell {item.cell}]" if getattr(item, "cell", None) else ""
    return f"{item.file}{cell}:{item.line}"


def _wrap(text: str, width: int = 60) -> str:
    return "\n".join(textwrap.wrap(text, width)) or "-"


def _block(head: str, details: list[tuple[str, str]], width: int, indent: int = 6) -> str:
    """A head line, then 'label: text' lines wrapped under it (tables of long prose did not fit)."""
    lines = [textwrap.fill(head, width, subsequent_indent=" " * indent)]
    for label, text in details:
        if text and text != "-":
            first = " " * indent + (f"{label}: " if label else "")
            lines.append(textwrap.fill(text, width, initial_indent=first,
                                       subsequent_indent=" " * len(first)))
    return "\n".join(lines)


def render_text(result: ScanResult, width: int | None = None) -> str:
    """The summary and the findings as blocks wrapped to `width` (default: the terminal's)."""
    width = width or output_width()
    out: list[str] = []
    head = (
        f"Migration scan of {result.path}: {result.python_files} Python file(s), {result.lines} lines, "
        f"{result.extension_sources} extension source(s), {len(result.skipped)} skipped"
    )
    out.append(textwrap.fill(head, width, subsequent_indent="  "))
    out.append(textwrap.fill(
        f"Effort: {_h(result.effort_hours)}, worst case {_num(result.effort_worst_case_hours)} h "
        f"(estimate from knowledge-base costs, KB {result.kb_version[:12]})", width, subsequent_indent="        "))
    out.append(f"Risk:   {result.risk}")
    for reason in result.risk_reasons:
        out.append(textwrap.fill(reason, width, initial_indent="  - ", subsequent_indent="    "))
    out.append(f"Route:  {result.route}")
    out.append(textwrap.indent(textwrap.fill(result.route_why, width - 2), "  "))
    out.append("")

    if result.hazard_summary:
        by_kind = defaultdict(list)
        for h in result.hazards:
            by_kind[h.kind].append(_at(h))
        out.append("Hazards")
        for s in result.hazard_summary:
            places = by_kind[s.kind]
            where = ", ".join(places[:MAX_PLACES]) + (f" (+{len(places) - MAX_PLACES} more)" if len(places) > MAX_PLACES else "")
            out.append(_block(f"{s.risk:<6} {s.kind} x{s.count}, {_h(s.effort_hours)}",
                              [("where", where), ("fix", s.fix)], width, indent=7))
        out.append("")
        out.append("Hazard details")
        for h in result.hazards:
            out.append(textwrap.fill(f"{_at(h)} [{h.kind}] {h.message}", width, subsequent_indent="    "))
        out.append("")

    if result.apis:
        out.append("PyTorch APIs by knowledge-base mapping (uses -> MindSpore, effort)")
        for a in sorted(result.apis, key=lambda a: ({"none": 0, "differs": 1, "same": 2}[a.mapping], a.name)):
            out.append(_block(f"{a.mapping:<8} {a.name} x{a.count} -> {a.mindspore or '-'}, {_effort(a)}",
                              [("", a.note or "-")], width, indent=9))
        out.append("")
    if result.unmapped:
        out.append("PyTorch APIs not in the knowledge base (check the official mapping table)")
        for u in result.unmapped:
            first = f", first at {_at(u.locations[0])}" if u.locations else ""
            out.append(textwrap.fill(f"{u.name} x{u.count}{first}, {_effort(u)}", width, subsequent_indent="    "))
        out.append("")
    if result.skipped:
        out.append("Skipped")
        out.append(tabulate([[s.file, s.reason] for s in result.skipped], headers=["file", "reason"], tablefmt="simple"))
        out.append("")
    if not (result.apis or result.unmapped or result.hazards):
        out.append("No PyTorch code found.")
    return "\n".join(out).rstrip() + "\n"
