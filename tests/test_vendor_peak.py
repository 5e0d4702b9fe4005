"""advisor.decision.vendor_peak: the datasheet peak is attached by advisor from the knowledge base (the probe
never loads it), on the real-format suite captured on an H200."""

import json
from pathlib import Path

import pytest

import knowledge
from advisor.decision import vendor_peak
from probes.training.models import ProbeSuite

FIXTURE = Path(__file__).parent / "fixtures" / "report" / "probes-h200.json"


def _suite_without_peak() -> ProbeSuite:
    doc = json.loads(FIXTURE.read_text())
    doc["vendor_peak"] = None
    for run in doc["runs"]:
        run["mfu_vendor"] = None
    return ProbeSuite.model_validate(doc)


def test_peak_and_mfu_from_the_knowledge_base():
    kb = knowledge.load()
    suite = vendor_peak.attach(_suite_without_peak(), kb)
    acc = kb.find_accelerator("NVIDIA H200")
    assert suite.vendor_peak["accelerator"] == acc.id
    assert suite.vendor_peak["fp32_gflops"] == pytest.approx(acc.fp32_tflops.value * 1e3)
    assert suite.vendor_peak["source"] == acc.fp32_tflops.source
    gpu_runs = [r for r in suite.runs if r.device == "cuda" and r.achieved_gflops]
    assert gpu_runs
    for run in gpu_runs:
        assert run.mfu_vendor == pytest.approx(run.achieved_gflops / suite.vendor_peak["fp32_gflops"])
    assert all(r.mfu_vendor is None for r in suite.runs if r.device == "cpu")


def test_cpu_suite_gets_no_peak_and_unknown_device_none():
    kb = knowledge.load()
    suite = _suite_without_peak()
    for run in suite.runs:
        run.settings["device_name"] = "Imaginary Accelerator 9000"
    assert vendor_peak.attach(suite, kb).vendor_peak is None
    assert all(r.mfu_vendor is None for r in suite.runs)
