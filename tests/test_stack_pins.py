"""Every pin the document prints is the version its source cites (PEP 440: `==2.12.0` does not take
2.12.0.post3), every install line pins what the stack's table says, and every option that applies has a
serving part in its stack."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

import knowledge
from advisor.measurements import Measurements
from advisor.render import format as render
from advisor.report import build_report
from advisor.requirements import load_requirements
from advisor.review.stack import choose_python, exact_version, pip_requirement, python_lines

ROOT = Path(__file__).resolve().parents[1]
CASES = [
    ROOT / "examples" / "prototype-then-ascend.yaml",
    ROOT / "tests" / "fixtures" / "teams" / "llm-pretrain-910c.yaml",
    ROOT / "tests" / "fixtures" / "teams" / "qlora-startup-h100.yaml",
]
# "https://pypi.org/project/torch-npu/2.12.0.post3/": the package and the version a source cites
PYPI = re.compile(r"pypi\.org/project/([A-Za-z0-9_.-]+)/([0-9][^/\s]*)/")


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _cited(source: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for pkg, ver in PYPI.findall(source or ""):
        out.setdefault(_norm(pkg), set()).add(ver)
    return out


def test_every_route_pin_is_the_version_its_source_cites(kb):
    checked = 0
    for route in kb.routes:
        cited = _cited(route.source)
        for pin in route.pins:
            versions = cited.get(_norm(pin.package))
            if not versions or not exact_version(pin.version):
                continue
            # the pin, installed with ==, must take the release the source names (PEP 440)
            assert any(SpecifierSet(f"=={pin.version}").contains(Version(v)) for v in versions), (
                f"{route.id}: {pin.package}=={pin.version} does not install the cited {sorted(versions)}"
            )
            checked += 1
    assert checked >= 8  # vllm-ascend, vllm, tensorrt-llm, transformers, peft, ... carry a PyPI citation


def test_every_framework_row_is_the_version_its_source_cites(kb):
    for fw in kb.frameworks:
        pkg = {"torch_npu": "torch-npu", "pytorch": "torch"}.get(fw.id, fw.id)
        for row in fw.versions:
            versions = _cited(row.source).get(_norm(pkg), set())
            for v in versions:
                if exact_version(row.version):
                    # a row for a minor line ("2.14") covers its patch releases; a full version is exact
                    spec = f"=={row.version}.*" if row.version.count(".") == 1 else f"=={row.version}"
                    assert SpecifierSet(spec).contains(Version(v)), (fw.id, row.version, v)


def test_a_post_release_is_not_taken_by_the_plain_pin():
    # the reviewer's case: the table cited 2.12.0.post3 and the command installed ==2.12.0
    assert not SpecifierSet("==2.12.0").contains(Version("2.12.0.post3"))
    assert pip_requirement("torch-npu", "2.12.0.post3") == "torch-npu==2.12.0.post3"
    assert pip_requirement("numpy", ">=1.26.4,<2") == "numpy>=1.26.4,<2"
    assert pip_requirement("megatron-core", "core_v0.12.1") is None  # a git tag, fetched otherwise
    assert pip_requirement("CANN", "9.1.0") is None  # not on the index


def test_python_is_locked_inside_the_vendor_range_not_to_the_newest():
    assert python_lines("3.10-3.12") == ["3.10", "3.11", "3.12"]
    assert choose_python(python_lines("3.10-3.15"))[0] == "3.11"
    assert choose_python(["3.12", "3.13", "3.14"])[0] == "3.12"
    assert choose_python(["3.13", "3.14"])[0] == "3.13"
    assert choose_python(["3.10"])[0] == "3.10"


@pytest.fixture(scope="module")
def reports(kb):
    return [build_report(load_requirements(p), Measurements(), kb=kb, created_at="2026-12-01T00:00:00Z") for p in CASES]


def test_every_install_line_pins_what_its_table_says(reports):
    seen = 0
    for report in reports:
        for st in report.document.stacks:
            table = {c.name: c.version for c in st.components}
            for line in st.install:
                if not line.startswith("pip install"):
                    continue
                for req in re.findall(r'"([^"]+)"', line):
                    name, _, version = req.partition("==")
                    if version:
                        assert table.get(name) == version, (st.title, req, table.get(name))
                        seen += 1
            py = next(c.version for c in st.components if c.name == "Python")
            assert f"python={py} " in st.install[0]
    assert seen >= 6


def test_the_stack_follows_the_route_the_workflow_is_scored_on(reports):
    for report in reports:
        top = next(s for s in report.scores if s.workflow == report.recommendation.workflow)
        training = next(u for u in top.route.stacks if u.stage == "training")
        stack = next(st for st in report.document.stacks if st.path == training.id)
        table = {c.name: c.version for c in stack.components}
        for pin in training.pins:
            if pin.package != "Python":
                assert table[pin.package] == pin.version, (training.id, pin.package)


def test_every_option_that_applies_pins_training_and_serving(reports):
    for report in reports:
        md = render(report, "markdown")
        for s in report.scores:
            if not s.applicable:
                continue
            stages = {u.stage for u in s.route.stacks}
            assert "serving" in stages, (report.requirements.name, s.workflow)
            serving = [u for u in s.route.stacks if u.stage == "serving"]
            assert all(u.pins for u in serving), (s.workflow, [u.id for u in serving])
            for u in serving:  # the document prints every serving route with its pins
                assert u.name in md


def test_hugging_face_libraries_are_pinned_beside_torch_when_essential(reports):
    for report in reports:
        if report.requirements.needs.huggingface != "essential":
            continue
        names = {c.name for st in report.document.stacks for c in st.components}
        assert {"transformers", "accelerate", "datasets", "peft"} <= names, report.requirements.name


# --- the edge: the SoC, its CANN line and the converter path pinned for edge-ascend -------------------

CANN_CITED = re.compile(r"CANN (\d+\.\d+\.\d+(?:\.?[A-Za-z]+\d*)?)")


def test_every_route_serving_the_edge_pins_its_soc_cann_line_and_converter_path(kb):
    """A route that serves edge-ascend names the board's SoC, the CANN line installed on it (an exact PEP 440
    version its source cites) and the converter path (MindIR -> MindSpore Lite, or ATC -> OM)."""
    edge = [r for r in kb.routes if "edge-ascend" in r.serves]
    assert {r.id for r in edge} >= {"atc-om", "mindspore-lite", "mindspore-lite-onnx"}
    for route in edge:
        pins = {p.package: p for p in route.pins}
        assert {"edge SoC", "edge CANN", "edge converter"} <= set(pins), route.id
        cann = pins["edge CANN"].version
        assert exact_version(cann), (route.id, cann)
        cited = {Version(v) for v in CANN_CITED.findall(route.source)}
        assert any(SpecifierSet(f"=={cann}").contains(v) for v in cited), (route.id, cann, sorted(map(str, cited)))
        assert "310B" in pins["edge SoC"].version
        path = pins["edge converter"].version
        assert ("converter_lite" in path) != ("atc " in path) and "->" in path, (route.id, path)


def test_the_document_prints_the_edge_part_only_for_an_edge_target(kb):
    edge = build_report(
        load_requirements(ROOT / "examples" / "ascend-production.yaml"),
        Measurements(),
        kb=kb,
        created_at="2026-12-01T00:00:00Z",
    )
    md = render(edge, "markdown")
    stack = md.split("## 1. The stack to install", 1)[1].split("\n## 2.", 1)[0]
    assert "| edge SoC | Ascend 310B (Atlas 200I/500 A2) |" in stack and "| edge CANN | `9.0.0` |" in stack
    assert "MindIR -> converter_lite --optimize=ascend_oriented" in stack
    server = build_report(
        load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml"),
        Measurements(),
        kb=kb,
        created_at="2026-12-01T00:00:00Z",
    )
    assert "edge-ascend" not in server.requirements.deployment.targets
    assert "| edge SoC |" not in render(server, "markdown")
