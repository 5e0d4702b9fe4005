"""The interactive advisor: four peer screens (modes) over the headless core.

All slow work (host check, probes, report building, cache reads) runs in thread workers that post
messages from tui.messages; the app's handlers change the one state (tui.state.AppState) and post a
message to the mode screens, which redraw from the state. Every kind of probe (training, scaling,
deployment, accuracy, input pipeline) has one MeasurementController (tui.controller). The core is
reached through typed providers (tui.providers.Providers) that tests replace (see make_app), so
nothing here depends on the host.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from pydantic import BaseModel
from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from advisor.estimates import QUEUE_TICK_S
from advisor.sanitize import for_terminal, one_line
from tui import providers
from tui.controller import MeasurementController, _one_line, rows
from tui.messages import (
    HostChanged,
    HostChecked,
    HostDefaults,
    HostProgress,
    MeasurementFinished,
    ReportChanged,
    ReportReady,
    RequirementsLoaded,
    RunProgressed,
    WorkFailed,
)
from tui.providers import Providers
from tui.screens.help import HelpModal
from tui.screens.host import HostScreen
from tui.screens.probes import ProbesScreen
from tui.screens.recommendation import RecommendationScreen
from tui.screens.requirements import RequirementsScreen
from tui.state import AppState, Result

if TYPE_CHECKING:
    from textual.widget import AwaitMount

    from advisor.report import Report
    from probes.check.models import CheckReport
    from probes.launcher import Cancel

# Read from this host's cache and passed on by name; every other kind is measured in the session.
FROM_CACHE = ("training", "scaling")
# The other screens are built once the first one has painted, one per idle moment (keys stay answered).
PREBUILD_AFTER_S = 0.3
PREBUILD_GAP_S = 0.05
DARK, LIGHT = "textual-dark", "textual-light"


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
    # The footer at 80 columns holds a screen's keys, the other three screens and the global keys:
    # the screens go by short names there (the palette and the help use the full
    # ones) and the screen shown leaves its own key out.
    BINDINGS = [
        Binding("f1", "app.switch_mode('host')", "Host", tooltip="Host check results"),
        Binding("f2", "app.switch_mode('requirements')", "Reqs", tooltip="The team's requirements"),
        Binding("f3", "app.switch_mode('probes')", "Probes", tooltip="Training probes"),
        Binding("f4", "app.switch_mode('recommendation')", "Advice", tooltip="Recommendation: scores, verdict, export"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("ctrl+q", "app.quit", "Quit", priority=True, key_display="^q"),
        Binding("ctrl+p", "app.command_palette", "Palette", key_display="^p", tooltip="Every action by name"),
        Binding("ctrl+t", "app.toggle_theme", "Theme", key_display="^t", tooltip="Light / dark theme"),
    ]

    def __init__(
        self,
        core: Providers,
        *,
        requirements_path: str | None = None,
        initial_mode: str = "host",
        check_on_start: bool = True,
        prebuild: Optional[bool] = None,
    ) -> None:
        super().__init__()
        self.prebuild = prebuild  # None: on a terminal (a headless test run has no one to wait for it)
        self.core = core
        self.state = AppState()
        self.state.requirements.path = requirements_path
        self.initial_mode = initial_mode
        self.check_on_start = check_on_start
        self.views: list[Screen] = []  # the mode screens created so far (they register on mount)
        self._switching = False  # inside switch_mode: its hold on frames ends early (delay_update)
        self._release_switch: Optional[Callable[[], None]] = None
        self._frozen = False  # the built screens' objects are out of the full collection's way
        # One controller per probe kind of the registry; the launcher and the saver are read at start
        # (a test may swap them).
        self.measurements = {
            kind.name: MeasurementController(
                self,
                kind,
                self.state.kinds[kind.name],
                launcher=lambda name=kind.name: self._launcher(name),
                save=lambda name=kind.name: self._saver(name),
                new_cancel=providers.new_cancel,
                broadcast=self.tell,
            )
            for kind in rows()  # the registry as it stands: a kind registered after import has one too
        }

    def _launcher(self, kind: str) -> providers.Launcher:
        if kind == "scaling":
            return self._scaling_launcher
        return self.core.launchers[kind]

    def _saver(self, kind: str) -> Optional[Callable[[Result], None]]:
        if kind == "scaling":
            return self._scaling_save if self.core.saves.get("scaling") else None
        return self.core.saves.get(kind)  # the other kinds have no per-host cache

    def _scaling_launcher(
        self, config: BaseModel, on_event: Optional[providers.OnEvent], cancel: Optional[Cancel]
    ) -> Result:
        """One host's scaling probe, or (a MultinodeRequest from the node R of N control) across hosts."""
        if isinstance(config, providers.MultinodeRequest):
            return self.core.run_multinode(config, on_event, cancel)
        return self.core.launchers["scaling"](config, on_event, cancel)

    def _scaling_save(self, result: Result) -> None:
        # A multi-node result is not cached, as with `advisor probe --scaling --nnodes` (node 0 writes -o).
        save = self.core.saves.get("scaling")
        if save is not None and result.inter_host is None and not result.host.get("nnodes"):
            save(result)

    # ---- start-up and shut-down ------------------------------------------------------------------

    def on_mount(self) -> None:
        self.theme = terminal_theme()
        self._mark_the_load()
        self._read_the_run_queue()
        self.set_interval(QUEUE_TICK_S, self._read_the_run_queue)
        if self.state.requirements.path:
            self.load_requirements(self.state.requirements.path, notify=True)
        else:
            self._starting_requirements()
        self.switch_mode(self.initial_mode)
        if self.check_on_start:
            self.refresh_host()
        for kind, read in self.core.cached.items():
            self.measurements[kind].load_cached(read)
        if self.prebuild or (self.prebuild is None and not self.is_headless):
            self.set_timer(PREBUILD_AFTER_S, self._prebuild_next)

    @staticmethod
    def _mark_the_load() -> None:
        """Start the window a probe's plan measures the others' load over (advisor.estimates.load_now):
        the 1-minute average it would read instead counts the host check's own children as other work."""
        from advisor.estimates import cpu_mark

        try:
            cpu_mark()
        except (OSError, ValueError):  # no /proc/stat: the plan reads the average
            pass

    @staticmethod
    def _read_the_run_queue() -> None:
        """One reading of the runnable tasks, which a probe's plan weighs as the CLI's 0.5 s window does
        (advisor.estimates.recent_queue): the 1-minute average lags a host that has turned quieter."""
        from advisor.estimates import queue_tick

        try:
            queue_tick()
        except (OSError, ValueError):  # no /proc/stat: the plan reads the average
            pass

    # ---- screens built ahead of time ---------------------------------------------------------------

    def _prebuild_next(self) -> None:
        """Build (compose, style, lay out) the next screen nobody has shown yet while the user reads the
        first one, one screen per idle moment, so a first visit only has to paint (the Requirements form
        alone is ~400 widgets: seconds to compose on a loaded 2-core host)."""
        pending = [mode for mode in self.MODES if mode != self.current_mode and not self._built(mode)]
        if not self.is_running:
            return
        if not pending:
            self._freeze_the_built()
            return
        try:
            screen, _ = self._get_screen(self.MODES[pending[0]]())  # registers it: compose and mount follow
            self._screen_stacks[pending[0]] = [screen]
            self._load_screen_css(screen)
        except Exception:  # noqa: BLE001 - Textual's internals moved: screens are built on first visit
            self.prebuild = False
            return
        # once mounted, its layout at the app's size, then the next screen
        screen.call_after_refresh(self._laid_out, screen)

    def _laid_out(self, screen: Screen, passes: int = 2) -> None:
        """Lay the built screen out at the app's size and paint it once off screen (its widgets keep
        their rendered lines); the second pass settles what the first one's resize events changed."""
        if screen.is_attached and screen is not self.screen:
            # styled as it mounted, with the app's CSS as it is now: its first showing need not restyle
            # the whole app (a theme change since makes the counts differ again, and Textual restyles)
            screen._css_update_count = self._css_update_count
            screen._refresh_layout(self.size)
            if passes > 1:
                screen.call_after_refresh(self._laid_out, screen, passes - 1)
                return
            screen._compositor.render_full_update()
        self.set_timer(PREBUILD_GAP_S, self._prebuild_next)

    # ---- switching screens ------------------------------------------------------------------------

    def switch_mode(self, mode: str) -> AwaitMount:
        """Textual holds every frame for 50 ms while it switches screens (delay_update), so no frame
        shows the new screen before its resume handlers ran; here the hold ends as soon as the new
        screen has handled its resume (where it redraws what changed while hidden), which on an idle
        host is a few milliseconds: the switch paints at once."""
        self._switching = True
        try:
            awaited = super().switch_mode(mode)
        finally:
            self._switching = False
        release, self._release_switch = self._release_switch, None
        if release is not None:
            self.screen.call_later(release)  # after the ScreenResume switch_mode posted to it
        return awaited

    def delay_update(self, delay: float = 0.05) -> None:
        if not self._switching:
            super().delay_update(delay)
            return
        self._begin_batch()
        held = [True]

        def release() -> None:
            if held:  # once: by the new screen, or by the timer if its queue is gone
                held.clear()
                self._end_batch()
                if not self._batch_count:
                    self.screen.refresh()

        self._release_switch = release
        self.set_timer(delay, release, name="delay_update")

    def _freeze_the_built(self) -> None:
        """Every screen is built: the ~260,000 objects the app holds now (its widgets, the knowledge
        base, the models) live as long as it does. Python's full collection walks them all, which is
        0.4-0.6 s at a random moment, so at times a key waited for it; frozen, a collection walks only
        what came after (undone when the app ends, so a process that goes on can free them)."""
        if not self._frozen:
            gc.freeze()
            self._frozen = True

    def _built(self, mode: str) -> bool:
        return bool(getattr(self, "_screen_stacks", {}).get(mode))

    async def action_quit(self) -> None:
        self.stop_children()
        self.exit()

    def on_unmount(self) -> None:
        self.stop_children()
        if self._frozen:
            gc.unfreeze()
            self._frozen = False

    def stop_children(self) -> None:
        """Kill the probe and smoke-test processes so quitting never waits for them."""
        state = self.state
        for cancel in (*(m.cancel for m in state.measurements), state.host.cancel):
            if cancel is not None:
                cancel.set()

    def notify(self, message: str, *, title: str = "", **kwargs) -> None:
        """Every toast: a message may quote a file's text (a requirements name, a path), whose escape
        sequences would otherwise reach the terminal (clear the screen, set its title or clipboard)."""
        super().notify(for_terminal(str(message)), title=one_line(str(title)), **kwargs)

    # ---- keys and the command palette ------------------------------------------------------------

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpModal):
            self.push_screen(HelpModal())

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT if self.theme != LIGHT else DARK

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The footer leaves out the key of the screen already shown (80 columns are short), and the
        # screens' keys while a select's menu is open (its "esc Dismiss menu" takes their room;
        # Escape first, then F1-F4 again): the global keys stay in view, nothing is cut.
        if action == "switch_mode" and parameters and self.current_mode == parameters[0]:
            return False
        if action == "switch_mode" and type(self.focused).__name__ == "SelectOverlay":
            return False
        return True

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The command palette: every key of every screen by name, then Textual's own."""
        for mode, cls in self.MODES.items():
            title = getattr(cls, "SUB_TITLE", mode)
            yield SystemCommand(f"Go to {title}", f"Show the {title} screen", lambda mode=mode: self.switch_mode(mode))
            for act in getattr(cls, "ACTIONS", ()):  # tui.actions: the list the bindings are made from
                yield SystemCommand(
                    f"{title}: {act.name} ({act.key})",
                    act.help,
                    lambda mode=mode, action=act.action: self._screen_action(mode, action),
                )
        yield SystemCommand(
            "Light / dark theme", "Switch between the light and the dark theme (ctrl+t)", self.action_toggle_theme
        )
        yield SystemCommand("Help", "The keys and what each screen is for (?)", self.action_help)
        yield from super().get_system_commands(screen)

    def _screen_action(self, mode: str, action: str) -> None:
        if self.current_mode != mode:
            self.switch_mode(mode)
        self.call_after_refresh(self.run_action, action, self.screen)

    # ---- telling the screens ---------------------------------------------------------------------

    def register_view(self, screen: Screen) -> None:
        if screen not in self.views:
            self.views.append(screen)

    def tell(self, message: type[Message], *args: object) -> None:
        """Post a state-changed message to every mode screen built so far (a message of its own to
        each: a Textual message is handled once)."""
        for screen in list(self.views):
            if screen.is_mounted and hasattr(screen, message.handler_name):  # only who listens
                screen.post_message(message(*args))

    # ---- host check ------------------------------------------------------------------------------

    def refresh_host(self) -> None:
        host = self.state.host
        if host.checking:
            self.notify("The host check is already running", severity="warning")
            return
        host.checking, host.progress = True, "starting"
        try:
            host.cancel = providers.new_cancel()
        except Exception:  # noqa: BLE001 - no launcher package: the check still runs, uncancellable
            host.cancel = None
        self.tell(HostChanged)
        self._host_worker(host.cancel)

    @work(thread=True, exclusive=True, exit_on_error=False, group="host", description="host check")
    def _host_worker(self, cancel: Optional[Cancel]) -> None:
        try:
            report = self.core.check_host(
                progress=lambda text: self.post_message(HostProgress(str(text))), cancel=cancel
            )
        except Exception as exc:  # noqa: BLE001 - the check never raises by contract; a broken part still must not kill us
            self.post_message(WorkFailed("host check", _one_line(exc)))
            return
        self.post_message(HostChecked(report))

    @on(HostProgress)
    def _host_progress(self, message: HostProgress) -> None:
        self.state.host.progress = message.text
        self.tell(HostChanged)

    @on(HostChecked)
    def _host_checked(self, message: HostChecked) -> None:
        host = self.state.host
        host.report, host.error, host.checking = message.report, None, False
        self.tell(HostChanged)
        seen = any(isinstance(v, RequirementsScreen) and v.resumed_at for v in self.views)  # built ahead is not seen
        if not self.state.requirements.path and not seen:
            self._starting_requirements()  # nobody has seen the form: it simply starts from here
        else:
            self.tell(HostDefaults)
            self.rebuild_report()

    # ---- requirements ----------------------------------------------------------------------------

    def load_requirements(self, path: str, notify: bool = False) -> bool:
        """Load a requirements file through the report's own loader and its knowledge-base checks
        (advisor.validation, as `advisor report` does); errors become notifications."""
        try:
            model = providers.load_requirements_file(path)
        except Exception as exc:  # noqa: BLE001 - UsageError (bad file) or a broken loader alike
            self.notify(_one_line(exc), title="Cannot load requirements", severity="error", timeout=8)
            return False
        self.state.requirements.path = str(path)
        problems = _kb_problems(model)
        if problems:  # `advisor report` refuses this file: so does the form (it shows where)
            self.set_requirements(None, providers.as_data(model), f"{path}: {problems[0]}")
            self.notify(f"{path}: {problems[0]}", title="Requirements need attention", severity="error", timeout=8)
        else:
            self.set_requirements(model, providers.as_data(model))
        self.tell(RequirementsLoaded)
        if notify and not problems:
            self.notify(f"Loaded {path}", title="Requirements")
        return True

    def _starting_requirements(self) -> None:
        """Until the user loads or edits requirements, advise on the defaults plus this host."""
        from tui.defaults import starting_requirements

        data = starting_requirements(self.state.host.report)
        try:
            model = providers.requirements_model().model_validate(data)
        except Exception as exc:  # noqa: BLE001 - pydantic's ValidationError: shown as the problem
            self.set_requirements(None, data, _one_line(exc))
            return
        self.set_requirements(model, data)

    def set_requirements(self, model: Optional[BaseModel], data: dict | None, problem: str | None = None) -> None:
        """The form's current content: a valid model (or None with the problem that stops it)."""
        req = self.state.requirements
        req.model, req.data, req.problem = model, data, problem
        self.rebuild_report()

    # ---- probes (training and scaling: one controller each) --------------------------------------

    @property
    def measuring(self) -> bool:
        return self.state.measuring

    def start_measurement(self, kind: str, config: BaseModel) -> bool:
        """Start the probe kind `kind` (a probes.base.KINDS name) with its config; one at a time."""
        if self.measuring:
            running = next(c for c in self.measurements.values() if c.state.running)
            busy = (
                "Probes"
                if running.kind.name == "training"
                else f"The {running.kind.title[0].lower()}{running.kind.title[1:]}"
            )
            self.notify(f"{busy} already running: wait or cancel (c)", severity="warning")
            return False
        return self.measurements[kind].start(config)

    def cancel_probes(self) -> None:
        """Cancel whatever is measuring: the training probes or the scaling probe."""
        for controller in self.measurements.values():
            controller.cancel()

    @on(RunProgressed)
    def _run_progressed(self, message: RunProgressed) -> None:
        self.measurements[message.kind].progressed(message)

    @on(MeasurementFinished)
    def _measurement_finished(self, message: MeasurementFinished) -> None:
        if self.measurements[message.kind].finished(message):
            self.rebuild_report()  # every kind of the registry is evidence the report reads

    # ---- report ----------------------------------------------------------------------------------

    def rebuild_report(self) -> None:
        state = self.state
        if state.requirements.model is None:
            state.report = None
            state.report_error = state.requirements.problem or "no requirements yet: fill the form (F2) or load a file"
            state.report_generation += 1
            state.report_for = state.report_generation  # nothing to compute: the problem is current
            self.tell(ReportChanged)
            return
        state.report_generation += 1
        # Until the new report lands the one shown is stale, and an earlier problem (a field fixed
        # since) is no longer true: the Recommendation says "recomputing" instead of either.
        state.report_error = None
        self.tell(ReportChanged)
        self._report_worker(
            state.requirements.model,
            state.host.report,
            state.probes.result,
            state.scaling.result,
            state.report_generation,
            state.requirements.path,
            {name: m.result for name, m in state.kinds.items() if name not in FROM_CACHE},
        )

    @work(thread=True, exclusive=True, exit_on_error=False, group="report", description="report")
    def _report_worker(
        self,
        requirements: BaseModel,
        host: Optional[CheckReport],
        probes: Optional[Result],
        scaling: Optional[Result],
        generation: int,
        path: str | None = None,
        measured: dict[str, Optional[Result]] | None = None,
    ) -> None:
        try:
            scan = self.core.scan_code(requirements, path)
        except Exception as exc:  # noqa: BLE001 - a missing code_path (UsageError) or a scan bug: the report goes on
            self.post_message(WorkFailed("migration scan", _one_line(exc)))
            scan = None
        # Only what there is: a test's builder need not know scan=, deploy=, accuracy=, pipeline= or gpt=.
        extra = {k: v for k, v in {"scan": scan, **(measured or {})}.items() if v is not None}
        try:
            # The measured scaling enters the report as it does for `advisor report`.
            report = self.core.build_report(requirements, host, probes, scaling=scaling, **extra)
        except Exception as exc:  # noqa: BLE001 - a report that cannot be built is a notice
            self.post_message(WorkFailed("report", _one_line(exc)))
            return
        self.post_message(ReportReady(report, generation))

    @on(ReportReady)
    def _report_ready(self, message: ReportReady) -> None:
        if message.generation != self.state.report_generation:
            return  # built from inputs that have changed since
        self.state.report, self.state.report_error = message.report, None
        self.state.report_for = message.generation
        self.tell(ReportChanged)

    def export_report(self, fmt: str, path: str) -> Path | None:
        if self.state.report is None:
            self.notify(self.state.report_error or "no report yet", title="Nothing to export", severity="warning")
            return None
        try:
            from advisor.output import write_with_companions

            target = Path(os.path.expanduser(path))
            if target.exists() and not target.is_file():  # a FIFO would block the screen, a device eat it
                raise ValueError(f"{target}: not a regular file (export writes a file and its charts beside it)")
            text, files = self.core.export(self.state.report, fmt, str(target))
            # one step, as `advisor report -o`: never charts without the document, nothing half-written
            written = Path(os.path.realpath(write_with_companions(target, text, files)))
        except Exception as exc:  # noqa: BLE001 - UsageError (a folder, no permission) or a renderer bug
            self.notify(_one_line(exc), title=f"Export {fmt} failed", severity="error", timeout=8)
            return None
        beside = f" and {len(files)} chart(s) beside it" if files else ""
        if fmt == "html":
            beside += f"; open it in a browser:\n{written.as_uri()}"  # a line of its own: never broken mid-word
        name = {"html": "HTML", "json": "JSON"}.get(fmt, fmt.capitalize())
        self.notify(f"Wrote {written}{beside}", title=f"Exported {name}")
        return written

    # ---- failures --------------------------------------------------------------------------------

    @on(WorkFailed)
    def _work_failed(self, message: WorkFailed) -> None:
        if message.what == "host check":
            self.state.host.checking, self.state.host.error = False, message.error
            self.tell(HostChanged)
        if message.what == "report":
            self.state.report, self.state.report_error = None, message.error
            self.state.report_for = self.state.report_generation
            self.tell(ReportChanged)
        self.notify(message.error, title=f"{message.what} failed", severity="error", timeout=8)

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        # Workers catch their own errors; this is the last net so nothing ends in a traceback.
        if event.state == WorkerState.ERROR:
            self.notify(
                _one_line(event.worker.error), title=f"{event.worker.description} failed", severity="error", timeout=8
            )


