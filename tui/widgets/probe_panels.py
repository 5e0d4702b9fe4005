"""The deployment, accuracy and input-pipeline probes' parts of the Probes screen (issues 17, 18).

Each panel is the ScalingPanel's pattern: a status line, one live row per step or run while it
measures, then (when finished) its tables, notes and charts; a crashing or failing step is a row
with its status and the reason. The panels read the app's state only (the screen tells them when it
changed) and draw from the results as the runners return them (pydantic models or mappings)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from tui import providers
from tui.data import fmt_num, fmt_when, get
from tui.state import Measurement, Result, RunProgress

if TYPE_CHECKING:
    from advisor.report import Report
    from probes.pipeline.models import PipelineSuite
    from tui.app import AdvisorApp
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
        return getattr(app.state, self.KIND)

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

    def show_result(self, result: Optional[Result]) -> None:
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

    def show_extra(self, result: Optional[Result]) -> None:
        pass

    def title_text(self, result: Result) -> Text:
        when = fmt_when(get(result, "created"))
        seconds = get(result, "seconds")
        return Text.assemble(
            (self.HEADING, "bold"),
            f"  (this session{', measured ' + when if when else ''}"
            + (f", {float(seconds):.0f} s" if seconds is not None else "")
            + ")",
        )

    def table_rows(self, result: Result) -> dict[str, tuple[str, list[list]]]:
        raise NotImplementedError

    def note_lines(self, result: Result) -> list[Text]:
        return []


# ---- deployment (issue 17) ----------------------------------------------------------------------

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

    def table_rows(self, result: Result) -> dict[str, tuple[str, list[list]]]:
        config = get(result, "config", default={})
        sizes = get(config, "batch_sizes", default=[]) or []
        small, big = (min(sizes), max(sizes)) if sizes else ("?", "?")
        exports = [
            [
                str(get(e, "framework", default="?")),
                str(get(e, "format", default="?")),
                str(get(e, "model", default="?")),
                status_cell(get(e, "status")),
                fmt_num(get(e, "seconds"), 2),
                fmt_num(get(e, "size_bytes") / 1e6 if get(e, "size_bytes") else None, 2),
                str(get(e, "opset") or "-"),
                export_problem(e),
            ]
            for e in get(result, "exports", default=[]) or []
        ]
        serves = []
        for s in get(result, "serves", default=[]) or []:
            ok = get(s, "status") == "ok"
            lat = get(s, "latency_ms", default={}) or {}
            serves.append(
                [
                    str(get(s, "engine", default="?")),
                    str(get(s, "artefact", default="?")),
                    str(get(s, "model", default="?")),
                    status_cell(get(s, "status")),
                    fmt_num(get(lat, "p50"), 3) if ok else "-",
                    fmt_num(get(lat, "p95"), 3) if ok else "-",
                    fmt_num(get(lat, "p99"), 3) if ok else "-",
                    fmt_num(get(s, "throughput"), 0) if ok else "-",
                    fmt_num(get(s, "first_inference_seconds"), 2) if ok else "-",
                    placement_text(get(s, "placement")) if ok else _short(get(s, "error") or "-", 40),
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

    def note_lines(self, result: Result) -> list[Text]:
        lines = [parity_line(p) for p in get(result, "parity", default=[]) or []]
        if not lines:
            lines.append(Text("Parity: not compared (needs two artefacts served of one model)", style="dim"))
        missing = not_installed(get(result, "engines", default=[]) or [])
        if missing:
            lines.append(Text.assemble(("! ", "yellow"), missing))
        for s in get(result, "serves", default=[]) or []:
            if get(s, "status") not in ("ok", None) and get(s, "error"):
                lines.append(Text.assemble(("x ", "red"), (f"{get(s, 'id')}: ", "bold"), _short(get(s, "error"), 300)))
        for e in get(result, "exports", default=[]) or []:
            if get(e, "status") not in ("ok", None) and get(e, "error"):
                lines.append(Text.assemble(("x ", "red"), (f"{get(e, 'id')}: ", "bold"), _short(get(e, "error"), 300)))
        for note in get(result, "not_measured", default=[]) or []:
            lines.append(Text.assemble(("- not measured: ", "dim"), str(note)))
        for warning in get(result, "warnings", default=[]) or []:
            lines.append(Text.assemble(("! ", "yellow"), str(warning)))
        return lines


def not_installed(engines: list) -> str:
    """'onnx: not installed; ...' for the engines the deployment probe needs and this host lacks."""
    rows = {get(e, "name"): e for e in engines or []}
    missing = []
    for name, title in DEPLOY_PACKAGES:
        row = rows.get(name)
        if row is not None and not get(row, "installed"):
            missing.append(f"{title}: not installed ({get(row, 'reason') or 'pip install .[deploy]'})")
    if missing:
        missing.append("the ONNX steps are reported as unavailable; MindIR and the source frameworks still run")
    return "; ".join(missing)


def export_problem(step: Result) -> str:
    if get(step, "status") == "ok":
        return str(get(step, "exporter") or "")
    operator = get(step, "operator")
    error = _short(get(step, "error") or "-", 40)
    return f"operator {operator}: {error}" if operator else error


def placement_text(where: Optional[Result]) -> str:
    """'12 on CPU' / '10 on CUDA, 2 elsewhere (CPU fallback: Resize)': the seeds' silent fallback."""
    if not where:
        return "-"
    chosen = str(get(where, "chosen", default="?")).replace("ExecutionProvider", "")
    fallback = get(where, "fallback", default=[]) or []
    text = f"{get(where, 'nodes', default='?')} on {chosen}"
    if fallback:
        ops = ", ".join(get(where, "fallback_ops", default=[]) or [])
        text += f", {len(fallback)} fell back" + (f" ({ops})" if ops else "")
    return text


