"""Recommendation: the report's judged document (advisor.review.document, built once by
build_report) formatted for the terminal: its first page (verdict, reasons, what would change it, what
was measured, the confidence) through the Markdown renderer's own first page, so every headline number
is the CLI's; the scores with the per-criterion breakdown and the evidence behind each criterion, the
projections, the risk register, the stack to install, the sensitivity and the sign-off. Export the
report as JSON or Markdown (the same renderers as `advisor report`). Nothing here judges."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Header, Input, Label, Select, Static

from tui import actions
from tui.data import fmt_num
from tui.glyphs import ellipsis
from tui.messages import ReportChanged, RequirementsLoaded
from tui.screens.base import AdvisorScreen
from tui.screens.confirm import ConfirmModal
from tui.widgets.charts import ScoreChart, TornadoChart
from tui.widgets.footer import Footer

if TYPE_CHECKING:
    from advisor.review.document import ReviewDocument
    from advisor.decision.evidence import Evidence, Span
    from advisor.report import Report
    from advisor.scan.models import ScanResult

DEFAULT_EXPORT = "advisor-report"
EXTENSIONS = {"json": ".json", "markdown": ".md", "html": ".html"}
DOCUMENT_PANELS = ("#rec-register", "#rec-stack", "#rec-sensitivity", "#rec-signoff")
EVIDENCE_STYLE = {"measured": "green", "knowledge": "cyan", "requirement": "magenta", "estimated": "yellow"}


class RecommendationScreen(AdvisorScreen):
    SUB_TITLE = "Recommendation"
    ACTIONS = actions.RECOMMENDATION
    BINDINGS = actions.bindings(ACTIONS)

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="rec-body"):
            yield Static(id="rec-stale")  # "recomputing" while the verdict below is for older inputs
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
            yield Static(id="rec-register", classes="panel")
            yield Static(id="rec-stack", classes="panel")
            yield Static(id="rec-sensitivity", classes="panel")
            yield Static(id="rec-signoff", classes="panel")
            with Horizontal(id="rec-export-row"):
                yield Label("Export to", classes="choice-label")
                yield Input(DEFAULT_EXPORT, id="rec-export-path", compact=True)
                yield Button("JSON", id="rec-export-json", compact=True)
                yield Button("Markdown", id="rec-export-md", compact=True)
                yield Button("HTML", id="rec-export-html", compact=True)
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
        state = self.app.state
        report = state.report
        stale = self.query_one("#rec-stale", Static)
        stale.display = state.report_stale and report is not None
        if stale.display:
            stale.update(
                Text.assemble(
                    (f"Recomputing{ellipsis()} ", "bold yellow"),
                    ("the verdict below is for the inputs before your latest change", "yellow"),
                )
            )
        verdict = self.query_one("#rec-verdict", Static)
        verdict.set_class(stale.display, "-stale")
        if report is not None and report is getattr(self, "_drawn", None):
            return  # the same report: only whether it is stale changed
        self._drawn = report
        statics = ("#rec-scores", "#rec-evidence", "#rec-projections", *DOCUMENT_PANELS)
        if report is None:
            why = state.report_error or f"recomputing the recommendation{ellipsis()}"
            verdict.update(Text.assemble(("No recommendation yet: ", "bold"), why))
            for sid in statics:
                self.query_one(sid, Static).update("")
            self.query_one("#rec-charts").display = False
            self.query_one("#rec-scan").display = False
            return
        self.query_one("#rec-charts").display = True
        self.query_one(ScoreChart).show(report.scores)
        self.query_one(TornadoChart).show(report.sensitivity)
        verdict.update(first_page_view(report))
        self.query_one("#rec-scores", Static).update(scores_table(report))
        select = self.query_one("#rec-evidence-for", Select)
        workflows = [s.workflow for s in report.scores]
        if getattr(self, "_workflows", None) != workflows:
            self._workflows = workflows
            with self.prevent(Select.Changed):
                select.set_options([(w, w) for w in workflows])
        chosen = select.value if select.value != Select.NULL else report.recommendation.workflow
        self.query_one("#rec-evidence", Static).update(evidence_view(report, chosen))
        self.query_one("#rec-projections", Static).update(projections_view(report))
        scan = self.query_one("#rec-scan", Static)
        scan.display = report.scan is not None
        scan.update(scan_view(report.scan) if report.scan is not None else "")
        doc = report.document
        for sid in DOCUMENT_PANELS:
            self.query_one(sid, Static).display = doc is not None
        if doc is not None:  # the judged document's parts, formatted (advisor.review.document)
            self.query_one("#rec-register", Static).update(register_view(doc))
            self.query_one("#rec-stack", Static).update(stack_view(doc))
            self.query_one("#rec-sensitivity", Static).update(sensitivity_view(report, doc))
            self.query_one("#rec-signoff", Static).update(sign_off_view(doc))
        if getattr(self, "to_top", False):  # the first report of a newly loaded file
            self.to_top = False
            self.call_after_refresh(self._scroll_to_verdict)

    @on(Select.Changed, "#rec-evidence-for")
    def _evidence_for(self) -> None:
        self._drawn = None  # the same report, another workflow's evidence
        self.refresh_view()

    def export_path(self, fmt: str) -> str:
        base = self.query_one("#rec-export-path", Input).value.strip() or DEFAULT_EXPORT
        for ext in EXTENSIONS.values():
            base = base.removesuffix(ext)
        return base + EXTENSIONS[fmt]

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

    @on(Button.Pressed, "#rec-export-html")
    def _export_html(self) -> None:
        self.action_export("html")


def first_page_view(report: Report) -> RenderableType:
    """The report's first page as `advisor report --markdown` prints it: the same renderer
    (advisor.render.markdown.decision_summary) over the report's judged document, so the headline,
    the reasons, what would change it, what was measured and the confidence read the same here."""
    from advisor.render.markdown import decision_summary

    doc = report.document
    if doc is None:  # built by an older version: judging it here would block the screen
        return Text("This report carries no judged document: rebuild it with this version.", style="yellow")
    return Markdown("\n".join(decision_summary(report, doc)))


def scores_table(report: Report) -> RenderableType:
    scores = report.scores
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
        table.add_column(score.workflow, justify="right")
    criteria: list[str] = []
    weights: dict[str, Optional[float]] = {}
    for score in scores:
        for crit in score.criteria:
            if crit.name not in criteria:
                criteria.append(crit.name)
            weights.setdefault(crit.name, crit.weight)
    for name in criteria:
        cells = []
        for score in scores:
            crit = next((c for c in score.criteria if c.name == name), None)
            cells.append(fmt_num(crit.score, 0) if crit and score.applicable else ("n/a" if crit else "-"))
        table.add_row(name, fmt_num(weights.get(name), 2), *cells)
    totals = []
    for score in scores:
        if not score.applicable:
            totals.append(Text("n/a", style="dim"))
        elif score.eligible:
            totals.append(Text(fmt_num(score.total, 1), style="bold"))
        else:
            totals.append(Text("blocked", style="bold red"))
    table.add_section()
    table.add_row(Text("Total", style="bold"), "", *totals)
    blocked = [(s.workflow, s.blocked_by) for s in scores if not s.eligible and s.applicable]
    absent = [(s.workflow, s.not_applicable or "") for s in scores if not s.applicable]
    if not blocked and not absent:
        return table
    notes = [Text(f"{w} is ineligible: {'; '.join(b)}", style="red") for w, b in blocked]
    notes += [Text(f"{w} does not apply (n/a, not a score): {why}", style="dim") for w, why in absent]
    return Group(table, *notes)


def evidence_view(report: Report, workflow: Optional[str]) -> RenderableType:
    score = next((s for s in report.scores if s.workflow == workflow), None)
    if score is None:
        return Text("")
    parts: list = [Text(f"Evidence for {workflow}", style="bold")]
    for crit in score.criteria:
        parts.append(Text.assemble((crit.name, "bold"), f"  {fmt_num(crit.score, 0)}/100"))
        for item in crit.evidence:
            parts.append(evidence_line(item))
    return Group(*parts)


def evidence_line(item: Evidence) -> Text:
    kind, ref, detail = item.kind, item.ref, item.detail
    # The figures as the report's JSON carries them (a value may be any JSON: a number, a list, a flag).
    figures = item.model_dump(mode="json", include={"value", "ci95", "source", "confidence"})
    extra = []
    for key in ("value", "ci95", "source", "confidence"):
        if figures.get(key) not in (None, ""):
            extra.append(evidence_value(key, figures[key]))
    line = Text("    ")
    line.append(f"{kind:11}", style=EVIDENCE_STYLE.get(kind, "dim"))
    if ref:
        line.append(f" {ref}", style="dim")
    if detail:
        line.append(f"  {detail}")
    if extra:
        line.append(f"  ({'; '.join(str(e) for e in extra)})", style="dim")
    return line


def evidence_value(key: str, value: object) -> str:
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


def _range(value: Optional[Span], digits: int = 1) -> str:
    if value is None:
        return "-"
    return f"{fmt_num(value.low, digits)}-{fmt_num(value.high, digits)}"


def projections_view(report: Report) -> RenderableType:
    projections = report.projections
    if not projections:
        return Text.assemble(
            ("Projections  ", "bold"), ("none: add a workload to the requirements to project training time", "dim")
        )
    if all(p.images_per_second is None for p in projections):
        lines = [Text("Projections", style="bold")]
        for detail in dict.fromkeys(p.basis_detail for p in projections):
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
        path = f"{item.path} x{item.devices}"
        if not item.supported:
            table.add_row(item.workflow, path, Text("unsupported", style="red"), "", "", item.basis_detail)
            continue
        table.add_row(
            item.workflow,
            path,
            _range(item.images_per_second, 0),
            _range(item.time_to_train_hours, 1),
            _range(item.compute_cost_usd, 0),
            item.basis,
        )
    return table


def _hours_range(low: float, high: float) -> str:
    """A range of hours rounded as the Markdown document rounds it (advisor.render._fmt)."""
    from advisor.render._fmt import pair

    return pair(low, high, "h")


def _about(hours: float) -> str:
    from advisor.render._fmt import num

    return f"~{num(hours)} h"


def register_view(doc: ReviewDocument) -> RenderableType:
    """The document's risk register: pitfalls by exposure (likelihood x expected hours) with owner,
    milestone and mitigation; the expected total beside the full range."""
    from advisor.review.document import label

    reg = doc.risk_register
    wf = label(reg.workflow)
    if not reg.risks and not reg.also_known:
        return Text.assemble(("Risk register  ", "bold"), (f"no knowledge-base pitfalls apply to {wf}", "dim"))
    head = Text.assemble(
        (f"Risk register for {wf}, by exposure", "bold"),
        f"  expected {_about(reg.expected_hours)}; {_hours_range(*reg.full_hours)} if every pitfall bites in full",
    )
    parts: list[RenderableType] = [head]
    for i, r in enumerate(reg.risks, 1):
        parts.append(
            Text.assemble(
                (f"  {i}. ", "yellow"),
                (r.title, "bold"),
                (f"  {_about(r.exposure)} ({r.likelihood:.0%} x {_hours_range(*r.hours)})", "dim"),
            )
        )
        parts.append(Text(f"     why: {r.why}"))
        parts.append(Text(f"     {r.owner}; retire at the {r.milestone} milestone; {r.mitigation}", style="italic"))
    if reg.also_known:
        known = "; ".join(f"{r.title} ({_about(r.exposure)}, {r.likelihood:.0%})" for r in reg.also_known)
        parts.append(Text(f"  Also known (low exposure here): {known}", style="dim"))
    return Group(*parts)


def stack_view(doc: ReviewDocument) -> RenderableType:
    """The document's stack to install: one table per path (prototype, production), its install lines."""
    if not doc.stacks:
        return Text.assemble(("Stack  ", "bold"), (f"no pinned stack: {doc.stack_note or 'no knowledge base'}", "dim"))
    parts: list[RenderableType] = [
        Text("The stack to install (the knowledge base's compatibility matrix)", style="bold")
    ]
    for st in doc.stacks:
        table = Table(
            title=st.title,
            title_justify="left",
            title_style="bold",
            show_edge=False,
            pad_edge=False,
            expand=True,
            header_style="bold dim",
        )
        table.add_column("Component", no_wrap=True)
        table.add_column("Version")
        table.add_column("Confidence", no_wrap=True)
        for c in st.components:
            table.add_row(c.name, c.version, c.confidence or "-")
        parts.append(table)
        parts += [Text(f"  $ {line}", style="dim") for line in st.install]
    return Group(*parts)


