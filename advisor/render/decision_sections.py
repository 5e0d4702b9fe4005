"""Markdown for the decision model's parts of the report: memory fit, the scaling curve, total cost of
ownership, the three parts of confidence, and the migration schedule. Reads the report's JSON
document (a dict), so any renderer can call it; each section is headed `## <name>`."""

from __future__ import annotations

from typing import Optional

from advisor.render._fmt import md_table

LABELS = {"pytorch": "PyTorch", "mindspore": "MindSpore", "hybrid": "Hybrid"}


def _n(x: Optional[float], digits: int = 3) -> str:
    if x is None:
        return "-"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def _usd(s: Optional[dict]) -> str:
    if not s:
        return "-"
    low, high = s["low"], s["high"]
    return f"${low:,.0f}" if round(low) == round(high) else f"${low:,.0f}-{high:,.0f}"


def _pct(low: float, high: float) -> str:
    a, b = f"{low:.0%}", f"{high:.0%}"
    return a if a == b else f"{a}-{b}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return md_table(header, rows, ["l"] * len(header))


def memory_fit(doc: dict) -> list[str]:
    fits = doc.get("memory") or []
    if not fits:
        return []
    by_acc: dict[str, list[str]] = {}
    for p in doc.get("projections") or []:
        if p.get("accelerator"):
            by_acc.setdefault(p["accelerator"], []).append(LABELS.get(p["workflow"], p["workflow"]))
    rows, seen, notes = [], set(), []
    for m in fits:
        key = (m["accelerator"], m["devices"])
        if key in seen:
            continue
        seen.add(key)
        strategies = {s["strategy"]: s for s in m.get("strategies") or []}
        rows.append(
            [
                m["accelerator"],
                "/".join(by_acc.get(m["accelerator"], [])),
                _n(m.get("usable_gb")),
                f"{m['parameters_millions']:g} M, {m['precision']}, {m['optimizer']} ({m['bytes_per_parameter']:g} B/param)",
                _n(m["states_gb"]),
                _n(m["data_parallel_gb"]),
                _n((strategies.get("model-parallel") or {}).get("per_device_gb")),
                f"**{m['strategy']}**" if m["strategy"] == "does-not-fit" else m["strategy"],
                str(m.get("min_devices") or "-"),
            ]
        )
        notes += [n for n in m.get("notes") or [] if n not in notes]
    out = ["## Memory fit", ""]
    out += _table(
        [
            "Accelerator",
            "Workflows",
            "Usable GB/device",
            "Model",
            "Model states GB",
            "Data parallel GB/device",
            "Fully sharded GB/device",
            "Strategy",
            "Min devices",
        ],
        rows,
    )
    out += [""] + [f"- {n}" for n in notes]
    out += [
        "- arithmetic: DeepSpeed's ZeRO estimators (mixed-precision Adam 16 bytes/parameter; ZeRO-2 4 + 16/N, ZeRO-3 18/N "
        "+ 4 x the largest layer) plus activations and the device's usable memory; `accelerate estimate-memory` counts "
        "8 bytes/parameter at fp16/bf16 (no fp32 master copy or states) and no activations",
        "",
    ]
    return out


def scaling_curve(doc: dict) -> list[str]:
    seen, out = set(), []
    for p in doc.get("projections") or []:
        c = p.get("communication") or {}
        curve = c.get("curve") or []
        if not curve or (c.get("devices") or 1) <= 1:
            continue
        key = (p.get("accelerator"), c.get("interconnect"))
        if key in seen:
            continue
        seen.add(key)
        wfs = [
            LABELS.get(q["workflow"], q["workflow"])
            for q in doc["projections"]
            if (q.get("accelerator"), (q.get("communication") or {}).get("interconnect")) == key
        ]
        out.append(
            f"{'/'.join(wfs)} on {p.get('accelerator') or p.get('target')} ({c.get('interconnect')}): "
            f"fraction of linear throughput kept; basis **{c.get('basis')}**: {c.get('basis_detail')}"
        )
        out.append("")
        out += _table(
            ["Devices"]
            + [("**" + str(pt["devices"]) + "**") if pt.get("target") else str(pt["devices"]) for pt in curve],
            [["kept"] + [_pct(pt["low"], pt["high"]) for pt in curve]],
        )
        out.append("")
        for e in c.get("evidence") or []:  # what each part of the curve rests on
            if e.get("kind") == "knowledge" and str(e.get("detail", "")).startswith("scaling curve"):
                out.append(f"- {e['ref']}: {e.get('source') or 'no source'} ({e.get('confidence') or '-'})")
            elif e.get("kind") == "measured" and str(e.get("ref", "")).startswith("inter-host:"):
                out.append(f"- {e['ref']}: {e['detail']} (measured here)")
        if out[-1] != "":
            out.append("")
    if not out:
        return []
    return ["## Scaling curve", ""] + out


