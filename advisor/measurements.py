"""What a report is built from besides the requirements: the host, the migration scan and each probe
kind's result with where it came from.

`Measurements` is the one argument of `advisor.report.build_report` that carries evidence. Probe results
are keyed by the registry's kind names (probes.base.KINDS: training, deploy, scaling, accuracy, pipeline,
gpt), so a new probe kind is a new key, not a new parameter. A result may be given as its kind's `Result`
model or as its JSON (a dict, as read from a file); the JSON is validated into the model here, once, so
everything downstream sees the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, Optional, Union, get_args

from pydantic import BaseModel

from probes.base import KINDS

if TYPE_CHECKING:
    from advisor.cache import CachedRun
    from advisor.scan.models import ScanResult
    from probes.check.models import CheckReport, HostInfo
    from probes.training.models import ProbeSuite

# measured now ("run"), this host's cache ("cache"), or read from a file ("file")
Source = Literal["run", "cache", "file"]

# Kinds whose results from several hosts or files are merged (the training suites); every other kind
# has one result.
SEVERAL = frozenset({"training"})


@dataclass(frozen=True)
class Measured:
    """One probe kind's result and its provenance. `result`: the kind's Result model or its JSON (for
    "training", one suite or a sequence of them); `files`: the file(s) it was read from, a name or a
    sequence of names."""

    result: object
    source: Source = "file"
    files: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.result is None:
            raise ValueError(
                "Measured: a result is required (leave a kind out of Measurements when it was not measured)"
            )
        if self.source not in get_args(Source):
            raise ValueError(f"Measured: source {self.source!r}: expected one of {', '.join(get_args(Source))}")
        files = (self.files,) if isinstance(self.files, str) else tuple(self.files)
        if not all(isinstance(f, str) and f for f in files):
            raise ValueError(f"Measured: files {files!r}: expected file names")
        object.__setattr__(self, "files", files)

    @property
    def file(self) -> Optional[str]:
        """The file the result was read from (the first, for several suites); None when not from a file."""
        return self.files[0] if self.files else None


@dataclass(frozen=True)
class Measurements:
    """The evidence a report is built from. `probes`: kind name -> Measured (kinds not measured are
    absent); `host`: the host check of the machine the report runs on; `scan`: the migration scan of
    model.code_path (a ScanResult or its JSON); `cached_runs`: the cached runs used instead of measuring."""

    host: Union[CheckReport, HostInfo, None] = None
    scan: Optional[ScanResult] = None
    probes: Mapping[str, Measured] = field(default_factory=dict)
    cached_runs: tuple[CachedRun, ...] = ()

    def __post_init__(self) -> None:
        typed = {}
        for name, measured in dict(self.probes).items():
            if name not in KINDS:
                raise ValueError(f"Measurements: unknown probe kind {name!r}; known: {', '.join(KINDS)}")
            if not isinstance(measured, Measured):
                raise TypeError(f"Measurements: {name}: expected a Measured(result, source, files)")
            typed[name] = replace(measured, result=_typed(name, measured.result))
        object.__setattr__(self, "probes", MappingProxyType(typed))
        object.__setattr__(self, "cached_runs", tuple(self.cached_runs))
        # the host is a model (two kinds, so its JSON would be ambiguous); the scan may come as its JSON
        _as_model("host", self.host, "probes.check.models", ("CheckReport", "HostInfo"))
        object.__setattr__(self, "scan", _as_model("scan", self.scan, "advisor.scan.models", ("ScanResult",)))

    def get(self, kind: str) -> Optional[Measured]:
        """The kind's Measured, or None when it was not measured (a name outside the registry is an error)."""
        if kind not in KINDS:
            raise KeyError(f"unknown probe kind {kind!r}; known: {', '.join(KINDS)}")
        return self.probes.get(kind)

    def result(self, kind: str) -> Optional[BaseModel]:
        """The kind's Result model (one kind of SEVERAL: use `suites`), or None when it was not measured."""
        if kind in SEVERAL:
            raise KeyError(f"{kind} holds several results: read them with Measurements.suites")
        measured = self.get(kind)
        return measured.result if measured else None  # type: ignore[return-value]

    @property
    def suites(self) -> tuple[ProbeSuite, ...]:
        """The training suites, in the order given (none when the training probe was not measured)."""
        measured = self.get("training")
        return measured.result if measured else ()  # type: ignore[return-value]


def _typed(kind: str, value: object) -> Union[BaseModel, tuple[BaseModel, ...]]:
    """`value` as the kind's Result model(s): a model passes, JSON is validated (pydantic's
    ValidationError names the field), anything else is refused."""
    model = KINDS[kind].Result
    if kind in SEVERAL:
        items = list(value) if isinstance(value, Sequence) and not isinstance(value, str) else [value]
        if not items:
            raise ValueError(f"Measurements: {kind}: expected at least one {model.__name__}")
        return tuple(_one(kind, model, item) for item in items)
    return _one(kind, model, value)


def _one(kind: str, model: type[BaseModel], value: object) -> BaseModel:
    if isinstance(value, model):
        return value
    if isinstance(value, dict):
        return model.model_validate(value)  # the JSON boundary, crossed here once
    raise TypeError(f"Measurements: {kind}: expected a {model.__name__} or its JSON, got {type(value).__name__}")


def _as_model(what: str, value: object, module: str, names: tuple[str, ...]) -> Optional[BaseModel]:
    """`value` as one of the models `names` of `module`; a dict is validated into the first of them."""
    if value is None:
        return None
    import importlib

    models = tuple(getattr(importlib.import_module(module), n) for n in names)
    if isinstance(value, models):
        return value
    if isinstance(value, dict) and len(models) == 1:
        return models[0].model_validate(value)
    kinds = " or ".join(names) + (" or its JSON" if len(models) == 1 else "")
    raise TypeError(f"Measurements: {what}: expected a {kinds}, got {type(value).__name__}")
