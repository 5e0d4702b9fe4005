"""Jupyter notebooks: the code cells joined into one module (imports in one cell serve the next),
IPython magics and shell escapes blanked so the rest parses. Line numbers stay countable: each
line of the joined text knows its cell and its line in that cell."""

from __future__ import annotations

import json


def to_source(data: bytes) -> tuple[bytes, list[tuple[int, int]]]:
    """(Python source, [(cell number from 1, line in cell from 1) per source line]).
    Raises ValueError when the file is not a notebook."""
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a notebook: {exc}") from exc
    except RecursionError as exc:  # JSON nested thousands deep: no notebook is
        raise ValueError("not a notebook: JSON nested too deep") from exc
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a notebook: no cells")
    lines: list[str] = []
    where: list[tuple[int, int]] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and not all(isinstance(part, str) for part in source):
            continue  # nbformat says a list of strings; anything else is not code we can read
        text = "".join(source) if isinstance(source, list) else str(source)
        cell_lines = text.splitlines()
        cell_magic = bool(cell_lines) and cell_lines[0].lstrip().startswith("%%")
        for i, line in enumerate(cell_lines, start=1):
            stripped = line.lstrip()
            if cell_magic or stripped.startswith(("%", "!")) or stripped.endswith("?") and not stripped.startswith("#"):
                # IPython syntax, not Python: `pass` at its indentation keeps an if/elif branch that held only
                # magics a block (a blank line would leave it empty and the cell would not parse)
                indent = line[: len(line) - len(stripped)]
                line = indent + "pass" if indent and not cell_magic else ""
            lines.append(line)
            where.append((number, i))
    return ("\n".join(lines) + "\n").encode("utf-8"), where
