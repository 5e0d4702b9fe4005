"""The deployment, accuracy and input-pipeline probes' parts of the Probes screen, and
the generic panel any other registered probe kind gets (ResultPanel).

Each panel is the ScalingPanel's pattern: a status line, one live row per step or run while it
measures, then (when finished) its tables, notes and charts; a crashing or failing step is a row
with its status and the reason. The panels read the app's state only (the screen tells them when it
changed) and draw from the results as the runners return them: the kind's Result model
(probes.base.KINDS[kind].Result; tui.state validates a mapping into it where it enters the state)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union

from pydantic import BaseModel
from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from probes.base import KINDS
from tui import providers
from advisor.render.tables import generic
from advisor.render.tables.generic import fields, listed, result_runs, run_columns
from tui.data import fmt_num, fmt_when, given
from tui.state import Measurement, RunProgress

if TYPE_CHECKING:
    from advisor.report import Report
    from probes.accuracy.models import AccuracyGap, AccuracySuite
    from probes.deploy.models import DeployResult, ExportStep, ParityCheck
    from probes.pipeline.models import PipelineRun, PipelineSuite
    from probes.transformer.models import GptResult
    from tui.app import AdvisorApp

    # The results the panels show: each panel's kind's Result model.
    PanelResult = Union[DeployResult, AccuracySuite, PipelineSuite, GptResult]
from tui.widgets.charts import AccuracyChart
from tui.widgets.run_row import STATUS_STYLE, show_run_row


def status_cell(status: Optional[str]) -> Text:
    status = str(status or "?")
    return Text(status, style=STATUS_STYLE.get(status, ""))


def _short(text: object, width: int) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= width else text[: width - 3] + "..."


class MeasurementPanel(Vertical):
    """One kind of measurement: subclasses name the kind, their tables and how to fill them."""

    KIND = ""
    HEADING = ""
    IDLE = ""  # the status line before the first run
    TABLES: dict[str, tuple[str, ...]] = {}  # table id suffix -> columns

    def compose(self) -> ComposeResult:
        prefix = self.KIND
        yield Static(id=f"{prefix}-status")
        yield Static(id=f"{prefix}-title")
        for name in self.TABLES:
            yield Static(id=f"{prefix}-{name}-caption", classes="table-caption")
            yield DataTable(id=f"{prefix}-{name}-table", zebra_stripes=True, cursor_type="row")
        yield Static(id=f"{prefix}-notes")
        yield from self.extra()
        yield Vertical(id=f"{prefix}-runs")

    def extra(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        for name, columns in self.TABLES.items():
            self.query_one(f"#{self.KIND}-{name}-table", DataTable).add_columns(*columns)
        self.display = False  # shown once the kind has run (or was asked to): the screen stays short

    def measurement(self, app: AdvisorApp) -> Measurement:
        return app.state.kinds[self.KIND]

    def show_all(self, app: AdvisorApp) -> None:
        self.report = getattr(app.state, "report", None)  # a panel may set its result against it
        state = self.measurement(app)
        self.display = bool(state.running or state.result is not None or state.runs)
        self.show_status(app)
        runs = self.query_one(f"#{self.KIND}-runs", Vertical)
        if not state.runs:
            runs.remove_children()
        for progress in state.runs.values():
            self.show_run(progress)
        self.show_result(None if state.running else state.result)

    def clear_runs(self) -> None:
        self.query_one(f"#{self.KIND}-runs", Vertical).remove_children()
        self.display = True

    def show_status(self, app: AdvisorApp) -> None:
        state = self.measurement(app)
        if state.running:
            clock = state.clock  # advisor.progress.ProbeProgress: planned total and a countdown ETA
            if clock is not None:
                progress = clock.status()
            else:
                done = sum(1 for p in state.runs.values() if p.status not in ("running", "waiting"))
                progress = f"{done} finished so far"
            text = Text.assemble(
                (f"{self.HEADING} running", "bold cyan"),
                f": {progress} (one child process each; c cancels)",
            )
        elif state.result is None:
            text = Text(self.IDLE, style="italic")
        else:
            text = Text("")
        self.query_one(f"#{self.KIND}-status", Static).update(text)

    def show_run(self, progress: RunProgress) -> None:
        self.display = True
        show_run_row(self.query_one(f"#{self.KIND}-runs", Vertical), f"{self.KIND}-run-", progress)

    def show_result(self, result: Optional[PanelResult]) -> None:
        title = self.query_one(f"#{self.KIND}-title", Static)
        notes = self.query_one(f"#{self.KIND}-notes", Static)
        tables = {name: self.query_one(f"#{self.KIND}-{name}-table", DataTable) for name in self.TABLES}
        captions = {name: self.query_one(f"#{self.KIND}-{name}-caption", Static) for name in self.TABLES}
        for table in tables.values():
            table.clear()
        if result is None:
            title.update("")
            notes.update("")
            for name in self.TABLES:
                tables[name].display = captions[name].display = False
            self.show_extra(None)
            return
        title.update(self.title_text(result))
        for name, (caption, rows) in self.table_rows(result).items():
            tables[name].display = captions[name].display = True
            captions[name].update(Text(caption, style="bold"))
            for row in rows:
                tables[name].add_row(*row)
        notes.update(Group(*self.note_lines(result)))
        self.show_extra(result)

    def show_extra(self, result: Optional[PanelResult]) -> None:
        pass

    def title_text(self, result: PanelResult) -> Text:
        when = fmt_when(getattr(result, "created", None))  # a kind's Result may have neither
        seconds = getattr(result, "seconds", None)
        return Text.assemble(
            (self.HEADING, "bold"),
            f"  (this session{', measured ' + when if when else ''}"
            + (f", {float(seconds):.0f} s" if seconds is not None else "")
            + ")",
        )

    def table_rows(self, result: PanelResult) -> dict[str, tuple[str, list[list]]]:
        raise NotImplementedError

    def note_lines(self, result: PanelResult) -> list[Text]:
        return []


# ---- any other registered kind ----------------------------------------------------------

APART = ("created", "seconds", "warnings", "verdicts")  # a Result's fields shown in the title and the notes


class ResultPanel(MeasurementPanel):
    """The panel of a registered kind without a panel of its own (probes.base.KINDS): its status line
    and live rows as every panel's, then its Result as it is: a table of its runs (a column per scalar
    field), else its scalar fields as name/value rows; its warnings and verdicts as notes."""

    TABLES = {"runs": ()}  # the columns come with the result (table_rows)

    def __init__(self, kind: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.kind = KINDS[kind]
        self.KIND, self.HEADING = kind, self.kind.label
        self.IDLE = f"{self.kind.label}: not measured yet ({self.kind.summary})."

    def title_text(self, result: BaseModel) -> Text:
        head = super().title_text(result)
        if result_runs(result):  # the table holds the runs: the Result's own figures go under the title
            figures = "; ".join(f"{name} {text}" for name, text in scalar_fields(result))
            head.append(f"\n  {figures}" if figures else "", style="dim")
        return head

    def table_rows(self, result: BaseModel) -> dict[str, tuple[str, list[list]]]:
        runs = result_runs(result)
        rate, unit = self.kind.rate
        if runs:
            names = run_columns(runs, rate)
            headers = [unit if n == rate else n.replace("_", " ") for n in names]
            rows = [[cell(n, fields(r).get(n)) for n in names] for r in runs]
            caption = f"{len(runs)} {self.kind.rows}"
        else:
            headers, rows, caption = ["Field", "Value"], [list(f) for f in scalar_fields(result)], "Result"
        table = self.query_one(f"#{self.KIND}-runs-table", DataTable)
        table.clear(columns=True)  # before its rows are added (show_result): this Result's columns
        table.add_columns(*headers)
        return {"runs": (caption, rows)}

    def note_lines(self, result: BaseModel) -> list[Text]:
        lines = [Text.assemble(("- ", "cyan"), str(v)) for v in listed(result, "verdicts")]
        for name, error in generic.run_errors(result):
            lines.append(Text.assemble(("x ", "red"), (f"{name}: ", "bold"), _short(error, 300)))
        return lines + [Text.assemble(("! ", "yellow"), str(w)) for w in listed(result, "warnings")]


def cell(name: str, value: object) -> Union[str, Text]:
    """One table cell: the status styled, any other value as the command line's generic table shows it."""
    if name == "status":
        return status_cell(value if isinstance(value, str) else None)
    return generic.cell(name, value)


