"""The table of the time-to-accuracy probe (`advisor probe --accuracy`)."""

from __future__ import annotations

import textwrap

from advisor.render.tables import grid

from advisor.decision.accuracy import gap_verdict, normalize_verdict
from advisor.render.interface import Renderer
from probes.accuracy.models import AccuracySuite


class AccuracyTable(Renderer):
    """The runs, the accuracy gap between frameworks and the Normalize check, wrapped to `width`
    (default 100: the probe's lines are short, it does not follow the terminal)."""

    def __init__(self, width: int | None = None) -> None:
        self.width = width

    def format(self, suite: AccuracySuite) -> str:
        return _summary(suite, self.width or 100)


def _summary(suite: AccuracySuite, width: int) -> str:
    cfg = suite.config
    lines = [
        textwrap.fill(
            f"Time-to-accuracy: LeNet-5 on {suite.data.get('source', 'real data')} ({suite.data.get('train_samples')} train / "
            f"{suite.data.get('test_samples')} test, fixed stratified split), canonical weights, SGD lr {cfg.lr} "
            f"momentum 0.9 wd 5e-4, batch {cfg.batch_size}, {cfg.epochs} epochs, {cfg.seeds} seed(s) interleaved; "
            f"target {cfg.target:.0%} test accuracy; {suite.seconds or 0:.0f} s",
            width,
        ),
        "",
    ]
    rows = []
    for r in suite.runs:
        curve = " ".join(f"{a * 100:.0f}" for a in r.accuracy) or "-"
        to_target = (
            f"{r.epochs_to_target} ep, {r.seconds_to_target:.1f} s ({r.seconds_to_target_steady:.1f} s without compile)"
            if r.epochs_to_target
            else ("not reached" if r.status == "ok" else "-")
        )
        rows.append(
            [
                r.id,
                r.status,
                "-" if r.final_accuracy is None else f"{r.final_accuracy:.1%}",
                to_target,
                "-" if r.compile_seconds is None else f"{r.compile_seconds:.1f}",
                curve if r.status == "ok" else (r.error or "")[:60],
            ]
        )
    lines.append(
        grid(
            rows,
            ["run", "status", "final acc", "to target", "compile s", "accuracy % per epoch"],
            tablefmt="simple",
            disable_numparse=True,
        )
    )
    threads = [f"{r.id} {r.settings['threads']}" for r in suite.runs if "threads_why" in r.settings]
    if threads:
        how = "as --threads asked" if cfg.threads else "the cores found idle just before each run"
        lines.append(textwrap.fill(f"Threads: {how} ({', '.join(threads)}).", width))
    lines.append("")
    for g in suite.gaps:
        lines.append(textwrap.fill(gap_verdict(g)[1], width))
    if suite.normalize_check:
        lines.append(textwrap.fill(normalize_verdict(suite.normalize_check), width))
    for w in suite.warnings:
        lines.append(textwrap.fill(f"note: {w}", width))
    return "\n".join(lines) + "\n"
