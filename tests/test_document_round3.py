"""The review document, third round: the register reads the knowledge base's judgement data, the first
page grades evidence on the decision model's one scale and says when the mandate's reading decides,
a workflow that does not apply prints "n/a", cancelled probe runs are not failures, and the knowledge
base cites field reports by title and section."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import knowledge
from advisor.measurements import Measurements
from advisor.render import format as render
from advisor.report import build_report
from advisor.requirements import load_requirements

ROOT = Path(__file__).resolve().parents[1]
ASCEND = ROOT / "examples" / "ascend-production.yaml"
PROTOTYPE = ROOT / "examples" / "prototype-then-ascend.yaml"
TENDER = ROOT / "tests" / "fixtures" / "teams" / "government-tender.yaml"


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


def _build(path: Path, kb, **model_changes):
    req = load_requirements(path)
    if model_changes:
        req = req.model_copy(update={"model": req.model.model_copy(update=model_changes)})
    return build_report(req, Measurements(), kb=kb, created_at="2026-12-01T00:00:00Z")


@pytest.fixture(scope="module")
def ascend(kb):
    return _build(ASCEND, kb)


@pytest.fixture(scope="module")
def tender(kb):
    return _build(TENDER, kb)


@pytest.fixture(scope="module")
def continued(kb):
    """prototype-then-ascend continuing released weights: the hybrid has no prototype phase (n/a)."""
    return _build(PROTOTYPE, kb, from_checkpoint=True)


# --- the register reads owner, milestone and likelihood from the pitfalls --------------------------


def test_the_register_takes_owner_milestone_and_likelihood_from_the_knowledge_base(ascend, kb):
    from advisor.review.risks import register

    items = {p.id: p for p in ascend.pitfalls}
    reg = register(ascend)
    every = reg.risks + reg.also_known
    assert every
    by_id = {p.id: p for p in kb.pitfalls}
    for r in every:
        if r.id not in items:
            continue
        pit = by_id[r.id]
        assert r.owner == (pit.owner or "ML engineer")
        assert r.milestone == (pit.milestone or "single card")
        assert r.likelihood == items[r.id].likelihood  # the decision model's figure, not a second one
        assert r.why == items[r.id].likelihood_why


def test_a_changed_owner_in_the_data_reaches_the_register(ascend):
    from advisor.review.risks import register

    changed = ascend.model_copy(deep=True)
    changed.pitfalls[0].owner, changed.pitfalls[0].milestone = "site reliability", "export"
    r = next(x for x in register(changed).risks + register(changed).also_known if x.id == changed.pitfalls[0].id)
    assert (r.owner, r.milestone) == ("site reliability", "export")


def test_the_risk_tables_keyed_by_id_are_gone():
    from advisor.review import risks

    assert not hasattr(risks, "OWNER") and not hasattr(risks, "MILESTONE")


# --- one evidence scale ---------------------------------------------------------------------------


def test_the_first_page_grade_is_the_confidence_grade(ascend, tender):
    for report in (ascend, tender):
        fp = report.document.first_page
        quality = report.recommendation.confidence_parts.evidence
        assert fp.evidence_grade == quality.score and fp.evidence_label == quality.label
        md = render(report, "markdown")
        confidence = next(line for line in md.splitlines() if line.startswith("**Confidence"))
        # the grade is said once, on the model's scale
        assert confidence.count(f"({quality.score:.1f}/5)") == 1, confidence


# --- against it, and the mandate's reading ----------------------------------------------------------


def test_every_criterion_against_the_verdict_is_on_the_first_page(tender):
    fp = tender.document.first_page
    assert len(fp.against) == 2  # ecosystem and debugging both favour the hybrid here
    assert fp.against[0].points <= fp.against[1].points < 0
    md = render(tender, "markdown")
    for r in fp.against:
        assert f"- Against it: {r.criterion}:" in md


READING = {"hardware-and-framework": "read as hardware and framework", "hardware-only": "read as hardware only"}


def test_the_first_page_says_when_the_mandate_reading_decides(tender, ascend):
    fp = tender.document.first_page
    readings = {r.reading: r for r in tender.mandate_readings}
    assert tender.mandate_flip and len(fp.mandate) == 2
    assert any("hardware only" in m and "PyTorch" in m for m in fp.mandate)
    used = next(r for r in readings.values() if r.used)
    assert any(m.endswith(": the verdict above") and READING[used.reading] in m for m in fp.mandate)
    other = next(r for r in readings.values() if not r.used)
    assert any(f"{other.total:.1f}/100" in m for m in fp.mandate)
    md = render(tender, "markdown")
    front = md.split("## 1.")[0]
    assert "**The mandate's reading decides the verdict**" in front
    assert "the mandate's reading decides" in render(tender, "table")
    # no flip: nothing said
    assert ascend.mandate_flip is None and ascend.document.first_page.mandate == []


# --- "n/a" for a workflow that does not apply -------------------------------------------------------


def test_a_workflow_that_does_not_apply_prints_n_a(continued):
    hybrid = next(s for s in continued.scores if s.workflow == "hybrid")
    assert not hybrid.applicable
    md = render(continued, "markdown")
    rows = [line for line in md.splitlines() if line.startswith("| **Total**")]
    assert rows and rows[0].rstrip(" |").endswith("**n/a**")
    criteria = [line for line in md.splitlines() if line.startswith("| performance |")]
    assert criteria[0].rstrip(" |").endswith("n/a")
    assert "Hybrid does not apply (n/a, not a score)" in md
    table = render(continued, "table")
    total = next(line for line in table.splitlines() if line.startswith("total "))
    assert total.split()[-1] == "n/a" and "ruled out" not in total
    # nor is it offered as a route on the first page
    assert not any(r.startswith("Hybrid:") for r in continued.document.first_page.routes)


# --- cancelled runs ----------------------------------------------------------------------------------


def test_a_cancelled_probe_run_is_counted_apart_from_failures(ascend):
    from advisor.report import RunSummary
    from advisor.review.document import probe_counts

    def run(rid: str, status: str) -> RunSummary:
        return RunSummary(id=rid, framework="pytorch", hardware="cpu", status=status)

    report = ascend.model_copy(deep=True)
    report.probes = report.probes.model_copy(
        update={"runs": [run("a", "cancelled"), run("b", "failed"), run("c", "timeout"), run("d", "ok")]}
    )
    counts = probe_counts(report)
    assert (counts.cancelled, counts.failed, counts.usable) == (1, 2, 1)
    assert counts.cancelled_ids == ["a"] and counts.failed_ids == ["b", "c"]
    assert counts.text() == "4 probe runs: 1 usable, 2 failed, 1 cancelled"  # a count of none goes unsaid


# --- citations a reader can follow -------------------------------------------------------------------


def test_no_knowledge_base_file_cites_a_field_report_by_its_file_name():
    seed = re.compile(r"seeds/\d{3}_|\bseed \d{3}\b", re.IGNORECASE)
    for path in sorted((ROOT / "knowledge" / "data").glob("*.yaml")):
        hits = [n for n, line in enumerate(path.read_text().splitlines(), 1) if seed.search(line)]
        assert not hits, f"{path.name} lines {hits}"


def test_no_document_cites_a_field_report_by_its_file_name(ascend):
    for fmt in ("markdown", "html", "table"):
        text = render(ascend, fmt)
        assert "seeds/" not in text and not re.search(r"\bseed \d{3}\b", text), fmt


# --- the power pitfall bites owned hardware only -------------------------------------------------------


def test_the_power_pitfall_is_charged_only_for_owned_hardware(ascend, kb):
    assert ascend.requirements.constraints.compute_pricing == "cloud"
    assert "datacenter-power-planning" not in {p.id for p in ascend.pitfalls}
    req = ascend.requirements
    owned = req.model_copy(update={"constraints": req.constraints.model_copy(update={"compute_pricing": "owned"})})
    report = build_report(owned, Measurements(), kb=kb, created_at="2026-12-01T00:00:00Z")
    power = next(p for p in report.pitfalls if p.id == "datacenter-power-planning")
    assert "card power x cards" in power.fix and "datasheet" in power.fix


# --- one digest in every format ------------------------------------------------------------------------


def test_markdown_html_table_and_json_carry_the_same_digest(ascend):
    import json

    d = ascend.document.digest
    assert re.fullmatch(r"[0-9a-f]{16}", d.inputs) and re.fullmatch(r"[0-9a-f]{16}", d.result)
    data = json.loads(render(ascend, "json"))
    assert data["document"]["digest"] == {"inputs": d.inputs, "result": d.result}
    for fmt in ("markdown", "html", "table"):
        text = render(ascend, fmt)
        assert d.inputs in text and d.result in text, fmt


def test_the_digest_follows_the_inputs_and_result_not_the_timestamp(ascend, kb):
    from advisor.review.document import digest

    later = ascend.model_copy(update={"created_at": "2027-01-01T00:00:00Z"})
    assert digest(later) == ascend.document.digest
    req = ascend.requirements
    other = req.model_copy(update={"constraints": req.constraints.model_copy(update={"deadline_weeks": 30})})
    changed = build_report(other, Measurements(), kb=kb, created_at="2026-12-01T00:00:00Z")
    assert changed.document.digest.inputs != ascend.document.digest.inputs


# --- the workloads round in the document: tokens/s, the failure allowance, serving, the layout -----------

TEAMS = ROOT / "tests" / "fixtures" / "teams"


@pytest.fixture(scope="module")
def pretrain(kb):
    return _build(TEAMS / "llm-pretrain-910c.yaml", kb)


@pytest.fixture(scope="module")
def serving(kb):
    return _build(TEAMS / "inference-llm-product.yaml", kb)


def test_an_llm_projection_prints_tokens_per_second_and_its_failure_allowance(pretrain):
    md = render(pretrain, "markdown")
    p = next(p for p in pretrain.projections if p.workflow == pretrain.recommendation.workflow)
    assert p.tokens_per_second is not None and p.failure_allowance_hours is not None
    row = next(line for line in md.splitlines() if line.startswith("| PyTorch | pytorch-npu"))
    assert "tokens/s" in row
    allowance = [line for line in md.splitlines() if line.startswith("**Failure allowance**")]
    assert len(allowance) == 1
    low = p.failure_allowance_hours.low
    assert f"+{low:.3g}"[:4] in allowance[0] and f"{p.reliability.devices} devices" in allowance[0]


def test_the_chosen_layout_is_in_the_memory_table(pretrain):
    md = render(pretrain, "markdown")
    lay = next(m.layout for m in pretrain.memory if m.layout is not None)
    header = next(line for line in md.splitlines() if line.startswith("| Accelerator |"))
    assert "Layout chosen" in header
    assert f"TP {lay.tensor_parallel} x PP {lay.pipeline_parallel} x DP {lay.data_parallel}" in md


def test_a_serving_product_gets_a_serving_table_against_its_slo(serving):
    md = render(serving, "markdown")
    assert "| Workflow | Runtime |" in md
    table = md.split("| Workflow | Runtime |", 1)[1].split("\n\n", 1)[0]
    applicable = [s for s in serving.scores if s.applicable]
    for s in applicable:
        p = next(p for p in serving.projections if p.workflow == s.workflow)
        assert (
            f"| {s.workflow.replace('pytorch', 'PyTorch').replace('mindspore', 'MindSpore')} | {p.serving.runtime} |"
            in table
        )
    assert "Hybrid" not in table  # it does not apply to a product that trains nothing


def test_a_document_saved_before_1_2_still_reads(ascend):
    from advisor.review.document import FirstPage

    data = ascend.document.first_page.model_dump(mode="json")
    one = data["against"][0] if data["against"] else None
    old = dict(data, against=one)  # 1.1 held one reason against, or null
    assert FirstPage.model_validate(old).against == ([FirstPage.model_validate(data).against[0]] if one else [])
    assert FirstPage.model_validate(dict(data, against=None)).against == []


def test_no_risk_is_retired_on_one_card_when_the_model_needs_more(pretrain):
    from advisor.review.risks import min_slice

    least = min_slice(pretrain)
    assert least > 1
    reg = pretrain.document.risk_register
    milestones = {r.milestone for r in reg.risks + reg.also_known}
    assert "single card" not in milestones
    assert f"minimum slice ({least} devices)" in milestones


# --- length: a first page to read, a body to sign, appendices for the workings ---------------------------


@pytest.mark.parametrize("name", ["ascend-production", "prototype-then-ascend", "nvidia-research-team"])
def test_first_page_and_body_stay_within_their_length(kb, name):
    report = _build(ROOT / "examples" / f"{name}.yaml", kb)
    md = render(report, "markdown")
    first = md.split("\n## Recommendation\n", 1)[1].split("\n## ", 1)[0]
    body = md.split("\n## Appendix ", 1)[0]
    assert len(first.split()) <= 350, f"{name}: first page {len(first.split())} words"
    assert len(body.split()) <= 2500, f"{name}: body {len(body.split())} words"
    # what left the body is in an appendix, not gone
    for title in ("Risk register in full", "Data-quality caveats", "Sensitivity", "How each score was reached"):
        assert "## Appendix " in md and f". {title}\n" in md, title