def scalar_fields(result: BaseModel) -> list[tuple[str, str]]:
    """(name, value) of the Result's scalar fields and lists of scalars, as the generic table has them
    (its title and notes apart), a list cut at 60 characters."""
    return [(name, _short(text, 60)) for name, text in generic.scalar_fields(result, apart=APART)]


# ---- deployment ----------------------------------------------------------------------

# The engines the deployment probe needs beside the frameworks (probes/deploy/engines.py names).
DEPLOY_PACKAGES = (("onnx", "onnx"), ("onnxruntime", "ONNX Runtime"))


class DeployPanel(MeasurementPanel):
    KIND = "deploy"
    HEADING = "Deployment"
    IDLE = (
        "Deployment: not measured yet. Deploy exports each chosen model (ONNX, torch.export, MindIR), "
        "serves every artefact and times it, and checks parity."
    )
    TABLES = {
        "exports": ("Framework", "Format", "Model", "Status", "s", "MB", "Opset", "Operator / error"),
        "serves": ("Engine", "Artefact", "Model", "Status", "P50 ms", "P95", "P99", "img/s", "First s", "Placement"),
    }

    def show_status(self, app: AdvisorApp) -> None:
        super().show_status(app)
        state = self.measurement(app)
        if not state.running and state.result is None:
            try:
                missing = not_installed(providers.deploy_packages())
            except Exception:  # noqa: BLE001 - no probes package: Start says so
                missing = ""
            if missing:
                self.query_one("#deploy-status", Static).update(
                    Text.assemble((self.IDLE + " ", "italic"), (missing, "yellow"))
                )

    def table_rows(self, result: DeployResult) -> dict[str, tuple[str, list[list]]]:
        sizes = result.config.batch_sizes if result.config is not None else []
        small, big = (min(sizes), max(sizes)) if sizes else ("?", "?")
        exports = [
            [
                e.framework,
                e.format,
                e.model,
                status_cell(e.status),
                fmt_num(e.seconds, 2),
                fmt_num(e.size_bytes / 1e6 if e.size_bytes else None, 2),
                str(e.opset or "-"),
                export_problem(e),
            ]
            for e in result.exports
        ]
        serves = []
        for s in result.serves:
            ok = s.status == "ok"
            lat = s.latency_ms or {}  # the timing's statistics: a plain mapping in the model (n, p50, ...)
            serves.append(
                [
                    s.engine,
                    s.artefact,
                    s.model,
                    status_cell(s.status),
                    fmt_num(lat.get("p50"), 3) if ok else "-",
                    fmt_num(lat.get("p95"), 3) if ok else "-",
                    fmt_num(lat.get("p99"), 3) if ok else "-",
                    fmt_num(s.throughput, 0) if ok else "-",
                    fmt_num(s.first_inference_seconds, 2) if ok else "-",
                    placement_text(s.placement) if ok else _short(s.error or "-", 40),
                ]
            )
        return {
            "exports": ("Export: one child per framework and format (s: the export call; MB: the artefact)", exports),
            "serves": (
                f"Serve: latency P50/P95/P99 at batch {small}, throughput at batch {big}, first inference "
                "= load + compile + first call",
                serves,
            ),
        }

    def note_lines(self, result: DeployResult) -> list[Text]:
        lines = [parity_line(p) for p in result.parity]
        if not lines:
            lines.append(Text("Parity: not compared (needs two artefacts served of one model)", style="dim"))
        missing = not_installed(result.engines)
        if missing:
            lines.append(Text.assemble(("! ", "yellow"), missing))
        for step in [*result.serves, *result.exports]:
            if step.status != "ok" and step.error:
                lines.append(Text.assemble(("x ", "red"), (f"{step.id}: ", "bold"), _short(step.error, 300)))
        for note in result.not_measured:
            lines.append(Text.assemble(("- not measured: ", "dim"), note))
        for warning in result.warnings:
            lines.append(Text.assemble(("! ", "yellow"), str(warning)))
        return lines


