"""Probes: choose frameworks, modes, models and budget; start; watch each run (progress bar,
sparkline of step times, images/s); cancel (the launcher kills the child processes); read the
comparison table in the seeds' style with the parity status. Cached results show on entry.

The scaling probe (torchrun / msrun data parallel, 1 and N ranks) starts from its own row, shares
the Frameworks and Batch choices (the issue: the same network and per-rank batch as the
single-process probe) and shows in a ScalingPanel below the training results. Only one kind of
probe runs at a time: they would time each other.

Every kind of the registry (probes.base.KINDS) is on the screen: the training and scaling probes and
the kinds of PANELS with their own rows and panels; any other kind with a Start button in the "Other
probes" row, the screen's fields its Config declares (reads) and a generic ResultPanel."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import (
    Button,
    Checkbox,
    DataTable,
    Header,
    Input,
    Label,
    Select,
    Static,
)

from probes.base import KINDS
from advisor.progress import duration
from probes.training.models import MODES_OF, QUICK
from probes.transformer.models import GPT_QUICK
from tui import providers
from tui import actions
from tui.data import cached_runs_lines, fmt_num, fmt_when
from tui.form_spec import parse_number
from tui.glyphs import arrow, ellipsis
from tui.messages import MeasurementChanged, ReportChanged, RunChanged
from tui.screens.base import AdvisorScreen
from tui.state import RunProgress
from tui.widgets.charts import StepTimeChart, ThroughputChart
from tui.widgets.run_row import show_run_row
from tui.widgets.footer import Footer
from tui.widgets.gpt_panel import GptPanel
from tui.widgets.probe_panels import AccuracyPanel, DeployPanel, MeasurementPanel, PipelinePanel, ResultPanel
from tui.widgets.scaling_panel import ScalingPanel
from tui.widgets.toggles import StateCheckbox

if TYPE_CHECKING:
    from probes.training.models import ParityResult, ProbeRun, ProbeSuite

FRAMEWORKS = ("pytorch", "mindspore")
MODES = ("eager", "compile", "graph", "pynative")
MODELS = ("lenet", "resnet18", "resnet50")
DEFAULT_MODELS = ("lenet", "resnet18")
FULL_BUDGET = 6.0  # `advisor config`'s probe.budget default, when the config cannot be read
DEFAULT_BATCH = "32"
PROFILES = ("quick", "full")
TICK_S = 1.0  # the status line's refresh while a probe runs
DEFAULT_SCALING_REPEAT = "3"  # the issue: median and min-max over at least 3 repetitions
DEFAULT_EPOCHS, DEFAULT_SEEDS = "8", "3"  # probes.accuracy.models.AccuracyConfig's defaults
# The GPT's sizes on screen (probes.transformer.models.GptConfig's defaults; the rest are its defaults too).
DEFAULT_GPT = {"layers": "4", "hidden": "256", "seq": "128"}
# The kinds with a panel of their own; the training and scaling probes have their own rows (OWN_ROWS).
# Any other registered kind gets a ResultPanel and a Start button (generic_kinds).
PANELS = {"deploy": DeployPanel, "accuracy": AccuracyPanel, "pipeline": PipelinePanel, "gpt": GptPanel}
OWN_ROWS = ("training", "scaling")
# The screen's fields each probe kind's Config takes (probes.base.KINDS[kind].Config): one path reads,
# checks and validates them for every kind (ProbesScreen.choice_for).
READS: dict[str, tuple[str, ...]] = {
    "training": ("frameworks", "modes", "models", "budget", "batch_size"),
    "scaling": ("frameworks", "scaling_model", "ranks", "repeat", "batch_size"),
    "deploy": ("frameworks", "models", "budget", "batch_sizes"),
    "accuracy": ("frameworks", "modes", "epochs", "seeds", "batch_size"),
    "pipeline": ("frameworks", "batch_size"),
    "gpt": ("frameworks", "modes", "budget", "layers", "hidden", "seq"),
}
FIELD = {"scaling_model": "models"}  # a screen field under another Config field's name
# What a kind not in READS is given: those of these its Config declares (its other fields keep their defaults).
COMMON_READS = ("frameworks", "modes", "models", "budget", "batch_size")
# Checkbox groups: field -> (id prefix, the options, what to choose)
CHECKED = {
    "frameworks": ("fw", FRAMEWORKS, "a framework"),
    "modes": ("mode", MODES, "a mode"),
    "models": ("model", MODELS, "a model"),
}
# Number fields: field -> (the input, int or float, bounds, the word a problem names)
NUMBERS: dict[str, tuple[str, str, dict, str]] = {
    "budget": ("#probe-budget", "float", {"gt": 0}, "budget"),
    "batch_size": ("#probe-batch", "int", {"ge": 1}, "batch"),
    "repeat": ("#scaling-repeat", "int", {"ge": 1}, "reps"),
    "epochs": ("#accuracy-epochs", "int", {"ge": 1}, "epochs"),
    "seeds": ("#accuracy-seeds", "int", {"ge": 1}, "seeds"),
    "layers": ("#gpt-layers", "int", {"ge": 1}, "layers"),
    "hidden": ("#gpt-hidden", "int", {"ge": 1}, "hidden"),
    "seq": ("#gpt-seq", "int", {"ge": 1}, "seq"),
}
START_BUTTONS = {"probe-start": "training"}  # the others are "<kind>-start"


def generic_kinds() -> list[str]:
    """The registered kinds without rows or a panel of their own on this screen (read when the screen
    is made: a kind registered after import is on it)."""
    return [k for k in KINDS if k not in OWN_ROWS and k not in PANELS]


def reads(kind: str) -> tuple[str, ...]:
    """The screen's fields the kind's Config takes: READS, else the common ones its Config declares."""
    if kind in READS:
        return READS[kind]
    declared = KINDS[kind].Config.model_fields
    return tuple(name for name in COMMON_READS if name in declared)


# Most telling first: at 80 columns the right-hand ones scroll (left/right on the table), and the
# highlighted run's every field, these and DETAIL_ONLY, is on the line under the table.
COLUMNS = ("Run", "Status", "img/s", "CI95", "step ms", "MFU", "loss", "first s", "compile s")
DETAIL_ONLY = ("peak MB", "stop")


class ProbesScreen(AdvisorScreen):
    SUB_TITLE = "Training probes"
    ACTIONS = actions.PROBES
    BINDINGS = actions.bindings(ACTIONS)

    chosen = False  # a profile was chosen (by the user, or once results arrived): results no longer change it

    def compose(self) -> ComposeResult:
        yield Header()
        # The first run (nothing measured on this host yet) starts from the quick profile: an answer in
        # about a minute; once there are results, the full suite (its budget from `advisor config`).
        first = profile_values("quick" if self.app.state.probes.result is None else "full")
        with VerticalScroll(id="probe-body"):
            with Horizontal(classes="choice-row"):
                yield Label("Frameworks", classes="choice-label")
                for name in FRAMEWORKS:
                    yield StateCheckbox(name, True, id=f"fw-{name}", compact=True)
            with Horizontal(classes="choice-row"):
                yield Label("Modes", classes="choice-label")
                for name in MODES:
                    yield StateCheckbox(name, name in first["modes"], id=f"mode-{name}", compact=True)
            with Horizontal(classes="choice-row"):
                yield Label("Models", classes="choice-label")
                for name in MODELS:
                    yield StateCheckbox(name, name in first["models"], id=f"model-{name}", compact=True)
            with Horizontal(classes="choice-row"):
                yield Label("Budget s/run", classes="choice-label")
                yield Input(f"{first['budget']:g}", id="probe-budget", compact=True, classes="short")
                yield Label("Batch", classes="choice-label-short")
                yield Input(DEFAULT_BATCH, id="probe-batch", compact=True, classes="tiny")
                yield Select(
                    [(name, name) for name in PROFILES],
                    value=first["name"],
                    allow_blank=True,
                    prompt="custom",
                    compact=True,
                    id="probe-profile",
                )
                yield Button("Start", id="probe-start", variant="success", compact=True, classes="kind-start")
                yield Button("Cancel", id="probe-cancel", variant="error", compact=True, disabled=True)
            with Horizontal(classes="choice-row", id="scaling-row"):
                yield Label("Scaling", classes="choice-label")
                yield Label("N ranks", classes="choice-label-first")
                yield Input("", placeholder="auto", id="scaling-ranks", compact=True, classes="short")
                yield Label("Reps", classes="choice-label-short")
                yield Input(DEFAULT_SCALING_REPEAT, id="scaling-repeat", compact=True, classes="tiny")
                yield Select(
                    [(m, m) for m in MODELS], value=MODELS[0], allow_blank=False, compact=True, id="scaling-model"
                )
                yield Button("Scaling", id="scaling-start", variant="primary", compact=True, classes="kind-start")
            with Horizontal(classes="choice-row", id="multinode-row"):
                yield Label("Across hosts", classes="choice-label")
                yield Label("N hosts", classes="choice-label-first")
                yield Input("", placeholder="1", id="multinode-nnodes", compact=True, classes="tiny")
                yield Label("this node", classes="choice-label-short")
                yield Input("", placeholder="0", id="multinode-rank", compact=True, classes="tiny")
                yield Label("master", classes="choice-label-short")
                yield Input("", placeholder="HOST[:PORT]", id="multinode-master", compact=True, classes="host")
            yield Static(id="multinode-hint")
            with Horizontal(classes="choice-row", id="more-row"):
                yield Label("More probes", classes="choice-label")
                yield Button("Deploy", id="deploy-start", variant="primary", compact=True, classes="kind-start")
                yield Button("Accuracy", id="accuracy-start", variant="primary", compact=True, classes="kind-start")
                yield Label("epochs", classes="choice-label-short")
                yield Input(DEFAULT_EPOCHS, id="accuracy-epochs", compact=True, classes="tiny")
                yield Label("seeds", classes="choice-label-short")
                yield Input(DEFAULT_SEEDS, id="accuracy-seeds", compact=True, classes="tiny")
                yield Button("Pipeline", id="pipeline-start", variant="primary", compact=True, classes="kind-start")
            with Horizontal(classes="choice-row", id="gpt-row"):
                yield Label("Transformer", classes="choice-label")
                for i, (name, value) in enumerate(DEFAULT_GPT.items()):
                    yield Label(name, classes="choice-label-first" if i == 0 else "choice-label-short")
                    yield Input(value, id=f"gpt-{name}", compact=True, classes="tiny")
                yield Button("GPT", id="gpt-start", variant="primary", compact=True, classes="kind-start")
            if generic_kinds():
                with Horizontal(classes="choice-row", id="kinds-row"):
                    yield Label("Other probes", classes="choice-label")
                    for kind in generic_kinds():
                        label = KINDS[kind].label.removesuffix(" probe")
                        yield Button(label, id=f"{kind}-start", variant="primary", compact=True, classes="kind-start")
            yield Static(id="probe-status")
            yield Vertical(id="probe-runs")
            yield Static(id="probe-results-title")
            yield DataTable(id="probe-table", zebra_stripes=True, cursor_type="row")
            yield Static(id="probe-detail")  # every field of the highlighted run (the table is narrow)
            with Horizontal(id="probe-charts"):
                yield ThroughputChart(id="chart-throughput")
                yield StepTimeChart(id="chart-steps")
            yield Static(id="probe-parity")
            yield ScalingPanel(id="scaling-panel")
            for kind, panel in PANELS.items():
                yield panel(id=f"{kind}-panel")
            for kind in generic_kinds():
                yield ResultPanel(kind, id=f"{kind}-panel")
        yield Footer(compact=True, show_command_palette=False)  # ctrl+p is in the help (80 columns)

    def on_mount(self) -> None:
        table = self.query_one("#probe-table", DataTable)
        table.add_columns(*COLUMNS)
        super().on_mount()
        # The ETA moves every second while a probe runs, events or not (a GEMM peak child sends none).
        self.set_interval(TICK_S, self._tick)

    def _tick(self) -> None:
        if self.app.measuring and self.is_current:
            self.safely(self._show_status)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The footer offers Start and Scaling while idle, Cancel while running (80 columns are short).
        if action in ("start", "scaling", "start_kind"):
            return not self.app.measuring
        if action == "cancel":
            return self.app.measuring
        return True

    # ---- choices: one path for every kind ---------------------------------------------------------

    def choice_for(self, kind: str) -> tuple[dict | None, str | None]:
        """The screen's fields the kind's Config takes (READS), read and checked, or (None, what is
        wrong). The kind's own model (probes.base.KINDS[kind].Config) validates what passes."""
        values: dict = {}
        for name in reads(kind):
            value, problem = self._read(name)
            if problem:
                return None, problem
            values[FIELD.get(name, name)] = value
            frameworks = values.get("frameworks")
            if (
                name == "modes"
                and frameworks
                and not any(mode in MODES_OF.get(fw, ()) for fw in frameworks for mode in value)
            ):
                return None, (
                    "no chosen mode belongs to a chosen framework (pytorch: eager, compile; mindspore: graph, pynative)"
                )
        return values, None

    def _read(self, name: str) -> tuple[object, str | None]:
        """One field of the screen: its value, or a problem naming it."""
        if name in CHECKED:
            prefix, options, what = CHECKED[name]
            chosen = [n for n in options if self.query_one(f"#{prefix}-{n}", Checkbox).value]
            return chosen, None if chosen else f"choose at least {what}"
        if name == "scaling_model":
            return [str(self.query_one("#scaling-model", Select).value)], None
        if name == "ranks":
            ranks, problem = parse_ranks(self.query_one("#scaling-ranks", Input).value)
            return ranks, f"N ranks: {problem}" if problem else None
        if name == "batch_sizes":  # latency at batch 1, throughput at the screen's batch (--batch-sizes 1,32)
            batch, problem = self._read("batch_size")
            return (sorted({1, int(batch)}) if problem is None else None), problem
        widget, kind, bounds, label = NUMBERS[name]
        value, bad = parse_number(self.query_one(widget, Input).value, kind, bounds)
        if bad or value is None:
            return None, f"{label}: {bad or 'required'}"
        return (float(value) if kind == "float" else int(value)), None

    def choice(self) -> tuple[dict | None, str | None]:
        """The training probes' configuration chosen on screen (the estimate before Start reads it); the
        quick profile's choices bring its rounds (two, no extra one)."""
        values, problem = self.choice_for("training")
        if values is not None and self.profile() == "quick":
            values.update(repeat=QUICK["repeat"], max_repeat=QUICK["max_repeat"])
        return values, problem

    def profile(self) -> str:
        """quick | full | custom: the profile the screen's training choices are exactly."""
        values, _ = self.choice_for("training")
        for name in PROFILES:
            wanted = profile_values(name)
            if (
                values is not None
                and all(
                    sorted(values[k]) == sorted(wanted[k]) if isinstance(wanted[k], list) else values[k] == wanted[k]
                    for k in ("models", "modes", "budget")
                )
                and values["frameworks"] == list(FRAMEWORKS)
            ):
                return name
        return "custom"

    @on(Select.Changed, "#probe-profile")
    def _profile_chosen(self, event: Select.Changed) -> None:
        if event.value == Select.NULL or event.value == self.profile():
            return
        self.chosen = True
        self._apply_profile(str(event.value))

    def _apply_profile(self, name: str) -> None:
        wanted = profile_values(name)
        with self.prevent(Checkbox.Changed, Input.Changed):
            for name in FRAMEWORKS:
                self.query_one(f"#fw-{name}", Checkbox).value = True
            for name in MODES:
                self.query_one(f"#mode-{name}", Checkbox).value = name in wanted["modes"]
            for name in MODELS:
                self.query_one(f"#model-{name}", Checkbox).value = name in wanted["models"]
            self.query_one("#probe-budget", Input).value = f"{wanted['budget']:g}"
        if not self.app.measuring:
            self._show_status()

    def multinode_fields(self) -> tuple[str, str, str] | None:
        """The node R of N control's text, or None when it is left empty (one host)."""
        fields = tuple(self.query_one(f"#multinode-{n}", Input).value for n in ("nnodes", "rank", "master"))
        return fields if any(f.strip() for f in fields) else None

    def multinode_request(self, choice: dict) -> Optional[providers.MultinodeRequest]:
        """A MultinodeRequest for the chosen scaling probe across hosts; ValueError names the flag as the
        CLI does (the same probes.scaling.multinode.validate); None when the control is empty."""
        fields = self.multinode_fields()
        if fields is None:
            return None
        ranks = choice.pop("ranks", None)
        config = providers.make_config("scaling", choice)
        return providers.validate_multinode(*fields, ranks, config)

    # ---- actions -------------------------------------------------------------------------------

    @on(Button.Pressed, ".kind-start")
    def _start_pressed(self, event: Button.Pressed) -> None:
        button = str(event.button.id)
        self.start_kind(START_BUTTONS.get(button, button.removesuffix("-start")))

    def action_start(self) -> None:
        self.start_kind("training")

    def action_scaling(self) -> None:
        self.start_kind("scaling")

    def action_start_kind(self, kind: str) -> None:
        """The key of a kind (tui.actions.PROBES: start_kind('scaling'), ...)."""
        self.start_kind(kind)

    def start_kind(self, kind: str) -> None:
        """Read the kind's choices, validate them with its Config, clear its rows and start it."""
        title = self.app.measurements[kind].kind.title
        cannot = "Cannot start probes" if kind == "training" else f"Cannot start the {title.lower()}"
        choice, problem = self.choice() if kind == "training" else self.choice_for(kind)  # with its profile
        if choice is not None and kind == "gpt" and self.profile() == "quick":
            # the transformer probe's quick profile too (the CLI's --models gpt --quick): the rest of
            # GPT_QUICK (its rounds, a short dynamic-shape schedule) under the screen's own choices
            choice = {**{k: v for k, v in GPT_QUICK.items() if k not in choice}, **choice}
        if choice is None:
            self.notify(problem or "invalid choice", title=cannot, severity="error")
            return
        try:
            # Across hosts: BadRendezvous (a ValueError) carries the CLI's own one-line message.
            request = self.multinode_request(dict(choice)) if kind == "scaling" else None
            config = request or providers.make_config(kind, choice)
        except (ValueError, ImportError) as exc:  # pydantic's ValidationError is a ValueError
            self.notify(config_error(exc), title=cannot, severity="error")
            if kind == "scaling":
                self._show_multinode_hint(str(config_error(exc)))
            return
        if kind == "scaling":
            self._show_multinode_hint()
        if not self.app.measuring:  # else start_measurement says what is running
            self._clear_rows(kind)
        if self.app.start_measurement(kind, config):
            self._focus_cancel()
            if kind in PANELS:  # below the training results: bring it into view
                self.call_after_refresh(self.query_one(f"#{kind}-panel", MeasurementPanel).scroll_visible)

    def _clear_rows(self, kind: str) -> None:
        """The live rows of the kind's last run go: the training runs above the results, or its panel's."""
        if kind == "training":
            self.query_one("#probe-runs", Vertical).remove_children()
        elif kind == "scaling":
            self.query_one(ScalingPanel).clear_runs()
        else:
            self.query_one(f"#{kind}-panel", MeasurementPanel).clear_runs()

    def _show_multinode_hint(self, problem: str | None = None) -> None:
        """Under the node R of N control: the CLI command line each host runs (the same but the node
        rank), or what is wrong with the control's text; nothing while it is empty."""
        hint = self.query_one("#multinode-hint", Static)
        if self.multinode_fields() is None:
            hint.update("")
            return
        request = None
        if problem is None:
            choice, bad = self.choice_for("scaling")
            if choice is None:
                problem = bad
            else:
                try:
                    request = self.multinode_request(dict(choice))
                except (ValueError, ImportError) as exc:
                    problem = config_error(exc)
        if problem or request is None:
            hint.update(Text.assemble(("x ", "red"), problem or "not a request"))
            return
        rdzv = request.rendezvous
        lines = [Text.assemble(("Run on every host at once (node 0 gathers and writes the result):", "dim"))]
        for rank in range(min(rdzv.nnodes, 4)):
            here = "  <- this host" if rank == rdzv.node_rank else ""
            lines.append(Text.assemble(f"  node {rank}: ", (providers.multinode_command(request, rank), "bold"), here))
        if rdzv.nnodes > 4:
            lines.append(
                Text(f"  ... the same on nodes 4 to {rdzv.nnodes - 1}, each with its --node-rank", style="dim")
            )
        if rdzv.nnodes > 1:
            lines.append(Text("  Scaling (d) here runs this host's part; the others use the lines above.", style="dim"))
        hint.update(Group(*lines))

    @on(Input.Changed, "#multinode-nnodes, #multinode-rank, #multinode-master, #scaling-ranks, #scaling-repeat")
    def _multinode_changed(self) -> None:
        self._show_multinode_hint()

    def _focus_cancel(self) -> None:
        # Start disables itself; without this the focus falls to the next input, which then eats
        # the `c` that cancels (and the footer hides it).
        cancel = self.query_one("#probe-cancel", Button)
        cancel.disabled = False
        cancel.focus()

    @on(Button.Pressed, "#probe-cancel")
    def action_cancel(self) -> None:
        if not self.app.measuring:
            self.notify("No probes are running", severity="warning")
            return
        self.app.cancel_probes()

    # ---- state ---------------------------------------------------------------------------------

    def on_measurement_changed(self, _: MeasurementChanged) -> None:
        self.when_shown("measurement", self.refresh_view)

    def on_report_changed(self, _: ReportChanged) -> None:
        # The pipeline panel sets its loaders against the report's projection for the target.
        if self.app.state.pipeline.result is not None:
            self.when_shown("measurement", self.refresh_view)

    def on_run_changed(self, message: RunChanged) -> None:
        if not self.is_current:  # one full redraw when shown covers any number of ticks
            self.stale["measurement"] = (self.refresh_view, ())
        elif message.kind == "training":
            self.safely(self._show_progress, message.progress)
        elif message.kind == "scaling":
            self.safely(self._show_scaling_progress, message.progress)
        else:
            self.safely(self._show_panel_progress, message.kind, message.progress)

    def _show_panel_progress(self, kind: str, progress: RunProgress) -> None:
        panel = self.query_one(f"#{kind}-panel", MeasurementPanel)
        panel.show_run(progress)
        panel.show_status(self.app)
        self._show_status()

    def _show_progress(self, progress: RunProgress) -> None:
        self._show_run(progress)
        self._show_status()

    def _show_scaling_progress(self, progress: RunProgress) -> None:
        panel = self.query_one(ScalingPanel)
        panel.show_run(progress)
        panel.show_status(self.app)
        self._show_status()

    def refresh_view(self) -> None:
        self._follow_first_results()
        self._show_status()
        runs = self.query_one("#probe-runs", Vertical)
        if not self.app.state.probes.runs:
            runs.remove_children()
        for progress in self.app.state.probes.runs.values():
            self._show_run(progress)
        self._show_results()
        self.query_one(ScalingPanel).show_all(self.app)
        for panel in self.query(MeasurementPanel):  # PANELS' and the generic ones
            panel.show_all(self.app)

    def _show_status(self) -> None:
        app = self.app
        start = self.query_one("#probe-start", Button)
        if start.disabled != app.measuring:  # running state changed: footer keys too
            cancel = self.query_one("#probe-cancel", Button)
            had_focus = cancel.has_focus
            for button in self.query(".kind-start").results(Button):  # every kind's Start
                button.disabled = app.measuring
            if had_focus and not app.measuring:
                # not the next input: it would eat the `s` that starts again; and not scrolled to:
                # the results are below the fold and the user is reading them.
                # At once (Widget.focus waits for the next tick) and before Cancel is disabled, or
                # Textual moves the focus on by itself, to the next input, and scrolls to it.
                self.set_focus(start, scroll_visible=False)
            cancel.disabled = not app.measuring
            self.refresh_bindings()
        panel_kind = next((k for k, m in app.state.kinds.items() if k not in OWN_ROWS and m.running), None)
        if app.state.probes.running:
            measured = [p for k, p in app.state.probes.runs.items() if not k.endswith("-aux")]
            done = sum(1 for p in measured if p.status not in ("running", "waiting"))
            total = max(app.state.probes.total, len(measured))
            clock = app.state.probes.clock
            progress = clock.status() if clock is not None else f"{done} of {total} runs finished"
            if not measured:  # the preparation moves the countdown too: its own words, then the ETA
                doing = clock.doing() if clock is not None else ""
                progress = f"preparing ({doing or 'GEMM peak and parity arrays first'}); {progress}"
            text = Text.assemble(("Running", "bold cyan"), f": {progress} (c cancels)")
        elif app.state.scaling.running:  # its rows are below the training results: say so up here
            text = Text.assemble(
                ("Scaling probe running", "bold cyan"),
                f": {app.state.scaling.fraction:.0%} (launch rows below; c cancels)",
            )
        elif panel_kind is not None:  # a kind of PANELS or a generic one
            kind, state = panel_kind, app.state.kinds[panel_kind]
            done = sum(1 for p in state.runs.values() if p.status not in ("running", "waiting"))
            progress = state.clock.status() if state.clock is not None else f"{done} finished"
            text = Text.assemble(
                (f"{app.measurements[kind].kind.title} running", "bold cyan"),
                f": {progress} (rows below the training results; c cancels)",
            )
        else:
            text = Text(self.estimate_text(), style="italic")
            ended = self._last_finished()
            if ended:
                text = Text.assemble((ended, "bold"), " Next: ", (self.estimate_text(), "italic"))
            elif app.state.probes.result is None:
                text = Text.assemble(
                    ("No results yet. Choose what to measure and press Start (s). ", "italic"),
                    (self.estimate_text(), "italic"),
                )
        self.query_one("#probe-status", Static).update(text)
        self._sync_profile()

    def _last_finished(self) -> str:
        """'Probes finished in 62 s (estimate: about 58 s).' after a measurement of this session."""
        done = [
            (m.ended, self.app.measurements[k].kind.title, m)
            for k, m in self.app.state.kinds.items()
            if m.ended is not None and m.began is not None and not m.running
        ]
        if not done:
            return ""
        _, title, latest = max(done, key=lambda d: d[0])
        clock = latest.clock
        took = clock.view().elapsed if clock is not None and clock.ended is not None else latest.ended - latest.began
        cancelled = latest.cancel is not None and latest.cancel.is_set()
        word = "cancelled after" if cancelled else "finished in"
        # what Start promised: a re-plan since (an extra round) is the host's news, not the estimate's
        planned = f" (estimate: {latest.promised})" if latest.promised is not None else ""
        return f"{title} {word} {duration(took)}{planned}."

    def _sync_profile(self) -> None:
        """The Profile select says which profile the choices are (custom when edited away from both)."""
        select = self.query_one("#probe-profile", Select)
        now = self.profile()
        wanted = Select.NULL if now == "custom" else now
        if select.value != wanted:
            with self.prevent(Select.Changed):
                select.value = wanted

    def estimate_text(self) -> str:
        """How long the chosen probes take, before Start: the plan the progress counts down (this
        host's figures, cold compiles, preparation, the load now: advisor.estimates)."""
        choice, problem = self.choice()
        if choice is None:
            return f"Cannot start: {problem}."
        try:
            from advisor.progress import planned

            config = providers.make_config("training", choice)
            opening = planned("training", config).opening()
        except Exception as exc:  # noqa: BLE001 - a bound the model rejects: Start will say which
            return f"Cannot start: {config_error(exc)}."
        profile = self.profile()
        if profile == "quick":
            return f"Quick profile: PyTorch eager against MindSpore graph on LeNet-5, 2 rounds; {opening}."
        return f"{profile.capitalize()}: {opening}."

    @on(Checkbox.Changed)
    @on(Input.Changed, "#probe-budget, #probe-batch")
    def _choice_changed(self) -> None:
        if not self.app.measuring:
            self._show_status()

    def _follow_first_results(self) -> None:
        """Results arrived (this host's cache, read after the screen was built) while the choices are
        still exactly the first-run quick profile (an edit makes them custom): the full suite is the
        default now."""
        state = self.app.state.probes
        if self.chosen or state.result is None or not state.cached or self.app.measuring:
            return  # only the cache's results, read at start: a run of this session keeps its choices
        self.chosen = True
        if self.profile() == "quick":
            self._apply_profile("full")

    @on(DataTable.RowHighlighted, "#probe-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        runs = self.suite.runs if self.suite is not None else []
        index = event.cursor_row
        self.query_one("#probe-detail", Static).update(run_detail(runs[index]) if 0 <= index < len(runs) else "")
        if 0 <= index < len(runs):
            self._show_charts(runs[index].model)

    @property
    def suite(self) -> Optional[ProbeSuite]:
        """The training suite shown (this session's or the cache's)."""
        return self.app.state.probes.result

    def _hint_hidden_columns(self, suite: ProbeSuite) -> None:
        """The title says which columns are out of view and how to reach them (they are not dropped)."""
        hidden = hidden_columns(self.query_one("#probe-table", DataTable))
        title = source_text(suite, self.app.state.probes.cached)
        if hidden:
            title.append(
                f"\n  {len(hidden)} more column(s) to the right ({', '.join(hidden)}): left/right on the table; "
                "the highlighted run's every field is under it",
                style="dim",
            )
        self.query_one("#probe-results-title", Static).update(title)

    def _show_charts(self, model: str | None = None) -> None:
        suite = self.suite
        charts = self.query_one("#probe-charts")
        charts.display = bool(suite is not None and suite.runs)
        if charts.display:
            self.query_one(ThroughputChart).show(suite, model)
            self.query_one(StepTimeChart).show(suite, model)

    def _show_run(self, progress: RunProgress) -> None:
        show_run_row(self.query_one("#probe-runs", Vertical), "run-", progress)

    def _show_results(self) -> None:
        suite = self.suite
        table = self.query_one("#probe-table", DataTable)
        table.clear()
        title = self.query_one("#probe-results-title", Static)
        parity = self.query_one("#probe-parity", Static)
        if suite is None:
            title.update("")
            parity.update("")
            table.display = False
            self._show_charts()
            return
        table.display = True
        title.update(source_text(suite, self.app.state.probes.cached))
        for run in suite.runs:
            table.add_row(*run_cells(run)[: len(COLUMNS)])
        self.call_after_refresh(self._hint_hidden_columns, suite)
        self.query_one("#probe-detail", Static).update(run_detail(suite.runs[0]) if suite.runs else "")
        self._show_charts()
        notes = [Text.assemble(("! ", "yellow"), w) for w in suite.warnings]
        for run in suite.runs:
            for warning in run.warnings:
                notes.append(Text.assemble(("! ", "yellow"), (f"{run.id}: ", "bold"), warning))
        parity.update(Group(parity_text(suite.parity), *notes))


def hidden_columns(table: DataTable) -> list[str]:
    """The columns that lie right of the table's visible width (80 columns hold about six)."""
    shown, hidden = 0, []
    width = table.scrollable_content_region.width
    for column in table.ordered_columns:
        shown += column.get_render_width(table)
        if shown > width:
            hidden.append(str(column.label))
    return hidden


def default_budget() -> float:
    """probe.budget as `advisor config` shows it: the user's config file, else its built-in default."""
    try:
        from advisor import config

        return float(config.value("probe.budget"))
    except Exception:  # noqa: BLE001 - `advisor` reports a broken file before the TUI starts
        return FULL_BUDGET


def profile_values(name: str) -> dict:
    """The training choices of a profile: quick (probes.training.models.QUICK) or full (the CLI's
    defaults, the budget from `advisor config`)."""
    if name == "quick":
        return {"name": "quick", **QUICK}
    return {"name": "full", "models": list(DEFAULT_MODELS), "modes": list(MODES), "budget": default_budget()}


def source_text(suite: ProbeSuite, cached: bool) -> Text:
    """Where the results came from and when: a cached suite may come from another checkout of this
    project on the same host (the cache is per host, not per folder), so say so and offer a re-run."""
    when = fmt_when(suite.created)
    batch = {r.batch_size for r in suite.runs}
    out = Text.assemble(("Results", "bold"), f" (batch {batch.pop()})" if len(batch) == 1 else "")
    if not cached:
        return out.append(f": measured in this session{', ' + when if when else ''}")
    host = suite.host.cpu_model
    out.append(
        f": cached results for this host, measured {when or 'at an unknown time'}" + (f" on {host}" if host else "")
    )
    out.append(
        f"\n  from {_cache_folder()} (any checkout on this host writes there): press s to measure again", style="dim"
    )
    for line in cached_runs_lines("probes", suite):
        out.append(f"\n  {line}", style="dim")
    return out


def _cache_folder() -> str:
    try:
        from advisor.cache import cache_dir

        path = str(cache_dir())
    except Exception:  # noqa: BLE001 - only the wording depends on it
        return "the per-host cache"
    home = str(Path.home())
    return "~" + path[len(home) :] if path.startswith(home + "/") else path


def run_detail(run: ProbeRun) -> Text:
    """Every column of one run, labelled, on a few lines: what an 80-column table cannot show."""
    cells = run_cells(run)
    out = Text.assemble(("Selected: ", "bold"), str(cells[0]), "  ")
    for name, cell in zip(COLUMNS[1:] + DETAIL_ONLY, cells[1:]):
        value = cell.plain if isinstance(cell, Text) else str(cell)
        if value in ("", "-"):
            continue
        out.append(f"{name} ", style="dim")
        out.append(value + "   ")
    if run.error and run.status != "ok":
        out.append(f"\n  {run.error}", style="red")
    return out


def parse_ranks(text: str) -> tuple[list[int] | None, str | None]:
    """'' -> None (the runner's default: 1 and the host's devices, or 2 on a CPU-only host);
    '2' or '2,4' -> [1, 2] / [1, 2, 4]: 1 rank is always measured, it is the efficiency baseline."""
    text = text.strip()
    if not text or text.lower() == "auto":
        return None, None
    try:
        counts = {int(part) for part in text.replace(" ", ",").split(",") if part}
    except ValueError:
        return None, "whole numbers separated by commas, e.g. 2 or 2,4 (empty: auto)"
    if not counts or min(counts) < 1:
        return None, "rank counts must be 1 or more"
    return sorted(counts | {1}), None


def config_error(exc: Exception) -> str:
    """A pydantic ValidationError as 'field: message' (a check across fields, without a field, as its
    message, "Value error, " dropped as the CLI drops it); anything else as its first line."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        parts = []
        for e in errors():
            where = ".".join(str(p) for p in e["loc"])
            msg = str(e["msg"]).removeprefix("Value error, ")
            parts.append(f"{where}: {msg}" if where else msg)
        return "; ".join(parts)
    return (str(exc).splitlines() or [type(exc).__name__])[0]


def run_cells(run: ProbeRun) -> list:
    ok = run.status == "ok"
    status = run.quality if ok and run.quality else run.status  # one status: its grade when it measured
    ci = run.ci95
    ci_text = f"{fmt_num(ci[0], 0)}-{fmt_num(ci[1], 0)}" if ok and ci and len(ci) == 2 else "-"
    mfu = run.mfu
    loss = f"{fmt_num(run.loss_first, 2)}{arrow()}{fmt_num(run.loss_last, 2)}" if run.loss_first is not None else "-"
    run_name = f"{run.framework} {run.mode} {run.model}"
    style = {"ok": "green", "stable": "green", "failed": "red", "timeout": "red", "unusable": "red"}.get(
        status, "yellow"
    )
    return [
        run_name,
        Text(status, style=style),
        fmt_num(run.images_per_second, 1) if ok else "-",
        ci_text,
        fmt_num(run.step_time_ms.median if run.step_time_ms else None, 1) if ok else "-",
        f"{mfu * 100:.1f}%" if ok and mfu is not None else "-",
        loss if ok else _short(run.error or "-", 30),
        fmt_num(run.first_step_seconds, 2),
        fmt_num(run.compile_seconds, 2),
        fmt_num(run.peak_memory_mb, 0),
        run.stop_reason or "",
    ]


def _short(text: str, width: int) -> str:
    """At most `width` characters, cut at a word with an ellipsis (the detail line has it all)."""
    if len(text) <= width:
        return text
    cut = text[: width - 1].rsplit(" ", 1)[0] or text[: width - 1]
    return cut.rstrip(" ,;:") + ellipsis()


def parity_text(parity: list[ParityResult]) -> Text:
    if not parity:
        return Text("Parity: not checked (needs both frameworks)", style="dim")
    out = Text("Parity  ", style="bold")
    for item in parity:
        ok = item.ok
        out.append(f"{item.model}: ")
        if item.status != "ok" and not item.checks:
            # skipped / unavailable / a worker failed: nothing was compared, so nothing mismatched
            out.append(f"not compared ({item.status})", style="yellow")
            if item.error:
                out.append(f" {item.error}", style="dim")
            out.append("   ")
            continue
        out.append("ok" if ok else "MISMATCH", style="green" if ok else "bold red")
        if item.max_abs_diff is not None:
            out.append(f" (max |diff| {item.max_abs_diff:.1e})", style="dim")
        if not ok and (item.likely_cause or item.error):
            out.append(f" {item.likely_cause or item.error}", style="red")
        out.append("   ")
    return out