def _kb_problems(model: BaseModel) -> list[str]:
    try:
        return providers.kb_problems(model)
    except ImportError:  # no knowledge base package: nothing to check against (the report says so)
        return []


def _config(key: str, default: str) -> str:
    """A setting of the user's config file (advisor.config); `advisor` has checked the file already."""
    try:
        from advisor import config

        return config.value(key)
    except Exception:  # noqa: BLE001 - a broken file is reported by the CLI; the TUI keeps its default
        return default


def terminal_theme() -> str:
    """The light theme on a light terminal: ADVISOR_THEME=light|dark, else tui.theme in the config
    file, else COLORFGBG (rxvt, Konsole, iTerm2 and others: 'fg;bg', a background of 7 or 9-15 is light)."""
    wanted = os.environ.get("ADVISOR_THEME", "").strip().lower() or _config("tui.theme", "auto")
    if wanted in ("light", "dark"):
        return LIGHT if wanted == "light" else DARK
    background = os.environ.get("COLORFGBG", "").split(";")[-1].strip()
    if background.isdigit() and (int(background) == 7 or 9 <= int(background) <= 15):
        return LIGHT
    return DARK


def make_app(
    *,
    host_provider: providers.HostCheck | None = None,
    probe_launcher: providers.Launcher | None = None,
    requirements_path: str | None = None,
    cached_probes: Callable[[], Optional[Result]] | None = None,
    save_probes: Callable[[Result], None] | None | bool = None,
    report_builder: providers.ReportBuilder | None = None,
    renderer: Callable[[Report, str], str] | None = None,
    scaling_launcher: providers.Launcher | None = None,
    cached_scaling: Callable[[], Optional[Result]] | None = None,
    save_scaling: Callable[[Result], None] | None | bool = None,
    deploy_launcher: providers.Launcher | None = None,
    accuracy_launcher: providers.Launcher | None = None,
    pipeline_launcher: providers.Launcher | None = None,
    multinode_launcher: providers.Launcher | None = None,
    launchers: dict[str, providers.Launcher] | None = None,
    scan_code: Callable[[BaseModel, str | None], Optional[BaseModel]] | None = None,
    initial_mode: str = "host",
    check_on_start: bool = True,
    prebuild: Optional[bool] = None,
) -> AdvisorApp:
    """The app, wired to the real parts unless a test passes its own callables (the signatures of
    tui.providers: HostCheck, Launcher, ReportBuilder; save_*=False: don't save). `launchers` maps
    any probe kind of the registry (probes.base.KINDS) to its launcher; the named ones are shorthands."""
    named = {
        "training": probe_launcher,
        "scaling": scaling_launcher,
        "deploy": deploy_launcher,
        "accuracy": accuracy_launcher,
        "pipeline": pipeline_launcher,
    }
    chosen = {k: v for k, v in {**named, **(launchers or {})}.items() if v is not None}
    if save_probes is None:
        # Results are cached only for the real probes: a test's fake launcher must not fill the cache.
        save_probes = providers.default_save_probes if "training" not in chosen else False
    if save_scaling is None:
        save_scaling = providers.default_save_scaling if "scaling" not in chosen else False
    # The real caches are read only when no launcher is faked, so a test's screen never depends on
    # what this host measured before.
    real = "scaling" not in chosen and "training" not in chosen
    core = Providers(
        check_host=host_provider or providers.default_host_provider,
        build_report=report_builder or providers.default_report_builder,
        render=renderer or providers.default_renderer,
        launchers=chosen,
        cached={
            "training": cached_probes
            or (providers.default_cached_probes if "training" not in chosen else (lambda: None)),
            "scaling": cached_scaling or (providers.default_cached_scaling if real else (lambda: None)),
        },
        saves={"training": save_probes or None, "scaling": save_scaling or None},
        export=None if renderer is not None else providers.default_export,
        run_multinode=multinode_launcher,
        scan_code=scan_code,
    )
    return AdvisorApp(
        core,
        requirements_path=requirements_path,
        initial_mode=initial_mode,
        check_on_start=check_on_start,
        prebuild=prebuild,
    )