def parity_line(check: Result) -> Text:
    out = Text.assemble(("Parity ", "bold"), f"{get(check, 'id', default='?')}: ")
    status = get(check, "status")
    if status == "skipped":
        return out.append(f"skipped ({get(check, 'error') or 'nothing to compare'})", style="yellow")
    ok = bool(get(check, "ok"))
    out.append("ok" if ok else "MISMATCH", style="green" if ok else "bold red")
    if get(check, "max_abs_diff") is not None:
        out.append(
            f" max abs {float(get(check, 'max_abs_diff')):.1e}"
            + (f" (tolerance {float(get(check, 'tolerance')):.1e})" if get(check, "tolerance") is not None else ""),
            style="dim",
        )
    if not ok and get(check, "error"):
        out.append(f" {get(check, 'error')}", style="red")
    return out


# ---- time-to-accuracy (issue 18) ----------------------------------------------------------------


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

    def show_extra(self, result: Optional[Result]) -> None:
        chart = self.query_one(AccuracyChart)
        legend = self.query_one("#accuracy-legend", Static)
        chart.display = legend.display = result is not None
        if result is not None:
            chart.show(result)
            parts: list = []
            for name, color, marker in chart.legend:
                parts += [(f"{marker} ", f"bold {color}"), f"{name}   "]
            legend.update(Text.assemble("  ", *parts, ("· target", "dim")) if parts else "")

    def title_text(self, result: Result) -> Text:
        config = get(result, "config", default={})
        data = get(result, "data", default={}) or {}
        head = super().title_text(result)
        head.append(
            f"\n  LeNet-5 on {get(data, 'source') or 'real data'}, target {float(get(config, 'target', default=0)):.0%}"
            f" test accuracy, {get(config, 'epochs', default='?')} epochs, {get(config, 'seeds', default='?')} seed(s)"
            " interleaved",
            style="dim",
        )
        return head

    def table_rows(self, result: Result) -> dict[str, tuple[str, list[list]]]:
        rows = []
        for r in get(result, "runs", default=[]) or []:
            ok = get(r, "status") == "ok"
            final = get(r, "final_accuracy")
            epochs = get(r, "epochs_to_target")
            rows.append(
                [
                    str(get(r, "id", default="?")),
                    status_cell(get(r, "status")),
                    f"{float(final):.1%}" if final is not None else "-",
                    (f"{epochs} epochs" if epochs else "not reached") if ok else _short(get(r, "error") or "-", 40),
                    fmt_num(get(r, "seconds_to_target"), 1) if epochs else "-",
                    fmt_num(get(r, "seconds_to_target_steady"), 1) if epochs else "-",
                    fmt_num(get(r, "compile_seconds"), 2),
                ]
            )
        return {"runs": ("Per run (seconds: training wall time to the target, compile in and apart)", rows)}

    def note_lines(self, result: Result) -> list[Text]:
        lines = [gap_line(g) for g in get(result, "gaps", default=[]) or []]
        if not lines:
            lines.append(Text("Gap: not measured (needs finished runs of both frameworks)", style="dim"))
        check = get(result, "normalize_check")
        if check:
            lines.append(normalize_line(check))
        for r in get(result, "runs", default=[]) or []:
            if get(r, "status") != "ok" and get(r, "error"):
                lines.append(Text.assemble(("x ", "red"), (f"{get(r, 'id')}: ", "bold"), _short(get(r, "error"), 300)))
        for warning in get(result, "warnings", default=[]) or []:
            lines.append(Text.assemble(("! ", "yellow"), str(warning)))
        return lines


