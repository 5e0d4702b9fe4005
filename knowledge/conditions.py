"""Condition strings that say when a pitfall applies, evaluated over the requirements.

Grammar (one condition per string; a pitfall's list means ALL must hold):
  `path`          the value at the dotted path is truthy (missing = false)
  `!path`         the value is falsy or missing
  `path=value`    equal (case-insensitive); for a list field: value is a member
  `path!=value`   not equal; for a list field: value is not a member
`value` may be several alternatives separated by `|` (any of them). A missing field counts as the
value `none`, so `needs.huggingface!=none` is false when the team did not say.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Optional

_PATH = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_COND = re.compile(rf"^\s*(?P<neg>!)?\s*(?P<path>{_PATH})\s*(?:(?P<op>!=|=)\s*(?P<value>[^=!]+?))?\s*$")


class Condition(NamedTuple):
    path: str
    op: str  # "truthy" | "falsy" | "=" | "!="
    values: tuple[str, ...]


def parse_condition(text: str) -> Condition:
    """Parse one condition string; ValueError names the bad text."""
    match = _COND.match(text or "")
    if not match or (match["neg"] and match["op"]):
        raise ValueError(f"bad condition {text!r}: expected 'path', '!path', 'path=value' or 'path!=value'")
    if not match["op"]:
        return Condition(match["path"], "falsy" if match["neg"] else "truthy", ())
    values = tuple(v.strip().lower() for v in match["value"].split("|") if v.strip())
    if not values:
        raise ValueError(f"bad condition {text!r}: empty value")
    return Condition(match["path"], match["op"], values)


def _as_dict(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    return obj


def resolve(path: str, data: Any) -> Any:
    """The value at a dotted path in nested dicts / models, or None when any part is missing."""
    node = _as_dict(data)
    for part in path.split("."):
        if isinstance(node, dict):
            node = node.get(part)
        elif node is not None and hasattr(node, part):
            node = getattr(node, part)
        else:
            return None
        node = _as_dict(node)
        if node is None:
            return None
    return node


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(getattr(value, "value", value)).strip().lower()


def _matches(actual: Any, values: tuple[str, ...]) -> bool:
    if isinstance(actual, (list, tuple, set)):
        return any(_text(item) in values for item in actual)
    return _text(actual) in values


def holds(condition: str, requirements: Any, *, parsed: Optional[Condition] = None) -> bool:
    """Evaluate one condition string over a requirements dict (or pydantic model)."""
    cond = parsed or parse_condition(condition)
    actual = resolve(cond.path, requirements)
    if cond.op == "truthy":
        return bool(actual) and _text(actual) not in ("none", "false", "no")
    if cond.op == "falsy":
        return not (bool(actual) and _text(actual) not in ("none", "false", "no"))
    if cond.op == "=":
        return _matches(actual, cond.values)
    return not _matches(actual, cond.values)


def all_hold(conditions: list[str], requirements: Any) -> bool:
    return all(holds(c, requirements) for c in conditions)


def observed(condition: str, requirements: Any) -> tuple[str, str]:
    """(path, the project's value) that a holding condition rests on, for a reader: for `path=a|b` on a
    list field, the members that matched ("deployment.targets", "ascend-server, edge-ascend"); otherwise
    the value itself ("none" when missing)."""
    cond = parse_condition(condition)
    actual = resolve(cond.path, requirements)
    if isinstance(actual, (list, tuple, set)):
        items = [_text(item) for item in actual]
        if cond.op == "=":
            items = [item for item in items if item in cond.values]
        return cond.path, ", ".join(items) or "none"
    return cond.path, _text(actual)
