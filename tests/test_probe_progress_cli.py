"""Every CLI probe command shows its progress through advisor.progress.probe_progress:
a plan line, a line per finished run with the ETA and a re-plan said in words, all on stderr; stdout
and --json untouched. The runners are replaced by stand-ins that send each runner's own events
(typed, (run_id, dict), DeployEvent, ScalingEvent) and then stop the command, so no framework runs."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from advisor.cli import main
from advisor.estimates import Load


@pytest.fixture(autouse=True)
def quiet_host(monkeypatch):
    """The plan's contention is this test's, not the machine's at the moment it runs."""
    monkeypatch.setattr("advisor.estimates.load_now", lambda window=None: Load(2, 0.0))


class Stop(Exception):
    """Ends the command after the events: the test reads the progress, not a result."""


def _training(on_event):
    from probes.training.models import ProbeEvent

    on_event(ProbeEvent(run_id="pytorch-aux", kind="start", message="pytorch: GEMM peak"))
    on_event(ProbeEvent(run_id="pytorch-aux", kind="done", message="ok"))
    on_event(ProbeEvent(run_id="pytorch-eager-lenet-bs32", kind="start", index=1, total=1))
    on_event(ProbeEvent(run_id="pytorch-eager-lenet-bs32", kind="progress", fraction=0.5, index=1, total=1))
    on_event(
        ProbeEvent(
            run_id="pytorch-eager-lenet-bs32", kind="done", message="ok", images_per_second=1234.5, index=1, total=1
        )
    )


def _per_run_dict(run_id):
    def send(on_event):
        on_event(run_id, {"kind": "start"})
        on_event(run_id, {"kind": "progress", "epoch": 1, "epochs": 2, "accuracy": 0.5})
        on_event(run_id, {"kind": "done", "run": SimpleNamespace(status="failed", error="boom")})

    return send


def _deploy(on_event):
    from probes.deploy.models import DeployEvent

    on_event(DeployEvent(step_id="pytorch-onnx-lenet", kind="start", message="export", index=1))
    on_event(DeployEvent(step_id="pytorch-onnx-lenet", kind="done", message="ok", status="ok", index=1))


def _gpt(on_event):
    from probes.transformer.models import GptEvent

    on_event(GptEvent(run_id="pytorch-eager-gpt", kind="start", index=1, total=2))
    on_event(GptEvent(run_id="pytorch-eager-gpt", kind="done", index=1, total=2, message="ok", tokens_per_second=900))
    on_event(GptEvent(run_id="pytorch-eager-gpt", kind="start", index=2, total=3))  # the stop rule adds a round


def _scaling(on_event):
    from probes.scaling.models import ScalingEvent

    rid = "pytorch-lenet-r1-rep1"
    on_event(ScalingEvent(kind="start", run_id=rid, fraction=0.0, message="torchrun", index=1, total=6))
    on_event(ScalingEvent(kind="progress", run_id=rid, fraction=0.1, run_fraction=0.5, message="x", index=1, total=6))
    on_event(ScalingEvent(kind="done", run_id=rid, fraction=0.17, message=f"{rid}: 321 img/s total", index=1, total=6))


def _stand_in(send, on_event_position):
    def runner(*args, **kwargs):
        on_event = kwargs.get("on_event", args[on_event_position] if len(args) > on_event_position else None)
        if on_event is not None:
            send(on_event)
        raise Stop

    return runner


