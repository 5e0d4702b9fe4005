"""Migration scan: estimate the cost of moving a PyTorch code base to MindSpore from the code itself.

`scan_path(path, kb=None) -> ScanResult`. Files are parsed with `ast` only: nothing under PATH is
ever imported, compiled or run.
"""

from __future__ import annotations

import ast
import re
import os
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.errors import UsageError
from advisor.scan import effort, features
from advisor.scan.detect import ModuleScan
from advisor.scan.native import RegisteredOp
from advisor.scan.models import (
    HAZARD_KINDS,
    SCHEMA_VERSION,
    ApiUse,
    Dependency,
    Location,
    ScanResult,
    Skipped,
)

if TYPE_CHECKING:
    from knowledge.models import KnowledgeBase

__all__ = ["HAZARD_KINDS", "SCHEMA_VERSION", "ScanResult", "scan_path"]


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


def _where(line: int, cells: list[tuple[int, int]] | None) -> dict[str, int | None]:
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


def _kb_flagged(apis, uses, index, raw, cells_of=None):
    """Hazards the knowledge base attaches to an API (ApiMapping.scan_kind) that the name rules
    did not already report at that line."""
    from advisor.scan.detect import EXTENSION_BUILDERS, HUB_PATHS, RawHazard
    from advisor.scan.normalize import NAMES as NORMALIZE

    have = {(h.kind, h.file, h.line, h.cell) for h in raw}
    extra = []
    for api in apis:
        entry = index.by_name.get(api.matched)
        kind = getattr(entry, "scan_kind", None) or getattr(entry, "scan_hazard", None)
        if not kind:
            continue
        if (
            kind == "custom_extension"
            and api.name.startswith("torch.utils.cpp_extension.")
            and api.name.rsplit(".", 1)[-1] not in EXTENSION_BUILDERS
        ):
            continue  # CUDA_HOME, include_paths: a path lookup builds no operator
        if api.name in HUB_PATHS:
            continue  # torch.hub.get_dir: where the hub caches files, not a model from it
        if api.name in NORMALIZE:
            continue  # judged place by place on its values (0-255 ones are no trap): advisor/scan/normalize.py
        for loc in uses[api.name]:
            if (kind, loc.file, loc.line, loc.cell) not in have:
                have.add((kind, loc.file, loc.line, loc.cell))
                message = f"`{api.name}`: {api.note or 'flagged by the knowledge base'}"
                extra.append(
                    RawHazard(
                        kind,
                        loc.line,
                        message,
                        False,
                        api.name,
                        loc.file,
                        loc.cell,
                        raw_line=_raw_line(loc, cells_of or {}),
                    )
                )
    return extra


# A project whose framework files are at least this share MindSpore is a MindSpore project (the rest are
# converters, comparisons, tests against PyTorch): nothing to migrate. Assumption.
MINDSPORE_SHARE = 0.8

# Loading pretrained weights (not resuming one's own checkpoint): they must be converted and checked.
PRETRAINED = re.compile(
    rb"load_state_dict_from_url|model_zoo|torch\.hub\.|from_pretrained|hf_hub_download|attempt_load|"
    rb"resume_or_load|detectron2://|pretrained\s*=\s*True"
)
# A URL of a checkpoint file: URLs are read whole (no backtracking inside one), then their ending checked;
# a pattern backtracking from each "http" of a long token is quadratic on it.
URL = re.compile(rb"https?://[^\s'\"]+")
CHECKPOINT_URL = re.compile(rb"\.(?:pt|pth|bin|safetensors)\b")


def loads_pretrained(data: bytes) -> bool:
    """Does the source load released weights (a hub, a model zoo, a checkpoint URL)?"""
    return bool(PRETRAINED.search(data)) or any(CHECKPOINT_URL.search(m.group()) for m in URL.finditer(data))


PY2_MARKERS = (
    "Missing parentheses in call to 'print'",
    "Missing parentheses in call to 'exec'",
    "multiple exception types must be parenthesized",
    "invalid hexadecimal literal",
    "leading zeros in decimal",
)


def _code_lines(data: bytes) -> int:
    """Non-blank lines that are not only a comment."""
    return sum(1 for line in data.splitlines() if line.strip() and not line.lstrip().startswith(b"#"))


