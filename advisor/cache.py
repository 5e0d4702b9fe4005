"""The result cache, one module for every kind of probe: results per host fingerprint under the
user's cache directory (XDG, probes.hostfacts.cache_dir), never in the project tree, so `advisor
report` and the TUI can reuse the last measurement on this host.

    probes-<fingerprint>.json          the training probe suite (save_probes / load_cached_probes)
    probes-scaling-<fingerprint>.json  the scaling probe (save_scaling / load_cached_scaling)
    torchinductor/                     torch.compile's kernels (compile_cache_dir)

Saving merges with what is cached instead of replacing it: runs are kept by run id, and a run (or
parity result) that is not ok never replaces one that is. So a LeNet-only probe updates LeNet and
keeps the cached ResNet-18, and an all-failed probe (a framework broken by an upgrade) leaves the
last good measurement in place; both say so in the merged result's warnings.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable, Optional

from advisor.output import write_atomic
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
    prefix = "probes-scaling-" if kind == "scaling" else "probes-"
    return cache_dir() / f"{prefix}{fingerprint or host_fingerprint()}.json"


def _load(kind: str, model, schema_version: str, fingerprint: Optional[str]):
    """The cached document as `model`, or None (missing, unreadable, invalid or from another
    schema version: a stale cache is simply not used)."""
    from pydantic import ValidationError

    try:
        data = json.loads(_path(kind, fingerprint).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("schema_version") != schema_version:
            return None
        return model.model_validate(data)
    except (OSError, ValueError, ValidationError):
        return None


def _save(
    kind: str,
    result,
    fingerprint: Optional[str],
    merge: Callable[[object, object], object],
    load: Callable[[str], object],
) -> Path:
    fingerprint = fingerprint or host_fingerprint()
    old = load(fingerprint)
    if old is not None:
        result = merge(result, old)
    path = _path(kind, fingerprint)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(result.model_dump(mode="json"), indent=1) + "\n")
    return path


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
    from probes.training.models import SCHEMA_VERSION, ProbeSuite

    return _load("probes", ProbeSuite, SCHEMA_VERSION, fingerprint)


def save_probes(suite, fingerprint: Optional[str] = None) -> Path:
    """Merge a ProbeSuite into the cached one for its host (atomic write)."""
    return _save("probes", suite, fingerprint or suite.host.fingerprint, merge_suites, load_cached_probes)


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
    from probes.scaling.models import SCHEMA_VERSION, ScalingResult

    return _load("scaling", ScalingResult, SCHEMA_VERSION, fingerprint)


def save_scaling(result, fingerprint: Optional[str] = None) -> Path:
    return _save("scaling", result, fingerprint, merge_scaling, load_cached_scaling)


# ------------------------------------------------------------------ clearing


def clear() -> list[Path]:
    """Remove every cached probe result (both kinds) and the torch.compile cache; returns what was
    removed."""
    removed = []
    for path in sorted(cache_dir().glob("probes-*.json")):
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
