"""The result cache, one module for every kind of probe: results per host fingerprint under the
user's cache directory (XDG, probes.hostfacts.cache_dir), never in the project tree, so `advisor
report` and the TUI can reuse the last measurement on this host.

    probes-<fingerprint>.json          the training probe suite (save_probes / load_cached_probes)
    probes-scaling-<fingerprint>.json  the scaling probe (save_scaling / load_cached_scaling)
    probes[-scaling]-<fingerprint>.runs.json  per run id: when, on which host and by which command
                                       it was measured (used_runs: what a report says it reused)
    torchinductor/                     torch.compile's kernels (compile_cache_dir)
    onednn-<fingerprint>.json          `advisor check`'s AVX2-capped rerun of MindSpore's convolution,
                                       per MindSpore version (load_onednn_confirm / save_onednn_confirm)

Saving merges with what is cached instead of replacing it: runs are kept by run id, and a run (or
parity result) that is not ok never replaces one that is. So a LeNet-only probe updates LeNet and
keeps the cached ResNet-18, and an all-failed probe (a framework broken by an upgrade) leaves the
last good measurement in place; both say so in the merged result's warnings.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import sys
from pathlib import Path
from collections.abc import Mapping
from typing import Callable, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.output import MAX_JSON_BYTES, write_atomic
from probes import hostfacts

APP = hostfacts.APP


def cache_dir() -> Path:
    """$XDG_CACHE_HOME/framework-advisor (default ~/.cache/framework-advisor); not created here."""
    return hostfacts.cache_dir()


def host_fingerprint() -> str:
    """Hash of what the measurements depend on, from cheap host facts (no full host collection)."""
    return hostfacts.fingerprint()


def compile_cache_dir() -> Path:
    """Where torch.compile keeps its kernels between probes (makes a second compile 'warm')."""
    return cache_dir() / "torchinductor"


def _path(kind: str, fingerprint: Optional[str]) -> Path:
    prefix = "probes-" if kind == "probes" else f"probes-{kind}-"  # the training suite's file kept its name
    return cache_dir() / f"{prefix}{fingerprint or host_fingerprint()}.json"


def read_cached_json(path: Path) -> object:
    """A cache file's JSON, or None when it is missing or not one the tool would have written: read
    as every input is (probes.bounded: a FIFO or a link to /dev/zero is refused without blocking or
    filling memory, at most MAX_JSON_BYTES, no NaN, no key twice). A cache file is never an error:
    what cannot be read is measured again."""
    from probes.bounded import read_json

    try:
        return read_json(path, MAX_JSON_BYTES)
    except (OSError, ValueError):
        return None


def write_cache(path: Path, text: str) -> None:
    """Write a cache file atomically (advisor.output.write_atomic: a temp file renamed over it, so a
    reader, or a crash half-way, never sees half a file). A FIFO, a device or a broken link where a
    cache file belongs is removed first: the cache is the tool's own folder, and writing into a FIFO
    would wait for a reader that never comes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        odd = not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        odd = os.path.lexists(path)  # a broken link
    except OSError:  # a loop of links
        odd = True
    if odd:
        try:
            os.unlink(path)
        except OSError:
            pass
    write_atomic(path, text, in_place=False)


def _load(kind: str, model, schema_version: str, fingerprint: Optional[str]):
    """The cached document as `model`, or None (missing, unreadable, invalid, out of range or from
    another schema version: a stale cache is simply not used)."""
    from pydantic import ValidationError

    from advisor.limits import first_problem

    data = read_cached_json(_path(kind, fingerprint))
    if not isinstance(data, dict) or data.get("schema_version") != schema_version or first_problem(data):
        return None
    try:
        result = model.model_validate(data)
    except (ValueError, ValidationError, RecursionError):
        return None
    # a number written as a string ("NaN", "1e999") passes the check above and is a number now
    return None if first_problem(result.model_dump(mode="python")) else result