def _local_roots(rels: list[str], root: Path) -> frozenset[str]:
    """The project's own importable names: its top-level folders and modules (and under src/), and the
    folder's own name (a library scanned from inside imports itself by that name)."""
    names = {root.name}
    for rel in rels:
        parts = rel.split("/")
        first = parts[0][:-3] if len(parts) == 1 and parts[0].endswith(".py") else parts[0]
        names.add(first)
        if first == "src" and len(parts) > 1:
            names.add(parts[1].removesuffix(".py"))
    return frozenset(
        n for n in names if n.isidentifier() and n not in ("torch", "torchvision", "torchaudio", "torchtext")
    )


def _module_classes(scans: dict[str, ModuleScan]) -> set[tuple[str, str]]:
    """(file, class) of every nn.Module subclass, following bases through the project's own classes."""
    names = {c.name for m in scans.values() for c in m.classes if c.torch_module}
    changed = True
    while changed:
        changed = False
        for m in scans.values():
            for c in m.classes:
                if c.name not in names and any(b in names for b in c.bases):
                    names.add(c.name)
                    changed = True
    return {(rel, c.name) for rel, m in scans.items() for c in m.classes if c.name in names}


def _role_at(info: effort.FileInfo, spans: list[tuple[int, int]], line: int) -> str:
    if info.role in ("tests", "examples", "tools"):
        return info.role
    return "model" if any(a <= line <= b for a, b in spans) else info.role


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
    from advisor.scan import (
        detect,
        effort,
        estimate,
        files,
        frameworks,
        native,
        normalize,
        notebook,
        patterns,
        roles,
    )

    given = Path(path)
    if not given.exists():
        raise UsageError(f"{path}: no such file or folder (scan expects a folder of Python code or a .py file)")
    if kb is None:
        import knowledge

        kb = knowledge.load()
    index = estimate.MappingIndex(kb.api_mappings)
    known = index.names()
    globs = (list(roles.DEFAULT_EXCLUDES) if default_excludes else []) + list(exclude or [])

    root, found = files.collect(given)
    local = _local_roots([s.rel for s in found.python], root) if given.is_dir() else frozenset()
    skipped: list[Skipped] = list(found.skipped)
    uses: dict[str, list[Location]] = defaultdict(list)
    raw: list[detect.RawHazard] = []
    scans: dict[str, ModuleScan] = {}
    infos: dict[str, effort.FileInfo] = {}
    cells_of: dict[str, list[tuple[int, int]] | None] = {}
    lines = parsed = unparsed = py2 = 0
    bridges = frameworks.find_bridges(found.python)
    not_work: dict[str, int] = defaultdict(int)  # what is MindSpore already: bridge, MindSpore code
    pretrained: set[str] = set()  # files that load pretrained weights
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
            if error and any(m in error for m in PY2_MARKERS):
                py2 += 1
                error += " (Python 2 syntax)"
            skipped.append(Skipped(file=src.rel, reason=error or "does not parse"))
            unparsed += 1
            continue
        try:
            # MindSpore code (or the bridge) is not ported: its imports are all the framework check needs
            module = (
                detect.ModuleScan(imports=[("mindspore", 1, False)])
                if bridges.holds(src.rel) or frameworks.MS_IMPORT.search(data)
                else detect.scan_module(tree, known, local)
            )
        except RecursionError:
            skipped.append(Skipped(file=src.rel, reason="too deeply nested to analyse"))
            unparsed += 1
            continue
        parsed += 1
        n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        lines += n_lines
        cells_of[src.rel] = cells
        roots = {m.split(".", 1)[0] for m, _, _ in module.imports}
        fw = frameworks.file_framework(roots, src.rel, bridges)
        if fw == "none" and module.uses:
            fw = "pytorch"
        infos[src.rel] = effort.FileInfo(
            rel=src.rel,
            lines=_code_lines(data),
            role="other",
            excluded=roles.excluded(src.rel, globs),
            torch=fw == "pytorch",
            mindspore=fw == "mindspore",
        )
        if fw == "mindspore":  # MindSpore code (or code on the project's own bridge): nothing to port
            infos[src.rel].role = "mindspore"
            scans[src.rel] = detect.ModuleScan()
            why = (
                "PyTorch-compatibility bridge on MindSpore"
                if bridges.holds(src.rel)
                else "runs on the project's torch bridge (import hook in " + bridges.hook + ")"
                if "mindspore" not in roots
                else "MindSpore code"
            )
            not_work[why] += 1
            continue
        scans[src.rel] = module
        if loads_pretrained(data):
            pretrained.add(src.rel)
        for name, at in module.uses.items():
            uses[name].extend(Location(file=src.rel, **_where(n, cells)) for n in at)
        seen = set()
        for h in module.hazards:
            key = (h.kind, h.line, h.message)
            if key not in seen:  # one report per kind, line and finding
                seen.add(key)
                h.file = src.rel
                h.optional = h.kind == "model_hub" and h.line in module.lazy_lines
                h.raw_line = h.line
                h.line, h.cell = _where(h.line, cells).values()
                raw.append(h)

    if given.is_file() and not parsed and not found.native and skipped:
        # One named file and nothing in it could be read: that is bad input, not a zero-hour estimate.
        raise UsageError(f"{path}: {skipped[0].reason} (scan expects a folder of Python code or a .py file)")
    if not parsed and unparsed and not found.native:
        why = (
            f"{py2} look like Python 2; convert them with 2to3 first"
            if py2
            else f"first: {skipped[0].file}: {skipped[0].reason}"
        )
        raise UsageError(f"{path}: none of the {unparsed} Python file(s) parse as Python 3 ({why}); nothing to scan")

    # Where each file sits, and which lines belong to nn.Module classes (model code wherever it lives).
    modules = _module_classes(scans)
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for rel, m in scans.items():
        for c in m.classes:
            if (rel, c.name) in modules:
                spans[rel].append((c.line, c.end))
    for rel, info in infos.items():
        if info.mindspore:
            continue
        info.role = roles.role_of(rel, scans[rel].signals, bool(spans[rel]))
        info.model_lines = min(info.lines, sum(b - a + 1 for a, b in spans[rel]))
    # A training entry point is part of the port wherever it lives (tools/train_net.py, scripts/train.py),
    # unless the user excluded it by name.
    user_globs = list(exclude or [])
    for rel, info in infos.items():
        if info.role == "tools" and "training" in scans[rel].signals and not roles.excluded(rel, user_globs):
            info.role, info.excluded = "training", False
    # A project that is nothing but tutorials or notebooks: they are the work, priced and labelled as such.
    tutorials_only = not any(i.torch and not i.excluded for i in infos.values()) and any(
        i.torch and i.role == "examples" for i in infos.values()
    )
    if tutorials_only:
        for info in infos.values():
            if info.role == "examples":
                info.excluded = False
        globs = [g for g in globs if g not in roles.TUTORIAL_EXCLUDES]

    ms_files = sum(1 for i in infos.values() if i.mindspore)
    counted = [i for i in infos.values() if not i.excluded] or list(infos.values())
    torch_files = sum(1 for i in counted if i.torch)
    python_fw = "mindspore" if ms_files and ms_files >= MINDSPORE_SHARE * (ms_files + torch_files) else "pytorch"
    loaded = native.loaders(found.python)
    extension_sources = mindspore_kernels = 0
    torch_native = []
    for src in found.native:
        fw = native.framework_of(src, loaded, python_fw)
        if fw == "mindspore":
            mindspore_kernels += 1
            not_work["MindSpore custom-op kernel source"] += 1
            continue
        torch_native += [src] if fw == "pytorch" else []
        findings = native.extension_findings(src) if fw == "pytorch" else []
        extension_sources += bool(findings)
        for line, message in findings:
            h = detect.RawHazard("custom_extension", line, message, False, None, src.rel)
            h.raw_line = line
            raw.append(h)

    # The operators the bindings register are what the engineer counts: each one ported once (its forward,
    # and its backward when it has one); the sources and build lines are the glue of those ops.
    for op in native.registered_ops(torch_native):
        for part in ("forward", "backward") if op.backward else ("forward",):
            h = detect.RawHazard("custom_extension", op.line, _op_message(op, part), False, None, op.file)
            h.api, h.raw_line = f"{features.REGISTERED}{op.name} {part}", op.line
            raw.append(h)

    def place(rel: str, line: int) -> tuple[str, str, bool]:
        info = infos.get(rel)
        if info is None:  # a native source: its role is the model's, unless it sits in tests/examples
            role = roles.role_of(rel, set(), True)
            return rel, role if role in ("tests", "examples", "tools") else "model", roles.excluded(rel, globs)
        return rel, _role_at(info, spans[rel], line), info.excluded

    apis, unmapped = estimate.classify_apis(uses, kb)
    raw.extend(_kb_flagged(apis, uses, index, raw, cells_of))
    raw.sort(key=lambda h: (h.file, h.cell or 0, h.line, h.kind))
    hazards = estimate.attach_fixes(raw, kb)
    examples = {}
    for h, r in zip(hazards, raw):
        _, h.role, h.excluded = place(h.file, getattr(r, "raw_line", h.line))
        h.optional = bool(getattr(r, "optional", False))
        if h.kind == "normalize" and h.role == "model":
            h.message = normalize.in_model(h.message)
        if r.example and h.role != "model":
            examples[id(h)] = r.example

    ledger = effort.Ledger()
    effort.code_lines(ledger, list(infos.values()))
    module_places = [
        place(rel, next(c.line for c in scans[rel].classes if c.name == name)) for rel, name in sorted(modules)
    ]
    if module_places:
        ledger.series(
            "nn.Module classes to port and check",
            "modules",
            effort.MODULE_HOURS,
            module_places,
            effort.FLOOR["module"],
            f"{effort.MODULE_HOURS[0]:g}-{effort.MODULE_HOURS[1]:g} h per class "
            f"(port + parity check; assumption), the k-th max(1/k, {effort.FLOOR['module']:g}) of it",
        )

    _architectures(ledger, scans, infos, modules, spans, pretrained, place)
    summary = estimate.summarize(hazards, kb, ledger, index, examples)
    # An API whose use is itself a hazard (StepLR, Normalize, DDP...) is costed once, in the hazard.
    covered = {h.api: h.kind for h in raw if h.api}
    priced_apis, priced_unmapped = [], []
    for item in [*apis, *unmapped]:
        locs = uses[item.name]
        places = [place(loc.file, _raw_line(loc, cells_of)) for loc in locs]
        excluded_uses = sum(1 for p in places if p[2])
        update: dict[str, object] = {"excluded_uses": excluded_uses}
        if item.name in covered:
            update.update(
                effort_hours=(0.0, 0.0),
                effort_basis=f"counted in the {covered[item.name]} hazard estimate (was: {item.effort_basis})",
            )
        else:
            mapping = getattr(item, "mapping", None)
            repeats = places if mapping != "same" else sorted(places, key=lambda p: p[2])[:1]
            name = f"api {item.name}"
            ledger.features(name, "api", item.effort_hours, [(name, *p) for p in repeats], item.effort_basis)
            update.update(
                effort_hours=ledger.item_hours(name),
                effort_basis=item.effort_basis
                + (
                    ""
                    if mapping == "same"
                    else f"; once, each further use {effort.PLACE_INCREMENT:g} of it, at most {effort.SATURATION:g} of it in all"
                ),
            )
        target = priced_apis if isinstance(item, ApiUse) else priced_unmapped
        target.append(item.model_copy(update=update))
    apis, unmapped = priced_apis, priced_unmapped

    dependencies = _dependencies(scans, infos, cells_of, ledger, place, patterns)
    result_breakdown, effort_hours, worst = effort.breakdown(ledger, list(infos.values()), globs)

    # What the code is written in, by its included files (a weight converter in examples/ that imports
    # torch does not make a MindSpore project a PyTorch one).
    framework = (
        "mindspore"
        if python_fw == "mindspore" and not extension_sources
        else "mixed"
        if ms_files
        else "pytorch"
        if torch_files or found.native and extension_sources
        else "none"
    )
    risk, reasons = estimate.judge_risk(summary, apis, unmapped, effort_hours, unparsed, dependencies)
    if found.stopped:
        reasons.append(
            f"medium: the scan stopped at its budget ({found.stopped}): the estimate covers only what was read"
        )
        risk = "high" if risk == "high" else "medium"
    if tutorials_only and framework != "mindspore":
        reasons.append(
            "the project is tutorials/notebooks only: they are the total here, priced as examples "
            f"(x{effort.ROLE_FACTOR['examples']:g} per line)"
        )
    if framework == "mindspore":
        risk, reasons = "low", [estimate.ALREADY_MINDSPORE.format(n=ms_files)]
        if torch_files:
            reasons.append(
                f"{torch_files} included file(s) import torch without MindSpore (converters, comparisons): not priced"
            )
        effort_hours, worst = (0.0, 0.0), 0.0
        result_breakdown.items = []  # the total is the sum of its items: nothing is priced
    # A training entry point in tools/ or examples/ still means the project trains; tests do not.
    live = [i for i in infos.values() if i.role != "tests"]
    signals = set().union(*(scans[i.rel].signals for i in live)) if live else set()
    picture = estimate.Picture(
        summary,
        apis,
        unmapped,
        effort_hours,
        training="training" in signals,
        deployment="deployment" in signals,
        framework=framework,
        mindspore_files=ms_files,
        dependencies=dependencies,
    )
    route, why, alternatives = estimate.choose_route(picture)
    nothing = ""
    if not parsed and not found.native:
        nothing = "no Python or C++/CUDA files under PATH"
    classes = {"convertible": 0, "probably_tensor": 0, "no_mapping": 0}
    for item in [*apis, *unmapped]:
        classes[item.toolkit] += 1
    from advisor.scan.live import attach as attach_live_checks

    verified = attach_live_checks(apis, hazards)
    return ScanResult(
        kb_verified=verified,
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
        effort_hours=effort_hours,
        effort_worst_case_hours=worst,
        effort_basis=estimate.TOTAL_BASIS,
        risk=risk,
        risk_reasons=reasons,
        route=route,
        route_why=why,
        route_alternatives=alternatives,
        framework=framework,
        mindspore_files=ms_files,
        nothing_scanned=nothing,
        effort_breakdown=result_breakdown,
        api_classes=classes,
        dependencies=dependencies,
        risk_rule=estimate.RISK_RULE,
        mindspore_kernels=mindspore_kernels,
        not_migration_work=[f"{n} file(s): {why}" for why, n in sorted(not_work.items())],
    )