def sensitivity_view(report: Report, doc: ReviewDocument) -> RenderableType:
    """The weights (each criterion's weight moved until the winner changes) and the knowledge base's
    own figures moved within their ranges (the document's search)."""
    from advisor.review.document import weight_flip

    parts: list[RenderableType] = [Text("Sensitivity", style="bold")]
    parts += [Text(f"  weights: {weight_flip(s)}") for s in report.sensitivity] or [Text("  weights: none")]
    k = doc.kb_sensitivity
    if k is not None:
        parts.append(Text(f"  knowledge-base figures ({k.searched} searched, {k.ranges}): {k.note}"))
    return Group(*parts)


def sign_off_view(doc: ReviewDocument) -> RenderableType:
    """Who and what stands behind the document, and the place for the reviewer (the Markdown's sign-off)."""
    so = doc.sign_off
    runs = Counter(r.quality for r in so.probe_runs)
    parts: list[RenderableType] = [
        Text("Sign-off", style="bold"),
        Text(f"  {so.tool} {so.version}; report schema {so.report_schema}, document {doc.document_version}"),
        Text(f"  knowledge base {so.knowledge_base or 'not loaded'}"),
        Text(
            f"  probe runs read: {len(so.probe_runs)}"
            + (f" ({', '.join(f'{n} {q}' for q, n in runs.items())})" if runs else "")
            + f"; {doc.probes.text()}"
        ),
        Text(f"  measured and entering the report: {len(so.measured)} figure(s)"),
        Text("  taken from the knowledge base: " + ("; ".join(so.from_knowledge_base) or "nothing")),
        Text("  reviewed by: ________   date: ________   verdict accepted: yes / no / with changes", style="dim"),
    ]
    return Group(*parts)


