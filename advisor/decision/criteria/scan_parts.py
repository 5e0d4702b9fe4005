"""The code scan's estimate as migration parts: its roles, its excluded files and its custom kernels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from advisor.decision.criteria.common import range_text

if TYPE_CHECKING:
    from advisor.scan.models import ScanResult


def scan_kernels(scan: Optional[ScanResult]) -> int:
    return (
        sum(1 for h in scan.hazards if h.kind == "custom_extension" and not h.excluded and not h.optional)
        if scan is not None
        else 0
    )


def scan_role_parts(scan: Optional[ScanResult]) -> list[tuple[str, float, float]]:
    """The scan's total, role by role ('port: model (code scan)', low, high), from its effort breakdown.
    Each role keeps its own low end; the scan's high end is low + the root-sum-square of the item ranges
    (not the sum of highs), so each role's range is scaled to add up to the scan's total. Excluded
    roles (tests, examples, tools) are left out, as in the scan's total. [] without a breakdown."""
    b = scan.effort_breakdown if scan is not None else None
    roles = [r for r in (b.by_role if b is not None else []) if not r.excluded and r.effort_hours[1] > 0]
    if scan is None or not roles:
        return []
    s_low, s_high = scan.effort_hours
    r_low = sum(r.effort_hours[0] for r in roles)
    width = sum(r.effort_hours[1] - r.effort_hours[0] for r in roles)
    # The roles' lows add to the scan's low (up to rounding): rescale lows too when they do not.
    low_scale = s_low / r_low if r_low > 0 else 0.0
    spread = (s_high - s_low) / width if width > 0 else 0.0
    out = []
    for r in roles:
        lo, hi = r.effort_hours
        a = lo * low_scale if r_low > 0 else s_low / len(roles)
        out.append((f"port: {r.role or r.name} (code scan)", round(a, 2), round(a + (hi - lo) * spread, 2)))
    return out


def excluded_scan_text(scan: Optional[ScanResult]) -> str:
    """'tests, examples excluded: 3 files, 2-5 h not counted' from the scan's breakdown ('' when none)."""
    b = scan.effort_breakdown if scan is not None else None
    if b is None:
        return ""
    ex = [r for r in b.by_role if r.excluded]
    if not ex and not b.excluded_files:
        return ""
    names = ", ".join(r.role or r.name for r in ex) or "excluded files"
    hours = b.excluded_hours
    return (
        f"{names} excluded: {b.excluded_files} file(s), {range_text(hours[0], hours[1], 'h')} shown apart, not counted"
    )
