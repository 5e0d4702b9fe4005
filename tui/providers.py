"""The app's connections to the headless core. Each default imports its part lazily, inside the
call, so the app starts (and says what is missing) even when a part is absent or broken. The
signatures are the Protocols below; tests pass their own callables of those signatures to `make_app`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol

import yaml
from pydantic import BaseModel

from probes.base import KINDS

if TYPE_CHECKING:
    from advisor.report import Report
    from probes.check.models import CheckReport
    from probes.launcher import Cancel
    from probes.scaling.models import ScalingConfig, ScalingResult
    from probes.scaling.multinode import Rendezvous
    from tui.state import Result

# A runner's event as the TUI's Throttle reads it: a pydantic model or a mapping (run_id, kind, ...).
OnEvent = Callable[["Result"], None]


class HostCheck(Protocol):
    """advisor.check.run_check: progress(text) after each part; cancel stops the smoke tests."""

    def __call__(
        self, progress: Callable[[str], None] | None = None, cancel: Optional[Cancel] = None
    ) -> CheckReport: ...


class Launcher(Protocol):
    """A probe kind's run(config, on_event, cancel) (probes.base.ProbeKind.run): events to on_event,
    the result back (partial, never raising, when cancel is set)."""

    def __call__(self, config: BaseModel, on_event: OnEvent | None, cancel: Optional[Cancel]) -> Result: ...


class ReportBuilder(Protocol):
    """advisor.report.build_report over this host's probes and scaling result. The app passes
    `scan=` (the migration scan of model.code_path) and `deploy=` / `accuracy=` / `pipeline=` (probes
    measured in this session) only when it has them, so a builder without them still works."""

    def __call__(
        self,
        requirements: BaseModel,
        host: Optional[CheckReport],
        probes: Optional[Result],
        scaling: Optional[Result] = None,
        **extra: Result,
    ) -> Report: ...


@dataclass
class Providers:
    """Everything the app asks of the headless core. make_app fills it with the defaults below;
    a test replaces a part by passing its own callable of the same signature."""

    check_host: HostCheck
    build_report: ReportBuilder
    render: Callable[[Report, str], str]  # (report, "json" | "markdown") -> text
    # One launcher per probe kind of the registry (probes.base.KINDS); a kind left out gets its default.
    launchers: dict[str, Launcher] = field(default_factory=dict)
    # The per-host cache of the kinds that have one (training, scaling): read on start, saved after a run.
    cached: dict[str, Callable[[], Optional[Result]]] = field(default_factory=dict)
    saves: dict[str, Optional[Callable[[Result], None]]] = field(default_factory=dict)
    run_multinode: Launcher | None = None  # config: a MultinodeRequest
    # (requirements, its file) -> advisor.scan's ScanResult, or None without a code_path
    scan_code: Callable[[BaseModel, str | None], Optional[BaseModel]] | None = None
    # (report, fmt, path) -> (document, {file name beside it: text}); None: `render`, no files
    export: Callable[[Report, str, str], tuple[str, dict]] | None = None

    def __post_init__(self) -> None:
        for name in KINDS:
            self.launchers.setdefault(name, default_launcher(name))
        self.run_multinode = self.run_multinode or default_multinode_launcher
        self.scan_code = self.scan_code or default_scan_code
        if self.export is None:
            render = self.render
            self.export = lambda report, fmt, path: (render(report, fmt), {})


def default_host_provider(
    progress: Callable[[str], None] | None = None, cancel: Optional[Cancel] = None
) -> CheckReport:
    from advisor.check.host import run_check

    return run_check(progress=progress, cancel=cancel)


def default_launcher(name: str) -> Launcher:
    """The kind's run through the registry (probes.base.KINDS[name].run), whose one ProbeEvent carries
    what the rows show (the deployment steps' ids and statuses, the accuracy epochs as a fraction). The
    scaling probe keeps its own launcher: its rows read the runner's ScalingEvent (launch fraction, the
    ScalingRun on done) as the multi-host launcher's events give them, so one host and N hosts look alike."""
    if name == "scaling":
        return default_scaling_launcher

    def launch(config: BaseModel, on_event: OnEvent | None, cancel: Optional[Cancel]) -> Result:
        return KINDS[name].run(config, on_event, cancel)

    return launch


def make_config(kind: str, choice: dict) -> BaseModel:
    """The kind's Config (probes.base.KINDS[kind].Config) from the screen's choices: only the fields
    the model knows are passed on; pydantic's ValidationError names the field and the bound."""
    model = KINDS[kind].Config
    known = set(model.model_fields)
    return model.model_validate({k: v for k, v in choice.items() if k in known})


def default_cached_probes() -> Optional[Result]:
    from advisor.cache import load_cached_probes

    return load_cached_probes()


