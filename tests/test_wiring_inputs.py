"""Bad inputs the scan and the renderers meet: a FIFO as PATH, a notebook whose cells are not strings,
Markdown-looking text in result files."""

import json
import os

import pytest

from advisor import cli
from advisor.scan import notebook


def _run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_scan_of_a_fifo_is_one_line_and_exit_2(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, out, err = _run(capsys, "scan", str(fifo))
    assert code == 2 and out == ""
    assert err.strip().endswith("not a folder or a file (expected a folder of Python code or one .py file)")
    assert len(err.strip().splitlines()) == 1


def test_notebook_cell_with_non_string_source_is_skipped_not_an_error():
    doc = {"cells": [{"cell_type": "code", "source": [1, 2]}, {"cell_type": "code", "source": ["import torch\n"]}]}
    source, where = notebook.to_source(json.dumps(doc).encode())
    assert source == b"import torch\n" and where == [(2, 1)]


def test_notebook_nested_thousands_deep_is_not_a_notebook():
    with pytest.raises(ValueError, match="nested too deep"):
        notebook.to_source(b"[" * 100_000 + b"]" * 100_000)


def test_check_lists_the_optional_extras(monkeypatch):
    from advisor import extras
    from advisor.check import host

    monkeypatch.setattr(
        extras, "present", lambda: {"pytorch": True, "mindspore": False, "deploy": True, "accuracy": False}
    )
    found = {f.code: f.message for f in host._engine_findings()}
    assert found["extras"].startswith("extras: pytorch, deploy installed; mindspore, accuracy missing (")


def test_config_names_the_cache_folder(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    code, out, _ = _run(capsys, "config")
    assert code == 0 and f"cache: {tmp_path}/framework-advisor " in out


def test_requirements_ranges_are_checked_where_the_tui_validates_too():
    """One range table (advisor.limits) in parse_requirements: the CLI and the TUI's form refuse alike."""
    from advisor.errors import UsageError
    from advisor.requirements import load_requirements, parse_requirements

    data = load_requirements("examples/prototype-then-ascend.yaml").model_dump(mode="json")
    data["workload"]["dataset_samples"] = 10**4000
    with pytest.raises(UsageError, match=r"^form: workload\.dataset_samples"):
        parse_requirements(data, "form")


def test_a_result_files_data_source_never_reaches_the_markdown_as_html():
    import knowledge
    from advisor.render import format as render_format
    from advisor.report import build_report
    from advisor.measurements import Measured, Measurements
    from advisor.requirements import load_requirements

    doc = json.loads(open("tests/fixtures/report/accuracy-2vcpu.json").read())
    doc["data"]["source"] = "<img src=x onerror=alert(1)>\n# injected"
    kb = knowledge.load()
    report = build_report(
        load_requirements("examples/prototype-then-ascend.yaml"),
        Measurements(probes={"accuracy": Measured(doc)}),
        kb=kb,
    )
    md = render_format(report, "markdown", kb=kb)
    assert "<img" not in md and "\n# injected" not in md
    assert "\u2039img src=x onerror=alert(1)\u203a" in md  # quoted as text, not markup


def test_fifty_thousand_deployment_targets_are_one_line_not_a_17_mb_report(tmp_path, capsys):
    import yaml

    data = yaml.safe_load(open("examples/prototype-then-ascend.yaml"))
    data["deployment"]["targets"] = data["deployment"]["targets"] * 50_000
    path = tmp_path / "many.yaml"
    path.write_text(yaml.safe_dump(data))
    code, out, err = _run(capsys, "report", str(path), "--json")
    assert code == 2 and out == "" and "deployment.targets: List should have at most 64 items" in err
    assert len(err.strip().splitlines()) == 1
