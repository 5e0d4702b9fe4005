"""The interactive advisor: four peer screens (modes) over the headless core.

All slow work (host check, probes, report building, cache reads) runs in thread workers that post
messages from tui.messages; the app keeps the state and tells the visible screen. The core parts are
reached through providers that tests replace (see make_app), so nothing here depends on the host.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.worker import Worker, WorkerState

from tui import providers
from tui.messages import (HostChecked, HostProgress, ProbeProgress, ProbesFinished, ReportReady,
                          ScalingFinished, ScalingProgress, WorkFailed)
from tui.screens.help import HelpModal
from tui.screens.host import HostScreen
from tui.screens.probes import ProbesScreen
from tui.screens.recommendation import RecommendationScreen
from tui.screens.requirements import RequirementsScreen
from tui.state import RunProgress

PROGRESS_INTERVAL = 0.1  # seconds between progress messages per run: smooth but cheap


class AdvisorApp(App):
    TITLE = "framework-advisor"
    # ctrl+p: every action by name (the footer leaves it out: 80 columns are short; the help has it).
    ENABLE_COMMAND_PALETTE = True
    CSS_PATH = "advisor.tcss"
    MODES = {
        "host": HostScreen,
        "requirements": RequirementsScreen,
        "probes": ProbesScreen,
        "recommendation": RecommendationScreen,
    }
    DEFAULT_MODE = "host"
    BINDINGS = [
        Binding("f1", "app.switch_mode('host')", "Host", tooltip="Host check results"),
        Binding("f2", "app.switch_mode('requirements')", "Requirements",
                tooltip="The team's requirements"),
        Binding("f3", "app.switch_mode('probes')", "Probes", tooltip="Training probes"),
        Binding("f4", "app.switch_mode('recommendation')", "Recommendation",
                tooltip="Scores, verdict and report export"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("ctrl+t", "app.toggle_theme", "Light/dark", show=False),
        Binding("ctrl+q", "app.quit", "Quit", priority=True, show=False),
    ]

    def __init__(self, *, host_provider: Callable[[], Any], probe_launcher: Callable[..., Any],
                 cached_probes: Callable[[], Any], save_probes: Optional[Callable[[Any], None]],
                 report_builder: Callable[[Any, Any, Any], Any], renderer: Callable[[Any, str], str],
                 scaling_launcher: Callable[..., Any], cached_scaling: Callable[[], Any],
                 save_scaling: Optional[Callable[[Any], None]],
                 requirements_path: Optional[str] = None, initial_mode: str = "host",
                 check_on_start: bool = True) -> None:
        super().__init__()
        self.host_provider = host_provider
        self.probe_launcher = probe_launcher
        self.cached_probes = cached_probes
        self.save_probes = save_probes
        self.scaling_launcher = scaling_launcher
        self.cached_scaling = cached_scaling
        self.save_scaling = save_scaling
        self.report_builder = report_builder
        self.renderer = renderer
        self.requirements_path = requirements_path
        self.initial_mode = initial_mode
        self.check_on_start = check_on_start
        # State the screens read.
        self.host_report: Any = None
        self.host_error: Optional[str] = None
        self.host_checking = False
        self.host_progress = ""
        self.host_cancel: Any = None
        self.requirements: Any = None          # a validated Requirements model, or None
        self.requirements_data: Optional[dict] = None  # what the form holds (may be invalid)
        self.requirements_problem: Optional[str] = None
        self.probe_suite: Any = None
        self.probe_suite_cached = False
        self.probe_runs: dict[str, RunProgress] = {}
        self.probe_total = 0  # runs the suite will make (its plan, then the runner's events)
        self.probe_clock: Any = None  # advisor.progress.SuiteClock of the running suite (the ETA)
        self.probes_running = False
        self.probe_cancel: Any = None
        self.scaling_result: Any = None        # a ScalingResult (cached or from this session)
        self.scaling_cached = False
        self.scaling_runs: dict[str, RunProgress] = {}
        self.scaling_fraction = 0.0            # of the whole scaling probe
        self.scaling_running = False
        self.scaling_cancel: Any = None
        self.report: Any = None
        self.report_error: Optional[str] = None
        self._report_generation = 0
        self.views: list = []  # the mode screens created so far (they register on mount)

    # ---- start-up ------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.theme = terminal_theme()
        if self.requirements_path:
            self.load_requirements(self.requirements_path, notify=True)
        else:
            self._starting_requirements()
        self.switch_mode(self.initial_mode)
        if self.check_on_start:
            self.refresh_host()
        self.load_cached_probes()
        self.load_cached_scaling()

    # ---- actions -------------------------------------------------------------------------------

    async def action_quit(self) -> None:
        self.stop_children()
        self.exit()

    def on_unmount(self) -> None:
        self.stop_children()

    def stop_children(self) -> None:
        """Kill the probe and smoke-test processes so quitting never waits for them."""
        for cancel in (self.probe_cancel, self.scaling_cancel, self.host_cancel):
            if cancel is not None:
                cancel.set()

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT if self.theme != LIGHT else DARK

    def get_system_commands(self, screen: Any) -> Iterable[SystemCommand]:
        """The command palette: every key of every screen by name, then Textual's own."""
        for mode, cls in self.MODES.items():
            title = getattr(cls, "SUB_TITLE", mode)
            yield SystemCommand(f"Go to {title}", f"Show the {title} screen",
                                lambda mode=mode: self.switch_mode(mode))
            for binding in getattr(cls, "BINDINGS", []):
                if not isinstance(binding, Binding) or binding.action.startswith("app."):
                    continue
                yield SystemCommand(f"{title}: {binding.description}", binding.tooltip or binding.description,
                                    lambda mode=mode, action=binding.action: self._screen_action(mode, action))
        yield SystemCommand("Light / dark theme", "Switch between the light and the dark theme (ctrl+t)",
                            self.action_toggle_theme)
        yield SystemCommand("Help", "The keys and what each screen is for (?)", self.action_help)
        yield from super().get_system_commands(screen)

    def _screen_action(self, mode: str, action: str) -> None:
        if self.current_mode != mode:
            self.switch_mode(mode)
        self.call_after_refresh(self.run_action, action, self.screen)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpModal):
            self.push_screen(HelpModal())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The footer greys out the key of the screen already shown.
        if action == "switch_mode" and parameters and self.current_mode == parameters[0]:
            return None
        return True

    # ---- host check ----------------------------------------------------------------------------

    def refresh_host(self) -> None:
        if self.host_checking:
            self.notify("The host check is already running", severity="warning")
            return
        self.host_checking = True
        self.host_progress = "starting"
        try:
            self.host_cancel = providers.new_cancel()
        except Exception:
            self.host_cancel = None
        self._tell("host_changed")
        self._host_worker(self.host_cancel)

    @work(thread=True, exclusive=True, exit_on_error=False, group="host", description="host check")
    def _host_worker(self, cancel: Any) -> None:
        try:
            report = providers.call_with_supported(
                self.host_provider, progress=lambda text: self.post_message(HostProgress(str(text))),
                cancel=cancel)
        except Exception as exc:  # the check never raises by contract; a broken part still must not kill us
            self.post_message(WorkFailed("host check", _one_line(exc)))
            return
        self.post_message(HostChecked(report))

    @on(HostProgress)
    def _host_progress(self, message: HostProgress) -> None:
        self.host_progress = message.text
        self._tell("host_changed")

    @on(HostChecked)
    def _host_checked(self, message: HostChecked) -> None:
        self.host_report = message.report
        self.host_error = None
        self.host_checking = False
        self._tell("host_changed")
        if not self.requirements_path and not any(
                isinstance(v, RequirementsScreen) for v in self.views):
            self._starting_requirements()  # nobody has seen the form: it simply starts from here
        else:
            self._tell("host_defaults")
            self.rebuild_report()

    # ---- requirements --------------------------------------------------------------------------

    def load_requirements(self, path: str, notify: bool = False) -> bool:
        """Load a requirements file through the report's own loader; errors become notifications."""
        try:
            model = providers.load_requirements_file(path)
        except Exception as exc:
            self.notify(_one_line(exc), title="Cannot load requirements", severity="error",
                        timeout=8)
            return False
        self.requirements_path = str(path)
        problems = _kb_problems(model)
        if problems:  # `advisor report` refuses this file: so does the form (it shows where)
            self.set_requirements(None, providers.as_data(model), f"{path}: {problems[0]}")
            self.notify(f"{path}: {problems[0]}", title="Requirements need attention",
                        severity="error", timeout=8)
        else:
            self.set_requirements(model, providers.as_data(model))
        self._tell("requirements_loaded")
        if notify and not problems:
            self.notify(f"Loaded {path}", title="Requirements")
        return True

    def _starting_requirements(self) -> None:
        """Until the user loads or edits requirements, advise on the defaults plus this host."""
        from tui.defaults import starting_requirements

        data = starting_requirements(self.host_report)
        try:
            model = providers.requirements_model().model_validate(data)
        except Exception as exc:
            self.set_requirements(None, data, _one_line(exc))
            return
        self.set_requirements(model, data)

    def set_requirements(self, model: Any, data: Optional[dict], problem: Optional[str] = None) -> None:
        """The form's current content: a valid model (or None with the problem that stops it)."""
        self.requirements = model
        self.requirements_data = data
        self.requirements_problem = problem
        self.rebuild_report()

    # ---- probes --------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="cache", description="cached probes")
    def load_cached_probes(self) -> None:
        try:
            suite = self.cached_probes()
        except Exception as exc:
            self.post_message(WorkFailed("probe cache", _one_line(exc)))
            return
        if suite is not None:
            self.post_message(ProbesFinished(suite, cancelled=False))

    @property
    def measuring(self) -> bool:
        """Training or scaling probes are running: one at a time, or they would time each other."""
        return self.probes_running or self.scaling_running

    def start_probes(self, config: Any) -> bool:
        if self.measuring:
            self.notify(("Probes" if self.probes_running else "The scaling probe")
                        + " already running: wait or cancel (c)", severity="warning")
            return False
        try:
            self.probe_cancel = providers.new_cancel()
        except Exception as exc:
            self.notify(_one_line(exc), title="Cannot start probes", severity="error")
            return False
        self.probes_running = True
        self.probe_runs = {}
        self.probe_clock = _suite_clock(config)
        self.probe_total = self.probe_clock.total if self.probe_clock else 0
        self._tell("probes_changed")
        self._probe_worker(config, self.probe_cancel)
        return True

    def cancel_probes(self) -> None:
        """Cancel whatever is measuring: the training probes or the scaling probe."""
        if self.probes_running and self.probe_cancel is not None:
            self.probe_cancel.set()
            self.notify("Cancelling: stopping the probe processes", title="Probes")
        if self.scaling_running and self.scaling_cancel is not None:
            self.scaling_cancel.set()
            self.notify("Cancelling: stopping the launcher and its ranks", title="Scaling probe")

    @work(thread=True, exclusive=True, exit_on_error=False, group="probes", description="probes")
    def _probe_worker(self, config: Any, cancel: Any) -> None:
        throttle = _Throttle(self, PROGRESS_INTERVAL)
        try:
            suite = self.probe_launcher(config, throttle.on_event, cancel)
        except Exception as exc:
            throttle.flush()
            self.post_message(WorkFailed("probes", _one_line(exc)))
            self.post_message(ProbesFinished(None, cancelled=bool(cancel.is_set())))
            return
        throttle.flush()
        self.post_message(ProbesFinished(suite, cancelled=bool(cancel.is_set())))

    @on(ProbeProgress)
    def _probe_progress(self, message: ProbeProgress) -> None:
        run = self.probe_runs.get(message.run_id)
        if run is None:
            run = self.probe_runs[message.run_id] = RunProgress(message.run_id)
        run.apply(message.kind, message.fraction, message.step_ms, message.images_per_second,
                  message.message, message.run)
        if message.total:
            self.probe_total = message.total
        if self.probe_clock is not None:
            self.probe_clock.on_event(message.run_id, message.kind, message.fraction)
        self._tell("probe_progress", run)

    @on(ProbesFinished)
    def _probes_finished(self, message: ProbesFinished) -> None:
        from_run = self.probes_running
        self.probes_running = False
        if message.suite is not None:
            self.probe_suite = message.suite
            self.probe_suite_cached = not from_run
            if from_run and self.save_probes is not None and not message.cancelled:
                self._save_probes_worker(message.suite)
        if from_run:
            if message.cancelled:
                self.notify("Probes cancelled; finished runs are kept", title="Probes",
                            severity="warning")
            elif message.suite is not None:
                self.notify("Probes finished", title="Probes")
        self._tell("probes_changed")
        if message.suite is not None:
            self.rebuild_report()

    @work(thread=True, exit_on_error=False, group="cache", description="save probes")
    def _save_probes_worker(self, suite: Any) -> None:
        try:
            self.save_probes(suite)
        except Exception as exc:
            self.post_message(WorkFailed("saving probe results", _one_line(exc)))

    # ---- scaling probe (torchrun / msrun data parallel) ----------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="scaling-cache",
          description="cached scaling result")
    def load_cached_scaling(self) -> None:
        try:
            result = self.cached_scaling()
        except Exception as exc:
            self.post_message(WorkFailed("scaling cache", _one_line(exc)))
            return
        if result is not None:
            self.post_message(ScalingFinished(result, cancelled=False))

    def start_scaling(self, config: Any) -> bool:
        if self.measuring:
            self.notify(("Probes" if self.probes_running else "The scaling probe")
                        + " already running: wait or cancel (c)", severity="warning")
            return False
        try:
            self.scaling_cancel = providers.new_cancel()
        except Exception as exc:
            self.notify(_one_line(exc), title="Cannot start the scaling probe", severity="error")
            return False
        self.scaling_running = True
        self.scaling_runs = {}
        self.scaling_fraction = 0.0
        self._tell("probes_changed")
        self._scaling_worker(config, self.scaling_cancel)
        return True

    @work(thread=True, exclusive=True, exit_on_error=False, group="scaling", description="scaling probe")
    def _scaling_worker(self, config: Any, cancel: Any) -> None:
        throttle = _Throttle(self, PROGRESS_INTERVAL, _scaling_message, SCALING_FIELDS)
        try:
            result = self.scaling_launcher(config, throttle.on_event, cancel)
        except Exception as exc:
            throttle.flush()
            self.post_message(WorkFailed("scaling probe", _one_line(exc)))
            self.post_message(ScalingFinished(None, cancelled=bool(cancel.is_set())))
            return
        throttle.flush()
        self.post_message(ScalingFinished(result, cancelled=bool(cancel.is_set())))

    @on(ScalingProgress)
    def _scaling_progress(self, message: ScalingProgress) -> None:
        run = self.scaling_runs.get(message.run_id)
        if run is None:
            run = self.scaling_runs[message.run_id] = RunProgress(message.run_id)
        run.apply(message.kind, message.fraction, [], None, message.message, message.run)
        if message.overall is not None:
            self.scaling_fraction = max(self.scaling_fraction, float(message.overall))
        self._tell("scaling_progress", run)

    @on(ScalingFinished)
    def _scaling_finished(self, message: ScalingFinished) -> None:
        from_run = self.scaling_running
        self.scaling_running = False
        if message.result is not None:
            self.scaling_result = message.result
            self.scaling_cached = not from_run
            if from_run and self.save_scaling is not None and not message.cancelled:
                self._save_scaling_worker(message.result)
        if from_run:
            if message.cancelled:
                self.notify("Scaling probe cancelled; finished launches are kept",
                            title="Scaling probe", severity="warning")
            elif message.result is not None:
                self.notify("Scaling probe finished", title="Scaling probe")
        self._tell("probes_changed")
        if message.result is not None:
            self.rebuild_report()

    @work(thread=True, exit_on_error=False, group="scaling-cache", description="save scaling result")
    def _save_scaling_worker(self, result: Any) -> None:
        try:
            self.save_scaling(result)
        except Exception as exc:
            self.post_message(WorkFailed("saving the scaling result", _one_line(exc)))

    # ---- report --------------------------------------------------------------------------------

    def rebuild_report(self) -> None:
        if self.requirements is None:
            self.report = None
            self.report_error = self.requirements_problem or "no requirements yet: fill the form (F2) or load a file"
            self._tell("report_changed")
            return
        self._report_generation += 1
        self._report_worker(self.requirements, self.host_report, self.probe_suite,
                            self.scaling_result, self._report_generation)

    @work(thread=True, exclusive=True, exit_on_error=False, group="report", description="report")
    def _report_worker(self, requirements: Any, host: Any, probes: Any, scaling: Any,
                       generation: int) -> None:
        try:
            if scaling is not None and providers.accepts(self.report_builder, "scaling"):
                # The measured scaling enters the report as it does for `advisor report`.
                report = self.report_builder(requirements, host, probes, scaling=scaling)
            else:
                report = self.report_builder(requirements, host, probes)
        except Exception as exc:
            self.post_message(WorkFailed("report", _one_line(exc)))
            return
        self.post_message(ReportReady(report, generation))

    @on(ReportReady)
    def _report_ready(self, message: ReportReady) -> None:
        if message.generation != self._report_generation:
            return  # built from inputs that have changed since
        self.report = message.report
        self.report_error = None
        self._tell("report_changed")

    def export_report(self, fmt: str, path: str) -> Optional[Path]:
        if self.report is None:
            self.notify(self.report_error or "no report yet", title="Nothing to export",
                        severity="warning")
            return None
        try:
            from advisor.output import write_atomic

            text = self.renderer(self.report, fmt)
            written = write_atomic(Path(path).expanduser(), text)
        except Exception as exc:
            self.notify(_one_line(exc), title=f"Export {fmt} failed", severity="error", timeout=8)
            return None
        written = Path(written).resolve()
        self.notify(f"Wrote {written}", title=f"Exported {fmt}")
        return written

    # ---- failures ------------------------------------------------------------------------------

    @on(WorkFailed)
    def _work_failed(self, message: WorkFailed) -> None:
        if message.what == "host check":
            self.host_checking = False
            self.host_error = message.error
            self._tell("host_changed")
        if message.what == "report":
            self.report = None
            self.report_error = message.error
            self._tell("report_changed")
        self.notify(message.error, title=f"{message.what} failed", severity="error", timeout=8)

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        # Workers catch their own errors; this is the last net so nothing ends in a traceback.
        if event.state == WorkerState.ERROR:
            self.notify(_one_line(event.worker.error), title=f"{event.worker.description} failed",
                        severity="error", timeout=8)

    # ---- telling screens -----------------------------------------------------------------------

    def _tell(self, what: str, *args: Any) -> None:
        """Tell every mode screen built so far (the shown one redraws now, the others when shown)."""
        for screen in list(self.views):
            if screen.is_mounted:
                screen.hear(what, *args)

    def register_view(self, screen: Any) -> None:
        if screen not in self.views:
            self.views.append(screen)


