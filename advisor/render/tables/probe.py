"""The table of the training probe (`advisor probe`): runs, parity, paired comparisons, notes."""

from __future__ import annotations

import textwrap
from collections import Counter

from advisor.render.tables import grid

from advisor.render.interface import Renderer
from advisor.render.tables import rate_text, terminal_width
from probes.quality import WHAT_TO_DO, graded
from probes.training.models import ProbeSuite
from probes.training.parity import summary_line


def _fmt(v, spec: str = ".1f", none: str = "-") -> str:
    return none if v is None else format(v, spec)


def _table(rows, head, width: int) -> str:
    """The table when it fits `width`, else one wrapped block per run (every figure kept)."""
    full = grid(rows, head, tablefmt="simple", disable_numparse=True)
    if max(len(line) for line in full.splitlines()) <= width:
        return full
    blocks = []
    for row in rows:
        cells = dict(zip(head, row))
        top = f"{cells['run']}  {cells['status']}"
        if cells["img/s"] != "-":
            top += f"  {cells['img/s']} img/s (95% CI {cells['95% CI']})"
        rest = ", ".join(f"{name} {cells[name]}" for name in head[4:-1] if cells[name] != "-")
        if cells["stop / error"]:
            rest += ("; " if rest else "") + cells["stop / error"]
        blocks.append(textwrap.fill(top, width, subsequent_indent="    ", break_long_words=False))
        if rest:
            blocks.append(
                textwrap.fill(rest, width, initial_indent="    ", subsequent_indent="      ", break_long_words=False)
            )
    return "\n".join(blocks)


class ProbeTable(Renderer):
    """The measured table, summary first, notes once each, wrapped to `width` (default: the terminal's;
    100 when piped)."""

    def __init__(self, width: int | None = None) -> None:
        self.width = width

    def format(self, suite: ProbeSuite) -> str:
        return _summary(suite, self.width or terminal_width())


def status(run) -> str:
    """One status per run: its grade when it measured (stable / noisy / unusable), else how it ended."""
    if run.status == "ok" and run.quality:
        return run.quality
    return run.status


def _cv(run) -> str:
    """The step-time CV, only from enough samples to have one (a single sample has no spread)."""
    st = run.step_time_ms
    if st is None or st.cv is None or (run.samples or st.n or 0) < 2:
        return "-"
    return f"{st.cv:.0%}"


def _rate(v) -> str:
    return "-" if v is None else rate_text(v)


def _summary(suite: ProbeSuite, width: int) -> str:
    rows = []
    for r in suite.runs:
        st = r.step_time_ms
        ci = f"{rate_text(r.ci95[0])}-{rate_text(r.ci95[1])}" if r.ci95 else "-"
        rows.append(
            [
                r.id,
                status(r),
                _rate(r.images_per_second),
                ci,
                _fmt(st.median if st else None, ".2f"),
                _cv(r),
                _fmt(r.first_step_seconds, ".2f"),
                _fmt(r.peak_memory_mb, ".0f"),
                _fmt(r.mfu, ".1%"),
                f"{r.loss_first:.3f}->{r.loss_last:.3f}" if r.loss_first is not None else "-",
                r.stop_reason or (r.error or "")[:120],
            ]
        )
    head = ["run", "status", "img/s", "95% CI", "step ms", "CV", "first s", "peak MB", "MFU", "loss", "stop / error"]
    h = suite.host
    load = f", load {h.loadavg_before[0]:.1f}->{h.loadavg_after[0]:.1f}" if h.loadavg_before and h.loadavg_after else ""
    steal = f", steal {h.steal_fraction:.0%}" if h.steal_fraction is not None else ""
    lines = [
        _fill(
            f"Training probe on {h.cpu_model or 'this host'} ({h.logical_cores} CPUs{load}{steal}), "
            f"{suite.seconds or 0:.0f} s; fp32, SGD lr 0.01 momentum 0.9 wd 5e-4, "
            f"{'synthetic data' if not (suite.config and suite.config.data) else suite.config.data}",
            width,
        ),
        "",
        *_headline(suite, width),
        "",
        _table(rows, head, width),
        "",
    ]
    if suite.gemm_peak:
        lines.append(
            _fill(
                "On-host fp32 GEMM peak (MFU basis): "
                + ", ".join(f"{fw} {g:.0f} GFLOP/s" for fw, g in suite.gemm_peak.items()),
                width,
            )
        )
    if suite.parity:
        lines.append("Parity (same weights, one batch):")
        for p in suite.parity:
            lines.append(_fill(summary_line(p.model_dump()), width, "  "))
            if p.likely_cause:
                lines.append(_fill(f"likely cause: {p.likely_cause}", width, "    "))
    lines += _comparison_lines(suite, width)
    notes = _notes(suite)
    if notes:
        lines.append("Notes (each once, with the runs it concerns):")
        lines += [_fill(n, width, "  - ") for n in notes]
    return "\n".join(lines) + "\n"


def _undecided_count(left: list[str]) -> str:
    """'2 comparison(s) undecided', or for a lone run (one framework, one mode) '1 run not stable':
    another round was for its grade, there being nothing to compare it with."""
    pairs = sum(" vs " in item for item in left)
    parts = [f"{pairs} comparison(s) undecided"] if pairs else []
    if len(left) > pairs:
        parts.append(f"{len(left) - pairs} run(s) not stable")
    return ", ".join(parts)