def not_installed(engines: list[dict]) -> str:
    """'onnx: not installed; ...' for the engines the deployment probe needs and this host lacks.
    `engines`: probes.deploy.engines.installed_engines()'s rows, plain mappings (DeployResult.engines)."""
    rows = {e.get("name"): e for e in engines or []}
    missing = []
    for name, title in DEPLOY_PACKAGES:
        row = rows.get(name)
        if row is not None and not row.get("installed"):
            missing.append(f"{title}: not installed ({row.get('reason') or 'pip install .[deploy]'})")
    if missing:
        missing.append("the ONNX steps are reported as unavailable; MindIR and the source frameworks still run")
    return "; ".join(missing)


def export_problem(step: ExportStep) -> str:
    if step.status == "ok":
        return step.exporter or ""
    operator = step.operator
    error = _short(step.error or "-", 40)
    return f"operator {operator}: {error}" if operator else error


def placement_text(where: Optional[dict]) -> str:
    """'12 on CPU' / '10 on CUDA, 2 elsewhere (CPU fallback: Resize)': the seeds' silent fallback.
    `where`: ServeStep.placement, probes.deploy.placement's per-node summary (a plain mapping in the model)."""
    if not where:
        return "-"
    chosen = str(given(where.get("chosen"), "?")).replace("ExecutionProvider", "")
    fallback = where.get("fallback") or []
    text = f"{given(where.get('nodes'), '?')} on {chosen}"
    if fallback:
        ops = ", ".join(where.get("fallback_ops") or [])
        text += f", {len(fallback)} fell back" + (f" ({ops})" if ops else "")
    return text


