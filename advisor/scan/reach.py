"""Reachability: which code a port must carry and which is an optional path with a fallback. A kernel or a
library is optional when it is only reached through

- an availability guard (`if _TRITON_AVAILABLE:`, `if is_xformers_available():`),
- an import that may fail (`try: import triton ... except ImportError:`), or a function whose every call
  sits in one (whisper's dtw_cuda, sam2's get_connected_components),
- an opt-in extension (a top-level extensions/ or contrib/ folder nothing else in the project imports), or
- an extra (a library named only in setup.py extras_require / pyproject optional-dependencies).

Optional places are shown apart with the fallback they have, priced like excluded files, and raise
neither the risk nor the route. Read from the ast; nothing is imported.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field

from advisor.scan.imports import all_nodes

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomli where it is installed; without it a pyproject's extras are not read
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None

# A test that asks whether something can be used: a library, a kernel toolchain, a device.
AVAILABILITY = re.compile(r"triton|available|\bhas_|is_cuda|importable|_import_ok|\bHAS_", re.I)
# Handlers that make a failing import or kernel launch a fallback (not KeyboardInterrupt, not a value error).
FALLBACK_ERRORS = {
    "ImportError",
    "ModuleNotFoundError",
    "Exception",
    "BaseException",
    "RuntimeError",
    "OSError",
    "CalledProcessError",
}
OPT_IN_DIRS = ("extensions", "contrib")
MAX_TEST = 60


@dataclass
class ModuleReach:
    """What one module says about reachability (detect.scan_module fills it)."""

    guards: list[tuple[int, int, str]] = field(default_factory=list)  # (first, last line, why) of guarded blocks
    local_imports: list[tuple[str, int, str, bool]] = field(default_factory=list)  # (module, line, function, relative)
    calls: dict[str, list[int]] = field(default_factory=dict)  # function name -> [calls, calls inside a guard]

    def guard_at(self, line: int) -> str:
        """Why the line is on a guarded path ('' when it is not)."""
        for first, last, why in self.guards:
            if first <= line <= last:
                return why
        return ""


def _handles_failure(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = {
        n.id if isinstance(n, ast.Name) else n.attr
        for n in ast.walk(handler.type)
        if isinstance(n, (ast.Name, ast.Attribute))
    }
    return bool(names & FALLBACK_ERRORS)


def _last_line(body: list[ast.stmt]) -> int:
    return max(getattr(s, "end_lineno", None) or s.lineno for s in body)


def module_reach(tree: ast.Module) -> ModuleReach:
    out = ModuleReach()
    functions: list[tuple[int, int, str]] = []
    for node in all_nodes(tree):
        if isinstance(node, ast.Try) and node.body and any(_handles_failure(h) for h in node.handlers):
            out.guards.append(
                (node.body[0].lineno, _last_line(node.body), "inside a try/except: the code runs on without it")
            )
        elif isinstance(node, ast.If) and node.body:
            test = " ".join(ast.unparse(node.test).split())
            if AVAILABILITY.search(test):
                shown = test if len(test) <= MAX_TEST else test[: MAX_TEST - 3] + "..."
                out.guards.append(
                    (
                        node.body[0].lineno,
                        _last_line(node.body),
                        f"behind `if {shown}`: taken only when it is available",
                    )
                )
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append((node.lineno, getattr(node, "end_lineno", None) or node.lineno, node.name))
    functions.sort()
    for node in all_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            func = _innermost(functions, node.lineno)
            if isinstance(node, ast.Import):
                for a in node.names:
                    out.local_imports.append((a.name, node.lineno, func, False))
            else:
                base = "." * node.level + (node.module or "")
                out.local_imports.append((base, node.lineno, func, bool(node.level)))
                for a in node.names:
                    if a.name != "*":
                        out.local_imports.append(
                            (f"{base}.{a.name}" if node.module else base + a.name, node.lineno, func, bool(node.level))
                        )
        elif isinstance(node, ast.Call):
            name = (
                node.func.id
                if isinstance(node.func, ast.Name)
                else node.func.attr
                if isinstance(node.func, ast.Attribute)
                else ""
            )
            if name and _innermost(functions, node.lineno) != name:  # not itself, nor a same-named call inside it
                counts = out.calls.setdefault(name, [0, 0])
                counts[0] += 1
                counts[1] += bool(out.guard_at(node.lineno))
    return out


def _innermost(functions: list[tuple[int, int, str]], line: int) -> str:
    name = ""
    for first, last, fn in functions:
        if first < line <= last:
            name = fn  # sorted by first line: the last match is the innermost
    return name


def module_name(rel: str) -> str:
    """'pkg/sub/mod.py' -> 'pkg.sub.mod'; a package's __init__ is the package; src/ is not part of it."""
    parts = rel.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts)


def resolve(module: str, relative: bool, rel: str) -> str:
    """An import's absolute module name: `from .triton_ops import x` in whisper/timing.py -> whisper.triton_ops."""
    if not relative:
        return module
    dots = len(module) - len(module.lstrip("."))
    package = module_name(rel).split(".")
    if not rel.endswith("__init__.py"):
        package = package[:-1]
    base = package[: len(package) - (dots - 1)] if dots > 1 else package
    rest = module[dots:]
    return ".".join([*base, rest] if rest else base)


