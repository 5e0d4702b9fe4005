"""The transformer probe's part of the Probes screen: the same small GPT trained in
PyTorch eager / torch.compile and MindSpore graph / PyNative. While it measures: one live row per
child (tokens/s, the one progress model's planned total and countdown ETA in the status line). When
finished: the timed runs (tokens/s with CI95, stability grade, step time, MFU, compile seconds, peak
memory), the dynamic-shape table (graph compiles, seconds compiling, steady and end-to-end tokens/s
per way), parity, the attention kernels, the findings, and two charts. Every figure and verdict is the
probe's own (probes.transformer: the CLI's `advisor probe --models gpt` prints the same)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from probes.transformer.models import VARIANTS, GptResult
from tui.widgets.charts import DynamicChart, TokensChart
from tui.widgets.probe_panels import MeasurementPanel, status_cell

CHART_LEGEND = (
    "Left: tokens/s per framework and mode, its CI95 as a red line; ! = graded unusable (never decides). "
    "Right: end-to-end tokens/s (compiles included) per dynamic-shape way; Nc = its graph compiles."
)
QUALITY_STYLE = {"stable": "green", "noisy": "yellow", "unusable": "bold red"}


def _n(value: float | None, spec: str = ",.0f") -> str:
    return "-" if value is None else format(value, spec)


class GptPanel(MeasurementPanel):
    KIND = "gpt"
    HEADING = "Transformer (GPT)"
    IDLE = (
        "Transformer: not measured yet. GPT trains the same small GPT in both frameworks (tokens/s, MFU, "
        "parity) and measures what variable sequence lengths cost each mode (graph compiles counted)."
    )
    TABLES = {
        "runs": ("Run", "Status", "Quality", "tokens/s", "CI95", "step ms", "MFU", "compile s", "peak MB"),
        "dynamic": ("Variant", "Way", "Compiles", "Compile s", "Steady tok/s", "End-to-end tok/s", "Padding"),
    }

    def extra(self) -> ComposeResult:
        with Horizontal(id="gpt-charts"):
            yield TokensChart(id="chart-gpt-tokens")
            yield DynamicChart(id="chart-gpt-dynamic")
        yield Static(CHART_LEGEND, id="gpt-legend")  # under the charts: plotext drops a title wider than them

    def show_extra(self, result: GptResult | None) -> None:
        charts = self.query_one("#gpt-charts", Horizontal)
        charts.display = self.query_one("#gpt-legend", Static).display = result is not None
        if result is not None:
            gpt = result
            self.query_one(TokensChart).show(gpt)
            self.query_one(DynamicChart).show(gpt)

    def title_text(self, result: GptResult) -> Text:
        gpt = result
        head = super().title_text(result)
        c = gpt.config
        size = (
            f"{c.layers} layers, hidden {c.hidden}, {c.heads} heads, seq {c.seq}, vocab {c.vocab}; "
            f"batch {c.batch_size} sequences"
            if c is not None
            else "size not recorded"
        )
        peaks = ", ".join(f"{fw} {g:,.0f} GFLOP/s" for fw, g in gpt.gemm_peak.items()) or "not measured"
        head.append(
            f"\n  {size}; {gpt.param_count or 0:,} parameters; FLOPs/token "
            f"{_n(gpt.flops.get('train_flops_per_token'))} ({gpt.flops.get('formula', '6N + 12LHS')}); "
            f"MFU against the on-host fp32 GEMM peak: {peaks}",
            style="dim",
        )
        return head

    def table_rows(self, result: GptResult) -> dict[str, tuple[str, list[list]]]:
        gpt = result
        runs = []
        for r in gpt.runs:
            ok = r.status == "ok"
            runs.append(
                [
                    r.id,
                    status_cell(r.status),
                    Text(r.quality or "-", style=QUALITY_STYLE.get(r.quality or "", "")),
                    _n(r.tokens_per_second) if ok else "-",
                    f"{r.ci95[0]:,.0f}-{r.ci95[1]:,.0f}" if ok and r.ci95 else "-",
                    _n(r.step_time_ms.median if r.step_time_ms else None, ".1f") if ok else "-",
                    _n(r.mfu, ".1%") if ok else "-",
                    _n(r.compile_seconds, ".1f"),
                    _n(r.peak_memory_mb) if ok else (r.error or "-")[:40],
                ]
            )
        dynamic = []
        for d in gpt.dynamic:
            name = f"{d.framework} {d.variant}"  # short at 80 columns: the notes say what each variant is
            if d.status != "ok":
                dynamic.append([name, "-", status_cell(d.status), "-", "-", "-", (d.error or "")[:40]])
                continue
            for w in d.ways:
                stalls = f" (+{w.stall_seconds:.1f} stalls)" if w.stall_seconds > 0.05 else ""
                dynamic.append(
                    [
                        name,
                        w.way,
                        str(w.compiles),
                        f"{w.compile_seconds:.1f}{stalls}",
                        _n(w.steady_tokens_per_second),
                        _n(w.end_to_end_tokens_per_second),
                        f"{w.padding_share:.0%}",
                    ]
                )
        tables = {
            "runs": (
                "Timed runs, interleaved rounds: tokens/s (95% CI from batch means), graded by the probes' "
                "stability rules (an unusable run never decides)",
                runs,
            )
        }
        tables["dynamic"] = (
            "Dynamic shapes (padded to the maximum, bucketed, truly variable lengths): graph compiles and "
            "seconds compiling; steady = the last pass; tokens/s count real tokens, not padding"
            if dynamic
            else "Dynamic shapes: not measured in this run",
            dynamic,
        )
        return tables

    def note_lines(self, result: GptResult) -> list[Text]:
        gpt = result
        lines: list[Text] = []
        undecided: dict[str, list[str]] = {}  # why -> the pairs it holds for: one line each, not one per pair
        for c in gpt.comparisons:
            if c.decidable and c.ratio is not None:
                ci = f" (95% CI {c.ci95[0]:.3f}-{c.ci95[1]:.3f})" if c.ci95 else ""
                lines.append(Text(f"{c.a} / {c.b}: {c.ratio:.3f}x{ci} over {c.pairs} pairs, decided"))
            else:
                undecided.setdefault("; ".join(c.reasons) or "no ratio", []).append(f"{c.a} / {c.b}")
        for why, pairs in undecided.items():
            lines.append(Text(f"{len(pairs)} comparison(s) not decided: {why}", style="dim"))
        p = gpt.parity
        if p is None:
            lines.append(Text("Parity: not checked", style="dim"))
        else:
            out = Text.assemble(("Parity ", "bold"))
            out.append("pass" if p.ok else p.status.upper(), style="green" if p.ok else "bold red")
            worst = max(p.checks, key=lambda k: k.value / k.tolerance if k.tolerance else 0.0, default=None)
            if worst is not None:
                out.append(f" (closest: {worst.name} {worst.value:.1e} of {worst.tolerance:.1e})", style="dim")
            if p.error:
                out.append(f" {p.error}", style="red")
            lines.append(out)
        for k in gpt.attention:
            text = f"{k.framework}: {k.fused}: {k.backend}"
            if k.step_ms:
                text += (
                    f"; step {k.step_ms.get('sdpa', 0):.1f} ms with it vs {k.step_ms.get('manual', 0):.1f} written out"
                )
            lines.append(Text.assemble(("Attention ", "bold"), text))
        variants = [f"{d.variant}: {VARIANTS[d.variant][2]}" for d in gpt.dynamic]
        if variants:
            lines.append(Text.assemble(("Variants ", "bold"), "; ".join(variants)))
        lines += [Text.assemble(("- ", "cyan"), v) for v in gpt.verdicts]
        for r in gpt.runs:
            if r.status != "ok" and r.error:
                lines.append(Text.assemble(("x ", "red"), (f"{r.id}: ", "bold"), r.error[:300]))
        lines += [Text.assemble(("! ", "yellow"), w) for w in gpt.warnings]
        return lines
