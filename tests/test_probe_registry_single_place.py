"""The registry line is the one place a probe kind is listed ("adding a probe kind touches its
own package plus one registry line"): a kind registered in a test, with a front module of its own,
reaches `advisor probe` (its flag, its run, its place in --help) and the TUI (its row, its launcher,
its Start button and a result panel on the Probes screen) with no other edit; and no list of kinds comes
back in the fronts, the controller or the providers."""

from __future__ import annotations

import argparse
import ast
import json
import sys
import types
from pathlib import Path
from typing import Optional

import pydantic
import pytest
from pydantic import BaseModel

from probes import base

ROOT = Path(__file__).resolve().parent.parent


class FakeConfig(BaseModel):
    rounds: int = 2
    frameworks: list[str] = ["pytorch"]  # a screen field: the Probes screen passes its choice on


class FakeRun(BaseModel):
    id: str
    status: str = "ok"
    note: Optional[str] = None
    images_per_second: Optional[float] = None
    detail: dict = {}  # not a scalar: no column


class FakeResult(BaseModel):
    rounds: int
    frameworks: list[str] = []
    runs: list[FakeRun] = []
    warnings: list[str] = []


def fake_run(config, on_event=None, cancel=None):
    for i in range(config.rounds):
        if on_event:
            on_event(types.SimpleNamespace(run_id=f"fake-{i}", kind="done", status="ok", images_per_second=10.0))
    runs = [
        FakeRun(id=f"fake-{i}", images_per_second=10.0 * (i + 1), note="warm" if i == 0 else None)
        for i in range(config.rounds)
    ]
    return FakeResult(rounds=config.rounds, frameworks=config.frameworks, runs=runs, warnings=["a stand-in"])


def register(monkeypatch, name: str) -> None:
    """probes.base.KINDS with one more line, `name`, and its package (FakeConfig, FakeResult, fake_run)."""
    import tui.controller  # noqa: F401 - its rows are made at import: made before, they stay the real ones

    package = types.ModuleType("fake_probe_kind")
    package.FakeConfig, package.FakeResult, package.fake_run = FakeConfig, FakeResult, fake_run
    monkeypatch.setitem(sys.modules, "fake_probe_kind", package)
    monkeypatch.setitem(
        base.KINDS,
        name,
        base.ProbeKind(
            name,
            "a stand-in kind",
            "fake_probe_kind:FakeConfig",
            "fake_probe_kind:FakeResult",
            "fake_probe_kind:fake_run",
            processes="the fake processes",
        ),
    )
    for target in ("probes.training.runner.run_suite", "probes.scaling.runner.run_scaling"):
        monkeypatch.setattr(target, lambda *a, **k: pytest.fail("a real probe ran"))


@pytest.fixture
def fake_kind(monkeypatch):
    """probes.base.KINDS with one more line, and the kind's own modules (its package, its front)."""
    register(monkeypatch, "fake")
    ran: list[argparse.Namespace] = []
    front = types.ModuleType("advisor.commands.probe_fake")
    front.KIND, front.PROBE_FLAG = "fake", "--fake"
    front.add_arguments = lambda p: p.add_argument("--fake", action="store_true", help="the fake probe")
    front.wanted = lambda args: bool(getattr(args, "fake", False))
    front.refuse_unused = lambda args: None
    front.run_from_args = lambda args: ran.append(args) or 0
    monkeypatch.setitem(sys.modules, "advisor.commands.probe_fake", front)
    return ran


def test_a_registered_kind_gets_its_command_line_front(fake_kind, capsys):
    from advisor.cli import main
    from advisor.commands import probe

    fronts = list(probe.fronts())
    assert fronts[-1] == "fake" and set(fronts) == set(base.KINDS) - {"training"}  # the newest line, last
    assert main(["probe", "--fake"]) == 0 and len(fake_kind) == 1
    with pytest.raises(SystemExit):
        main(["probe", "--help"])
    help_text = capsys.readouterr().out
    assert help_text.index("--dynamic-passes") < help_text.index("--fake  ")  # after the last kind's options
    assert main(["probe", "--fake", "--deploy"]) == 2  # one probe per run, the new kind included
    assert "--deploy: one probe per run; --deploy and --fake go in separate runs" in capsys.readouterr().err


@pytest.fixture
def bare_kind(monkeypatch):
    """A registered kind with its package alone: no advisor/commands/probe_bare.py. Its runs counted."""
    register(monkeypatch, "bare")
    calls: list[FakeConfig] = []

    def counted(config, on_event=None, cancel=None):
        calls.append(config)
        return fake_run(config, on_event, cancel)

    monkeypatch.setattr(sys.modules["fake_probe_kind"], "fake_run", counted)
    return calls


