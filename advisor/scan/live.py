"""The live verification of the mapping table (`advisor kb verify`, cached by probes/kbverify) beside the
scan's findings: an API whose mapped MindSpore call failed or differs from PyTorch here, and an in-place
finding whose MindSpore in-place method is not really in place, say so, with the MindSpore version it was
seen on; and each such mapping the code relies on adds the hours of working around it and checking the
result (a differing optimizer is a parity check; a missing kernel is a replacement)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from advisor.scan.models import ApiUse, Hazard

NOT_RUN = "mapping table not verified on this host: run `advisor kb verify`"
METHOD = re.compile(r"`\.(\w+_)\(\)`")
# What a mapping the code relies on costs when the live check did not pass, per distinct MindSpore API:
# differs (the table says it differs, and it does: AdamWeightDecay 0.218 apart after one step) is a parity
# check of that component and its adjustment; the failures are a replacement or a workaround and its check.
# Assumptions per API, on top of the API's own figure.
LIVE_HOURS = {
    "differs": (1.0, 4.0),
    "mismatch": (2.0, 8.0),
    "failed": (2.0, 8.0),
    "missing": (1.0, 4.0),
    "not_inplace": (1.0, 4.0),
}
SHOWN = tuple(LIVE_HOURS)


@dataclass
class LiveFinding:
    """One mapping the code relies on that the live check did not pass, and the findings that rely on it."""

    mindspore: str
    status: str
    where: str
    error: str
    apis: list[ApiUse]
    hazards: list[Hazard]


def _where(result: dict) -> str:
    return f"MindSpore {result.get('mindspore_version', '?')} {result.get('device', '?')}, {result.get('checked_at', '?')[:10]}"


def _said(r: dict) -> str:
    return f"{r['mindspore']} {r['status']}"


def attach(
    apis: list[ApiUse], hazards: list[Hazard], result: dict | None = None, *, cached: bool = True
) -> tuple[str, list[LiveFinding]]:
    """Set live_check on the APIs and hazards a verification that did not pass concerns; the one line to
    show and the findings by MindSpore API (what the hours are for)."""
    from probes.kbverify import runner, specs

    if result is None and cached:
        result = runner.load()
    if not result or not result.get("results"):
        return NOT_RUN, []
    where = _where(result)
    shown = {r["id"]: r for r in result["results"] if r.get("status") in SHOWN}
    by_api = {r["mindspore"]: r for r in shown.values()}
    found: dict[str, LiveFinding] = {}

    def finding(r: dict) -> LiveFinding:
        return found.setdefault(
            r["mindspore"], LiveFinding(r["mindspore"], r["status"], where, r.get("error", ""), [], [])
        )

    for api in apis:
        r = shown.get(api.kb_id or "")
        if r:
            api.live_check = f"{_said(r)} ({where}): {r.get('error', '')}".strip()
            finding(r).apis.append(api)
    for h in hazards:
        if h.kind != "inplace_op":
            continue
        m = METHOD.search(h.message) or re.search(r"\.(\w+_)`", h.message)
        target = specs.INPLACE_METHODS.get(m.group(1)) if m else None
        r = by_api.get(target or "")
        if r:
            h.live_check = f"{_said(r)} ({where}): {r.get('error', '')}".strip()
            finding(r).hazards.append(h)
    bad = sum(1 for r in result["results"] if r.get("status") in runner.FAILURES)
    differs = sum(1 for r in result["results"] if r.get("status") == "differs")
    relied = sum(len(f.apis) + len(f.hazards) for f in found.values())
    line = (
        f"mapping table verified live on {where}: {bad} failing and {differs} differing of {len(result['results'])}; "
        f"{relied} finding(s) rely on one"
    )
    return line, list(found.values())