def _op_message(op: RegisteredOp, part: str) -> str:
    both = " (forward + backward)" if op.backward else ""
    return (
        f"custom operator `{op.name}`{both}, {part} kernel (registered as {', '.join(op.entries)}): port it to a "
        "MindSpore custom op (ops.Custom func_type='aot' built from its CUDA source on GPU, an Ascend C kernel on "
        "Ascend" + (", with its bprop" if op.backward else "") + ") and compare it with the CUDA version"
    )


def _architectures(ledger, scans, infos, modules, spans, pretrained, place) -> None:
    """Per-architecture parity verification and, when pretrained weights are loaded, the checkpoint
    converter. An architecture: a file with a top-level nn.Module class (held by no other module class)
    whose module classes span at least ARCH_MIN_LINES lines."""
    held = {r for rel, m in scans.items() for c in m.classes if (rel, c.name) in modules for r in c.refs}
    arch_files = []
    for rel in sorted(scans):
        mods = [c for c in scans[rel].classes if (rel, c.name) in modules]
        tops = [c for c in mods if c.name not in held]
        size = sum(c.end - c.line + 1 for c in mods)
        if tops and size >= effort.ARCH_MIN_LINES:
            arch_files.append((rel, tops[0].line, min(effort.ARCH_SCALE_MAX, max(1.0, size / effort.ARCH_SCALE_LINES))))
    live = {rel for rel, info in infos.items() if not info.excluded}
    arch_files.sort(key=lambda a: -a[2])  # the harness is built on the biggest
    _task_metrics(ledger, scans, infos, live, arch_files, place)
    _training_runs(ledger, scans, infos, live, place)
    if not arch_files:
        return
    weights = bool(pretrained & live)
    base = effort.PARITY_HOURS["weights" if weights else "scratch"]
    floor = effort.FLOOR["parity"]
    basis = (
        f"{base[0]:g}-{base[1]:g} h per architecture "
        + ("(pretrained weights: convert and compare outputs)" if weights else "(trained from scratch: smoke run)")
        + f" x max(1, module lines / {effort.ARCH_SCALE_LINES}) up to x{effort.ARCH_SCALE_MAX:g}"
        + f", the k-th max(1/k, {floor:g}) of it (the harness is reused; assumption)"
    )
    for k, (rel, line, scale) in enumerate(arch_files, start=1):
        w = effort.weight(k, floor) * scale
        ledger.add(
            effort.Occurrence(
                "parity verification per architecture", "parity", *place(rel, line), base[0] * w, base[1] * w
            ),
            basis,
        )
    if weights:
        rel = min(pretrained & live)
        ledger.add(
            effort.Occurrence(
                "checkpoint/weight conversion", "parity", *place(rel, 1), *effort.WEIGHT_CONVERSION_HOURS
            ),
            f"{effort.WEIGHT_CONVERSION_HOURS[0]:g}-{effort.WEIGHT_CONVERSION_HOURS[1]:g} h once: a converter for "
            f"the pretrained checkpoints (names, layouts, BN statistics; assumption), first seen in {rel}",
        )


