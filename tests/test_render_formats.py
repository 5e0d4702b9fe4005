"""The report's output formats: one self-contained HTML5 file (strict html5lib parse, SVGs inline,
no external reference, user strings escaped), Markdown whose chart links resolve to the SVGs written
beside it, deterministic charts, the terminal/pipe/extension format defaults, the lazy matplotlib
import, and every example and held-out-style scenario rendering in every format without a warning."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote

import html5lib
import pytest

import knowledge
from advisor.cli import main
from advisor.render import FORMATS
from advisor.render import format as render_format
from advisor.report import build_report
from advisor.measurements import Measured, Measurements
from advisor.requirements import load_requirements

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures" / "report"
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"
SCENARIOS = sorted((ROOT / "examples").glob("*.yaml")) + sorted(FIX.glob("*.yaml"))


@pytest.fixture(autouse=True)
def no_probes(monkeypatch):
    import probes.training.runner

    def refuse(*args, **kwargs):
        raise AssertionError("the report ran the probes without --run-probes")

    monkeypatch.setattr(probes.training.runner, "run_suite", refuse)


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


def _cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _external(text: str) -> list[str]:
    """References that would make a reader's browser fetch something (a link to a source, <a href>, is
    followed only when the reader clicks it)."""
    text = re.sub(r'<a href="https?://[^"<>\\]*">', "<a>", text)
    found = re.findall(r'(?:href|src|action|poster|data)\s*=\s*"(?!#)([^"]*)"', text)
    found += re.findall(r"url\((?!#)([^)]*)\)", text)
    found += re.findall(r"@import[^;]*", text)
    found += re.findall(r"<(?:link|script|iframe|img|object|embed)\b[^>]*>", text)
    return found


def test_html_is_one_valid_self_contained_file(capsys, tmp_path):
    target = tmp_path / "review.html"
    code, _out, err = _cli(
        capsys,
        "report",
        FIX / "cpu-team.yaml",
        "--probes",
        FIX / "probes-cpu.json",
        "--no-cache",
        "--html",
        "-o",
        target,
    )
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == ["review.html"]
    text = target.read_text(encoding="utf-8")
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)  # raises on any parse error
    assert text.startswith("<!DOCTYPE html>")
    assert text.count("<svg") == 4 and text.count("</svg>") == 4  # scores, sensitivity, throughput, ranges
    assert _external(text) == []
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids))  # charts share one page without clashing ids


def test_html_escapes_every_user_string(tmp_path, kb):
    evil = '<script>alert("x")</script> & <img src=http://e/x.png>'
    src = EXAMPLE.read_text(encoding="utf-8").replace("name: Retail shelf recognition", f"name: '{evil}'")
    path = tmp_path / "evil.yaml"
    path.write_text(src, encoding="utf-8")
    report = build_report(load_requirements(path), Measurements(), kb=kb, created_at="2026-01-01T00:00:00Z")
    text = render_format(report, "html", kb=kb)
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)
    assert "<script" not in text and "<img" not in text and _external(text) == []
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img" in text


def test_markdown_writes_the_charts_beside_it_and_links_resolve(capsys, tmp_path):
    target = tmp_path / "my review.md"
    code, out, err = _cli(
        capsys, "report", FIX / "cpu-team.yaml", "--probes", FIX / "probes-cpu.json", "--no-cache", "-o", target
    )
    assert code == 0 and out == "", err
    md = target.read_text(encoding="utf-8")
    assert md.startswith("# Framework advice:")  # -o FILE.md picks Markdown
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(links) == 4
    for link in links:
        assert not link.startswith(("/", "http")), link  # relative: the folder can be moved or attached
        svg = tmp_path / unquote(link)
        assert svg.is_file(), link
        root = ET.fromstring(svg.read_text(encoding="utf-8"))
        assert root.tag.endswith("svg")
    written = sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".svg")
    assert written == sorted(unquote(link) for link in links)
    # Without -o there is nowhere to put the SVGs: the text bars stay, no image links.
    code, out, _ = _cli(
        capsys, "report", FIX / "cpu-team.yaml", "--probes", FIX / "probes-cpu.json", "--no-cache", "--markdown"
    )
    assert "![" not in out and "█" in out


def test_charts_are_deterministic_and_undated(kb):
    from advisor.commands.report import load_probe_file
    from advisor.render.charts import charts

    req = load_requirements(FIX / "cpu-team.yaml")
    suite = load_probe_file(str(FIX / "probes-cpu.json"))
    one = charts(
        build_report(
            req, Measurements(probes={"training": Measured([suite])}), kb=kb, created_at="2026-01-01T00:00:00Z"
        )
    )
    two = charts(
        build_report(
            req, Measurements(probes={"training": Measured([suite])}), kb=kb, created_at="2027-06-30T12:00:00Z"
        )
    )
    assert list(one) == ["scores", "sensitivity", "throughput", "ranges"]
    assert one == two
    for svg in one.values():
        assert "<dc:date>" not in svg and "<metadata>" not in svg and "<?xml" not in svg
        assert 'width="540pt"' in svg  # the fixed 7.5-inch figure width


def test_tornado_is_the_lead_as_each_weight_is_halved_or_doubled(kb):
    from advisor.render.charts import tornado_rows

    report = build_report(load_requirements(EXAMPLE), Measurements(), kb=kb, created_at="2026-01-01T00:00:00Z")
    rows = {name: (half, double) for name, half, double in tornado_rows(report)}
    top = next(s for s in report.scores if s.workflow == report.recommendation.workflow)
    other = next(s for s in report.scores if s.workflow == report.recommendation.runner_up)
    w = [c.weight for c in top.criteria]
    # its weakest criterion against the runner-up (deployment, for PyTorch through torch_npu against hybrid)
    i = min(range(len(w)), key=lambda j: top.criteria[j].score - other.criteria[j].score)
    name = top.criteria[i].name
    w[i] *= 2
    lead = sum(wi * (a.score - b.score) for wi, a, b in zip(w, top.criteria, other.criteria)) / sum(w)
    assert rows[name][1] == pytest.approx(lead)
    assert rows[name][1] < report.recommendation.margin  # more weight on its weakest criterion shrinks the lead


@pytest.mark.parametrize(
    "argv, expected",
    [
        ([], "json"),  # piped
        (["--table"], "table"),
        (["-o", "{tmp}/r.json"], "json"),
        (["-o", "{tmp}/r.md"], "markdown"),
        (["-o", "{tmp}/r.html"], "html"),
        (["-o", "{tmp}/r.txt"], "json"),
        (["--json", "-o", "{tmp}/r.md"], "json"),  # --json forces it
    ],
)
def test_format_defaults(capsys, tmp_path, argv, expected):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err = _cli(capsys, "report", EXAMPLE, "--no-cache", *argv)
    assert code == 0, err
    text = Path(argv[-1]).read_text(encoding="utf-8") if "-o" in argv else out
    kind = (
        "json"
        if text.startswith("{")
        else "markdown"
        if text.startswith("# Framework advice")
        else "html"
        if text.startswith("<!DOCTYPE html>")
        else "table"
    )
    assert kind == expected
    if kind == "json":
        json.loads(text)


def test_a_terminal_gets_the_table():
    from advisor.commands.report import choose_format

    args = SimpleNamespace(json=False, markdown=False, html=False, table=False, output=None)
    assert choose_format(args, SimpleNamespace(isatty=lambda: True)) == "table"
    assert choose_format(args, SimpleNamespace(isatty=lambda: False)) == "json"


def test_bad_output_folder_writes_nothing(capsys, tmp_path):
    code, _out, err = _cli(capsys, "report", EXAMPLE, "--no-cache", "-o", tmp_path / "missing" / "r.md")
    assert code == 2 and "does not exist" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "missing").exists()


def test_report_start_up_does_not_import_matplotlib():
    code = (
        "import sys, advisor.cli, advisor.commands.report, advisor.render, advisor.render.markdown, "
        "advisor.render.table, advisor.render.html, advisor.review.stack, advisor.review.risks; "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported at start-up'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.stem)
def test_every_scenario_renders_in_every_format_without_a_warning(scenario, kb):
    from advisor.commands.report import scan_code

    req = load_requirements(scenario)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = build_report(
            req, Measurements(scan=scan_code(req, str(scenario), kb)), kb=kb, created_at="2026-01-01T00:00:00Z"
        )
        for fmt in FORMATS:
            text = render_format(report, fmt, kb=kb)
            assert text.strip(), fmt
            assert "Traceback" not in text and "object at 0x" not in text and "Criterion(" not in text, fmt
            if fmt == "html":
                html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)


def test_scaling_probe_points_make_a_curve_from_one_device(kb):
    from advisor.render.charts import charts, scaling_points

    doc = json.loads((ROOT / "tests" / "fixtures" / "scaling" / "scaling-2vcpu-lenet.json").read_text(encoding="utf-8"))
    report = build_report(
        load_requirements(EXAMPLE),
        Measurements(probes={"scaling": Measured(doc, "file", "s.json")}),
        kb=kb,
        created_at="2026-01-01T00:00:00Z",
    )
    points = scaling_points(report)
    assert points and all(pts[0] == (1.0, 1.0, 1.0) and len(pts) >= 2 for pts in points.values())
    for m in report.scaling.measurements:
        assert (float(m.ranks), m.efficiency.min, m.efficiency.max) in points[f"{m.framework} (measured)"]
    assert "scaling" in charts(report)


def test_the_decision_sections_read_a_report_and_its_saved_json_alike(kb):
    """decision_sections takes the Report; a saved report's JSON is validated into one at its entry
    (no per-field 'model or dict' reading), and both give the same Markdown."""
    from advisor.render.decision_sections import sections

    report = build_report(load_requirements(EXAMPLE), Measurements(), kb=kb, created_at="2026-01-01T00:00:00Z")
    lines = sections(report)
    assert "## Memory fit" in lines and "## Confidence" in lines and "## Schedule" in lines
    assert sections(json.loads(render_format(report, "json", kb=kb))) == lines
