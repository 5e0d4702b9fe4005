"""The decision model's findings as codes worded by one catalogue (advisor.wording.catalogue): every code
the converted modules emit has an entry and every entry is emitted (both read from the source, not from
a list kept here); no sentence is left in a converted module; rewording the catalogue changes the
report's words and nothing the decision model computes."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from advisor.decision.findings import Finding, finding, said
from advisor.wording import CATALOGUE, word

ROOT = Path(__file__).resolve().parents[1]
# the modules whose findings are codes: each code starts with its module's prefix
CONVERTED = {
    "schedule": ROOT / "advisor" / "decision" / "schedule.py",
    "comm": ROOT / "advisor" / "decision" / "communication.py",
    "serving": ROOT / "advisor" / "decision" / "serving_capacity.py",
    "tco": ROOT / "advisor" / "decision" / "tco.py",
    "report": ROOT / "advisor" / "report.py",
    "proj": ROOT / "advisor" / "decision" / "projections.py",
    "mem": ROOT / "advisor" / "decision" / "memory.py",
    "gpt": ROOT / "advisor" / "decision" / "transformer_evidence.py",
    "conf": ROOT / "advisor" / "decision" / "confidence.py",
    "crit_common": ROOT / "advisor" / "decision" / "criteria" / "common.py",
    "crit_team": ROOT / "advisor" / "decision" / "criteria" / "team.py",
    "crit_cost": ROOT / "advisor" / "decision" / "criteria" / "cost.py",
    "crit_compliance": ROOT / "advisor" / "decision" / "criteria" / "compliance.py",
    "crit_ecosystem": ROOT / "advisor" / "decision" / "criteria" / "ecosystem.py",
    "crit_deployment": ROOT / "advisor" / "decision" / "criteria" / "deployment.py",
    "crit_performance": ROOT / "advisor" / "decision" / "criteria" / "performance.py",
    "crit_migration": ROOT / "advisor" / "decision" / "criteria" / "migration.py",
    "crit_scan_parts": ROOT / "advisor" / "decision" / "criteria" / "scan_parts.py",
    "serve": ROOT / "advisor" / "decision" / "serving.py",
    "deploy": ROOT / "advisor" / "decision" / "deployment.py",
    "score": ROOT / "advisor" / "decision" / "scoring.py",
    "prep": ROOT / "advisor" / "decision" / "prepare.py",
    "accuracy": ROOT / "advisor" / "decision" / "accuracy.py",
    "shape": ROOT / "advisor" / "decision" / "workload.py",
    "pipeline": ROOT / "advisor" / "decision" / "pipeline.py",
    "workflows": ROOT / "advisor" / "decision" / "workflows.py",
    "evaluate": ROOT / "advisor" / "decision" / "evaluate.py",
    "throughput": ROOT / "advisor" / "decision" / "throughput.py",
    "sensitivity": ROOT / "advisor" / "decision" / "sensitivity.py",
    "likelihood": ROOT / "advisor" / "decision" / "likelihood.py",
    "stack_routes": ROOT / "advisor" / "decision" / "stack_routes.py",
    "power": ROOT / "advisor" / "decision" / "power.py",
    "reliability": ROOT / "advisor" / "decision" / "reliability.py",
    "weights": ROOT / "advisor" / "decision" / "weights.py",
    # the review layer (its words in advisor/wording/review.py)
    "kbsens": ROOT / "advisor" / "review" / "kb_sensitivity.py",
    "risks": ROOT / "advisor" / "review" / "risks.py",
    "stack": ROOT / "advisor" / "review" / "stack.py",
    "review": ROOT / "advisor" / "review" / "document.py",
}
CODE = re.compile(r"^(%s)(\.[a-z0-9_]+)+$" % "|".join(CONVERTED))
# strings with spaces a converted module may keep: text it reads, never text it writes
READS = {
    "no nvlink",
    "single card",  # the pitfalls' rehearsal milestone (pitfalls.yaml)
    "edge SoC",  # the edge parts of a serving route's pins (routes.yaml)
    "edge CANN",
    "edge converter",
    "field report",  # a set value's source, read to class it
    "a tie",  # the confidence rule's steps, read to say each once on the review's first page
    ": the runs",  # where the probe note's reason ends
}


def _strings(path: Path) -> list[ast.AST]:
    return [
        n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, (ast.Constant, ast.JoinedStr))
    ]


def emitted(path: Path) -> set[str]:
    """Every finding code a module names (a code is a string literal shaped like one)."""
    return {
        n.value
        for n in _strings(path)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and CODE.match(n.value)
    }


def sentences(path: Path) -> list[tuple[int, str]]:
    """String literals that read as words written for a person (docstrings, schema descriptions and
    identifiers built by f-strings without spaces aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skip.add(id(node.value))  # a docstring, or an attribute's
        if isinstance(node, ast.keyword) and node.arg == "description":
            skip.update(id(sub) for sub in ast.walk(node.value))
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.JoinedStr):
            skip.update(id(sub) for sub in ast.walk(node))
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
            if " " in text.strip():
                out.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip()
            if " " in text and text not in READS:
                out.append((node.lineno, node.value))
    return out