def _training_runs(ledger, scans, infos, live, place) -> None:
    """Each training program (steps an optimizer and runs as a program) checked against its PyTorch loss
    curve once; the k-th max(1/k, floor) of the first."""
    programs = [
        rel for rel in sorted(live) if infos[rel].torch and scans[rel].entry and "training" in scans[rel].signals
    ]
    lo, hi = effort.TRAINING_RUN_HOURS
    floor = effort.FLOOR["training_run"]
    basis = (
        f"{lo:g}-{hi:g} h per training program (run it after the port and compare the loss curve with PyTorch's: "
        f"optimizer, schedule, loss scaling, data order), the k-th max(1/k, {floor:g}) of it (assumption)"
    )
    for k, rel in enumerate(programs, start=1):
        w = effort.weight(k, floor)
        ledger.add(effort.Occurrence("training convergence check", "parity", *place(rel, 1), lo * w, hi * w), basis)


def _task_metrics(ledger, scans, infos, live, arch_files, place) -> None:
    """The task metric each architecture is verified on (advisor/scan/tasks.py): per architecture, the first
    in full, each later one max(1/k, TASK_FLOOR) of it. A project whose model comes from a hub (no
    architecture of its own) still checks one."""
    from advisor.scan import tasks

    torch_live = [rel for rel in sorted(live) if infos[rel].torch]
    modules = {m for rel in torch_live for m, _, _ in scans[rel].imports}
    apis = {q for rel in torch_live for q in scans[rel].uses}
    found = tasks.tasks_of(modules, apis)
    if not found:
        return
    archs = [(rel, line) for rel, line, _ in arch_files if rel in live]
    if not archs:
        shows = (
            rel for rel in torch_live if tasks.tasks_of({m for m, _, _ in scans[rel].imports}, set(scans[rel].uses))
        )
        archs = [(next(shows), 1)]
    for task, evidence in found:
        item = f"task metric verification ({task.name})"
        basis = (
            f"{task.hours[0]:g}-{task.hours[1]:g} h per architecture: {task.metric} on the port, and chasing the "
            f"gap (post-processing, decoding); the k-th max(1/k, {tasks.TASK_FLOOR:g}) of it (the evaluation "
            f"harness is reused; assumption). Task from the code: {evidence}"
        )
        for k, (rel, line) in enumerate(archs, start=1):
            w = effort.weight(k, tasks.TASK_FLOOR)
            ledger.add(
                effort.Occurrence(item, "parity", *place(rel, line), task.hours[0] * w, task.hours[1] * w), basis
            )