CASES = {
    # kind: (argv, runner to replace, position of on_event, the events, a done line it must print)
    "training": (
        ["probe", "--frameworks", "pytorch", "--models", "lenet", "--modes", "eager", "--repeat", "1",
         "--max-repeat", "1", "--no-cache", "--no-parity"],
        "probes.training.runner.run_suite", 1, _training,
        "advisor: pytorch-eager-lenet-bs32: ok, 1,234 img/s (1 of 1 runs finished)",
    ),
    "accuracy": (
        ["probe", "--accuracy", "--frameworks", "pytorch", "--modes", "eager", "--seeds", "1", "--epochs", "2"],
        "probes.accuracy.runner.run_suite", 2, _per_run_dict("pytorch-eager-seed0"),
        "advisor: pytorch-eager-seed0: failed: boom (1 of 1 runs finished)",
    ),
    "pipeline": (
        ["probe", "--pipeline", "--frameworks", "pytorch", "--loader-workers", "2"],
        "probes.pipeline.runner.run_suite", 2, _per_run_dict("pytorch-dataloader-w0"),
        # two loaders (0 and 2 workers), three passes each: a step per child
        "advisor: pytorch-dataloader-w0: failed: boom (1 of 6 passes finished, about ",
    ),
    "deploy": (
        ["probe", "--deploy", "--frameworks", "pytorch", "--models", "lenet"],
        "probes.deploy.runner.run_deploy", 1, _deploy,
        # pytorch: 2 exports + its source baseline + 2 served artefacts = 5 steps planned
        "advisor: pytorch-onnx-lenet: ok (1 of 5 steps finished, about ",
    ),
    "gpt": (
        ["probe", "--models", "gpt", "--frameworks", "pytorch", "--modes", "eager", "--no-cache"],
        "probes.transformer.runner.run", 1, _gpt,
        "advisor: pytorch-eager-gpt: ok, 900.0 tokens/s (1 of 3 runs finished, about ",
    ),
    "scaling": (
        ["probe", "--scaling", "--frameworks", "pytorch", "--ranks", "1,2", "--no-cache"],
        "probes.scaling.runner.run_scaling", 1, _scaling,
        # 3 repetitions of 1 and 2 ranks, planned before the first launch
        "advisor: pytorch-lenet-r1-rep1: 321 img/s total (1 of 6 launches finished, about ",
    ),
}  # fmt: skip


@pytest.mark.parametrize("kind", list(CASES))
def test_every_probe_kind_prints_the_one_progress_on_stderr(kind, monkeypatch, capsys):
    argv, target, position, send, done_line = CASES[kind]
    module, _, name = target.rpartition(".")
    monkeypatch.setattr(f"{module}.{name}", _stand_in(send, position))
    assert main(argv) == 1  # Stop: an internal error line, after the progress
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == ""
    assert lines[0].startswith(f"advisor: {kind}: ")
    assert any(line.startswith(done_line) for line in lines), err
    assert "pytorch-aux" not in err  # the GEMM / parity child is not a run (it was named 'pytorch-aux')
    assert "\x1b" not in err and "\r" not in err  # not a terminal: plain lines


def test_a_re_plan_is_said_in_words():
    from advisor.progress import probe_progress

    stream = io.StringIO()
    with probe_progress("gpt", None, stream=stream) as on_event:
        _gpt(on_event)
    last = stream.getvalue().splitlines()[-2]  # the ETA's figure depends on the clock: not asserted
    assert last.startswith("advisor: gpt: 1 of 3 runs finished, about ") and last.endswith(
        "; re-planned: 3 runs (was 2)"
    )


@pytest.mark.parametrize("kind", ["training", "deploy", "scaling"])
def test_json_prints_no_progress(kind, monkeypatch, capsys):
    argv, target, position, send, _ = CASES[kind]
    module, _, name = target.rpartition(".")
    monkeypatch.setattr(f"{module}.{name}", _stand_in(send, position))
    assert main([*argv, "--json"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("advisor: internal error: Stop") and err.count("\n") == 1


def test_a_dumb_terminal_gets_plain_lines(monkeypatch):
    """TERM=dumb cannot redraw a line: no escape sequences, no carriage returns (as when piped)."""
    from advisor.progress import probe_progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setenv("TERM", "dumb")
    stream = Tty()
    with probe_progress("gpt", None, stream=stream) as on_event:
        _gpt(on_event)
    text = stream.getvalue()
    assert "\x1b" not in text and "\r" not in text
    assert "advisor: pytorch-eager-gpt: ok, 900.0 tokens/s (1 of 2 runs finished" in text


def test_on_a_terminal_the_bar_is_rich_and_goes_to_stderr_only(monkeypatch):
    from advisor.progress import probe_progress
    from probes.transformer.models import GptEvent

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setenv("TERM", "xterm-256color")
    stream = Tty()
    with probe_progress("gpt", None, stream=stream) as on_event:
        _gpt(on_event)
        on_event(GptEvent(run_id="x", kind="done", message="[Errno 2] no such file", index=2, total=3))
    text = stream.getvalue()
    assert text.startswith("advisor: gpt: runs announced as they start\n") and "\x1b[" in text  # a live bar
    assert "x: [Errno 2] no such file" in text  # printed as text: brackets are not rich markup
    assert "pytorch-eager-gpt: ok, 900.0 tokens/s" in text  # the finished run, printed above the bar
