"""Every action a screen offers, in one list per screen: the key bindings (and so the footer) and
the command palette are both made from it, so an action cannot be in one and missing from the
other (Deploy, Accuracy, Pipeline and export were in neither list the palette read)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class ScreenAction:
    key: str  # the key(s), Textual's syntax
    action: str  # the screen's action, with its arguments
    label: str  # the footer's word (80 columns are short)
    name: str  # the palette's name: what a user types to find it
    help: str  # the palette's and the tooltip's sentence
    footer: bool = True  # shown in the footer (the rest: the palette and the help only)

    def binding(self) -> Binding:
        return Binding(self.key, self.action, self.label, show=self.footer, tooltip=self.help)


def bindings(actions: tuple[ScreenAction, ...]) -> list[Binding]:
    return [a.binding() for a in actions]


HOST = (ScreenAction("r", "refresh_check", "Refresh", "Refresh the host check", "Run the host check again"),)

REQUIREMENTS = (
    ScreenAction("ctrl+s", "save", "Save", "Save requirements", "Save the requirements to the file named above"),
    ScreenAction(
        "ctrl+o",
        "load",
        "Load",
        "Load requirements",
        "Load the requirements file named above (with the File field empty: go to it)",
    ),
    ScreenAction(
        "ctrl+g",
        "jump",
        "Jump",
        "Jump to a field",
        "Go to any field of the form, or the File field, by typing part of its name",
    ),
)

# The keys of the kinds with a panel: start_kind('<kind>'), one action for all (tui.screens.probes). A kind
# registered without a key here starts from its Start button, which the screen makes from the registry.
PROBES = (
    ScreenAction("s", "start", "Start", "Start the training probes", "Start the chosen probes"),
    ScreenAction(
        "d",
        "scaling",
        "Scaling",
        "Scaling probe",
        "Data-parallel scaling probe: torchrun / msrun with 1 and N ranks",
    ),
    ScreenAction("c", "cancel", "Cancel", "Cancel the running probe", "Cancel the running probes (kills them)"),
    ScreenAction(
        "e",
        "start_kind('deploy')",
        "Deploy",
        "Deploy probe",
        "Export, serve and compare each model (ONNX, MindIR)",
        footer=False,
    ),
    ScreenAction(
        "a",
        "start_kind('accuracy')",
        "Accuracy",
        "Accuracy probe",
        "Time-to-accuracy: train LeNet-5 to a target",
        footer=False,
    ),
    ScreenAction(
        "p",
        "start_kind('pipeline')",
        "Pipeline",
        "Pipeline probe",
        "Input pipeline: DataLoader and mindspore.dataset",
        footer=False,
    ),
    ScreenAction(
        "g",
        "start_kind('gpt')",
        "GPT",
        "Transformer probe",
        "The same small GPT in both frameworks: tokens/s, MFU, parity, dynamic-shape compiles",
        footer=False,
    ),
)

RECOMMENDATION = (
    ScreenAction(
        "j",
        "export('json')",
        "JSON",
        "Export the report as JSON",
        "Write the report as JSON",
        footer=False,  # for tools; the footer at 80 columns has room for two exports: the ones a person reads
    ),
    ScreenAction(
        "m",
        "export('markdown')",
        "Markdown",
        "Export the report as Markdown",
        "Write the report as Markdown, with its charts (SVG) beside it",
    ),
    ScreenAction(
        "h",
        "export('html')",
        "HTML",
        "Export the report as HTML",
        "Write the report as one self-contained HTML file (charts inside) to open in a browser",
    ),
)
