"""The knowledge base: sourced facts on accelerators, frameworks, workflows, ecosystem, pitfalls,
API mappings, reference measurements, derating, costs, dated price observations and interconnects.

YAML under knowledge/data validated by the models in knowledge/models.py; `load()` returns the cached,
merged `KnowledgeBase` (user overrides from ADVISOR_KB_DIR / `extra_dirs`). Imports are lazy so that
`import knowledge` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["load", "KnowledgeError", "KnowledgeBase", "SECTIONS", "check", "validate", "Problem"]

if TYPE_CHECKING:  # pragma: no cover
    from knowledge.loader import KnowledgeError, Problem, check, load, validate
    from knowledge.models import SECTIONS, KnowledgeBase


def __getattr__(name: str) -> Any:
    if name in ("load", "KnowledgeError", "check", "validate", "Problem", "clear_cache"):
        from knowledge import loader

        return getattr(loader, name)
    if name in ("KnowledgeBase", "SECTIONS"):
        from knowledge import models

        return getattr(models, name)
    raise AttributeError(f"module 'knowledge' has no attribute {name!r}")
