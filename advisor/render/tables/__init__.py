"""The terminal text of check, scan and the probes: one Renderer per kind (advisor/render/interface.py).

Each module holds one kind's table and nothing else; the commands pick them by (kind, format) with
`advisor.render.renderer`."""

from __future__ import annotations

import shutil

WIDTH = 100  # when not on a terminal (a pipe, -o FILE)


def terminal_width() -> int:
    """The terminal's width (WIDTH when not a terminal), within 60-160."""
    return max(60, min(shutil.get_terminal_size((WIDTH, 24)).columns, 160))
