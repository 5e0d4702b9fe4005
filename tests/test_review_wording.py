"""The review layer's words come from the one catalogue (advisor/wording/review.py, merged into
advisor.wording.CATALOGUE): rewording its entries changes the review document's text and nothing it
computes, and the one place the review layer rebuilt a line it had written (the hybrid prototype's
pip line, which gains the production environment's NumPy) reads the line's requirements, not its words."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.wording import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]
PREFIXES = ("review.", "risks.", "stack.", "kbsens.")


def _report(workflow: str | None = None):
    from advisor.measurements import Measurements
    from advisor.report import build_report
    from advisor.requirements import load_requirements
    from tests.document_examples import kb

    req = load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml")
    report = build_report(req, Measurements(), kb=kb(), created_at="2026-12-01T00:00:00Z")
    if workflow is not None:  # the same report read as recommending another workflow
        rec = report.recommendation.model_copy(update={"workflow": workflow})
        report = report.model_copy(update={"recommendation": rec, "document": None})
    return report


def _skeleton(obj):
    """The document with every text that holds words blanked: what the review layer computed."""
    if isinstance(obj, dict):
        return {k: "<hash>" if k == "digest" else _skeleton(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_skeleton(v) for v in obj]
    if isinstance(obj, str) and " " in obj:
        return "<words>"
    return obj


def _reword(monkeypatch) -> int:
    codes = [code for code in CATALOGUE if code.startswith(PREFIXES)]
    for code in codes:
        entry = CATALOGUE[code]
        monkeypatch.setitem(CATALOGUE, code, lambda p, entry=entry: "» " + entry(p))
    return len(codes)


def test_the_review_layer_has_its_words_in_the_catalogue():
    prefixes = {code.split(".")[0] + "." for code in CATALOGUE if code.startswith(PREFIXES)}
    assert prefixes == set(PREFIXES)


@pytest.mark.parametrize("workflow", ["hybrid", "mindspore"])
def test_rewording_the_review_entries_changes_the_documents_words_and_nothing_it_computes(monkeypatch, workflow):
    from advisor.review import document
    from tests.document_examples import kb

    report = _report(workflow)
    before = document.build(report, kb()).model_dump(mode="json")
    assert _reword(monkeypatch) > 150
    after = document.build(report, kb()).model_dump(mode="json")
    assert _skeleton(after) == _skeleton(before)
    assert after != before
    page = after["first_page"]
    assert page["headline"].startswith("» ") and all(line.startswith("» ") for line in page["routes"])
    assert all(st["title"].startswith("» ") for st in after["stacks"])
    assert "» " not in str(before)


def _prototype(report):
    from advisor.review.stack import stacks_for
    from tests.document_examples import kb

    stacks = stacks_for(report, kb())
    assert stacks and stacks[0].title.startswith("Prototype: "), [s.title for s in stacks]
    return stacks[0]


def test_the_hybrid_prototype_installs_the_production_numpy_first():
    proto = _prototype(_report("hybrid"))
    pip = [line for line in proto.install if line.startswith("pip install ")]
    assert len(pip) == 1 and pip[0].startswith('pip install "numpy'), proto.install
    numpy = next(c for c in proto.components if c.name == "numpy")
    assert pip[0].startswith(f'pip install "numpy{numpy.version}" "torch==')


def test_the_numpy_joins_the_pip_line_whatever_the_catalogue_calls_it(monkeypatch):
    monkeypatch.setitem(CATALOGUE, "stack.install.pip", lambda p: "python -m pip install " + " ".join(p.reqs))
    proto = _prototype(_report("hybrid"))
    pip = [line for line in proto.install if "pip install" in line]
    assert len(pip) == 1 and pip[0].startswith("python -m pip install numpy"), proto.install
    assert proto.pip[0].startswith("numpy") and any(r.startswith("torch==") for r in proto.pip[1:])


def _cpu_probes_for_an_h200_team():
    import json

    import knowledge
    from advisor.measurements import Measured, Measurements
    from advisor.report import build_report
    from advisor.requirements import load_requirements

    fix = ROOT / "tests" / "fixtures" / "report"
    probes = json.loads((fix / "probes-cpu.json").read_text())
    measured = Measurements(probes={"training": Measured(probes, "file", ("probes.json",))})
    return build_report(load_requirements(fix / "h200-team.yaml"), measured, kb=knowledge.load(), created_at="x")


def test_the_first_page_says_why_runs_are_not_scored_in_the_reason_the_decision_model_gives(monkeypatch):
    """CPU probes for a team training on an H200: the runs are shown, not scored, and the first page says why in
    one clause, the reason the report's probe note is built from (not a cut of the note's words), so a
    rewording of the note's tail leaves the clause whole."""
    report = _cpu_probes_for_an_h200_team()
    assert report.probes.reason == "probes ran on cpu, the training target is nvidia"
    assert report.probes.note.startswith(report.probes.reason + ": ")
    (line,) = [x for x in report.document.first_page.measured if "not scored" in x]
    assert line.endswith("; not scored: probes ran on cpu, the training target is nvidia")
    monkeypatch.setitem(CATALOGUE, "report.probes.other_hardware", lambda p: f"{p.reason}; shown for comparison")
    reworded = _cpu_probes_for_an_h200_team()
    assert reworded.probes.note == "probes ran on cpu, the training target is nvidia; shown for comparison"
    assert [x for x in reworded.document.first_page.measured if "not scored" in x] == [line]


def test_the_confidence_rules_steps_are_recognised_by_their_figures_whatever_their_words(monkeypatch):
    from advisor.decision.confidence import step_kind
    from advisor.decision.scorecard import Confidence, EvidenceQuality, NearestFlip

    flip = NearestFlip(what="weight:cost", value=0.3, threshold=0.4, relative_change=0.1, new_top="x", note="n")
    parts = Confidence(
        level="low",
        decided_by="scores",
        decided_note="",
        margin=0.5,
        tie=True,
        margin_level="low",
        evidence=EvidenceQuality(score=2.0, label="weak"),
        nearest_flip=flip,
    )
    monkeypatch.setitem(CATALOGUE, "conf.step.tie", lambda p: f"level with the runner-up ({p.margin:.2f})")
    monkeypatch.setitem(CATALOGUE, "conf.step.fragile", lambda p: f"close to a flip: {p.note}")
    monkeypatch.setitem(CATALOGUE, "conf.step.weak_evidence", lambda p: f"thin support ({p.score:.1f})")
    steps = ["level with the runner-up (0.50)", "close to a flip: n", "thin support (2.0)", "a tie of sorts"]
    assert [step_kind(parts, s) for s in steps] == ["tie", "fragile", "evidence", None]


def test_words_the_review_keeps_as_defaults_follow_a_catalogue_chosen_after_import(monkeypatch):
    """The searched ranges and the Ascend host's checks are worded when used, not once at import."""
    from advisor.review import kb_sensitivity, stack

    monkeypatch.setitem(CATALOGUE, "kbsens.ranges", lambda p: "ranges, reworded")
    monkeypatch.setitem(CATALOGUE, "stack.verify.npu_smi", lambda p: "npu-smi, reworded")
    assert kb_sensitivity.ranges() == "ranges, reworded"
    assert stack.ascend_verify()[0] == "npu-smi, reworded"