def test_every_emitted_code_has_an_entry_and_every_entry_is_emitted():
    codes = set().union(*(emitted(p) for p in CONVERTED.values()))
    assert len(codes) > 80  # the scan finds the converted modules' codes (not an empty set matching nothing)
    assert sorted(codes - set(CATALOGUE)) == [], "codes without words in advisor/wording/catalogue.py"
    assert sorted(set(CATALOGUE) - codes) == [], "catalogue entries no converted module emits"
    for prefix, path in CONVERTED.items():
        own = {c for c in codes if c.split(".")[0] == prefix}
        assert own == emitted(path), f"{path.name} emits another module's codes"


@pytest.mark.parametrize("prefix", sorted(CONVERTED))
def test_no_sentence_left_in_a_converted_module(prefix):
    assert sentences(CONVERTED[prefix]) == []


def test_the_scans_see_what_they_look_for(tmp_path):
    # the two scans on a module that words a finding itself: they must not pass it
    bad = tmp_path / "bad.py"
    bad.write_text(
        'def f(x):\n    """A docstring is fine."""\n    return f"{x} devices cannot fit", "schedule.made_up"\n',
        encoding="utf-8",
    )
    assert [line for line, _ in sentences(bad)] == [3]
    assert emitted(bad) == {"schedule.made_up"}


def test_a_finding_is_a_code_with_numbers_and_the_catalogue_words_it():
    f = finding("schedule.migration_low_end_only", low=18.5, high=1380.0, allowed=1280.0)
    assert f == Finding("schedule.migration_low_end_only", {"low": 18.5, "high": 1380.0, "allowed": 1280.0})
    assert isinstance(f.params["high"], float)  # numbers stay numbers until the catalogue formats them
    assert str(f) == word(f) == "the migration fits only at the low end of its estimate (18.5-1380 h against 1280 h)"
    with pytest.raises(KeyError, match="no wording"):
        said("schedule.no_such_code")


def test_a_finding_inside_a_finding_is_worded_in_place():
    where = finding("comm.where", here=False, host="node-3")
    text = said("comm.measured_text", where=where, ranks=2, device="cpu", device_scaling=False)
    assert text == "measured on node-3 (2 ranks, CPU, contention)"


def test_the_catalogue_formats_numbers_with_advisor_numbers_not_scientific_notation():
    # what `:.3g` printed as 1.23e+03 reads as the formatter writes it
    assert said("serving.miss.rate", rps=1234.5, target=2000) == "1,230 requests/s < 2000"
    assert said("serving.miss.rate", rps=0.5, target=2) == "0.5 requests/s < 2"


