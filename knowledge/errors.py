"""The one exception the knowledge base raises: its own module, so that the loader and the override
folders' budget both raise it without importing each other."""

from __future__ import annotations

from typing import Any, Optional


class KnowledgeError(Exception):
    """A knowledge-base file is unreadable or invalid; the message is one line naming file, entry
    and field. `problems` holds every problem found (the loader's Problem records)."""

    def __init__(self, message: str, problems: Optional[list[Any]] = None):
        super().__init__(message)
        self.problems = problems or []
