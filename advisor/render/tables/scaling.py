"""The table of the scaling probe (`advisor probe --scaling`), and of a run across hosts."""

from __future__ import annotations

import textwrap
from typing import Optional

from advisor.render.tables import grid

from advisor.render.interface import Renderer
from advisor.render.tables import terminal_width
from probes.scaling import share
from probes.scaling.models import InterHost, ScalingResult


def _fmt(spread, scale: float = 1.0, digits: int = 0, pct: bool = False) -> str:
    if spread is None:
        return "-"
    f = (lambda v: f"{v * 100:.0f}%") if pct else (lambda v: f"{v * scale:,.{digits}f}")
    if spread.n < 2:
        return f(spread.median)
    return f"{f(spread.median)} ({f(spread.min)}-{f(spread.max)})"


HEADERS = [
    "framework",
    "launcher",
    "model",
    "ranks",
    "img/s total",
    "step ms",
    "no-sync ms",
    "allreduce",
    "efficiency",
    "init s",
    "1st step s",
    "launch s",
    "gate / runs",
]


def _blocks(rows: list, width: int) -> str:
    """One wrapped block per framework and rank count, for terminals narrower than the table."""
    out = []
    for row in rows:
        cells = dict(zip(HEADERS, row))
        top = f"{cells['framework']} {cells['launcher']} {cells['model']}"
        if cells["ranks"] == "-":
            out.append(textwrap.fill(f"{top}: {cells['gate / runs']}", width, subsequent_indent="    "))
            continue
        gate, _, runs = cells["gate / runs"].partition("; ")
        out.append(
            textwrap.fill(
                f"{top}, {cells['ranks']} rank(s): {cells['img/s total']} img/s total; "
                f"runs {runs}" + ("" if gate == "-" else f", gate {gate}"),
                width,
                subsequent_indent="    ",
            )
        )
        rest = ", ".join(f"{name} {cells[name]}" for name in HEADERS[5:12] if cells[name] != "-")
        out.append(textwrap.fill(rest, width, initial_indent="    ", subsequent_indent="    "))
    return "\n".join(out)


class ScalingTable(Renderer):
    """The table when it fits `width` (default: the terminal's; 100 when piped), else blocks; for a
    run across hosts (`inter_host`), the lines comparing it with one host under it."""

    def __init__(self, width: Optional[int] = None) -> None:
        self.width = width

    def format(self, result: ScalingResult) -> str:
        text = _summary(result, self.width or terminal_width())
        if result.inter_host is not None:
            text += "\n".join(summary_lines(result.inter_host)) + "\n"
        return text


def _summary(result: ScalingResult, width: int) -> str:
    lines = [
        textwrap.fill(f"Scaling probe ({result.label}): {result.label_text}.", width),
        textwrap.fill(
            "Median (min-max) over interleaved repetitions; allreduce share = (synced - "
            "no-sync) / synced step; efficiency = img/s(N) / (N x img/s(1)).",
            width,
            break_on_hyphens=False,
        ),
        "",
    ]
    rows = []
    for fw in result.frameworks:
        if fw.status == "unavailable" or not fw.rank_counts:
            rows.append(
                [fw.framework, fw.launcher, fw.model, *["-"] * (len(HEADERS) - 4), f"{fw.status}: {fw.reason}"]
            )  # the reason under 'gate / runs
            continue
        for rc in fw.rank_counts:
            gate = "-" if rc.gate_ok is None else ("ok" if rc.gate_ok else "FAILED")
            rows.append(
                [
                    fw.framework,
                    f"{fw.launcher} ({fw.backend or fw.device})",
                    fw.model,
                    rc.ranks,
                    _fmt(rc.images_per_second),
                    _fmt(rc.step_ms, digits=2),
                    _fmt(rc.nosync_step_ms, digits=2),
                    share.cell(rc) or _fmt(rc.allreduce_share, pct=True),
                    _fmt(rc.efficiency, digits=2),
                    _fmt(rc.init_seconds, digits=1),
                    _fmt(rc.first_step_seconds, digits=2),
                    _fmt(rc.total_seconds, digits=1),
                    f"{gate}; {rc.runs_ok}/{rc.runs_total} ok",
                ]
            )
    table = grid(rows, headers=HEADERS, disable_numparse=True)
    lines.append(table if max(len(line) for line in table.splitlines()) <= width else _blocks(rows, width))
    failed = [r for r in result.runs if r.status != "ok"]
    for r in failed[:6]:
        lines.append(textwrap.fill(f"{r.id}: {r.status}: {r.error}", width, subsequent_indent="    "))
    lines += [textwrap.fill(f"warning: {w}", width, subsequent_indent="    ") for w in result.warnings]
    return "\n".join(lines) + "\n"


def summary_lines(block: InterHost) -> list:
    """The table's extra lines for the result's InterHost block."""
    link = block.link
    speed = f"{link.speed_mbps} Mb/s" if link.speed_mbps else (link.speed_source or "speed unknown")
    lines = [
        (
            f"Across {block.nnodes} hosts x {block.ranks_per_node} rank(s) (master {block.master}), "
            f"over {link.interface or 'an unknown interface'} ({link.source_address}; {speed}):"
        )
    ]
    for fw in block.frameworks:
        head = f"  {fw.framework} {fw.launcher} {fw.model}: {fw.status} ({fw.runs_ok}/{fw.runs_total})"
        if fw.inter is None:
            lines.append(f"{head}: {fw.reason}")
            continue
        intra = fw.intra
        share = (
            _fmt(fw.inter.allreduce_share, pct=True)
            if fw.inter.allreduce_share
            else (fw.inter.allreduce_share_note or "-")
        )
        gate = "ok" if fw.gate_ok else ("FAILED" if fw.gate_ok is False else "-")
        lines.append(
            f"{head}; step {_fmt(fw.inter.step_ms, digits=2)} ms across hosts vs "
            f"{_fmt(intra.step_ms if intra else None, digits=2)} ms on one host; allreduce {share} "
            f"across vs {_fmt(intra.allreduce_share if intra else None, pct=True)} on one host; "
            f"gate {gate}"
        )
    return lines
