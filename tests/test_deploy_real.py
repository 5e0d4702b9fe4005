"""The deployment probe on the real frameworks and engines (CPU, tiny budgets, capped call counts):
export and serve LeNet on every path with parity, ResNet-18's ONNX path from both frameworks, a
failing export naming its operator, a hanging engine killed at its timeout, no onnx/onnxruntime."""

from __future__ import annotations

import importlib.util
import json

import pytest

from advisor.decision.deployment import deployment_evidence
from probes.deploy import common, runner
from probes.deploy.models import DeployConfig, DeployResult

HAVE = {m: importlib.util.find_spec(m) is not None for m in ("torch", "mindspore", "onnx", "onnxruntime")}
needs_all = pytest.mark.skipif(not all(HAVE.values()), reason="needs torch, mindspore, onnx and onnxruntime")
pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def lenet() -> DeployResult:
    if not all(HAVE.values()):
        pytest.skip("needs torch, mindspore, onnx and onnxruntime")
    return runner.run_deploy(DeployConfig(models=["lenet"], batch_sizes=[1, 4], budget=0.2, max_calls=40, threads=1))


@needs_all
def test_lenet_exports_everywhere(lenet):
    by = {e.id: e for e in lenet.exports}
    assert set(by) == {
        "pytorch-onnx-lenet",
        "pytorch-torch.export-lenet",
        "mindspore-mindir-lenet",
        "mindspore-onnx-lenet",
    }
    for e in by.values():
        assert e.status == "ok", (e.id, e.error)
        assert e.size_bytes > 200_000  # 61,706 fp32 parameters = 247 kB
        assert e.seconds is not None and e.exporter
    assert isinstance(by["pytorch-onnx-lenet"].opset, int) and isinstance(by["mindspore-onnx-lenet"].opset, int)
    assert "dynamo" in by["pytorch-onnx-lenet"].exporter  # the current exporter ran (onnxscript is here)


@needs_all
def test_lenet_serves_on_every_engine(lenet):
    by = {s.id: s for s in lenet.serves}
    assert set(by) == {
        "pytorch-source-lenet@torch-eager",
        "mindspore-source-lenet@mindspore-graph",
        "pytorch-onnx-lenet@onnxruntime-cpu",
        "pytorch-torch.export-lenet@torch.export",
        "mindspore-mindir-lenet@mindspore-graphcell",
        "mindspore-onnx-lenet@onnxruntime-cpu",
    }
    for s in by.values():
        assert s.status == "ok", (s.id, s.error)
        assert [t.batch_size for t in s.timings] == [1, 4]
        assert s.latency_ms["p50"] > 0 and s.latency_ms["p99"] >= s.latency_ms["p50"]
        assert s.throughput > 0 and s.peak_memory_mb > 0
        assert s.first_inference_seconds >= s.load_seconds >= 0
    for sid in ("pytorch-onnx-lenet@onnxruntime-cpu", "mindspore-onnx-lenet@onnxruntime-cpu"):
        where = by[sid].placement
        assert where["nodes"] > 0 and where["chosen"] == "CPUExecutionProvider" and where["fallback"] == []


@needs_all
def test_lenet_parity_within_the_fp32_tolerance(lenet):
    checks = {(p.a, p.b): p for p in lenet.parity}
    assert len(checks) == 6  # 4 artefacts vs their source, ONNX vs ONNX, source vs source
    for p in checks.values():
        assert p.status == "ok" and p.ok, (p.id, p.error)
        assert p.max_abs_diff <= p.tolerance and p.batch_size == 4
    cross = checks[("pytorch-onnx-lenet@onnxruntime-cpu", "mindspore-onnx-lenet@onnxruntime-cpu")]
    assert cross.kind == "cross"


