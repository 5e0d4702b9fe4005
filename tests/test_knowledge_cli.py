"""`advisor kb list|show|validate` through advisor.cli.main."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.cli import main
from knowledge.models import SECTIONS as KB_SECTIONS

OVERRIDES = Path(__file__).parent / "fixtures" / "knowledge" / "overrides"
SECTIONS = list(KB_SECTIONS)  # the one list of sections (knowledge.models.SECTIONS)


@pytest.mark.parametrize("section", SECTIONS)
def test_list_section_json(capsys, section):
    assert main(["kb", "list", section, "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    assert isinstance(entries, list) and entries
    assert all(e["id"] and e["section"] == section for e in entries)


def test_list_all_text_and_json(capsys):
    assert main(["kb", "list"]) == 0
    text = capsys.readouterr().out
    assert "[api-mappings]" in text and "torch.nn.Conv2d -> mindspore.nn.Conv2d [differs]" in text
    assert main(["kb", "list", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    assert {e["section"] for e in entries} == set(SECTIONS)


def test_list_unknown_section_is_usage_error(capsys):
    assert main(["kb", "list", "gpus"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown section 'gpus'" in err and "api-mappings" in err


def test_show_json_and_text(capsys):
    assert main(["kb", "show", "normalize-range", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["id"] == "normalize-range" and doc["section"] == "pitfalls" and doc["hours"]["value"] == 1.5
    assert main(["kb", "show", "910B3"]) == 0  # falls back to device-name lookup
    assert "id: ascend-910b" in capsys.readouterr().out


def test_show_id_in_two_sections(capsys):
    assert main(["kb", "show", "pytorch"]) == 0
    out = capsys.readouterr().out
    assert "# frameworks: pytorch" in out and "# workflows: pytorch" in out
    assert main(["kb", "show", "workflows:pytorch", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["section"] == "workflows"
    assert main(["kb", "show", "pytorch", "--section", "workflows", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["section"] == "workflows"


def test_show_unknown_id(capsys):
    assert main(["kb", "show", "no-such-thing"]) == 2
    assert "no entry with id 'no-such-thing'" in capsys.readouterr().err


def test_validate_bundled(capsys):
    assert main(["kb", "validate"]) == 0
    assert "knowledge base valid" in capsys.readouterr().out


def test_validate_dir_lists_every_problem(capsys):
    assert main(["kb", "validate", str(OVERRIDES / "broken-ref")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert any("entry 'our-run': field 'accelerator': broken cross-reference" in line for line in out)
    assert any("entry 'my-op': field 'pitfall': broken cross-reference" in line for line in out)
    assert out[-1].startswith("2 problems")


def test_validate_json(capsys):
    assert main(["kb", "validate", str(OVERRIDES / "dup-id"), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["valid"] is False and doc["problems"][0]["field"] == "id"
    assert {"file", "entry", "field", "message"} == set(doc["problems"][0])


def test_validate_missing_dir(capsys, tmp_path):
    assert main(["kb", "validate", str(tmp_path / "nope")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_kb_flag_and_env_var(capsys, monkeypatch):
    assert main(["kb", "show", "ascend-910b-hour", "--json", "--kb", str(OVERRIDES / "prices")]) == 0
    assert json.loads(capsys.readouterr().out)["usd"]["value"] == 1.9
    monkeypatch.setenv("ADVISOR_KB_DIR", str(OVERRIDES / "new-hardware"))
    assert main(["kb", "list", "accelerators", "--json"]) == 0
    assert "lab-npu" in {e["id"] for e in json.loads(capsys.readouterr().out)}


def test_bad_override_is_one_line_usage_error(capsys):
    assert main(["kb", "list", "--kb", str(OVERRIDES / "bad-field")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "field 'usd.confidence'" in err and "Traceback" not in err


def test_output_file(tmp_path, capsys):
    target = tmp_path / "costs.json"
    assert main(["kb", "list", "costs", "--json", "-o", str(target)]) == 0
    assert capsys.readouterr().out == ""
    assert json.loads(target.read_text())[0]["section"] == "costs"
