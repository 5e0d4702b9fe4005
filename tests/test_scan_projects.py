"""Whole fixture projects: the plain CNN, the risky model, unsafe files, and never running the code."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.scan import scan_path
from advisor.scan.imports import API_ROOTS, HUB_ROOTS

FIXTURES = Path(__file__).parent / "fixtures" / "scan"


def _copy(name, dest, as_name):
    shutil.copy(FIXTURES / name, dest / as_name)


@pytest.fixture
def plain_cnn(tmp_path):
    _copy("plain_cnn.py.txt", tmp_path, "train.py")
    return tmp_path


@pytest.fixture
def risky_project(tmp_path):
    _copy("dynamic_model.py.txt", tmp_path, "model.py")
    _copy("fused_op.cu.txt", tmp_path, "fused_op.cu")
    return tmp_path


def test_plain_cnn_is_low_effort_low_risk_manual_rewrite(plain_cnn):
    result = scan_path(plain_cnn)
    assert result.python_files == 1 and not result.skipped
    assert result.risk == "low", result.risk_reasons
    assert result.route == "manual rewrite"
    low, high = result.effort_hours
    assert 0 < low <= high <= 24  # "an afternoon" to a few days, never weeks
    kinds = {h.kind for h in result.hazards}
    assert kinds <= {"normalize", "lr_scheduler", "inplace_op", "dataloader_option"}
    assert "normalize" in kinds and "lr_scheduler" in kinds
    names = {a.name for a in [*result.apis, *result.unmapped]}
    assert {"torch.nn.Conv2d", "torch.nn.BatchNorm2d", "torch.optim.SGD", "torch.utils.data.DataLoader"} <= names
    # the total is built from the items: lows add up, highs add up to the worst case, and the
    # high end is the low plus the root-sum-square of the independent ranges
    items = [i.effort_hours for i in result.effort_breakdown.items]
    # every hazard kind is an item, beside the lines and module classes to port
    named = {i.item for i in result.effort_breakdown.items}
    assert {f"hazard {s.kind}" for s in result.hazard_summary} <= named
    assert "port code (model)" in named and "nn.Module classes to port and check" in named
    assert result.effort_hours[0] == pytest.approx(sum(i[0] for i in items), abs=0.01)
    assert result.effort_worst_case_hours == pytest.approx(sum(i[1] for i in items), abs=0.01)
    # the line-cost items share one rate, module and parity items one harness: their ranges add up
    # inside the group; the groups and the other items combine as a root-sum-square
    groups = {}
    for i in result.effort_breakdown.items:
        key = {"code": "rate", "modules": "harness", "parity": "harness"}.get(i.kind, i.item)
        groups[key] = groups.get(key, 0.0) + i.effort_hours[1] - i.effort_hours[0]
    spread = sum(r * r for r in groups.values()) ** 0.5
    assert result.effort_hours[1] == pytest.approx(result.effort_hours[0] + spread, abs=0.01)
    # APIs whose use is the hazard (Normalize, StepLR) are costed once, in the hazard
    normalize = next(a for a in [*result.apis, *result.unmapped] if a.name == "torchvision.transforms.Normalize")
    assert normalize.effort_hours == (0.0, 0.0) and "normalize hazard" in normalize.effort_basis


def test_dynamic_control_flow_and_cuda_extension_is_high_risk(risky_project, plain_cnn):
    result = scan_path(risky_project)
    where = {(h.kind, h.file, h.line) for h in result.hazards}
    # MindSpore 2.10 Graph mode compiles all three (tests/test_scan_graph_mode.py): not flagged
    assert not [w for w in where if w[0] == "tensor_control_flow"]  # shape if, while on a value, None check
    assert ("custom_extension", "model.py", 6) in where  # cpp_extension.load
    assert ("custom_extension", "fused_op.cu", 3) in where  # __global__ void scale_kernel
    assert result.extension_sources == 1
    assert result.risk == "high"
    assert any("custom_extension" in r for r in result.risk_reasons)
    assert result.route == "manual rewrite" and "ONNX" in " ".join(result.route_alternatives)
    assert result.effort_hours[1] > scan_path(plain_cnn).effort_hours[1] / 4  # not trivially small


def test_json_document_shape(risky_project, capsys):
    assert main(["scan", str(risky_project), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema_version"]
    for key in ("apis", "hazards", "skipped", "effort_hours", "risk", "route"):
        assert key in doc
    for api in doc["apis"]:
        assert {"name", "count", "mapping", "mindspore", "note"} <= set(api)
        assert api["mapping"] in ("same", "differs", "none")
        # PyTorch APIs, or hub APIs the knowledge base itself maps (e.g. transformers.AutoModel.from_pretrained)
        assert api["name"].split(".")[0] in API_ROOTS + HUB_ROOTS
    for hazard in doc["hazards"]:
        assert {"kind", "file", "line", "message", "fix"} <= set(hazard)
        assert isinstance(hazard["line"], int) and hazard["fix"]
    low, high = doc["effort_hours"]
    assert 0 <= low <= high
    assert doc["risk"] in ("low", "medium", "high")
    assert doc["route"] in (
        "manual rewrite",
        "ONNX -> MindIR conversion",
        "adapter layer",
        "stay on PyTorch via torch_npu",
        "nothing to migrate",
    )
    assert doc["effort_breakdown"]["items"] and doc["effort_breakdown"]["by_file"]


def test_text_output_and_output_file(plain_cnn, tmp_path_factory, capsys):
    assert main(["scan", str(plain_cnn)]) == 0
    text = capsys.readouterr().out
    assert "Effort:" in text and "Risk:   low" in text and "Route:  manual rewrite" in text
    assert "normalize" in text and "train.py:" in text
    out = tmp_path_factory.mktemp("out") / "scan.json"
    assert main(["scan", str(plain_cnn), "--json", "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert json.loads(out.read_text())["risk"] == "low"


def test_missing_path_is_a_usage_error(tmp_path, capsys):
    assert main(["scan", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("advisor: error:") and err.count("\n") == 1 and "nope" in err


def test_broken_binary_huge_and_escaping_files_are_skipped(tmp_path_factory):
    root = tmp_path_factory.mktemp("proj")
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.py").write_text("import torch\ntorch.zeros(1)\n")
    (root / "good.py").write_text("import torch\nx = torch.ones(2)\n")
    (root / "broken.py").write_text("def broken(:\n    pass\n")
    (root / "blob.py").write_bytes(b"import torch\x00\x01\x02")
    (root / "huge.py").write_text("x = 1\n" * 400_000)  # 2.4 MB
    (root / "link.py").symlink_to(outside / "secret.py")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    os.mkfifo(root / "pipe.py")  # reading it would block forever
    (root / ".venv").mkdir()
    (root / ".venv" / "lib.py").write_text("import torch\ntorch.zeros(1)\n")
    result = scan_path(root)
    reasons = {s.file: s.reason for s in result.skipped}
    assert "does not parse" in reasons["broken.py"] and "line 1" in reasons["broken.py"]
    assert "binary" in reasons["blob.py"]
    assert "larger than 2 MB" in reasons["huge.py"]
    assert "outside PATH" in reasons["link.py"]
    assert "outside PATH" in reasons["linkdir"]
    assert ".venv/" in reasons
    assert reasons["pipe.py"] == "not a regular file"
    assert result.python_files == 1
    names = {a.name: a.count for a in [*result.apis, *result.unmapped]}
    assert names == {"torch.ones": 1}  # nothing from outside, the venv or the skipped files
    assert any("could not be parsed" in r for r in result.risk_reasons)


MARKER_CODE = """
import pathlib
pathlib.Path({marker!r}).write_text("executed")
import torch
class Net(torch.nn.Module):
    def forward(self, x):
        pathlib.Path({marker!r}).write_text("executed")
        return x