DARK, LIGHT = "textual-dark", "textual-light"


def _config(key: str, default: Any) -> Any:
    """A setting of the user's config file (advisor.config); `advisor` has checked the file already."""
    try:
        from advisor import config

        return config.value(key)
    except Exception:  # noqa: BLE001 - a broken file is reported by the CLI; the TUI keeps its default
        return default


def terminal_theme() -> str:
    """The light theme on a light terminal: ADVISOR_THEME=light|dark wins, else COLORFGBG (set by
    rxvt, Konsole, iTerm2 and others: 'foreground;background', a background of 7 or 9-15 is light)."""
    import os

    wanted = os.environ.get("ADVISOR_THEME", "").strip().lower() or _config("tui.theme", "auto")
    if wanted in ("light", "dark"):
        return LIGHT if wanted == "light" else DARK
    background = os.environ.get("COLORFGBG", "").split(";")[-1].strip()
    if background.isdigit() and (int(background) == 7 or 9 <= int(background) <= 15):
        return LIGHT
    return DARK


class _Throttle:
    """Turns a runner's events into at most one message per run every `interval` seconds,
    keeping every step time (for the sparkline) and never dropping start/done events.

    `fields` maps the slot keys `make_message(run_id, kind, slot, run)` reads to the event's
    attribute names (the training and the scaling runners name their fractions differently)."""

    def __init__(self, app: App, interval: float, make_message: Callable[..., Any] | None = None,
                 fields: tuple[tuple[str, str], ...] | None = None) -> None:
        self.app = app
        self.interval = interval
        self.make_message = make_message or _probe_message
        self.fields = fields or PROBE_FIELDS
        self.lock = threading.Lock()
        self.pending: dict[str, dict] = {}
        self.last_sent: dict[str, float] = {}

    def on_event(self, event: Any) -> None:
        get = (event.get if isinstance(event, dict) else lambda k: getattr(event, k, None))
        run_id = str(get("run_id") or "?")
        kind = str(get("kind") or "progress")
        with self.lock:
            slot = self.pending.get(run_id)
            if slot is None:
                slot = self.pending[run_id] = {"steps": [], **{key: None for key, _ in self.fields}}
            if get("step_ms") is not None:
                slot["steps"].append(float(get("step_ms")))
            for key, name in self.fields:
                if get(name) is not None:
                    slot[key] = get(name)
            now = time.monotonic()
            if kind == "progress" and now - self.last_sent.get(run_id, 0.0) < self.interval:
                return
            self.last_sent[run_id] = now
            self.pending.pop(run_id)
        self.app.post_message(self.make_message(run_id, kind, slot, get("run")))

    def flush(self) -> None:
        with self.lock:
            pending, self.pending = self.pending, {}
        for run_id, slot in pending.items():
            self.app.post_message(self.make_message(run_id, "progress", slot, None))


