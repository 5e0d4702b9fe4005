"""The tables of the transformer probe (`advisor probe --models gpt`): the timed runs (tokens/s with
CI, step time, compile, memory, MFU), parity, the attention kernels, the dynamic-shape ways with
their compile counts, and the verdicts."""

from __future__ import annotations

import textwrap

from advisor.render.tables import grid

from advisor.numbers import sig
from advisor.render.interface import Renderer
from advisor.render.tables import terminal_width
from probes.transformer.models import VARIANTS, GptResult


def _f(v, spec: str = ",.0f", none: str = "-") -> str:
    return none if v is None else format(v, spec)


def _fit(rows, head, width: int) -> str:
    """The table when it fits `width`, else one wrapped line per row (every figure kept)."""
    full = grid(rows, head, tablefmt="simple", disable_numparse=True)
    if max(len(line) for line in full.splitlines()) <= width:
        return full
    return "\n".join(
        textwrap.fill(
            ", ".join(f"{h} {c}" for h, c in zip(head, row) if c not in ("-", "")), width, subsequent_indent="    "
        )  # fmt: skip
        for row in rows
    )


class GptTable(Renderer):
    """Every table of one GptResult, wrapped to `width` (default: the terminal's)."""

    def __init__(self, width: int | None = None) -> None:
        self.width = width

    def format(self, result: GptResult) -> str:
        return _text(result, self.width or terminal_width())


def _header(r: GptResult, width: int) -> list[str]:
    c, h = r.config, r.host
    size = f"{c.layers} layers, hidden {c.hidden}, {c.heads} heads, seq {c.seq}, vocab {c.vocab}" if c else ""
    fl = r.flops or {}
    return [
        textwrap.fill(
            f"Transformer probe (GPT, {size}; {r.param_count or 0:,} parameters, head tied to the embedding; "
            f"batch {c.batch_size if c else '?'} sequences) on {h.cpu_model or 'this host'} "
            f"({h.logical_cores} CPUs), {r.seconds or 0:.0f} s; fp32, SGD lr 0.01 momentum 0.9, same weights "
            f"(checksum {r.weights_checksum}) and token batches in both frameworks",
            width,
        ),
        textwrap.fill(
            f"FLOPs/token = {fl.get('formula', '6N + 12LHS')} = {_f(fl.get('train_flops_per_token'))} "
            f"(N = {_f(fl.get('N_matmul_params'))} matmul weights incl. the tied head; 12LHS = "
            f"{_f(fl.get('attention_term'))}); MFU against the on-host fp32 GEMM peak: "
            + (", ".join(f"{fw} {g:.0f} GFLOP/s" for fw, g in r.gemm_peak.items()) or "not measured"),
            width,
        ),
        "",
    ]


def _runs(r: GptResult, width: int) -> list[str]:
    rows = []
    for x in r.runs:
        st = x.step_time_ms
        rows.append(
            [
                x.id,
                x.status,
                _f(x.tokens_per_second),
                f"{x.ci95[0]:,.0f}-{x.ci95[1]:,.0f}" if x.ci95 else "-",
                x.quality or "-",
                _f(st.median if st else None, ".1f"),
                _f(x.compile_seconds, ".1f"),
                _f(x.peak_memory_mb),
                _f(x.achieved_gflops, ".1f"),
                _f(x.mfu, ".1%"),
                f"{x.loss_first:.3f}->{x.loss_last:.3f}" if x.loss_first is not None else "-",
                x.stop_reason or (x.error or "")[:100],
            ]
        )
    head = ["run", "status", "tokens/s", "95% CI", "quality", "step ms", "compile s", "peak MB", "GFLOP/s", "MFU",
            "loss", "stop / error"]  # fmt: skip
    out = [_fit(rows, head, width), ""] if rows else []
    for c in r.comparisons:
        ratio = f"{c.ratio:.3f}x" if c.ratio is not None else "no ratio"
        ci = f" (95% CI {c.ci95[0]:.3f}-{c.ci95[1]:.3f})" if c.ci95 else ""
        state = "decided" if c.decidable else "not decided: " + "; ".join(c.reasons)
        out.append(textwrap.fill(f"{c.a} / {c.b}: {ratio}{ci} over {c.pairs} pair(s), {state}", width,
                                 initial_indent="  ", subsequent_indent="    "))  # fmt: skip
    return out + ([""] if r.comparisons else [])


