"""A probe kind registered in probes.base.KINDS reaches `advisor report --<kind> FILE` and the report
itself with no edit outside its package and its registry line: the report's flags, loaders, cached
results and `results` section all follow the registry."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Optional

import pytest
from pydantic import BaseModel, Field

from probes import base

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "prototype-then-ascend.yaml")


class FakeRun(BaseModel):
    id: str
    status: str = "ok"
    latency_ms: Optional[float] = None
    label: str = ""


class FakeResult(BaseModel):
    kind: str = "fake"
    schema_version: str = "2.1"
    runs: list[FakeRun] = Field(default_factory=list)


@pytest.fixture
def fake_kind(monkeypatch):
    """probes.base.KINDS with one more line, `fake`, and its package: nothing else."""
    package = types.ModuleType("fake_report_kind")
    package.FakeResult = FakeResult
    package.FakeConfig = BaseModel
    package.run = lambda config, on_event=None, cancel=None: FakeResult()
    monkeypatch.setitem(sys.modules, "fake_report_kind", package)
    line = base.ProbeKind(
        "fake", "a stand-in kind", "fake_report_kind:FakeConfig", "fake_report_kind:FakeResult", "fake_report_kind:run"
    )
    monkeypatch.setitem(base.KINDS, "fake", line)


def _run(argv, capsys):
    from advisor.cli import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_report_takes_every_registered_kind_as_a_flag(fake_kind, capsys):
    from advisor.commands import report

    assert set(report.file_kinds()) == set(base.KINDS) - {"training"}  # the suites come with --probes
    with pytest.raises(SystemExit):
        _run(["report", "--help"], capsys)
    text = capsys.readouterr().out
    for name in report.file_kinds():
        assert f"--{name} FILE" in text, name
    assert "fake probe result (`advisor probe --fake --json -o FILE`): a stand-in kind" in " ".join(text.split())


def test_a_registered_kind_reaches_the_report_through_its_flag(fake_kind, capsys, tmp_path):
    result = tmp_path / "fake.json"
    result.write_text(json.dumps({"kind": "fake", "schema_version": "2.0", "runs": [{"id": "a", "latency_ms": 3.5}]}))
    code, out, err = _run(["report", EXAMPLE, "--no-cache", "--fake", str(result), "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert [r["kind"] for r in doc["results"]] == ["fake"]
    got = doc["results"][0]
    assert (got["title"], got["source"], got["files"]) == ("Fake probe", "file", [str(result)])
    assert got["result"]["runs"] == [{"id": "a", "status": "ok", "latency_ms": 3.5, "label": ""}]


def test_a_kind_the_decision_model_reads_is_not_repeated_in_results(capsys):
    pipeline = ROOT / "tests" / "fixtures" / "report" / "pipeline-2vcpu.json"
    code, out, err = _run(["report", EXAMPLE, "--no-cache", "--pipeline", str(pipeline), "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["results"] == [] and doc["pipeline"]["runs"], doc["pipeline"]


@pytest.mark.parametrize(
    "doc, needle",
    [
        ({"kind": "pipeline", "runs": []}, "kind: expected \"fake\", got 'pipeline'"),
        ({"kind": "fake", "schema_version": "3.0", "runs": []}, "schema_version: '3.0', expected 2.x"),
        ({"kind": "fake", "runs": [{"id": "a", "latency_ms": "NaN"}]}, "runs[0].latency_ms: expected a finite"),
        ({"kind": "fake", "runs": [{"id": "a", "latency_ms": -4}]}, "runs[0].latency_ms: -4.0 is negative"),
        ({"kind": "fake", "runs": [{"id": "x"}] * 300}, "runs: 300 runs: expected at most 256"),
    ],
)
def test_a_registered_kinds_file_gets_every_generic_check(fake_kind, capsys, tmp_path, doc, needle):
    """The kind's model, the range table before and after validation (a number written as a string)
    and the run budget: one line naming the file and the field, nothing written."""
    result = tmp_path / "fake.json"
    result.write_text(json.dumps(doc))
    out_file = tmp_path / "out.json"
    code, out, err = _run(["report", EXAMPLE, "--no-cache", "--fake", str(result), "-o", str(out_file)], capsys)
    assert code == 2 and err.count("\n") == 1 and needle in err and "fake.json" in err, err
    assert not out_file.exists()


def test_a_cached_kind_with_a_file_flag_is_read_from_this_hosts_cache(monkeypatch, capsys, tmp_path):
    """advisor.cache.CACHED names the kinds kept per host; the report reads each one no file gave."""
    from advisor import cache

    scaling = json.loads((ROOT / "tests" / "fixtures" / "scaling" / "scaling-2vcpu-lenet.json").read_text())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    from probes.scaling.models import ScalingResult

    cache.save_scaling(ScalingResult.model_validate(scaling))
    code, out, err = _run(["report", EXAMPLE, "--json"], capsys)
    assert code == 0, err
    assert "this host's cached scaling result" in err
    assert json.loads(out)["scaling"]["source"] == "cache"
