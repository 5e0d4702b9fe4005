"""advisor.measurements: the one record of what a report is built from. Each probe kind's result comes with
its provenance, keyed by the registry's kind names; JSON is validated into the kind's Result once, there;
what cannot be evidence (a file without its result, an unknown kind, another kind's result) is refused."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from advisor.measurements import SEVERAL, Measured, Measurements
from probes.accuracy.models import AccuracySuite
from probes.base import KINDS
from probes.pipeline.models import PipelineSuite
from probes.scaling.models import ScalingResult
from probes.training.models import ProbeSuite

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures" / "report"
SCALING = ROOT / "tests" / "fixtures" / "scaling" / "scaling-2vcpu-lenet.json"


def doc(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_a_file_without_its_result_is_refused():
    with pytest.raises(ValueError, match="a result is required"):
        Measured(None, "file", "accuracy.json")


@pytest.mark.parametrize("source", ["files", "none", "disk", ""])
def test_a_source_outside_run_cache_file_is_refused(source):
    with pytest.raises(ValueError, match="source"):
        Measured(doc(SCALING), source)


def test_one_file_name_is_one_file_not_its_letters():
    m = Measured(doc(SCALING), "file", "s.json")
    assert m.files == ("s.json",) and m.file == "s.json"
    assert Measured(doc(SCALING)).file is None
    with pytest.raises(ValueError, match="files"):
        Measured(doc(SCALING), "file", ("s.json", ""))


def test_an_unknown_kind_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown probe kind 'probes'; known: training, deploy, scaling"):
        Measurements(probes={"probes": Measured(doc(FIX / "probes-cpu.json"))})
    with pytest.raises(KeyError, match="unknown probe kind 'scalling'"):
        Measurements().get("scalling")


def test_a_bare_result_without_its_provenance_is_refused():
    with pytest.raises(TypeError, match=r"scaling: expected a Measured"):
        Measurements(probes={"scaling": doc(SCALING)})


def test_json_is_converted_once_into_the_kinds_result():
    data = doc(SCALING)
    m = Measurements(probes={"scaling": Measured(data, "file", "s.json")})
    result = m.result("scaling")
    assert type(result) is ScalingResult
    assert result == ScalingResult.model_validate(data)
    # a model passes through as the same object: nothing downstream converts again
    assert Measurements(probes={"scaling": Measured(result, "cache")}).result("scaling") is result
    assert m.get("scaling").source == "file" and m.get("scaling").file == "s.json"


def test_every_registered_kind_reads_its_own_result_model():
    """The conversion follows the registry (probes.base.KINDS), not a list of its own."""
    results = {
        "training": doc(FIX / "probes-cpu.json"),
        "scaling": doc(SCALING),
        "accuracy": doc(FIX / "accuracy-2vcpu.json"),
        "pipeline": doc(FIX / "pipeline-2vcpu.json"),
        "gpt": doc(FIX / "gpt-2vcpu.json"),
    }
    m = Measurements(probes={k: Measured(v) for k, v in results.items()})
    for kind in results:
        got = m.suites if kind in SEVERAL else (m.result(kind),)
        assert got and all(type(r) is KINDS[kind].Result for r in got), kind
    assert m.result("deploy") is None and m.get("deploy") is None


def test_invalid_json_fails_at_the_boundary_naming_the_field():
    data = doc(FIX / "accuracy-2vcpu.json")
    data["gaps"][0]["per_seed"] = "many"
    with pytest.raises(ValidationError, match="per_seed"):
        Measurements(probes={"accuracy": Measured(data)})


def test_another_kinds_result_is_refused():
    pipeline = PipelineSuite.model_validate(doc(FIX / "pipeline-2vcpu.json"))
    with pytest.raises(TypeError, match=r"accuracy: expected a AccuracySuite or its JSON, got PipelineSuite"):
        Measurements(probes={"accuracy": Measured(pipeline)})
    with pytest.raises(TypeError, match="got str"):
        Measurements(probes={"gpt": Measured("gpt.json")})


def test_training_takes_several_suites_in_order_and_the_others_one():
    cpu, ascend = doc(FIX / "probes-cpu.json"), doc(FIX / "probes-ascend.json")
    m = Measurements(probes={"training": Measured([cpu, ascend], "file", ["cpu.json", "ascend.json"])})
    assert [type(s) for s in m.suites] == [ProbeSuite, ProbeSuite]
    assert [s.host.fingerprint for s in m.suites] == [
        ProbeSuite.model_validate(d).host.fingerprint for d in (cpu, ascend)
    ]
    assert m.get("training").files == ("cpu.json", "ascend.json")
    one = Measurements(probes={"training": Measured(cpu, "cache")})
    assert len(one.suites) == 1 and Measurements().suites == ()
    with pytest.raises(ValueError, match="at least one"):
        Measurements(probes={"training": Measured([])})
    with pytest.raises(TypeError, match="scaling: expected a ScalingResult or its JSON, got list"):
        Measurements(probes={"scaling": Measured([doc(SCALING), doc(SCALING)])})
    with pytest.raises(KeyError, match="several"):
        m.result("training")


def test_host_is_a_check_model_and_scan_json_becomes_a_scan_result():
    from advisor.scan.models import ScanResult
    from probes.check.models import CheckReport

    host = CheckReport.model_validate(doc(ROOT / "tests" / "fixtures" / "tui" / "check_cpu.json"))
    assert Measurements(host=host).host is host
    with pytest.raises(TypeError, match="host: expected a CheckReport or HostInfo, got dict"):
        Measurements(host=host.model_dump(mode="json"))
    from advisor.scan import scan_path

    scan = scan_path(str(FIX / "code"))
    m = Measurements(scan=scan.model_dump(mode="json"))
    assert type(m.scan) is ScanResult and m.scan == scan


def test_measurements_cannot_be_changed_after_the_fact():
    m = Measurements(probes={"accuracy": Measured(doc(FIX / "accuracy-2vcpu.json"))}, cached_runs=[])
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.host = None  # type: ignore[misc]
    with pytest.raises(TypeError):
        m.probes["scaling"] = Measured(doc(SCALING))  # type: ignore[index]
    assert m.cached_runs == () and isinstance(m.get("accuracy").result, AccuracySuite)


def test_the_report_reads_the_provenance_from_the_record():
    """build_report takes its sources and files from Measured: the JSON says where each result came from."""
    import knowledge
    from advisor.report import build_report
    from advisor.requirements import load_requirements

    req = load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml")
    kb = knowledge.load()
    report = build_report(
        req,
        Measurements(
            probes={
                "training": Measured(doc(FIX / "probes-cpu.json"), "file", "a.json"),
                "scaling": Measured(doc(SCALING), "cache"),
                "accuracy": Measured(doc(FIX / "accuracy-2vcpu.json"), "file", "acc.json"),
            }
        ),
        kb=kb,
        created_at="2026-01-01T00:00:00Z",
    )
    assert (report.probes.source, report.probes.files) == ("files", ["a.json"])
    assert (report.scaling.source, report.scaling.file) == ("cache", None)
    assert report.accuracy.file == "acc.json"
    nothing = build_report(req, Measurements(), kb=kb, created_at="2026-01-01T00:00:00Z")
    assert nothing.probes.source == "none" and nothing.scaling.source == "none" and nothing.accuracy.source == "none"
