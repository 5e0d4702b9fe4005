"""The app's messages (harlequin's messages.py is the model), in two kinds:

- from the workers to the app (post_message is thread-safe): HostChecked, HostProgress, RunProgressed,
  MeasurementFinished, ReportReady, WorkFailed. The app turns them into state (tui.state.AppState).
- from the app to the mode screens, after the state changed: HostChanged, HostDefaults,
  RequirementsLoaded, MeasurementChanged, RunChanged, ReportChanged. A screen that is not shown
  keeps the latest of each and redraws when it is shown again (tui.screens.base).

Screens never talk to the workers directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from textual.message import Message

if TYPE_CHECKING:
    from advisor.report import Report
    from probes.check.models import CheckReport
    from tui.state import Result, RunProgress

# ---- workers -> app -----------------------------------------------------------------------------


class HostChecked(Message):
    """The host check finished (report is a CheckReport or an equivalent mapping)."""

    def __init__(self, report: CheckReport) -> None:
        super().__init__()
        self.report = report


class HostProgress(Message):
    """A part of the host check finished (a line of text for the status bar)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class RunProgressed(Message):
    """Live progress of one run of a measurement (kind: a probes.base.KINDS name). Only the latest per
    run matters, so a newer progress message replaces a queued one (keeping its step times)."""

    def __init__(
        self,
        kind: str,
        run_id: str,
        event: str,
        fraction: float | None = None,
        step_ms: list[float] | None = None,
        rate: float | None = None,
        message: str | None = None,
        run: Optional[Result] = None,
        total: int | None = None,
        overall: float | None = None,
    ) -> None:
        super().__init__()
        self.kind = kind
        self.run_id = run_id
        self.event = event  # start | progress | done
        self.fraction = fraction
        self.step_ms = step_ms if step_ms is not None else []
        self.rate = rate  # the kind's throughput (images/s; tokens/s for the GPT)
        self.message = message
        self.run = run
        self.total = total
        self.overall = overall  # of the whole measurement (the scaling runner reports it)

    def can_replace(self, message: Message) -> bool:
        # Textual asks the message about to be handled whether the next queued one supersedes it.
        # Start and done events are state changes and never dropped.
        if (
            isinstance(message, RunProgressed)
            and message.kind == self.kind
            and message.run_id == self.run_id
            and message.event == "progress"
            and self.event == "progress"
        ):
            message.step_ms[:0] = self.step_ms
            return True
        return False


class MeasurementFinished(Message):
    """A measurement ended (or was cancelled: then `cancelled` is True and the result may be partial),
    or a cached result was read (`from_cache`), or the launcher crashed (`error`: its one line)."""

    def __init__(
        self,
        kind: str,
        result: Optional[Result],
        cancelled: bool = False,
        from_cache: bool = False,
        error: str | None = None,
    ) -> None:
        super().__init__()
        self.error = error
        self.kind = kind
        self.result = result
        self.cancelled = cancelled
        self.from_cache = from_cache


class ReportReady(Message):
    """A report was rebuilt from the current requirements, host and probes."""

    def __init__(self, report: Optional[Report], generation: int) -> None:
        super().__init__()
        self.report = report
        self.generation = generation


class WorkFailed(Message):
    """Slow work failed: shown as a notification; the app keeps running."""

    def __init__(self, what: str, error: str) -> None:
        super().__init__()
        self.what = what
        self.error = error


# ---- app -> screens -----------------------------------------------------------------------------


class HostChanged(Message):
    bubble = False  # for the screen it is posted to, not the app
    """state.host changed (checking, progress, a result or a failure)."""


class HostDefaults(Message):
    bubble = False  # for the screen it is posted to, not the app
    """A host check arrived after the form was shown: fill the hardware fields the user left alone."""


class RequirementsLoaded(Message):
    bubble = False  # for the screen it is posted to, not the app
    """A requirements file replaced state.requirements."""


class ReportChanged(Message):
    bubble = False  # for the screen it is posted to, not the app
    """state.report (or state.report_error) changed."""


class MeasurementChanged(Message):
    """A measurement started, finished or got a cached result: redraw all of it."""

    bubble = False

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind


class RunChanged(Message):
    """One run of a running measurement moved on: redraw its row."""

    bubble = False

    def __init__(self, kind: str, progress: RunProgress) -> None:
        super().__init__()
        self.kind = kind
        self.progress = progress