def _raw_line(loc: Location, cells_of: dict[str, list[tuple[int, int]] | None]) -> int:
    """A notebook location's line in the joined source (module class spans are in those lines)."""
    cells = cells_of.get(loc.file)
    if not cells or loc.cell is None:
        return loc.line
    for i, (cell, in_cell) in enumerate(cells, start=1):
        if cell == loc.cell and in_cell == loc.line:
            return i
    return loc.line


def _library_names(ledger, item, name, lib, live, scans, place, patterns) -> None:
    """Each distinct name the included code takes from the library (patterns.PER_NAME by its mapping), on
    top of the per-library figure; names the knowledge base maps are priced as APIs, not here."""
    per = patterns.PER_NAME.get(lib.mapping, (0.0, 0.0))
    if per[1] <= 0 or lib.per_use[1] > 0:  # a counterpart that is the same, or a library priced by its calls
        return
    first: dict[str, tuple[str, int]] = {}
    for rel, line in sorted(live):
        for q in sorted(scans[rel].library_names.get(name, ())):
            if q not in scans[rel].uses:
                first.setdefault(q, (rel, line))
    if not first:
        return
    for k, (q, (rel, line)) in enumerate(sorted(first.items(), key=lambda kv: kv[1]), start=1):
        w = effort.weight(k, patterns.NAME_FLOOR)
        ledger.add(effort.Occurrence(item, "dependency", *place(rel, line), per[0] * w, per[1] * w), "")
    ledger.basis[item] += (
        f" + {per[0]:g}-{per[1]:g} h per distinct name used ({len(first)}; the k-th max(1/k, "
        f"{patterns.NAME_FLOOR:g}) of it: {'re-implement' if lib.mapping == 'none' else 'swap and check'} each)"
    )


