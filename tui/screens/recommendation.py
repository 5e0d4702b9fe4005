"""Recommendation: the three workflows' scores with the per-criterion breakdown, the verdict with its
confidence, the evidence behind each criterion, projections for the workload, sensitivity and
pitfalls; export the report as JSON or Markdown (the same renderers as `advisor report`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Footer, Header, Input, Label, Select, Static

from tui import actions
from tui.data import fmt_num, get
from tui.glyphs import ellipsis
from tui.messages import ReportChanged, RequirementsLoaded
from tui.providers import as_data
from tui.screens.base import AdvisorScreen
from tui.screens.confirm import ConfirmModal
from tui.widgets.charts import ScoreChart, TornadoChart

DEFAULT_EXPORT = "advisor-report"
EVIDENCE_STYLE = {"measured": "green", "knowledge": "cyan", "requirement": "magenta", "estimated": "yellow"}


class RecommendationScreen(AdvisorScreen):
    SUB_TITLE = "Recommendation"
    ACTIONS = actions.RECOMMENDATION
    BINDINGS = actions.bindings(ACTIONS)

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="rec-body"):
            yield Static(id="rec-verdict", classes="panel")
            yield Static(id="rec-scores", classes="panel")
            with Horizontal(id="rec-charts"):
                yield ScoreChart(id="chart-scores")
                yield TornadoChart(id="chart-tornado")
            with Horizontal(id="rec-evidence-row"):
                yield Label("Evidence for", classes="choice-label")
                yield Select([], id="rec-evidence-for", allow_blank=True, compact=True, prompt="top workflow")
            yield Static(id="rec-evidence", classes="panel")
            yield Static(id="rec-projections", classes="panel")
            yield Static(id="rec-scan", classes="panel")  # the migration scan of model.code_path, if any
            yield Static(id="rec-sensitivity", classes="panel")
            yield Static(id="rec-pitfalls", classes="panel")
            with Horizontal(id="rec-export-row"):
                yield Label("Export to", classes="choice-label")
                yield Input(DEFAULT_EXPORT, id="rec-export-path", compact=True)
                yield Button("JSON", id="rec-export-json", compact=True)
                yield Button("Markdown", id="rec-export-md", compact=True)
        yield Footer(compact=True, show_command_palette=False)  # ctrl+p is in the help (80 columns)

    def on_report_changed(self, _: ReportChanged) -> None:
        self.when_shown("report", self.refresh_view)

    def on_requirements_loaded(self, _: RequirementsLoaded) -> None:
        # A new file: its report opens at the verdict, not where the old one was scrolled to.
        self.to_top = True
        self.when_shown("to-top", self._scroll_to_verdict)

    def _scroll_to_verdict(self) -> None:
        self.query_one("#rec-body", VerticalScroll).scroll_home(animate=False)

    def refresh_view(self) -> None:
        report = as_data(self.app.state.report)
        verdict = self.query_one("#rec-verdict", Static)
        statics = ("#rec-scores", "#rec-evidence", "#rec-projections", "#rec-sensitivity", "#rec-pitfalls")
        if report is None:
            why = self.app.state.report_error or f"building the report{ellipsis()}"
            verdict.update(Text.assemble(("No recommendation yet: ", "bold"), why))
            for sid in statics:
                self.query_one(sid, Static).update("")
            self.query_one("#rec-charts").display = False
            self.query_one("#rec-scan").display = False
            return
        self.query_one("#rec-charts").display = True
        self.query_one(ScoreChart).show(report)
        self.query_one(TornadoChart).show(report)
        verdict.update(verdict_view(report))
        self.query_one("#rec-scores", Static).update(scores_table(report))
        select = self.query_one("#rec-evidence-for", Select)
        workflows = [str(get(s, "workflow")) for s in get(report, "scores", default=[])]
        if getattr(self, "_workflows", None) != workflows:
            self._workflows = workflows
            with self.prevent(Select.Changed):
                select.set_options([(w, w) for w in workflows])
        chosen = select.value if select.value != Select.NULL else get(report, "recommendation", "workflow")
        self.query_one("#rec-evidence", Static).update(evidence_view(report, chosen))
        self.query_one("#rec-projections", Static).update(projections_view(report))
        scan = self.query_one("#rec-scan", Static)
        scan.display = get(report, "scan") is not None
        scan.update(scan_view(get(report, "scan")) if scan.display else "")
        self.query_one("#rec-sensitivity", Static).update(sensitivity_view(report))
        self.query_one("#rec-pitfalls", Static).update(pitfalls_view(report))
        if getattr(self, "to_top", False):  # the first report of a newly loaded file
            self.to_top = False
            self.call_after_refresh(self._scroll_to_verdict)

    @on(Select.Changed, "#rec-evidence-for")
    def _evidence_for(self) -> None:
        self.refresh_view()

    def export_path(self, fmt: str) -> str:
        base = self.query_one("#rec-export-path", Input).value.strip() or DEFAULT_EXPORT
        for ext in (".json", ".md"):
            base = base.removesuffix(ext)
        return base + (".json" if fmt == "json" else ".md")

    def action_export(self, fmt: str) -> None:
        path = self.export_path(fmt)
        target = Path(path).expanduser().resolve()
        if not target.exists():
            self.app.export_report(fmt, path)
            return

        def answered(overwrite: bool | None) -> None:
            if overwrite:
                self.app.export_report(fmt, path)

        self.app.push_screen(ConfirmModal(f"{target} exists. Overwrite it?", yes="Overwrite", no="Keep it"), answered)

    @on(Button.Pressed, "#rec-export-json")
    def _export_json(self) -> None:
        self.action_export("json")

    @on(Button.Pressed, "#rec-export-md")
    def _export_md(self) -> None:
        self.action_export("markdown")


def verdict_view(report: Any) -> Any:
    rec = get(report, "recommendation", default={})
    workflow = str(get(rec, "workflow", default="?"))
    head = Text.assemble(
        ("Recommendation: ", "bold"),
        (workflow.upper(), "bold reverse green"),
        "   confidence ",
        (str(get(rec, "confidence", default="?")), "bold"),
    )
    margin = get(rec, "margin")
    if margin is not None:
        head.append(f"   margin {fmt_num(margin, 1)} points", style="dim")
    parts: list = [head]
    if get(rec, "runner_up"):
        parts.append(
            Text(
                f"runner-up: {get(rec, 'runner_up')}"
                + ("  (the measured difference lies inside the probes' noise)" if get(rec, "inside_noise") else ""),
                style="dim",
            )
        )
    if get(rec, "summary"):
        parts.append(Text(str(get(rec, "summary"))))
    for reason in get(rec, "reasons", default=[]) or []:
        parts.append(Text(f"  • {_text(reason)}"))
    note = get(report, "probes", "note")
    if note:
        parts.append(Text(f"Probes: {note}", style="italic dim"))
    scaling_note = get(report, "scaling", "note")  # how the scaling probe entered (or could enter)
    if scaling_note:
        parts.append(Text(f"Scaling: {scaling_note}", style="italic dim"))
    return Group(*parts)


def _text(item: Any) -> str:
    if isinstance(item, dict):
        for key in ("text", "message", "statement", "summary", "reason", "note"):
            if item.get(key):
                return str(item[key])
        return ", ".join(f"{k}={v}" for k, v in item.items() if v is not None)
    return str(item)


def scores_table(report: Any) -> Any:
    scores = get(report, "scores", default=[]) or []
    if not scores:
        return Text("")
    table = Table(
        title="Scores (0-100) by criterion",
        title_justify="left",
        title_style="bold",
        show_edge=False,
        pad_edge=False,
        expand=True,
        header_style="bold dim",
    )
    table.add_column("Criterion")
    table.add_column("Weight", justify="right")
    for score in scores:
        table.add_column(str(get(score, "workflow")), justify="right")
    criteria: list[str] = []
    weights: dict[str, Any] = {}
    for score in scores:
        for crit in get(score, "criteria", default=[]) or []:
            name = str(get(crit, "name"))
            if name not in criteria:
                criteria.append(name)
            weights.setdefault(name, get(crit, "weight"))
    for name in criteria:
        cells = []
        for score in scores:
            crit = next((c for c in get(score, "criteria", default=[]) if get(c, "name") == name), None)
            cells.append(fmt_num(get(crit, "score"), 0) if crit else "-")
        table.add_row(name, fmt_num(weights.get(name), 2), *cells)
    totals = []
    for score in scores:
        if get(score, "eligible", default=True):
            totals.append(Text(fmt_num(get(score, "total"), 1), style="bold"))
        else:
            totals.append(Text("blocked", style="bold red"))
    table.add_section()
    table.add_row(Text("Total", style="bold"), "", *totals)
    blocked = [(get(s, "workflow"), get(s, "blocked_by")) for s in scores if not get(s, "eligible", default=True)]
    if not blocked:
        return table
    notes = [Text(f"{w} is ineligible: {_text_list(b)}", style="red") for w, b in blocked]
    return Group(table, *notes)


def _text_list(value: Any) -> str:
    if isinstance(value, list):
        return "; ".join(_text(v) for v in value)
    return _text(value) if value else "a hard constraint"


def evidence_view(report: Any, workflow: Any) -> Any:
    score = next((s for s in get(report, "scores", default=[]) if get(s, "workflow") == workflow), None)
    if score is None:
        return Text("")
    parts: list = [Text(f"Evidence for {workflow}", style="bold")]
    for crit in get(score, "criteria", default=[]) or []:
        parts.append(Text.assemble((f"{get(crit, 'name')}", "bold"), f"  {fmt_num(get(crit, 'score'), 0)}/100"))
        evidence = get(crit, "evidence", default=[]) or []
        if isinstance(evidence, dict):
            evidence = [evidence]
        for item in evidence:
            parts.append(evidence_line(item))
    return Group(*parts)


def evidence_line(item: Any) -> Text:
    if not isinstance(item, dict):
        return Text(f"    {item}")
    kind = str(item.get("kind") or item.get("type") or "")
    ref = item.get("ref") or item.get("id") or item.get("run_id") or item.get("field") or ""
    detail = item.get("note") or item.get("detail") or item.get("statement") or item.get("text") or ""
    extra = []
    for key in ("value", "ci95", "source", "confidence"):
        if item.get(key) not in (None, ""):
            extra.append(evidence_value(key, item[key]))
    line = Text("    ")
    line.append(f"{kind:11}", style=EVIDENCE_STYLE.get(kind, "dim"))
    if ref:
        line.append(f" {ref}", style="dim")
    if detail:
        line.append(f"  {detail}")
    if extra:
        line.append(f"  ({'; '.join(str(e) for e in extra)})", style="dim")
    return line


def evidence_value(key: str, value: Any) -> str:
    """One evidence figure in words: a CI as 'CI95 1,951-2,836', a flag as yes/no, a list joined."""
    if key == "ci95" and isinstance(value, (list, tuple)) and len(value) == 2:
        return f"CI95 {fmt_num(value[0], 1)}-{fmt_num(value[1], 1)}"
    if isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, (list, tuple)):
        text = ", ".join(str(v) for v in value) or "none"
    elif isinstance(value, float):
        text = fmt_num(value, 2)
    else:
        text = str(value)
    return f"= {text}" if key == "value" else f"{key} {text}"


def _range(value: Any, digits: int = 1, unit: str = "") -> str:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return f"{fmt_num(value[0], digits)}-{fmt_num(value[1], digits)}{unit}"
    if isinstance(value, dict) and "low" in value and "high" in value:
        return f"{fmt_num(value['low'], digits)}-{fmt_num(value['high'], digits)}{unit}"
    return fmt_num(value, digits, unit)


def projections_view(report: Any) -> Any:
    projections = get(report, "projections", default=[]) or []
    if not projections:
        return Text.assemble(
            ("Projections  ", "bold"), ("none: add a workload to the requirements to project training time", "dim")
        )
    if all(get(p, "images_per_second") is None for p in projections):
        lines = [Text("Projections", style="bold")]
        for detail in dict.fromkeys(str(get(p, "basis_detail", default="")) for p in projections):
            lines.append(Text(f"  {detail}", style="dim"))
        return Group(*lines)
    table = Table(
        title="Projections for the workload",
        title_justify="left",
        title_style="bold",
        show_edge=False,
        pad_edge=False,
        expand=True,
        header_style="bold dim",
    )
    for col in ("Workflow", "Path", "img/s", "Hours", "USD", "Basis"):
        table.add_column(col, overflow="fold")
    for item in projections:
        path = f"{get(item, 'path', default='')} x{get(item, 'devices', default='?')}"
        if not get(item, "supported", default=True):
            table.add_row(
                str(get(item, "workflow")),
                path,
                Text("unsupported", style="red"),
                "",
                "",
                str(get(item, "basis_detail", default="")),
            )
            continue
        table.add_row(
            str(get(item, "workflow", default="")),
            path,
            _range(get(item, "images_per_second"), 0),
            _range(get(item, "time_to_train_hours"), 1),
            _range(get(item, "compute_cost_usd"), 0),
            str(get(item, "basis", default="")),
        )
    return table


def sensitivity_view(report: Any) -> Any:
    sensitivity = get(report, "sensitivity")
    if not sensitivity:
        return Text("")
    items = (
        sensitivity
        if isinstance(sensitivity, list)
        else [{"criterion": k, **(v if isinstance(v, dict) else {"value": v})} for k, v in sensitivity.items()]
    )
    parts: list = [Text("Sensitivity (weight at which the top workflow changes)", style="bold")]
    for item in items:
        name = get(item, "criterion") or get(item, "name") or "?"
        flip = get(item, "threshold")
        to = get(item, "new_top")
        note = get(item, "note")
        if flip is None and to is None:
            line = f"  {name}: {note or 'no weight changes the verdict'}"
        else:
            line = f"  {name}: at weight {fmt_num(flip, 2)} -> {to or '?'}"
            if note:
                line += f"  ({note})"
        parts.append(Text(line))
    return Group(*parts)


def pitfalls_view(report: Any) -> Any:
    pitfalls = get(report, "pitfalls", default=[]) or []
    if not pitfalls:
        return Text.assemble(("Pitfalls  ", "bold"), ("none known for this situation", "dim"))
    parts: list = [Text(f"Pitfalls ({len(pitfalls)}, by expected cost)", style="bold")]
    for item in pitfalls:
        cost = get(item, "effort_hours")
        head = Text.assemble(("  ! ", "yellow"), (str(get(item, "title", default=get(item, "id"))), "bold"))
        if cost is not None:
            head.append(f"  {_range(cost, 0)} h to fix", style="dim")
        if get(item, "hours_in_field_report") is not None:
            head.append(f" (cost {fmt_num(get(item, 'hours_in_field_report'), 0)} h in a field report)", style="dim")
        workflows = get(item, "workflows", default=[])
        if workflows:
            head.append(f"  [{', '.join(workflows)}]", style="dim")
        parts.append(head)
        if get(item, "fix"):
            parts.append(Text(f"    fix: {get(item, 'fix')}", style="italic"))
    return Group(*parts)


SCAN_TOP = 5  # packages shown: the rest is in `advisor scan --by package`
ROLE_ORDER = ("model", "training", "data", "deployment", "tests", "examples", "tools", "other", "mindspore")
ROLE_TITLE = {"training": "training loop", "data": "data pipeline"}


def _hours(pair: Any) -> str:
    if not pair or len(pair) != 2:
        return "-"
    low, high = (float(v) for v in pair)
    return f"{low:.0f}-{high:.0f} h" if high >= 10 else f"{low:.1f}-{high:.1f} h"


def scan_view(scan: Any) -> Any:
    """The migration scan of model.code_path: total effort, risk and route, then its breakdown per
    role (model / training loop / data pipeline / deployment / tests) and the top packages, from the
    scan's effort_breakdown (the figures `advisor scan --by package` prints)."""
    head = Text.assemble(
        ("Migration scan ", "bold"),
        f"of {get(scan, 'path', default='model.code_path')}: {get(scan, 'python_files', default=0)} Python files, "
        f"{fmt_num(get(scan, 'lines', default=0), 0)} lines; effort ",
        (_hours(get(scan, "effort_hours")), "bold"),
        f", risk {get(scan, 'risk', default='?')}, route {get(scan, 'route', default='?')}",
    )
    if get(scan, "nothing_scanned"):
        head.append(f"\n  {get(scan, 'nothing_scanned')}", style="yellow")
    breakdown = get(scan, "effort_breakdown")
    if not breakdown:
        return head
    parts: list = [head]
    roles = sorted(
        get(breakdown, "by_role", default=[]) or [],
        key=lambda s: ROLE_ORDER.index(get(s, "role")) if get(s, "role") in ROLE_ORDER else len(ROLE_ORDER),
    )
    for title, shares, key in (
        ("Effort by role", roles, "role"),
        (f"Top packages (of {len(get(breakdown, 'by_package', default=[]) or [])})", None, "package"),
    ):
        if shares is None:
            shares = (get(breakdown, "by_package", default=[]) or [])[:SCAN_TOP]
        if not shares:
            continue
        table = Table(
            title=title,
            title_justify="left",
            title_style="bold",
            show_edge=False,
            pad_edge=False,
            expand=True,
            header_style="bold dim",
        )
        table.add_column("Role" if key == "role" else "Package")
        for name in ("Files", "Lines", "Hours"):
            table.add_column(name, justify="right")
        for share in shares:
            name = str(get(share, "name", default="?"))
            excluded = get(share, "excluded", default=False)
            if key == "role":
                name = ROLE_TITLE.get(str(get(share, "role")), str(get(share, "role") or name))
            cells = [name + (" (excluded)" if excluded and "excluded" not in name else "")]
            cells += [
                str(get(share, "files", default=0)),
                fmt_num(get(share, "lines", default=0), 0),
                _hours(get(share, "effort_hours")),
            ]
            table.add_row(*cells, style="dim" if excluded else None)
        parts.append(table)
    if get(breakdown, "excluded_files"):
        parts.append(
            Text(
                f"Excluded from the total: {get(breakdown, 'excluded_files')} file(s) (tests, examples, tools), "
                f"another {_hours(get(breakdown, 'excluded_hours'))} if they were ported too",
                style="dim",
            )
        )
    parts.append(
        Text(
            "Each share adds the low and the high ends of what it holds; the total combines the ranges "
            "(low + root-sum-square). Per file and item: advisor scan PATH --by file",
            style="dim",
        )
    )
    return Group(*parts)
