"""The transformer probe's findings in sentences (parent side, no framework): what truly variable
lengths cost each dynamic-shape variant against the best padded / bucketed way, the headline for
MindSpore graph mode and torch.compile, and the attention kernels.

The dynamic-shape ways run once each, not interleaved and not graded: every sentence built on them says
so itself (ONE_RUN), so a reader who stops at the first line does not take one run for a fact."""

from __future__ import annotations

from typing import Optional

from probes.transformer.models import VARIANTS, AttentionKernel, DynamicRun, DynamicVerdict, GptResult


ONE_RUN = "in one ungraded run"  # how the sentences on the dynamic-shape ways open


def _pct(x: float) -> str:
    return f"{abs(x):.0%} {'less' if x >= 0 else 'more'}"


def dynamic_verdict(d: DynamicRun) -> Optional[DynamicVerdict]:
    """Truly variable lengths against the best of padded / bucketed, end to end (compiles in)."""
    ways = {w.way: w for w in d.ways}
    v = DynamicVerdict(
        framework=d.framework,
        variant=d.variant,
        compiles={w.way: w.compiles for w in d.ways},
        compile_seconds={w.way: round(w.compile_seconds, 3) for w in d.ways},
        text="",
    )
    label = VARIANTS[d.variant][2]
    others = [w for k, w in ways.items() if k != "variable" and w.end_to_end_tokens_per_second]
    var = ways.get("variable")
    if not var or not var.end_to_end_tokens_per_second or not others:
        v.text = f"{label}: no variable-vs-padded comparison (ways run: {', '.join(ways) or 'none'})"
        return v
    best = max(others, key=lambda w: w.end_to_end_tokens_per_second)
    v.best_way = best.way
    v.variable_cost = 1.0 - var.end_to_end_tokens_per_second / best.end_to_end_tokens_per_second
    if var.steady_tokens_per_second and best.steady_tokens_per_second:
        v.variable_steady_cost = 1.0 - var.steady_tokens_per_second / best.steady_tokens_per_second
    steady = f"; steady (the last pass) {_pct(v.variable_steady_cost)}" if v.variable_steady_cost is not None else ""
    v.text = (
        f"{label}, {ONE_RUN}: truly variable lengths gave {_pct(v.variable_cost)} end-to-end tokens/s than {best.way} "
        f"over {var.steps} steps ({var.compiles} graph compile(s), {var.compile_seconds:.1f} s compiling, "
        f"against {best.compiles} and {best.compile_seconds:.1f} s){steady}"
    )
    return v


def headline(result: GptResult) -> list[str]:
    out = []
    by = {v.variant: v for v in result.dynamic_verdicts}
    g, gd = by.get("graph"), by.get("graph-dynamic")
    if g and g.variable_cost is not None:
        n = _distinct(result)
        if g.variable_cost > 0:
            text = (
                f"On this workload, {ONE_RUN}, truly variable lengths cost {g.variable_cost:.0%} of end-to-end tokens/s in "
                f"MindSpore graph mode unless {_way_text(g.best_way)} ({g.compiles.get('variable')} compiles "
                f"for {n} distinct lengths against {g.compiles.get(g.best_way)})"
            )
        else:
            text = (
                f"On this workload, {ONE_RUN}, truly variable lengths cost nothing measurable in MindSpore graph mode "
                f"({_pct(g.variable_cost)} end-to-end tokens/s than {_way_text(g.best_way)})"
            )
        dyn = _graph_dynamic_vs_static(result)
        if gd and dyn is not None:
            text += (
                f"; declared dynamic with Cell.set_inputs: {gd.compiles.get('variable')} compile(s), steady "
                f"tokens/s {_pct(dyn)} than with static shapes"
            )
        out.append(text)
    c = by.get("compile")
    if c and c.variable_cost is not None:
        out.append(
            f"torch.compile (default), {ONE_RUN}: truly variable lengths gave {_pct(c.variable_cost)} end-to-end tokens/s "
            f"than {_way_text(c.best_way)} ({c.compiles.get('variable')} compiles: from the second shape on it "
            f"compiles a dynamic graph)"
        )
    return out


def _way_text(way: Optional[str]) -> str:
    return {"padded": "padded to the maximum", "bucketed": "bucketed"}.get(way or "", str(way))


def _distinct(result: GptResult) -> Optional[int]:
    for d in result.dynamic:
        for w in d.ways:
            if w.way == "variable":
                return w.distinct_lengths
    return None


def _graph_dynamic_vs_static(result: GptResult) -> Optional[float]:
    """1 - steady tokens/s of set_inputs graph / static graph, on the variable way."""
    by = {(d.variant, w.way): w for d in result.dynamic for w in d.ways}
    a, b = by.get(("graph-dynamic", "variable")), by.get(("graph", "variable"))
    if a and b and a.steady_tokens_per_second and b.steady_tokens_per_second:
        return 1.0 - a.steady_tokens_per_second / b.steady_tokens_per_second
    return None


def attention_verdict(kernels: list[AttentionKernel]) -> list[str]:
    out = []
    for k in kernels:
        if k.framework == "pytorch" and k.backend:
            line = f"PyTorch: F.scaled_dot_product_attention selects the {k.backend} kernel here"
            if k.sdpa_over_manual:
                line += (
                    f"; a training step with it takes {k.step_ms.get('sdpa', 0):.1f} ms against "
                    f"{k.step_ms.get('manual', 0):.1f} ms written out (x{k.sdpa_over_manual:.2f})"
                )
            out.append(line)
        elif k.framework == "mindspore":
            if k.available:
                out.append("MindSpore: flash_attention_score ran on this host")
            else:
                out.append(
                    "MindSpore: FlashAttentionScore is not available on this CPU (documented for Ascend; "
                    f"here: {k.error or k.backend}); the probe's MindSpore model uses written-out attention"
                )
    return out
