"""The default human-readable output of `advisor scan`: a summary, then tables."""

from __future__ import annotations

import textwrap
from collections import defaultdict

from tabulate import tabulate

from advisor.scan.models import ScanResult

MAX_PLACES = 4
WIDTH = 100


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


def render_text(result: ScanResult) -> str:
    out: list[str] = []
    head = (
        f"Migration scan of {result.path}: {result.python_files} Python file(s), {result.lines} lines, "
        f"{result.extension_sources} extension source(s), {len(result.skipped)} skipped"
    )
    out.append(head)
    out.append(
        f"Effort: {_h(result.effort_hours)}, worst case {result.effort_worst_case_hours:.0f} h "
        f"(estimate from knowledge-base costs, KB {result.kb_version[:12]})"
    )
    out.append(f"Risk:   {result.risk}")
    for reason in result.risk_reasons:
        out.append(f"  - {reason}")
    out.append(f"Route:  {result.route}")
    out.append(textwrap.indent(textwrap.fill(result.route_why, WIDTH - 2), "  "))
    out.append("")

    if result.hazard_summary:
        by_kind = defaultdict(list)
        for h in result.hazards:
            by_kind[h.kind].append(_at(h))
        rows = []
        for s in result.hazard_summary:
            places = by_kind[s.kind]
            where = ", ".join(places[:MAX_PLACES]) + (f" (+{len(places) - MAX_PLACES} more)" if len(places) > MAX_PLACES else "")
            rows.append([s.kind, s.risk, s.count, _wrap(where, 30), _wrap(s.fix, 50), _h(s.effort_hours)])
        out.append("Hazards")
        out.append(tabulate(rows, headers=["kind", "risk", "n", "where", "fix", "effort"], tablefmt="simple"))
        out.append("")
        out.append("Hazard details")
        for h in result.hazards:
            out.append(textwrap.fill(f"{_at(h)} [{h.kind}] {h.message}", WIDTH, subsequent_indent="    "))
        out.append("")

    if result.apis:
        rows = [
            [a.name, a.count, a.mapping, a.mindspore or "-", _wrap(a.note, 44), _effort(a)]
            for a in sorted(result.apis, key=lambda a: ({"none": 0, "differs": 1, "same": 2}[a.mapping], a.name))
        ]
        out.append("PyTorch APIs (classified by the knowledge base)")
        out.append(tabulate(rows, headers=["api", "n", "mapping", "MindSpore", "note", "effort"], tablefmt="simple"))
        out.append("")
    if result.unmapped:
        rows = [[u.name, u.count, _at(u.locations[0]) if u.locations else "-", _effort(u)] for u in result.unmapped]
        out.append("PyTorch APIs not in the knowledge base (check the official mapping table)")
        out.append(tabulate(rows, headers=["api", "n", "first use", "effort"], tablefmt="simple"))
        out.append("")
    if result.skipped:
        out.append("Skipped")
        out.append(tabulate([[s.file, s.reason] for s in result.skipped], headers=["file", "reason"], tablefmt="simple"))
        out.append("")
    if not (result.apis or result.unmapped or result.hazards):
        out.append("No PyTorch code found.")
    return "\n".join(out).rstrip() + "\n"