def optional_modules(
    reach: dict[str, ModuleReach], entries: set[str], extensions: dict[str, str] | None = None
) -> dict[str, str]:
    """key -> why, for the project's modules (by file) and compiled extensions (`extensions`: dotted name ->
    key) that are only reached through guarded imports (a try/except, an availability test, or a function
    whose every call is guarded). Programs (`__main__`, a top-level loop) and modules nobody imports are not
    optional: something runs them."""
    by_name = {module_name(rel): rel for rel in reach}
    by_name.update(extensions or {})
    for rel in reach:  # a module also answers to its name inside its top-level package (sys.path at the repo root)
        by_name.setdefault(module_name(rel).split(".", 1)[-1], rel)
    calls: dict[str, list[int]] = {}
    for r in reach.values():
        for name, (n, guarded) in r.calls.items():
            c = calls.setdefault(name, [0, 0])
            c[0] += n
            c[1] += guarded
    sites: dict[str, list[str]] = {}  # target file -> why of each site ('' = unguarded)
    for rel, r in reach.items():
        for module, line, func, relative in r.local_imports:
            target = by_name.get(resolve(module, relative, rel))
            if target is None or target == rel:
                continue
            why = r.guard_at(line)
            if not why and func:
                n, guarded = calls.get(func, (0, 0))
                if n and guarded == n:
                    why = f"in {func}(), which is only called inside a guard"
            sites.setdefault(target, []).append(why)
    return {target: whys[0] for target, whys in sites.items() if target not in entries and whys and all(whys)}


def opt_in_files(rels: list[str], reach: dict[str, ModuleReach]) -> dict[str, str]:
    """file -> why, for the files of a top-level extensions/ or contrib/ folder that nothing outside it imports."""
    out: dict[str, str] = {}
    for folder in OPT_IN_DIRS:
        inside = [rel for rel in rels if rel.split("/")[0] == folder]
        if not inside:
            continue
        imported = any(
            resolve(module, relative, rel).split(".")[0] == folder
            for rel, r in reach.items()
            if rel.split("/")[0] != folder
            for module, _, _, relative in r.local_imports
        )
        if not imported:
            why = f"an opt-in extension: nothing outside {folder}/ imports it"
            out.update({rel: why for rel in inside})
    return out


# A requirement's distribution name at the start of a spec ("lightning-thunder>=0.2; extra" -> lightning-thunder).
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
# Distributions whose import name differs from their name.
IMPORT_NAMES = {
    "lightning-thunder": "thunder",
    "lm-eval": "lm_eval",
    "lm_eval": "lm_eval",
    "opencv-python": "cv2",
    "pillow": "PIL",
    "scikit-learn": "sklearn",
    "pyyaml": "yaml",
    "torch-xla": "torch_xla",
    "lion-pytorch": "lion_pytorch",
}


def import_name(distribution: str) -> str:
    d = distribution.lower()
    return IMPORT_NAMES.get(d, d.replace("-", "_"))


def extras(sources: dict[str, bytes]) -> tuple[set[str], set[str]]:
    """(import names required, import names only in extras) from setup.py's install_requires/extras_require
    literals and pyproject.toml's dependencies/optional-dependencies (Python 3.11+ reads TOML)."""
    required: set[str] = set()
    optional: set[str] = set()
    for rel, data in sources.items():
        if rel == "setup.py":
            req, opt = _setup_py(data)
        elif rel == "pyproject.toml":
            req, opt = _pyproject(data)
        else:
            continue
        required |= req
        optional |= opt
    return required, optional - required


def _names(values) -> set[str]:
    out = set()
    for v in values if isinstance(values, (list, tuple)) else []:
        if isinstance(v, str):
            m = REQUIREMENT.match(v)
            if m:
                out.add(import_name(m.group(1)))
    return out


def _setup_py(data: bytes) -> tuple[set[str], set[str]]:
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set(), set()
    required, optional = set(), set()
    for node in all_nodes(tree):
        if isinstance(node, ast.keyword) and node.arg in ("install_requires", "extras_require"):
            try:
                value = ast.literal_eval(node.value)
            except (ValueError, SyntaxError, TypeError, RecursionError):
                continue
            if node.arg == "install_requires":
                required |= _names(value)
            elif isinstance(value, dict):
                for group in value.values():
                    optional |= _names(group)
    return required, optional


def _pyproject(data: bytes) -> tuple[set[str], set[str]]:
    if tomllib is None:  # Python < 3.11 without tomli: the libraries stay required
        return set(), set()
    try:
        doc = tomllib.loads(data.decode("utf-8", errors="replace"))
    except (tomllib.TOMLDecodeError, RecursionError):
        return set(), set()
    project = doc.get("project", {}) if isinstance(doc, dict) else {}
    required = _names(project.get("dependencies", []))
    optional = set()
    groups = project.get("optional-dependencies", {})
    for group in groups.values() if isinstance(groups, dict) else []:
        optional |= _names(group)
    return required, optional


def imported_files(reach: dict[str, ModuleReach]) -> dict[str, set[str]]:
    """file -> the project's files it imports (relative imports resolved)."""
    by_name = {module_name(rel): rel for rel in reach}
    for rel in reach:
        by_name.setdefault(module_name(rel).split(".", 1)[-1], rel)
    out: dict[str, set[str]] = {}
    for rel, r in reach.items():
        targets = {by_name.get(resolve(module, relative, rel)) for module, _, _, relative in r.local_imports}
        out[rel] = {t for t in targets if t and t != rel}
    return out