def _index_path(kind: str, fingerprint: Optional[str]) -> Path:
    return _path(kind, fingerprint).with_suffix(".runs.json")


def _load_index(kind: str, fingerprint: Optional[str]) -> dict[str, dict]:
    """run id -> {"date", "host", "command"}; {} when missing or unreadable (the runs then say so)."""
    data = read_cached_json(_index_path(kind, fingerprint))
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, dict)}


def command_line() -> str:
    """The command this process runs, as a user would type it again ('advisor report ...')."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
    if name in ("__main__.py", "cli.py") or name.startswith("advisor"):
        name = "advisor"
    return shlex.join([name, *sys.argv[1:]])


def _save(
    kind: str,
    result,
    fingerprint: Optional[str],
    merge: Callable[[object, object], object],
    load: Callable[[str], object],
    command: Optional[str] = None,
) -> Path:
    fingerprint = fingerprint or host_fingerprint()
    old = load(fingerprint)
    merged = merge(result, old) if old is not None else result
    path = _path(kind, fingerprint)
    write_cache(path, json.dumps(merged.model_dump(mode="json"), indent=1) + "\n")
    # The record of who measured what: a run taken from this result is this command's, on this date;
    # a run kept from the cached one keeps its old record.
    index = _load_index(kind, fingerprint) if old is not None else {}
    taken = _taken_from_new(result, old, merged)
    record = {"date": getattr(result, "created", None), "host": fingerprint, "command": command or command_line()}
    index = {r.id: (record if r.id in taken else index.get(r.id)) for r in merged.runs}
    index = {k: v for k, v in index.items() if v is not None}
    write_cache(_index_path(kind, fingerprint), json.dumps(index, indent=1, sort_keys=True) + "\n")
    return path


def _taken_from_new(new, old, merged) -> set[str]:
    """The ids of the merged runs that are `new`'s: merge_scaling keeps either result whole (the new
    one returned as is), merge_suites keeps an old ok run over a new one that is not ok."""
    if old is None or merged is new:
        return {r.id for r in new.runs}
    if not hasattr(merged, "parity"):  # a scaling result: the old one was kept whole
        return set()
    old_runs = {r.id: r for r in old.runs}
    return {r.id for r in new.runs if r.id not in old_runs or _ok(r) or not _ok(old_runs[r.id])}


class CachedRun(BaseModel):
    """One cached run a report or the TUI used instead of measuring: which, from when, from which
    host (the cache key, probes.hostfacts.fingerprint) and by which command."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["probes", "scaling"] = Field(description="probes: the training probe; scaling: the scaling probe")
    id: str = Field(description="the run id")
    date: Optional[str] = Field(None, description="UTC ISO timestamp of the measurement")
    host: Optional[str] = Field(None, description="host fingerprint it was measured on")
    command: str = Field(description="the command that measured it, or 'not recorded'")
    file: str = Field(description="the cache file it was read from")


NOT_RECORDED = "not recorded (cached before the cache kept a record per run)"


def used_runs(
    results: Optional[Mapping[str, Optional[BaseModel]]] = None,
    fingerprint: Optional[str] = None,
    *,
    probes: Optional[BaseModel] = None,
    scaling: Optional[BaseModel] = None,
) -> list[CachedRun]:
    """Every run of the cached results a report used (`results`: cached kind name, CACHED, -> its
    result; `probes=` and `scaling=` name the two kinds by their files, as the TUI does) as CachedRun,
    from the record save_result keeps beside the cache; a run without a record (a cache written
    before it was kept) takes its result's date and host and says the command is not recorded."""
    out: list[CachedRun] = []
    given = {**(results or {}), **({"training": probes} if probes is not None else {})}
    if scaling is not None:
        given["scaling"] = scaling
    for kind_name, result in given.items():
        if result is None:
            continue
        host = getattr(result, "host", None)  # a model (the training suite) or a mapping (the scaling result)
        found = host.get("fingerprint") if isinstance(host, dict) else getattr(host, "fingerprint", None)
        ids = [r.id for r in result.runs]
        out += _used(CACHED[kind_name][0], ids, getattr(result, "created", None), found or fingerprint)
    return out


