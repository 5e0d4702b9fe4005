"""What every mode screen shares: registering with the app so it hears state changes."""

from __future__ import annotations

import time
from typing import Any

from textual.binding import Binding
from textual.screen import Screen


class AdvisorScreen(Screen):
    # Declared here too so `? Help` comes first in every footer (the app's keys follow the screen's).
    BINDINGS = [Binding("question_mark", "app.help", "Help", key_display="?"),
                # Leaves a text field so the screen's letter keys (s, c, ...) act again.
                Binding("escape", "leave_field", "Leave field", show=False)]

    def __init__(self) -> None:
        super().__init__()
        self.stale: dict[str, tuple] = {}  # state changes heard while hidden: applied on resume
        self.resumed_at = 0.0              # monotonic time the screen was last shown (tests use it)

    def on_mount(self) -> None:
        self.app.register_view(self)
        self.safely(self.refresh_view)

    def on_screen_resume(self) -> None:
        # Only what changed while hidden is redrawn: switching screens stays instant.
        stale, self.stale = self.stale, {}
        for what, args in stale.items():
            self.safely(getattr(self, f"on_state_{what}"), *args)
        self.resumed_at = time.monotonic()

    def safely(self, fn: Any, *args: Any) -> None:
        """Draw; data the screen cannot show becomes a notification, never a traceback."""
        try:
            fn(*args)
        except Exception as exc:  # noqa: BLE001 - the app must survive unexpected data
            self.notify(f"{type(exc).__name__}: {exc}"[:300], title=f"{self.SUB_TITLE}: cannot show",
                        severity="error", timeout=8)

    def hear(self, what: str, *args: Any) -> None:
        """A state change from the app: handled now if shown, else when next shown."""
        if not hasattr(self, f"on_state_{what}"):
            return
        if self.is_current:
            self.safely(getattr(self, f"on_state_{what}"), *args)
        elif what in ("probe_progress", "scaling_progress"):
            self.stale["probes_changed"] = ()  # a full redraw covers any number of progress ticks
        else:
            self.stale[what] = args

    def action_leave_field(self) -> None:
        self.set_focus(None)

    def refresh_view(self) -> None:  # overridden: draw everything from the app's state
        pass
