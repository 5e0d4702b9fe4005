"""The table of the training probe (`advisor probe`): runs, parity, paired comparisons, notes."""

from __future__ import annotations

import textwrap

from tabulate import tabulate

from advisor.render.interface import Renderer
from advisor.render.tables import terminal_width
from probes.quality import WHAT_TO_DO
from probes.training.models import ProbeSuite
from probes.training.parity import summary_line


def _fmt(v, spec: str = ".1f", none: str = "-") -> str:
    return none if v is None else format(v, spec)


def _table(rows, head, width: int) -> str:
    """The table when it fits `width`, else one wrapped block per run (every figure kept)."""
    full = tabulate(rows, head, tablefmt="simple", disable_numparse=True)
    if max(len(line) for line in full.splitlines()) <= width:
        return full
    blocks = []
    for row in rows:
        cells = dict(zip(head, row))
        top = f"{cells['run']}  {cells['status']}"
        if cells["img/s"] != "-":
            top += f"  {cells['img/s']} img/s (95% CI {cells['95% CI']}, {cells['quality']})"
        rest = ", ".join(f"{name} {cells[name]}" for name in head[5:-1] if cells[name] != "-")
        if cells["stop / error"]:
            rest += ("; " if rest else "") + cells["stop / error"]
        blocks.append(textwrap.fill(top, width, subsequent_indent="    "))
        if rest:
            blocks.append(textwrap.fill(rest, width, initial_indent="    ", subsequent_indent="    "))
    return "\n".join(blocks)


class ProbeTable(Renderer):
    """The measured table, notes wrapped to `width` (default: the terminal's; 100 when piped)."""

    def __init__(self, width: int | None = None) -> None:
        self.width = width

    def format(self, suite: ProbeSuite) -> str:
        return _summary(suite, self.width or terminal_width())


def _summary(suite: ProbeSuite, width: int) -> str:

    rows = []
    for r in suite.runs:
        st = r.step_time_ms
        ci = f"{r.ci95[0]:.1f}-{r.ci95[1]:.1f}" if r.ci95 else "-"
        rows.append(
            [
                r.id,
                r.status if r.status != "ok" else "ok",
                _fmt(r.images_per_second),
                ci,
                r.quality or "-",
                _fmt(st.median if st else None, ".2f"),
                _fmt(st.cv if st else None, ".0%"),
                _fmt(r.first_step_seconds, ".2f"),
                _fmt(r.peak_memory_mb, ".0f"),
                _fmt(r.mfu, ".1%"),
                f"{r.loss_first:.3f}->{r.loss_last:.3f}" if r.loss_first is not None else "-",
                r.stop_reason or (r.error or "")[:120],
            ]
        )
    head = [
        "run",
        "status",
        "img/s",
        "95% CI",
        "quality",
        "step ms",
        "CV",
        "first s",
        "peak MB",
        "MFU",
        "loss",
        "stop / error",
    ]
    h = suite.host
    load = f", load {h.loadavg_before[0]:.1f}->{h.loadavg_after[0]:.1f}" if h.loadavg_before and h.loadavg_after else ""
    steal = f", steal {h.steal_fraction:.0%}" if h.steal_fraction is not None else ""
    lines = [
        textwrap.fill(
            f"Training probe on {h.cpu_model or 'this host'} ({h.logical_cores} CPUs{load}{steal}), "
            f"{suite.seconds or 0:.0f} s; fp32, SGD lr 0.01 momentum 0.9 wd 5e-4, "
            f"{'synthetic data' if not (suite.config and suite.config.data) else suite.config.data}",
            width,
        ),
        "",
        _table(rows, head, width),
        "",
    ]
    if suite.gemm_peak:
        lines.append(
            "On-host fp32 GEMM peak (MFU basis): "
            + ", ".join(f"{fw} {g:.0f} GFLOP/s" for fw, g in suite.gemm_peak.items())
        )
    if suite.parity:
        lines.append("Parity (same weights, one batch):")
        for p in suite.parity:
            lines.append(
                textwrap.fill(summary_line(p.model_dump()), width, initial_indent="  ", subsequent_indent="    ")
            )
            if p.likely_cause:
                lines.append(
                    textwrap.fill(
                        f"likely cause: {p.likely_cause}", width, initial_indent="    ", subsequent_indent="      "
                    )
                )
    lines += _comparison_lines(suite, width)
    notes = list(suite.warnings)
    for r in suite.runs:
        if r.quality and r.quality != "stable":
            flag = " (shown, but never scored)" if r.quality == "unusable" else ""
            notes.append(f"{r.id}: {r.quality}{flag}: {'; '.join(r.quality_reasons)}")
        notes += [f"{r.id}: {w}" for w in r.warnings]
        if r.settings.get("compile_cache"):
            notes.append(
                f"{r.id}: torch.compile cache {r.settings['compile_cache']}, compile {_fmt(r.compile_seconds, '.1f')} s"
            )
    if notes:
        lines.append("Notes:")
        lines += [textwrap.fill(n, width, initial_indent="  - ", subsequent_indent="    ") for n in notes]
    return "\n".join(lines) + "\n"


def _comparison_lines(suite, width: int) -> list[str]:
    """The paired comparisons, each said decided or not (and then what would decide it), and how
    the rounds adapted to the host."""
    lines = ["Paired comparisons (runs measured in alternation, ratio of img/s):"] if suite.comparisons else []
    undecided = 0
    for c in suite.comparisons:
        ratio = f"{c.ratio:.3f}x" if c.ratio is not None else "no ratio"
        ci = f" (95% CI {c.ci95[0]:.3f}-{c.ci95[1]:.3f})" if c.ci95 else ""
        if c.decidable:
            verdict = f"{c.quality}: {'a is faster' if c.ratio > 1 else 'b is faster'}"
        else:
            undecided += 1
            why = [r for r in c.reasons if not r.startswith("not decidable here")]
            verdict = f"NOT DECIDABLE here ({c.quality}): {'; '.join(why)}"
        text = f"{c.a} / {c.b}: {ratio}{ci}, {c.pairs} pair(s); {verdict}"
        lines.append(textwrap.fill(text, width, initial_indent="  ", subsequent_indent="    "))
    if undecided:
        lines.append(
            textwrap.fill(
                f"{undecided} of {len(suite.comparisons)} comparisons were not decidable on "
                f"this host now; to decide them: {WHAT_TO_DO}.",
                width,
            )
        )
    if suite.adaptation:
        lines.append("Rounds (threads = idle cores unless --threads; extra rounds at twice the budget, at most 4x):")
    for a in suite.adaptation:
        threads = sorted(set(a.get("threads") or []))
        lines.append(
            textwrap.fill(
                f"{a['model']}: {a['rounds']} round(s), budget {', '.join(f'{b:g}' for b in a['budgets'])} s, "
                f"threads {', '.join(map(str, threads)) or '-'}; {a.get('stopped', '')}",
                width,
                initial_indent="  ",
                subsequent_indent="    ",
            )
        )
    return lines
