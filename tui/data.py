"""Formatting the core's typed results for the screens (pure)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, TypeVar, Union

if TYPE_CHECKING:
    from pydantic import BaseModel


T = TypeVar("T")
D = TypeVar("D")


def given(value: Optional[T], default: D) -> Union[T, D]:
    """`value`, or `default` where it is None (unlike `or`, a recorded 0 or "" stays)."""
    return default if value is None else value


def fmt_num(value: object, digits: int = 1, unit: str = "") -> str:
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


def fmt_when(created: object) -> str:
    """'2026-11-30 12:00 UTC' from an ISO time stamp (the raw text if it is not one)."""
    if not created:
        return ""
    import datetime as _dt

    try:
        stamp = _dt.datetime.fromisoformat(str(created).replace("Z", "+00:00"))
    except ValueError:
        return str(created)
    if stamp.tzinfo is not None:
        stamp = stamp.astimezone(_dt.timezone.utc)
        return stamp.strftime("%Y-%m-%d %H:%M UTC")
    return stamp.strftime("%Y-%m-%d %H:%M")


def cached_runs_lines(kind: str, result: BaseModel) -> list[str]:
    """What a cached result brings, as advisor.cache.used_runs names it: one line
    per (date, host, command) with its run ids, so a reused measurement is never anonymous."""
    try:
        from advisor.cache import used_runs

        used = used_runs(**{kind: result})
    except Exception:  # noqa: BLE001 - a result in another shape: the title still says "cached"
        return []
    groups: dict[tuple, list[str]] = {}
    for run in used:
        groups.setdefault((run.date, run.host, run.command), []).append(run.id)
    from advisor.cache import NOT_RECORDED

    return [
        f"{len(ids)} cached run(s) measured {fmt_when(date) or 'at an unknown time'} on host {host or '?'} "
        + ("(command not recorded: cached before the cache kept one)" if command == NOT_RECORDED else f"by `{command}`")
        + f": {', '.join(ids)}"
        for (date, host, command), ids in groups.items()
    ]