def default_save_probes(suite: Result) -> None:
    from advisor.cache import save_probes

    save_probes(suite)


def default_report_builder(
    requirements: BaseModel,
    host: Optional[CheckReport],
    probes: Optional[Result],
    scaling: Optional[Result] = None,
    scan: Optional[BaseModel] = None,
    **session: Optional[Result],
) -> Report:
    """The same report `advisor report` builds, over the bundled knowledge base (cached). The
    probes and the scaling result are this host's (its cache, or measured in this session); `scan`
    is the migration scan of model.code_path; `session` maps every other kind of the registry
    (probes.base.KINDS: deploy, accuracy, pipeline, gpt, ...) to its result measured in this session
    (measured evidence, as `advisor report --deploy/--accuracy/--pipeline/--gpt FILE`)."""
    import knowledge
    from advisor.measurements import Measured, Measurements
    from advisor.report import build_report

    here = {"training": probes, "scaling": scaling}  # this host's cache (a run in the TUI is saved to it first)
    measured = {kind: Measured(result, "cache") for kind, result in here.items() if result is not None}
    measured.update({kind: Measured(result, "run") for kind, result in session.items() if result is not None})
    return build_report(requirements, Measurements(host=host, scan=scan, probes=measured), kb=knowledge.load())


_SCANS: dict[
    str, BaseModel
] = {}  # resolved code path -> ScanResult: one scan per folder and session (it never executes code)


def default_scan_code(requirements: BaseModel, requirements_file: str | None) -> Optional[BaseModel]:
    """The migration scan of model.code_path, as `advisor report` makes it (advisor/commands/report.py:
    relative to the requirements file, UsageError when it does not exist); None without a code_path.
    Scanned once per folder per session: the report is rebuilt on every edit of the form."""
    import knowledge
    from advisor.errors import UsageError
    from advisor.requirements import resolve_code_path
    from advisor.scan import scan_path

    code = resolve_code_path(requirements, requirements_file)
    if code is None:
        return None
    if not code.exists():
        raise UsageError(f"model.code_path: {code} does not exist: expected a folder or .py file of PyTorch code")
    key = str(code.resolve())
    if key not in _SCANS:
        _SCANS[key] = scan_path(key, kb=knowledge.load())
    return _SCANS[key]


def default_renderer(report: Report, fmt: str) -> str:
    from advisor.render import render

    return render(report, fmt)


def default_export(report: Report, fmt: str, path: str) -> tuple[str, dict[str, str]]:
    """What `advisor report -o PATH` writes (advisor/commands/report.py: advisor.render.assets, then
    format with those assets): the document and, for Markdown, its SVG charts beside it."""
    import knowledge
    from advisor.render import assets
    from advisor.render import format as render_format

    kb = knowledge.load()
    files = assets(report, fmt, path, kb=kb)
    return render_format(report, fmt, kb=kb, assets=files), files


def new_cancel() -> Cancel:
    from probes.launcher import Cancel

    return Cancel()


def requirements_model() -> type[BaseModel]:
    """The Requirements model class (the form is generated from it)."""
    from advisor.requirements import Requirements

    return Requirements


def load_requirements_file(path: str | Path) -> BaseModel:
    """Load and validate through the same loader `advisor report` uses (raises UsageError)."""
    from advisor.requirements import load_requirements

    return load_requirements(path)


def kb_problems(requirements: BaseModel) -> list[str]:
    """What the bundled knowledge base says is wrong with valid requirements ('field: expected ...'):
    advisor.validation's check, the one `advisor report` runs, so both accept the same files."""
    import knowledge
    from advisor.validation import kb_problems as check

    return check(requirements, knowledge.load())


def requirements_problems(data: dict) -> tuple[Optional[BaseModel], list[str]]:
    """Every problem of the form's requirements ('field: what is expected'), the model when none:
    advisor.validation's full check, the one `advisor report` runs, so both name the same fields."""
    import knowledge
    from advisor.validation import requirements_problems as check

    return check(data, knowledge.load())


def requirements_to_yaml(data: dict) -> str:
    """The YAML `advisor report` reads: unset optional fields are left out, keys in model order."""
    return yaml.safe_dump(_drop_none(data), sort_keys=False, allow_unicode=True)


def _drop_none(value: object) -> object:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def as_data(obj: Any) -> Any:  # JSON-like data in, JSON-like data out: the boundary where Any is the type
    """A pydantic model (or anything with model_dump) as plain JSON-like data; dicts pass through."""
    if obj is None:
        return None
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    return obj


def default_scaling_launcher(
    config: ScalingConfig, on_event: OnEvent | None, cancel: Optional[Cancel]
) -> ScalingResult:
    from probes.scaling.runner import run_scaling

    return run_scaling(config, on_event=on_event, cancel=cancel)