def parity_line(check: ParityCheck) -> Text:
    out = Text.assemble(("Parity ", "bold"), f"{check.id}: ")
    if check.status == "skipped":
        return out.append(f"skipped ({check.error or 'nothing to compare'})", style="yellow")
    ok = check.ok
    out.append("ok" if ok else "MISMATCH", style="green" if ok else "bold red")
    if check.max_abs_diff is not None:
        out.append(
            f" max abs {check.max_abs_diff:.1e}"
            + (f" (tolerance {check.tolerance:.1e})" if check.tolerance is not None else ""),
            style="dim",
        )
    if not ok and check.error:
        out.append(f" {check.error}", style="red")
    return out


# ---- time-to-accuracy ----------------------------------------------------------------


class AccuracyPanel(MeasurementPanel):
    KIND = "accuracy"
    HEADING = "Time-to-accuracy"
    IDLE = "Accuracy: not measured yet. Accuracy trains LeNet-5 on real data (sklearn digits) to a target."
    TABLES = {
        "runs": ("Run", "Status", "Final acc", "To target", "s to target", "s w/o compile", "Compile s"),
    }

    def extra(self) -> ComposeResult:
        yield AccuracyChart(id="chart-accuracy")
        yield Static(id="accuracy-legend")  # under the chart, clear of its points

    def show_extra(self, result: Optional[PanelResult]) -> None:
        chart = self.query_one(AccuracyChart)
        legend = self.query_one("#accuracy-legend", Static)
        chart.display = legend.display = result is not None
        if result is not None:
            chart.show(result)
            parts: list = []
            for name, color, marker in chart.legend:
                parts += [(f"{marker} ", f"bold {color}"), f"{name}   "]
            legend.update(Text.assemble("  ", *parts, ("· target", "dim")) if parts else "")

    def title_text(self, result: AccuracySuite) -> Text:
        config = result.config
        head = super().title_text(result)
        head.append(
            f"\n  LeNet-5 on {result.data.get('source') or 'real data'}, target {config.target:.0%}"
            f" test accuracy, {config.epochs} epochs, {config.seeds} seed(s)"
            " interleaved",
            style="dim",
        )
        return head

    def table_rows(self, result: AccuracySuite) -> dict[str, tuple[str, list[list]]]:
        rows = []
        for r in result.runs:
            ok = r.status == "ok"
            final = r.final_accuracy
            epochs = r.epochs_to_target
            rows.append(
                [
                    r.id,
                    status_cell(r.status),
                    f"{final:.1%}" if final is not None else "-",
                    (f"{epochs} epochs" if epochs else "not reached") if ok else _short(r.error or "-", 40),
                    fmt_num(r.seconds_to_target, 1) if epochs else "-",
                    fmt_num(r.seconds_to_target_steady, 1) if epochs else "-",
                    fmt_num(r.compile_seconds, 2),
                ]
            )
        return {"runs": ("Per run (seconds: training wall time to the target, compile in and apart)", rows)}

    def note_lines(self, result: AccuracySuite) -> list[Text]:
        lines = [gap_line(g) for g in result.gaps]
        if not lines:
            lines.append(Text("Gap: not measured (needs finished runs of both frameworks)", style="dim"))
        if result.normalize_check:
            lines.append(normalize_line(result.normalize_check))
        for r in result.runs:
            if r.status != "ok" and r.error:
                lines.append(Text.assemble(("x ", "red"), (f"{r.id}: ", "bold"), _short(r.error, 300)))
        for warning in result.warnings:
            lines.append(Text.assemble(("! ", "yellow"), str(warning)))
        return lines


