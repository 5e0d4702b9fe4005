"""QA regressions for report, compare, requirements, scoring and renderers: each test pins one bug
found by exercising the CLI as a new user would (bad input that crashed, notes that did not add up)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@pytest.fixture(autouse=True)
def no_probe_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    import probes.training.runner

    def refuse(*args, **kwargs):
        raise AssertionError("a QA test ran the probes")

    monkeypatch.setattr(probes.training.runner, "run_suite", refuse)


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def report_doc():
    """One real report (JSON) built without the CLI's host check, shared by the compare tests."""
    from advisor.report import build_report
    from advisor.measurements import Measurements
    from advisor.requirements import load_requirements
    import knowledge

    req = load_requirements(EXAMPLES / "ascend-production.yaml")
    return json.loads(
        build_report(req, Measurements(), kb=knowledge.load(), created_at="2026-01-01T00:00:00Z").model_dump_json()
    )


@pytest.mark.parametrize("field, value", [("recommendation", 5), ("recommendation", {"x": 1}), ("scores", {"a": 1})])
def test_compare_rejects_a_malformed_report_as_bad_input(tmp_path, capsys, report_doc, field, value):
    old = tmp_path / "old.json"
    old.write_text(json.dumps(report_doc))
    bad = dict(report_doc, **{field: value})
    new = tmp_path / "new.json"
    new.write_text(json.dumps(bad))
    out_file = tmp_path / "diff.txt"
    code, out, err = run_cli(capsys, "compare", old, new, "-o", out_file)
    assert code == 2, err
    assert err.count("\n") == 1 and f"{new}: {field}: expected" in err and "Traceback" not in err
    assert not out_file.exists() and out == ""


@pytest.mark.parametrize("example", ["ascend-production", "prototype-then-ascend"])
def test_compliance_note_names_every_deduction(example):
    """The note's terms must add up to the score a reviewer sees (hybrid 95 read as 100 before)."""
    import re

    from advisor.decision.scoring import score
    from advisor.requirements import load_requirements
    import knowledge

    card = score(load_requirements(EXAMPLES / f"{example}.yaml"), None, [], knowledge.load(), None)
    for wf in card.scores:
        c = next(c for c in wf.criteria if c.name == "compliance")
        hw, fw, dep = (float(x) for x in re.findall(r"(\d+(?:\.\d+)?) x0\.[34]", c.note))
        total = 100 * (0.4 * hw + 0.3 * fw + 0.3 * dep) - sum(
            float(x) for x in re.findall(r"; -(\d+(?:\.\d+)?) ", c.note)
        )
        assert c.score == pytest.approx(max(0.0, total)), (wf.workflow, c.note)


SKIPPED_PARITY = {
    "model": "lenet",
    "ok": False,
    "status": "unavailable",
    "max_abs_diff": None,
    "checks": [],
    "error": "parity needs both PyTorch and MindSpore installed and requested",
    "likely_cause": None,
}


def test_markdown_parity_not_compared_is_not_a_mismatch():
    from advisor.render.markdown import parity_text

    from probes.training.models import ParityResult

    skipped = ParityResult.model_validate(SKIPPED_PARITY)
    assert parity_text(skipped).startswith("not compared (unavailable): parity needs both")
    real = {
        "model": "lenet",
        "ok": True,
        "status": "ok",
        "max_abs_diff": 2.9802322387695312e-08,
        "checks": [{"name": "logits", "metric": "max_abs", "value": 3e-8, "tolerance": 1e-4, "ok": True}],
    }
    assert parity_text(ParityResult.model_validate(real)) == "max abs diff 3 × 10⁻⁸ (ok)"  # no scientific notation
    assert "MISMATCH" in parity_text(ParityResult.model_validate(dict(real, ok=False)))


def test_tui_parity_not_compared_is_not_a_mismatch():
    from tui.screens.probes import parity_text

    from probes.training.models import ParityResult

    text = parity_text([ParityResult.model_validate(SKIPPED_PARITY)]).plain
    assert "MISMATCH" not in text and "not compared (unavailable)" in text


