"""The Recommendation screen formats the report's judged document: its headline
numbers (score, margin, confidence), its register's expected hours and its sign-off are exactly what
`advisor report --markdown` prints for the same requirements file, the same host check and no cache."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.fakes import FakeLauncher  # noqa: E402
from fixtures.tui.pilot import run_async, screen_text, settle, wait_for  # noqa: E402

from tui.app import make_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
pytestmark = pytest.mark.timeout(180)

HEADLINE = re.compile(r"^\*\*(?P<text>.+)\.\*\*$", re.M)
NUMBERS = re.compile(r"\d+(?:\.\d+)?")


def cli_markdown(path: Path) -> str:
    """`advisor report FILE --markdown --no-cache` from this tree, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "advisor", "report", str(path), "--markdown", "--no-cache"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def the_cli_host(progress=None, cancel=None):
    """The host the CLI's report reads (a quick check without smoke tests), in HostCheck's signature."""
    from advisor.commands.report import collect_host

    return collect_host()


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
@run_async
async def test_recommendation_headline_is_the_cli_markdown_headline(example):
    markdown = cli_markdown(example)
    headline = HEADLINE.search(markdown.split("## Recommendation", 1)[1]).group("text")
    confidence = re.search(r"^\*\*Confidence (\w+)\*\*, because: (.*)$", markdown, re.M)
    expected_h = re.search(r"Expected exposure over every pitfall listed: \*\*~([\d,.]+) h\*\*", markdown)

    app = make_app(
        host_provider=the_cli_host,
        probe_launcher=FakeLauncher(),  # never run; also: no cached probes, as --no-cache
        cached_scaling=lambda: None,
        requirements_path=str(example),
        initial_mode="recommendation",
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.state.report is not None, timeout=120, what="the report")
        shown = app.state.report.document.first_page.headline  # drawn once the screen has handled it
        await wait_for(pilot, lambda: shown in " ".join(screen_text(app).split()), what="the first page")
        await settle(pilot)
        text = " ".join(screen_text(app).split())

    # The headline sentence, every number in it (score, margin) and the confidence word, as printed.
    assert headline in text, (headline, text[:600])
    doc = app.state.report.document
    assert NUMBERS.findall(headline) == NUMBERS.findall(doc.first_page.headline)
    assert f"Confidence {confidence.group(1)}, because: {confidence.group(2).replace('**', '')}" in text
    assert doc.first_page.confidence == confidence.group(1)
    # The register's expected hours and the sign-off's knowledge-base hash: the document's, not recomputed.
    if expected_h:
        assert f"expected ~{expected_h.group(1)} h" in text
    kb = re.search(r"knowledge base ([0-9a-f]{16})", markdown).group(1)
    assert f"knowledge base {kb}" in text


def test_first_page_view_refuses_to_judge_a_report_without_document():
    """A report built by an older version has no document: the screen says so instead of judging it
    (advisor.review.document.build runs the knowledge-base sensitivity: seconds of work)."""
    import json

    from rich.text import Text

    from advisor.report import Report
    from tui.screens.recommendation import first_page_view

    data = json.loads((ROOT / "tests" / "fixtures" / "tui" / "report.json").read_text())
    data.pop("document")
    shown = first_page_view(Report.model_validate(data))
    assert isinstance(shown, Text) and "no judged document" in shown.plain
