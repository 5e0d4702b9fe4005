"""advisor.vocabulary: the one home of the shared lists, read from the probes where the probes own them."""

from __future__ import annotations

from typing import get_args

from advisor import vocabulary
from advisor.decision import workflows
from advisor.decision.scorecard import WorkflowScore
from probes.training.models import MODES_OF, Model


def test_the_lists_follow_their_owners():
    assert vocabulary.PROBE_MODELS == get_args(Model)
    assert set(vocabulary.PROBE_MODES) == {m for modes in MODES_OF.values() for m in modes}
    assert workflows.WORKFLOWS is vocabulary.WORKFLOWS
    assert set(get_args(WorkflowScore.model_fields["workflow"].annotation)) == set(vocabulary.WORKFLOWS)


def test_every_workflow_and_framework_has_a_label():
    assert set(vocabulary.WORKFLOW_LABELS) == set(vocabulary.WORKFLOWS)
    assert vocabulary.workflow_label("hybrid") == "Hybrid" and vocabulary.workflow_label("other") == "other"
    assert {"pytorch", "mindspore", "torch_npu"} <= set(vocabulary.FRAMEWORK_LABELS)
