"""The passes that price a read project (advisor/scan/project.py) into the ledger: hazards, the code to
port, module classes, per-architecture parity, task metrics, training runs, weights, APIs and libraries.
Each item's figure and basis are in advisor/scan/effort.py, estimate.py, tasks.py and libraries.py.
"""

from __future__ import annotations

from collections import defaultdict

from advisor.scan import effort, estimate, libraries, normalize, ports, reach, tasks
from advisor.scan.detect import EXTENSION_BUILDERS, HUB_PATHS, RawHazard
from advisor.scan.features import is_native
from advisor.scan.imports import root_of
from advisor.scan.models import ApiUse, Dependency, Hazard, Location, UnknownLibrary, UnmappedApi
from advisor.scan.normalize import NAMES as NORMALIZE
from advisor.scan.project import Project, built_extensions


def kb_flagged(p: Project, apis: list[ApiUse]) -> list[RawHazard]:
    """Hazards the knowledge base attaches to an API (ApiMapping.scan_kind) that the name rules did not
    already report at that line."""
    have = {(h.kind, h.file, h.line, h.cell) for h in p.raw}
    extra = []
    for api in apis:
        entry = p.index.by_name.get(api.matched)
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
        for loc in p.uses[api.name]:
            if (kind, loc.file, loc.line, loc.cell) not in have:
                have.add((kind, loc.file, loc.line, loc.cell))
                message = f"`{api.name}`: {api.note or 'flagged by the knowledge base'}"
                extra.append(
                    RawHazard(kind, loc.line, message, False, api.name, loc.file, loc.cell, raw_line=p.raw_line(loc))
                )
    return extra


def place_hazards(p: Project) -> tuple[list[Hazard], dict[int, tuple[str, str]]]:
    """Each raw hazard with its KB fix, placed (role, excluded, optional); and the places whose own
    before/after replaces the kind's pattern (the Normalize values found), by id of the hazard."""
    p.raw.sort(key=lambda h: (h.file, h.cell or 0, h.line, h.kind))
    hazards = estimate.attach_fixes(p.raw, p.kb)
    examples = {}
    for h, r in zip(hazards, p.raw):
        _, h.role, h.excluded = p.place(h.file, getattr(r, "raw_line", h.line))
        h.optional = bool(getattr(r, "optional", False))
        why = _optional_kernel(p, h, getattr(r, "raw_line", None) or h.line)
        if why:
            h.optional = True
            h.message += f" (optional: {why})"
        if h.kind == "normalize" and h.role == "model":
            h.message = normalize.in_model(h.message)
        if r.example and h.role != "model":
            examples[id(h)] = r.example
    return hazards, examples


def _optional_kernel(p: Project, h: Hazard, line: int) -> str:
    """Why a custom-kernel place is on an optional path ('' when the port must carry it): behind a guard in its
    module, in a module only reached through guards, or a native source whose extension is."""
    if h.kind != "custom_extension":
        return ""
    if h.file in p.opt_in:
        return p.opt_in[h.file]
    if h.file in p.optional_native:
        return p.optional_native[h.file]
    if h.file in p.optional:
        return f"its module is only imported {p.optional[h.file].split(': ', 1)[0]}"
    scan = p.scans.get(h.file)
    why = scan.reach.guard_at(line) if scan is not None else ""
    if why:
        return why.split(": ", 1)[0]
    glue = (h.api or "").startswith(("torch.utils.cpp_extension.", "torch.ops."))
    if glue and p.optional_native and _all_native_optional(p):
        return "it builds or calls an extension that is only imported through a guard"
    return ""


def _all_native_optional(p: Project) -> bool:
    kernels = {h.file for h in p.raw if h.kind == "custom_extension" and is_native(h.file)}
    return bool(kernels) and kernels <= set(p.optional_native)