VERDICT_STYLE = {"same": "bold green", "differs": "bold red", "undecided": "bold yellow"}


def gap_line(gap: Result) -> Text:
    """advisor.decision.accuracy.gap_verdict, the one judge of "the same" (the CLI and the report use it)."""
    from advisor.decision.accuracy import gap_verdict
    from probes.accuracy.models import AccuracyGap

    model = gap if isinstance(gap, AccuracyGap) else AccuracyGap.model_validate(gap)
    verdict, why = gap_verdict(model)
    return Text.assemble(("Gap ", "bold"), (verdict, VERDICT_STYLE.get(verdict, "")), f": {why}")


def normalize_line(check: dict) -> Text:
    from advisor.decision.accuracy import normalize_verdict

    try:
        text = normalize_verdict(dict(check))
    except Exception:  # noqa: BLE001 - a check in an older shape: its error or status instead
        text = f"Normalize check: {get(check, 'error') or get(check, 'status') or 'not run'}"
    return Text.assemble(("! ", "yellow"), text)


# ---- input pipeline (issue 18) ------------------------------------------------------------------


class PipelinePanel(MeasurementPanel):
    KIND = "pipeline"
    HEADING = "Input pipeline"
    IDLE = (
        "Input pipeline: not measured yet. Pipeline times DataLoader and mindspore.dataset, alone and feeding a step."
    )
    TABLES = {"runs": ("Loader", "Status", "Alone /s", "With step /s", "Step alone /s", "Verdict")}

    def table_rows(self, result: Result) -> dict[str, tuple[str, list[list]]]:
        rows = []
        for r in get(result, "runs", default=[]) or []:
            verdict, style = pipeline_verdict(r)
            rows.append(  # the verdict in a word here; in full under the table
                [
                    str(get(r, "id", default="?")),
                    status_cell(get(r, "status")),
                    fmt_num(get(r, "alone", "samples_per_second"), 0),
                    fmt_num(get(r, "with_step", "samples_per_second"), 0),
                    fmt_num(get(r, "step_only", "samples_per_second"), 0),
                    Text(verdict.split(":")[0] if style in ("green", "bold red") else _short(verdict, 40), style=style),
                ]
            )
        config = get(result, "config", default={})
        caption = (
            f"Samples/s, batch {get(config, 'batch_size', default='?')}, {get(config, 'batches', default='?')} timed "
            "batches; starved = the pipeline alone is slower than the step alone"
        )
        return {"runs": (caption, rows)}

    def note_lines(self, result: Result) -> list[Text]:
        from advisor.decision.pipeline import best_rate

        lines = []
        for r in get(result, "runs", default=[]) or []:
            verdict, style = pipeline_verdict(r)
            if style in ("green", "bold red"):
                lines.append(Text.assemble((f"{get(r, 'id')}: ", "bold"), (verdict, style)))
        suite = as_pipeline_suite(result)
        for fw in get(result, "config", "frameworks", default=[]) or []:
            best = best_rate(suite, fw) if suite is not None else None
            if best:
                lines.append(Text(f"{fw}: fastest loader here {best[1]}, {best[0]:,.0f} samples/s alone", style="dim"))
                feed = feed_line(fw, best, getattr(self, "report", None))
                if feed is not None:
                    lines.append(feed)
        for r in get(result, "runs", default=[]) or []:
            if get(r, "status") != "ok" and get(r, "error"):
                lines.append(Text.assemble(("x ", "red"), (f"{get(r, 'id')}: ", "bold"), _short(get(r, "error"), 300)))
        return lines


