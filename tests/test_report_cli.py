"""`advisor report` and `advisor compare` end to end through advisor.cli.main: the JSON contract, the
Markdown review document, probe files in their real format (tests/fixtures/report), determinism,
atomic output, the committed JSON Schema, and the quick `make run` path."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.report import Report, build_report
from advisor.measurements import Measured, Measurements
from advisor.requirements import load_requirements

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures" / "report"
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    """Keep the user's probe cache out of the tests, and fail loudly if a probe would run."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    import probes.training.runner

    def no_probes(*args, **kwargs):
        raise AssertionError("the report ran the probes without --run-probes")

    monkeypatch.setattr(probes.training.runner, "run_suite", no_probes)


def run_cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_make_run_path_runs_no_probes_and_prints_every_section(capsys):
    """How long it takes is for a benchmark to print, not a test to assert; here: no probe runs (the
    fixture fails the test if one does) and the whole document comes out."""
    code, out, err = run_cli(capsys, "report", str(EXAMPLE), "--markdown")
    assert code == 0, err
    assert out.startswith("# Framework advice: Retail shelf recognition")
    for heading in (
        "## Recommendation",
        ". Scores\n",
        ". Projections for the workload\n",
        ". Measured runs\n",
        "### Throughput per framework and mode",
        ". Risk register for",
        ". Sensitivity\n",
        ". Assumptions\n",
    ):
        assert heading in out
    assert "| Criterion | Weight | PyTorch | MindSpore | Hybrid |" in out
    assert "**Hybrid**" in out


def test_json_contract(capsys):
    code, out, err = run_cli(capsys, "report", str(EXAMPLE), "--json")
    assert code == 0, err
    doc = json.loads(out)
    for key in (
        "schema_version",
        "tool",
        "created_at",
        "knowledge_base",
        "requirements",
        "host",
        "probes",
        "recommendation",
        "scores",
        "projections",
        "pitfalls",
        "sensitivity",
        "assumptions",
    ):
        assert key in doc, key
    assert doc["tool"]["name"] == "framework-advisor" and doc["tool"]["version"]
    assert doc["knowledge_base"]["version"]
    rec = doc["recommendation"]
    # PyTorch through torch_npu (prototype on NVIDIA, no port), at low confidence
    assert rec["workflow"] == "pytorch" and rec["confidence"] in ("high", "medium", "low")
    assert {"margin", "summary", "reasons"} <= set(rec)
    assert [s["workflow"] for s in doc["scores"]] == ["pytorch", "mindspore", "hybrid"]
    for s in doc["scores"]:
        assert {"workflow", "total", "eligible", "blocked_by", "criteria"} <= set(s)
        assert 0 <= s["total"] <= 100
        for c in s["criteria"]:
            assert {"name", "weight", "score", "evidence"} <= set(c) and c["evidence"]
            assert all(e["kind"] in ("measured", "knowledge", "requirement") for e in c["evidence"])
    assert doc["requirements"]["name"] == "Retail shelf recognition"
    assert doc["probes"]["source"] == "none"
    # JSON is the default; the document validates back into the model.
    code, out2, _ = run_cli(capsys, "report", str(EXAMPLE))
    assert json.loads(out2)["scores"] == doc["scores"]
    Report.model_validate_json(out)


