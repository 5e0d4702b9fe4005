"""A knowledge-base source must be one a reader can follow: a URL, a named document, a field report
(cited by title and section), a measurement described in words, or "assumption". A path outside the
package (`shared/...`, `/...`, `../...`, `~/...`) names a file users do not have, so it is refused.

`check(kb)` lists every refused source as "section:id: field: why"; `advisor kb validate` reports them.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

# A part of a source (split on ';') that starts with one of these is a path on someone's disk.
_PATH = re.compile(r"^(?:shared/|\.\./|\./\.\./|~/|/(?!/))")


def split_sources(source: str) -> list[str]:
    """'a (x; y); b' -> ['a (x; y)', 'b']: ';' inside parentheses does not split."""
    parts, depth, cur = [], 0, ""
    for ch in source:
        depth += ch == "("
        depth -= ch == ")"
        if ch == ";" and depth <= 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [p for p in parts + [cur.strip()] if p]


def refused(source: str | None) -> str | None:
    """Why this source cannot be followed by a reader, or None when it can."""
    for part in split_sources(source or ""):
        if _PATH.match(part):
            return f"{part.split()[0]!r} is a path outside the package (cite the original it names: URL, paper, vendor document or field report by title and section)"
    return None


def _sources(obj: Any, where: str) -> Iterator[tuple[str, str]]:
    """(field path, source) for every `source` string in an entry, nested values included."""
    data = obj.model_dump() if hasattr(obj, "model_dump") else obj
    if isinstance(data, dict):
        for key, value in data.items():
            path = f"{where}.{key}" if where else key
            if key == "source" and isinstance(value, str):
                yield path, value
            else:
                yield from _sources(value, path)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _sources(value, f"{where}[{i}]")


def refused_in(kb: Any) -> Iterator[tuple[str, str, str, str]]:
    """(section, entry id, field path, why) for every refused source in the knowledge base."""
    from knowledge.models import SECTIONS

    for section in SECTIONS:
        for entry in kb.section(section):
            for field, source in _sources(entry, ""):
                why = refused(source)
                if why:
                    yield section, entry.id, field, why


def check(kb: Any) -> list[str]:
    """Every source in the knowledge base that is a path outside the package, one line each."""
    return [f"{section}:{entry}: {field}: {why}" for section, entry, field, why in refused_in(kb)]