def test_probe_note_when_no_run_succeeded():
    """'probes ran on no hardware' was the note when every run was unavailable."""
    from advisor.report import build_report
    from advisor.measurements import Measured, Measurements
    from advisor.requirements import load_requirements
    from probes.training.models import ProbeSuite
    import knowledge

    suite = ProbeSuite.model_validate(
        {
            "schema_version": "1.0",
            "created": "2026-11-30T15:29:25+00:00",
            "host": {"cpu_model": "AMD EPYC"},
            "runs": [
                {
                    "id": "pytorch-eager-lenet-bs32",
                    "framework": "pytorch",
                    "mode": "eager",
                    "model": "lenet",
                    "batch_size": 32,
                    "device": "npu",
                    "status": "unavailable",
                    "error": "pytorch cannot use an Ascend NPU on this host",
                }
            ],
        }
    )
    report = build_report(
        load_requirements(EXAMPLES / "ascend-production.yaml"),
        Measurements(probes={"training": Measured(suite)}),
        kb=knowledge.load(),
    )
    assert report.probes.note.startswith("no probe run succeeded (1 unavailable)")
    assert "no hardware" not in report.probes.note


def _req_with(tmp_path, old: str, new: str) -> Path:
    text = (EXAMPLES / "prototype-then-ascend.yaml").read_text()
    assert old in text
    path = tmp_path / "req.yaml"
    path.write_text(text.replace(old, new))
    return path


def test_accelerator_of_another_kind_than_the_training_target_is_bad_input(tmp_path, capsys):
    """An A100 with training_target ascend was silently replaced by an assumed Ascend 910 before."""
    req = _req_with(tmp_path, "accelerator: Ascend 910B", "accelerator: A100 80GB")
    out_file = tmp_path / "r.json"
    code, out, err = run_cli(capsys, "report", req, "--no-cache", "-o", out_file)
    assert code == 2 and not out_file.exists() and out == ""
    assert err.count("\n") == 1
    assert (
        f"{req}: hardware.accelerator: 'A100 80GB' is an NVIDIA accelerator but hardware.training_target is ascend"
        in err
    )
    assert "ascend-910b" in err


def test_scaling_file_given_to_probes_says_to_use_scaling(tmp_path, capsys):
    scaling = ROOT / "tests" / "fixtures" / "scaling" / "scaling-2vcpu-lenet.json"
    code, out, err = run_cli(capsys, "report", EXAMPLES / "prototype-then-ascend.yaml", "--probes", scaling)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "pass it with --scaling FILE" in err


def test_bad_scaling_file_is_the_only_stderr_line_even_with_a_cache(tmp_path, capsys, monkeypatch):
    """The cache note used to be printed before the --scaling error."""
    import advisor.commands.report as cmd

    monkeypatch.setattr(cmd, "cached_probes", lambda: type("Suite", (), {"created": "2026-11-30"})())
    bad = tmp_path / "s.json"
    bad.write_text("{}")
    code, out, err = run_cli(capsys, "report", EXAMPLES / "prototype-then-ascend.yaml", "--scaling", bad)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("advisor: error: ") and "kind" in err


def test_exponent_numbers_in_yaml_are_numbers(tmp_path):
    """PyYAML reads `1e3` as a string; a requirements file must take it as 1000."""
    from advisor.requirements import load_requirements
    from advisor.errors import UsageError

    req = load_requirements(_req_with(tmp_path, "parameters_millions: 11.7", "parameters_millions: 1.17e1"))
    assert req.model.parameters_millions == pytest.approx(11.7)
    req = load_requirements(_req_with(tmp_path, "parameters_millions: 11.7", "parameters_millions: 1e3"))
    assert req.model.parameters_millions == 1000.0
    with pytest.raises(UsageError, match=r"workload.dataset_samples: expected a valid integer \(got float 500000.0\)"):
        load_requirements(_req_with(tmp_path, "dataset_samples: 500000", "dataset_samples: 5e5"))
    assert load_requirements(_req_with(tmp_path, "name: Retail shelf recognition", "name: v1e3")).name == "v1e3"


def test_table_weight_total_reads_1_00(report_doc):
    from advisor.render import render
    from advisor.report import Report

    text = render(Report.model_validate(report_doc), "table")
    total = next(line for line in text.splitlines() if line.startswith("total"))
    assert total.split()[1] == "1.00" and "(ruled out)" in total


def test_score_notes_do_not_print_degenerate_or_over_rounded_ranges():
    """'39,011-39,011 images/s', '0-0 h' and '$1-5' for $1.37-5.47 read as mistakes to a reviewer."""
    from advisor.numbers import range_text as _range_text

    assert _range_text(39011.2, 39011.4, "images/s") == "39,011 images/s"
    assert _range_text(0, 0, "h") == "0 h"
    assert _range_text(1.37, 5.47, prefix="$") == "$1.37-5.47"
    assert _range_text(42668.2, 48764.0, "images/s") == "42,668-48,764 images/s"