PROBE_FIELDS = (("fraction", "fraction"), ("ips", "images_per_second"), ("message", "message"),
                ("total", "total"))
SCALING_FIELDS = (("fraction", "run_fraction"), ("overall", "fraction"), ("message", "message"))


def _probe_message(run_id: str, kind: str, slot: dict, run: Any) -> ProbeProgress:
    return ProbeProgress(run_id, kind, slot["fraction"], slot["steps"], slot["ips"], slot["message"],
                         run, slot["total"])


def _scaling_message(run_id: str, kind: str, slot: dict, run: Any) -> ScalingProgress:
    message = slot["message"]
    if message and message.startswith(run_id + ": "):
        message = message[len(run_id) + 2:]  # the row already names the launch
    return ScalingProgress(run_id, kind, slot["fraction"], slot["overall"], message, run)


def _kb_problems(model: Any) -> list[str]:
    try:
        return providers.kb_problems(model)
    except ImportError:  # no knowledge base package: nothing to check against (the report says so)
        return []


def _suite_clock(config: Any) -> Any:
    """The ETA keeper for a probe config; None for a config it cannot plan (a test's stand-in)."""
    try:
        from advisor.progress import SuiteClock

        return SuiteClock(config)
    except Exception:  # noqa: BLE001 - without a plan the screen simply shows no ETA
        return None


