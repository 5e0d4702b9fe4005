"""The table of the deployment probe (`advisor probe --deploy`)."""

from __future__ import annotations

import textwrap

from advisor.render.tables import grid

from advisor.render.interface import Renderer
from probes.deploy.models import DeployResult


def _f(v, spec: str = ".2f") -> str:
    return "-" if v is None else format(v, spec)


class DeployTable(Renderer):
    """The export and serve steps, parity and notes, wrapped to `width` (default 100)."""

    def __init__(self, width: int | None = None) -> None:
        self.width = width

    def format(self, result: DeployResult) -> str:
        return _summary(result, self.width or 100)


def _summary(result: DeployResult, width: int) -> str:
    h = result.host
    sizes = ",".join(str(b) for b in result.config.batch_sizes) if result.config else "?"
    lines = [
        textwrap.fill(
            f"Deployment probe on {h.get('cpu_model') or 'this host'} ({h.get('logical_cores')} "
            f"CPUs), {result.seconds or 0:.0f} s; fp32, canonical weights, batch sizes {sizes}",
            width,
        ),
        "",
    ]
    rows = [
        [
            e.id,
            e.status,
            e.exporter or "-",
            _f(e.opset, "d") if e.opset else "-",
            _f(e.seconds),
            _f(e.size_bytes / 1e6 if e.size_bytes else None),
            {True: "yes", False: "no"}.get(e.dynamic_batch, "-"),
            (e.error or "")[:90],
        ]
        for e in result.exports
    ]
    lines += [
        grid(
            rows,
            ["export", "status", "exporter", "opset", "s", "MB", "dyn batch", "error"],
            tablefmt="simple",
            disable_numparse=True,
        ),
        "",
    ]
    big = max(result.config.batch_sizes) if result.config else None
    rows = []
    for s in result.serves:
        lat = s.latency_ms or {}
        where = s.placement
        place = (
            "-"
            if not where
            else (
                f"{where['nodes']} on {where['chosen'].replace('ExecutionProvider', '')}"
                + (f", {len(where['fallback'])} elsewhere" if where["fallback"] else "")
            )
        )
        rows.append(
            [
                s.id,
                s.status,
                _f(s.first_inference_seconds),
                _f(lat.get("p50"), ".3f"),
                _f(lat.get("p95"), ".3f"),
                _f(lat.get("p99"), ".3f"),
                _f(s.throughput, ".0f"),
                _f(s.peak_memory_mb, ".0f"),
                place,
                (s.error or "")[:80],
            ]
        )
    small = min(result.config.batch_sizes) if result.config else "?"
    lines += [
        grid(
            rows,
            [
                "serve",
                "status",
                "first s",
                f"p50 ms@{small}",
                "p95",
                "p99",
                f"img/s@{big}",
                "peak MB",
                "placement",
                "error",
            ],
            tablefmt="simple",
            disable_numparse=True,
        ),
        "",
    ]
    if result.parity:
        lines.append("Parity (same weights and inputs; tolerance from fp32 arithmetic):")
        for p in result.parity:
            if p.status == "skipped":
                text = f"{p.id}: skipped ({p.error})"
            else:
                text = (
                    f"{p.id}: {'pass' if p.ok else 'FAIL'} max abs {_f(p.max_abs_diff, '.2e')}, "
                    f"rel {_f(p.max_rel_diff, '.2e')} (tolerance {_f(p.tolerance, '.2e')})"
                )
            lines.append(textwrap.fill(text, width, initial_indent="  ", subsequent_indent="    "))
    notes = [f"not measured: {n}" for n in result.not_measured] + list(result.warnings)
    for s in result.serves:  # one note per step: the noise warnings repeat per batch size
        if s.warnings:
            notes.append(f"{s.id}: " + "; ".join(s.warnings))
    for e in result.exports:
        notes += [f"{e.id}: {n}" for n in e.notes]
    if notes:
        lines.append("Notes:")
        lines += [textwrap.fill(n, width, initial_indent="  - ", subsequent_indent="    ") for n in notes]
    return "\n".join(lines) + "\n"
