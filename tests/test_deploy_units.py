"""The deployment probe's pure parts: operator names from exporter errors, the ONNX header reader,
ORT placement parsing, the serving timer, parity tolerances, the judging and the CLI options."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from advisor.cli import main
from advisor.decision.deployment import PARITY_FAIL_CAP, deployment_evidence
from advisor.commands import deploy as deploy_cli
from probes.deploy import common, engines, onnxmeta, placement, runner, timing

# ------------------------------------------------------------------ operator names (real messages)

# First lines of what torch 2.13 and MindSpore 2.10 raise for cummax (captured on this host).
REAL_ERRORS = {
    "UnsupportedOperatorError: Exporting the operator 'aten::cummax' to ONNX opset version 20 is not "
    "supported. Support for this operator was added in version 20, try exporting with this version.": "aten::cummax",
    "ConversionError: Failed to convert the exported program to an ONNX model. This is step 3/3 of exporting "
    "the model to ONNX. ... No decompositions registered for the real-valued input. Example node: "
    "%cummax : [num_users=1] = call_function[target=torch.ops.aten.cummax.default]": "aten.cummax.default",
    "RuntimeError: Can not find key Cummax in convert map. Exporting Cummax operator is not yet supported.": "Cummax",
}


@pytest.mark.parametrize("text,op", REAL_ERRORS.items())
def test_operator_named_from_real_exporter_errors(text, op):
    assert common.operator_from_error(text) == op


def test_no_operator_when_the_error_names_none():
    assert common.operator_from_error("RuntimeError: disk full") is None


# ------------------------------------------------------------------ ONNX header without onnx


def _varint(n: int) -> bytes:
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def _ld(field: int, payload: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def test_onnx_meta_from_hand_written_protobuf(tmp_path):
    opset = _ld(1, b"") + _varint(2 << 3) + _varint(17)
    ms_opset = _ld(1, b"com.microsoft") + _varint(2 << 3) + _varint(1)
    buf = (
        _varint(1 << 3)
        + _varint(8)
        + _ld(2, b"pytorch")
        + _ld(3, b"2.13.0")
        + _ld(7, b"\x00" * 300)
        + _ld(8, opset)
        + _ld(8, ms_opset)
    )
    p = tmp_path / "m.onnx"
    p.write_bytes(buf)
    meta = onnxmeta.read_meta(str(p))
    assert meta == {
        "opset": {"ai.onnx": 17, "com.microsoft": 1},
        "producer": "pytorch",
        "producer_version": "2.13.0",
        "ir_version": 8,
    }


def test_onnx_meta_agrees_with_the_onnx_package(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import helper, TensorProto

    node = helper.make_node("Relu", ["x"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
    )
    model = helper.make_model(graph, producer_name="advisor-test", opset_imports=[helper.make_opsetid("", 13)])
    p = tmp_path / "relu.onnx"
    onnx.save(model, str(p))
    meta = onnxmeta.read_meta(str(p))
    assert meta["opset"] == {"ai.onnx": 13} and meta["producer"] == "advisor-test"
    assert meta["ir_version"] == model.ir_version


def test_onnx_meta_unreadable_is_none(tmp_path):
    p = tmp_path / "bad.onnx"
    p.write_bytes(b"\x0a\xff\xff\xff")  # a length running past the end
    assert onnxmeta.read_meta(str(p)) is None
    assert onnxmeta.read_meta(str(tmp_path / "missing.onnx")) is None


# ------------------------------------------------------------------ placement (ORT profile format)


def _node(name: str, op: str, provider: str) -> dict:
    # The shape of ONNX Runtime 1.32's profile events (trimmed: the extra args are ignored).
    return {
        "cat": "Node",
        "pid": 1,
        "tid": 1,
        "dur": 12,
        "ts": 100,
        "ph": "X",
        "name": f"{name}_kernel_time",
        "args": {"op_name": op, "provider": provider, "node_index": "3", "output_size": "40"},
    }


def test_placement_all_on_the_chosen_provider():
    events = [
        {"cat": "Session", "name": "model_run", "args": {}},
        _node("/conv1/Conv", "Conv", "CPUExecutionProvider"),
        _node("/relu/Relu", "Relu", "CPUExecutionProvider"),
    ]
    got = placement.node_placement(events, "CPUExecutionProvider")
    assert got["nodes"] == 2 and got["fallback"] == [] and got["by_provider"] == {"CPUExecutionProvider": 2}


def test_placement_reports_silent_cpu_fallback():
    events = [
        _node("/conv1/Conv", "Conv", "CUDAExecutionProvider"),
        _node("/cummax/CumMax", "CumMax", "CPUExecutionProvider"),
        _node("/conv1/Conv", "Conv", "CUDAExecutionProvider"),  # a second run of the same node
        _node("/Flatten", "Flatten", "CPUExecutionProvider"),
    ]
    got = placement.node_placement(events, "CUDAExecutionProvider")
    assert got["nodes"] == 3
    assert got["fallback_ops"] == ["CumMax", "Flatten"]
    assert {f["node"] for f in got["fallback"]} == {"/cummax/CumMax", "/Flatten"}


# ------------------------------------------------------------------ the serving timer


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_time_calls_percentiles_from_a_fake_clock():
    clock = FakeClock()
    costs = iter([0.5] + [0.001] * 10_000)  # first call 0.5 s (load/compile), then 1 ms each

    def call():
        clock.t += next(costs)

    res = timing.time_calls(call, batch=4, budget_s=1.0, clock=clock)
    assert res["first_call_seconds"] == pytest.approx(0.5)
    lat = res["latency_ms"]
    assert lat["p50"] == pytest.approx(1.0) and lat["p99"] == pytest.approx(1.0)
    assert res["images_per_second"] == pytest.approx(4000.0)
    assert res["stop_reason"] == "converged" and lat["n"] == timing.MIN_LATENCY_SAMPLES


def test_unsettled_warmup_leaves_half_the_capped_calls_to_the_measurement():
    clock = FakeClock()
    costs = iter([0.001 * (1 + (i % 2)) for i in range(100)])  # alternating 1/2 ms: never "stable"

    def call():
        clock.t += next(costs)

    res = timing.time_calls(call, batch=1, budget_s=100.0, max_calls=40, clock=clock)
    assert res["warmup_calls"] == 19 and res["latency_ms"]["n"] == 20


def test_time_calls_respects_max_calls_and_warns_on_few_samples():
    clock = FakeClock()

    def call():
        clock.t += 0.002

    res = timing.time_calls(call, batch=1, budget_s=10.0, max_calls=20, clock=clock)
    assert res["calls"] == 20 and res["stop_reason"] == "max_calls"
    assert res["latency_ms"]["n"] >= 10  # warmup never takes more than half of the cap
    assert any("P99" in w for w in res["warnings"])


# ------------------------------------------------------------------ parity


def test_parity_tolerance_grows_with_depth_and_width():
    lenet, r18 = runner.parity_rel_tolerance("lenet"), runner.parity_rel_tolerance("resnet18")
    # LeNet: sqrt(25)+sqrt(150)+sqrt(400)+sqrt(120)+sqrt(84) = 57.4 -> 10 x 2^-23 x 57.4
    assert lenet == pytest.approx(10 * 2**-23 * (5 + math.sqrt(150) + 20 + math.sqrt(120) + math.sqrt(84)))
    assert 1e-5 < lenet < r18 < 1e-3


def test_compare_logits_verdicts():
    a = np.linspace(-3, 3, 40, dtype=np.float32).reshape(4, 10)
    ok = runner.compare_logits(a, a + 1e-6, 1e-5)
    assert ok["ok"] and ok["max_abs_diff"] == pytest.approx(1e-6, rel=0.1)
    bad = runner.compare_logits(a, a + 1e-3, 1e-5)
    assert not bad["ok"] and "above the tolerance" in bad["error"]
    assert not runner.compare_logits(a, a[:2], 1e-5)["ok"]
    nan = a.copy()
    nan[0, 0] = np.nan
    assert runner.compare_logits(a, nan, 1e-5)["error"] == "an output is not finite"


# ------------------------------------------------------------------ judging


def _result(export_status="ok", parity_ok=True, operator=None, p50=0.5) -> dict:
    def serve(sid, art, eng, p):
        return {
            "id": sid,
            "framework": "pytorch",
            "artefact": art,
            "model": "lenet",
            "engine": eng,
            "status": "ok",
            "latency_ms": {"p50": p},
            "timings": [{"batch_size": 1}],
            "placement": None,
        }

    src = "pytorch-source-lenet@torch-eager"
    ort = "pytorch-onnx-lenet@onnxruntime-cpu"
    return {
        "config": {"frameworks": ["pytorch"], "models": ["lenet"]},
        "exports": [
            {
                "id": "pytorch-onnx-lenet",
                "framework": "pytorch",
                "format": "onnx",
                "model": "lenet",
                "status": export_status,
                "operator": operator,
                "error": "export failed" if export_status != "ok" else None,
                "exporter": "torch.onnx.export(dynamo=True)",
                "seconds": 1.0,
                "size_bytes": 250_000,
                "opset": 20,
                "dynamic_batch": True,
            }
        ],
        "serves": [serve(src, "source", "torch-eager", 1.0)]
        + ([serve(ort, "onnx", "onnxruntime-cpu", p50)] if export_status == "ok" else []),
        "parity": [
            {
                "id": "parity-lenet",
                "model": "lenet",
                "kind": "export",
                "a": src,
                "b": ort,
                "status": "ok" if parity_ok else "failed",
                "ok": parity_ok,
                "max_abs_diff": 1e-7 if parity_ok else 1.0,
                "tolerance": 1e-5,
                "error": None if parity_ok else "max abs diff 1 above the tolerance",
            }
        ],
        "not_measured": [],
    }


def _row(rows, target):
    return next(r for r in rows if r.target == target)


def test_working_faster_agreeing_export_scores_full():
    row = _row(deployment_evidence(_result()), "onnxruntime")
    assert row.score == 100 and row.measured
    assert any("agree" in e for e in row.evidence)


def test_slower_artefact_loses_latency_points_only():
    row = _row(deployment_evidence(_result(p50=4.0)), "onnxruntime")  # 4x slower than the source
    assert row.score == 50 + 10 + 20 + 5


def test_failed_export_scores_zero_and_names_the_operator():
    row = _row(deployment_evidence(_result("failed", operator="aten::cummax")), "onnxruntime")
    assert row.score == 0 and "aten::cummax" in row.evidence[0]


def test_disagreeing_artefact_is_capped():
    row = _row(deployment_evidence(_result(parity_ok=False)), "onnxruntime")
    assert row.score == PARITY_FAIL_CAP and any("DISAGREE" in e for e in row.evidence)


def test_unmeasured_target_has_no_score():
    row = _row(deployment_evidence(_result()), "torch.export")
    assert row.score is None and not row.measured and "knowledge base" in row.note


# ------------------------------------------------------------------ engines and the CLI


def test_installed_engines_honour_the_hide_hook(monkeypatch):
    monkeypatch.setenv(common.HIDE_ENV, "onnxruntime")
    rows = {r["name"]: r for r in engines.installed_engines()}
    assert not rows["onnxruntime"]["installed"] and rows["onnxruntime"]["providers"] == []
    assert set(rows) >= {"onnx", "onnxruntime", "mindspore-lite", "tensorrt"}


def _args(argv):
    from advisor.cli import build_parser

    return build_parser().parse_args(["probe", *argv])


def test_deploy_config_from_the_probe_options():
    cfg = deploy_cli.config_from_args(
        _args(["--deploy", "--frameworks", "torch", "--models", "lenet", "--batch-sizes", "32,1,32", "--budget", "1.5"])
    )
    assert cfg.frameworks == ["pytorch"] and cfg.models == ["lenet"]
    assert cfg.batch_sizes == [1, 32] and cfg.budget == 1.5
    default = deploy_cli.config_from_args(_args(["--deploy", "--frameworks", "pytorch"]))
    assert default.budget == 2.0 and default.batch_sizes == [1, 32]


@pytest.mark.parametrize(
    "argv,flag",
    [
        (["--deploy", "--batch-sizes", "0"], "--batch-sizes"),
        (["--deploy", "--batch-sizes", "one"], "--batch-sizes"),
        (["--batch-sizes", "1,32"], "--batch-sizes"),
        (["--deploy", "--modes", "eager"], "--modes"),
        (["--deploy", "--scaling"], "--deploy"),
        (["--deploy", "--device", "cuda"], "--device"),
        (["--deploy", "--repeat", "3"], "--repeat"),
        (["--deploy", "--models", "vgg"], "--models"),
    ],
)
def test_bad_deploy_options_exit_2_naming_the_flag(argv, flag, capsys):
    assert main(["probe", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"advisor: error: {flag}") and "Traceback" not in err


def test_render_table_and_json_shape():
    from advisor.render import renderer
    from probes.deploy.models import DeployConfig, DeployResult

    doc = _result()
    res = DeployResult(
        config=DeployConfig(frameworks=["pytorch"], models=["lenet"]),
        host={"cpu_model": "x"},
        exports=doc["exports"] and [dict(doc["exports"][0], id="pytorch-onnx-lenet")],
        not_measured=["MindSpore Lite is not installed"],
    )
    text = renderer("deploy").format(res)
    assert "pytorch-onnx-lenet" in text and "not measured: MindSpore Lite" in text
    assert json.loads(res.model_dump_json())["kind"] == "deploy"


def test_parent_side_modules_import_no_framework_or_engine():
    import subprocess
    import sys

    code = (
        "import sys; import probes.deploy.runner, advisor.commands.deploy, probes.deploy.engines, advisor.decision.deployment;"
        "import advisor.commands.probe;"
        "print(','.join(m for m in ('torch', 'mindspore', 'onnx', 'onnxruntime', 'textual') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
