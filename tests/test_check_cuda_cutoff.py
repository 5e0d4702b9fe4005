"""MindSpore's last CUDA line comes from the knowledge base's compatibility matrix (frameworks.yaml),
not from a version written into the check."""

from __future__ import annotations

import knowledge
from advisor.check.host import evaluate
from tests.test_check_findings import _cpu_wheel_with_gpus, fw, healthy


def _with_gpu_rows(kb, through: str):
    """A copy of the knowledge base whose MindSpore rows up to `through` carry a CUDA (gpu) build."""
    ms = next(f for f in kb.frameworks if f.id == "mindspore")
    rows = []
    for v in ms.versions:
        devices = list(v.devices)
        if v.version == through and "gpu" not in devices:
            devices.append("gpu")
        rows.append(v.model_copy(update={"devices": devices}))
    frameworks = [f if f.id != "mindspore" else f.model_copy(update={"versions": rows}) for f in kb.frameworks]
    return kb.model_copy(update={"frameworks": frameworks})


def _cuda_finding(kb, version: str):
    r = healthy()
    _cpu_wheel_with_gpus(r)
    fw(r, "mindspore").version = version
    return next(
        (f for f in evaluate(r, env={}, cxx="/usr/bin/g++", kb=kb) if f.code == "mindspore_cuda_unsupported"), None
    )


def test_the_bundled_matrix_ends_cuda_at_2_2_and_the_finding_names_that_row():
    kb = knowledge.load()
    found = _cuda_finding(kb, "2.3.0")
    assert found is not None and "up to 2.2.x" in found.message and "Python <= 3.9" in found.fix
    assert "mindspore 2.2.x" in found.evidence
    assert _cuda_finding(kb, "2.2.14") is None


def test_a_matrix_with_a_later_cuda_row_moves_the_cut_off():
    kb = _with_gpu_rows(knowledge.load(), "2.4.0")
    assert _cuda_finding(kb, "2.3.0") is None and _cuda_finding(kb, "2.4.0") is None
    later = _cuda_finding(kb, "2.5.0")
    assert later is not None and "up to 2.4.0" in later.message
