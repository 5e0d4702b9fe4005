"""The code scan's estimate as migration parts: its roles, its excluded files and its custom kernels."""

from __future__ import annotations

from typing import Optional

from advisor.decision.criteria.common import range_text


def scan_kernels(scan: Optional[dict]) -> int:
    if not scan:
        return 0
    return sum(1 for h in scan.get("hazards") or [] if isinstance(h, dict) and h.get("kind") == "custom_extension")


def scan_role_parts(scan: Optional[dict]) -> list[tuple[str, float, float]]:
    """The scan's total, role by role ('port: model (code scan)', low, high), from its effort breakdown.
    Each role keeps its own low end; the scan's high end is low + the root-sum-square of the item ranges
    (not the sum of highs), so each role's range is scaled to add up to the scan's total. Excluded
    roles (tests, examples, tools) are left out, as in the scan's total. [] without a breakdown."""
    roles = [
        r
        for r in ((scan or {}).get("effort_breakdown") or {}).get("by_role") or []
        if not r.get("excluded") and (r.get("effort_hours") or [0, 0])[1] > 0
    ]
    if not roles:
        return []
    s_low, s_high = [float(x) for x in (scan.get("effort_hours") or [0, 0])[:2]]
    r_low = sum(float(r["effort_hours"][0]) for r in roles)
    width = sum(float(r["effort_hours"][1]) - float(r["effort_hours"][0]) for r in roles)
    # The roles' lows add to the scan's low (up to rounding): rescale lows too when they do not.
    low_scale = s_low / r_low if r_low > 0 else 0.0
    spread = (s_high - s_low) / width if width > 0 else 0.0
    out = []
    for r in roles:
        lo, hi = float(r["effort_hours"][0]), float(r["effort_hours"][1])
        a = lo * low_scale if r_low > 0 else s_low / len(roles)
        out.append(
            (f"port: {r.get('role') or r.get('name')} (code scan)", round(a, 2), round(a + (hi - lo) * spread, 2))
        )
    return out


def excluded_scan_text(scan: Optional[dict]) -> str:
    """'tests, examples excluded: 3 files, 2-5 h not counted' from the scan's breakdown ('' when none)."""
    b = (scan or {}).get("effort_breakdown") or {}
    ex = [r for r in b.get("by_role") or [] if r.get("excluded")]
    hours = b.get("excluded_hours") or [0, 0]
    if not ex and not b.get("excluded_files"):
        return ""
    names = ", ".join(str(r.get("role") or r.get("name")) for r in ex) or "excluded files"
    return (
        f"{names} excluded: {b.get('excluded_files', 0)} file(s), {range_text(hours[0], hours[1], 'h')} "
        "shown apart, not counted"
    )
