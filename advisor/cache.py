"""Probe results cached per host fingerprint under the user's cache directory (XDG), never in the
project tree, so `advisor report` and the TUI can reuse the last measurement on this host."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Optional

from advisor.output import write_atomic

APP = "framework-advisor"


def cache_dir() -> Path:
    """$XDG_CACHE_HOME/framework-advisor (default ~/.cache/framework-advisor); not created here."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / APP


def host_fingerprint() -> str:
    """Hash of what the measurements depend on (CPU, cores, memory, OS, Python, framework versions)."""
    from probes.runner import host_summary

    return host_summary().fingerprint or "unknown"


def _probe_path(fingerprint: str) -> Path:
    return cache_dir() / f"probes-{fingerprint}.json"


def compile_cache_dir() -> Path:
    """Where torch.compile keeps its kernels between probes (makes a second compile 'warm')."""
    return cache_dir() / "torchinductor"


def save_probes(suite) -> Path:
    """Store a ProbeSuite as the latest result for its host (atomic write)."""
    fp = suite.host.fingerprint or host_fingerprint()
    path = _probe_path(fp)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(suite.model_dump(mode="json"), indent=1) + "\n")
    return path


def load_cached_probes(fingerprint: Optional[str] = None):
    """The last ProbeSuite measured on this host, or None (missing, unreadable or from another
    schema version: a stale cache is simply not used)."""
    from probes.probe_models import SCHEMA_VERSION, ProbeSuite

    path = _probe_path(fingerprint or host_fingerprint())
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("schema_version") != SCHEMA_VERSION:
            return None
        return ProbeSuite.model_validate(data)
    except (OSError, ValueError):
        return None


def clear() -> list[Path]:
    """Remove every cached probe result and the torch.compile cache; returns what was removed."""
    removed = []
    folder = cache_dir()
    for path in sorted(folder.glob("probes-*.json")):
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