def test_same_inputs_same_report_apart_from_timestamp(capsys, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for target in (a, b):
        code, out, err = run_cli(
            capsys, "report", str(EXAMPLE), "--probes", str(FIX / "probes-cpu.json"), "-o", str(target)
        )
        assert code == 0 and out == "", err
        time.sleep(1.01)  # a different created_at second
    da, db = json.loads(a.read_text()), json.loads(b.read_text())
    assert da.pop("created_at") != db.pop("created_at")
    assert da == db
    # The builder itself: byte-identical with a fixed timestamp.
    req = load_requirements(EXAMPLE)
    import knowledge

    kb = knowledge.load()
    one = build_report(req, Measurements(), kb=kb, created_at="2026-01-01T00:00:00Z").model_dump_json()
    two = build_report(req, Measurements(), kb=kb, created_at="2026-01-01T00:00:00Z").model_dump_json()
    assert one == two


def test_probe_files_enter_the_score_when_they_match_the_target(capsys):
    code, out, err = run_cli(capsys, "report", str(FIX / "cpu-team.yaml"), "--probes", str(FIX / "probes-cpu.json"))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["probes"]["source"] == "files" and len(doc["probes"]["runs"]) == 8
    assert doc["comparison_basis"] == "measured"
    proj = {p["workflow"]: p for p in doc["projections"]}
    assert proj["pytorch"]["basis"] == "measured"
    perf = next(c for c in doc["scores"][0]["criteria"] if c["name"] == "performance")
    measured = [e for e in perf["evidence"] if e["kind"] == "measured"]
    assert measured and measured[0]["ref"] == "pytorch-compile-resnet18-bs32" and measured[0]["ci95"]
    # The same runs for an Ascend target are shown but do not enter the score.
    code, out, _ = run_cli(capsys, "report", str(EXAMPLE), "--probes", str(FIX / "probes-cpu.json"))
    doc = json.loads(out)
    assert doc["comparison_basis"] != "measured" and "do not enter the performance score" in doc["probes"]["note"]


def test_markdown_has_seed_style_run_table_and_chart(capsys):
    code, out, err = run_cli(
        capsys, "report", str(FIX / "cpu-team.yaml"), "--probes", str(FIX / "probes-cpu.json"), "--markdown"
    )
    assert code == 0, err
    assert "| Metric | pytorch eager lenet bs32 |" in out
    for row in (
        "| Throughput (img/s) |",
        "| Step time, median (ms) |",
        "| First step, incl. compile (s) |",
        "| Peak memory (MB) |",
        "| Compile overhead (s) |",
    ):
        assert row in out
    assert "timeout: no steady state" in out
    chart = out.split("### Throughput per framework and mode")[1].split("\n## ")[0]
    assert "resnet18 on cpu" in chart and "lenet on cpu" in chart
    bars = [line for line in chart.splitlines() if "█" in line]
    assert len(bars) == 7  # every ok run, none for the timed-out one
    assert bars[0].startswith("pytorch eager") and bars[0].count("█") == 40  # the fastest lenet run is full width


def test_measured_difference_inside_the_noise_lowers_confidence():
    import knowledge

    from advisor.commands.report import load_probe_file
    from advisor.requirements import parse_requirements

    req = parse_requirements(
        {
            "name": "noise",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "expert", "size": 4},
            "hardware": {
                "available": ["ascend"],
                "training_target": "ascend",
                "accelerator": "Ascend 910B",
                "devices": 1,
            },
            "deployment": {"targets": ["cpu-server"]},
            "workload": {
                "model": "resnet18",
                "dataset_samples": 50000,
                "epochs": 2000,
            },  # long enough that the measured gap moves the schedule (a short run decides nothing)
            "weights": {
                "performance": 1,
                "team": 1,
                "cost": 0,
                "ecosystem": 0,
                "migration": 0,
                "deployment": 0,
                "debugging": 0,
                "compliance": 0,
            },
        }
    )
    suite = load_probe_file(str(FIX / "probes-ascend.json"))
    report = build_report(req, Measurements(probes={"training": Measured([suite])}), kb=knowledge.load())
    rec = report.recommendation
    assert report.comparison_basis == "measured"
    assert rec.workflow == "mindspore" and rec.runner_up == "pytorch"
    assert rec.inside_noise and rec.confidence == "low"
    assert any("inside the noise" in r for r in rec.reasons)


def test_table_format_and_output_file_is_atomic(capsys, tmp_path):
    target = tmp_path / "report.txt"
    code, out, err = run_cli(capsys, "report", str(EXAMPLE), "--table", "-o", str(target))
    assert code == 0 and out == "", err
    text = target.read_text()
    assert "criterion" in text and "Hybrid" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "report.txt"] or sorted(
        p.name for p in tmp_path.iterdir()
    ) == ["report.txt"]


def test_markdown_and_json_are_exclusive(capsys):
    code, _, err = run_cli(capsys, "report", str(EXAMPLE), "--markdown", "--json")
    assert code == 2 and "not allowed with" in err and len(err.strip().splitlines()) == 1


def test_bad_kb_dir_is_bad_input(capsys, tmp_path):
    code, _, err = run_cli(capsys, "report", str(EXAMPLE), "--kb", str(tmp_path / "missing"))
    assert code == 2 and "--kb" in err


def test_report_without_knowledge_base_still_renders():
    req = load_requirements(ROOT / "examples" / "ascend-production.yaml")
    report = build_report(req, Measurements(), kb=None, created_at="2026-01-01T00:00:00Z")
    from advisor.render import render

    md = render(report, "markdown")
    assert "knowledge base not loaded" in md
    assert json.loads(render(report, "json"))["knowledge_base"]["version"] is None


