"""Python 3.9-3.12 truly supported (item 6): requires-python = ">=3.9" must be true.

vermin is not installed here, so two checks that can fail instead:
- ruff at --target-version py39: syntax newer than 3.9 (match, except*, parenthesised context
  managers) is an error, and FA102 flags a PEP 604 `X | Y` that 3.9 would evaluate;
- an AST scan for what ruff does not see: modules and names added after 3.9 (tomllib, datetime.UTC,
  typing.Self, itertools.pairwise, zip(strict=), dataclass(slots=, kw_only=)) and `X | Y` in a
  pydantic field (pydantic evaluates annotations at run time even under `from __future__`).
  A use under `if sys.version_info >= ...` is allowed (the tomli fallback in advisor/config.py)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["advisor", "knowledge", "probes", "tui"]
NEW_MODULES = {"tomllib": "3.11"}
NEW_NAMES = {
    ("datetime", "UTC"): "3.11",
    ("typing", "Self"): "3.11",
    ("typing", "TypeAlias"): "3.10",
    ("typing", "ParamSpec"): "3.10",
    ("typing", "TypeGuard"): "3.10",
    ("itertools", "pairwise"): "3.10",
    ("contextlib", "chdir"): "3.11",
}


def _ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if not found:
        pytest.skip("ruff is not installed (the dev extra)")
    return found


def test_no_syntax_newer_than_3_9():
    proc = subprocess.run(
        [_ruff(), "check", "--no-cache", "--target-version", "py39", "--select", "FA102", "--output-format", "concise"]
        + PACKAGES,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-1000:]


def _guarded(tree: ast.AST) -> set[int]:
    """ids of nodes inside `if sys.version_info ...:` blocks (either branch)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "version_info" in ast.unparse(node.test):
            for child in node.body + node.orelse:
                out.update(id(n) for n in ast.walk(child))
    return out


def scan(source: str) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    guarded = _guarded(tree)
    found: list[tuple[int, str]] = []
    models: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] in NEW_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] in NEW_MODULES:
                found.append((node.lineno, node.module))
            found += [
                (node.lineno, f"{node.module}.{a.name}") for a in node.names if (node.module, a.name) in NEW_NAMES
            ]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if (node.value.id, node.attr) in NEW_NAMES:
                found.append((node.lineno, f"{node.value.id}.{node.attr}"))
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            keys = {k.arg for k in node.keywords}
            if name == "zip" and "strict" in keys:
                found.append((node.lineno, "zip(strict=)"))
            if name == "dataclass" and keys & {"slots", "kw_only"}:
                found.append((node.lineno, "dataclass(slots=/kw_only=)"))
        elif isinstance(node, ast.ClassDef):
            bases = {getattr(b, "id", None) or getattr(b, "attr", None) for b in node.bases}
            if bases & ({"BaseModel"} | models):
                models.add(node.name)
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and any(
                        isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr) for n in ast.walk(item.annotation)
                    ):
                        found.append((item.lineno, "X | Y in a pydantic field"))
    return found


def test_the_scan_can_fail():
    bad = (
        "import tomllib\nfrom datetime import UTC\nzip([], [], strict=True)\n"
        "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int | None = None\n"
    )
    assert sorted(scan(bad)) == [
        (1, "tomllib"),
        (2, "datetime.UTC"),
        (3, "zip(strict=)"),
        (6, "X | Y in a pydantic field"),
    ]
    assert scan("import sys\nif sys.version_info >= (3, 11):\n    import tomllib\nelse:\n    import tomli\n") == []


def test_no_api_newer_than_3_9():
    problems = [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for line, what in scan(path.read_text(encoding="utf-8"))
    ]
    assert problems == []


def test_config_names_tomli_when_it_is_missing(monkeypatch, tmp_path):
    """On 3.9/3.10 without tomli: a config file is one line naming the package, not an ImportError."""
    from advisor import config
    from advisor.errors import UsageError

    cfg = tmp_path / "config.toml"
    cfg.write_text("[probe]\nbudget = 2\n")
    monkeypatch.setattr(config, "tomllib", None)
    with pytest.raises(UsageError, match=r"needs tomli: pip install 'tomli>=1.1'"):
        config.load(cfg)
    assert config.load(tmp_path / "absent.toml") == {}  # no file: no parser needed
