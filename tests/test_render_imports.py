"""The renderers' import graph: no circle inside advisor/render, and no renderer reaches the
knowledge base's loader (renderers format the judged report; judging, and loading what it needs, is the
decision model's). Read with grimp, the graph library behind import-linter, so a lazy import inside a
function counts as much as one at the top of a module."""

from __future__ import annotations

import itertools

import grimp
import pytest


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("advisor", "knowledge")


def _render_modules(graph) -> list[str]:
    return sorted(m for m in graph.modules if m == "advisor.render" or m.startswith("advisor.render."))


def test_no_import_circle_inside_the_renderers(graph):
    circles = []
    for a, b in itertools.combinations(_render_modules(graph), 2):
        there, back = graph.find_shortest_chain(a, b), graph.find_shortest_chain(b, a)
        if there and back:
            circles.append(there + back[1:])
    assert not circles, f"import circles in advisor/render: {circles}"


def test_no_renderer_imports_the_knowledge_base_loader_directly(graph):
    for module in _render_modules(graph):
        direct = graph.find_modules_directly_imported_by(module)
        loaders = sorted(
            m for m in direct if m == "knowledge" or m.startswith("knowledge.") and m != "knowledge.sources"
        )
        assert not loaders, f"{module} imports {loaders}: a renderer formats, it does not load the knowledge base"


def test_the_check_can_fail():
    """A planted circle is found by the same walk (so the test above is not vacuous)."""
    g = grimp.ImportGraph()
    for m in ("advisor.render.a", "advisor.render.b"):
        g.add_module(m)
    g.add_import(importer="advisor.render.a", imported="advisor.render.b")
    g.add_import(importer="advisor.render.b", imported="advisor.render.a")
    assert g.find_shortest_chain("advisor.render.a", "advisor.render.b")
    assert g.find_shortest_chain("advisor.render.b", "advisor.render.a")