def default_cached_scaling() -> Optional[ScalingResult]:
    from advisor.cache import load_cached_scaling

    return load_cached_scaling()


def default_save_scaling(result: Result) -> None:
    from advisor.cache import save_scaling

    save_scaling(result)


# ---- the deployment probe ------------------------------------------------------------


def deploy_packages() -> list[dict]:
    """Whether onnx and onnxruntime can be imported here (importlib's find_spec, honouring the probe's
    ADVISOR_DEPLOY_HIDE hook; nothing is imported): the rows of installed_engines() a screen needs."""
    from probes.deploy.common import have

    return [{"name": name, "installed": have(name), "reason": None} for name in ("onnx", "onnxruntime")]


# ---- the scaling probe across hosts ----------------------------------------------------


@dataclass(frozen=True)
class MultinodeRequest:
    """What the scaling panel's "this host is node R of N" control starts: the ScalingConfig and the
    probes.scaling.multinode.Rendezvous, validated as `advisor probe --scaling --nnodes ...` does."""

    config: ScalingConfig
    rendezvous: Rendezvous


def validate_multinode(
    nnodes: str, node_rank: str, master: str, ranks: list[int] | None, config: ScalingConfig
) -> MultinodeRequest:
    """The control's text as a MultinodeRequest, or ValueError with the CLI's own message: the same
    probes.scaling.multinode checks advisor/commands/scaling.py runs (validate, refuse_ranks, check_ports)."""
    from probes.scaling.multinode import BadRendezvous, check_ports, refuse_ranks, validate

    def whole(text: str, flag: str) -> int | None:
        text = text.strip()
        if not text:
            return None
        try:
            return int(text)
        except ValueError:
            raise BadRendezvous(f"{flag}: {text!r}; expected a whole number") from None

    rdzv = validate(whole(nnodes, "--nnodes"), whole(node_rank, "--node-rank"), master.strip() or None)
    refuse_ranks(ranks)
    check_ports(rdzv, config)
    return MultinodeRequest(config, rdzv)


def multinode_command(request: MultinodeRequest, node_rank: int | None = None) -> str:
    """The CLI command line that runs the same on host `node_rank` (each host runs it, but its rank)."""
    rdzv, config = request.rendezvous, request.config
    rank = rdzv.node_rank if node_rank is None else node_rank
    return (
        f"advisor probe --scaling --nnodes {rdzv.nnodes} --node-rank {rank} --master {rdzv.endpoint}"
        f" --frameworks {','.join(config.frameworks)} --models {','.join(config.models)}"
        f" --repeat {config.repeat} --batch-size {config.batch_size}"
    )


def default_multinode_launcher(
    request: MultinodeRequest, on_event: OnEvent | None, cancel: Optional[Cancel]
) -> ScalingResult:
    """probes.scaling.multinode.run_multinode; its progress lines (stderr in the CLI) become one live
    row. Node 0 returns the ScalingResult; another node's launches come back as a result of their own
    (runs only), saying node 0 gathers and writes the whole."""
    from probes.scaling.multinode import run_multinode

    rdzv = request.rendezvous
    row = f"node {rdzv.node_rank} of {rdzv.nnodes}"

    def line(text: str) -> None:
        if on_event is not None:
            on_event({"run_id": row, "kind": "progress", "message": str(text)[:300]})

    if rdzv.nnodes == 1:  # one host: the ordinary probe, as the CLI
        return default_scaling_launcher(request.config, on_event, cancel)
    if rdzv.node_rank != 0:
        ok, runs = run_multinode(request.config, rdzv, intra_host=False, cancel=cancel, on_line=line)
        return other_node_result(request, ok, runs)
    return run_multinode(request.config, rdzv, intra_host=True, on_event=on_event, cancel=cancel, on_line=line)


def other_node_result(request: MultinodeRequest, ok: bool, runs: list) -> ScalingResult:
    """What a node other than 0 measured, as a ScalingResult (runs only, never cached) that says why
    its table is empty: node 0 gathers and writes the result."""
    import datetime as dt

    from probes.scaling.models import ScalingResult

    rdzv = request.rendezvous
    failed = next((r.error for r in runs if r.status != "ok"), None) if runs else "no framework available"
    text = f"node {rdzv.node_rank} of {rdzv.nnodes}: " + (
        f"finished; node 0 ({rdzv.master_addr}) gathers and writes the result" if ok and runs else f"failed: {failed}"
    )
    return ScalingResult(
        created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        host={"nnodes": rdzv.nnodes, "node_rank": rdzv.node_rank},
        label="cpu-contention",
        label_text=text,
        config=request.config,
        runs=runs,
        warnings=[text],
    )