def test_one_device_read_off_multi_device_references_says_so(tmp_path):
    """A 1-device projection is an 8-device reference / 8 (loss included) while the report said
    'one device: no communication loss': the note makes the direction of the bias explicit."""
    from advisor.decision.projections import project
    from advisor.requirements import load_requirements
    import knowledge

    req = load_requirements(_req_with(tmp_path, "devices: 8", "devices: 1"))
    proj = project("mindspore", req, knowledge.load(), [])
    assert proj.basis == "reference" and proj.devices == 1
    assert any("8-device references, which include their communication loss" in n for n in proj.notes)
    eight = project("mindspore", load_requirements(EXAMPLES / "prototype-then-ascend.yaml"), knowledge.load(), [])
    assert not any("one device may run" in n for n in eight.notes)


def test_tiny_workload_is_not_projected_from_flops(tmp_path):
    """LeNet on 8 Ascend cards was projected at ~200 million img/s by FLOP-scaling ResNet-50 references."""
    from advisor.decision.projections import project
    from advisor.requirements import load_requirements
    import knowledge

    req = load_requirements(_req_with(tmp_path, "model: resnet18", "model: lenet"))
    for wf in ("pytorch", "mindspore", "hybrid"):
        proj = project(wf, req, knowledge.load(), [])
        assert proj.images_per_second is None and proj.basis == "none", (wf, proj.images_per_second)
        assert "too few to project" in proj.basis_detail
    resnet = project("mindspore", load_requirements(EXAMPLES / "prototype-then-ascend.yaml"), knowledge.load(), [])
    assert resnet.basis == "reference" and resnet.images_per_second.high < 1e6


def test_probe_run_on_another_accelerator_is_not_a_measurement_of_the_target(tmp_path):
    """probes-h200.json was read as 'measured' for an A10 x8 target (about 4x too fast)."""
    from advisor.commands.report import load_probe_file
    from advisor.decision.projections import project
    from advisor.requirements import load_requirements
    import knowledge

    fix = ROOT / "tests" / "fixtures" / "report"
    suite = load_probe_file(str(fix / "probes-h200.json"))
    text = (fix / "h200-team.yaml").read_text()
    same = load_requirements(fix / "h200-team.yaml")
    proj = project("pytorch", same, knowledge.load(), [suite])
    assert proj.basis == "measured" and "on h200 (host " in proj.basis_detail
    other = tmp_path / "a10.yaml"
    other.write_text(text.replace("accelerator: NVIDIA H200, devices: 1", "accelerator: A10, devices: 8"))
    proj = project("pytorch", load_requirements(other), knowledge.load(), [suite])
    assert proj.basis != "measured"
    assert any("probe runs on h200 not used as measurements: the target accelerator is a10" in n for n in proj.notes)


def test_markdown_shows_the_code_scan_the_migration_scores_cite(capsys):
    fix = ROOT / "tests" / "fixtures" / "report"
    code, out, err = run_cli(capsys, "report", fix / "with-code.yaml", "--no-cache", "--markdown")
    assert code == 0, err
    section = out.split(". Migration scan of model.code_path\n", 1)[1].split("\n## ", 1)[0]
    assert "Python file(s)" in section and "risk **low**" in section and "| cuda_amp | 2 | low |" in section
    code, out, err = run_cli(capsys, "report", EXAMPLES / "prototype-then-ascend.yaml", "--no-cache", "--markdown")
    assert "Migration scan of model.code_path" not in out


def test_probe_file_of_this_host_replaces_the_cache_instead_of_doubling_runs(capsys, monkeypatch):
    """`--probes FILE` measured here, plus the cache, listed every run twice under the same id."""
    import advisor.commands.report as cmd

    fix = ROOT / "tests" / "fixtures" / "report"
    cached = cmd.load_probe_file(str(fix / "probes-cpu.json"))
    monkeypatch.setattr(cmd, "cached_probes", lambda: cached)
    monkeypatch.setattr(cmd, "collect_host", lambda: None)
    code, out, err = run_cli(capsys, "report", fix / "cpu-team.yaml", "--probes", fix / "probes-cpu.json")
    assert code == 0, err
    ids = [r["id"] for r in json.loads(out)["probes"]["runs"]]
    assert len(ids) == len(set(ids)) and "measures this host" in err


def test_markdown_wording_nits(report_doc):
    """'a 8-point margin'; 'requirement:deployment.targets' cited twice for one score."""
    from advisor.render import render
    from advisor.report import Report

    text = render(Report.model_validate(report_doc), "markdown")
    assert "a 8-point" not in text and "high from a margin of 8 points" in text
    for line in text.splitlines():
        if line.startswith("- ") and line.endswith("]") and " [" in line:
            refs = line.rsplit(" [", 1)[1].rstrip("]").split(", ")
            assert len(refs) == len(set(refs)), line
