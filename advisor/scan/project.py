"""The scanned project as the passes of `scan_path` fill it in: what was read (parsed modules, native
sources, what was skipped), where each file sits (role, excluded, model-class spans), and the places
found (API uses, raw hazards). Each pass here has one job; pricing is in advisor/scan/pricing.py.

Files are parsed with `ast` only: nothing under the scanned path is imported, compiled or run.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.errors import UsageError
from advisor.scan import detect, effort, features, files, frameworks, native, notebook, reach, roles
from advisor.scan.detect import ModuleScan, RawHazard
from advisor.scan.models import Location, Skipped

if TYPE_CHECKING:
    from advisor.scan.estimate import MappingIndex
    from knowledge.models import KnowledgeBase

# A project whose framework files are at least this share MindSpore is a MindSpore project (the rest are
# converters, comparisons, tests against PyTorch): nothing to migrate. Assumption.
MINDSPORE_SHARE = 0.8

# Loading pretrained weights (not resuming one's own checkpoint): they must be converted and checked.
PRETRAINED = re.compile(
    rb"load_state_dict_from_url|model_zoo|torch\.hub\.load|from_pretrained|hf_hub_download|snapshot_download|attempt_load|"
    rb"resume_or_load|detectron2://|pretrained\s*=\s*True"
)
# A URL of a checkpoint file: URLs are read whole (no backtracking inside one), then their ending checked;
# a pattern backtracking from each "http" of a long token is quadratic on it.
URL = re.compile(rb"https?://[^\s'\"]+")
CHECKPOINT_URL = re.compile(rb"\.(?:pt|pth|bin|safetensors)\b")

PY2_MARKERS = (
    "Missing parentheses in call to 'print'",
    "Missing parentheses in call to 'exec'",
    "multiple exception types must be parenthesized",
    "invalid hexadecimal literal",
    "leading zeros in decimal",
)
Place = tuple[str, str, bool]  # (file, role, excluded)


def loads_pretrained(data: bytes) -> bool:
    """Does the source load released weights (a hub, a model zoo, a checkpoint URL)?"""
    return bool(PRETRAINED.search(data)) or any(CHECKPOINT_URL.search(m.group()) for m in URL.finditer(data))


@dataclass
class Project:
    """What the passes know about the scanned tree."""

    given: Path
    kb: KnowledgeBase
    index: MappingIndex
    globs: list[str]  # excluded from the total: the defaults (unless turned off) and the user's
    user_globs: list[str]  # the user's --exclude patterns alone
    root: Path = Path(".")
    found: files.Collected = field(default_factory=files.Collected)
    local: frozenset[str] = frozenset()  # the project's own importable names
    skipped: list[Skipped] = field(default_factory=list)
    uses: dict[str, list[Location]] = field(default_factory=lambda: defaultdict(list))
    raw: list[RawHazard] = field(default_factory=list)
    scans: dict[str, ModuleScan] = field(default_factory=dict)
    infos: dict[str, effort.FileInfo] = field(default_factory=dict)
    cells_of: dict[str, list[tuple[int, int]] | None] = field(default_factory=dict)
    lines: int = 0
    parsed: int = 0
    unparsed: int = 0
    py2: int = 0
    bridges: frameworks.Bridges = field(default_factory=frameworks.Bridges)
    not_work: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # MindSpore already: why -> files
    pretrained: set[str] = field(default_factory=set)  # files that load pretrained weights
    modules: set[tuple[str, str]] = field(default_factory=set)  # (file, class) of nn.Module classes
    spans: dict[str, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))
    tutorials_only: bool = False
    python_framework: str = "pytorch"  # what the Python is written in, by its included files
    extension_sources: int = 0
    mindspore_kernels: int = 0
    optional: dict[str, str] = field(default_factory=dict)  # file -> why it is only reached through a guard
    optional_native: dict[str, str] = field(default_factory=dict)  # native source -> why its extension is optional
    opt_in: dict[str, str] = field(default_factory=dict)  # file -> why it is an opt-in extension
    extras_only: set[str] = field(default_factory=set)  # import names only an extra asks for

    @property
    def counted(self) -> list[effort.FileInfo]:
        """The included files (or every file, when all are excluded): what says what the code is written in."""
        return [i for i in self.infos.values() if not i.excluded] or list(self.infos.values())

    @property
    def mindspore_files(self) -> int:
        return sum(1 for i in self.infos.values() if i.mindspore)

    @property
    def torch_files(self) -> int:
        return sum(1 for i in self.counted if i.torch)

    @property
    def live(self) -> set[str]:
        """Files in the total (not excluded)."""
        return {rel for rel, info in self.infos.items() if not info.excluded}

    def place(self, rel: str, line: int) -> Place:
        """(file, role at that line, excluded) of a place."""
        info = self.infos.get(rel)
        if info is None:  # a native source: its role is the model's, unless it sits in tests/examples
            role = roles.role_of(rel, set(), True)
            return rel, role if role in ("tests", "examples", "tools") else "model", roles.excluded(rel, self.globs)
        return rel, _role_at(info, self.spans[rel], line), info.excluded

    def raw_line(self, loc: Location) -> int:
        """A notebook location's line in the joined source (module class spans are in those lines)."""
        cells = self.cells_of.get(loc.file)
        if not cells or loc.cell is None:
            return loc.line
        for i, (cell, in_cell) in enumerate(cells, start=1):
            if cell == loc.cell and in_cell == loc.line:
                return i
        return loc.line

    def where(self, rel: str, line: int) -> dict[str, int | None]:
        return where(line, self.cells_of.get(rel))