def test_schedule_findings_carry_their_code_and_the_verdict_reads_the_code():
    from advisor.decision.schedule import schedule

    parts = [("port", 100.0, 400.0)]
    tight = schedule("pytorch", parts, team_size=2, deadline=1.0)
    assert (tight.fits, tight.finding_code) == ("no", "schedule.migration_past_deadline")
    assert tight.finding == "the migration cannot fit: at least 100 h against 40 h (50% of 2 x 40 h x 1 weeks)"
    training = schedule("pytorch", parts, team_size=2, deadline=20.0, training_hours=(168.0 * 30, 168.0 * 40))
    assert (training.fits, training.finding_code) == ("no", "schedule.training_past_deadline")
    # the code is the decision model's, not the JSON's: the report's schedule keys are as before
    assert "finding_code" not in tight.model_dump(mode="json")


def _skeleton(obj):
    """The report with every text that holds words blanked: what the decision model computed."""
    if isinstance(obj, dict):  # a digest hashes the words too
        return {k: "<hash>" if k == "digest" else _skeleton(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_skeleton(v) for v in obj]
    if isinstance(obj, str) and " " in obj:
        return "<words>"
    return obj


def _build(deadline_weeks: float):
    from advisor.measurements import Measured, Measurements
    from advisor.report import build_report
    from advisor.requirements import load_requirements
    from probes.scaling.models import ScalingResult
    from tests.document_examples import kb, suite

    req = load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml")
    req = req.model_copy(update={"constraints": req.constraints.model_copy(update={"deadline_weeks": deadline_weeks})})
    scaling = ScalingResult.model_validate_json(
        (ROOT / "tests" / "fixtures" / "scaling" / "scaling-2vcpu-lenet.json").read_text(encoding="utf-8")
    )
    measured = Measurements(probes={"training": Measured(suite()), "scaling": Measured(scaling)})
    return build_report(req, measured, kb=kb(), created_at="2026-12-01T00:00:00Z")


def test_rewording_the_catalogue_changes_the_words_and_nothing_the_model_computes(monkeypatch):
    from advisor.render import format as render

    before = _build(0.3)
    assert any(s.finding_code for s in before.schedules)  # the deadline is tight enough for a finding
    # rendered before the rewording: the renderers word some review text (citations) as they print
    plain = render(before, "markdown", kb=None)
    for code, entry in list(CATALOGUE.items()):
        monkeypatch.setitem(CATALOGUE, code, lambda p, entry=entry: "» " + entry(p))
    after = _build(0.3)
    old, new = before.model_dump(mode="json"), after.model_dump(mode="json")
    assert _skeleton(new) == _skeleton(old)
    assert [(s.fits, s.finding_code) for s in after.schedules] == [(s.fits, s.finding_code) for s in before.schedules]
    assert json.dumps(new) != json.dumps(old)
    markdown = render(after, "markdown", kb=None)
    assert "» the migration" in markdown or "» migration" in markdown or "» training" in markdown
    assert "» " not in plain


def test_the_deadline_block_reads_the_finding_code_not_its_words(monkeypatch):
    # a migration that cannot fit is blocked with the migration's own reason whatever the catalogue says
    from advisor.measurements import Measurements
    from advisor.report import build_report
    from advisor.requirements import load_requirements
    from tests.document_examples import kb

    entry = CATALOGUE["schedule.migration_past_deadline"]
    monkeypatch.setitem(CATALOGUE, "schedule.migration_past_deadline", lambda p: "» " + entry(p))
    req = load_requirements(ROOT / "tests" / "fixtures" / "teams" / "inference-llm-product.yaml")
    req = req.model_copy(update={"constraints": req.constraints.model_copy(update={"deadline_weeks": 0.15})})
    report = build_report(req, Measurements(), kb=kb(), created_at="2026-12-01T00:00:00Z")
    codes = {s.workflow: s.finding_code for s in report.schedules}
    assert "schedule.migration_past_deadline" in codes.values()
    blocks = [b for s in report.scores for b in s.blocked_by if b.startswith("constraints.deadline_weeks=")]
    assert blocks and all("migration needs at least" in b and "»" not in b for b in blocks), blocks


def test_the_serving_verdict_reads_the_finding_code_not_its_words(monkeypatch):
    # fp8 on a device without FP8 tensor cores cannot be served, whatever the catalogue calls it
    from advisor.decision.serving_capacity import judge
    from advisor.requirements import load_requirements
    from tests.document_examples import kb

    monkeypatch.setitem(CATALOGUE, "serving.precision.no_fp8", lambda p: f"no FP8 on the {p.accelerator}")
    req = load_requirements(ROOT / "tests" / "fixtures" / "teams" / "inference-llm-product.yaml")
    req = req.model_copy(update={"serving": req.serving.model_copy(update={"quantization": "fp8"})})
    judged = judge(req, kb().get("ascend-910b", "accelerators"), 8, None)
    assert (judged.verdict, judged.devices_needed) == ("cannot", None)
    assert judged.reason.startswith("no FP8 on the ")


def _entry_params() -> dict[str, set[str]]:
    """The parameters each catalogue entry reads (`p.name`, also inside the helpers it passes `p` to), in
    every module of the wording package (catalogue.py merges them)."""
    trees = [
        ast.parse(path.read_text(encoding="utf-8")) for path in sorted((ROOT / "advisor" / "wording").glob("*.py"))
    ]
    helpers = {f.name: f for tree in trees for f in tree.body if isinstance(f, ast.FunctionDef)}

    def reads(node: ast.AST, seen: frozenset[str] = frozenset()) -> set[str]:
        out = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and getattr(n.value, "id", None) == "p"}
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)):
            name = call.func.id
            if name in helpers and name not in seen and any(getattr(a, "id", None) == "p" for a in call.args):
                out |= reads(helpers[name], seen | {name})
        return out

    entries = {}
    for d in (n for tree in trees for n in ast.walk(tree) if isinstance(n, ast.Dict)):
        for k, v in zip(d.keys, d.values):
            if isinstance(k, ast.Constant) and isinstance(k.value, str) and CODE.match(k.value):
                if isinstance(v, ast.Call) and getattr(v.func, "id", None) == "_stated":
                    entries[k.value] = {"stated", "source"}
                else:
                    entries[k.value] = reads(v)
    return entries


