"""The text of `advisor compare` (two report JSON files, the changes between them)."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from advisor.numbers import sig
from advisor.render.interface import Renderer
from advisor.sanitize import one_line


def _fmt(value: Any) -> str:
    """A value of either report, on one line (a string from a report file may hold a newline)."""
    if isinstance(value, float):
        return sig(value, 4)
    if value is None:
        return "-"
    return one_line(json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value)


# The groups a reader reads the changes in: the verdict, then the scores, then what they rest on, then
# everything else (projections, costs, the document, ...); `advisor compare --json` names each change's.
GROUPS = ("verdict", "scores", "evidence", "other")
_GROUP_OF = {
    "recommendation": "verdict",
    "mandate_readings": "verdict",
    "mandate_flip": "verdict",
    "scores": "scores",
    "weights": "scores",
    "sensitivity": "scores",
    "constant_sensitivity": "scores",
    "knowledge_base": "evidence",
    "requirements": "evidence",
    "probes": "evidence",
    "scaling": "evidence",
    "accuracy": "evidence",
    "pipeline": "evidence",
    "transformer": "evidence",
    "scan": "evidence",
    "results": "evidence",
    "comparison_basis": "evidence",
}


def group_of(path: str) -> str:
    """The group of a change by its path's top-level section."""
    return _GROUP_OF.get(path.split(".")[0].split("[")[0], "other")


GROUP_TITLES = {
    "verdict": "verdict",
    "scores": "scores and weights",
    "evidence": "evidence (requirements, measurements, knowledge base)",
    "other": "the rest (projections, costs, schedules, the document)",
}
OTHER_SHOWN = 20  # the rest is summarised by section beyond this many lines


_RECORD = re.compile(r"^(.*\[[^]]+\])\.[^[\]]+$")


def _records(changes: list[dict]) -> list[dict]:
    """A record added or removed whole (a probe run, a pitfall) as one line, not one per field."""
    whole: dict[str, list[dict]] = {}
    for c in changes:
        m = _RECORD.match(str(c["path"]))
        if m and c["change"] in ("added", "removed"):
            whole.setdefault(m.group(1), []).append(c)
    out, done = [], set()
    for c in changes:
        m = _RECORD.match(str(c["path"]))
        rec = m.group(1) if m else None
        if rec in whole and all(x["change"] == c["change"] for x in whole[rec]) and len(whole[rec]) > 1:
            if rec not in done:
                done.add(rec)
                out.append({"path": rec, "change": c["change"], "fields": len(whole[rec])})
            continue
        out.append(c)
    return out


def _line(c: dict) -> str:
    if "fields" in c:
        return f"{_fmt(c['path'])}: {c['change']} ({c['fields']} fields)"
    return f"{_fmt(c['path'])}: {_fmt(c['old'])} -> {_fmt(c['new'])}"


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
        return "\n".join(lines) + "\n"
    lines.append(f"{len(changes)} change{'s' if len(changes) != 1 else ''}:")
    for group in GROUP_TITLES:
        part = [c for c in changes if (c.get("group") or group_of(str(c["path"]))) == group]
        if not part:
            continue
        lines.append(f"{GROUP_TITLES[group]} ({len(part)}):")
        part = _records(part)
        shown = part if group != "other" else part[:OTHER_SHOWN]
        lines += [f"  {_line(c)}" for c in shown]
        if len(part) > len(shown):
            sections = Counter(str(c["path"]).split(".")[0].split("[")[0] for c in part[len(shown) :])
            lines.append(
                f"  ... and {len(part) - len(shown)} more ("
                + ", ".join(f"{name} {n}" for name, n in sections.most_common())
                + "; --json lists every change)"
            )
    return "\n".join(lines) + "\n"
