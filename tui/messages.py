"""App-wide messages. Workers post these from their threads (post_message is thread-safe); the app
turns them into state and tells the screens. Screens never talk to the workers directly."""

from __future__ import annotations

from typing import Any

from textual.message import Message


class HostChecked(Message):
    """The host check finished (report is a CheckReport or an equivalent mapping)."""

    def __init__(self, report: Any) -> None:
        super().__init__()
        self.report = report


class HostProgress(Message):
    """A part of the host check finished (a line of text for the status bar)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class ProbeProgress(Message):
    """Live progress of one probe run. Only the latest per run matters, so a newer one replaces it."""

    def __init__(self, run_id: str, kind: str, fraction: float | None, step_ms: list[float],
                 images_per_second: float | None, message: str | None, run: Any = None,
                 total: int | None = None) -> None:
        super().__init__()
        self.total = total
        self.run_id = run_id
        self.kind = kind
        self.fraction = fraction
        self.step_ms = step_ms
        self.images_per_second = images_per_second
        self.message = message
        self.run = run

    def can_replace(self, message: Message) -> bool:
        # Textual asks the message about to be handled whether the next queued one supersedes it.
        # A progress message for the same run does: its step times are carried over so the
        # sparkline loses nothing. Start and done events are state changes and never dropped.
        if (isinstance(message, ProbeProgress) and message.run_id == self.run_id
                and message.kind == "progress" and self.kind == "progress"):
            message.step_ms[:0] = self.step_ms
            return True
        return False


class ProbesFinished(Message):
    """A probe suite finished (or was cancelled: then `cancelled` is True and suite may be partial)."""

    def __init__(self, suite: Any, cancelled: bool = False) -> None:
        super().__init__()
        self.suite = suite
        self.cancelled = cancelled


class ReportReady(Message):
    """A report was rebuilt from the current requirements, host and probes."""

    def __init__(self, report: Any, generation: int) -> None:
        super().__init__()
        self.report = report
        self.generation = generation


class WorkFailed(Message):
    """Slow work failed: shown as a notification; the app keeps running."""

    def __init__(self, what: str, error: str) -> None:
        super().__init__()
        self.what = what
        self.error = error


class ScalingProgress(Message):
    """Live progress of one scaling launch (torchrun/msrun): `fraction` of this launch's steps,
    `overall` of the whole scaling probe. A newer progress message for the same launch replaces it."""

    def __init__(self, run_id: str, kind: str, fraction: float | None, overall: float | None,
                 message: str | None, run: Any = None) -> None:
        super().__init__()
        self.run_id = run_id
        self.kind = kind
        self.fraction = fraction
        self.overall = overall
        self.message = message
        self.run = run

    def can_replace(self, message: Message) -> bool:
        return (isinstance(message, ScalingProgress) and message.run_id == self.run_id
                and message.kind == "progress" and self.kind == "progress")


class ScalingFinished(Message):
    """The scaling probe finished (cancelled: True when stopped; the result keeps finished launches)."""

    def __init__(self, result: Any, cancelled: bool = False) -> None:
        super().__init__()
        self.result = result
        self.cancelled = cancelled