def price_code(p: Project, ledger: effort.Ledger) -> None:
    """The lines of torch code by role, and each nn.Module class ported and checked."""
    effort.code_lines(ledger, list(p.infos.values()))
    module_places = [
        p.place(rel, next(c.line for c in p.scans[rel].classes if c.name == name)) for rel, name in sorted(p.modules)
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


def architectures(p: Project) -> list[tuple[str, int, float]]:
    """(file, line, scale) of each architecture, biggest first: a file with a top-level nn.Module class
    (held by no other module class) whose module classes span at least ARCH_MIN_LINES lines."""
    held = {r for rel, m in p.scans.items() for c in m.classes if (rel, c.name) in p.modules for r in c.refs}
    arch_files = []
    for rel in sorted(p.scans):
        mods = [c for c in p.scans[rel].classes if (rel, c.name) in p.modules]
        tops = [c for c in mods if c.name not in held]
        size = sum(c.end - c.line + 1 for c in mods)
        if tops and size >= effort.ARCH_MIN_LINES:
            arch_files.append((rel, tops[0].line, min(effort.ARCH_SCALE_MAX, max(1.0, size / effort.ARCH_SCALE_LINES))))
    arch_files.sort(key=lambda a: -a[2])  # the harness is built on the biggest
    return arch_files


def price_verification(p: Project, ledger: effort.Ledger) -> None:
    """What checks the port: the task metric per architecture, a convergence run per training program,
    output parity per architecture and, when pretrained weights are loaded, the checkpoint converter."""
    arch_files = architectures(p)
    live = p.live
    _task_metrics(p, ledger, live, arch_files)
    _training_runs(p, ledger, live)
    families = ports.named_families([p.scans[rel].evidence for rel in sorted(live) if not p.infos[rel].mindspore])
    extra = max(0, len(families) - len(arch_files))
    if extra and not arch_files:  # a model from a hub, named by its id: checked on the file that loads it
        rel = min(p.pretrained & live or {r for r in live if p.infos[r].torch} or live)
        arch_files = [(rel, 1, 1.0)]
        extra -= 1
    if not arch_files:
        return
    weights = bool(p.pretrained & live or p.released)
    base = effort.PARITY_HOURS["weights" if weights else "scratch"]
    floor = effort.FLOOR["parity"]
    basis = (
        f"{base[0]:g}-{base[1]:g} h per architecture "
        + ("(pretrained weights: convert and compare outputs)" if weights else "(trained from scratch: smoke run)")
        + f" x max(1, module lines / {effort.ARCH_SCALE_LINES}) up to x{effort.ARCH_SCALE_MAX:g}"
        + f", the k-th max(1/k, {floor:g}) of it (the harness is reused; assumption)"
    )
    if extra:
        basis += (
            f"; the project names {len(families)} model families in its configs and model ids ({', '.join(families[:8])}"
            + (" ..." if len(families) > 8 else "")
            + "): each is converted and checked, so the count is the larger of families and architecture files"
        )
    rel0, line0, _ = arch_files[0]
    places = arch_files + [(rel0, line0, 1.0)] * extra
    for k, (rel, line, scale) in enumerate(places, start=1):
        w = effort.weight(k, floor) * scale
        ledger.add(
            effort.Occurrence(
                "parity verification per architecture", "parity", *p.place(rel, line), base[0] * w, base[1] * w
            ),
            basis,
        )
    if weights:
        loads = sorted(p.pretrained & live)
        rel = loads[0] if loads else arch_files[0][0]
        seen = loads[0] if loads else p.released[0]
        ledger.add(
            effort.Occurrence(
                "checkpoint/weight conversion", "parity", *p.place(rel, 1), *effort.WEIGHT_CONVERSION_HOURS
            ),
            f"{effort.WEIGHT_CONVERSION_HOURS[0]:g}-{effort.WEIGHT_CONVERSION_HOURS[1]:g} h once: a converter for "
            f"the pretrained checkpoints (names, layouts, BN statistics; assumption), first seen in {seen}"
            + ("" if loads else " (the project ships or links its released checkpoints)"),
        )


def _training_runs(p: Project, ledger: effort.Ledger, live: set[str]) -> None:
    """Each training program (steps an optimizer and runs as a program) checked against its PyTorch loss
    curve once; the k-th max(1/k, floor) of the first."""
    programs = [
        rel for rel in sorted(live) if p.infos[rel].torch and p.scans[rel].entry and "training" in p.scans[rel].signals
    ]
    if not programs:  # a trainer built from a config (hydra's instantiate): the project trains, checked once
        trains = [rel for rel in sorted(live) if p.infos[rel].torch and "training" in p.scans[rel].signals]
        if trains and any(p.scans[rel].entry for rel in live):
            programs = trains[:1]
    lo, hi = effort.TRAINING_RUN_HOURS
    floor = effort.FLOOR["training_run"]
    basis = (
        f"{lo:g}-{hi:g} h per training program (run it after the port and compare the loss curve with PyTorch's: "
        f"optimizer, schedule, loss scaling, data order), the k-th max(1/k, {floor:g}) of it (assumption)"
    )
    for k, rel in enumerate(programs, start=1):
        w = effort.weight(k, floor)
        ledger.add(effort.Occurrence("training convergence check", "parity", *p.place(rel, 1), lo * w, hi * w), basis)


def _task_metrics(p: Project, ledger: effort.Ledger, live: set[str], arch_files) -> None:
    """The task metric each architecture is verified on (advisor/scan/tasks.py), named on the project's own
    evidence: priced on each architecture whose file, or a project file it imports, shows the task (the
    first in full, each later one max(1/k, TASK_FLOOR) of it); once when none does (a model from a hub)."""
    files = [rel for rel in sorted(live) if not p.infos[rel].mindspore]
    evidence = {
        rel: tasks.Evidence(
            modules={m for m, _, _ in p.scans[rel].imports},
            apis=set(p.scans[rel].uses),
            tokens=p.scans[rel].evidence + "\n" + rel.lower().removesuffix(".py").replace("/", "\n"),
        )
        for rel in files
    }
    found = tasks.tasks_of(evidence)
    if not found:
        return
    imports = reach.imported_files({rel: p.scans[rel].reach for rel in files})
    for task, said, showing in found:
        archs = [
            (rel, line)
            for rel, line, _ in arch_files
            if rel in live and (rel in showing or imports.get(rel, set()) & showing)
        ]
        if not archs:
            first = next((rel for rel, _, _ in arch_files if rel in live), None) or min(showing)
            archs = [(first, 1)]
        item = f"task metric verification ({task.name})"
        basis = (
            f"{task.hours[0]:g}-{task.hours[1]:g} h per architecture that shows the task: {task.metric} on the port, "
            f"and chasing the gap (post-processing, decoding); the k-th max(1/k, {tasks.TASK_FLOOR:g}) of it (the "
            f"evaluation harness is reused; assumption). Task from the code: {said}"
        )
        for k, (rel, line) in enumerate(archs, start=1):
            w = effort.weight(k, tasks.TASK_FLOOR)
            ledger.add(
                effort.Occurrence(item, "parity", *p.place(rel, line), task.hours[0] * w, task.hours[1] * w), basis
            )


def price_apis(
    p: Project, ledger: effort.Ledger, apis: list[ApiUse], unmapped: list[UnmappedApi]
) -> tuple[list[ApiUse], list[UnmappedApi]]:
    """Each API once (its KB figure), each further place a small increment; an API whose use is itself a
    hazard (StepLR, Normalize, DDP...) is costed once, in the hazard."""
    covered = {h.api: h.kind for h in p.raw if h.api}
    priced_apis, priced_unmapped = [], []
    for item in [*apis, *unmapped]:
        locs = p.uses[item.name]
        places = [p.place(loc.file, p.raw_line(loc)) for loc in locs]
        excluded_uses = sum(1 for pl in places if pl[2])
        update: dict[str, object] = {"excluded_uses": excluded_uses}
        if item.name in covered:
            update.update(
                effort_hours=(0.0, 0.0),
                effort_basis=f"counted in the {covered[item.name]} hazard estimate (was: {item.effort_basis})",
            )
        else:
            mapping = getattr(item, "mapping", None)
            repeats = places if mapping != "same" else sorted(places, key=lambda pl: pl[2])[:1]
            name = f"api {item.name}"
            ledger.features(name, "api", item.effort_hours, [(name, *pl) for pl in repeats], item.effort_basis)
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
    return priced_apis, priced_unmapped


def _library_names(p: Project, ledger: effort.Ledger, item: str, name: str, lib, live, count: int = 1) -> None:
    """Each distinct name the included code takes from the library (libraries.PER_NAME by its mapping), on
    top of the per-library figure; names the knowledge base maps are priced as APIs, not here."""
    per = libraries.PER_NAME.get(lib.mapping, (0.0, 0.0))
    if per[1] <= 0 or lib.per_use[1] > 0:  # a counterpart that is the same, or a library priced by its calls
        return
    first: dict[str, tuple[str, int]] = {}
    for rel, line in sorted(live):
        for q in sorted(p.scans[rel].library_names.get(name, ())):
            if q not in p.scans[rel].uses:
                first.setdefault(q, (rel, line))
    if not first:
        return
    for k, (q, (rel, line)) in enumerate(sorted(first.items(), key=lambda kv: kv[1]), start=1):
        w = effort.weight(k, libraries.NAME_FLOOR)
        ledger.add(effort.Occurrence(item, "dependency", *p.place(rel, line), per[0] * w, per[1] * w, count), "")
    ledger.basis[item] += (
        f" + {per[0]:g}-{per[1]:g} h per distinct name used from {name} ({len(first)}; the k-th max(1/k, "
        f"{libraries.NAME_FLOOR:g}) of it: {'re-implement' if lib.mapping == 'none' else 'swap and check'} each)"
    )


def _imports(p: Project) -> tuple[dict[str, list[tuple[str, int, bool]]], dict[str, list[tuple[str, int, bool]]]]:
    """(rel, line, optional) of each import, by root: of the libraries the scan knows, and of the ones it does
    not (neither the standard library, the project's own modules, torch, MindSpore, nor a framework-free
    library). Optional: lazy (inside a function), behind a guard, in a module only reached through one, or a
    library only an extra asks for."""
    own = _own_names(p)
    known: dict[str, list[tuple[str, int, bool]]] = defaultdict(list)
    unknown: dict[str, list[tuple[str, int, bool]]] = defaultdict(list)
    for rel, m in p.scans.items():
        for module, line, lazy in m.imports:
            root = root_of(module)
            lazy = lazy or bool(m.reach.guard_at(line)) or rel in p.optional or root in p.extras_only
            if root in libraries.LIBRARIES:
                known[root].append((rel, line, lazy))
            elif not (root in own or libraries.understood(root)):
                unknown[root].append((rel, line, lazy))
    return known, unknown


def _own_names(p: Project) -> set[str]:
    """Every folder and module name in the project (a script imports its siblings by bare name), and the
    modules its build scripts compile."""
    names = set(p.local)
    for src in [*p.found.python, *p.found.native]:
        parts = src.rel.split("/")
        names.update(parts[:-1])
        names.add(parts[-1].rsplit(".", 1)[0])
    names.update(name.split(".")[0] for name in built_extensions(p))
    return names


def _stack_files(p: Project, stack: libraries.Stack) -> list[tuple[str, int]]:
    """(file, line) of each included file built on the stack: it imports one of its roots outside a function,
    or takes one of its names (transformers.Trainer)."""
    out = []
    for rel in sorted(p.live):
        m = p.scans[rel]
        lines = [line for mod, line, lazy in m.imports if root_of(mod) in stack.roots and not lazy]
        named = stack.names and any(q.startswith(stack.names) for qs in m.library_names.values() for q in qs)
        if lines or named:
            out.append((rel, min(lines) if lines else 1))
    return out


def price_stacks(p: Project, ledger: effort.Ledger, known) -> dict[str, str]:
    """Each runtime the included code stands on, priced as the runtime a port replaces: once, plus each file
    built on it, plus each distinct piece taken from its libraries. Returns {stack: its item}."""
    priced = {}
    for name, stack in libraries.STACKS.items():
        on = _stack_files(p, stack)
        if not on:
            continue
        item = f"stack {name}"
        rel, line = on[0]
        lo, hi = stack.runtime
        basis = (
            f"{lo:g}-{hi:g} h once (replacing the runtime: {stack.basis}) + {stack.per_file[0]:g}-{stack.per_file[1]:g} h "
            f"per included file built on it ({len(on)}); MindSpore side: {stack.counterpart}; on the torch_npu route "
            "the stack is kept as it is"
        )
        ledger.add(effort.Occurrence(item, "dependency", *p.place(rel, line), lo, hi, count=0), basis)
        for r, ln in on:
            ledger.add(effort.Occurrence(item, "dependency", *p.place(r, ln), *stack.per_file), basis)
        for root in sorted(set(stack.roots) & set(known)):
            live = [(r, ln) for r, ln, lazy in known[root] if not lazy and not p.infos[r].excluded]
            _library_names(p, ledger, item, root, libraries.LIBRARIES[root], live, count=0)  # the item counts files
        priced[name] = item
    return priced


def price_dependencies(p: Project, ledger: effort.Ledger) -> tuple[list[Dependency], list[UnknownLibrary]]:
    """Third-party libraries the code imports that the scan knows, priced once each (lazy-only imports are
    listed as optional and not priced; a stack's libraries are priced in the stack); and the ones it does
    not know, listed by name (not understood: never silently free)."""
    known, unknown = _imports(p)
    stacks = price_stacks(p, ledger, known)
    out = []
    for name in sorted(known):
        lib = libraries.LIBRARIES[name]
        at = known[name]
        optional = all(lazy for _, _, lazy in at)
        live = [(rel, line) for rel, line, lazy in at if not lazy and not p.infos[rel].excluded]
        excluded = all(p.infos[rel].excluded for rel, _, _ in at)
        first_rel, first_line, _ = min(at)
        hours, basis = (
            (0.0, 0.0),
            "not priced: " + ("only imported lazily (optional path)" if optional else "only in excluded files"),
        )
        if live and lib.stack in stacks:
            basis = f"priced in the {lib.stack} stack (item '{stacks[lib.stack]}')"
        elif live and lib.effort[1] > 0:
            item = f"library {name}"
            rel, line = min(live)
            basis = f"{lib.effort[0]:g}-{lib.effort[1]:g} h per library ({libraries.LIBRARY_SOURCE})"
            calls = {r: p.scans[r].library_calls.get(name, 0) for r, _ in live}
            if lib.per_use[1] > 0:
                basis += f" + {lib.per_use[0]:g}-{lib.per_use[1]:g} h per call ({sum(calls.values())} calls)"
            ledger.add(effort.Occurrence(item, "dependency", *p.place(rel, line), lib.effort[0], lib.effort[1]), basis)
            for r in sorted(calls):
                n = calls[r]
                if n and lib.per_use[1] > 0:
                    ledger.add(
                        effort.Occurrence(
                            item, "dependency", *p.place(r, 1), lib.per_use[0] * n, lib.per_use[1] * n, count=0
                        ),
                        basis,
                    )
            _library_names(p, ledger, item, name, lib, live)
            hours, basis = ledger.item_hours(item), ledger.basis[item]
        out.append(
            Dependency(
                name=name,
                files=len({rel for rel, _, _ in at}),
                uses=len(at),
                first=Location(file=first_rel, **p.where(first_rel, first_line)),
                mindspore=lib.mindspore,
                mapping=lib.mapping,
                note=lib.note,
                optional=optional,
                excluded=excluded and not optional,
                effort_hours=hours,
                effort_basis=basis,
            )
        )
    return out, _unknown(p, unknown)


def _unknown(p: Project, unknown) -> list[UnknownLibrary]:
    out = []
    for name in sorted(unknown):
        at = unknown[name]
        first_rel, first_line, _ = min(at)
        optional = all(lazy for _, _, lazy in at)
        out.append(
            UnknownLibrary(
                name=name,
                files=len({rel for rel, _, _ in at}),
                uses=len(at),
                first=Location(file=first_rel, **p.where(first_rel, first_line)),
                optional=optional,
                excluded=all(p.infos[rel].excluded for rel, _, _ in at) and not optional,
            )
        )
    return out


def price_live(p: Project, ledger: effort.Ledger, found) -> None:
    """Each mapping the code relies on that the live verification (advisor kb verify) found differing or
    failing: its workaround and check, once per MindSpore API (live.LIVE_HOURS by what was found), at the
    first place that relies on it."""
    from advisor.scan.live import LIVE_HOURS

    if not found:
        return
    places = []
    for f in found:
        for api in f.apis:
            for loc in api.locations[:1]:
                places.append((f.mindspore, *p.place(loc.file, p.raw_line(loc))))
        for h in f.hazards:
            rel, role, excluded = p.place(h.file, h.line)
            places.append((f.mindspore, rel, role, excluded or h.optional))
    basis = (
        f"per MindSpore API the code relies on that the live verification did not pass ({found[0].where}): "
        + ", ".join(f"{status} {lo:g}-{hi:g} h" for status, (lo, hi) in LIVE_HOURS.items())
        + " (differs: a parity check of that component and its adjustment; failing: a replacement or workaround "
        "and its check; assumption, from `advisor kb verify`)"
    )
    bases = {f.mindspore: LIVE_HOURS[f.status] for f in found}
    ledger.features("live-checked mappings", "api", (0.0, 0.0), places, basis, bases=bases)
