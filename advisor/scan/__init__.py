"""Migration scan: estimate the cost of moving a PyTorch code base to MindSpore from the code itself.

`scan_path(path, kb=None) -> ScanResult`. Files are parsed with `ast` only: nothing under PATH is
ever imported, compiled or run. The scan is a sequence of named passes over one `Project`
(advisor/scan/project.py reads and places the files; advisor/scan/pricing.py prices them; the risk and
the route are judged in advisor/scan/estimate.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.errors import UsageError
from advisor.scan.models import HAZARD_KINDS, SCHEMA_VERSION, ScanResult
from advisor.scan.project import loads_pretrained

if TYPE_CHECKING:
    from knowledge.models import KnowledgeBase

__all__ = ["HAZARD_KINDS", "SCHEMA_VERSION", "ScanResult", "loads_pretrained", "scan_path"]


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
    from advisor.scan import effort, estimate, pricing, project, roles
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
    framework = _framework(p)
    risk, reasons = estimate.judge_risk(summary, apis, unmapped, effort_hours, p.unparsed, dependencies, unknown)
    if p.found.stopped:
        reasons.append(
            f"medium: the scan stopped at its budget ({p.found.stopped}): the estimate covers only what was read"
        )
        risk = "high" if risk == "high" else "medium"
    for folder in sorted({rel.split("/")[0] for rel in p.opt_in}):
        n = sum(1 for rel in p.opt_in if rel.startswith(folder + "/"))
        reasons.append(
            f"{folder}/ ({n} file(s)) is an opt-in extension (nothing else in the project imports it): priced apart "
            "like excluded files, not in the risk or the route"
        )
    if p.tutorials_only and framework != "mindspore":
        reasons.append(
            "the project is tutorials/notebooks only: they are the total here, priced as examples "
            f"(x{effort.ROLE_FACTOR['examples']:g} per line)"
        )
    if framework == "mindspore":
        risk, reasons = "low", [estimate.ALREADY_MINDSPORE.format(n=p.mindspore_files)]
        if p.torch_files:
            reasons.append(
                f"{p.torch_files} included file(s) import torch without MindSpore (converters, comparisons): not priced"
            )
        effort_hours, worst = (0.0, 0.0), 0.0
        breakdown.items = []  # the total is the sum of its items: nothing is priced
    # A training entry point in tools/ or examples/ still means the project trains; tests do not.
    live = [i for i in p.infos.values() if i.role != "tests"]
    signals = set().union(*(p.scans[i.rel].signals for i in live)) if live else set()
    picture = estimate.Picture(
        summary,
        apis,
        unmapped,
        effort_hours,
        training="training" in signals,
        deployment="deployment" in signals,
        framework=framework,
        mindspore_files=p.mindspore_files,
        dependencies=dependencies,
    )
    route, why, alternatives = estimate.choose_route(picture)
    classes = {"convertible": 0, "probably_tensor": 0, "no_mapping": 0}
    for item in [*apis, *unmapped]:
        classes[item.toolkit] += 1
    offered = _ports(p)
    alternatives += [_port_text(o) for o in offered]
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
        ports=offered if framework != "mindspore" else [],
    )


def _ports(p) -> list:
    """The MindSpore ports of what the included code builds on, with the project's families each has."""
    from advisor.scan import ports
    from advisor.scan.imports import root_of

    live = [rel for rel in sorted(p.live) if p.infos[rel].torch]
    tokens = {rel: (p.scans[rel].evidence, rel.lower().removesuffix(".py").replace("/", "\n")) for rel in live}
    imports = {rel: {root_of(m) for m, _, _ in p.scans[rel].imports} for rel in live}
    return ports.offers(tokens, imports)


def _port_text(offer) -> str:
    from advisor.scan.ports import source_of

    has = ", ".join(offer.covered) if offer.covered else "the models it takes from " + offer.upstream
    lacks = f"; it lacks {', '.join(offer.missing)}" if offer.missing else ""
    return (
        f"adapt the existing MindSpore port {offer.port} ({offer.upstream}) instead of re-implementing: it has "
        f"{has} of this project's{lacks} ({source_of(offer.port)})"
    )


def _framework(p) -> str:
    """What the code is written in, by its included files (a weight converter in examples/ that imports
    torch does not make a MindSpore project a PyTorch one)."""
    if p.python_framework == "mindspore" and not p.extension_sources:
        return "mindspore"
    if p.mindspore_files:
        return "mixed"
    if p.torch_files or p.found.native and p.extension_sources:
        return "pytorch"
    return "none"