def _one_line(exc: BaseException | None) -> str:
    if exc is None:
        return "unknown error"
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def make_app(*, host_provider: Optional[Callable[[], Any]] = None,
             probe_launcher: Optional[Callable[..., Any]] = None,
             requirements_path: Optional[str] = None,
             cached_probes: Optional[Callable[[], Any]] = None,
             save_probes: Optional[Callable[[Any], None]] | bool = None,
             report_builder: Optional[Callable[[Any, Any, Any], Any]] = None,
             renderer: Optional[Callable[[Any, str], str]] = None,
             scaling_launcher: Optional[Callable[..., Any]] = None,
             cached_scaling: Optional[Callable[[], Any]] = None,
             save_scaling: Optional[Callable[[Any], None]] | bool = None,
             initial_mode: str = "host", check_on_start: bool = True) -> AdvisorApp:
    """The app, wired to the real parts unless a test passes its own callables.

    host_provider() -> CheckReport; probe_launcher(config, on_event, cancel) -> ProbeSuite;
    cached_probes() -> ProbeSuite | None; save_probes(suite) (False: don't save);
    report_builder(requirements, host, probes[, scaling=ScalingResult]) -> Report (scaling is passed
    when it declares it); renderer(report, fmt) -> str;
    scaling_launcher(config, on_event, cancel) -> ScalingResult (run_scaling's signature);
    cached_scaling() -> ScalingResult | None; save_scaling(result) (False: don't save).
    """
    if save_probes is None:
        # Results are cached only for the real probes: a test's fake launcher must not fill the cache.
        save_probes = providers.default_save_probes if probe_launcher is None else False
    if save_scaling is None:
        save_scaling = providers.default_save_scaling if scaling_launcher is None else False
    # The real scaling cache is read only when no launcher is faked, so a test's screen never
    # depends on what this host measured before.
    real = scaling_launcher is None and probe_launcher is None
    return AdvisorApp(
        host_provider=host_provider or providers.default_host_provider,
        probe_launcher=probe_launcher or providers.default_probe_launcher,
        cached_probes=cached_probes or (providers.default_cached_probes if probe_launcher is None
                                        else (lambda: None)),
        save_probes=save_probes or None,
        report_builder=report_builder or providers.default_report_builder,
        renderer=renderer or providers.default_renderer,
        scaling_launcher=scaling_launcher or providers.default_scaling_launcher,
        cached_scaling=cached_scaling or (providers.default_cached_scaling if real else (lambda: None)),
        save_scaling=save_scaling or None,
        requirements_path=requirements_path,
        initial_mode=initial_mode,
        check_on_start=check_on_start,
    )
