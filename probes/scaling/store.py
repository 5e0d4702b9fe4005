"""The last scaling result per host, next to the training probes' cache (advisor/cache.py), so the
report and the TUI can use it without measuring again. Named `probes-scaling-<fingerprint>.json`
so `advisor.cache.clear()` (which removes probes-*.json) clears it too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from probes.scaling.models import SCHEMA_VERSION, ScalingResult


def cache_path(fingerprint: Optional[str] = None) -> Path:
    from advisor.cache import cache_dir, host_fingerprint

    return cache_dir() / f"probes-scaling-{fingerprint or host_fingerprint()}.json"


def save_scaling(result: ScalingResult, fingerprint: Optional[str] = None) -> Path:
    from advisor.output import write_atomic

    path = cache_path(fingerprint)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(result.model_dump(mode="json"), indent=1) + "\n")
    return path


def load_cached_scaling(fingerprint: Optional[str] = None) -> Optional[ScalingResult]:
    """The last scaling result on this host, or None (missing, unreadable, other schema version)."""
    try:
        data = json.loads(cache_path(fingerprint).read_text(encoding="utf-8"))
        if data.get("schema_version") != SCHEMA_VERSION:
            return None
        return ScalingResult.model_validate(data)
    except (OSError, ValueError):
        return None
