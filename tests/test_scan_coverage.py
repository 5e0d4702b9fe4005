"""API coverage: the mappings added from real projects name MindSpore APIs that exist in the installed
MindSpore, and the scan sorts APIs into MindSpore Dev Toolkit's three bins."""

import importlib.util
import json
import subprocess
import sys

import pytest

import knowledge
from advisor.scan import scan_path

CHECKED = "checked present in the installed MindSpore"


def test_mappings_cover_the_common_apis_of_real_projects():
    kb = knowledge.load()
    names = {m.pytorch for m in kb.api_mappings}
    assert len(kb.api_mappings) >= 300
    for name in (
        "torch.empty",
        "torch.zeros_like",
        "torch.split",
        "torch.float16",
        "torch.meshgrid",
        "torch.nn.functional.layer_norm",
        "torch.jit.ignore",
        "torch.nonzero",
        "torch.fx",
    ):
        assert name in names, name


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="MindSpore is not installed")
def test_every_checked_target_exists_in_the_installed_mindspore(tmp_path):
    targets = sorted({m.mindspore for m in knowledge.load().api_mappings if m.mindspore and CHECKED in m.source})
    assert len(targets) > 100
    script = (
        "import importlib, json, sys\n"
        "missing = []\n"
        f"for name in {targets!r}:\n"
        "    mod, _, attr = name.rpartition('.')\n"
        "    try:\n"
        "        if not hasattr(importlib.import_module(mod), attr): missing.append(name)\n"
        "    except ImportError:\n"
        "        missing.append(name)\n"
        "print('RESULT ' + json.dumps(missing))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line, done.stderr[-2000:]
    assert json.loads(line[len("RESULT ") :]) == []


def test_apis_are_sorted_as_the_dev_toolkit_does(tmp_path):
    (tmp_path / "m.py").write_text(
        "import torch\nfrom torch import nn\nx = torch.zeros(2)\ny = x.view(1, 2)\nz = torch.not_a_real_api(x)\n"
        "c = nn.Conv2d(1, 1, 1)\n"
    )
    r = scan_path(tmp_path)
    bins = {a.name: a.toolkit for a in [*r.apis, *r.unmapped]}
    assert bins["torch.zeros"] == "convertible" and bins["torch.nn.Conv2d"] == "convertible"
    assert bins["torch.Tensor.view"] == "probably_tensor"  # matched by method name on an untyped object
    assert bins["torch.not_a_real_api"] == "no_mapping"
    assert r.api_classes == {"convertible": 2, "probably_tensor": 1, "no_mapping": 1}
