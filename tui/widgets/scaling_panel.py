"""The scaling probe's part of the Probes screen: one live row per torchrun/msrun launch while it
runs; when it has finished (or from the cache), the table per framework (1-rank and N-rank images/s,
efficiency, allreduce share, gate, start-up) under the result's label, which says plainly when the
figures are CPU contention, not device scaling. The table comes before the launch rows: a run makes
a dozen launches, and the summary is what the reader wants first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from tui.data import cached_runs_lines, fmt_num, fmt_when
from tui.state import RunProgress

if TYPE_CHECKING:
    from probes.scaling.models import InterHost, RankCount, ScalingResult, Spread
    from tui.app import AdvisorApp
from tui.widgets.charts import ScalingChart
from tui.widgets.run_row import show_run_row

# The figures that answer "does adding ranks help" first, so they show at 80 columns.
COLUMNS = (
    "Framework",
    "N",
    "Status",
    "Efficiency",
    "Allreduce",
    "Gate",
    "1 rank img/s",
    "N ranks img/s",
    "Start-up s N",
    "Engine",
)
STATUS_STYLE = {
    "ok": "green",
    "partial": "yellow",
    "failed": "red",
    "unavailable": "yellow",
    "cancelled": "yellow",
    "not run": "dim",
}


class ScalingPanel(Vertical):
    """Shows the app's scaling state (the screen tells it when that changes)."""

    def compose(self) -> ComposeResult:
        yield Static(id="scaling-status")
        yield Static(id="scaling-title")
        yield Static(id="scaling-label")
        yield DataTable(id="scaling-table", zebra_stripes=True, cursor_type="row")
        yield Static(id="scaling-notes")
        yield ScalingChart(id="chart-scaling")
        yield Vertical(id="scaling-runs")

    def on_mount(self) -> None:
        self.query_one("#scaling-table", DataTable).add_columns(*COLUMNS)

    def show_all(self, app: AdvisorApp) -> None:
        self.show_status(app)
        runs = self.query_one("#scaling-runs", Vertical)
        if not app.state.scaling.runs:
            runs.remove_children()
        for progress in app.state.scaling.runs.values():
            self.show_run(progress)
        # While a run goes on, its launch rows are the news; the previous table would mislead.
        self.show_result(None if app.state.scaling.running else app.state.scaling.result, app.state.scaling.cached)

    def clear_runs(self) -> None:
        self.query_one("#scaling-runs", Vertical).remove_children()

    def show_status(self, app: AdvisorApp) -> None:
        if app.state.scaling.running:
            done = sum(1 for p in app.state.scaling.runs.values() if p.status not in ("running", "waiting"))
            text = Text.assemble(
                ("Scaling probe running", "bold cyan"),
                f": {app.state.scaling.fraction:.0%}, {done} launch(es) finished "
                "(torchrun/msrun, one at a time; c cancels)",
            )
        elif app.state.scaling.result is None:
            text = Text(
                "Scaling: not measured yet. Scaling (d) runs each framework's own launcher with 1 and N ranks.",
                style="italic",
            )
        else:
            text = Text("")
        self.query_one("#scaling-status", Static).update(text)

    def show_run(self, progress: RunProgress) -> None:
        show_run_row(self.query_one("#scaling-runs", Vertical), "scaling-run-", progress)

    def show_result(self, result: Optional[ScalingResult], cached: bool) -> None:
        table = self.query_one("#scaling-table", DataTable)
        table.clear()
        parts = [self.query_one(f"#scaling-{name}", Static) for name in ("title", "label", "notes")]
        if result is None:
            for part in parts:
                part.update("")
            table.display = False
            self.query_one(ScalingChart).display = False
            return
        title, label, notes = parts
        table.display = True
        title.update(title_text(result, cached))
        label.update(label_text(result))
        for row in table_rows(result):
            table.add_row(*row)
        notes.update(Group(*note_lines(result)))
        chart = self.query_one(ScalingChart)
        chart.display = True
        chart.show(result)


def title_text(result: ScalingResult, cached: bool = False) -> Text:
    config = result.config
    source = "cached result for this host" if cached else "this session"
    when = fmt_when(result.created)
    out = Text.assemble(
        ("Scaling", "bold"),
        f"  ({source}" + (f", measured {when}" if when else "") + ")",
        (f"  per-rank batch {config.batch_size}; median (min-max) of {config.repeat} interleaved reps", "dim"),
    )
    for line in cached_runs_lines("scaling", result) if cached else []:
        out.append(f"\n  {line}", style="dim")
    return out