def test_a_registered_kind_without_a_front_gets_the_generic_one(bare_kind, capsys, tmp_path):
    """`advisor probe --bare` with no file outside the kind's package: its flag and summary in --help,
    its Config from the common options it declares, its result as JSON (--json, -o) or a table."""
    from advisor.cli import main
    from advisor.commands import probe

    assert isinstance(probe.front("bare"), probe.GenericFront) and list(probe.fronts())[-1] == "bare"
    with pytest.raises(SystemExit):
        main(["probe", "--help"])
    help_text = capsys.readouterr().out
    assert "Bare probe (--bare):\n  --bare " in help_text and "a stand-in kind" in help_text

    assert main(["probe", "--bare", "--json", "--frameworks", "mindspore"]) == 0 and len(bare_kind) == 1
    doc = json.loads(capsys.readouterr().out)
    assert bare_kind[0] == FakeConfig(frameworks=["mindspore"])  # --frameworks: a field FakeConfig declares
    assert (doc["rounds"], doc["frameworks"], doc["warnings"]) == (2, ["mindspore"], ["a stand-in"])
    assert [(r["id"], r["status"], r["images_per_second"]) for r in doc["runs"]] == [
        ("fake-0", "ok", 10.0),
        ("fake-1", "ok", 20.0),
    ]

    out = tmp_path / "bare.json"
    assert main(["probe", "--bare", "-o", str(out), "--frameworks", "pytorch"]) == 0 and len(bare_kind) == 2
    captured = capsys.readouterr()
    assert json.loads(out.read_text())["runs"][1]["id"] == "fake-1"
    table = captured.out.splitlines()
    assert table[0] == "Bare probe: a stand-in kind"
    assert table[2].split() == ["id", "status", "images_per_second", "note"]  # scalar fields; detail is a dict
    assert [line.split() for line in table[4:6]] == [["fake-0", "ok", "10.0", "warm"], ["fake-1", "ok", "20.0", "-"]]
    assert "2 runs" in table and "! a stand-in" in table and "rounds" in captured.out
    assert "advisor: bare: runs announced as they start" in captured.err  # the one progress display


def test_the_generic_front_refuses_what_its_kind_does_not_take(bare_kind, capsys):
    from advisor.cli import main

    for argv, error in (
        (["--budget", "3"], "--budget: --bare does not use it (its options: --frameworks)"),
        (["--no-parity"], "--no-parity: --bare does not use it (its options: --frameworks)"),
        (["--models", "lenet"], "--models: --bare does not use it (its options: --frameworks)"),
        (["--deploy"], "--deploy: one probe per run; --deploy and --bare go in separate runs"),
        (["--frameworks", "jax"], "--frameworks: unknown jax; expected a comma list of pytorch,mindspore"),
    ):
        assert main(["probe", "--bare", *argv]) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"advisor: error: {error}"], argv
    assert not bare_kind  # nothing ran