def _parity(r: GptResult, width: int) -> list[str]:
    p = r.parity
    if p is None:
        return []
    out = [f"Parity (same weights, one batch of {p.batch_size or '?'}): {'pass' if p.ok else p.status.upper()}"]
    if p.checks:
        rows = [[c.name, c.metric, sig(c.value), sig(c.tolerance), "ok" if c.ok else "FAIL"] for c in p.checks]
        out.append(_fit(rows, ["check", "metric", "value", "tolerance", ""], width))
    if p.tolerance_derivation:
        d = p.tolerance_derivation
        out.append(textwrap.fill(
            f"tolerances: {d.get('formula')}, u = 2^-24, lambda {d.get('lambda')}, K = {d.get('reduction_length')} "
            f"(backward {d.get('backward_reduction_length')}), D = {d.get('matmuls_on_path')} matmuls", width,
            initial_indent="  ", subsequent_indent="    "))  # fmt: skip
    if p.error:
        out.append(textwrap.fill(f"{p.error}; likely cause: {p.likely_cause or '-'}", width, initial_indent="  "))
    if p.conventions:
        out.append("Convention differences (framework defaults; what both ran):")
        out += [textwrap.fill(c, width, initial_indent="  - ", subsequent_indent="    ") for c in p.conventions]
    return out + [""]


def _dynamic(r: GptResult, width: int) -> list[str]:
    rows = []
    for d in r.dynamic:
        label = VARIANTS[d.variant][2]
        if d.status != "ok":
            rows.append([label, "-", d.status, "-", "-", "-", "-", (d.error or "")[:60]])
            continue
        for w in d.ways:
            rows.append(
                [
                    label,
                    w.way,
                    str(w.compiles),
                    f"{w.compile_seconds:.1f}" + (f" (+{w.stall_seconds:.1f} stalls)" if w.stall_seconds > 0.05 else ""),
                    _f(w.steady_tokens_per_second),
                    _f(w.end_to_end_tokens_per_second),
                    f"{w.padding_share:.0%}",
                    f"{len(w.shapes)} shapes, {w.steps} steps" + (f", cache {w.inductor_cache}"
                                                                   if getattr(w, "inductor_cache", None) else ""),
                ]
            )  # fmt: skip
    if not rows:
        return []
    head = ["variant", "way", "compiles", "compile s", "steady tok/s", "end-to-end tok/s", "padding", "seen"]
    how = [
        textwrap.fill(
            f"{VARIANTS[d.variant][2]}: compiles counted by {d.compiles_counter}",
            width,
            initial_indent="  ",
            subsequent_indent="    ",
        )  # fmt: skip
        for d in r.dynamic
        if d.status == "ok" and d.compiles_counter
    ]
    return [
        "Dynamic shapes (padded to the maximum, bucketed, truly variable lengths; steady = the last pass; "
        "tokens/s count real tokens, not padding):",
        _fit(rows, head, width),
        *how,
        "",
    ]


def _attention(r: GptResult, width: int) -> list[str]:
    if not r.attention:
        return []
    out = ["Attention kernels:"]
    for k in r.attention:
        text = f"{k.framework}: {k.fused}: {k.backend}"
        if k.step_ms:
            text += f"; step ms SDPA {k.step_ms.get('sdpa', 0):.2f} vs written out {k.step_ms.get('manual', 0):.2f}"
        if k.error:
            text += f" ({k.error})"
        out.append(textwrap.fill(text, width, initial_indent="  ", subsequent_indent="    "))
    return out + [""]


def _text(r: GptResult, width: int) -> str:
    lines = _header(r, width) + _runs(r, width) + _parity(r, width) + _attention(r, width) + _dynamic(r, width)
    if r.verdicts:
        lines.append("Findings:")
        lines += [textwrap.fill(v, width, initial_indent="  - ", subsequent_indent="    ") for v in r.verdicts]
    notes = list(r.warnings)
    for x in r.runs:
        if x.quality and x.quality != "stable":
            notes.append(f"{x.id}: {x.quality}: {'; '.join(x.quality_reasons)}")
        notes += [f"{x.id}: {w}" for w in x.warnings]
    if notes:
        lines.append("Notes:")
        lines += [textwrap.fill(n, width, initial_indent="  - ", subsequent_indent="    ") for n in notes]
    return "\n".join(lines) + "\n"
