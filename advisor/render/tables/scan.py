"""The default human-readable output of `advisor scan`: a summary, then tables and blocks."""

from __future__ import annotations

import textwrap
from collections import defaultdict

from advisor.render.tables import grid

from advisor.render.interface import Renderer
from advisor.render.tables import terminal_width
from advisor.scan.models import ScanResult

MAX_PLACES = 4


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
            lines.append(textwrap.fill(text, width, initial_indent=first, subsequent_indent=" " * len(first)))
    return "\n".join(lines)


TOP = 12  # rows of a breakdown table before "N more"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _example(ex, width: int, indent: int) -> list[str]:
    """before/after code, one snippet line per output line (code does not wrap well)."""
    out = []
    for label, code in (("before", ex.before), ("after", ex.after)):
        for i, line in enumerate(code.splitlines()):
            head = " " * indent + (f"{label}: " if i == 0 else " " * (len(label) + 2))
            out.append(_clip(head + line, width))
    return out


def _shares(title: str, shares, width: int) -> list[str]:
    rows = [
        [_clip(s.name, max(20, width - 40)), s.role or "", str(s.files), str(s.lines), _h(s.effort_hours)]
        for s in shares[:TOP]
    ]
    out = [title, grid(rows, headers=["name", "role", "files", "lines", "hours"], tablefmt="simple")]
    if len(shares) > TOP:
        out.append(f"  ... {len(shares) - TOP} more (see --json effort_breakdown)")
    return out


NAMED = 6  # APIs with no mapping named on the summary line before "N more"


def _no_mapping_names(result: ScanResult) -> str:
    """': torch.fx.symbolic_trace, ...' (the APIs counted 'with no mapping', named; their sections below
    say why), '' when there are none."""
    names = [a.name for a in result.apis if a.toolkit == "no_mapping"] + [u.name for u in result.unmapped]
    if not names:
        return ""
    more = f" and {len(names) - NAMED} more" if len(names) > NAMED else ""
    return " (" + ", ".join(names[:NAMED]) + more + ")"


def _breakdown(result: ScanResult, by: str | None, width: int) -> list[str]:
    b = result.effort_breakdown
    if b is None or not b.items:
        return []
    out = []
    if b.excluded_files:
        out.append(
            textwrap.fill(
                f"Excluded from the total: {b.excluded_files} file(s) (tests, examples, tools and --exclude), "
                f"another {_h(b.excluded_hours)} if they were ported too",
                width,
                subsequent_indent="  ",
            )
        )
    out += _shares("Effort by role", b.by_role, width) + [""]
    if by == "package":
        out += _shares("Effort by top-level package", b.by_package, width) + [""]
    elif by == "file":
        out += _shares("Effort by file", b.by_file, width) + [""]
    out.append("Effort items (what adds up to the total)")
    for item in b.items[:TOP]:
        out.append(
            _block(f"{_h(item.effort_hours):>14}  {item.item} x{item.count}", [("", item.basis)], width, indent=16)
        )
    if len(b.items) > TOP:
        out.append(f"  ... {len(b.items) - TOP} more items (see --json effort_breakdown.items)")
    out.append("")
    return out


class ScanText(Renderer):
    """The summary and the findings as blocks wrapped to `width` (default: the terminal's); `by`
    ("file" or "package", `scan --by`) adds that effort breakdown."""

    def __init__(self, width: int | None = None, by: str | None = None) -> None:
        self.width, self.by = width, by

    def format(self, result: ScanResult) -> str:
        return _text(result, self.width or terminal_width(), self.by)


def _text(result: ScanResult, width: int, by: str | None) -> str:
    """The scan as text: its head (size, effort, risk, route), the breakdown, then each section that has
    something to say, in the order a porter reads them."""
    out = _head(result, width) + [""] + _breakdown(result, by, width)
    for section in (_hazards, _apis, _unmapped, _dependencies, _ports, _unknown_libraries, _skipped):
        out += section(result, width)
    out += _closing(result)
    return "\n".join(out).rstrip() + "\n"


def _head(result: ScanResult, width: int) -> list[str]:
    out: list[str] = []
    head = (
        f"Migration scan of {result.path}: {result.python_files} Python file(s), {result.lines} lines, "
        f"{result.extension_sources} extension source(s), {len(result.skipped)} skipped"
    )
    out.append(textwrap.fill(head, width, subsequent_indent="  "))
    out.append(
        textwrap.fill(
            f"Effort: {_h(result.effort_hours)}, worst case {_num(result.effort_worst_case_hours)} h "
            f"(estimate from knowledge-base costs, KB {result.kb_version[:12]})",
            width,
            subsequent_indent="        ",
        )
    )
    out.append(f"Risk:   {result.risk}")
    for reason in result.risk_reasons:
        out.append(textwrap.fill(reason, width, initial_indent="  - ", subsequent_indent="    "))
    if result.kb_verified:
        out.append(textwrap.fill(f"Live check: {result.kb_verified}", width, subsequent_indent="  "))
    out.append(f"Route:  {result.route}")
    out.append(textwrap.indent(textwrap.fill(result.route_why, width - 2), "  "))
    if result.api_classes and any(result.api_classes.values()):
        c = result.api_classes
        out.append(
            textwrap.fill(
                f"APIs (as MindSpore Dev Toolkit sorts them): {c.get('convertible', 0)} convertible, "
                f"{c.get('probably_tensor', 0)} probably Tensor methods, {c.get('no_mapping', 0)} with no mapping"
                + _no_mapping_names(result),
                width,
                subsequent_indent="  ",
            )
        )
    return out


