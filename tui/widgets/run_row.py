"""One live probe run: its id and status, images/s, a progress bar and a sparkline of step times."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, ProgressBar, Sparkline, Static

from tui.data import fmt_num
from tui.state import RunProgress, run_title

STATUS_STYLE = {
    "ok": "green",
    "done": "green",
    "stable": "green",
    "noisy": "yellow",
    "unusable": "red",
    "running": "cyan",
    "waiting": "dim",
    "failed": "red",
    "timeout": "red",
    "unavailable": "yellow",
    "cancelled": "yellow",
}


class RunRow(Vertical):
    DEFAULT_CSS = """
    RunRow { height: auto; margin-bottom: 1; }
    RunRow > Horizontal { height: 1; }
    RunRow .run-id { width: 1fr; text-style: bold; }
    RunRow .run-ips { width: 22; text-align: right; }
    RunRow ProgressBar { width: 1fr; }
    RunRow Bar { width: 1fr; }
    RunRow Sparkline { width: 24; margin-left: 2; }
    RunRow .run-message { color: $text-muted; height: auto; }
    """

    def __init__(self, progress: RunProgress) -> None:
        super().__init__(classes="run-row")
        self.progress = progress

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Label(run_title(self.progress.run_id), classes="run-id")
            yield Static("", classes="run-ips")
        with Horizontal():
            yield ProgressBar(total=1.0, show_eta=False)
            yield Sparkline([], summary_function=max)
        yield Static("", classes="run-message")

    def on_mount(self) -> None:
        self._ready = True
        self.update_from(self.progress)

    def update_from(self, progress: RunProgress) -> None:
        self.progress = progress
        if not getattr(self, "_ready", False):
            return  # not composed yet: on_mount shows the latest progress
        if not self.is_attached or not self.query(".run-ips"):
            return  # removed while mounting (a new run cleared the rows): nothing left to show
        status = progress.status
        ips = fmt_num(progress.rate, 1, f" {progress.unit}") if progress.rate else ""
        self.query_one(".run-ips", Static).update(Text.assemble((status, STATUS_STYLE.get(status, "")), "  ", ips))
        self.query_one(ProgressBar).update(progress=progress.fraction)
        steps = list(progress.step_ms)
        self.query_one(Sparkline).data = steps
        message = progress.message or ""
        if steps and progress.status in ("running", "waiting"):
            # Live: the latest sample (a mean over its k steps); the finished row says the median.
            message = f"last sample {fmt_num(steps[-1], 1, ' ms')}/step  " + message
        self.query_one(".run-message", Static).update(message)


def show_run_row(container: Vertical, prefix: str, progress: RunProgress) -> None:
    """Update the row of this run in `container`, or mount a new one (ids: prefix + run id)."""
    wid = prefix + "".join(c if c.isalnum() else "-" for c in progress.run_id)
    rows = container.query(f"#{wid}")
    if rows:
        rows.first(RunRow).update_from(progress)
    else:
        row = RunRow(progress)
        row.id = wid
        container.mount(row)
