"""Text from result files, file names, the requirements and knowledge-base overrides reaches the
Markdown review, its HTML form and the terminal summary as text only: no heading, link, image, raw
HTML or table break of its own. The review is read back as a permissive viewer would (CommonMark
with raw HTML on) and every token checked, so the test follows the format, not a list of strings."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures"
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"
MARK = "INJ"
PAYLOAD = (
    f"{MARK}\n# {MARK}-heading <img src=x onerror=alert(1)> ![b](http://evil.example/b.png) "
    f"[c](javascript:alert(1)) <script>s()</script> <http://evil.example/a> `x|y` a|b \\"
)
RESULTS = {
    "--scaling": FIX / "scaling" / "scaling-2vcpu-lenet.json",
    "--accuracy": FIX / "report" / "accuracy-2vcpu.json",
    "--pipeline": FIX / "report" / "pipeline-2vcpu.json",
    "--gpt": FIX / "report" / "gpt-2vcpu.json",
    "--deploy": FIX / "bad-input" / "bases" / "deploy-2vcpu.json",
}


def _strings(doc, path=()):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _strings(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _strings(v, (*path, i))
    elif isinstance(doc, str):
        yield path


def _set(doc, path, value):
    for p in path[:-1]:
        doc = doc[p]
    doc[path[-1]] = value


def poisoned(kind: str, doc: dict) -> dict:
    """`doc` with the payload in every string field its model takes as free text (a field with a fixed
    vocabulary refuses it, and is left as it was)."""
    from probes.base import KINDS

    model = KINDS[kind].Result
    out = copy.deepcopy(doc)
    for path in _strings(doc):
        if path[-1] in ("kind", "schema_version"):
            continue
        trial = copy.deepcopy(out)
        _set(trial, path, PAYLOAD)
        try:
            model.model_validate(trial)
        except Exception:
            continue
        out = trial
    return out


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    t = tmp_path_factory.mktemp("inject")
    argv = []
    for flag, base in RESULTS.items():
        doc = poisoned(flag[2:], json.loads(base.read_text()))  # --scaling FILE: the scaling kind
        name = t / f"{flag[2:]}`\n# {MARK} <img src=x>.json"  # a file name is text in the review too
        name.write_text(json.dumps(doc))
        argv += [flag, str(name)]
    probes = json.loads((FIX / "report" / "probes-cpu.json").read_text())
    probes = poisoned("training", probes)
    (t / "probes.json").write_text(json.dumps(probes))
    code = t / f"code` <img src=x onerror=alert(1)> `{MARK}"
    shutil.copytree(FIX / "report" / "code", code)
    req = EXAMPLE.read_text().replace("  source: new\n", "  source: pytorch-code\n  code_path: code\n")
    req = req.replace("code_path: code", "code_path: " + json.dumps(str(code)))
    req = req.replace("name: Retail shelf recognition", "name: " + json.dumps(PAYLOAD))
    (t / "req.yaml").write_text(req)
    kb = t / "kb"
    kb.mkdir()
    for section, field in (("pitfalls", "title"), ("accelerators", "name")):
        data = yaml.safe_load((ROOT / "knowledge" / "data" / f"{section}.yaml").read_text())
        for entry in data[section]:
            entry[field] = PAYLOAD.replace("\n", " ")  # a YAML override may hold anything a string can
        (kb / f"{section}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))
    return t, [str(t / "req.yaml"), "--no-cache", "--probes", str(t / "probes.json"), "--kb", str(kb), *argv]


@pytest.fixture(scope="module")
def rendered(inputs):
    """The poisoned report in each format, from one build (a report here takes seconds): read as
    `advisor report` reads its inputs, rendered as it renders them (the Markdown with its charts)."""
    from advisor.cli import build_parser
    from advisor.commands import report as command
    from advisor.render import assets
    from advisor.render import format as render_format
    from advisor.report import build_report

    t, argv = inputs
    args = build_parser(command="report").parse_args(["report", *argv])
    req, kb, measurements = command.gather(args)
    report = build_report(req, measurements, kb=kb)
    charts = assets(report, "markdown", str(t / "review.md"), kb=kb)
    return {
        "markdown": render_format(report, "markdown", kb=kb, assets=charts),
        "html": render_format(report, "html", kb=kb, assets={}),
        "table": render_format(report, "table", kb=kb, assets={}),
    }


def _report(argv, fmt, capsys, out=None):
    from advisor.cli import main

    code = main(["report", *argv, f"--{fmt}", *(["-o", str(out)] if out else [])])
    got, err = capsys.readouterr()
    assert code == 0, err
    return out.read_text() if out else got


def _tokens(md: str):
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": True}).enable("table")
    for tok in parser.parse(md):
        yield tok
        yield from tok.children or []


def test_the_payload_reaches_the_review_as_text_only(rendered):
    md = rendered["markdown"]
    assert md.count(MARK) > 20, "the payload must reach the review for the test to mean anything"
    kinds = {tok.type for tok in _tokens(md)}
    assert not kinds & {"html_inline", "html_block"}, kinds
    images = [tok.attrGet("src") for tok in _tokens(md) if tok.type == "image"]
    assert images and all(src.startswith("review.") and src.endswith(".svg") for src in images), images  # its charts
    links = [tok.attrGet("href") for tok in _tokens(md) if tok.type == "link_open"]
    assert links == [], links
    headings = []
    tokens = list(_tokens(md))
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            headings.append(tokens[i + 1].content)
    injected = [h for h in headings if f"{MARK}-heading" in h and not h.startswith("Framework advice:")]
    assert injected == [], injected


def _pipes(line: str) -> int:
    """Cell separators in a table line: pipes not escaped by a backslash (an escaped backslash, `\\\\`,
    escapes nothing)."""
    count, i = 0, 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        count += line[i] == "|"
        i += 1
    return count


def test_every_table_row_keeps_its_columns(rendered):
    md = rendered["markdown"]
    tables, current = [], []
    for line in md.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    assert any(MARK in line for table in tables for line in table), "the payload must reach a table"
    for table in tables:
        assert len({_pipes(line) for line in table}) == 1, table


def test_the_html_form_carries_no_markup_of_the_payload(rendered):
    html = rendered["html"]
    low = html.lower()
    assert MARK in html
    for needle in ("<img", "<script", 'href="javascript:', 'src="http://evil', "<h1>inj"):
        assert needle not in low, needle  # the payload's words are there as text, its markup is not


def test_the_terminal_summary_keeps_the_payload_on_its_lines(rendered):
    text = rendered["table"]
    assert "\x1b" not in text
    assert not [line for line in text.splitlines() if line.startswith(f"# {MARK}")]


@pytest.mark.parametrize(
    "value",
    ["# heading ![a](http://x/y.png) [a](javascript:1) <img src=x onerror=1> a`b", "1. z\n- y"],
)
def test_a_requirements_name_is_text_in_every_format(value, capsys, tmp_path):
    req = tmp_path / "req.yaml"
    req.write_text(EXAMPLE.read_text().replace("name: Retail shelf recognition", "name: " + json.dumps(value)))
    md = _report([str(req), "--no-cache"], "markdown", capsys)
    first = list(_tokens(md))
    assert first[0].type == "heading_open" and first[1].content.startswith("Framework advice:")
    kinds = {tok.type for tok in first}
    assert not kinds & {"html_inline", "html_block", "image", "link_open"}, kinds
    assert sum(1 for tok in first if tok.type == "heading_open" and tok.tag == "h1") == 1


def test_escaping_keeps_the_knowledge_bases_own_code_and_bold():
    from advisor.sanitize import for_markdown, md_cell

    assert for_markdown("use `torch.compile` and **lock** versions") == "use `torch.compile` and **lock** versions"
    assert for_markdown("numpy <2, python <=3.15") == "numpy <2, python <=3.15"  # no tag can start there
    assert for_markdown("- x") == "\\- x" and md_cell("-") == "-"  # a list only where a line starts
    assert for_markdown("a`b`c`") == "a`b`c\\`"  # the unmatched backtick is escaped, the span kept
    assert for_markdown("x`y", code=True) == "``x`y``"
    assert md_cell("a|b `c|d`") == "a\\|b `c\\|d`"