SCAN_TOP = 5  # packages shown: the rest is in `advisor scan --by package`
ROLE_ORDER = ("model", "training", "data", "deployment", "tests", "examples", "tools", "other", "mindspore")
ROLE_TITLE = {"training": "training loop", "data": "data pipeline"}


def _hours(pair: tuple[float, float]) -> str:
    low, high = pair
    return f"{low:.0f}-{high:.0f} h" if high >= 10 else f"{low:.1f}-{high:.1f} h"


def scan_view(scan: ScanResult) -> RenderableType:
    """The migration scan of model.code_path (Report.scan): total effort, risk and route, then its
    breakdown per role (model / training loop / data pipeline / deployment / tests) and the top
    packages, from the scan's effort_breakdown (the figures `advisor scan --by package` prints)."""
    head = Text.assemble(
        ("Migration scan ", "bold"),
        f"of {scan.path}: {scan.python_files} Python files, {fmt_num(scan.lines, 0)} lines; effort ",
        (_hours(scan.effort_hours), "bold"),
        f", risk {scan.risk}, route {scan.route}",
    )
    if scan.nothing_scanned:
        head.append(f"\n  {scan.nothing_scanned}", style="yellow")
    breakdown = scan.effort_breakdown
    if breakdown is None:
        return head
    parts: list = [head]
    roles = sorted(
        breakdown.by_role,
        key=lambda s: ROLE_ORDER.index(s.role) if s.role in ROLE_ORDER else len(ROLE_ORDER),
    )
    for title, shares, key in (
        ("Effort by role", roles, "role"),
        (f"Top packages (of {len(breakdown.by_package)})", breakdown.by_package[:SCAN_TOP], "package"),
    ):
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
            name = share.name
            if key == "role":
                name = ROLE_TITLE.get(str(share.role), share.role or name)
            cells = [name + (" (excluded)" if share.excluded and "excluded" not in name else "")]
            cells += [str(share.files), fmt_num(share.lines, 0), _hours(share.effort_hours)]
            table.add_row(*cells, style="dim" if share.excluded else None)
        parts.append(table)
    if breakdown.excluded_files:
        parts.append(
            Text(
                f"Excluded from the total: {breakdown.excluded_files} file(s) (tests, examples, tools), "
                f"another {_hours(breakdown.excluded_hours)} if they were ported too",
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
