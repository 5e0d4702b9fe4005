"""The screens' footer: Textual's, recomposed only when what it shows has changed.

Textual's footer recomposes on every change of its screen's bindings, and they "change" on each focus
move and each screen switch, mostly to the same keys. Remounting its keys asks for a layout of the whole
screen, so every visit laid the Requirements form's ~400 widgets out three or four times over; the
footer of the screen left recomposed too (its screen's key, left out while shown, came back), which
made the next visit lay the screen out again. Now the keys it would show are compared first (equal:
nothing moves), and a hidden screen's footer waits until it is shown.
"""

from __future__ import annotations

from textual.widgets import Footer as TextualFooter


class Footer(TextualFooter):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple | None = None  # what the last compose showed (None: nothing composed yet)

    def _keys(self) -> tuple:
        """Everything compose reads, in its order: the keys shown, their words, state and grouping."""
        app = self.app
        keys = tuple(
            (b.key, app.get_key_display(b), b.description, b.action, enabled, tooltip, b.group)
            for (_, b, enabled, tooltip) in self.screen.active_bindings.values()
            if b.show
        )
        palette = self.show_command_palette and app.ENABLE_COMMAND_PALETTE
        return keys, palette, self.compact

    def compose(self):
        self._shown = self._keys() if getattr(self, "_bindings_ready", True) else None
        yield from super().compose()

    async def recompose(self) -> None:
        if self._shown is not None and self.is_attached:
            if not self.screen.is_current:
                return  # nobody sees it: its screen's resume asks again when it is shown
            if self._keys() == self._shown:
                return
        await super().recompose()