VERDICT_STYLE = {"same": "bold green", "differs": "bold red", "undecided": "bold yellow"}


def gap_line(gap: AccuracyGap) -> Text:
    """advisor.decision.accuracy.gap_verdict, the one judge of "the same" (the CLI and the report use it)."""
    from advisor.decision.accuracy import gap_verdict

    verdict, why = gap_verdict(gap)
    return Text.assemble(("Gap ", "bold"), (verdict, VERDICT_STYLE.get(verdict, "")), f": {why}")


def normalize_line(check: dict) -> Text:
    """AccuracySuite.normalize_check: the Normalize worker's own JSON (variants, status, error), kept as
    a mapping in the model, so an older shape is read field by field."""
    from advisor.decision.accuracy import normalize_verdict

    try:
        text = normalize_verdict(dict(check))
    except Exception:  # noqa: BLE001 - a check in an older shape: its error or status instead
        text = f"Normalize check: {check.get('error') or check.get('status') or 'not run'}"
    return Text.assemble(("! ", "yellow"), text)


# ---- input pipeline ------------------------------------------------------------------


class PipelinePanel(MeasurementPanel):
    KIND = "pipeline"
    HEADING = "Input pipeline"
    IDLE = (
        "Input pipeline: not measured yet. Pipeline times DataLoader and mindspore.dataset, alone and feeding a step."
    )
    TABLES = {"runs": ("Loader", "Status", "Alone /s", "With step /s", "Step alone /s", "Verdict")}

    def table_rows(self, result: PipelineSuite) -> dict[str, tuple[str, list[list]]]:
        rows = []
        for r in result.runs:
            verdict, style = pipeline_verdict(r)
            rows.append(  # the verdict in a word here; in full under the table
                [
                    r.id,
                    status_cell(r.status),
                    *(
                        fmt_num(rate.samples_per_second if rate else None, 0)
                        for rate in (r.alone, r.with_step, r.step_only)
                    ),
                    Text(verdict.split(":")[0] if style in ("green", "bold red") else _short(verdict, 40), style=style),
                ]
            )
        config = result.config
        caption = (
            f"Samples/s, batch {config.batch_size}, {config.batches} timed "
            "batches; starved = the pipeline alone is slower than the step alone"
        )
        return {"runs": (caption, rows)}

    def note_lines(self, result: PipelineSuite) -> list[Text]:
        from advisor.decision.pipeline import best_rate

        lines = []
        for r in result.runs:
            verdict, style = pipeline_verdict(r)
            if style in ("green", "bold red"):
                lines.append(Text.assemble((f"{r.id}: ", "bold"), (verdict, style)))
        for fw in result.config.frameworks:
            best = best_rate(result, fw)
            if best:
                lines.append(Text(f"{fw}: fastest loader here {best[1]}, {best[0]:,.0f} samples/s alone", style="dim"))
                feed = feed_line(fw, best, getattr(self, "report", None))
                if feed is not None:
                    lines.append(feed)
        for r in result.runs:
            if r.status != "ok" and r.error:
                lines.append(Text.assemble(("x ", "red"), (f"{r.id}: ", "bold"), _short(r.error, 300)))
        return lines


