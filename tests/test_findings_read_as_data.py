"""What the model and the renderers decide from a finding is read from a field or a number, never from
its words: the catalogue reworded, the report's assumptions, the first page's summary line and the
data-quality caveats' figure kinds stay what they were."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from advisor.requirements import parse_requirements
from advisor.wording import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"


def _requirements(**hardware):
    data = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    data["hardware"].pop("accelerator")
    data["hardware"].update(hardware)
    return parse_requirements(data, str(EXAMPLE))


def _reworded(monkeypatch, *codes: str) -> None:
    # words that share nothing with the old ones ("assumed", "undecided" among them)
    for code in codes:
        monkeypatch.setitem(CATALOGUE, code, lambda p, code=code: f"[{code}]")


@pytest.mark.parametrize(
    "hardware, with_kb, codes",
    [
        # no chip named, the target undecided: the stand-in chip and what the workflows are compared on
        (
            {"training_target": "undecided"},
            True,
            ("workflows.assumed_chip", "workflows.compared.same_hardware"),
        ),
        # a probe run scaled to the workload's FLOPs, and no knowledge base for the communication loss
        ({"training_target": "cpu"}, False, ("proj.flops_scaled", "comm.note.assumed")),
    ],
)
def test_the_assumptions_the_report_lists_are_read_from_the_projection_not_its_words(
    monkeypatch, hardware, with_kb, codes
):
    from advisor.decision.prepare import prepare
    from tests.document_examples import kb, suite

    req = _requirements(**hardware)
    _reworded(monkeypatch, *codes)
    ctx, assumptions = prepare(req, None, [suite()], kb() if with_kb else None, None, None, False)
    for code in codes:
        assert f"[{code}]" in assumptions, (code, assumptions)
        # each listed once, though every workflow's projection carries it
        assert assumptions.count(f"[{code}]") == 1
    assert all(set(p.assumptions) <= set(p.notes) for p in ctx.best.values())


def _report(req):
    from advisor.measurements import Measurements
    from advisor.report import build_report
    from tests.document_examples import kb

    return build_report(req, Measurements(), kb=kb(), created_at="2026-12-01T00:00:00Z")


def test_the_first_pages_summary_drops_the_verdicts_head_worded_from_the_scorecards_numbers(monkeypatch):
    # the verdict reworded (the total to two decimals, no parentheses): the first page's
    # line is still the description alone, the total left to the headline
    req = parse_requirements(yaml.safe_load(EXAMPLE.read_text(encoding="utf-8")), str(EXAMPLE))
    before = _report(req).document.first_page
    monkeypatch.setitem(
        CATALOGUE,
        "score.summary.verdict",
        lambda p: f"Recommended: {p.workflow} at {p.total:.2f} points, confidence {p.level} - {p.what}.",
    )
    report = _report(req)
    top = next(s for s in report.scores if s.workflow == report.recommendation.workflow)
    assert report.recommendation.summary.startswith(f"Recommended: {top.workflow} at {top.total:.2f} points")
    assert report.document.first_page.summary == before.summary
    assert f"{top.total:.2f}" not in report.document.first_page.summary


@pytest.mark.parametrize(
    "path, kinds",
    [
        (EXAMPLE, {"rating", "effort", "peak", "derating"}),
        (ROOT / "tests" / "fixtures" / "teams" / "government-tender.yaml", {"rating", "effort", "power"}),
    ],
)
def test_a_weak_figures_kind_is_read_from_its_evidence_not_its_words(monkeypatch, path, kinds):
    # the ratings, fix times, peaks, deratings and power figures reworded with none of the words a guess
    # would read ("/5:", "h", "TFLOPS", "peak", "loses", "draws", "W"): each caveat keeps its kind, its
    # grouping and its advice
    from advisor.render.summary import _KINDS, caveats

    req = parse_requirements(yaml.safe_load(path.read_text(encoding="utf-8")), str(path))

    def table():
        return sorted((c.where, c.firm_up, c.ref) for c in caveats(_report(req)))

    before = table()
    assert {firm for _, firm, _ in before} >= {_KINDS[kind] for kind in kinds}  # the example has each
    for code in (
        "crit_common.aspect",
        "crit_migration.evidence.pitfall",
        "proj.evidence.peak",
        "proj.evidence.peak_range",
        "proj.evidence.adapter_ratio",
        "proj.evidence.power",
        "power.cards",
        "power.server",
    ):
        monkeypatch.setitem(CATALOGUE, code, lambda p, code=code: f"figure {code}")
    assert table() == before
    whats = [c.what for c in caveats(_report(req))]
    assert any(w.startswith("figure ") for w in whats)  # the rows do show the reworded figures
