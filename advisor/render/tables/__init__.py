"""The terminal text of check, scan and the probes: one Renderer per kind (advisor/render/interface.py).

Each module holds one kind's table and nothing else; the commands pick them by (kind, format) with
`advisor.render.renderer`."""

from __future__ import annotations

import shutil

WIDTH = 100  # when not on a terminal (a pipe, -o FILE)


def terminal_width() -> int:
    """The terminal's width (WIDTH when not a terminal), within 60-160."""
    return max(60, min(shutil.get_terminal_size((WIDTH, 24)).columns, 160))


def rate_text(value: float) -> str:
    """One number format for a throughput wherever it is shown (the progress lines, the tables, the TUI):
    thousands separated and whole from 1,000 up (2,216), one decimal below (47.3)."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.1f}"


def grid(rows, headers=(), **options) -> str:
    """tabulate, with every text cell and header printable (advisor.sanitize.for_terminal): text from a
    result file, the knowledge base or the scanned code never carries a terminal escape; a newline a
    table wraps on purpose stays, and tabulate keeps such a cell inside its row. The one way a terminal
    table is drawn."""
    from tabulate import tabulate

    from advisor.sanitize import for_terminal

    def clean(cell):
        return for_terminal(cell) if isinstance(cell, str) else cell

    if isinstance(headers, (list, tuple)):
        headers = [clean(h) for h in headers]
    return tabulate([[clean(c) for c in row] for row in rows], headers, **options)
