"""Smoke tests as data: a framework whose worker hangs or crashes (simulated through the worker's
test-only ADVISOR_TEST_SMOKE_FAULT hook, before any framework import) becomes a failed entry, and the
command still answers. Plus the CLI contract: exit codes, --strict, --json purity."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

import advisor.check.host as check
from advisor.cli import main
from probes.check.models import Finding
from probes.check.frameworks import _smoke_from_outcome, detect_frameworks, run_smoke
from probes.launcher import PROJECT_ROOT, ChildOutcome


def test_hanging_worker_is_killed_and_reported(monkeypatch):
    monkeypatch.setenv("ADVISOR_TEST_SMOKE_FAULT", "pytorch:hang")
    smoke, _ = run_smoke("pytorch", timeout=1.5)
    assert (smoke.status, smoke.ok) == ("timeout", False)
    assert "timeout" in smoke.error


def test_crashing_worker_is_a_failed_entry(monkeypatch):
    monkeypatch.setenv("ADVISOR_TEST_SMOKE_FAULT", "mindspore:crash")
    smoke, _ = run_smoke("mindspore", timeout=30)
    assert (smoke.status, smoke.ok) == ("failed", False)
    assert "SIGABRT" in smoke.error


def test_raising_worker_reports_its_message(monkeypatch):
    monkeypatch.setenv("ADVISOR_TEST_SMOKE_FAULT", "torch_npu:raise")
    smoke, _ = run_smoke("torch_npu", timeout=30)
    assert smoke.status == "failed" and "simulated failure" in smoke.error


def test_hang_on_a_later_device_keeps_the_earlier_results():
    outcome = ChildOutcome(
        status="timeout",
        error="no result within the 5 s timeout; the process was killed",
        seconds=5.0,
        messages=[
            {"kind": "progress", "stage": "device-start", "device": "cpu"},
            {"kind": "progress", "stage": "device-done", "device": "cpu", "ok": True, "seconds": 0.01, "error": None},
            {"kind": "progress", "stage": "device-start", "device": "cuda:0"},
        ],
    )
    smoke, _ = _smoke_from_outcome(outcome)
    assert smoke.status == "timeout" and smoke.ok is False
    assert [(d.device, d.ok) for d in smoke.devices] == [("cpu", True), ("cuda:0", False)]


def test_run_check_with_hanging_and_crashing_frameworks(monkeypatch):
    if not any(f.installed for f in detect_frameworks() if f.name in ("pytorch", "mindspore")):
        pytest.skip("no framework installed")
    monkeypatch.setenv("ADVISOR_TEST_SMOKE_FAULT", "pytorch:hang,mindspore:crash")
    report = check.run_check(smoke=True, timeout=2.0)
    by_name = {f.name: f for f in report.frameworks}
    codes = {f.code for f in report.findings}
    if by_name["pytorch"].installed:
        assert by_name["pytorch"].smoke.status == "timeout" and "smoke_timeout" in codes
    if by_name["mindspore"].installed:
        assert by_name["mindspore"].smoke.status == "failed" and "smoke_failed" in codes
    assert report.verdict == "fail"


def _fake_report(severity):
    report = check.run_check(smoke=False, use_kb=False)
    report.findings = [Finding(severity=severity, code="x", message="m", fix="f")] if severity else []
    report.verdict = check.verdict(report.findings)
    return report


@pytest.mark.parametrize(
    "severity,strict,code",
    [
        (None, False, 0),
        ("info", True, 0),
        ("warning", False, 0),
        ("warning", True, 1),
        ("error", False, 1),
    ],
)
def test_exit_codes(monkeypatch, capsys, severity, strict, code):
    report = _fake_report(severity)
    monkeypatch.setattr(check, "run_check", lambda **kw: report)
    argv = ["check", "--no-smoke", "--json"] + (["--strict"] if strict else [])
    assert main(argv) == code
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == report.verdict


def test_bad_usage_is_exit_2(capsys):
    assert main(["check", "--timeout", "-1"]) == 2
    assert main(["check", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("advisor: error:") and "Traceback" not in err


def test_table_output_names_every_section(capsys):
    assert main(["check", "--no-smoke"]) in (0, 1)
    out = capsys.readouterr().out
    for section in ("Host", "Frameworks", "Verdict:"):
        assert section in out


def test_no_smoke_json_is_fast_and_imports_no_framework():
    code = (
        "import sys, time; t = time.monotonic(); from advisor.cli import main; rc = main(['check', '--json', "
        "'--no-smoke']); assert 'torch' not in sys.modules and 'mindspore' not in sys.modules; "
        "sys.stderr.write(str(time.monotonic() - t))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=60)
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["frameworks"][0]["smoke"]["status"] == "skipped"
    # No timing assertion here (shared CI cores); benchmarks/check_speed.py measures it.


@pytest.mark.slow
def test_end_to_end_real_smoke_tests():
    """The real command on this machine: real frameworks, real smoke tests, stdout only JSON."""
    proc = subprocess.run(
        [sys.executable, "-m", "advisor", "check", "--json", "--timeout", "120"],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        timeout=300,
    )
    doc = json.loads(proc.stdout)  # the whole stdout is one JSON document: no framework noise
    assert proc.returncode == (1 if doc["verdict"] == "fail" else 0), proc.stderr
    assert doc["schema_version"] and doc["verdict"] in ("pass", "warn", "fail")
    cpu, mem = doc["host"]["cpu"], doc["host"]["memory"]
    assert cpu["model"] and cpu["logical_cores"] >= 1 and cpu["physical_cores"] >= 1 and isinstance(cpu["flags"], list)
    assert mem["total_mb"] > 0 and mem["available_mb"] > 0
    assert isinstance(doc["accelerators"], list)
    for acc in doc["accelerators"]:
        assert {"vendor", "index", "name", "memory_total_mb", "memory_used_mb"} <= set(acc)
    for f in doc["findings"]:
        assert f["severity"] in ("error", "warning", "info") and f["code"] and f["message"] and "fix" in f
    frameworks = {f["name"]: f for f in doc["frameworks"]}
    assert set(frameworks) == {"pytorch", "mindspore", "torch_npu"}
    for name in ("pytorch", "mindspore"):
        fw = frameworks[name]
        if not fw["installed"]:
            continue
        assert fw["version"] and fw["devices"], fw
        assert fw["smoke"]["ok"] is True and fw["smoke"]["seconds"] > 0, fw["smoke"]
    ms = frameworks["mindspore"]
    if ms["installed"] and "avx512f" in cpu["flags"]:
        conv = ms["smoke"]["conv_check"]
        assert conv is not None and conv["conv_ms"] > 0 and conv["gemm_ms"] > 0
        codes = {f["code"] for f in doc["findings"]}
        assert conv["slow"] == ("mindspore_onednn_reference_conv" in codes)


def test_cancel_kills_the_smoke_children(monkeypatch):
    import threading

    from probes.launcher import Cancel

    monkeypatch.setenv("ADVISOR_TEST_SMOKE_FAULT", "pytorch:hang")
    cancel = Cancel()
    threading.Timer(0.5, cancel.set).start()
    smoke, _ = run_smoke("pytorch", timeout=60, cancel=cancel)
    assert smoke.status == "failed" and "cancelled" in smoke.error


def test_progress_lines(monkeypatch):
    monkeypatch.setenv("ADVISOR_TEST_SMOKE_FAULT", "pytorch:crash,mindspore:crash")
    lines: list[str] = []
    check.run_check(smoke=True, timeout=20, progress=lines.append, use_kb=False)
    assert any(line.startswith("NVIDIA:") for line in lines) and any(line.startswith("Ascend:") for line in lines)
    installed = [f.name for f in detect_frameworks() if f.installed]
    for name in installed:
        assert any(line.startswith(f"{name} smoke test: failed") for line in lines), lines


def test_early_avx2_rerun_is_stopped_when_mindspore_convs_are_fast(monkeypatch):
    """Orchestration only (fake children): a fast conv in the main MindSpore child cancels the rerun."""
    import probes.check.frameworks as frameworks
    from probes.check.models import ConvCheck, FrameworkInfo, SmokeResult

    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    calls = []
    rerun_saw_cancel: list[bool] = []

    def fake_run_smoke(name, timeout, env_extra=None, on_message=None, extra_args=(), cancel=None):
        calls.append((name, extra_args))
        if "--conv-only" in extra_args:  # the rerun: waits until it is cancelled
            start = time.monotonic()
            while not cancel.is_set() and time.monotonic() - start < 10:
                time.sleep(0.01)
            rerun_saw_cancel.append(cancel.is_set())
            return SmokeResult(status="failed", ok=False, error="cancelled by the user"), {}
        conv = {"shape": "s", "conv_ms": 3.0, "gemm_ms": 1.5, "ratio": 2.0, "slow": False}
        time.sleep(0.2)
        on_message({"kind": "progress", "stage": "conv", **conv})
        time.sleep(0.2)
        return SmokeResult(status="ok", ok=True, seconds=0.4, conv_check=ConvCheck(**conv)), {}

    monkeypatch.setattr(frameworks, "run_smoke", fake_run_smoke)
    results = frameworks.smoke_all([FrameworkInfo(name="mindspore", installed=True)], timeout=30, confirm_early=True)
    assert rerun_saw_cancel == [True]  # the rerun was stopped by the cancel, not by its own 10 s limit
    assert ("mindspore", ("--conv-only",)) in calls
    check = results["mindspore"]["smoke"].conv_check
    assert check.slow is False and check.capped_conv_ms is None


@pytest.mark.slow
def test_torch_smoke_runs_on_several_devices_without_shared_state():
    """Found on a real H200: after the CPU pass, cuda:0 saw a non-leaf weight and .grad None.
    Running the same smoke twice on the CPU exercises the same shared state."""
    import torch

    from probes.check.smoke_worker import _torch_smoke_fn

    smoke = _torch_smoke_fn(torch, lambda device: None)
    assert smoke("cpu") is None
    assert smoke("cpu") is None