def total_cost(doc: dict) -> list[str]:
    costs = doc.get("costs") or []
    if not costs:
        return []
    names = ["team", "compute", "energy", "engineering"]
    rows, details = [], []
    for c in costs:
        parts = {p["name"]: p for p in c.get("parts") or []}
        cells = []
        for n in names:
            p = parts.get(n)
            text = _usd(p.get("usd")) if p else "-"
            cells.append(text if not p or p.get("counted") else f"({text}, not added)")
        rows.append(
            [LABELS.get(c["workflow"], c["workflow"])]
            + cells
            + [_usd(c.get("total_usd")), f"{c['power_budget_kw']:g} kW" if c.get("power_budget_kw") else "-"]
        )
        for n in names:
            p = parts.get(n)
            if p and n == "energy" and c.get("power_budget_kw") and str(p["detail"]).startswith("no power figure"):
                # the power budget beside it is computed from the card's power: say what is missing instead
                p = dict(
                    p,
                    detail=f"not priced: the power budget is known ({c['power_budget_kw']:g} kW, from the card's power), "
                    "but the run's energy could not be (the knowledge base lacks the projection's power draw, a PUE or "
                    "an electricity price)",
                )
            if p:
                srcs = ", ".join(
                    dict.fromkeys(e["ref"] for e in p.get("evidence") or [] if e.get("kind") == "knowledge")
                )
                details.append(
                    f"- {LABELS.get(c['workflow'], c['workflow'])} {n}: {p['detail']}" + (f" [{srcs}]" if srcs else "")
                )
                details += [
                    f"  - {i['name']}: {_n(i['hours'][0])}-{_n(i['hours'][1])} h, {_usd(i['usd'])}"
                    for i in p.get("items") or []
                ]
    out = ["## Total cost of ownership", ""]
    out += _table(["Workflow", "Team", "Compute", "Energy", "Engineering", "Total", "Power budget"], rows)
    notes = sorted({n for c in costs for n in c.get("notes") or []})
    return out + [""] + details + [f"- {n}" for n in notes] + [""]


def confidence(doc: dict) -> list[str]:
    rec = doc.get("recommendation") or {}
    parts = rec.get("confidence_parts")
    if not parts:
        return []
    ev, flip = parts.get("evidence") or {}, parts.get("nearest_flip")
    out = ["## Confidence", "", f"**{parts['level']}**: {parts['decided_note']}.", ""]
    runner = rec.get("runner_up")
    margin = (
        f"- margin: {parts['margin']:.1f} points over {LABELS.get(runner, runner)} (on its own: {parts['margin_level']})"
        if runner
        else "- margin: no eligible runner-up (the others are ruled out by hard constraints)"
    )
    out.append(margin + (" - a tie, not a win" if parts.get("tie") else ""))
    counts = ", ".join(f"{k} {v}" for k, v in sorted((ev.get("counts") or {}).items()))
    out.append(
        f"- evidence that decides it: {ev.get('label')} ({ev.get('score', 0):.1f}/5)"
        + (f"; {ev['note']}" if ev.get("note") else "")
        + (f" ({counts})" if counts else "")
    )
    if flip:
        out.append(f"- nearest flip: {flip['note']} ({flip['relative_change']:.0%} away)")
    else:
        out.append("- nearest flip: no weight or searched constant changes the winner")
    out += [f"- lowered: {s}" for s in parts.get("steps") or []]
    flips = [c for c in doc.get("constant_sensitivity") or [] if c.get("threshold") is not None]
    if flips:
        out += [
            "",
            "Named constants that would change the verdict (advisor.constants; the others do not within their range):",
            "",
        ]
        out += [f"- {c['name']} = {c['value']:g} {c['unit']}: {c['note']} ({c['source']})" for c in flips]
    return out + [""]


def schedule(doc: dict) -> list[str]:
    rows, findings = [], []
    for s in doc.get("schedules") or []:
        if not s.get("hours") or s["hours"][1] <= 0:
            continue
        wf = LABELS.get(s["workflow"], s["workflow"])
        expected = s.get("expected_hours")
        calendar = s.get("calendar_weeks")
        rows.append(
            [
                wf,
                f"{_n(s['hours'][0])}-{_n(s['hours'][1])} h",
                f"~{_n(expected)} h" if expected is not None else "-",
                f"{_n(s['weeks'][0])}-{_n(s['weeks'][1])}",
                f"{_n(calendar[0])}-{_n(calendar[1])}" if calendar else "-",
                _n(s.get("allowed_hours")),
                f"{s['pressure']:.0%}" if s.get("pressure") is not None else "-",
                s.get("fits") or "-",
            ]
        )
        phases = "; ".join(f"{p['name']} {_n(p['hours'][0])}-{_n(p['hours'][1])} h" for p in s.get("phases") or [])
        findings.append(f"- {wf}: {phases}" + (f". **{s['finding']}**" if s.get("finding") else ""))
    if not rows:
        return []
    out = ["## Schedule", ""]
    out += _table(
        [
            "Workflow",
            "Migration work (every pitfall in full)",
            "Expected (likelihood-weighted)",
            "Team-weeks",
            "Calendar weeks (migration + training)",
            "Hours allowed before the deadline",
            "Pressure",
            "Fits",
        ],
        rows,
    )
    notes = [
        "- expected: each pitfall's fix hours x the risk register's likelihood for this project, the other parts "
        "at their midpoint; the full range beside it charges every pitfall in full (the cost table uses the full range)"
    ]
    return out + [""] + findings + notes + [""]


def sections(doc: dict) -> list[str]:
    """All the decision sections, as Markdown lines (empty sections are left out)."""
    return memory_fit(doc) + scaling_curve(doc) + total_cost(doc) + confidence(doc) + schedule(doc)
