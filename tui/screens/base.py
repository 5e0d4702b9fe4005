"""What every mode screen shares: registering with the app so it gets the state-changed messages
(tui.messages), and drawing them now if shown or once shown again."""

from __future__ import annotations

import time
from typing import Callable

from textual import events
from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget


class AdvisorScreen(Screen):
    # Declared here too so `? Help` comes first in every footer (the app's keys follow the screen's).
    BINDINGS = [
        Binding("question_mark", "app.help", "Help", key_display="?"),
        # Leaves a text field so the screen's letter keys (s, c, ...) act again.
        Binding("escape", "leave_field", "Leave field", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.stale: dict[str, tuple] = {}  # key -> (draw, args) for changes while hidden
        self.resumed_at = 0.0  # monotonic time the screen was last shown (tests use it)
        self.left_field: Widget | None = None  # the field Escape left: Tab goes on from it
        self._laid_out_as: tuple | None = None  # (size, the app's CSS count) of the last full layout

    def on_mount(self) -> None:
        self.app.register_view(self)
        self.safely(self.refresh_view)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Textual dispatches this class's handler, then Screen's own (one per class of the MRO, which is
        # also why the redraw is here and not in on_screen_resume: a class's `_on_` handler hides its
        # `on_` one). Screen's restyles every widget on each resume; when the app's CSS has not changed
        # since this screen was styled (switch_mode refreshes it when it has), that is seconds of work on
        # the Requirements form for nothing: a later visit only lays out and paints.
        if getattr(self, "_css_update_count", None) == getattr(self.app, "_css_update_count", object()):
            event.refresh_styles = False
        # Only what changed while hidden is redrawn: switching screens stays instant.
        stale, self.stale = self.stale, {}
        for fn, args in stale.values():
            self.safely(fn, *args)
        self.resumed_at = time.monotonic()

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        if not scroll:
            self._laid_out_as = (self.outer_size if size is None else size, self.app._css_update_count)
        super()._refresh_layout(size, scroll)

    def _screen_resized(self, size: Size) -> None:
        # Textual lays a screen out again each time it is shown. When nothing asked for a layout while
        # it was hidden (a widget that changes its size does), at the same size and styles, every
        # widget is where the last layout put it: the Requirements form's ~400 widgets are placed again
        # for nothing (most of a later visit). Repaint the whole screen from the map it has instead.
        if self._unmoved(size):
            self._compositor.update_widgets(self._dirty_widgets)
            self._dirty_widgets.clear()
            self._compositor._dirty_regions.add(size.region)  # the whole screen: another was shown
            if not self.app._batch_count:  # else the end of the switch's hold paints it (app.switch_mode)
                self._compositor_refresh()
            return
        super()._screen_resized(size)

    def _unmoved(self, size: Size) -> bool:
        try:
            return bool(
                self.stack_updates
                and self.is_attached
                and self.is_current
                and self._laid_out_as == (size, self.app._css_update_count)
                and not (self._layout_required or self._layout_widgets or self._scroll_required)
                and self._compositor.size == size
            )
        except AttributeError:  # Textual's internals moved: lay out as Textual does
            return False

    def safely(self, fn: Callable[..., None], *args: object) -> None:
        """Draw; data the screen cannot show becomes a notification, never a traceback."""
        try:
            fn(*args)
        except Exception as exc:  # noqa: BLE001 - the app must survive unexpected data
            self.notify(
                f"{type(exc).__name__}: {exc}"[:300],
                title=f"{self.SUB_TITLE}: cannot show",
                severity="error",
                timeout=8,
            )

    def when_shown(self, key: str, fn: Callable[..., None], *args: object) -> None:
        """Draw now if this screen is shown, else when it is next shown (the latest per key)."""
        if self.is_current:
            self.safely(fn, *args)
        else:
            self.stale[key] = (fn, args)

    def action_leave_field(self) -> None:
        """Leave the text field for the scrolling container that holds it: the
        screen's letter keys act again, the arrows and PageDown scroll, and Tab / shift+tab go on
        from the field that was left instead of from the top."""
        field = self.focused
        holder = None
        if field is not None:
            holder = next(
                (a for a in field.ancestors if isinstance(a, ScrollableContainer) and a.focusable),
                None,
            )
        self.left_field = field
        if holder is not None:
            self.set_focus(holder, scroll_visible=False)
        else:
            self.set_focus(None)

    def _resume_from_left_field(self) -> None:
        left, self.left_field = self.left_field, None
        here = self.focused
        if left is None or here is left or not left.is_attached or not left.focusable:
            return
        if here is None or here in left.ancestors:  # still where Escape put it
            self.set_focus(left, scroll_visible=False)

    def focus_next(self, selector: str | type[Widget] = "*") -> Widget | None:
        self._resume_from_left_field()
        return super().focus_next(selector)

    def focus_previous(self, selector: str | type[Widget] = "*") -> Widget | None:
        self._resume_from_left_field()
        return super().focus_previous(selector)

    def refresh_view(self) -> None:  # overridden: draw everything from the app's state
        pass