def test_compare_shows_what_changed(capsys, tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert main(["report", str(EXAMPLE), "-o", str(old)]) == 0
    changed = tmp_path / "changed.yaml"
    changed.write_text(
        EXAMPLE.read_text()
        .replace("domestic_substitution: preferred", "domestic_substitution: required")
        .replace("pytorch: proficient", "pytorch: none")
    )
    assert main(["report", str(changed), "-o", str(new)]) == 0
    capsys.readouterr()
    code, out, err = run_cli(capsys, "compare", str(old), str(new))
    assert code == 0, err
    assert "recommendation CHANGED: pytorch -> mindspore" in out
    assert "requirements.needs.domestic_substitution: preferred -> required" in out
    assert "scores[pytorch].eligible: true -> false" in out
    code, out, _ = run_cli(capsys, "compare", str(old), str(old), "--json")
    doc = json.loads(out)
    assert doc["changes"] == [] and doc["recommendation_changed"] is False
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": "1.0"}')
    code, _, err = run_cli(capsys, "compare", str(old), str(bad))
    assert code == 2 and "recommendation" in err and len(err.strip().splitlines()) == 1


def _fixture_suite_for_this_host():
    from advisor.cache import host_fingerprint
    from advisor.commands.report import load_probe_file

    suite = load_probe_file(str(FIX / "probes-cpu.json"))
    return suite.model_copy(update={"host": suite.host.model_copy(update={"fingerprint": host_fingerprint()})})


def test_cached_probes_are_used_unless_no_cache(capsys):
    from advisor.cache import save_probes

    save_probes(_fixture_suite_for_this_host())
    code, out, err = run_cli(capsys, "report", str(FIX / "cpu-team.yaml"))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["probes"]["source"] == "cache" and doc["comparison_basis"] == "measured"
    code, out, _ = run_cli(capsys, "report", str(FIX / "cpu-team.yaml"), "--no-cache")
    doc = json.loads(out)
    assert doc["probes"]["source"] == "none" and doc["probes"]["runs"] == []


def test_the_report_names_every_cached_run_it_used(capsys):
    """A document that rests on the host's cache says which runs, from when, from where, by what."""
    from advisor.cache import save_probes

    suite = _fixture_suite_for_this_host()
    save_probes(suite, command="advisor probe --budget 60")
    code, out, err = run_cli(capsys, "report", str(FIX / "cpu-team.yaml"), "--json")
    assert code == 0, err
    used = json.loads(out)["cached_runs"]
    assert {r["id"] for r in used} == {r.id for r in suite.runs}
    assert all(r["kind"] == "probes" and r["date"] and r["host"] == suite.host.fingerprint for r in used)
    assert {r["command"] for r in used} == {"advisor probe --budget 60"}
    code, md, _ = run_cli(capsys, "report", str(FIX / "cpu-team.yaml"), "--markdown")
    assert f"- probes `{suite.runs[0].id}`: measured " in md and "by `advisor probe --budget 60`" in md
    code, out, _ = run_cli(capsys, "report", str(FIX / "cpu-team.yaml"), "--json", "--no-cache")
    assert json.loads(out)["cached_runs"] == []


def test_run_probes_measures_and_caches(capsys, monkeypatch):
    # Running the real suite takes minutes; the runner (another part, tested on its own) is replaced
    # by one that returns the real-format fixture, to check the wiring: called once, result used and cached.
    import probes.training.runner

    from advisor.cache import load_cached_probes

    calls = []

    def fake_run_suite(config, on_event=None, cancel=None):
        calls.append(config)
        return _fixture_suite_for_this_host()

    monkeypatch.setattr(probes.training.runner, "run_suite", fake_run_suite)
    code, out, err = run_cli(capsys, "report", str(FIX / "cpu-team.yaml"), "--run-probes")
    assert code == 0, err
    assert len(calls) == 1 and json.loads(out)["probes"]["source"] == "run"
    assert load_cached_probes() is not None


def test_code_path_is_scanned_into_the_migration_criterion(capsys, tmp_path):
    code, out, err = run_cli(capsys, "report", str(FIX / "with-code.yaml"))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["scan"] and doc["scan"]["hazards"]
    for s in doc["scores"]:
        migration = next(c for c in s["criteria"] if c["name"] == "migration")
        refs = [e["ref"] for e in migration["evidence"]]
        assert ("model.code_path" in refs) == (s["workflow"] in ("mindspore", "hybrid")), (s["workflow"], refs)
    missing = tmp_path / "missing-code.yaml"
    missing.write_text((FIX / "with-code.yaml").read_text().replace("code_path: code", "code_path: no-such-folder"))
    code, _, err = run_cli(capsys, "report", str(missing))
    assert code == 2 and "model.code_path" in err and len(err.strip().splitlines()) == 1


def test_real_h200_probes_give_a_measured_nvidia_projection(capsys):
    # probes-h200.json was measured on an H200 (see tests/fixtures/report/README.md).
    code, out, err = run_cli(capsys, "report", str(FIX / "h200-team.yaml"), "--probes", str(FIX / "probes-h200.json"))
    assert code == 0, err
    doc = json.loads(out)
    pt = next(p for p in doc["projections"] if p["workflow"] == "pytorch")
    assert pt["basis"] == "measured" and pt["path"] == "pytorch-cuda"
    run = json.loads((FIX / "probes-h200.json").read_text())["runs"]
    fastest = max((r for r in run if r["status"] == "ok"), key=lambda r: r["images_per_second"])
    assert pt["evidence"][0]["ref"] == fastest["id"]
    # 7.8 GFLOPs/image in the requirements = the probe's CIFAR-stem ResNet-50: no FLOPs rescaling.
    assert pt["images_per_second"]["low"] == pytest.approx(fastest["ci95"][0], rel=1e-3)
    assert pt["time_to_train_hours"]["high"] == pytest.approx(50000 * 50 / fastest["ci95"][0] / 3600, rel=1e-3)
    assert doc["recommendation"]["workflow"] == "pytorch"


def test_host_with_nvidia_gpus_says_what_to_measure(capsys, monkeypatch):
    # This machine has no GPU: the check's own fake nvidia-smi (tests/fixtures/check) prints real
    # nvidia-smi output for an 8x H100 host, and the real host check reads it.
    import os

    fakebin = ROOT / "tests" / "fixtures" / "check" / "fakebin-nvidia"
    monkeypatch.setenv("PATH", str(fakebin) + os.pathsep + os.environ["PATH"])
    code, out, err = run_cli(capsys, "report", str(FIX / "h200-team.yaml"))
    assert code == 0, err
    doc = json.loads(out)
    accelerators = doc["host"]["accelerators"]
    assert accelerators and accelerators[0]["vendor"] == "nvidia" and "H100" in accelerators[0]["name"]
    assert all("memory_used_mb" not in a for a in accelerators)  # volatile: left out of the report
    assert "created_at" not in doc["host"]
    assert any("this host has nvidia hardware but no probe results" in a for a in doc["assumptions"])


def test_report_names_every_bad_field_on_its_one_line(capsys, tmp_path):
    """`advisor report` names every bad field (not the first only, the knowledge base's too) on its one error line, exit 2, no output."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: bad team\n"
        "team: {pytorch: wizard, size: 4}\n"
        'hardware: {available: [ascend], training_target: ascend, accelerator: "Ascend 999X"}\n'
        "deployment: {targets: [ascend-server]}\n"
        "constraints: {budget_usd: -5, deadline_weeks: 12}\n"
    )
    out_file = tmp_path / "review.md"
    code, out, err = run_cli(capsys, "report", str(bad), "-o", str(out_file))
    assert code == 2 and out == "" and not out_file.exists()
    assert err.count("\n") == 1 and err.startswith(f"advisor: error: {bad}: ")  # one line, every field on it
    parts = err.strip().removeprefix(f"advisor: error: {bad}: ").split("; ")
    assert [p.split(": ")[0] for p in parts] == ["team.pytorch", "constraints.budget_usd", "hardware.accelerator"]


def test_report_o_says_what_it_wrote_and_the_cache_line_what_it_adds(capsys, tmp_path):
    """`report -o` names the file it wrote and its charts (the TUI says so too); the line about this
    host's cache says it is evidence the report used, how many runs, and how to leave it out."""
    from advisor.cache import save_probes

    suite = _fixture_suite_for_this_host()
    save_probes(suite)
    target = tmp_path / "review.md"
    code, out, err = run_cli(capsys, "report", str(FIX / "cpu-team.yaml"), "-o", str(target))
    assert code == 0 and out == "", err
    charts = sorted(p.name for p in tmp_path.glob("review.*.svg"))
    lines = err.strip().splitlines()
    assert lines[0] == (
        f"advisor: evidence: this host's cached probe results ({len(suite.runs)} runs measured {suite.created}; "
        "--no-cache leaves them out, --run-probes measures again)"
    )
    assert lines[-1] == f"advisor: wrote {target} (Markdown) and {len(charts)} charts beside it" and charts
    code, out, err = run_cli(capsys, "report", str(EXAMPLE), "--no-cache", "--json", "-o", str(tmp_path / "r.json"))
    assert code == 0 and err == f"advisor: wrote {tmp_path / 'r.json'} (JSON)\n"
    code, out, err = run_cli(capsys, "report", str(EXAMPLE), "--no-cache", "--json")
    assert code == 0 and err == "" and json.loads(out)  # on stdout: nothing to say
