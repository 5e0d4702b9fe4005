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
# itself again through its imports, lazy ones included (issue 28: the probe command was both the
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