def as_pipeline_suite(result: Result) -> Optional[PipelineSuite]:
    from probes.pipeline.models import PipelineSuite

    if isinstance(result, PipelineSuite):
        return result
    try:
        return PipelineSuite.model_validate(result)
    except Exception:  # noqa: BLE001 - a result in another shape: no verdicts, the table still shows
        return None


def pipeline_verdict(run: Result) -> tuple[str, str]:
    """advisor.decision.pipeline's verdict (starved / keeps up), or the failure's reason."""
    from advisor.decision.pipeline import starved, verdict
    from probes.pipeline.models import PipelineRun

    try:
        model = run if isinstance(run, PipelineRun) else PipelineRun.model_validate(run)
    except Exception:  # noqa: BLE001
        return str(get(run, "error") or get(run, "status") or "?"), "red"
    is_starved = starved(model)
    style = "" if is_starved is None else ("bold red" if is_starved else "green")
    if is_starved is None and get(run, "status") != "ok":
        style = "red"
    return verdict(model), style


# the projections' words for a capped range (advisor.decision.projections._bounded)
CAP_WARNINGS = ("the data loader bounds it", "capped at the published record")


def feed_line(framework: str, best: tuple[float, str], report: Optional[Report | dict]) -> Text | None:
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
            for p in get(report, "projections", default=[]) or []
            if get(p, "framework") == framework and get(p, "target") != "cpu" and get(p, "images_per_second")
        ),
        None,
    )
    if proj is None:
        return None
    devices = int(get(proj, "devices", default=1) or 1)
    feed = get(proj, "input_pipeline")
    if feed is not None and get(feed, "fraction"):
        least, most = (float(f) for f in get(feed, "fraction"))
        d_low, d_high = (float(r) for r in get(feed, "device_rate"))
        low, high = d_low * devices, d_high * devices  # the projection before the loader's cap
    elif any(str(w).startswith(CAP_WARNINGS) for w in get(proj, "warnings", default=[]) or []):
        # not yet rebuilt with this pipeline and already capped (the assumed loader bound, a record):
        # a share over the capped rate would read 100%; the line comes with the rebuilt report
        return None
    else:
        low, high = (float(get(proj, "images_per_second", k)) for k in ("low", "high"))
        _, _, _, _, least, most = feed_share(best[0], low, high, devices, int(DEFAULT["DEVICES_PER_HOST"]))
    share = f"{least:.0%}" if f"{least:.0%}" == f"{most:.0%}" else f"{least:.0%}-{most:.0%}"
    where = f"{devices} x {get(proj, 'accelerator') or get(proj, 'target')}"
    return Text.assemble(
        ("  on ", "dim"),
        (where, "bold"),
        f": this loader would feed {share} of the devices at the projected {low:,.0f}-{high:,.0f} images/s "
        f"({get(report, 'requirements', 'workload', 'model') or 'the workload'}, {get(proj, 'basis')}); "
        "for the probe's 32x32 images: larger images cost more per sample",
    )
