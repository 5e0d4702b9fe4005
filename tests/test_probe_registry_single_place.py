"""The registry line is the one place a probe kind is listed (issue 28, "adding a probe kind touches its
own package plus one registry line"): a kind registered in a test, with a front module of its own,
reaches `advisor probe` (its flag, its run, its place in --help) and the TUI (its row, its launcher)
with no other edit; and no list of kinds comes back in the fronts, the controller or the providers."""

from __future__ import annotations

import argparse
import ast
import sys
import types
from pathlib import Path

import pytest
from pydantic import BaseModel

from probes import base

ROOT = Path(__file__).resolve().parent.parent


class FakeConfig(BaseModel):
    rounds: int = 2


class FakeResult(BaseModel):
    rounds: int


def fake_run(config, on_event=None, cancel=None):
    for i in range(config.rounds):
        if on_event:
            on_event(types.SimpleNamespace(run_id=f"fake-{i}", kind="done", status="ok", images_per_second=10.0))
    return FakeResult(rounds=config.rounds)


@pytest.fixture
def fake_kind(monkeypatch):
    """probes.base.KINDS with one more line, and the kind's own modules (its package, its front)."""
    import tui.controller  # noqa: F401 - its rows are made at import: made before, they stay the real ones

    package = types.ModuleType("fake_probe_kind")
    package.FakeConfig, package.FakeResult, package.fake_run = FakeConfig, FakeResult, fake_run
    monkeypatch.setitem(sys.modules, "fake_probe_kind", package)
    ran: list[argparse.Namespace] = []
    front = types.ModuleType("advisor.commands.probe_fake")
    front.KIND, front.PROBE_FLAG = "fake", "--fake"
    front.add_arguments = lambda p: p.add_argument("--fake", action="store_true", help="the fake probe")
    front.wanted = lambda args: bool(getattr(args, "fake", False))
    front.refuse_unused = lambda args: None
    front.run_from_args = lambda args: ran.append(args) or 0
    monkeypatch.setitem(sys.modules, "advisor.commands.probe_fake", front)
    monkeypatch.setitem(
        base.KINDS,
        "fake",
        base.ProbeKind(
            "fake",
            "a stand-in kind",
            "fake_probe_kind:FakeConfig",
            "fake_probe_kind:FakeResult",
            "fake_probe_kind:fake_run",
            processes="the fake processes",
        ),
    )
    for target in ("probes.training.runner.run_suite", "probes.scaling.runner.run_scaling"):
        monkeypatch.setattr(target, lambda *a, **k: pytest.fail("a real probe ran"))
    return ran


def test_a_registered_kind_gets_its_command_line_front(fake_kind, capsys):
    from advisor.cli import main
    from advisor.commands import probe

    assert list(probe.fronts()) == ["scaling", "accuracy", "pipeline", "deploy", "gpt", "fake"]
    assert main(["probe", "--fake"]) == 0 and len(fake_kind) == 1
    with pytest.raises(SystemExit):
        main(["probe", "--help"])
    help_text = capsys.readouterr().out
    assert help_text.index("--dynamic-passes") < help_text.index("--fake  ")  # after the last kind's options
    assert main(["probe", "--fake", "--deploy"]) == 2  # one probe per run, the new kind included
    assert "--deploy: one probe per run; --deploy and --fake go in separate runs" in capsys.readouterr().err


def test_a_registered_kind_without_a_front_is_named(monkeypatch):
    from advisor.commands import probe

    monkeypatch.setitem(base.KINDS, "nofront", base.KINDS["gpt"])
    with pytest.raises(LookupError, match=r"add advisor/commands/probe_nofront\.py with KIND = 'nofront'"):
        probe.fronts()


def test_a_module_of_the_kinds_name_without_its_kind_is_not_its_front(monkeypatch):
    """advisor/commands/check.py is the check command, not the front of a probe kind called "check"."""
    from advisor.commands import probe

    monkeypatch.setitem(base.KINDS, "check", base.KINDS["gpt"])
    with pytest.raises(LookupError, match="probe_check"):
        probe.front("check")


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
    assert result == FakeResult(rounds=2)
    assert [(e.kind_name, e.run_id, e.kind, e.run) for e in events] == [
        ("fake", "fake-0", "done", {"status": "ok", "error": None}),
        ("fake", "fake-1", "done", {"status": "ok", "error": None}),
    ]


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
