"""A checkbox and a switch whose state reads without colour: `[x]` / `[ ]` and `on` / `off` (Textual's
own draw the same glyph either way and tell the states apart by colour only, which NO_COLOR, a
monochrome terminal or a screenshot in plain text lose)."""

from __future__ import annotations

from rich.segment import Segment
from textual.content import Content
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList, Switch
from textual.widgets._toggle_button import ToggleButton
from textual.widgets.option_list import OptionDoesNotExist


class StateCheckbox(Checkbox):
    @property
    def _button(self) -> Content:
        style = self.get_visual_style("toggle--button")
        return Content.assemble("[", ("x" if self.value else " ", style), "]")


class StateSwitch(Switch):
    DEFAULT_CSS = """
    StateSwitch { width: auto; min-width: 5; }
    """

    def render(self) -> Content:
        style = self.get_visual_style("switch--slider")
        return Content.assemble("[", (" on" if self.value else "off", style), "]")

    def get_content_width(self, container, viewport) -> int:  # noqa: ANN001 - Textual's signature
        return 5


class StateSelectionList(SelectionList):
    """A selection list whose boxes read `[x]` / `[ ]` (Textual draws the same box for both)."""

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        segments = list(line)
        if len(segments) < 3 or segments[1].text != ToggleButton.BUTTON_INNER:
            return line  # not an option line (or Textual changed its drawing): leave it
        index = self.scroll_offset[1] + y
        try:
            selected = self.get_option_at_index(index).value in self._selected
        except OptionDoesNotExist:
            return line
        left, inner, right = segments[:3]
        segments[:3] = [
            Segment("[", left.style),
            Segment("x" if selected else " ", inner.style),
            Segment("]", right.style),
        ]
        return Strip(segments)