def pipeline_verdict(run: PipelineRun) -> tuple[str, str]:
    """advisor.decision.pipeline's verdict (starved / keeps up), or the failure's reason."""
    from advisor.decision.pipeline import starved, verdict

    is_starved = starved(run)
    style = "" if is_starved is None else ("bold red" if is_starved else "green")
    if is_starved is None and run.status != "ok":
        style = "red"
    return verdict(run), style


# the projections' words for a capped range (advisor.decision.projections._bounded)
CAP_WARNINGS = ("the data loader bounds it", "capped at the published record")


def feed_line(framework: str, best: tuple[float, str], report: Optional[Report]) -> Text | None:
    """The issue's "on 8 x 910B this pipeline would feed 31% of the chips": the fastest loader here
    against the report's projected images/s for the team's target accelerator; None without such a
    projection. A report built with this pipeline carries the share itself (Projection.input_pipeline,
    advisor.decision.pipeline.pipeline_feed, over the projection before the loader capped it): that is
    the figure shown, so the TUI and `advisor report --pipeline` agree. A report built without it (the
    pipeline not yet handed to the builder) is set against its uncapped projection with the same
    arithmetic (feed_share)."""
    from advisor.decision.constants import DEFAULT
    from advisor.decision.pipeline import feed_share

    proj = next(
        (
            p
            for p in (report.projections if report is not None else [])
            if p.framework == framework and p.target != "cpu" and p.images_per_second
        ),
        None,
    )
    if report is None or proj is None or proj.images_per_second is None:
        return None
    devices = proj.devices or 1
    feed = proj.input_pipeline
    if feed is not None and feed.fraction:
        least, most = feed.fraction
        d_low, d_high = feed.device_rate
        low, high = d_low * devices, d_high * devices  # the projection before the loader's cap
    elif any(w.startswith(CAP_WARNINGS) for w in proj.warnings):
        # not yet rebuilt with this pipeline and already capped (the assumed loader bound, a record):
        # a share over the capped rate would read 100%; the line comes with the rebuilt report
        return None
    else:
        low, high = proj.images_per_second.low, proj.images_per_second.high
        _, _, _, _, least, most = feed_share(best[0], low, high, devices, int(DEFAULT["DEVICES_PER_HOST"]))
    share = f"{least:.0%}" if f"{least:.0%}" == f"{most:.0%}" else f"{least:.0%}-{most:.0%}"
    where = f"{devices} x {proj.accelerator or proj.target}"
    workload = report.requirements.workload
    return Text.assemble(
        ("  on ", "dim"),
        (where, "bold"),
        f": this loader would feed {share} of the devices at the projected {low:,.0f}-{high:,.0f} images/s "
        f"({workload.model if workload is not None else 'the workload'}, {proj.basis}); "
        "for the probe's 32x32 images: larger images cost more per sample",
    )
