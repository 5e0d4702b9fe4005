"""The optional extras of framework-advisor (pyproject's [project.optional-dependencies]): which are
installed, and the one line a command says when the extra it needs is missing.

A missing optional dependency is a setup problem the user can fix, not an internal error:
`probe --accuracy` without scikit-learn says "needs the 'accuracy' extra: pip install
'framework-advisor[accuracy]'" and exits 2. `advisor check` lists what is present (present()).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Extra:
    name: str  # the extra's name in pyproject.toml
    modules: tuple[str, ...]  # the top-level modules it brings (import names)
    purpose: str


# Kept in step with pyproject.toml by tests/test_hardening_extras.py.
EXTRAS = (
    Extra("pytorch", ("torch",), "the PyTorch probes"),
    Extra("mindspore", ("mindspore",), "the MindSpore probes"),
    Extra("deploy", ("onnx", "onnxruntime", "onnxscript"), "advisor probe --deploy (ONNX export and serving)"),
    Extra("accuracy", ("sklearn",), "advisor probe --accuracy (scikit-learn's digits)"),
    Extra("completion", ("shtab",), "advisor completion bash|zsh with values and files"),
)
BY_MODULE = {module: extra for extra in EXTRAS for module in extra.modules}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken install, or a module whose __spec__ is None
        return False


def present() -> dict[str, bool]:
    """Extra name -> whether all its modules are importable here (found without importing them:
    importing torch or mindspore takes seconds)."""
    return {extra.name: all(_installed(m) for m in extra.modules) for extra in EXTRAS}


def install_hint(name: str) -> str:
    """The one install command of an extra (or extras, comma-joined), from the project's folder and within
    the tested set (an unpinned torch pulls a CUDA build of several GB)."""
    return f"pip install -c constraints.txt -e '.[{name}]'"


def explain_missing(exc: BaseException) -> Optional[str]:
    """The one line for an ImportError of a module an extra provides, else None (a real bug)."""
    if not isinstance(exc, ImportError):
        return None
    missing = (getattr(exc, "name", None) or "").split(".")[0]
    extra = BY_MODULE.get(missing)
    if extra is None:
        return None
    return f"{extra.purpose} needs the '{extra.name}' extra ({missing} is not installed): {install_hint(extra.name)}"


def require(name: str) -> None:
    """Raise the one UsageError line when extra `name` is not installed."""
    from advisor.errors import UsageError

    extra = next(e for e in EXTRAS if e.name == name)
    missing = [m for m in extra.modules if not _installed(m)]
    if missing:
        raise UsageError(
            f"{extra.purpose} needs the '{extra.name}' extra ({', '.join(missing)} not installed): {install_hint(name)}"
        )


def check_line() -> str:
    """What `advisor check` shows: e.g. 'extras: pytorch, accuracy installed; deploy, mindspore missing'."""
    state = present()
    have = [name for name, ok in state.items() if ok]
    lack = [name for name, ok in state.items() if not ok]
    parts = []
    if have:
        parts.append(f"{', '.join(have)} installed")
    if lack:
        parts.append(f"{', '.join(lack)} missing ({'; '.join(install_hint(n) for n in lack)})")
    return "extras: " + "; ".join(parts)