def test_the_generic_front_names_the_flag_of_a_bad_value(bare_kind, monkeypatch, capsys):
    """A common option the Config declares but rejects: one line naming the flag; a failed run: exit 1."""
    from advisor.cli import main

    class Budgeted(FakeConfig):
        budget: float = 1.0

        @pydantic.field_validator("budget")
        @classmethod
        def short(cls, value: float) -> float:
            if value > 5:
                raise ValueError("at most 5 seconds")
            return value

    monkeypatch.setattr(sys.modules["fake_probe_kind"], "FakeConfig", Budgeted)
    assert main(["probe", "--bare", "--budget", "9", "--frameworks", "pytorch"]) == 2
    assert capsys.readouterr().err.strip() == "advisor: error: --budget: at most 5 seconds (got 9.0)"
    failing = FakeResult(rounds=1, runs=[FakeRun(id="x", status="failed", note="boom")])
    monkeypatch.setattr(sys.modules["fake_probe_kind"], "fake_run", lambda c, on_event=None, cancel=None: failing)
    assert main(["probe", "--bare", "--budget", "2", "--frameworks", "pytorch", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["runs"][0]["status"] == "failed"


def test_a_module_of_the_kinds_name_without_its_kind_is_not_its_front(monkeypatch):
    """advisor/commands/check.py is the check command, not the front of a probe kind called "check": that
    kind gets the generic front."""
    from advisor.commands import probe

    monkeypatch.setitem(base.KINDS, "check", base.KINDS["gpt"])
    found = probe.front("check")
    assert isinstance(found, probe.GenericFront) and found.PROBE_FLAG == "--check"


def test_a_broken_import_inside_a_front_is_not_taken_for_a_missing_front(fake_kind, monkeypatch):
    from advisor.commands import probe

    real = probe.importlib.import_module

    def broken(name, *args, **kwargs):
        if name == "advisor.commands.probe_fake":  # the front exists; an import inside it is broken
            raise ModuleNotFoundError("No module named 'nowhere'", name="nowhere")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(probe.importlib, "import_module", broken)
    with pytest.raises(ModuleNotFoundError, match="nowhere"):
        probe.front("fake")


def test_a_registered_kind_gets_its_tui_row_and_launcher(fake_kind):
    from tui import controller, providers

    row = controller.kind_row(base.KINDS["fake"])
    assert (row.title, row.cancelling, row.cancelled) == (
        "Fake probe",
        "Cancelling: stopping the fake processes",
        "Fake probe cancelled; finished runs are kept",
    )
    assert row.fractions == ("fraction", "") and row.rate == ("images_per_second", "img/s") and row.plan
    launchers = providers.Providers(check_host=None, build_report=None, render=None).launchers
    events: list = []
    result = launchers["fake"](FakeConfig(rounds=2), events.append, None)
    assert result.rounds == 2 and [r.id for r in result.runs] == ["fake-0", "fake-1"]
    assert [(e.kind_name, e.run_id, e.kind, e.run) for e in events] == [
        ("fake", "fake-0", "done", {"status": "ok", "error": None}),
        ("fake", "fake-1", "done", {"status": "ok", "error": None}),
    ]


def test_a_registered_kind_runs_from_the_probes_screen(fake_kind):
    """Its Start button (labelled from its registry line), its run through the app's launcher (the
    registry's run: fake_run), its live rows and a generic panel with its result: no TUI edit."""
    sys.path.insert(0, str(ROOT / "tests"))
    from fixtures.tui.fakes import host_report
    from fixtures.tui.pilot import run_async, screen_text, settle, wait_for

    from tui.app import make_app

    def no_probe(config, on_event, cancel):
        raise AssertionError("a real probe ran")

    def no_report(requirements, host, probes, scaling=None, **extra):
        return None

    app = make_app(
        host_provider=host_report,
        report_builder=no_report,
        launchers={"training": no_probe, "scaling": no_probe},
        initial_mode="probes",
        check_on_start=False,
    )

    async def drive():
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            screen = app.screen
            button = screen.query_one("#fake-start")
            assert str(button.label) == "Fake" and not screen.query_one("#fake-panel").display
            assert "Fake probe: not measured yet (a stand-in kind)" in screen_text(app)
            screen.query_one("#fw-mindspore").value = False  # the screen's choice its Config declares
            button.scroll_visible(animate=False)
            await pilot.pause()
            button.press()
            await wait_for(pilot, lambda: app.state.kinds["fake"].result is not None, what="the fake result")
            await wait_for(pilot, lambda: screen.query_one("#fake-runs-table").row_count == 2, what="its table")
            await settle(pilot)
            state = app.state.kinds["fake"]
            assert state.result.frameworks == ["pytorch"] and state.result.rounds == 2
            assert [(p.run_id, p.status) for p in state.runs.values()] == [("fake-0", "ok"), ("fake-1", "ok")]
            assert len(screen.query("#fake-runs RunRow")) == 2  # the live rows stay under the result
            table = screen.query_one("#fake-runs-table")
            assert [str(c.label) for c in table.columns.values()] == ["id", "status", "img/s", "note"]
            rows = [[str(getattr(c, "plain", c)) for c in table.get_row_at(i)] for i in range(table.row_count)]
            assert rows == [["fake-0", "ok", "10.0", "warm"], ["fake-1", "ok", "20.0", "-"]]
            text = screen_text(app)
            assert "rounds 2" in text and "! a stand-in" in text
            assert not button.disabled and not app.measuring

    run_async(drive)()


class Nested(BaseModel):
    a: int = 1


class NoRuns(BaseModel):  # nested models, None fields, an empty list of runs
    config: Nested = Nested()
    host: Optional[Nested] = None
    note: Optional[str] = None
    count: int = 3
    ratio: float = 0.25
    ok: bool = True
    runs: list[Nested] = []


class MappedRuns(BaseModel):  # runs as mappings, a failed one, a nested value; notes of both kinds
    runs: list[dict] = [
        {"id": "a", "status": "failed", "error": "boom", "seconds": 1.5, "nested": {"k": 1}},
        {"id": "b", "seconds": 2},
    ]
    verdicts: list[str] = ["a is slower"]
    warnings: Optional[list[str]] = None
    created: Optional[str] = None
    seconds: Optional[float] = 12.0


class OddRuns(BaseModel):  # `runs` that is no list of runs
    runs: int = 5
    verdicts: Optional[list[str]] = None


def test_the_generic_panel_shows_any_result_shape(fake_kind):
    """ResultPanel never assumes a shape: no runs, nested models, None fields, runs as mappings."""
    sys.path.insert(0, str(ROOT / "tests"))
    from fixtures.tui.pilot import run_async
    from textual.app import App

    from tui.widgets.probe_panels import ResultPanel

    class PanelApp(App):
        def compose(self):
            yield ResultPanel("fake", id="fake-panel")

    def table(panel):
        t = panel.query_one("#fake-runs-table")
        head = [str(c.label) for c in t.columns.values()]
        return head, [[str(getattr(c, "plain", c)) for c in t.get_row_at(i)] for i in range(t.row_count)]

    async def drive():
        app = PanelApp()
        async with app.run_test(size=(100, 40)) as pilot:
            panel = app.query_one(ResultPanel)
            shown = {}
            for result in (NoRuns(), MappedRuns(), OddRuns(), None):
                panel.show_result(result)
                await pilot.pause()
                notes = [line.plain for line in panel.note_lines(result)] if result is not None else []
                shown[type(result).__name__] = (table(panel), notes)
                assert panel.query_one("#fake-runs-table").display == (result is not None)
            return shown

    shown = run_async(drive)()
    assert shown["NoRuns"] == (
        (["Field", "Value"], [["count", "3"], ["ratio", "0.25"], ["ok", "yes"]]),
        [],
    )
    assert shown["MappedRuns"] == (
        (["id", "status", "seconds", "error"], [["a", "failed", "1.5", "boom"], ["b", "?", "2", "-"]]),
        ["- a is slower", "x a: boom"],
    )
    assert shown["OddRuns"] == ((["Field", "Value"], [["runs", "5"]]), [])


def test_the_generic_table_shows_any_result_shape(fake_kind):
    """advisor/render/tables/generic.py never assumes a shape either: no runs, nested models, None fields,
    runs as mappings (a missing status is "?"), `runs` that is a number, no result at all."""
    from advisor.render import renderer

    table = renderer("fake", "table")
    assert renderer("fake", "json").format(NoRuns()).startswith("{")

    def rows(result):
        return [line.split() for line in table.format(result).splitlines()]

    assert rows(NoRuns()) == [
        ["Fake", "probe:", "a", "stand-in", "kind"],
        [],
        ["field", "value"],
        ["-------", "-------"],
        ["count", "3"],
        ["ratio", "0.25"],
        ["ok", "yes"],
    ]
    mapped = rows(MappedRuns())
    assert mapped[2:6] == [
        ["id", "status", "seconds", "error"],
        ["----", "--------", "---------", "-------"],
        ["a", "failed", "1.5", "boom"],
        ["b", "?", "2", "-"],
    ]
    assert mapped[6] == ["2", "runs"] and ["seconds", "12.0"] in mapped
    assert mapped[-3:] == [[], ["-", "a", "is", "slower"], ["x", "a:", "boom"]]
    assert ["runs", "5"] in rows(OddRuns())
    assert rows(None)[-1] == ["(no", "figures", "in", "this", "result)"]


def test_the_tui_rows_are_the_registry_lines():
    from tui import controller

    assert [k.name for k in controller.KINDS] == list(base.KINDS)

    def words(row):
        return row.name, row.title, row.cancelling, row.cancelled, row.fractions, row.rate, row.plan is None

    assert [words(controller.kind_row(k)) for k in base.KINDS.values()] == [words(row) for row in controller.KINDS]
    assert [k.name for k in controller.KINDS if k.plan is None] == ["scaling"]  # its runner's own fraction


# The files that once kept their own list of kinds (advisor/commands/probe.py FRONTS; tui/controller.py
# WORDS, RATES, UNPLANNED; tui/providers.py's special launchers) and the kinds' packages.
OWN = [
    *sorted((ROOT / "advisor" / "commands").glob("probe*.py")),
    ROOT / "advisor" / "commands" / "deploy.py",
    ROOT / "advisor" / "commands" / "scaling.py",
    ROOT / "tui" / "controller.py",
    ROOT / "tui" / "providers.py",
    *sorted(p for p in (ROOT / "probes").rglob("*.py") if p.name != "base.py"),
]


def lists_of_kinds(source: str, names: set[str]) -> list[tuple[int, list[str]]]:
    """Dict, tuple, list and set literals that name three or more registered kinds."""
    found = []
    for node in ast.walk(ast.parse(source)):
        items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
        if not isinstance(node, (ast.Dict, ast.Tuple, ast.List, ast.Set)) or items is None:
            continue
        named = sorted({i.value for i in items if isinstance(i, ast.Constant) and i.value in names})
        if len(named) >= 3:
            found.append((node.lineno, named))
    return found


def test_no_list_of_kinds_outside_the_registry():
    names = set(base.KINDS)
    # the check finds a list like the one the registry replaced
    assert lists_of_kinds('FRONTS = {"scaling": "scaling", "accuracy": "a", "deploy": "deploy"}', names)
    found = {str(p.relative_to(ROOT)): hits for p in OWN if (hits := lists_of_kinds(p.read_text(), names))}
    assert not found, f"kinds listed outside probes/base.py KINDS: {found}"