def _dependencies(scans, infos, cells_of, ledger, place, patterns) -> list[Dependency]:
    """Third-party libraries the code imports that the scan knows, priced once each (lazy-only imports
    are listed as optional and not priced)."""
    from advisor.scan.imports import root_of

    seen: dict[str, list[tuple[str, int, bool]]] = defaultdict(list)
    for rel, m in scans.items():
        for module, line, lazy in m.imports:
            if root_of(module) in patterns.LIBRARIES:
                seen[root_of(module)].append((rel, line, lazy))
    out = []
    for name in sorted(seen):
        lib = patterns.LIBRARIES[name]
        at = seen[name]
        optional = all(lazy for _, _, lazy in at)
        live = [(rel, line) for rel, line, lazy in at if not lazy and not infos[rel].excluded]
        excluded = all(infos[rel].excluded for rel, _, _ in at)
        first_rel, first_line, _ = min(at)
        hours, basis = (
            (0.0, 0.0),
            "not priced: " + ("only imported lazily (optional path)" if optional else "only in excluded files"),
        )
        if live and lib.effort[1] > 0:
            item = f"library {name}"
            rel, line = min(live)
            basis = f"{lib.effort[0]:g}-{lib.effort[1]:g} h per library ({patterns.LIBRARY_SOURCE})"
            calls = {r: scans[r].library_calls.get(name, 0) for r, _ in live}
            if lib.per_use[1] > 0:
                basis += f" + {lib.per_use[0]:g}-{lib.per_use[1]:g} h per call ({sum(calls.values())} calls)"
            ledger.add(effort.Occurrence(item, "dependency", *place(rel, line), lib.effort[0], lib.effort[1]), basis)
            for r in sorted(calls):
                n = calls[r]
                if n and lib.per_use[1] > 0:
                    ledger.add(
                        effort.Occurrence(
                            item, "dependency", *place(r, 1), lib.per_use[0] * n, lib.per_use[1] * n, count=0
                        ),
                        basis,
                    )
            _library_names(ledger, item, name, lib, live, scans, place, patterns)
            hours, basis = ledger.item_hours(item), ledger.basis[item]
        out.append(
            Dependency(
                name=name,
                files=len({rel for rel, _, _ in at}),
                uses=len(at),
                first=Location(file=first_rel, **_where(first_line, cells_of.get(first_rel))),
                mindspore=lib.mindspore,
                mapping=lib.mapping,
                note=lib.note,
                optional=optional,
                excluded=excluded and not optional,
                effort_hours=hours,
                effort_basis=basis,
            )
        )
    return out
