"""The code scan's estimate as migration parts: its roles, its excluded files and its custom kernels."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Optional

from advisor.decision.findings import said

if TYPE_CHECKING:
    from advisor.scan.models import ScanResult


class RoleHours(NamedTuple):
    """One role's share of the scan's total (its role name as the scan gives it, hours low and high)."""

    role: str
    low: float
    high: float


def scan_kernels(scan: Optional[ScanResult]) -> int:
    return (
        sum(1 for h in scan.hazards if h.kind == "custom_extension" and not h.excluded and not h.optional)
        if scan is not None
        else 0
    )


def scan_roles(scan: Optional[ScanResult]) -> list[RoleHours]:
    """The scan's total, role by role, from its effort breakdown. Each role keeps its own low end; the
    scan's high end is low + the root-sum-square of the item ranges (not the sum of highs), so each
    role's range is scaled to add up to the scan's total. Excluded roles (tests, examples, tools) are
    left out, as in the scan's total. [] without a breakdown."""
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
        out.append(RoleHours(r.role or r.name, round(a, 2), round(a + (hi - lo) * spread, 2)))
    return out


def scan_role_parts(scan: Optional[ScanResult]) -> list[tuple[str, float, float]]:
    """`scan_roles` as migration parts (label, low, high): the label is the role's worded part."""
    return [(said("crit_scan_parts.role", role=r.role), r.low, r.high) for r in scan_roles(scan)]


def excluded_scan_text(scan: Optional[ScanResult]) -> str:
    """What the scan's breakdown left out of its total, worded ('' when nothing)."""
    b = scan.effort_breakdown if scan is not None else None
    if b is None:
        return ""
    ex = [r for r in b.by_role if r.excluded]
    if not ex and not b.excluded_files:
        return ""
    roles = [r.role or r.name for r in ex]
    low, high = b.excluded_hours
    return said("crit_scan_parts.excluded", roles=roles, files=b.excluded_files, low=low, high=high)
