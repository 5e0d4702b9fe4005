"""Requirements: a form for every field of the requirements file, generated from the Requirements
model (select for enums, selection list for lists, switch for booleans, inputs with inline
validation for numbers and paths). Loads and saves the YAML `advisor report` reads; with no file,
the hardware fields start from what the host check saw. Every valid edit updates the recommendation.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import (
    Button,
    Header,
    Input,
    Label,
    Select,
    SelectionList,
    Static,
    Switch,
)

from advisor.sanitize import one_line
from tui import providers
from tui import actions
from tui.defaults import blank_requirements, host_defaults
from tui.form_spec import (
    FieldSpec,
    form_spec,
    format_mapping,
    get_path,
    parse_mapping,
    parse_number,
    set_path,
)
from tui.messages import HostDefaults, RequirementsLoaded
from tui.screens.base import AdvisorScreen
from tui.screens.confirm import ConfirmModal
from tui.screens.jump import JumpModal, Target
from tui.widgets.toggles import StateSelectionList, StateSwitch
from tui.widgets.footer import Footer

if TYPE_CHECKING:
    from pydantic import BaseModel
    from textual import events
    from textual.message import Message
    from textual.widget import Widget

    from probes.check.models import CheckReport

DEFAULT_FILE = "requirements.yaml"
HOST_FIELDS = (
    "hardware.available",
    "hardware.training_target",
    "hardware.accelerator",
    "hardware.devices",
    "deployment.targets",
)


class RequirementsScreen(AdvisorScreen):
    SUB_TITLE = "Requirements"
    DEBOUNCE_S = 0.25  # validate (and rebuild the report) once typing pauses
    ACTIONS = actions.REQUIREMENTS
    BINDINGS = actions.bindings(ACTIONS)

    def __init__(self) -> None:
        super().__init__()
        model = providers.requirements_model()
        self.specs: list[FieldSpec] = form_spec(model)
        self.by_id = {spec.widget_id: spec for spec in self.specs}
        self.keys = {spec.key for spec in self.specs}
        self.optional_sections = {s.key for s in self.specs if s.kind == "section" and not s.required}
        self.touched: set[str] = set()  # fields the user changed: host defaults leave them alone
        self.errors: dict[str, str] = {}
        self._filled: dict[str, object] = {}  # what fill() put in each control: its echo is no edit
        self._timer = None
        self.dirty = False  # edited since the last load or save: loading over it asks first

    # ---- layout --------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="req-file-row"):
            yield Label("File", classes="field-label")
            yield Input(DEFAULT_FILE, id="req-file", compact=True)
            yield Button("Load", id="req-load", compact=True)
            yield Button("Save", id="req-save", variant="primary", compact=True)
        yield Static(id="req-status")
        with VerticalScroll(id="req-form"):
            for spec in self.specs:
                yield from self._field(spec)
        yield Static(id="req-hint")  # under the form: what the focused field means
        yield Footer(compact=True, show_command_palette=False)  # ctrl+p is in the help (80 columns)

    def _field(self, spec: FieldSpec) -> ComposeResult:
        # The form is one two-column grid (label | control); an error line spans both columns and
        # takes no room until it has something to say.
        if spec.kind == "section":
            if spec.required:
                yield Label(spec.label.capitalize(), classes="section-title wide")
            else:
                yield Label(f"{spec.label.capitalize()} (optional)", classes="section-title")
                yield StateSwitch(False, id=f"sec-{spec.widget_id}", classes="section-switch")
            yield Static("", id=f"err-{spec.widget_id}", classes="field-error")
            return
        # "(optional)" goes to the placeholder and the hint: in the 24-column label it wrapped.
        yield Label(spec.label, classes="field-label")
        yield self._control(spec)
        if spec.kind in ("int", "float", "text", "path", "mapping", "multi"):
            yield Static("", id=f"err-{spec.widget_id}", classes="field-error")

    def _control(self, spec: FieldSpec) -> Widget:
        wid = spec.widget_id
        if spec.kind == "enum":
            return Select([(str(c), c) for c in spec.choices], allow_blank=not spec.required, id=wid, compact=True)
        if spec.kind == "multi":
            return StateSelectionList(*[(str(c), c) for c in spec.choices], id=wid, compact=True)
        if spec.kind == "bool":
            return StateSwitch(False, id=wid)
        placeholder = {
            "int": "whole number",
            "float": "number",
            "path": "path to a folder or file",
            "mapping": "name: number, ...",
        }.get(spec.kind, "")
        if spec.bounds:
            placeholder += ", " + bounds_words(spec.bounds)
        if not spec.required:
            placeholder = "optional: " + placeholder if placeholder else "optional"
        return Input(id=wid, placeholder=placeholder.strip(", "), compact=True)

    # ---- state in and out ----------------------------------------------------------------------

    def refresh_view(self) -> None:
        """First draw only: afterwards the form is the source and changes arrive as events."""
        app = self.app
        if app.state.requirements.path:
            self.query_one("#req-file", Input).value = one_line(app.state.requirements.path)
        data = app.state.requirements.data
        if data is None:
            data = blank_requirements()
            if app.state.host.report is not None:
                data = self._with_host_defaults(data, app.state.host.report)
            self.fill(data)
            self.validate_now()
        else:
            self.fill(data)
            self.show_errors({})

    def on_requirements_loaded(self, _: RequirementsLoaded) -> None:
        self.when_shown("loaded", self.show_loaded)

    def on_host_defaults(self, _: HostDefaults) -> None:
        self.when_shown("host-defaults", self.fill_host_defaults)

    def show_loaded(self) -> None:
        self.touched.clear()
        self.dirty = False
        self.fill(self.app.state.requirements.data or {})
        if self.app.state.requirements.model is None:
            self.validate_now()  # show where the loaded file is wrong (the knowledge-base checks)
        else:
            self.show_errors({})

    def fill_host_defaults(self) -> None:
        """The host check arrived: fill the hardware fields the user has not set (no file loaded)."""
        if self.app.state.requirements.path:
            return
        data = self.collect()
        self.fill(self._with_host_defaults(data, self.app.state.host.report))
        self.validate_now()

    def _with_host_defaults(self, data: dict, report: Optional[CheckReport]) -> dict:
        data = copy.deepcopy(data)
        for key, value in host_defaults(report).items():
            if key not in self.touched and value is not None:
                set_path(data, tuple(key.split(".")), value)
        return data

    def fill(self, data: dict) -> None:
        """Put `data` into the controls without treating it as user edits."""
        changes = (Input.Changed, Select.Changed, Switch.Changed, SelectionList.SelectedChanged)
        with self.prevent(*changes):
            for spec in self.specs:
                value = get_path(data, spec.path)
                if spec.kind == "section":
                    if not spec.required:
                        self.query_one(f"#sec-{spec.widget_id}", Switch).value = value is not None
                    continue
                if value is None:
                    value = spec.default
                widget = self.query_one(f"#{spec.widget_id}")
                if spec.kind == "enum":
                    widget.value = (
                        value if value in spec.choices else (Select.NULL if not spec.required else spec.choices[0])
                    )
                elif spec.kind == "multi":
                    widget.deselect_all()
                    for item in value or []:
                        if item in spec.choices:
                            widget.select(item)
                elif spec.kind == "bool":
                    widget.value = bool(value)
                elif spec.kind == "mapping":
                    widget.value = format_mapping(value)
                else:  # a file's text never reaches the terminal with its escape sequences
                    widget.value = "" if value is None else one_line(_plain(value))
                self._filled[spec.widget_id] = self._raw_value(spec)
            self._sync_sections()

    def collect(self) -> dict:
        """The form as a requirements mapping (inline problems go to self.errors)."""
        data: dict = {}
        self.errors = {}
        skip = {s for s in self.optional_sections if not self.query_one(f"#sec-{_wid(s)}", Switch).value}
        for spec in self.specs:
            if spec.kind == "section" or any(spec.key.startswith(s + ".") for s in skip):
                continue
            widget = self.query_one(f"#{spec.widget_id}")
            value: object
            if spec.kind == "enum":
                value = None if widget.value == Select.NULL else widget.value
            elif spec.kind == "multi":
                value = [c for c in spec.choices if c in widget.selected]
            elif spec.kind == "bool":
                value = bool(widget.value)
            elif spec.kind in ("int", "float"):
                value, problem = parse_number(widget.value, spec.kind, spec.bounds)
                if problem:
                    self.errors[spec.widget_id] = problem
                elif value is not None and spec.kind == "float":
                    value = float(value)
            elif spec.kind == "mapping":
                value, problem = parse_mapping(widget.value)
                if problem:
                    self.errors[spec.widget_id] = problem
            else:
                value = widget.value.strip() or None
                if spec.kind == "path" and value:
                    problem = self._path_problem(value)
                    if problem:
                        # A missing folder is a warning: it still saves (the scan reports it later).
                        self.errors[spec.widget_id] = "warning: " + problem
            if value is None and spec.required and spec.kind in ("int", "float", "text", "path"):
                self.errors.setdefault(spec.widget_id, "required")
            if value is not None:
                set_path(data, spec.path, value)
        for section in self.optional_sections:
            if section not in skip:
                data.setdefault(section, {})
        return data

    def _raw_value(self, spec: FieldSpec) -> object:
        widget = self.query_one(f"#{spec.widget_id}")
        if spec.kind == "enum":
            return None if widget.value == Select.NULL else widget.value
        if spec.kind == "multi":
            return sorted(widget.selected)
        if spec.kind == "bool":
            return bool(widget.value)
        return widget.value

    def _path_problem(self, value: str) -> str | None:
        base = Path(self.query_one("#req-file", Input).value or ".").expanduser().resolve().parent
        path = Path(value).expanduser()
        if not path.is_absolute():
            path = base / path
        return None if path.exists() else f"{path} does not exist"

    def _sync_sections(self) -> None:
        """Fields of an optional section that is switched off are disabled."""
        for section in self.optional_sections:
            on_ = self.query_one(f"#sec-{_wid(section)}", Switch).value
            for spec in self.specs:
                if spec.kind != "section" and spec.key.startswith(section + "."):
                    self.query_one(f"#{spec.widget_id}").disabled = not on_

    # ---- validation ----------------------------------------------------------------------------

    def validate_now(self) -> Optional[BaseModel]:
        """Collect, validate with the real model, show inline messages, tell the app. Returns the
        model or None."""
        data = self.collect()
        errors = {k: v for k, v in self.errors.items()}
        blocking = {k: v for k, v in errors.items() if not v.startswith("warning:")}
        model = None
        problem = None
        if not blocking:
            # Every field the CLI would refuse (pydantic, the range table, the knowledge base), each on
            # its own line: `advisor report` runs the same check (advisor.validation).
            model, lines = providers.requirements_problems(data)
            for line in lines:
                field, _, text = line.partition(": ")
                known = field in self.keys or _wid(field) in self.by_id
                errors.setdefault(_wid(field) if known else "f-name", (text or line).removeprefix("Value error, "))
            if any(not v.startswith("warning:") for v in errors.values()):
                model = None
                problem = _first_problem(errors, self.by_id) or "invalid requirements"
        else:
            problem = _first_problem(blocking, self.by_id)
        self.show_errors(errors)
        self.app.set_requirements(model, data, problem)
        return model

    def show_errors(self, errors: dict[str, str]) -> None:
        errors = dict(errors)
        for wid in list(errors):
            if not self.query(f"#err-{wid}"):  # e.g. an enum: report it on its section's line
                spec = self.by_id.get(wid)
                section = _wid(".".join(spec.path[:-1])) if spec and len(spec.path) > 1 else "f-name"
                text = errors.pop(wid)
                errors.setdefault(section, f"{spec.label if spec else wid}: {text}")
        for static in self.query(".field-error"):
            wid = (static.id or "").removeprefix("err-")
            text = one_line(errors.get(wid, ""))  # a problem may quote the file's text back
            static.update(text)
            static.set_class(bool(text), "-shown")
            static.set_class(text.startswith("warning:"), "-warning")
        status = self.query_one("#req-status", Static)
        bad = [k for k, v in errors.items() if not v.startswith("warning:")]
        if bad:
            status.update(f"[b red]{len(bad)} field(s) need attention[/] (shown in red below)")
        else:
            status.update("[green]Valid[/]: the recommendation follows this form as you edit")

    def hint_for(self, spec: FieldSpec) -> str:
        # the model's own words, as the published JSON Schema gives them: on one line, and as text (a
        # bracket in them, "[training]", is not a style tag)
        text = escape(" ".join(spec.description.split()))
        allowed = ""
        if spec.kind in ("enum", "multi"):
            allowed = " | ".join(str(c) for c in spec.choices)
        elif spec.bounds:
            allowed = bounds_words(spec.bounds)
        if not spec.required and spec.kind == "section":
            allowed = "optional: switch on to fill in"
        elif not spec.required:
            allowed = ("optional; " + allowed) if allowed else "optional"
        out = f"[b]{spec.key}[/b]: {text}" if text else f"[b]{spec.key}[/b]"
        return out + (f"  [dim]({allowed})[/dim]" if allowed else "")

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        wid = getattr(event.widget, "id", "") or ""
        spec = self.by_id.get(wid.removeprefix("sec-"))
        hint = self.query_one("#req-hint", Static)
        hint.update(self.hint_for(spec) if spec else "")
        hint.display = spec is not None

    # ---- events --------------------------------------------------------------------------------

    @on(Input.Changed, "#req-form Input")
    @on(Select.Changed)
    @on(Switch.Changed)
    @on(SelectionList.SelectedChanged)
    def _edited(self, event: Message) -> None:
        control = getattr(event, "control", None) or getattr(event, "selection_list", None)
        wid = getattr(control, "id", "") or ""
        if wid.startswith("sec-"):
            self._sync_sections()
        elif wid in self.by_id:
            if self._raw_value(self.by_id[wid]) == self._filled.get(wid):
                return  # a control echoing what fill() set (Select posts Changed later)
            self.touched.add(self.by_id[wid].key)
            self._filled.pop(wid, None)
            self.dirty = True
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(self.DEBOUNCE_S, self.validate_now)

    @on(Button.Pressed, "#req-save")
    def action_save(self) -> None:
        model = self.validate_now()
        path = self.query_one("#req-file", Input).value.strip() or DEFAULT_FILE
        if model is None:
            self.notify(
                self.app.state.requirements.problem or "the form has problems",
                title="Not saved",
                severity="error",
                timeout=8,
            )
            return
        try:
            from advisor.output import write_atomic

            text = (
                "# Team requirements for framework-advisor (`advisor report FILE` reads this)\n"
                + providers.requirements_to_yaml(model.model_dump(mode="json", exclude_none=True))
            )
            written = write_atomic(Path(path).expanduser(), text)
        except Exception as exc:  # noqa: BLE001 - UsageError, OSError or a YAML dump error: a notice
            self.notify(
                str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                title="Not saved",
                severity="error",
                timeout=8,
            )
            return
        self.app.state.requirements.path = path
        self.dirty = False
        self.show_errors(self.errors)
        self.notify(f"Saved {written}", title="Requirements")

    @on(Button.Pressed, "#req-load")
    def action_load(self) -> None:
        field = self.query_one("#req-file", Input)
        path = field.value.strip()
        if not path:  # the keyboard's way to the File field: go there, then enter loads
            self.set_focus(field)
            self.notify("Type the file to load, then press enter", severity="warning")
            return
        if not self.dirty:
            self.app.load_requirements(path, notify=True)
            return

        def answered(replace: bool | None) -> None:
            if replace:
                self.app.load_requirements(path, notify=True)

        self.app.push_screen(
            ConfirmModal(f"The form has unsaved edits. Replace them with {path}?", yes="Replace", no="Keep my edits"),
            answered,
        )

    @on(Input.Submitted, "#req-file")
    def _file_submitted(self) -> None:
        self.action_load()

    def jump_targets(self) -> list[Target]:
        """The File field, then every control of the form in its order, by key, label and meaning."""
        out = [Target("req-file", "File (the requirements YAML to load or save)", "file path load save yaml")]
        for spec in self.specs:
            wid = f"sec-{spec.widget_id}" if spec.kind == "section" else spec.widget_id
            if spec.kind == "section" and spec.required:
                continue  # a heading, not a control
            words = f"{spec.label} {spec.description}"
            out.append(Target(wid, spec.key, words))
        return out

    def action_jump(self) -> None:
        def go(widget_id: str | None) -> None:
            if not widget_id:
                return
            target = self.query_one(f"#{widget_id}")
            if target.disabled:  # a field of a section switched off: its switch first
                section = next((s for s in self.optional_sections if widget_id.startswith(_wid(s) + "-")), None)
                if section is not None:
                    target = self.query_one(f"#sec-{_wid(section)}")
            self.set_focus(target)
            target.scroll_visible(animate=False)

        self.app.push_screen(JumpModal(self.jump_targets()), go)


def bounds_words(bounds: dict) -> str:
    """{'ge': 1, 'le': 10000} -> '1 to 10000'; {'gt': 0} -> 'more than 0' (no pydantic jargon)."""
    low = bounds.get("ge", bounds.get("gt"))
    high = bounds.get("le", bounds.get("lt"))
    if "ge" in bounds and "le" in bounds:
        return f"{_plain(low)} to {_plain(high)}"
    words = []
    if "ge" in bounds:
        words.append(f"at least {_plain(low)}")
    elif "gt" in bounds:
        words.append(f"more than {_plain(low)}")
    if "le" in bounds:
        words.append(f"at most {_plain(high)}")
    elif "lt" in bounds:
        words.append(f"less than {_plain(high)}")
    return " and ".join(words)


def _wid(key: str) -> str:
    return "f-" + key.replace(".", "-").replace("_", "-")


def _plain(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < 1e15 else str(value)
    return str(value)


def _first_problem(errors: dict[str, str], by_id: dict[str, FieldSpec]) -> str | None:
    for wid, text in errors.items():
        if text.startswith("warning:"):
            continue
        spec = by_id.get(wid)
        return f"{spec.key if spec else wid}: {text}"
    return None
