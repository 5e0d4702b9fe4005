"""Condition strings over the requirements and Pitfall.applies."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import knowledge
from knowledge.conditions import holds, parse_condition

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

REQ = {
    "hardware": {"available": ["nvidia", "ascend"], "training_target": "ascend", "devices": 8},
    "deployment": {"targets": ["ascend-server", "edge-ascend"]},
    "model": {"dynamic_control_flow": False, "custom_cuda_ops": True, "parameters_millions": 25.6},
    "needs": {"huggingface": "nice", "distributed_training": True},
}


@pytest.mark.parametrize(
    "cond, expected",
    [
        ("hardware.training_target=ascend", True),
        ("hardware.training_target=ASCEND", True),
        ("hardware.training_target=nvidia", False),
        ("hardware.training_target!=nvidia", True),
        ("hardware.training_target=nvidia|ascend", True),
        ("hardware.available=nvidia", True),
        ("hardware.available=cpu", False),
        ("hardware.available!=cpu", True),
        ("deployment.targets=edge-ascend", True),
        ("needs.distributed_training", True),
        ("model.dynamic_control_flow", False),
        ("!model.dynamic_control_flow", True),
        ("model.custom_cuda_ops=true", True),
        ("needs.huggingface!=none", True),
        ("hardware.devices=8", True),
        ("model.parameters_millions=25.6", True),
        ("needs.edge_cloud", False),  # missing -> false
        ("team.pytorch!=none", False),  # missing counts as 'none'
        ("constraints.deadline_weeks", False),
    ],
)
def test_holds(cond, expected):
    assert holds(cond, REQ) is expected


def test_missing_parent_and_none_value():
    assert holds("needs.huggingface!=none", {"needs": {"huggingface": "none"}}) is False
    assert holds("needs.huggingface!=none", {}) is False
    assert holds("workload.model=resnet50", {"workload": None}) is False


@pytest.mark.parametrize("bad", ["", "=x", "a.b=", "a..b", "a.b==c", "!a=b", "a b"])
def test_bad_conditions_are_rejected(bad):
    with pytest.raises(ValueError, match="bad condition"):
        parse_condition(bad)


def test_pitfall_model_rejects_bad_condition():
    from pydantic import ValidationError

    from knowledge.models import Pitfall

    with pytest.raises(ValidationError, match="bad condition"):
        Pitfall(
            id="x",
            title="t",
            symptom="s",
            cause="c",
            fix="f",
            workflows=["hybrid"],
            applies_when=["a b"],
            source="s",
            confidence="assumption",
        )


def _example(name):
    return yaml.safe_load((EXAMPLES / name).read_text())


def test_pitfalls_apply_to_the_example_teams():
    kb = knowledge.load()
    ascend = _example("prototype-then-ascend.yaml")
    research = _example("nvidia-research-team.yaml")
    hybrid = {p.id for p in kb.pitfalls_for("hybrid", ascend)}
    assert {"hccl-configuration", "version-matrix", "normalize-range", "pretrained-weights-hub"} <= hybrid
    assert "graph-dynamic-control-flow" not in hybrid  # dynamic_control_flow: false
    assert "mindspore-gpu-unsupported" not in hybrid
    research_mindspore = {p.id for p in kb.pitfalls_for("mindspore", research)}
    assert {"graph-dynamic-control-flow", "mindspore-gpu-unsupported", "pretrained-weights-hub"} <= research_mindspore
    assert "hccl-configuration" not in research_mindspore
    assert all("pytorch" in p.workflows for p in kb.pitfalls_for("pytorch"))


def test_applies_accepts_a_requirements_model():
    from advisor.requirements import load_requirements

    kb = knowledge.load()
    req = load_requirements(str(EXAMPLES / "ascend-production.yaml"))
    assert kb.get("hccl-configuration").applies(req)
    assert not kb.get("pretrained-weights-hub").applies(req)  # huggingface: none
