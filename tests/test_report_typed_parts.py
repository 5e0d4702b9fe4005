"""The report's parts are typed end to end: the migration scan is a ScanResult, the training
suites' parity a list of ParityResult and their GEMM peaks a list of GemmPeak, in the schema and after a
JSON round trip, so readers use attributes, never keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import knowledge
from advisor.commands.report import scan_code
from advisor.measurements import Measured, Measurements
from advisor.output import to_json
from advisor.report import GemmPeak, Report, build_report
from advisor.requirements import load_requirements
from advisor.scan.models import ScanResult
from probes.training.models import ParityResult

FIX = Path(__file__).resolve().parent / "fixtures" / "report"


def test_report_schema_references_the_typed_parts():
    schema = Report.model_json_schema(mode="serialization")
    refs = {branch.get("$ref") for branch in schema["properties"]["scan"]["anyOf"]}
    assert "#/$defs/ScanResult" in refs
    probes = schema["$defs"]["ProbesInfo"]["properties"]
    assert probes["parity"]["items"] == {"$ref": "#/$defs/ParityResult"}
    assert probes["gemm_peak"]["items"] == {"$ref": "#/$defs/GemmPeak"}


@pytest.fixture(scope="module")
def report() -> Report:
    kb = knowledge.load()
    path = FIX / "with-code.yaml"
    req = load_requirements(path)
    suite = json.loads((FIX / "probes-cpu.json").read_text())
    measurements = Measurements(
        scan=scan_code(req, str(path), kb), probes={"training": Measured(suite, "file", "probes-cpu.json")}
    )
    return build_report(req, measurements, kb=kb, created_at="2026-01-01T00:00:00Z")


def test_a_report_with_a_scan_and_parity_round_trips_typed(report):
    text = to_json(report)
    again = Report.model_validate_json(text)
    assert to_json(again) == text  # the same bytes after a round trip
    assert isinstance(again.scan, ScanResult) and again.scan == report.scan
    assert again.scan.path.endswith("code") and again.scan.hazard_summary
    assert [type(p) for p in again.probes.parity] == [ParityResult]
    assert again.probes.parity[0].model == "lenet" and again.probes.parity[0].ok is True
    # probes-cpu.json: gemm_peak {"pytorch": 211.0, "mindspore": 368.0}, one row per framework, sorted
    assert again.probes.gemm_peak == [
        GemmPeak(framework="mindspore", gflops=368.0, host="AMD EPYC Zen 5 (2 vCPU, KVM)"),
        GemmPeak(framework="pytorch", gflops=211.0, host="AMD EPYC Zen 5 (2 vCPU, KVM)"),
    ]


def test_a_scan_that_is_not_a_scan_result_is_refused(report):
    doc = json.loads(to_json(report))
    doc["scan"]["hazard_summary"][0]["count"] = "many"
    with pytest.raises(ValueError, match=r"scan\.hazard_summary\.0\.count"):
        Report.model_validate(doc)
