"""The judging passes of `scan_path`: what the code is written in, the risk and its reasons, the route,
and the MindSpore ports to offer, from a read and priced project (advisor/scan/project.py, pricing.py).
The rules themselves (RISK_RULE, the route thresholds) are in advisor/scan/estimate.py."""

from __future__ import annotations

from advisor.scan import effort, estimate, ports as port_data
from advisor.scan.imports import root_of
from advisor.scan.models import PortOffer
from advisor.scan.project import Project


def framework(p: Project) -> str:
    """What the code is written in, by its included files (a weight converter in examples/ that imports
    torch does not make a MindSpore project a PyTorch one)."""
    if p.python_framework == "mindspore" and not p.extension_sources:
        return "mindspore"
    if p.mindspore_files:
        return "mixed"
    if p.torch_files or p.found.native and p.extension_sources:
        return "pytorch"
    return "none"


def risk(
    p: Project, framework_: str, summary, apis, unmapped, effort_hours, dependencies, unknown
) -> tuple[str, list[str]]:
    """The risk by RISK_RULE, and what else a reader must know beside it: a partial read, an opt-in
    extension priced apart, a tutorials-only project, a MindSpore project."""
    level, reasons = estimate.judge_risk(summary, apis, unmapped, effort_hours, p.unparsed, dependencies, unknown)
    if p.found.stopped:
        reasons.append(
            f"medium: the scan stopped at its budget ({p.found.stopped}): the estimate covers only what was read"
        )
        level = "high" if level == "high" else "medium"
    for folder in sorted({rel.split("/")[0] for rel in p.opt_in}):
        n = sum(1 for rel in p.opt_in if rel.startswith(folder + "/"))
        reasons.append(
            f"{folder}/ ({n} file(s)) is an opt-in extension (nothing else in the project imports it): priced apart "
            "like excluded files, not in the risk or the route"
        )
    if p.tutorials_only and framework_ != "mindspore":
        reasons.append(
            "the project is tutorials/notebooks only: they are the total here, priced as examples "
            f"(x{effort.ROLE_FACTOR['examples']:g} per line)"
        )
    if framework_ == "mindspore":
        level, reasons = "low", [estimate.ALREADY_MINDSPORE.format(n=p.mindspore_files)]
        if p.torch_files:
            reasons.append(
                f"{p.torch_files} included file(s) import torch without MindSpore (converters, comparisons): not priced"
            )
    return level, reasons


def route(
    p: Project, framework_: str, summary, apis, unmapped, effort_hours, dependencies
) -> tuple[str, str, list[str]]:
    """The route from the whole picture (estimate.choose_route). A training entry point in tools/ or
    examples/ still means the project trains; tests do not."""
    live = [i for i in p.infos.values() if i.role != "tests"]
    signals = set().union(*(p.scans[i.rel].signals for i in live)) if live else set()
    picture = estimate.Picture(
        summary,
        apis,
        unmapped,
        effort_hours,
        training="training" in signals,
        deployment="deployment" in signals,
        framework=framework_,
        mindspore_files=p.mindspore_files,
        dependencies=dependencies,
    )
    return estimate.choose_route(picture)


def ports(p: Project) -> list[PortOffer]:
    """The MindSpore ports of what the included code builds on, with the project's families each has."""
    live = [rel for rel in sorted(p.live) if p.infos[rel].torch]
    tokens = {rel: (p.scans[rel].evidence, rel.lower().removesuffix(".py").replace("/", "\n")) for rel in live}
    imports = {rel: {root_of(m) for m, _, _ in p.scans[rel].imports} for rel in live}
    return port_data.offers(tokens, imports)


def port_text(offer: PortOffer) -> str:
    has = ", ".join(offer.covered) if offer.covered else "the models it takes from " + offer.upstream
    lacks = f"; it lacks {', '.join(offer.missing)}" if offer.missing else ""
    return (
        f"adapt the existing MindSpore port {offer.port} ({offer.upstream}) instead of re-implementing: it has "
        f"{has} of this project's{lacks} ({port_data.source_of(offer.port)})"
    )
