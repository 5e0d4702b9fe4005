"""A yes/no question before something is lost (unsaved edits, an existing file): y / enter confirms,
n / escape keeps things as they are."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmModal(ModalScreen[bool]):
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]
    DEFAULT_CSS = """
    ConfirmModal { align: center middle; }
    ConfirmModal > Vertical { width: 70; max-width: 100%; height: auto; padding: 1 2;
                              background: $panel; border: thick $warning; }
    ConfirmModal Horizontal { height: auto; margin-top: 1; }
    ConfirmModal Button { margin-right: 2; }
    """

    def __init__(self, question: str, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.question = question
        self.yes, self.no = yes, no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, id="confirm-question")
            with Horizontal():
                yield Button(f"{self.yes} (y)", id="confirm-yes", variant="warning", compact=True)
                yield Button(f"{self.no} (n)", id="confirm-no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()  # the safe answer is the default

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