@needs_all
def test_lenet_result_roundtrips_and_is_judged(lenet):
    doc = json.loads(lenet.model_dump_json())
    assert DeployResult(**doc).kind == "deploy"
    rows = {(r.framework, r.target): r for r in deployment_evidence(doc)}
    for key in [
        ("pytorch", "onnxruntime"),
        ("pytorch", "torch.export"),
        ("mindspore", "mindir"),
        ("mindspore", "onnxruntime"),
    ]:
        assert rows[key].measured and rows[key].score >= 80, rows[key]  # exports, serves, agrees
    assert rows[("mindspore", "mindspore-lite")].score is None  # not installed here


@needs_all
def test_resnet18_onnx_from_both_frameworks_agrees():
    res = runner.run_deploy(
        DeployConfig(models=["resnet18"], formats=["onnx"], batch_sizes=[1], budget=0.1, max_calls=5, threads=1)
    )
    assert [e.status for e in res.exports] == ["ok", "ok"], [e.error for e in res.exports]
    assert all(e.size_bytes > 44_000_000 for e in res.exports)  # 11.2 M fp32 parameters
    assert all(s.status == "ok" for s in res.serves), [(s.id, s.error) for s in res.serves]
    assert res.parity and all(p.ok for p in res.parity), [(p.id, p.max_abs_diff, p.tolerance) for p in res.parity]


@pytest.mark.parametrize("fw,op", [("pytorch", "cummax"), ("mindspore", "Cummax")])
def test_rejected_operator_is_a_failed_step_naming_it(fw, op, tmp_path):
    if not HAVE["torch" if fw == "pytorch" else "mindspore"] or not HAVE["onnx"]:
        pytest.skip(f"needs {fw} and onnx")
    step = runner.export_step(fw, "onnx", "lenet", DeployConfig(inject_op="cummax", threads=1), str(tmp_path))
    assert step.status == "failed"
    assert step.operator and op in step.operator, step.error
    assert op in step.error


def test_hanging_engine_is_killed_at_its_timeout(tmp_path, monkeypatch):
    monkeypatch.setenv(common.HANG_ENV, "onnxruntime")
    step = runner.serve_step(
        "pytorch-onnx-lenet@onnxruntime-cpu",
        "onnxruntime",
        "pytorch",
        "onnx",
        "lenet",
        "onnxruntime-cpu",
        str(tmp_path / "none.onnx"),
        DeployConfig(timeout=2),
        str(tmp_path),
        provider="CPUExecutionProvider",
    )
    assert step.status == "timeout" and "killed" in step.error  # ended by its 2 s timeout, not by finishing


def test_without_onnx_the_steps_say_unavailable(tmp_path, monkeypatch):
    if not HAVE["torch"]:
        pytest.skip("needs torch")
    monkeypatch.setenv(common.HIDE_ENV, "onnx,onnxscript,onnxruntime")
    step = runner.export_step("pytorch", "onnx", "lenet", DeployConfig(threads=1), str(tmp_path))
    assert step.status == "unavailable" and "onnx package is not installed" in step.error
    serve = runner.serve_step(
        "x@onnxruntime-cpu",
        "onnxruntime",
        "pytorch",
        "onnx",
        "lenet",
        "onnxruntime-cpu",
        str(tmp_path / "x.onnx"),
        DeployConfig(),
        str(tmp_path),
        provider="CPUExecutionProvider",
    )
    assert serve.status == "unavailable" and "onnxruntime is not installed" in serve.error
    from probes.deploy import engines

    rows = {e["name"]: e for e in engines.installed_engines()}
    ok_export = DeployResult().exports  # noqa: F841 (the plan below needs only the engines)
    plan = runner.serve_plan(
        "lenet",
        [
            runner.ExportStep(
                id="pytorch-onnx-lenet",
                framework="pytorch",
                format="onnx",
                model="lenet",
                status="ok",
                files=[str(tmp_path / "x.onnx")],
            )
        ],
        DeployConfig(frameworks=["pytorch"]),
        rows,
    )
    ort = [p for p in plan if p["worker"] == "onnxruntime"]
    assert len(ort) == 1 and "hidden" in ort[0]["unavailable"]