def where(line: int, cells: list[tuple[int, int]] | None) -> dict[str, int | None]:
    """line (and cell) to report: a notebook's joined-source line becomes (cell, line in cell)."""
    if cells is None or not 1 <= line <= len(cells):
        return {"line": line, "cell": None}
    cell, in_cell = cells[line - 1]
    return {"line": in_cell, "cell": cell}


def _role_at(info: effort.FileInfo, spans: list[tuple[int, int]], line: int) -> str:
    if info.role in ("tests", "examples", "tools"):
        return info.role
    return "model" if any(a <= line <= b for a, b in spans) else info.role


def _parse(data: bytes, rel: str) -> tuple[ast.Module | None, str | None]:
    try:
        return ast.parse(data, filename=rel), None
    except SyntaxError as exc:
        where_ = f" (line {exc.lineno})" if exc.lineno else ""
        return None, f"does not parse: {exc.msg}{where_}"
    except (ValueError, UnicodeDecodeError) as exc:  # NUL bytes, bad encoding cookie
        return None, f"does not parse: {exc}"
    except (RecursionError, MemoryError):
        return None, "does not parse: too deeply nested"


def _cell_error(error: str, cells: list[tuple[int, int]]) -> str:
    """'does not parse: ... (line 12)' of the joined source -> '... (cell 3, line 2)'."""
    m = re.search(r"\(line (\d+)\)$", error)
    if not m:
        return error
    at = where(int(m.group(1)), cells)
    if at["cell"] is None:
        return error
    return error[: m.start()] + f"(cell {at['cell']}, line {at['line']})"


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


# --- the passes ------------------------------------------------------------------------------------


def collect(p: Project) -> None:
    """Walk the tree: the sources to read, what was skipped and why, the project's own names."""
    p.root, p.found = files.collect(p.given)
    p.local = _local_roots([s.rel for s in p.found.python], p.root) if p.given.is_dir() else frozenset()
    p.skipped = list(p.found.skipped)
    p.bridges = frameworks.find_bridges(p.found.python)


def read_python(p: Project) -> None:
    """Parse each Python file and notebook, decide what it is written for, and record its API uses,
    hazards and classes. MindSpore code (and code on the project's own bridge) is not ported."""
    known = p.index.names()
    for src in p.found.python:
        data, cells = src.data, None
        if src.rel.endswith(".ipynb"):
            try:
                data, cells = notebook.to_source(src.data)
            except ValueError as exc:
                p.skipped.append(Skipped(file=src.rel, reason=str(exc)))
                p.unparsed += 1
                continue
        tree, error = _parse(data, src.rel)
        if tree is None:
            if cells and error:
                error = _cell_error(error, cells)
            if error and any(m in error for m in PY2_MARKERS):
                p.py2 += 1
                error += " (Python 2 syntax)"
            p.skipped.append(Skipped(file=src.rel, reason=error or "does not parse"))
            p.unparsed += 1
            continue
        try:
            # MindSpore code (or the bridge) is not ported: its imports are all the framework check needs
            module = (
                ModuleScan(imports=[("mindspore", 1, False)])
                if p.bridges.holds(src.rel) or frameworks.MS_IMPORT.search(data)
                else detect.scan_module(tree, known, p.local)
            )
        except RecursionError:
            p.skipped.append(Skipped(file=src.rel, reason="too deeply nested to analyse"))
            p.unparsed += 1
            continue
        p.parsed += 1
        p.lines += data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        p.cells_of[src.rel] = cells
        _record(p, src.rel, data, cells, module)