def test_every_call_passes_the_parameters_its_entry_reads():
    entries = _entry_params()
    assert set(entries) == set(CATALOGUE)
    checked = 0
    for path in CONVERTED.values():
        for call in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) in ("said", "finding")):
                continue
            code = call.args[0]
            if not isinstance(code, ast.Constant) or any(k.arg is None for k in call.keywords):
                continue  # a code chosen at run time, or parameters spread from a mapping: the examples word them
            given = {k.arg for k in call.keywords}
            missing = entries[code.value] - given
            assert not missing, f"{path.name}:{call.lineno} {code.value} lacks {sorted(missing)}"
            checked += 1
    assert checked > 90


def test_the_wording_package_is_a_leaf():
    # the decision model imports it, so it imports nothing of the tool but the number formatter
    allowed = {"advisor.numbers", "advisor.wording", "advisor.wording.catalogue", "advisor.wording.review"}
    for path in (ROOT / "advisor" / "wording").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            ours = [n for n in names if n.split(".")[0] in ("advisor", "knowledge", "probes", "tui")]
            assert set(ours) <= allowed, f"{path.name} imports {ours}"


def test_the_cost_model_selects_the_projections_price_and_power_evidence_by_reference_not_words(monkeypatch):
    # the compute part cites the projection's price, the energy part its fleet power, whatever their words
    from advisor.measurements import Measurements
    from advisor.report import build_report
    from advisor.requirements import load_requirements
    from tests.document_examples import kb

    req = load_requirements(ROOT / "examples" / "ascend-production.yaml")

    def cited():
        report = build_report(req, Measurements(), kb=kb(), created_at="2026-12-01T00:00:00Z")
        parts = [(c.workflow, p.name, e.ref, e.detail) for c in report.costs for p in c.parts for e in p.evidence]
        return {(w, n, ref) for w, n, ref, _ in parts if n in ("compute", "energy")}, parts

    before, _ = cited()
    assert {n for _, n, _ in before} == {"compute", "energy"}  # the example cites both
    monkeypatch.setitem(CATALOGUE, "proj.evidence.price", lambda p: f"price of {p.accelerator}")
    monkeypatch.setitem(CATALOGUE, "proj.evidence.power", lambda p: f"power of the fleet: {p.basis}")
    after, parts = cited()
    assert after == before
    assert any(d.startswith("price of ") for _, n, _, d in parts if n == "compute")
    assert any(d.startswith("power of the fleet") for _, n, _, d in parts if n == "energy")


