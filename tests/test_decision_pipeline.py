"""The decision pipeline prepares once and re-runs only what a moved figure touches.

`advisor.decision.prepare.reprepared` keeps the stages of a preparation that did not read a moved
constant or knowledge-base section; these tests hold it to the full preparation it replaces, score by
score, for every searched constant the bundled examples read and every knowledge-base figure the
document's search moves. A stage wrongly kept (a constant read where the stage map does not say, a
section read by the placement) shows here as a score that differs."""

from __future__ import annotations

from pathlib import Path

import pytest

import knowledge
from advisor.decision import prepare as prep
from advisor.decision import scoring
from advisor.decision.constants import CONSTANTS, DEFAULT, Consts, searched
from advisor.decision.evaluate import evaluate
from advisor.decision.sensitivity import constant_sensitivity
from advisor.measurements import Measurements
from advisor.report import build_report
from advisor.requirements import load_requirements
from advisor.review import kb_sensitivity as ks

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml")) + sorted((ROOT / "tests/fixtures/report").glob("*.yaml"))


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


def _dump(scores) -> list[dict]:
    return [s.model_dump(mode="json") for s in scores]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_a_moved_constant_re_runs_only_what_reads_it_and_scores_as_a_full_preparation(kb, example):
    inputs = prep.read_inputs(load_requirements(example))
    base, _ = prep.prepare_inputs(inputs, kb)
    read = set().union(*base.reads.values())
    assert read, "the preparation reads constants (the projections do)"
    for c in searched():
        if c.name not in read:
            continue
        lo, hi = c.search
        for value in (lo, hi):
            k = DEFAULT.moved(c.name, value)
            fast = evaluate(prep.reprepared(base, k), k)
            full = evaluate(prep.prepare_inputs(inputs, kb, k)[0], k)
            assert _dump(fast.scores) == _dump(full.scores), f"{c.name}={value:g}"


def test_a_constant_the_preparation_never_read_keeps_the_context(kb):
    base, _ = prep.prepare_inputs(prep.read_inputs(load_requirements(EXAMPLES[0])), kb)
    unread = next(c.name for c in searched() if c.name not in set().union(*base.reads.values()))
    assert prep.reprepared(base, DEFAULT.moved(unread, CONSTANTS[unread].search[1])) is base


def test_consts_note_the_names_read_and_say_which_differ():
    reads: set[str] = set()
    k = Consts({"PROJECT_WEEKS": 10.0}).noting(reads)
    assert k["PROJECT_WEEKS"] == 10.0 and k["TRAINING_RUNS"] == CONSTANTS["TRAINING_RUNS"].value
    assert reads == {"PROJECT_WEEKS", "TRAINING_RUNS"}
    assert k.differ(DEFAULT) == {"PROJECT_WEEKS"}
    assert Consts({"PROJECT_WEEKS": CONSTANTS["PROJECT_WEEKS"].value}).differ(DEFAULT) == set()


@pytest.mark.parametrize("example", EXAMPLES[:3], ids=lambda p: p.stem)
def test_skipping_the_constants_nothing_read_leaves_the_constant_sensitivity_as_it_was(kb, example):
    ctx, _ = prep.prepare_inputs(prep.read_inputs(load_requirements(example)), kb)
    read: set[str] = set()
    top = evaluate(ctx, DEFAULT.noting(read)).top()
    read.update(*ctx.reads.values())
    every = constant_sensitivity(ctx, top)
    assert constant_sensitivity(ctx, top, read) == every
    assert len(read & {c.name for c in searched()}) < len(every), "some searched constant goes unread"


@pytest.mark.parametrize("example", EXAMPLES[:3], ids=lambda p: p.stem)
def test_a_moved_knowledge_base_figure_re_scores_the_prepared_context_as_a_full_scoring(kb, example):
    req = load_requirements(example)
    ctx, _ = prep.prepare_inputs(prep.read_inputs(req), kb)
    accelerators = {p.accelerator for p in ctx.best.values() if p.accelerator}
    figures = list(ks._figures(kb, {"pytorch", "mindspore", "torch_npu"}, accelerators))
    sections = {f[0] for f in figures}
    assert "ecosystem" in sections and sections - prep.CRITERIA_ONLY_SECTIONS, "ratings and placement figures"
    for section, entry, field, _value, tries in figures:
        moved = ks._replace(kb, [(section, entry, field, tries[-1])])
        fast = scoring.rescore(ctx, moved)
        full = scoring.score(req, None, None, moved, None, sensitivity=False)
        assert _dump(fast.scores) == _dump(full.scores), f"{section} {entry.id} {field}"
        assert fast.recommendation.workflow == full.recommendation.workflow


def test_one_report_build_prepares_once_and_the_knowledge_base_search_re_prepares_only_what_moved(kb, monkeypatch):
    """The report's own preparation and the document's 'without measurements' one; every other scoring
    (the constant and knowledge-base searches) starts from the report's."""
    calls = {"full": 0, "partial": 0}
    full, partial = prep.prepare_inputs, prep.reprepared

    def counted_full(*a, **kw):
        calls["full"] += 1
        return full(*a, **kw)

    def counted_partial(*a, **kw):
        calls["partial"] += 1
        return partial(*a, **kw)

    monkeypatch.setattr(prep, "prepare_inputs", counted_full)
    monkeypatch.setattr(scoring, "prepare_inputs", counted_full)
    monkeypatch.setattr(scoring, "reprepared", counted_partial)
    import advisor.report as report_module

    monkeypatch.setattr(report_module, "prepare_inputs", counted_full)
    report = build_report(load_requirements(EXAMPLES[0]), Measurements(), kb=kb, created_at="2026-12-03T00:00:00Z")
    assert report.document is not None and report.document.kb_sensitivity is not None
    # Nothing measured: the scores without measurements are the report's own, so one preparation.
    assert calls["full"] == 1
    assert calls["partial"] > report.document.kb_sensitivity.searched  # each figure tried, the baseline, the pair
