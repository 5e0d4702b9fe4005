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


def test_every_kind_has_one_command_line_front_with_the_same_interface():
    """advisor probe loops over probes.base.KINDS: each kind but training (the probe command itself)
    has a front module, found by its name, with its flag, options, refusals and runner."""
    from advisor.commands import probe

    assert set(probe.fronts()) | {"training"} == set(base.KINDS)
    assert probe.front("training") is probe
    for name, front in probe.fronts().items():
        assert front.KIND == name
        for attr in ("PROBE_FLAG", "add_arguments", "wanted", "refuse_unused", "run_from_args"):
            assert hasattr(front, attr), f"{name}: {attr}"


def test_the_help_lists_the_kinds_in_the_registrys_order():
    """`advisor probe --help` lists every registered kind's flags in the registry's order, except that a
    front declaring HELP_AFTER follows that kind (the deploy front follows the pipeline probe): read from
    the registry and the fronts, so a new kind needs no edit here."""
    from advisor.commands import probe

    names = list(probe.fronts())
    assert set(names) == set(base.KINDS) - {"training"} and len(names) == len(set(names))
    after = {name: getattr(probe.front(name), "HELP_AFTER", None) for name in names}
    plain = [name for name in names if after[name] is None]
    assert plain == [name for name in base.KINDS if name in plain]
    for name, anchor in after.items():
        if anchor is not None:
            assert names.index(name) > names.index(anchor), (name, anchor)


@pytest.mark.parametrize(
    "argv, error",
    [
        (["--deploy", "--scaling"], "--deploy: one probe per run; --deploy and --scaling go in separate runs"),
        (["--models", "gpt", "--pipeline"], "--pipeline: one probe per run; --pipeline and --models gpt go in"),
        (["--epochs", "3"], "--epochs: an accuracy-probe option; add --accuracy"),
        (["--feed", "2400x8"], "--loader-workers/--feed: input-pipeline options; add --pipeline"),
        (["--ranks", "1,2"], "--ranks: a scaling-probe option; add --scaling"),
        (["--gpt-seq", "64"], "--gpt-seq: a transformer-probe option; add --models gpt"),
        (["--scaling", "--budget", "3"], "--budget: a training-probe option; the scaling probe (--scaling) does not"),
    ],
)
def test_the_dispatcher_refuses_what_no_chosen_kind_reads(argv, error, capsys, monkeypatch):
    from advisor.cli import main

    for target in ("probes.training.runner.run_suite", "probes.scaling.runner.run_scaling"):
        monkeypatch.setattr(target, lambda *a, **k: pytest.fail("a probe ran"))
    assert main(["probe", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"advisor: error: {error}") and err.count("\n") == 1