def _fill(text: str, width: int, first: str = "") -> str:
    """Wrapped at words, every continuation indented under the text it continues (never cut mid-word)."""
    indent = " " * (len(first) + (2 if first.strip() else 4))
    return textwrap.fill(
        text, width, initial_indent=first, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )


def _headline(suite: ProbeSuite, width: int) -> list[str]:
    """The answer first: per model each run's rate and grade, the comparisons this host decided, and how
    many runs can be used."""
    out = ["Summary:"]
    models = list(dict.fromkeys(r.model for r in suite.runs))
    for model in models:
        runs = [r for r in suite.runs if r.model == model]
        rates = ", ".join(
            f"{r.framework} {r.mode} {rate_text(r.images_per_second)} ({status(r)})"
            if r.status == "ok" and r.images_per_second
            else f"{r.framework} {r.mode} {r.status}"
            for r in runs
        )
        out.append(_fill(f"{model} img/s: {rates}", width, "  "))
        decided = [c for c in suite.comparisons if c.model == model and c.decidable and c.ratio]
        total = sum(1 for c in suite.comparisons if c.model == model)
        for c in decided:
            faster, slower, ratio = (c.a, c.b, c.ratio) if c.ratio >= 1 else (c.b, c.a, 1 / c.ratio)
            out.append(_fill(f"{_short(faster)} is {ratio:.2f}x {_short(slower)} ({c.quality})", width, "    "))
        if total and len(decided) < total:
            out.append(
                _fill(f"{total - len(decided)} of {total} comparisons not decidable here (below)", width, "    ")
            )
    grades = Counter(status(r) for r in suite.runs)
    order = ("stable", "noisy", "unusable", "failed", "timeout", "unavailable", "cancelled")
    counted = ", ".join(f"{grades[g]} {g}" for g in order if grades.get(g))
    if counted:
        out.append(_fill(f"{len(suite.runs)} runs: {counted} (an unusable run is shown, never scored)", width, "  "))
    return out


def _short(run_id: str) -> str:
    """pytorch-eager-lenet-bs32 -> pytorch eager."""
    parts = run_id.split("-")
    return " ".join(parts[:2]) if len(parts) >= 2 else run_id


def _notes(suite: ProbeSuite) -> list[str]:
    """The suite's warnings, one line per graded run with all its reasons, and every other run note once
    with the runs it concerns (the same budget note on eight runs is one line naming them)."""
    by_text: dict[str, list[str]] = {w: [] for w in suite.warnings}
    grades = []
    for r in suite.runs:
        if r.quality and r.quality != "stable":
            flag = " (shown, never scored)" if r.quality == "unusable" else ""
            grades.append(f"{r.id}: {r.quality}{flag}: {'; '.join(r.quality_reasons)}")
        texts = graded(r.warnings)  # a result saved before the grade said it all: its noise notes once
        if r.settings.get("compile_cache"):
            texts.append(
                f"torch.compile cache {r.settings['compile_cache']}, compile {_fmt(r.compile_seconds, '.1f')} s"
            )
        for text in dict.fromkeys(texts):
            by_text.setdefault(text, []).append(r.id)
    return grades + [f"{', '.join(ids)}: {text}" if ids else text for text, ids in by_text.items()]


def _comparison_lines(suite, width: int) -> list[str]:
    """The paired comparisons: the decided ones with their interval, the undecided ones a line each and
    their reasons once (a reason shared by six comparisons is said once), and how the rounds adapted."""
    lines = ["Paired comparisons (runs measured in alternation, ratio of img/s):"] if suite.comparisons else []
    reasons: dict[str, None] = {}
    undecided = 0
    for c in suite.comparisons:
        ratio = f"{c.ratio:.3f}x" if c.ratio is not None else "no ratio"
        ci = f" (95% CI {c.ci95[0]:.3f}-{c.ci95[1]:.3f})" if c.ci95 else ""
        if c.decidable:
            verdict = f"{c.quality}: {'a is faster' if c.ratio > 1 else 'b is faster'}"
        else:
            undecided += 1
            verdict = f"not decidable here ({c.quality})"
            for why in c.reasons:
                if not why.startswith("not decidable here"):
                    reasons.setdefault(why.split(":")[0] if "round(s) left out" in why else why)
        text = f"{c.a} / {c.b}: {ratio}{ci}, {c.pairs} usable pair(s); {verdict}"
        lines.append(_fill(text, width, "  "))
    if undecided:
        lines.append(_fill(f"Why not decidable: {'; '.join(reasons)}.", width))
        lines.append(
            _fill(
                f"{undecided} of {len(suite.comparisons)} comparisons were not decidable on this host now; "
                f"to decide them: {WHAT_TO_DO}.",
                width,
            )
        )
    if suite.adaptation:
        lines.append("Rounds (threads = idle cores unless --threads; extra rounds at twice the budget, at most 4x):")
    for a in suite.adaptation:
        threads = sorted(set(a.get("threads") or []))
        stopped = str(a.get("stopped", ""))
        if ": still undecided: " in stopped or ": undecided: " in stopped:  # the comparisons are listed above
            head, _, left = stopped.rpartition("undecided: ")
            stopped = head + _undecided_count(left.split(", "))
        lines.append(
            _fill(
                f"{a['model']}: {a['rounds']} round(s), budget {', '.join(f'{b:g}' for b in a['budgets'])} s, "
                f"threads {', '.join(map(str, threads)) or '-'}; {stopped}",
                width,
                "  ",
            )
        )
    return lines
