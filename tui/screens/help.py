"""`?`: the keys and what each screen is for (nvitop-style help that any key closes)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = [
    ("F1", "Host: check results (r: check again)"),
    ("F2", "Requirements: the form (ctrl+g jump to any field or the File field, ctrl+s save, ctrl+o load)"),
    ("F3", "Probes: s start (Profile: quick, about a minute; full), d scaling (torchrun/msrun), c cancel"),
    ("", "Across hosts: N hosts, this node, master HOST[:PORT]; then d (or each host's command line)"),
    ("", "More probes: e Deploy (export, serve, parity), a Accuracy (time-to-accuracy), p Pipeline (loaders)"),
    ("", "Transformer: g GPT, the same small GPT in both frameworks (tokens/s, MFU, dynamic-shape compiles)"),
    ("F4", "Recommendation: first page, scores, risks, stack, sign-off; export (j JSON, m Markdown, h HTML)"),
    ("tab / shift+tab", "next / previous field (in a text field, keys type: tab out first)"),
    ("enter / space", "open a select, toggle a switch"),
    ("escape", "leave a text field (the screen's keys act again; tab goes on from that field)"),
    ("ctrl+p", "command palette: every action by name"),
    ("ctrl+t", "light / dark theme"),
    ("?", "this help"),
    ("ctrl+q", "quit"),
]

ABOUT = (
    "Measured advice on PyTorch, MindSpore or a hybrid workflow (prototype in PyTorch, migrate to "
    "MindSpore for Ascend). Describe the team on Requirements, measure this host on Probes, read "
    "the verdict with its evidence on Recommendation. Every number says where it came from: "
    "measured here, the knowledge base (with its source) or an estimate (a range)."
)


class HelpModal(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for key, what in KEYS:
            table.add_row(key, what)
        with VerticalScroll(id="help-box"):
            # The close hint comes first: at 80x24 the end of the box is below the fold.
            yield Static(
                Text.assemble(("framework-advisor: help", "bold"), ("   escape closes", "italic")), id="help-title"
            )
            yield Static(table)
            yield Static(Text(ABOUT, style="dim"), id="help-about")

    def action_close(self) -> None:
        self.dismiss()

    def on_click(self) -> None:
        self.dismiss()
