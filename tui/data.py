"""Reading the core's results, which arrive as pydantic models or as plain mappings (pure)."""

from __future__ import annotations

from typing import Any


def get(obj: Any, *path: str, default: Any = None) -> Any:
    """Read a nested field from a model or a mapping; missing anywhere -> default."""
    for name in path:
        if obj is None:
            return default
        obj = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    return default if obj is None else obj


def fmt_num(value: Any, digits: int = 1, unit: str = "") -> str:
    if value is None:
        return "-"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if abs(number) >= 1000:
        text = f"{number:,.0f}"
    else:
        text = f"{number:.{digits}f}"
    return f"{text}{unit}"
