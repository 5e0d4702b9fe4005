"""The text of `advisor compare` (two report JSON files, the changes between them)."""

from __future__ import annotations

import json
from typing import Any

from advisor.render.interface import Renderer


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if value is None:
        return "-"
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


class CompareText(Renderer):
    """`advisor compare` without --json: what changed between two reports, one line each."""

    def __init__(self, **options: Any) -> None:  # no options: the lines are short
        pass

    def format(self, comparison: dict) -> str:
        return _text(**comparison)


def _text(old_path: str, new_path: str, old: dict, new: dict, changes: list[dict]) -> str:
    ro, rn = old["recommendation"], new["recommendation"]
    lines = [f"{old_path} ({old.get('created_at', '?')}) -> {new_path} ({new.get('created_at', '?')})"]
    if ro.get("workflow") != rn.get("workflow"):
        lines.append(
            f"recommendation CHANGED: {ro.get('workflow')} -> {rn.get('workflow')} "
            f"(confidence {ro.get('confidence')} -> {rn.get('confidence')})"
        )
    else:
        lines.append(
            f"recommendation unchanged: {rn.get('workflow')} (confidence {ro.get('confidence')} -> "
            f"{rn.get('confidence')}, margin {_fmt(ro.get('margin'))} -> {_fmt(rn.get('margin'))})"
        )
    if old.get("schema_version") != new.get("schema_version"):
        lines.append(f"schema version {old.get('schema_version')} -> {new.get('schema_version')}")
    if not changes:
        lines.append("no other changes")
    else:
        lines.append(f"{len(changes)} change{'s' if len(changes) != 1 else ''}:")
        for c in changes:
            lines.append(f"  {c['path']}: {_fmt(c['old'])} -> {_fmt(c['new'])}")
    return "\n".join(lines) + "\n"
