"""One interface for every probe kind, and the registry that lists them.

A kind declares its name, its `Config` and `Result` pydantic models and one `run(config, on_event, cancel)`;
the CLI, the cache, the report's `--X FILE` loaders and the TUI's launchers loop over `KINDS` instead of
naming each kind. Events reach the caller as one `ProbeEvent` (run id, start/progress/done, a planned total
so that every progress display can show an ETA). Runners and models load lazily: importing the registry
costs nothing, so `advisor --help` does not pay for five probe packages.

Adding a kind: its own package under `probes/` plus one `ProbeKind(...)` line in `KINDS`. The line also
carries the facts every front shows of the kind (its title, what its processes are, what one row of it
is, its rate and whether it has a plan): the CLI finds the kind's front by its name
(advisor/commands/probe_<name>.py) and the TUI builds its row from the line, so neither lists the kinds.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, Literal, Optional

from pydantic import BaseModel, ConfigDict

from probes.launcher import Cancel


class ProbeEvent(BaseModel):
    """Live progress of one run of any kind. `index`/`total` are the planned position; `message` is text."""

    model_config = ConfigDict(extra="allow")

    kind_name: str
    run_id: str
    kind: Literal["start", "progress", "done", "replan"]
    fraction: Optional[float] = None
    index: Optional[int] = None
    total: Optional[int] = None
    message: Optional[str] = None
    ok: Optional[bool] = None


OnEvent = Callable[[ProbeEvent], None]


@dataclass(frozen=True)
class ProbeKind:
    """A probe kind: where its config, result and runner live (module:attribute, loaded on use), and the
    words its fronts show of it (plain data: the probes never import a front)."""

    name: str
    summary: str
    config_ref: str
    result_ref: str
    run_ref: str
    # the runner's own argument order and event shape, adapted once here to run(config, on_event, cancel)
    native: Literal["config_on_event_cancel", "config_cancel_on_event"] = "config_on_event_cancel"
    title: str = ""  # "Transformer probe" (default: "<Name> probe")
    processes: str = "its processes"  # what cancelling stops: "the GPT processes"
    rows: str = "runs"  # what one of its rows is: runs, launches, steps ("finished runs are kept")
    # the event attributes of (this run's fraction, the whole measurement's; "" when the events have none)
    fractions: tuple[str, str] = ("fraction", "")
    rate: tuple[str, str] = ("images_per_second", "img/s")  # the events' throughput attribute and its unit
    planned: bool = True  # False: its runner reports the whole measurement's fraction itself (no ETA model)

    @property
    def label(self) -> str:
        """Its title: "Transformer probe", or "<Name> probe" for a kind that names none."""
        return self.title or f"{self.name.capitalize()} probe"

    def _load(self, ref: str):
        module, attr = ref.split(":")
        return getattr(importlib.import_module(module), attr)

    @property
    def Config(self) -> type[BaseModel]:  # noqa: N802 (a class, read as one)
        return self._load(self.config_ref)

    @property
    def Result(self) -> type[BaseModel]:  # noqa: N802
        return self._load(self.result_ref)

    def run(self, config: BaseModel, on_event: Optional[OnEvent] = None, cancel: Optional[Cancel] = None) -> BaseModel:
        """Run the kind; never raises for a failing framework (that is a failed run in the result)."""
        runner = self._load(self.run_ref)
        hook = _adapter(self.name, on_event) if on_event else None
        if self.native == "config_cancel_on_event":
            return runner(config, cancel, hook)
        return runner(config, hook, cancel)


def _adapter(kind_name: str, on_event: OnEvent):
    """The runners' events, (run_id, dict) or a typed event, as one ProbeEvent."""

    def hook(*args):
        if len(args) == 2:
            run_id, payload = args
            data = dict(payload or {})
        else:
            event = args[0]
            # its fields as they are, extra ones included: a done event's run stays its kind's model (dumped to
            # a mapping, the TUI read it as a bare status: no learned timings, no median step on its row)
            if isinstance(event, BaseModel):
                data = {key: value for key, value in event if value is not None}
            else:
                data = dict(vars(event))
            run_id = data.pop("run_id", None) or data.pop("step_id", None) or data.pop("id", None) or kind_name
        kind = data.pop("kind", "progress")
        if kind not in ("start", "progress", "done", "replan"):
            data["native_kind"] = kind
            kind = "progress"
        if kind == "done" and data.get("run") is None and isinstance(data.get("status"), str):
            # a step finished with its status alone (the deployment steps, the accuracy probe's Normalize
            # check): its run record says it, with the message as the error when it is not ok
            status, message = data.pop("status"), data.pop("message", None)
            data["run"] = {"status": status, "error": None if status == "ok" else message}
        on_event(ProbeEvent(kind_name=kind_name, run_id=str(run_id), kind=kind, **_known(data)))

    return hook


def _known(data: dict) -> dict:
    keep = {}
    for key, value in data.items():
        if key in ("fraction", "index", "total") and not isinstance(value, (int, float)):
            continue
        if key == "message" and not isinstance(value, str):
            continue
        if key in ("kind_name",):
            continue
        keep[key] = value
    return keep


KINDS: dict[str, ProbeKind] = {
    k.name: k
    for k in (
        ProbeKind(
            "training",
            "the same LeNet/ResNet trained in PyTorch eager/compile and MindSpore graph/pynative",
            "probes.training.models:ProbeConfig",
            "probes.training.models:ProbeSuite",
            "probes.training.runner:run_suite",
            title="Probes",
            processes="the probe processes",
        ),
        ProbeKind(
            "deploy",
            "export and serve: ONNX / MindIR / TorchScript engines, latency and parity",
            "probes.deploy.models:DeployConfig",
            "probes.deploy.models:DeployResult",
            "probes.deploy.runner:run_deploy",
            title="Deployment probe",
            processes="the export / serve processes",
            rows="steps",
        ),
        ProbeKind(
            "scaling",
            "data-parallel scaling on torchrun / msrun",
            "probes.scaling.models:ScalingConfig",
            "probes.scaling.models:ScalingResult",
            "probes.scaling.runner:run_scaling",
            title="Scaling probe",
            processes="the launcher and its ranks",
            rows="launches",
            fractions=("run_fraction", "fraction"),
            planned=False,
        ),
        ProbeKind(
            "accuracy",
            "train to a target accuracy in both frameworks, several seeds",
            "probes.accuracy.models:AccuracyConfig",
            "probes.accuracy.models:AccuracySuite",
            "probes.accuracy.runner:run",
            native="config_cancel_on_event",
            title="Accuracy probe",
            processes="the training processes",
        ),
        ProbeKind(
            "pipeline",
            "the input pipeline: how many samples/s each framework's loader feeds",
            "probes.pipeline.models:PipelineConfig",
            "probes.pipeline.models:PipelineSuite",
            "probes.pipeline.runner:run_suite",
            native="config_cancel_on_event",
            title="Input-pipeline probe",
            processes="the loader processes",
        ),
        ProbeKind(
            "gpt",
            "the same small GPT trained in PyTorch eager/compile and MindSpore graph/pynative, dynamic shapes measured",
            "probes.transformer.models:GptConfig",
            "probes.transformer.models:GptResult",
            "probes.transformer.runner:run",
            title="Transformer probe",
            processes="the GPT processes",
            rate=("tokens_per_second", "tok/s"),
        ),
    )
}


def kind(name: str) -> ProbeKind:
    """The registered kind called `name` (KeyError names the known ones)."""
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"unknown probe kind {name!r}; known: {', '.join(KINDS)}") from None
