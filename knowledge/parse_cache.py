"""Parsed knowledge-base files kept on disk, so a run does not parse YAML an earlier run parsed.

Parsing the bundled YAML is most of what loading the knowledge base costs (~0.2 CPU-s of a ~1 s
`advisor report`); reading the same entries back as JSON costs a few milliseconds. One file per
knowledge-base file (named by a hash of its label, so an edited file replaces its own slot and the
folder never grows past the files the tool has read), holding a key: the hash of the file's bytes,
its label and the code that parses it. Any change to any of them is a miss, and the file is parsed
again. The cache is never an error: a missing, unreadable, unwritable or foreign cache file means
parsing, nothing else; it is written atomically (a temp file renamed over it).

JSON holds what YAML gives except dates, written as {"$date": "YYYY-MM-DD"}; a file whose entries do
not come back from JSON exactly as parsed (a datetime, a non-string key) is not cached.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any, Optional

FORMAT = "kb-parsed/1"
FOLDER = "kb-parsed"
MAX_BYTES = 16 * 1024 * 1024  # the largest override is 4 MB of YAML; its JSON is smaller
# The modules whose code decides what a file parses to (entries, refusals, problems): editing any
# of them invalidates every cached file.
PARSER_MODULES = ("knowledge.loader", "knowledge.parse_cache", "advisor.safe_yaml", "advisor.limits")

Parsed = tuple[list[tuple[str, dict]], list[tuple[str, str, str, str]]]


@functools.lru_cache(maxsize=1)
def _parser_stamp() -> bytes:
    digest = hashlib.sha256(FORMAT.encode())
    for name in PARSER_MODULES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec else None
        try:
            digest.update(Path(origin).read_bytes() if origin else name.encode())
        except OSError:
            digest.update(name.encode())
    return digest.digest()


def _slot(label: str) -> Path:
    from probes.hostfacts import cache_dir

    return cache_dir() / FOLDER / f"{hashlib.sha256(label.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}.json"


def _key(label: str, text: bytes) -> str:
    digest = hashlib.sha256(_parser_stamp())
    digest.update(label.encode("utf-8", "surrogatepass") + b"\0" + text)
    return digest.hexdigest()


def _encode(value: Any) -> Any:
    if type(value) is _dt.date:
        return {"$date": value.isoformat()}
    raise TypeError(f"not cached: {type(value).__name__}")


def _decode(obj: dict) -> Any:
    if len(obj) == 1 and "$date" in obj and isinstance(obj["$date"], str):
        return _dt.date.fromisoformat(obj["$date"])
    return obj


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (1 and 1.0, or a list and a tuple, differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _well_formed(doc: Any) -> bool:
    """What the loader goes on to use: [section, entry with a string id] pairs and 4-string problems."""
    if (
        not isinstance(doc, dict)
        or not isinstance(doc.get("entries"), list)
        or not isinstance(doc.get("problems"), list)
    ):
        return False
    pairs = all(
        isinstance(p, list)
        and len(p) == 2
        and isinstance(p[0], str)
        and isinstance(p[1], dict)
        and isinstance(p[1].get("id"), str)
        for p in doc["entries"]
    )
    problems = all(isinstance(p, list) and len(p) == 4 and all(isinstance(s, str) for s in p) for p in doc["problems"])
    return pairs and problems


def load(label: str, text: bytes) -> Optional[Parsed]:
    """The entries and problems parsed from this very file by this very parser, or None."""
    from probes.bounded import read_regular

    try:
        raw = read_regular(_slot(label), MAX_BYTES)
        doc = json.loads(raw, object_hook=_decode)
    except (OSError, ValueError, RecursionError):  # Refused is an OSError or ValueError there
        return None
    if not isinstance(doc, dict) or doc.get("key") != _key(label, text) or not _well_formed(doc):
        return None
    return [(s, e) for s, e in doc["entries"]], [tuple(p) for p in doc["problems"]]  # type: ignore[misc]


def store(label: str, text: bytes, entries: list[tuple[str, dict]], problems: list[tuple[str, str, str, str]]) -> None:
    """Keep the parse of this file for the next run; silently nothing when it cannot."""
    doc = {"key": _key(label, text), "entries": [list(p) for p in entries], "problems": [list(p) for p in problems]}
    try:
        body = json.dumps(doc, default=_encode, allow_nan=False)
        back = json.loads(body, object_hook=_decode)
    except (TypeError, ValueError, RecursionError):
        return
    if not _same(back, doc) or len(body) > MAX_BYTES:
        return
    from advisor.errors import UsageError
    from advisor.output import write_atomic

    path = _slot(label)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, body, in_place=False)  # a temp file renamed over the slot: never half a file
    except (OSError, UsageError):
        pass
