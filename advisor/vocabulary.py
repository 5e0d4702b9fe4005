"""The words every part of the tool shares: the workflows, the frameworks and the probe's models and
modes, with their display labels. One home for each list; the probes keep theirs (they never import
advisor), and the lists here are read from them."""

from __future__ import annotations

from typing import get_args

from probes.training.models import MODES_OF, Model

WORKFLOWS: tuple[str, ...] = ("pytorch", "mindspore", "hybrid")
"""The three workflows the decision model scores, in the order every table lists them."""

WORKFLOW_LABELS: dict[str, str] = {"pytorch": "PyTorch", "mindspore": "MindSpore", "hybrid": "Hybrid"}

FRAMEWORK_LABELS: dict[str, str] = {
    "pytorch": "PyTorch",
    "mindspore": "MindSpore",
    "torch_npu": "PyTorch-on-Ascend (torch_npu)",
}
"""A framework (or the torch_npu adapter) in a reader's words."""

PROBE_MODELS: tuple[str, ...] = get_args(Model)
"""The models the training probe runs."""

MODES_OF_FRAMEWORK: dict[str, tuple[str, ...]] = dict(MODES_OF)
"""framework -> the execution modes the training probe measures it in."""

PROBE_MODES: tuple[str, ...] = tuple(mode for modes in MODES_OF.values() for mode in modes)
"""Every execution mode the training probe measures: eager, compile, graph, pynative."""


def workflow_label(workflow: str) -> str:
    return WORKFLOW_LABELS.get(workflow, workflow)
