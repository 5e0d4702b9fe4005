"""Jump to any field of a long form by typing part of its name (the Requirements form has ~60 fields
in tab order): ctrl+g opens it, the words narrow the list, enter goes to the field, escape stays."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option


@dataclass(frozen=True)
class Target:
    widget_id: str  # the control to focus
    name: str  # what the list shows: "constraints.deadline_weeks"
    words: str = ""  # more to match on: the label, what the field means


def matches(target: Target, query: str) -> bool:
    """Every word typed appears in the field's name, label or meaning (any order, any case)."""
    text = f"{target.name} {target.words}".lower().replace("_", " ").replace(".", " ")
    return all(word in text for word in query.lower().replace("_", " ").replace(".", " ").split())


class JumpModal(ModalScreen[str]):
    """The fields as a list narrowed by what is typed; dismissed with the chosen control's id."""

    BINDINGS = [
        Binding("escape", "dismiss_none", "Stay"),
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
    ]
    DEFAULT_CSS = """
    JumpModal { align: center top; }
    JumpModal > Vertical { width: 70; max-width: 100%; height: auto; max-height: 80%; margin-top: 2;
                           padding: 0 1; background: $panel; border: thick $accent; }
    JumpModal OptionList { height: auto; max-height: 14; }
    JumpModal #jump-title { color: $text-muted; }
    """

    def __init__(self, targets: list[Target]) -> None:
        super().__init__()
        self.targets = targets
        self.shown: list[Target] = list(targets)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Jump to a field: type part of its name, enter goes there, escape stays", id="jump-title")
            yield Input(placeholder="e.g. deadline, devices, file", id="jump-query", compact=True)
            yield OptionList(*[Option(t.name, id=t.widget_id) for t in self.targets], id="jump-list", compact=True)

    def on_mount(self) -> None:
        self.query_one("#jump-query", Input).focus()
        self.query_one("#jump-list", OptionList).highlighted = 0

    @on(Input.Changed, "#jump-query")
    def _narrow(self, event: Input.Changed) -> None:
        self.shown = [t for t in self.targets if matches(t, event.value)]
        options = self.query_one("#jump-list", OptionList)
        options.clear_options()
        options.add_options([Option(t.name, id=t.widget_id) for t in self.shown])
        options.highlighted = 0 if self.shown else None

    @on(Input.Submitted, "#jump-query")
    def _go(self) -> None:
        options = self.query_one("#jump-list", OptionList)
        if options.highlighted is not None and self.shown:
            self.dismiss(self.shown[options.highlighted].widget_id)

    @on(OptionList.OptionSelected, "#jump-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_move(self, step: int) -> None:
        options = self.query_one("#jump-list", OptionList)
        if self.shown:
            options.highlighted = ((options.highlighted or 0) + step) % len(self.shown)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
