"""The habits that keep the house in order, checked with the suite: ruff's rule set and the
import contracts (the core never imports the TUI, probes never import advisor, workers import
only their framework), both configured in pyproject.toml."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    exe = BIN / name
    if exe.is_file():
        return str(exe)
    found = shutil.which(name)
    if not found:
        pytest.skip(f"{name} is not installed (pip install -e '.[dev]')")
    return found


def test_ruff_check_passes():
    out = subprocess.run(
        [_tool("ruff"), "check", "--no-cache", "--output-format", "concise", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def test_ruff_format_is_kept():
    """The tree stays as `ruff format` writes it (run `ruff format .` after editing)."""
    out = subprocess.run(
        [_tool("ruff"), "format", "--check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def test_import_contracts_are_kept():
    out = subprocess.run([_tool("lint-imports"), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout


def test_the_contracts_can_fail(tmp_path):
    """A contract that catches nothing would pass forever: the same contracts, on a copy of the
    four packages' skeleton where probes imports advisor, must break."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    named = {
        m
        for c in contracts
        for m in c.get("source_modules", []) + c.get("forbidden_modules", []) + c.get("ancestors", [])
    }
    modules = {m for m in named if m.split(".")[0] in ("advisor", "knowledge", "probes", "tui")}
    modules |= {"advisor.commands.tui", "tui.app"}
    for module in sorted(modules):
        parts = module.split(".")
        for i in range(1, len(parts)):
            pkg = tmp_path.joinpath(*parts[:i])
            pkg.mkdir(exist_ok=True)
            (pkg / "__init__.py").touch()
        if len(parts) == 1:  # a root package
            tmp_path.joinpath(module).mkdir(exist_ok=True)
            tmp_path.joinpath(module, "__init__.py").touch()
        elif not tmp_path.joinpath(*parts).is_dir():
            tmp_path.joinpath(*parts[:-1], parts[-1] + ".py").touch()
    (tmp_path / "advisor" / "commands" / "tui.py").write_text("import tui.app\n")
    (tmp_path / "probes" / "bad.py").write_text("import advisor\n")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    out = subprocess.run(
        [_tool("lint-imports"), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert out.returncode != 0 and "probes.bad -> advisor" in out.stdout, out.stdout[-3000:] + out.stderr


def test_no_comment_or_docstring_cites_an_issue_number():
    """Comments say why in words a reader of the repository can follow: "issue 29 item 8" points to a
    tracker the reader does not have."""
    import re

    cited = re.compile(r"\b(?:issue|objection)s? [0-9]+\b", re.IGNORECASE)
    hits = []
    for package in ("advisor", "probes", "knowledge", "tui", "benchmarks", "tests"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if "fixtures" in path.parts or path.name == "test_lint.py":
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if cited.search(line):
                    hits.append(f"{path.relative_to(ROOT)}:{n}")
    assert not hits, f"issue numbers in the source: {hits}"