def _record(p: Project, rel: str, data: bytes, cells, module: ModuleScan) -> None:
    roots = {m.split(".", 1)[0] for m, _, _ in module.imports}
    fw = frameworks.file_framework(roots, rel, p.bridges)
    if fw == "none" and module.uses:
        fw = "pytorch"
    p.infos[rel] = effort.FileInfo(
        rel=rel,
        lines=_code_lines(data),
        role="other",
        excluded=roles.excluded(rel, p.globs),
        torch=fw == "pytorch",
        mindspore=fw == "mindspore",
    )
    if fw == "mindspore":  # MindSpore code (or code on the project's own bridge): nothing to port
        p.infos[rel].role = "mindspore"
        p.scans[rel] = ModuleScan()
        why = (
            "PyTorch-compatibility bridge on MindSpore"
            if p.bridges.holds(rel)
            else "runs on the project's torch bridge (import hook in " + p.bridges.hook + ")"
            if "mindspore" not in roots
            else "MindSpore code"
        )
        p.not_work[why] += 1
        return
    p.scans[rel] = module
    if loads_pretrained(data):
        p.pretrained.add(rel)
    for name, at in module.uses.items():
        p.uses[name].extend(Location(file=rel, **where(n, cells)) for n in at)
    seen = set()
    for h in module.hazards:
        key = (h.kind, h.line, h.message)
        if key not in seen:  # one report per kind, line and finding
            seen.add(key)
            h.file = rel
            h.optional = h.kind == "model_hub" and h.line in module.lazy_lines
            h.raw_line = h.line
            h.line, h.cell = where(h.line, cells).values()
            p.raw.append(h)


def check_readable(p: Project, path: object) -> None:
    """Nothing readable is bad input, not a zero-hour estimate: one named file that does not parse, or a
    tree none of whose Python parses as Python 3 (said why: e.g. Python 2 sources)."""
    if p.given.is_file() and not p.parsed and not p.found.native and p.skipped:
        raise UsageError(f"{path}: {p.skipped[0].reason} (scan expects a folder of Python code or a .py file)")
    if not p.parsed and p.unparsed and not p.found.native:
        why = (
            f"{p.py2} look like Python 2; convert them with 2to3 first"
            if p.py2
            else f"first: {p.skipped[0].file}: {p.skipped[0].reason}"
        )
        raise UsageError(f"{path}: none of the {p.unparsed} Python file(s) parse as Python 3 ({why}); nothing to scan")


def module_classes(scans: dict[str, ModuleScan]) -> set[tuple[str, str]]:
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


def place_files(p: Project) -> None:
    """Where each file sits, and which lines belong to nn.Module classes (model code wherever it lives)."""
    p.modules = module_classes(p.scans)
    for rel, m in p.scans.items():
        for c in m.classes:
            if (rel, c.name) in p.modules:
                p.spans[rel].append((c.line, c.end))
    for rel, info in p.infos.items():
        if info.mindspore:
            continue
        info.role = roles.role_of(rel, p.scans[rel].signals, bool(p.spans[rel]))
        info.model_lines = min(info.lines, sum(b - a + 1 for a, b in p.spans[rel]))
    # A training entry point is part of the port wherever it lives (tools/train_net.py, scripts/train.py),
    # unless the user excluded it by name.
    for rel, info in p.infos.items():
        if info.role == "tools" and "training" in p.scans[rel].signals and not roles.excluded(rel, p.user_globs):
            info.role, info.excluded = "training", False
    # A project that is nothing but tutorials or notebooks: they are the work, priced and labelled as such.
    p.tutorials_only = not any(i.torch and not i.excluded for i in p.infos.values()) and any(
        i.torch and i.role == "examples" for i in p.infos.values()
    )
    if p.tutorials_only:
        for info in p.infos.values():
            if info.role == "examples":
                info.excluded = False
        p.globs = [g for g in p.globs if g not in roles.TUTORIAL_EXCLUDES]
    ms_files, share = p.mindspore_files, MINDSPORE_SHARE * (p.mindspore_files + p.torch_files)
    p.python_framework = "mindspore" if ms_files and ms_files >= share else "pytorch"