def _used(kind: str, ids: list[str], created: Optional[str], fingerprint: Optional[str]) -> list[CachedRun]:
    host = fingerprint or host_fingerprint()
    index = _load_index(kind, host)
    out = []
    for run_id in ids:
        rec = index.get(run_id) or {}
        out.append(
            CachedRun(
                kind=kind,
                id=run_id,
                date=rec.get("date") or created,
                host=rec.get("host") or host,
                command=rec.get("command") or NOT_RECORDED,
                file=str(_path(kind, host)),
            )
        )
    return out


# ------------------------------------------------------------------ training probe


def _ok(item) -> bool:
    return getattr(item, "status", None) == "ok"


def merge_suites(new, old):
    """`new` with what `old` measured that `new` did not measure as well: runs by id and parity by
    model (an ok one never replaced by one that is not), GEMM peaks by framework. Returns a copy."""
    merged = new.model_copy(deep=True)
    runs = {r.id: r for r in merged.runs}
    kept = 0
    for r in old.runs:
        mine = runs.get(r.id)
        if mine is None or (_ok(r) and not _ok(mine)):
            r = r.model_copy(deep=True)
            r.warnings.append(
                f"measured earlier (the cached probe of {old.created or 'an earlier run'}); "
                "the latest probe did not measure it successfully"
            )
            runs[r.id] = r
            kept += 1
    merged.runs = list(runs.values())
    parity = {p.model: p for p in merged.parity}
    for p in old.parity:
        mine = parity.get(p.model)
        if mine is None or (p.status == "ok" and mine.status != "ok"):
            parity[p.model] = p.model_copy(deep=True)
    merged.parity = list(parity.values())
    for fw, peak in old.gemm_peak.items():
        if fw not in merged.gemm_peak:
            merged.gemm_peak[fw] = peak
            if fw in old.gemm_details:
                merged.gemm_details[fw] = old.gemm_details[fw]
    if merged.config is not None and old.config is not None:
        for name in ("frameworks", "models", "modes"):
            values = list(dict.fromkeys([*getattr(merged.config, name), *getattr(old.config, name)]))
            setattr(merged.config, name, values)
    if kept:
        merged.warnings.append(
            f"{kept} run(s) kept from the cached probe of {old.created or 'an earlier run'} "
            "(not measured, or not measured successfully, this time)"
        )
    return merged


def load_cached_probes(fingerprint: Optional[str] = None):
    """The last ProbeSuite measured on this host, or None."""
    return load_cached("training", fingerprint)


def save_probes(suite, fingerprint: Optional[str] = None, command: Optional[str] = None) -> Path:
    """Merge a ProbeSuite into the cached one for its host (atomic write); `command` (default: this
    process's command line) is recorded for the runs it brings (used_runs)."""
    return save_result("training", suite, fingerprint or suite.host.fingerprint, command)


# ------------------------------------------------------------------ scaling probe


def merge_scaling(new, old):
    """A scaling result without one ok run never replaces one with ok runs (its summaries are
    computed over its own runs, so they are not mixed)."""
    if not any(_ok(r) for r in new.runs) and any(_ok(r) for r in old.runs):
        kept = old.model_copy(deep=True)
        kept.warnings.append(
            f"the scaling probe of {new.created or 'a later run'} had no successful run; this earlier result was kept"
        )
        return kept
    return new


def load_cached_scaling(fingerprint: Optional[str] = None):
    """The last scaling result on this host, or None."""
    return load_cached("scaling", fingerprint)


def save_scaling(result, fingerprint: Optional[str] = None, command: Optional[str] = None) -> Path:
    return save_result("scaling", result, fingerprint, command)


# ------------------------------------------------------------------ the cached kinds

