"""Every terminal table is drawn by one function (advisor.render.tables.grid), which strips terminal
escape sequences and control characters from each text cell and header: text from a result file, the
knowledge base or scanned code cannot retitle the terminal, clear it or write to the clipboard."""

from __future__ import annotations

import ast
from pathlib import Path

from advisor.render.tables import grid

ESCAPES = ("\x1b]0;owned\x07", "\x1b[2J", "\x1b]52;c;ZXZpbA==\x07", "\x9b31m")


def test_grid_strips_escapes_and_keeps_a_wrapped_cell_in_its_row():
    text = grid([[f"cpu{e}model" for e in ESCAPES] + ["two\nlines"]], headers=[f"h{ESCAPES[0]}", "b", "c", "d", "e"])
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
    assert "cpumodel" in text and "two" in text and "lines" in text


def test_numbers_stay_numbers():
    assert "2,216" not in grid([[2216.0]]) and "2216" in grid([[2216.0]])


def test_no_table_module_calls_tabulate_itself():
    tables = Path(__file__).parents[1] / "advisor" / "render" / "tables"
    for module in tables.glob("*.py"):
        if module.name == "__init__.py":
            continue
        tree = ast.parse(module.read_text(encoding="utf-8"))
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "tabulate"
            for alias in node.names
        }
        assert not imported, f"{module.name} draws a table without advisor.render.tables.grid"
