"""Typed results in the TUI: a result enters the state as its kind's model once,
and the screens and widgets read attributes, never a "model or mapping" helper."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

sys.path.insert(0, str(Path(__file__).parent))

from probes.deploy.models import DeployResult  # noqa: E402
from tui.state import Measurement, RunProgress, StepEnd  # noqa: E402

ROOT = Path(__file__).parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "tui"


def test_a_result_read_back_as_a_mapping_becomes_the_kinds_model_where_it_enters_the_state():
    data = json.loads((FIXTURES / "deploy-lenet.json").read_text())
    state = Measurement("deploy")
    state.result = data
    assert isinstance(state.result, DeployResult)
    assert state.result.model_dump(mode="json") == DeployResult.model_validate(data).model_dump(mode="json")
    with pytest.raises(ValidationError):  # a mapping of another shape is refused there, not drawn half-way
        state.result = {"exports": "nope"}


def test_a_step_end_mapping_becomes_a_model_on_the_row():
    row = RunProgress("pytorch-onnx-lenet")
    row.apply("start", None, [], None, "exporting", None)
    row.apply("done", None, [], None, None, {"status": "failed", "error": "Cummax is not supported"})
    assert isinstance(row.run, StepEnd)
    assert (row.status, row.message) == ("failed", "Cummax is not supported")


def test_screens_and_widgets_never_read_through_the_model_or_mapping_helper():
    """tui.data.get read a field from a model or a dict alike: it hid a misspelt field as None."""
    readers = [*sorted((ROOT / "tui" / "screens").glob("*.py")), *sorted((ROOT / "tui" / "widgets").glob("*.py"))]
    readers.append(ROOT / "tui" / "state.py")
    offenders = []
    for path in readers:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "tui.data":
                offenders += [f"{path.name}: {a.name}" for a in node.names if a.name == "get"]
    assert offenders == []
