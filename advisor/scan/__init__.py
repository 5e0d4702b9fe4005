"""Migration scan: estimate the cost of moving a PyTorch code base to MindSpore from the code itself.

`scan_path(path, kb=None) -> ScanResult`. Files are parsed with `ast` only: nothing under PATH is
ever imported, compiled or run.
"""

from __future__ import annotations

import ast
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

from advisor.errors import UsageError
from advisor.scan.models import HAZARD_KINDS, SCHEMA_VERSION, Location, ScanResult, Skipped

__all__ = ["scan_path", "ScanResult", "HAZARD_KINDS", "SCHEMA_VERSION"]


def _parse(data: bytes, rel: str) -> tuple[ast.Module | None, str | None]:
    try:
        return ast.parse(data, filename=rel), None
    except SyntaxError as exc:
        where = f" (line {exc.lineno})" if exc.lineno else ""
        return None, f"does not parse: {exc.msg}{where}"
    except (ValueError, UnicodeDecodeError) as exc:  # NUL bytes, bad encoding cookie
        return None, f"does not parse: {exc}"
    except (RecursionError, MemoryError):
        return None, "does not parse: too deeply nested"


def _where(line: int, cells: list[tuple[int, int]] | None) -> dict[str, Any]:
    """line (and cell) to report: a notebook's joined-source line becomes (cell, line in cell)."""
    if cells is None or not 1 <= line <= len(cells):
        return {"line": line, "cell": None}
    cell, in_cell = cells[line - 1]
    return {"line": in_cell, "cell": cell}


def _cell_error(error: str, cells: list[tuple[int, int]]) -> str:
    """'does not parse: ... (line 12)' of the joined source -> '... (cell 3, line 2)'."""
    import re

    m = re.search(r"\(line (\d+)\)$", error)
    if not m:
        return error
    where = _where(int(m.group(1)), cells)
    if where["cell"] is None:
        return error
    return error[: m.start()] + f"(cell {where['cell']}, line {where['line']})"


def _kb_flagged(apis, uses, index, raw):
    """Hazards the knowledge base attaches to an API (ApiMapping.scan_kind) that the name rules
    did not already report at that line."""
    from advisor.scan.detect import RawHazard

    have = {(h.kind, h.file, h.line, h.cell) for h in raw}
    extra = []
    for api in apis:
        kind = getattr(index.by_name.get(api.matched), "scan_kind", None)
        if not kind:
            continue
        for loc in uses[api.name]:
            if (kind, loc.file, loc.line, loc.cell) not in have:
                have.add((kind, loc.file, loc.line, loc.cell))
                message = f"`{api.name}`: {api.note or 'flagged by the knowledge base'}"
                extra.append(RawHazard(kind, loc.line, message, False, api.name, loc.file, loc.cell))
    return extra


def scan_path(path: str | os.PathLike, kb: Any = None) -> ScanResult:
    """Scan a folder (or one file) of PyTorch code. Raises UsageError when path does not exist."""
    from advisor.scan import detect, estimate, files, native, notebook

    given = Path(path)
    if not given.exists():
        raise UsageError(f"{path}: no such file or folder (scan expects a folder of Python code or a .py file)")
    if kb is None:
        import knowledge

        kb = knowledge.load()
    index = estimate.MappingIndex(kb.api_mappings)
    known = index.names()

    root, found = files.collect(given)
    skipped: list[Skipped] = list(found.skipped)
    uses: dict[str, list[Location]] = defaultdict(list)
    raw: list[detect.RawHazard] = []
    lines = parsed = unparsed = 0
    for src in found.python:
        data, cells = src.data, None
        if src.rel.endswith(".ipynb"):
            try:
                data, cells = notebook.to_source(src.data)
            except ValueError as exc:
                skipped.append(Skipped(file=src.rel, reason=str(exc)))
                unparsed += 1
                continue
        tree, error = _parse(data, src.rel)
        if tree is None:
            if cells and error:
                error = _cell_error(error, cells)
            skipped.append(Skipped(file=src.rel, reason=error or "does not parse"))
            unparsed += 1
            continue
        try:
            module = detect.scan_module(tree, known)
        except RecursionError:
            skipped.append(Skipped(file=src.rel, reason="too deeply nested to analyse"))
            unparsed += 1
            continue
        parsed += 1
        lines += data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        for name, at in module.uses.items():
            uses[name].extend(Location(file=src.rel, **_where(n, cells)) for n in at)
        seen = set()
        for h in module.hazards:
            key = (h.kind, h.line, h.message)
            if key not in seen:  # one report per kind, line and finding
                seen.add(key)
                h.file = src.rel
                h.line, h.cell = _where(h.line, cells).values()
                raw.append(h)

    extension_sources = 0
    for src in found.native:
        findings = native.extension_findings(src)
        extension_sources += bool(findings)
        for line, message in findings:
            raw.append(detect.RawHazard("custom_extension", line, message, False, None, src.rel))

    if given.is_file() and not parsed and not found.native and skipped:
        # One named file and nothing in it could be read: that is bad input, not a zero-hour estimate.
        raise UsageError(f"{path}: {skipped[0].reason} (scan expects a folder of Python code or a .py file)")
    apis, unmapped = estimate.classify_apis(uses, kb)
    raw.extend(_kb_flagged(apis, uses, index, raw))
    raw.sort(key=lambda h: (h.file, h.cell or 0, h.line, h.kind))
    hazards = estimate.attach_fixes(raw, kb)
    summary = estimate.summarize(hazards, kb)
    # An API whose use is itself a hazard (StepLR, Normalize, DDP...) is costed once, in the hazard.
    covered = {h.api: h.kind for h in raw if h.api}
    apis, unmapped = estimate.fold_covered(apis, unmapped, covered)
    effort, worst = estimate.total(apis, unmapped, summary)
    risk, reasons = estimate.judge_risk(summary, apis, unmapped, effort, unparsed)
    route, why, alternatives = estimate.choose_route(summary, apis, unmapped, lines)
    return ScanResult(
        path=str(path),
        kb_version=str(getattr(kb, "version", "")),
        python_files=parsed,
        extension_sources=extension_sources,
        lines=lines,
        apis=apis,
        unmapped=unmapped,
        hazards=hazards,
        hazard_summary=summary,
        skipped=sorted(skipped, key=lambda s: s.file),
        effort_hours=effort,
        effort_worst_case_hours=worst,
        effort_basis=estimate.TOTAL_BASIS,
        risk=risk,
        risk_reasons=reasons,
        route=route,
        route_why=why,
        route_alternatives=alternatives,
    )
