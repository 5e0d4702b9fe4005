"""The core never imports Textual, and importing it loads no framework."""

import subprocess
import sys

import pytest

CORE_MODULES = ["advisor", "advisor.cli", "knowledge", "probes", "probes.launcher"]


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_module_imports_no_ui_and_no_framework(module):
    code = (
        f"import importlib, sys; importlib.import_module({module!r});"
        "bad = [m for m in ('textual', 'torch', 'mindspore') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imported {out.stdout.strip()}"


# The command modules, the scaling probe and the CLI's own modules: no module among them reaches
# itself again through its imports, lazy ones included (the probe command was once both the
# dispatcher and the helper library of its kinds; scaling's launch/multinode/runner went round).
NO_CIRCLES = ("advisor.commands", "advisor.check", "probes.scaling", "probes.check", "probes.base")
NO_CIRCLES += ("advisor.cli", "advisor.progress", "advisor.cache", "advisor.config")


def circles(graph, scope: tuple) -> list[tuple[str, ...]]:
    """(module, its import, the way back) for every import of a module in `scope` that leads back to it."""
    found = []
    for module in sorted(m for m in graph.modules if m.startswith(scope)):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back:
                found.append((module, *back))
    return found


def test_no_import_circles_through_the_cli_and_the_scaling_probe():
    grimp = pytest.importorskip("grimp")  # comes with import-linter
    graph = grimp.build_graph("advisor", "probes", cache_dir=None)
    assert circles(graph, NO_CIRCLES) == []
    graph.add_import(importer="probes.scaling.launch", imported="probes.scaling.multinode")  # the old lazy import
    assert ("probes.scaling.launch", "probes.scaling.multinode", "probes.scaling.launch") in [
        c[:3] for c in circles(graph, NO_CIRCLES)
    ]


def _cycles(graph) -> list[list[str]]:
    """Strongly connected groups of modules (Tarjan) over direct imports: each is an import circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.find_modules_directly_imported_by(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for m in sorted(graph.modules):
        if m not in index:
            visit(m)
    return found


def test_no_import_circle_anywhere_in_the_core_or_the_tui():
    """No circle patched with a lazy import (a function-level import counts). In the core (advisor, probes,
    knowledge) an annotation-only one under TYPE_CHECKING counts too: the review layer's was
    report -> document -> risks -> report. The TUI's widgets still name the app's type that way."""
    import sys

    grimp = pytest.importorskip("grimp")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    core = grimp.build_graph("advisor", "probes", "knowledge", cache_dir=None, exclude_type_checking_imports=False)
    assert _cycles(core) == []
    whole = grimp.build_graph(
        "advisor", "probes", "knowledge", "tui", cache_dir=None, exclude_type_checking_imports=True
    )
    assert _cycles(whole) == []
    core.add_import(importer="advisor.decision.likelihood", imported="advisor.report")  # the test can fail
    assert _cycles(core)
