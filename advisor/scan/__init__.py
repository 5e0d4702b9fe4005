"""Migration scan: estimate the cost of moving a PyTorch code base to MindSpore from the code itself.

`scan_path(path, kb=None) -> ScanResult`. Files are parsed with `ast` only: nothing under PATH is
ever imported, compiled or run. The scan is a sequence of named passes over one `Project`
(advisor/scan/project.py reads and places the files and finds the optional paths; advisor/scan/pricing.py
prices them; advisor/scan/judge.py judges what the code is written in, the risk, the route and the ports
to offer, by the rules of advisor/scan/estimate.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.errors import UsageError
from advisor.scan.models import HAZARD_KINDS, SCHEMA_VERSION, ScanResult

if TYPE_CHECKING:
    from knowledge.models import KnowledgeBase

__all__ = ["HAZARD_KINDS", "SCHEMA_VERSION", "ScanResult", "loads_pretrained", "scan_path"]


def __getattr__(name: str):
    # The scan's machinery loads on first use: a report imports this package for ScanResult alone.
    if name == "loads_pretrained":
        from advisor.scan.project import loads_pretrained

        return loads_pretrained
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def scan_path(
    path: str | os.PathLike,
    kb: KnowledgeBase | None = None,
    exclude: list[str] | None = None,
    default_excludes: bool = True,
) -> ScanResult:
    """Scan a folder (or one file) of PyTorch code. Raises UsageError when path does not exist, or when
    nothing under it could be read as Python 3 (with the reason: e.g. Python 2 sources).

    `exclude`: glob patterns (relative paths) priced apart and left out of the total, on top of the
    defaults (tests, examples, tools) unless default_excludes is False."""
    from advisor.scan import effort, estimate, judge, pricing, project, roles
    from advisor.scan.live import attach as attach_live_checks

    given = Path(path)
    if not given.exists():
        raise UsageError(f"{path}: no such file or folder (scan expects a folder of Python code or a .py file)")
    if kb is None:
        import knowledge

        kb = knowledge.load()
    user_globs = list(exclude or [])
    p = project.Project(
        given=given,
        kb=kb,
        index=estimate.MappingIndex(kb.api_mappings),
        globs=(list(roles.DEFAULT_EXCLUDES) if default_excludes else []) + user_globs,
        user_globs=user_globs,
    )
    project.collect(p)
    project.read_python(p)
    project.check_readable(p, path)
    project.place_files(p)
    project.find_optional(p)
    project.read_native(p)

    apis, unmapped = estimate.classify_apis(p.uses, kb)
    p.raw.extend(pricing.kb_flagged(p, apis))
    hazards, examples = pricing.place_hazards(p)
    ledger = effort.Ledger()
    pricing.price_code(p, ledger)
    pricing.price_verification(p, ledger)
    summary = estimate.summarize(hazards, kb, ledger, p.index, examples)
    apis, unmapped = pricing.price_apis(p, ledger, apis, unmapped)
    dependencies, unknown = pricing.price_dependencies(p, ledger)
    verified, live = attach_live_checks(apis, hazards)
    pricing.price_live(p, ledger, live)
    breakdown, effort_hours, worst = effort.breakdown(ledger, list(p.infos.values()), p.globs)
    framework = judge.framework(p)
    risk, reasons = judge.risk(p, framework, summary, apis, unmapped, effort_hours, dependencies, unknown)
    if framework == "mindspore":
        effort_hours, worst = (0.0, 0.0), 0.0
        breakdown.items = []  # the total is the sum of its items: nothing is priced
    route, why, alternatives = judge.route(p, framework, summary, apis, unmapped, effort_hours, dependencies)
    offered = judge.ports(p) if framework != "mindspore" else []
    alternatives += [judge.port_text(o) for o in offered]
    classes = {"convertible": 0, "probably_tensor": 0, "no_mapping": 0}
    for item in [*apis, *unmapped]:
        classes[item.toolkit] += 1
    return ScanResult(
        kb_verified=verified,
        path=str(path),
        kb_version=str(getattr(kb, "version", "")),
        python_files=p.parsed,
        extension_sources=p.extension_sources,
        lines=p.lines,
        apis=apis,
        unmapped=unmapped,
        hazards=hazards,
        hazard_summary=summary,
        skipped=sorted(p.skipped, key=lambda s: s.file),
        effort_hours=effort_hours,
        effort_worst_case_hours=worst,
        effort_basis=estimate.TOTAL_BASIS,
        risk=risk,
        risk_reasons=reasons,
        route=route,
        route_why=why,
        route_alternatives=alternatives,
        framework=framework,
        mindspore_files=p.mindspore_files,
        nothing_scanned="" if p.parsed or p.found.native else "no Python or C++/CUDA files under PATH",
        effort_breakdown=breakdown,
        api_classes=classes,
        dependencies=dependencies,
        unknown_libraries=unknown,
        risk_rule=estimate.RISK_RULE,
        mindspore_kernels=p.mindspore_kernels,
        not_migration_work=[f"{n} file(s): {why}" for why, n in sorted(p.not_work.items())],
        ports=offered,
    )
