"""The app's connections to the headless core. Each default imports its part lazily, inside the
call, so the app starts (and says what is missing) even when a part is absent or broken. The
signatures are the Protocols below; tests pass their own callables of those signatures to `make_app`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

import yaml


class HostCheck(Protocol):
    """advisor.check.run_check: progress(text) after each part; cancel stops the smoke tests."""

    def __call__(self, progress: Callable[[str], None] | None = None, cancel: Any = None) -> Any: ...


class Launcher(Protocol):
    """probes.training.runner.run_suite / probes.scaling.runner.run_scaling: events to on_event, the result
    back (partial, never raising, when cancel is set)."""

    def __call__(self, config: Any, on_event: Callable[[Any], None] | None, cancel: Any) -> Any: ...


class ReportBuilder(Protocol):
    """advisor.report.build_report over this host's probes and scaling result."""

    def __call__(self, requirements: Any, host: Any, probes: Any, scaling: Any = None) -> Any: ...


@dataclass
class Providers:
    """Everything the app asks of the headless core. make_app fills it with the defaults below;
    a test replaces a part by passing its own callable of the same signature."""

    check_host: HostCheck
    run_probes: Launcher
    cached_probes: Callable[[], Any]  # -> ProbeSuite | None
    save_probes: Callable[[Any], None] | None  # None: results are not cached
    run_scaling: Launcher
    cached_scaling: Callable[[], Any]  # -> ScalingResult | None
    save_scaling: Callable[[Any], None] | None
    build_report: ReportBuilder
    render: Callable[[Any, str], str]  # (report, "json" | "markdown") -> text


def default_host_provider(progress: Callable[[str], None] | None = None, cancel: Any = None) -> Any:
    from advisor.check import run_check

    return run_check(progress=progress, cancel=cancel)


def default_probe_launcher(config: Any, on_event: Callable[[Any], None] | None, cancel: Any) -> Any:
    from probes.training.runner import run_suite

    return run_suite(config, on_event=on_event, cancel=cancel)


def default_cached_probes() -> Any:
    from advisor.cache import load_cached_probes

    return load_cached_probes()


def default_save_probes(suite: Any) -> None:
    from advisor.cache import save_probes

    save_probes(suite)


def default_report_builder(requirements: Any, host: Any, probes: Any, scaling: Any = None) -> Any:
    """The same report `advisor report` builds, over the bundled knowledge base (cached). The
    probes and the scaling result are this host's (its cache, or measured in this session)."""
    import knowledge
    from advisor.report import build_report

    return build_report(
        requirements,
        host=host,
        probes=probes,
        kb=knowledge.load(),
        probe_source="cache" if probes is not None else "none",
        scaling=scaling,
        scaling_source="cache" if scaling is not None else "none",
    )


def default_renderer(report: Any, fmt: str) -> str:
    from advisor.render import render

    return render(report, fmt)


def new_cancel() -> Any:
    from probes.launcher import Cancel

    return Cancel()


def make_probe_config(choice: dict) -> Any:
    """A ProbeConfig from the screen's choices; only the fields the model knows are passed on."""
    from probes.training.models import ProbeConfig

    known = set(ProbeConfig.model_fields)
    return ProbeConfig.model_validate({k: v for k, v in choice.items() if k in known})


def requirements_model() -> Any:
    """The Requirements model class (the form is generated from it)."""
    from advisor.requirements import Requirements

    return Requirements


def load_requirements_file(path: str | Path) -> Any:
    """Load and validate through the same loader `advisor report` uses (raises UsageError)."""
    from advisor.requirements import load_requirements

    return load_requirements(path)


def kb_problems(requirements: Any) -> list[str]:
    """What the bundled knowledge base says is wrong with valid requirements ('field: expected ...'):
    advisor.validation's check, the one `advisor report` runs, so both accept the same files."""
    import knowledge
    from advisor.validation import kb_problems as check

    return check(requirements, knowledge.load())


def requirements_to_yaml(data: dict) -> str:
    """The YAML `advisor report` reads: unset optional fields are left out, keys in model order."""
    return yaml.safe_dump(_drop_none(data), sort_keys=False, allow_unicode=True)


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def as_data(obj: Any) -> Any:
    """A pydantic model (or anything with model_dump) as plain JSON-like data; dicts pass through."""
    if obj is None:
        return None
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    return obj


def default_scaling_launcher(config: Any, on_event: Callable[[Any], None] | None, cancel: Any) -> Any:
    from probes.scaling.runner import run_scaling

    return run_scaling(config, on_event=on_event, cancel=cancel)


def default_cached_scaling() -> Any:
    from advisor.cache import load_cached_scaling

    return load_cached_scaling()


def default_save_scaling(result: Any) -> None:
    from advisor.cache import save_scaling

    save_scaling(result)


def make_scaling_config(choice: dict) -> Any:
    """A ScalingConfig from the screen's choices (raises pydantic's ValidationError, naming the field)."""
    from probes.scaling.models import ScalingConfig

    known = set(ScalingConfig.model_fields)
    return ScalingConfig.model_validate({k: v for k, v in choice.items() if k in known})
