"""Which framework each file is written for, from its own evidence, and what is not migration work.

- A Python file that imports mindspore is MindSpore code, even when it also imports torch (a weight
  converter, a comparison test): it is not ported.
- A PyTorch-compatibility bridge shipped by the project (a package of MindSpore code offering the torch
  API: mindtorch, torch4ms, MSAdapter) is the product, not work. When the project also installs a
  torch import hook (`sys.meta_path` finder or `sys.modules["torch"] = ...`), its own `import torch`
  files run on the bridge: MindSpore code too.
- Vendored copies of other libraries (third_party/, vendor/...) are skipped by the file walk.

Read as bytes and regular expressions; nothing is imported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MS_IMPORT = re.compile(rb"^[ \t]*(?:import|from)[ \t]+mindspore\b", re.M)
TORCH_IMPORT = re.compile(rb"^[ \t]*(?:import|from)[ \t]+torch\b", re.M)
# A torch import hook: the project makes `import torch` load its bridge.
TORCH_HOOK = re.compile(rb"sys\.meta_path\.(?:insert|append)|sys\.modules\[\s*['\"]torch['\"]\s*\]\s*=")
BRIDGE_NAME = re.compile(r"torch|adapter", re.I)
# A package is a bridge when its name says torch/adapter (and is not torch itself) and no more of its
# files import torch than import mindspore (a bridge's own modules import each other relatively).


def package_key(rel: str) -> str:
    """The top-level package a file belongs to ('src/x' under src/), '' for files at the root."""
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return "src/" + parts[1]
    return parts[0] if len(parts) > 1 else ""


@dataclass
class Bridges:
    packages: dict[str, int] = field(default_factory=dict)  # package -> files
    hook: str = ""  # the file that installs a torch import hook, if any

    def holds(self, rel: str) -> bool:
        return package_key(rel) in self.packages


def find_bridges(python: list) -> Bridges:
    """PyTorch-compatibility bridges among the project's top-level packages (sources with .rel, .data)."""
    total: dict[str, int] = {}
    ms: dict[str, int] = {}
    torch: dict[str, int] = {}
    hook = ""
    for src in python:
        key = package_key(src.rel)
        total[key] = total.get(key, 0) + 1
        if TORCH_IMPORT.search(src.data):
            torch[key] = torch.get(key, 0) + 1
        if MS_IMPORT.search(src.data):
            ms[key] = ms.get(key, 0) + 1
        if not hook and b"torch" in src.data and TORCH_HOOK.search(src.data) and BRIDGE_NAME.search(key):
            hook = src.rel
    packages = {
        key: n
        for key, n in total.items()
        if key
        and key.rsplit("/", 1)[-1] != "torch"
        and BRIDGE_NAME.search(key.rsplit("/", 1)[-1])
        and ms.get(key, 0) >= torch.get(key, 0)
        and (ms.get(key, 0) or any(ms.values()))
    }
    if hook and package_key(hook) not in packages:
        hook = ""  # a hook outside any bridge is a test's mock, not the project's torch
    return Bridges(packages, hook)


def file_framework(roots: set[str], rel: str, bridges: Bridges) -> str:
    """'mindspore', 'pytorch' or 'none' for one parsed file (roots: the top-level names it imports)."""
    from advisor.scan.imports import API_ROOTS

    if "mindspore" in roots or bridges.holds(rel):
        return "mindspore"
    if roots & set(API_ROOTS):
        return "mindspore" if bridges.hook and "torch" in roots else "pytorch"
    return "none"
