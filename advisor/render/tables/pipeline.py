"""The table of the input-pipeline probe (`advisor probe --pipeline`)."""

from __future__ import annotations

import textwrap

from advisor.render.tables import grid

from advisor.decision.pipeline import best_rate, feed_fraction, verdict
from advisor.render.interface import Renderer
from probes.pipeline.models import PipelineSuite


class PipelineTable(Renderer):
    """The loaders alone, feeding a step and the step alone; with `feed` (samples/s per device,
    devices: `--feed 2400x8`) the share of the devices each framework's fastest loader keeps busy.
    Wrapped to `width` (default 100)."""

    def __init__(self, feed: tuple[float, int] | None = None, width: int | None = None) -> None:
        self.feed, self.width = feed, width

    def format(self, suite: PipelineSuite) -> str:
        return _summary(suite, self.feed, self.width or 100)


def _summary(suite: PipelineSuite, feed: tuple[float, int] | None, width: int) -> str:
    def sps(rate) -> str:
        return "-" if rate is None or rate.samples_per_second is None else f"{rate.samples_per_second:,.0f}"

    lines = [
        textwrap.fill(
            f"Input pipeline on {suite.data.get('source')} ({suite.data.get('samples')} images "
            f"{'x'.join(map(str, suite.data.get('shape', [])))} uint8), batch {suite.config.batch_size}, "
            f"{suite.config.batches} timed batches per measurement; {suite.seconds or 0:.0f} s",
            width,
        ),
        "",
    ]
    rows = [[r.id, r.status, sps(r.alone), sps(r.with_step), sps(r.step_only), verdict(r)[:70]] for r in suite.runs]
    lines.append(
        grid(
            rows,
            ["loader", "status", "alone /s", "with step /s", "step alone /s", "verdict"],
            tablefmt="simple",
            disable_numparse=True,
        )
    )
    if feed:
        rate, devices = feed
        lines.append("")
        for fw in suite.config.frameworks:
            best = best_rate(suite, fw)
            if best:
                share = feed_fraction(best[0], rate, devices)
                lines.append(
                    textwrap.fill(
                        f"{fw}: its fastest loader here ({best[1]}, {best[0]:,.0f} samples/s) would feed "
                        f"{share:.0%} of {devices} device(s) at {rate:,.0f} samples/s each",
                        width,
                    )
                )
    return "\n".join(lines) + "\n"
