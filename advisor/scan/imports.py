"""Resolving names to fully qualified PyTorch APIs through a module's imports and aliases.

`import torch.nn as nn` binds nn -> torch.nn; `from torch.nn import functional as F` binds
F -> torch.nn.functional; `Conv = nn.Conv2d` binds Conv -> torch.nn.Conv2d. The table is per module
and ignores scopes (an import inside a function counts for the whole file): simple, and wrong only
for code that rebinds the same name to different things.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

# Roots whose names are counted as PyTorch APIs.
API_ROOTS = ("torch", "torchvision", "torchaudio", "torchtext")
# Third-party model hubs: noted as hazards, their own APIs are not PyTorch APIs.
HUB_ROOTS = ("transformers", "timm", "huggingface_hub", "diffusers")
# NVIDIA apex: its amp and parallel modules are hazards (see detect._name_hazard).
# Triton: its `@triton.jit` kernels are GPU code to rewrite for Ascend (detect.triton_kernel).
# mmcv, mmdet: a few of their functions are hazards in themselves (detect.THIRD_PARTY_HAZARDS: NMS).
# bitsandbytes, peft, torchao, lightning: their quantised-training names (detect.QUANTIZED).
TRACKED_ROOTS = (
    API_ROOTS + HUB_ROOTS + ("apex", "triton", "mmcv", "mmdet", "bitsandbytes", "peft", "torchao", "lightning")
)


_LAST: tuple[ast.AST | None, list[ast.AST]] = (None, [])


def all_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of a module, walked once: the readers of one module each go over all of it, and walking a
    large ast a dozen times was most of a scan's time."""
    global _LAST
    if _LAST[0] is not tree:
        _LAST = (tree, list(ast.walk(tree)))
    return _LAST[1]


def root_of(qualified: str) -> str:
    return qualified.split(".", 1)[0]


def is_api(qualified: str) -> bool:
    return root_of(qualified) in API_ROOTS


@dataclass
class Binding:
    qualified: str
    line: int
    is_module: bool  # bound by `import x` (a module object, not an API on its own)


@dataclass
class ImportTable:
    names: dict[str, Binding] = field(default_factory=dict)
    star_modules: list[str] = field(default_factory=list)  # `from torch.nn import *`
    imports: list[tuple[str, int]] = field(default_factory=list)  # (module, line) of tracked imports
    # (module, line, lazy) of every absolute import; lazy = inside a function (an optional code path)
    all_imports: list[tuple[str, int, bool]] = field(default_factory=list)
    lazy_lines: set[int] = field(default_factory=set)

    def resolve(self, node: ast.AST) -> str | None:
        """Fully qualified name of a Name/Attribute chain rooted at a tracked import, else None."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        binding = self.names.get(node.id)
        if binding is None:
            return None
        return ".".join([binding.qualified, *reversed(parts)])

    def is_bare_module(self, node: ast.AST) -> bool:
        """`nn` or `torch` alone: a module object, not an API use."""
        return isinstance(node, ast.Name) and node.id in self.names and self.names[node.id].is_module


def _lazy_imports(tree: ast.Module) -> set[int]:
    """ids of import nodes inside a function body: run only when that function is called."""
    lazy: set[int] = set()
    for node in all_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    lazy.add(id(inner))
    return lazy


def build(tree: ast.Module, local: frozenset[str] | set[str] = frozenset()) -> ImportTable:
    """The module's bindings. Roots in `local` are the project's own packages: never third-party."""
    table = ImportTable()
    lazy = _lazy_imports(tree)
    for node in all_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module] if node.module and not node.level else [])
            )
            for name in names:
                table.all_imports.append((name, node.lineno, id(node) in lazy))
            if id(node) in lazy:
                table.lazy_lines.add(node.lineno)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if root_of(alias.name) not in TRACKED_ROOTS or root_of(alias.name) in local:
                    continue
                table.imports.append((alias.name, node.lineno))
                if alias.asname:
                    table.names[alias.asname] = Binding(alias.name, node.lineno, True)
                else:  # `import torch.nn` binds `torch`
                    top = root_of(alias.name)
                    table.names[top] = Binding(top, node.lineno, True)
        elif isinstance(node, ast.ImportFrom):
            if (
                node.level
                or not node.module
                or root_of(node.module) not in TRACKED_ROOTS
                or root_of(node.module) in local
            ):
                continue
            table.imports.append((node.module, node.lineno))
            for alias in node.names:
                if alias.name == "*":
                    table.star_modules.append(node.module)
                    continue
                table.names[alias.asname or alias.name] = Binding(f"{node.module}.{alias.name}", node.lineno, False)
    _add_assigned_aliases(tree, table)
    return table


def _add_assigned_aliases(tree: ast.Module, table: ImportTable) -> None:
    """`Conv = nn.Conv2d` or `F = torch.nn.functional`: plain references (not calls) become aliases.
    Two passes so an alias of an alias resolves too."""
    for _ in range(2):
        for node in all_nodes(tree):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            target = node.targets[0]
            if not isinstance(target, ast.Name) or not isinstance(node.value, (ast.Name, ast.Attribute)):
                continue
            qualified = table.resolve(node.value)
            if qualified and target.id not in table.names:
                table.names[target.id] = Binding(qualified, node.lineno, table.is_bare_module(node.value))


def resolve_star(name: str, table: ImportTable, known: set[str]) -> str | None:
    """A bare name that may come from `from torch.nn import *`: resolved only when the knowledge base
    knows `<module>.<name>` (we cannot list a module's names without importing it)."""
    for module in table.star_modules:
        candidate = f"{module}.{name}"
        if candidate in known:
            return candidate
    return None