Net()(1)
"""


def test_scanning_never_executes_or_imports_the_code(tmp_path_factory):
    """The scanned files would write a marker when run or imported; a scan in a fresh interpreter
    must leave no marker, and must not load torch either (it only parses)."""
    root = tmp_path_factory.mktemp("evil")
    marker = tmp_path_factory.mktemp("markers") / "ran.txt"
    pkg = root / "evil_pkg"
    pkg.mkdir()
    for name in ("__init__.py", "main.py", "setup.py", "conftest.py"):
        (pkg / name).write_text(MARKER_CODE.format(marker=str(marker)))
    (root / "__main__.py").write_text(MARKER_CODE.format(marker=str(marker)))
    probe = (
        "import sys, json\n"
        "from advisor.scan import scan_path\n"
        f"r = scan_path({str(root)!r})\n"
        "print(json.dumps({'files': r.python_files, 'torch': 'torch' in sys.modules}))\n"
    )
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    done = subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {"files": 5, "torch": False}
    assert not marker.exists()


def test_bad_output_folder_and_missing_argument_exit_2(plain_cnn, tmp_path_factory, capsys):
    missing = tmp_path_factory.mktemp("o") / "no" / "such" / "scan.json"
    assert main(["scan", str(plain_cnn), "--json", "-o", str(missing)]) == 2
    assert main(["scan"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("advisor: error:") for line in err)
    assert not missing.parent.exists()