# The probe kinds kept per host (probes.base.KINDS names them; their Result model and schema version
# come from there): the file they go to ("probes" -> probes-<fingerprint>.json, also how used_runs
# names them) and how a new result merges with the cached one. Caching a kind adds a line here.
CACHED: dict[str, tuple[str, Callable[[BaseModel, BaseModel], BaseModel]]] = {
    "training": ("probes", merge_suites),
    "scaling": ("scaling", merge_scaling),
}


def load_cached(kind_name: str, fingerprint: Optional[str] = None) -> Optional[BaseModel]:
    """The last result of a cached kind measured on this host, or None."""
    import importlib

    from probes.base import KINDS

    model = KINDS[kind_name].Result
    schema_version = importlib.import_module(model.__module__).SCHEMA_VERSION
    return _load(CACHED[kind_name][0], model, schema_version, fingerprint)


def save_result(
    kind_name: str, result: BaseModel, fingerprint: Optional[str] = None, command: Optional[str] = None
) -> Path:
    """Merge a result of a cached kind into this host's cached one (atomic write)."""
    file_kind, merge = CACHED[kind_name]
    return _save(file_kind, result, fingerprint, merge, lambda fp: load_cached(kind_name, fp), command)


# ------------------------------------------------------------------ the oneDNN confirmation


def _onednn_path(fingerprint: Optional[str]) -> Path:
    return cache_dir() / f"onednn-{fingerprint or host_fingerprint()}.json"


def load_onednn_confirm(mindspore_version: str, fingerprint: Optional[str] = None) -> Optional[dict[str, object]]:
    """`advisor check`'s confirmation of the oneDNN reference-kernel trap on this host: the same
    convolution rerun with ONEDNN_MAX_CPU_ISA=AVX2 (capped_conv_ms, capped_ratio, measured), or None.
    The trap is a property of the CPU and of the oneDNN MindSpore bundles, so one measurement per
    host fingerprint and MindSpore version stands (a third child costs ~1.3 s of CPU per check)."""
    data = read_cached_json(_onednn_path(fingerprint))
    entry = data.get(mindspore_version) if isinstance(data, dict) else None
    if not isinstance(entry, dict):
        return None
    if not all(isinstance(entry.get(k), (int, float)) and entry[k] > 0 for k in ("capped_conv_ms", "capped_ratio")):
        return None  # a damaged entry is remeasured, not trusted
    return entry


def save_onednn_confirm(
    mindspore_version: str,
    capped_conv_ms: float,
    capped_ratio: float,
    measured: str,
    fingerprint: Optional[str] = None,
    conv: Optional[dict[str, object]] = None,
) -> Path:
    """`conv`: the slow convolution's own timing (shape, conv_ms, gemm_ms, ratio, install: the stamp of the
    MindSpore install it was timed on), kept so a later check need not time it again."""
    path = _onednn_path(fingerprint)
    data = read_cached_json(path)
    data = data if isinstance(data, dict) else {}
    entry: dict[str, object] = {"capped_conv_ms": capped_conv_ms, "capped_ratio": capped_ratio, "measured": measured}
    if conv:
        entry["conv"] = conv
    data[mindspore_version] = entry
    write_cache(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


# ------------------------------------------------------------------ clearing


def clear() -> list[Path]:
    """Remove every cached probe result (both kinds), the check's oneDNN confirmation and ONNX Runtime
    providers list, and the torch.compile cache; returns what was removed."""
    removed = []
    kept = [
        *cache_dir().glob("probes-*.json"),
        *cache_dir().glob("onednn-*.json"),
        *cache_dir().glob("ort-providers.json"),
    ]
    for path in sorted(kept):
        try:
            path.unlink()
            removed.append(path)
        except OSError:
            pass
    inductor = compile_cache_dir()
    if inductor.exists():
        shutil.rmtree(inductor, ignore_errors=True)
        removed.append(inductor)
    return removed