def label_text(result: ScalingResult) -> Text:
    """The label in plain words: CPU contention is not device scaling."""
    text = result.label_text
    # another node's part of a multi-node run: node 0 has the result (ScalingResult.host: the host
    # summary, a plain mapping in the model)
    if result.host.get("node_rank"):
        return Text.assemble(("Across hosts: ", "bold"), text)
    if result.label == "cpu-contention":
        return Text.assemble(("! CPU contention: ", "bold yellow"), text)
    return Text.assemble(("Device scaling: ", "bold green"), text)


def table_rows(result: ScalingResult) -> list[list]:
    """One row per framework/model and multi-rank count, beside its 1-rank baseline."""
    rows = []
    for fw in result.frameworks:
        counts = fw.rank_counts
        one = next((c for c in counts if c.ranks == 1), None)
        multi: list[Optional[RankCount]] = [c for c in counts if c.ranks > 1] or [None]
        status: str = fw.status
        if counts and not any(c.runs_total for c in counts):
            status = "not run"  # cancelled before its first launch (the runner calls it failed)
        engine = fw.launcher + (f"/{fw.backend}" if fw.backend else "")
        for count in multi:
            gate = count.gate_ok if count is not None else None
            rows.append(
                [
                    f"{fw.framework}/{fw.model}",
                    str(count.ranks) if count is not None else "-",
                    Text(status, style=STATUS_STYLE.get(status, "")),
                    spread_text(count.efficiency if count else None, percent=True),
                    spread_text(count.allreduce_share if count else None, percent=True),
                    Text("-")
                    if gate is None
                    else (Text("ok", style="green") if gate else Text("FAIL", style="bold red")),
                    spread_text(one.images_per_second if one else None),
                    spread_text(count.images_per_second if count else None),
                    startup_text(count),
                    engine,
                ]
            )
    return rows


def spread_text(spread: Optional[Spread], percent: bool = False) -> str:
    """median (min-max); a single value alone."""
    if spread is None:
        return "-"

    def one(value: float) -> str:
        return f"{value * 100:.0f}%" if percent else fmt_num(value, 0)

    if spread.n < 2:
        return one(spread.median)
    if percent:
        return f"{one(spread.median)} ({spread.min * 100:.0f}-{spread.max * 100:.0f})"
    return f"{one(spread.median)} ({fmt_num(spread.min, 0)}-{fmt_num(spread.max, 0)})"


def startup_text(count: Optional[RankCount]) -> str:
    """Launcher / communication init / first step (medians, seconds): start-up apart from steady state."""
    if count is None:
        return "-"
    spreads = (count.launcher_seconds, count.init_seconds, count.first_step_seconds)
    values = [s.median if s is not None else None for s in spreads]
    if all(v is None for v in values):
        return "-"
    return "/".join(fmt_num(v, 2) for v in values)


def note_lines(result: ScalingResult) -> list[Text]:
    lines = [Text("Start-up s N: launcher / communication init / first step, at N ranks", style="dim")]
    for fw in result.frameworks:
        if fw.reason:
            lines.append(Text.assemble(("x ", "red"), (f"{fw.framework}/{fw.model}: ", "bold"), fw.reason[:300]))
    lines += inter_host_lines(result.inter_host)
    for warning in result.warnings:
        lines.append(Text.assemble(("! ", "yellow"), warning))
    return lines


def inter_host_lines(block: Optional[InterHost]) -> list[Text]:
    """A multi-node result: the same rank count across hosts vs on node 0 alone, and the link."""
    if block is None:
        return []
    link = block.link
    speed = f"{link.speed_mbps} Mb/s" if link.speed_mbps else (link.speed_source or "speed unknown")
    lines = [
        Text.assemble(
            ("Across hosts: ", "bold"),
            f"{block.nnodes} hosts x {block.ranks_per_node} rank(s) (master {block.master}), "
            f"over {link.interface or 'an unknown interface'} ({link.source_address or '?'}; {speed})",
        )
    ]
    for fw in block.frameworks:
        head = f"  {fw.framework} {fw.launcher} {fw.model}: "
        status = fw.status
        inter, intra = fw.inter, fw.intra
        if inter is None:
            lines.append(Text.assemble(head, (status, STATUS_STYLE.get(status, "")), f" {fw.reason or ''}"))
            continue
        share = (
            spread_text(inter.allreduce_share, percent=True)
            if inter.allreduce_share
            else (inter.allreduce_share_note or "-")
        )
        lines.append(
            Text.assemble(
                head,
                (status, STATUS_STYLE.get(status, "")),
                f"; step {spread_text(inter.step_ms)} ms across hosts vs "
                f"{spread_text(intra.step_ms if intra else None)} ms on one host; allreduce {share} across vs "
                f"{spread_text(intra.allreduce_share if intra else None, percent=True)} on one host",
            )
        )
    return lines
