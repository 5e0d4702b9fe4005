"""The live verification of the mapping table (`advisor kb verify`, cached by probes/kbverify) beside
the scan's findings: an API whose mapped MindSpore call failed here, and an in-place finding whose
MindSpore in-place method is not really in place, say so, with the MindSpore version it was seen on."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from advisor.scan.models import ApiUse, Hazard

NOT_RUN = "mapping table not verified on this host: run `advisor kb verify`"
METHOD = re.compile(r"`\.(\w+_)\(\)`")


def _where(result: dict) -> str:
    return f"MindSpore {result.get('mindspore_version', '?')} {result.get('device', '?')}, {result.get('checked_at', '?')[:10]}"


def attach(apis: list[ApiUse], hazards: list[Hazard], result: dict | None = None, *, cached: bool = True) -> str:
    """Set live_check on the APIs and hazards a failing verification concerns; the one line to show."""
    from probes.kbverify import runner, specs

    if result is None and cached:
        result = runner.load()
    if not result or not result.get("results"):
        return NOT_RUN
    where = _where(result)
    failing = {r["id"]: r for r in result["results"] if r["status"] in runner.FAILURES}
    by_api = {r["mindspore"]: r for r in failing.values()}
    shown = 0
    for api in apis:
        r = failing.get(api.kb_id or "")
        if r:
            api.live_check = f"{r['mindspore']} {r['status']} ({where}): {r.get('error', '')}".strip()
            shown += 1
    for h in hazards:
        if h.kind != "inplace_op":
            continue
        m = METHOD.search(h.message) or re.search(r"\.(\w+_)`", h.message)
        target = specs.INPLACE_METHODS.get(m.group(1)) if m else None
        r = by_api.get(target or "")
        if r:
            h.live_check = f"{r['mindspore']} {r['status']} ({where}): {r.get('error', '')}".strip()
            shown += 1
    counts = result.get("counts", {})
    bad = sum(counts.get(k, 0) for k in runner.FAILURES)
    return f"mapping table verified live on {where}: {bad} failing of {len(result['results'])}; {shown} finding(s) rely on a failing one"
