"""The text of `advisor compare` (two report JSON files, the changes between them)."""

from __future__ import annotations

import json
from typing import Any

from advisor.render.interface import Renderer
from advisor.sanitize import one_line


def _fmt(value: Any) -> str:
    """A value of either report, on one line (a string from a report file may hold a newline)."""
    if isinstance(value, float):
        return f"{value:.4g}"
    if value is None:
        return "-"
    return one_line(json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value)


class CompareText(Renderer):
    """`advisor compare` without --json: what changed between two reports, one line each."""

    def __init__(self, **options: Any) -> None:  # no options: the lines are short
        pass

    def format(self, comparison: dict) -> str:
        return _text(**comparison)


def _text(old_path: str, new_path: str, old: dict, new: dict, changes: list[dict]) -> str:
    ro, rn = old["recommendation"], new["recommendation"]
    lines = [
        f"{_fmt(old_path)} ({_fmt(old.get('created_at', '?'))}) -> {_fmt(new_path)} ({_fmt(new.get('created_at', '?'))})"
    ]
    if ro.get("workflow") != rn.get("workflow"):
        lines.append(
            f"recommendation CHANGED: {_fmt(ro.get('workflow'))} -> {_fmt(rn.get('workflow'))} "
            f"(confidence {_fmt(ro.get('confidence'))} -> {_fmt(rn.get('confidence'))})"
        )
    else:
        lines.append(
            f"recommendation unchanged: {_fmt(rn.get('workflow'))} (confidence {_fmt(ro.get('confidence'))} -> "
            f"{_fmt(rn.get('confidence'))}, margin {_fmt(ro.get('margin'))} -> {_fmt(rn.get('margin'))})"
        )
    if old.get("schema_version") != new.get("schema_version"):
        lines.append(f"schema version {_fmt(old.get('schema_version'))} -> {_fmt(new.get('schema_version'))}")
    if not changes:
        lines.append("no other changes")
    else:
        lines.append(f"{len(changes)} change{'s' if len(changes) != 1 else ''}:")
        for c in changes:
            lines.append(f"  {_fmt(c['path'])}: {_fmt(c['old'])} -> {_fmt(c['new'])}")
    return "\n".join(lines) + "\n"
