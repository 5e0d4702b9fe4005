"""The probe registry: every kind resolves to real pydantic models and a runner with the one signature."""

import inspect

import pytest
from pydantic import BaseModel

from probes import base


@pytest.mark.parametrize("name", sorted(base.KINDS))
def test_every_kind_resolves(name):
    k = base.kind(name)
    assert issubclass(k.Config, BaseModel) and issubclass(k.Result, BaseModel)
    params = list(inspect.signature(k._load(k.run_ref)).parameters)
    assert len(params) >= 3
    expected = ["cancel", "on_event"] if k.native == "config_cancel_on_event" else ["on_event", "cancel"]
    assert params[1:3] == expected, f"{name}: runner arguments {params[:3]} do not match native={k.native}"


def test_unknown_kind_names_the_known_ones():
    with pytest.raises(KeyError, match="training"):
        base.kind("nope")


def test_adapter_turns_both_event_shapes_into_probe_events():
    seen = []
    hook = base._adapter("pipeline", seen.append)
    hook("pytorch-w2", {"kind": "start", "index": 1, "total": 4})
    from probes.training.models import ProbeEvent as TrainingEvent

    hook(TrainingEvent(run_id="pytorch-eager-lenet-bs32", kind="done", fraction=1.0))
    assert [(e.run_id, e.kind, e.total) for e in seen] == [
        ("pytorch-w2", "start", 4),
        ("pytorch-eager-lenet-bs32", "done", None),
    ]
    assert seen[1].fraction == 1.0 and all(e.kind_name == "pipeline" for e in seen)
