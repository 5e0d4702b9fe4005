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

from tui.data import cached_runs_lines, fmt_num, fmt_when, get
from tui.providers import as_data
from tui.state import Result, RunProgress

if TYPE_CHECKING:
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

    def show_result(self, result: Optional[Result], cached: bool) -> None:
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
        chart.show(as_data(result))


def title_text(result: Result, cached: bool = False) -> Text:
    config = get(result, "config", default={})
    source = "cached result for this host" if cached else "this session"
    when = fmt_when(get(result, "created"))
    repeat = get(config, "repeat")
    out = Text.assemble(
        ("Scaling", "bold"),
        f"  ({source}" + (f", measured {when}" if when else "") + ")",
        (
            f"  per-rank batch {get(config, 'batch_size', default='?')}; median (min-max) of {repeat} interleaved reps"
            if repeat
            else "",
            "dim",
        ),
    )
    for line in cached_runs_lines("scaling", result) if cached else []:
        out.append(f"\n  {line}", style="dim")
    return out


def label_text(result: Result) -> Text:
    """The label in plain words: CPU contention is not device scaling."""
    text = str(get(result, "label_text", default=""))
    if get(result, "host", "node_rank"):  # another node's part of a multi-node run: node 0 has the result
        return Text.assemble(("Across hosts: ", "bold"), text)
    if get(result, "label") == "cpu-contention":
        return Text.assemble(("! CPU contention: ", "bold yellow"), text)
    return Text.assemble(("Device scaling: ", "bold green"), text)


def table_rows(result: Result) -> list[list]:
    """One row per framework/model and multi-rank count, beside its 1-rank baseline."""
    rows = []
    for fw in get(result, "frameworks", default=[]):
        counts = get(fw, "rank_counts", default=[]) or []
        one = next((c for c in counts if get(c, "ranks") == 1), None)
        multi = [c for c in counts if get(c, "ranks", default=1) > 1] or [None]
        status = str(get(fw, "status", default="?"))
        if counts and not any(get(c, "runs_total") for c in counts):
            status = "not run"  # cancelled before its first launch (the runner calls it failed)
        engine = str(get(fw, "launcher", default="?"))
        if get(fw, "backend"):
            engine += f"/{get(fw, 'backend')}"
        for count in multi:
            gate = get(count, "gate_ok") if count is not None else None
            rows.append(
                [
                    f"{get(fw, 'framework', default='?')}/{get(fw, 'model', default='?')}",
                    str(get(count, "ranks")) if count is not None else "-",
                    Text(status, style=STATUS_STYLE.get(status, "")),
                    spread_text(get(count, "efficiency"), percent=True),
                    spread_text(get(count, "allreduce_share"), percent=True),
                    Text("-")
                    if gate is None
                    else (Text("ok", style="green") if gate else Text("FAIL", style="bold red")),
                    spread_text(get(one, "images_per_second")),
                    spread_text(get(count, "images_per_second")),
                    startup_text(count),
                    engine,
                ]
            )
    return rows


def spread_text(spread: Optional[Result], percent: bool = False) -> str:
    """median (min-max); a single value alone."""
    if spread is None or get(spread, "median") is None:
        return "-"

    def one(value: Optional[float]) -> str:
        return f"{float(value) * 100:.0f}%" if percent else fmt_num(value, 0)

    median, low, high = (get(spread, k) for k in ("median", "min", "max"))
    if get(spread, "n", default=1) < 2 or low is None or high is None:
        return one(median)
    if percent:
        return f"{one(median)} ({float(low) * 100:.0f}-{float(high) * 100:.0f})"
    return f"{one(median)} ({fmt_num(low, 0)}-{fmt_num(high, 0)})"


def startup_text(count: Optional[Result]) -> str:
    """Launcher / communication init / first step (medians, seconds): start-up apart from steady state."""
    if count is None:
        return "-"
    values = [get(count, name, "median") for name in ("launcher_seconds", "init_seconds", "first_step_seconds")]
    if all(v is None for v in values):
        return "-"
    return "/".join(fmt_num(v, 2) for v in values)


def note_lines(result: Result) -> list[Text]:
    lines = [Text("Start-up s N: launcher / communication init / first step, at N ranks", style="dim")]
    for fw in get(result, "frameworks", default=[]):
        if get(fw, "reason"):
            lines.append(
                Text.assemble(
                    ("x ", "red"),
                    (f"{get(fw, 'framework')}/{get(fw, 'model')}: ", "bold"),
                    str(get(fw, "reason"))[:300],
                )
            )
    lines += inter_host_lines(get(result, "inter_host"))
    for warning in get(result, "warnings", default=[]) or []:
        lines.append(Text.assemble(("! ", "yellow"), str(warning)))
    return lines


def inter_host_lines(block: Result) -> list[Text]:
    """A multi-node result (issue 21): the same rank count across hosts vs on node 0 alone, and the link."""
    if not block:
        return []
    link = get(block, "link", default={})
    speed = (
        f"{get(link, 'speed_mbps')} Mb/s" if get(link, "speed_mbps") else (get(link, "speed_source") or "speed unknown")
    )
    lines = [
        Text.assemble(
            ("Across hosts: ", "bold"),
            f"{get(block, 'nnodes')} hosts x {get(block, 'ranks_per_node')} rank(s) (master {get(block, 'master')}), "
            f"over {get(link, 'interface') or 'an unknown interface'} ({get(link, 'source_address') or '?'}; {speed})",
        )
    ]
    for fw in get(block, "frameworks", default=[]) or []:
        head = f"  {get(fw, 'framework')} {get(fw, 'launcher')} {get(fw, 'model')}: "
        status = str(get(fw, "status", default="?"))
        inter, intra = get(fw, "inter"), get(fw, "intra")
        if inter is None:
            lines.append(Text.assemble(head, (status, STATUS_STYLE.get(status, "")), f" {get(fw, 'reason') or ''}"))
            continue
        share = (
            spread_text(get(inter, "allreduce_share"), percent=True)
            if get(inter, "allreduce_share")
            else (get(inter, "allreduce_share_note") or "-")
        )
        lines.append(
            Text.assemble(
                head,
                (status, STATUS_STYLE.get(status, "")),
                f"; step {spread_text(get(inter, 'step_ms'))} ms across hosts vs "
                f"{spread_text(get(intra, 'step_ms'))} ms on one host; allreduce {share} across vs "
                f"{spread_text(get(intra, 'allreduce_share'), percent=True)} on one host",
            )
        )
    return lines