# The module a build script names for its compiled extension: CUDAExtension("sam2._C", srcs).
EXTENSION_MODULE = re.compile(rb"(?:CUDAExtension|CppExtension|Extension|load)\(\s*(?:name\s*=\s*)?[\"']([\w.]+)[\"']")


def built_extensions(p: Project) -> dict[str, set[str]]:
    """Compiled extension module -> the stems of the native sources its build script names."""
    out: dict[str, set[str]] = {}
    for src in p.found.python:
        if b"Extension" not in src.data and b"load(" not in src.data:
            continue
        names = {m.group(1).decode() for m in EXTENSION_MODULE.finditer(src.data)}
        stems = set(native.native_stems(src.data))
        for name in names:
            out.setdefault(name, set()).update(stems)
    return out


def find_optional(p: Project) -> None:
    """What is only reached through a guard, an opt-in extension or an extra (advisor/scan/reach.py)."""
    # what the port carries decides: tests and examples import anything directly
    facts = {rel: m.reach for rel, m in p.scans.items() if not p.infos[rel].mindspore and not p.infos[rel].excluded}
    entries = {rel for rel, m in p.scans.items() if m.entry}
    built = built_extensions(p)
    found = reach.optional_modules(facts, entries, {name: "ext:" + name for name in built})
    p.optional = {k: why for k, why in found.items() if not k.startswith("ext:")}
    for name, stems in built.items():
        why = found.get("ext:" + name)
        if why:
            for src in p.found.native:
                if src.rel.rsplit("/", 1)[-1].rsplit(".", 1)[0] in stems:
                    p.optional_native[src.rel] = f"its extension {name} is only imported {why.split(': ', 1)[0]}"
    p.opt_in = reach.opt_in_files(sorted(facts), facts)
    for rel in p.opt_in:
        p.infos[rel].excluded = True
    for folder in sorted({rel.split("/")[0] for rel in p.opt_in}):
        p.globs.append(f"{folder}/**")
    manifests = {s.rel: s.data for s in p.found.python if s.rel == "setup.py"} | p.found.manifests
    p.extras_only = reach.extras(manifests)[1]


def read_native(p: Project) -> None:
    """C++/CUDA sources: which framework each is written for, the kernels of the PyTorch ones, and the
    operators their bindings register (what the engineer counts: each ported once, its forward, and its
    backward when it has one; the sources and build lines are the glue of those ops)."""
    loaded = native.loaders(p.found.python)
    torch_native = []
    for src in p.found.native:
        fw = native.framework_of(src, loaded, p.python_framework)
        if fw == "mindspore":
            p.mindspore_kernels += 1
            p.not_work["MindSpore custom-op kernel source"] += 1
            continue
        torch_native += [src] if fw == "pytorch" else []
        findings = native.extension_findings(src) if fw == "pytorch" else []
        p.extension_sources += bool(findings)
        for line, message in findings:
            h = RawHazard("custom_extension", line, message, False, None, src.rel)
            h.raw_line = line
            p.raw.append(h)
    for op in native.registered_ops(torch_native, native.framework_free(p.found.native)):
        if op.framework_free:
            p.not_work[f"framework-free C++ ({op.name} in {op.framework_free}: host code, its binding rebuilt)"] += 1
            continue
        for part in ("forward", "backward") if op.backward else ("forward",):
            h = RawHazard("custom_extension", op.line, _op_message(op, part), False, None, op.file)
            h.api, h.raw_line = f"{features.REGISTERED}{op.name} {part}", op.line
            p.raw.append(h)


def _op_message(op: native.RegisteredOp, part: str) -> str:
    both = " (forward + backward)" if op.backward else ""
    return (
        f"custom operator `{op.name}`{both}, {part} kernel (registered as {', '.join(op.entries)}): port it to a "
        "MindSpore custom op (ops.Custom func_type='aot' built from its CUDA source on GPU, an Ascend C kernel on "
        "Ascend" + (", with its bprop" if op.backward else "") + ") and compare it with the CUDA version"
    )
