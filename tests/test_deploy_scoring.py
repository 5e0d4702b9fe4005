"""The deployment probe's evidence in the deployment criterion: a CPU server is judged by the
measured path; accelerator targets keep their knowledge-base fit, capped when no export works."""

from __future__ import annotations

from types import SimpleNamespace

from advisor.decision.constants import Consts
from advisor.decision.criteria.deployment import deployment_fit as _deployment_fit
from advisor.decision.deployment import DeployPath


def _ctx(rows):
    return SimpleNamespace(kb=None, deploy=rows)


def _row(fw, target, score):
    return DeployPath(fw, target, score, score is not None, [], "measured here", {})


def test_nothing_measured_keeps_the_knowledge_base_fit():
    k = Consts(None)
    assert _deployment_fit("pytorch", "ascend-server", _ctx([]), k)[0] == k["CONVERSION_FIT"]


def test_a_cpu_server_is_judged_by_the_best_measured_path():
    k = Consts(None)
    value, ev, note = _deployment_fit(
        "mindspore", "cpu-server", _ctx([_row("mindspore", "mindir", 95), _row("mindspore", "onnxruntime", 100)]), k
    )
    assert value == 100 and "measured here" in note
    assert {e.kind for e in ev} == {"measured"}


def test_no_working_export_caps_an_accelerator_target_and_a_working_one_only_adds_evidence():
    k = Consts(None)
    failed = _ctx([_row("mindspore", "mindir", 0), _row("mindspore", "onnxruntime", 30)])
    value, ev, note = _deployment_fit("mindspore", "ascend-server", failed, k)
    assert value == 30 and "capped" in note
    working = _ctx([_row("mindspore", "mindir", 100)])
    value, ev, _ = _deployment_fit("mindspore", "ascend-server", working, k)
    assert value == k["NATIVE_FIT"] and any(e.kind == "measured" for e in ev)