def test_the_scan_roles_are_read_by_field_not_by_their_words(monkeypatch):
    # the migration note and the markdown scan section name each role from its field, whatever its part says
    from advisor.measurements import Measurements
    from advisor.render import format as render
    from advisor.report import build_report
    from advisor.requirements import parse_requirements
    from advisor.scan import scan_path
    from tests.document_examples import kb

    import yaml

    fix = ROOT / "tests" / "fixtures" / "report"
    doc = yaml.safe_load((fix / "with-code.yaml").read_text(encoding="utf-8"))
    req = parse_requirements({**doc, "model": {**doc["model"], "code_path": str(fix / "code")}})
    scan = scan_path(str(fix / "code"), kb=kb())
    monkeypatch.setitem(CATALOGUE, "crit_scan_parts.role", lambda p: f"re-implement the {p.role} code")
    report = build_report(req, Measurements(scan=scan), kb=kb(), created_at="2026-12-01T00:00:00Z")
    hybrid = next(s for s in report.schedules if s.workflow == "hybrid")
    assert "re-implement the training code" in {p.name for p in hybrid.phases}
    criteria = next(s for s in report.scores if s.workflow == "hybrid").criteria
    note = next(c.note for c in criteria if c.name == "migration")
    assert "port by role (code scan): training " in note
    markdown = render(report, "markdown", kb=None)
    assert "role by role (each role's range scaled so the roles add up to the scan's total): training " in markdown


def test_the_placement_and_the_assumed_chip_are_read_by_field_not_by_their_words(monkeypatch):
    # the route choice names the placement, and the verdict steps down for a block on an assumed chip,
    # whatever the catalogue calls them (they were found by 'placed on ' and 'assumed' in the notes)
    from advisor.measurements import Measurements
    from advisor.report import build_report
    from advisor.requirements import load_requirements, parse_requirements
    from tests.document_examples import kb

    import yaml

    monkeypatch.setitem(CATALOGUE, "prep.placed", lambda p: f"» put on {p.where}")
    monkeypatch.setitem(CATALOGUE, "workflows.assumed_chip", lambda p: f"» stand-in {p.chip}")
    teams = ROOT / "tests" / "fixtures" / "teams"
    bank = build_report(load_requirements(teams / "two-fleets-bank.yaml"), Measurements(), kb=kb())
    placed = [s.route.placement for s in bank.scores if s.route is not None and s.route.placement]
    assert len(placed) == 3 and all(p.startswith("» put on ") for p in placed), placed
    doc = yaml.safe_load((teams / "government-tender.yaml").read_text(encoding="utf-8"))
    doc["hardware"].pop("accelerator", None)
    tender = build_report(parse_requirements(doc), Measurements(), kb=kb())
    parts = tender.recommendation.confidence_parts
    assert parts.decided_by == "hard-constraint"
    assert [s for s in parts.steps if s.endswith(": » stand-in Huawei Ascend 910B (64 GiB: 910B1/B2/B2C/B3)")], (
        parts.steps
    )
