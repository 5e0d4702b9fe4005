"""The requirements loader: the examples load; every kind of bad input is one line naming the file,
the field path and what is expected, exit 2, no traceback, and no output file written."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from advisor.cli import main
from advisor.errors import UsageError
from advisor.requirements import CRITERIA, Requirements, load_requirements, parse_requirements

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))

VALID = """\
name: Minimal team
hardware:
  available: [nvidia]
deployment:
  targets: [nvidia-server]
"""


def test_examples_load():
    assert len(EXAMPLES) >= 3
    for path in EXAMPLES:
        req = load_requirements(path)
        assert isinstance(req, Requirements) and req.name


def test_minimal_file_gets_defaults(tmp_path):
    path = tmp_path / "min.yaml"
    path.write_text(VALID)
    req = load_requirements(path)
    assert req.hardware.training_target == "undecided"
    assert req.needs.domestic_substitution == "none"
    assert req.workload is None and req.weights is None


def test_utf8_bom_and_chinese_names_are_fine(tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_bytes("\ufeff".encode() + VALID.replace("Minimal team", "工厂缺陷检测").encode())
    assert load_requirements(path).name == "工厂缺陷检测"


# (file bytes, substrings the one-line message must contain)
BAD = {
    "yaml-syntax": (b"name: [unclosed\n", ["line 2", "invalid YAML"]),
    "unknown-key": (VALID.encode() + b"team:\n  pytroch: expert\n", ["team.pytroch", "unknown key"]),
    "unknown-top-key": (VALID.encode() + b"budget: 5\n", ["budget", "unknown key"]),
    "wrong-type": (VALID.replace("[nvidia]", "[nvidia]\n  devices: eight").encode(), ["hardware.devices", "integer"]),
    "quoted-number": (VALID.replace("[nvidia]", "[nvidia]\n  devices: '8'").encode(), ["hardware.devices", "integer"]),
    "bool-as-int": (VALID.encode() + b"model:\n  custom_cuda_ops: 3\n", ["model.custom_cuda_ops", "boolean"]),
    "out-of-range": (
        VALID.replace("[nvidia]", "[nvidia]\n  devices: 0").encode(),
        ["hardware.devices", "greater than or equal to 1"],
    ),
    "negative-params": (
        VALID.encode() + b"model:\n  parameters_millions: -3\n",
        ["model.parameters_millions", "greater than 0"],
    ),
    "bad-enum": (VALID.encode() + b"team:\n  pytorch: guru\n", ["team.pytorch", "'expert'", "guru"]),
    "empty-list": (VALID.replace("[nvidia]", "[]").encode(), ["hardware.available", "at least 1"]),
    "bad-list-item": (
        VALID.replace("[nvidia-server]", "[nvidia-server, toaster]").encode(),
        ["deployment.targets[1]", "toaster"],
    ),
    "missing-field": (b"name: x\nhardware:\n  available: [cpu]\n", ["deployment", "required"]),
    "empty-file": (b"", ["empty"]),
    "only-comments": (b"# nothing here\n\n", ["empty"]),
    "not-a-mapping": (b"- a\n- b\n", ["top level", "mapping"]),
    "non-utf8": (b"name: caf\xe9\n", ["UTF-8"]),
    "python-tag": (b"name: !!python/object/apply:os.system ['echo pwned']\n", ["tag", "not allowed"]),
    "python-name-tag": (b"name: !!python/name:os.system\n", ["tag", "not allowed"]),
    "duplicate-key": (VALID.encode() + b"name: again\n", ["duplicate key 'name'"]),
    "custom-without-flops": (
        VALID.encode() + b"workload:\n  model: custom\n  dataset_samples: 10\n  epochs: 1\n",
        ["workload", "gflops_per_sample"],
    ),
    "negative-weight": (
        VALID.encode() + b"weights:\n  performance: -1\n",
        ["weights.performance", "greater than or equal to 0"],
    ),
    "unknown-weight": (VALID.encode() + b"weights:\n  speed: 1\n", ["weights.speed", "unknown key"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_line_exit_2_no_output(case, tmp_path, capsys):
    content, expected = BAD[case]
    path = tmp_path / f"{case}.yaml"
    path.write_bytes(content)
    out_file = tmp_path / "report.json"
    code = main(["report", str(path), "-o", str(out_file)])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    line = lines[0]
    assert line.startswith("advisor: error: ") and str(path) in line
    assert "Traceback" not in captured.err
    for fragment in expected:
        assert fragment in line, f"{fragment!r} not in {line!r}"
    assert not out_file.exists()
    assert list(tmp_path.iterdir()) == [path]  # no temp file left either


def test_missing_file_and_folder(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["report", str(tmp_path)]) == 2
    assert "folder" in capsys.readouterr().err


def test_all_zero_weights_rejected():
    data = {
        "name": "x",
        "hardware": {"available": ["cpu"]},
        "deployment": {"targets": ["cpu-server"]},
        "weights": {c: 0 for c in CRITERIA},
    }
    with pytest.raises(UsageError, match="at least one weight"):
        parse_requirements(data, "form")


def test_unknown_accelerator_is_bad_input(tmp_path, capsys):
    path = tmp_path / "acc.yaml"
    path.write_text(VALID.replace("[nvidia]", "[nvidia]\n  accelerator: Quantum Toaster 9000"))
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert "hardware.accelerator" in err and "Quantum Toaster 9000" in err and len(err.strip().splitlines()) == 1


def test_bad_probe_file_is_bad_input(tmp_path, capsys):
    req = tmp_path / "r.yaml"
    req.write_text(VALID)
    bad = tmp_path / "probes.json"
    bad.write_text('{"runs": [{"id": "x", "framework": "jax"}]}')
    out = tmp_path / "out.json"
    assert main(["report", str(req), "--probes", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "runs[0]" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
    bad.write_text("{not json")
    assert main(["report", str(req), "--probes", str(bad)]) == 2
    assert "invalid JSON" in capsys.readouterr().err


def test_every_bad_field_is_reported_on_the_one_line(tmp_path):
    """A budget of -5 AND an unknown accelerator AND a bad skill are all reported on the
    one error line ('FILE: field: what is expected; ...'), as one UsageError (exit 2), not the first only."""
    import knowledge

    from advisor.validation import load_checked, requirements_problems

    kb = knowledge.load()
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: bad team\n"
        "team: {pytorch: wizard, size: 4}\n"
        'hardware: {available: [ascend], training_target: ascend, accelerator: "Ascend 999X"}\n'
        "deployment: {targets: [ascend-server]}\n"
        "constraints: {budget_usd: -5, deadline_weeks: 12}\n"
    )
    with pytest.raises(UsageError) as exc:
        load_checked(bad, kb)
    text = str(exc.value)
    assert "\n" not in text and text.startswith(f"{bad}: ")  # one line, every field on it
    parts = text.removeprefix(f"{bad}: ").split("; ")
    fields = [p.split(": ", 1)[0] for p in parts]
    assert fields == ["team.pytorch", "constraints.budget_usd", "hardware.accelerator"]
    assert "Ascend 999X" in parts[2] and "not in the knowledge base" in parts[2]
    # a valid file: no problems, the model back; the knowledge-base part is the TUI form's check
    good = yaml.safe_load(bad.read_text())
    good["team"]["pytorch"] = "expert"
    good["constraints"]["budget_usd"] = 5
    req, problems = requirements_problems(good, kb)
    assert req is None and len(problems) == 1 and problems[0].startswith("hardware.accelerator: ")
    from advisor.validation import kb_problems

    good["hardware"]["accelerator"] = "Atlas 300I Pro"  # an inference part as training hardware
    req, problems = requirements_problems(good, kb)
    assert req is None and problems == kb_problems(parse_requirements(good), kb)
    good["hardware"]["accelerator"] = "Ascend 910B"
    req, problems = requirements_problems(good, kb)
    assert problems == [] and req is not None and req.hardware.accelerator == "Ascend 910B"