def _hazards(result: ScanResult, width: int) -> list[str]:
    if not result.hazard_summary:
        return []
    by_kind = defaultdict(list)
    for h in result.hazards:
        by_kind[h.kind].append(_at(h))
    out = ["Hazards"]
    for s in result.hazard_summary:
        places = by_kind[s.kind]
        where = ", ".join(places[:MAX_PLACES]) + (
            f" (+{len(places) - MAX_PLACES} more)" if len(places) > MAX_PLACES else ""
        )
        excluded = f" ({s.excluded} in excluded files)" if s.excluded else ""
        excluded += f" ({s.optional} on optional paths, priced apart)" if s.optional else ""
        out.append(
            _block(
                f"{s.risk:<6} {s.kind} x{s.count}{excluded}, {_h(s.effort_hours)}",
                [("where", where), ("fix", s.fix)],
                width,
                indent=7,
            )
        )
        if s.example:
            out += _example(s.example, width, 7)
    out.append("")
    out.append("Hazard details")
    for h in result.hazards:
        out.append(textwrap.fill(f"{_at(h)} [{h.kind}] {h.message}", width, subsequent_indent="    "))
        if h.live_check:
            out.append(
                textwrap.fill(f"live check: {h.live_check}", width, initial_indent="    ", subsequent_indent="      ")
            )
    out.append("")
    return out


def _apis(result: ScanResult, width: int) -> list[str]:
    if not result.apis:
        return []
    out = ["PyTorch APIs by knowledge-base mapping (uses -> MindSpore, effort)"]
    for a in sorted(result.apis, key=lambda a: ({"none": 0, "differs": 1, "same": 2}[a.mapping], a.name)):
        out.append(
            _block(
                f"{a.mapping:<8} {a.name} x{a.count} -> {a.mindspore or '-'}, {_effort(a)}",
                [("", a.note or "-")] + ([("live", a.live_check)] if a.live_check else []),
                width,
                indent=9,
            )
        )
    return out + [""]


def _unmapped(result: ScanResult, width: int) -> list[str]:
    if not result.unmapped:
        return []
    out = ["PyTorch APIs not in the knowledge base (check the official mapping table)"]
    for u in result.unmapped:
        first = f", first at {_at(u.locations[0])}" if u.locations else ""
        out.append(textwrap.fill(f"{u.name} x{u.count}{first}, {_effort(u)}", width, subsequent_indent="    "))
    return out + [""]


def _dependencies(result: ScanResult, width: int) -> list[str]:
    if not result.dependencies:
        return []
    out = ["Third-party libraries (MindSpore-side counterpart)"]
    for d in result.dependencies:
        flag = " optional (lazy import)" if d.optional else " excluded files only" if d.excluded else ""
        out.append(
            _block(
                f"{d.mapping:<8} {d.name} in {d.files} file(s){flag} -> {d.mindspore or 'none'}, {_h(d.effort_hours)}",
                [("", d.note)],
                width,
                indent=9,
            )
        )
    return out + [""]


def _ports(result: ScanResult, width: int) -> list[str]:
    if not result.ports:
        return []
    out = ["Existing MindSpore ports of what the project builds on (adapt instead of re-implementing)"]
    for o in result.ports:
        has = ", ".join(o.covered) if o.covered else f"the models it takes from {o.upstream}"
        out.append(
            _block(
                f"{o.port} ({o.upstream}), {o.files} file(s)",
                [("has", has), ("lacks", ", ".join(o.missing))],
                width,
                indent=6,
            )
        )
    return out + [""]


def _unknown_libraries(result: ScanResult, width: int) -> list[str]:
    if not result.unknown_libraries:
        return []
    out = ["Third-party libraries the scan does not know (not understood: not in the estimate)"]
    for u in result.unknown_libraries:
        flag = " optional (lazy import)" if u.optional else " excluded files only" if u.excluded else ""
        out.append(
            textwrap.fill(
                f"{u.name} in {u.files} file(s){flag}, first at {_at(u.first)}", width, subsequent_indent="    "
            )
        )
    return out + [""]


def _skipped(result: ScanResult, width: int) -> list[str]:
    if not result.skipped:
        return []
    table = grid([[s.file, s.reason] for s in result.skipped], headers=["file", "reason"], tablefmt="simple")
    return ["Skipped", table, ""]


def _closing(result: ScanResult) -> list[str]:
    if result.framework == "mindspore":
        return [f"Already MindSpore code ({result.mindspore_files} file(s) import mindspore): nothing to migrate."]
    if not (result.apis or result.unmapped or result.hazards):
        return ["No PyTorch code found" + (f": {result.nothing_scanned}." if result.nothing_scanned else ".")]
    return []
