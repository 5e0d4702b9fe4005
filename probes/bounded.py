"""Reading a file the tool did not write in this run (a cache entry, a result file, a requirements,
knowledge-base or config file), within budgets: the one reader under every input of the tool.

A FIFO blocks an ordinary open for good, /dev/zero fills memory, a symlink may point at either, and a
file can change between a stat() and the open. So the file is opened without blocking, the open
descriptor is checked (a regular file, at most `limit` bytes) and at most limit + 1 bytes are read.

JSON is parsed within budgets too: nesting, integer length (Python's int() is quadratic in the digits),
no NaN or infinity (1e400 overflows to infinity), no duplicate key (the last one would win silently).
Each refusal is a `Refused` whose text says what is wrong; the caller names the file and what it
expected. Standard library only: the probes' parents, the advisor and the knowledge base all use it.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from typing import Any, Union

PathLike = Union[str, "os.PathLike[str]"]

# Deeper than any document the tool writes (a report nests 9 levels, a probe result 7) by far, and
# well inside the recursion every later reader of the document has.
MAX_JSON_DEPTH = 64
# An unsigned 64-bit integer has 20 digits; no count, size or time in a result is longer.
MAX_INT_DIGITS = 20


class Refused(ValueError):
    """The file or its content is outside what the reader takes; str() says what, in a few words."""


class BadValue(Refused):
    """A value in the document no reader takes: NaN, an overflowing number, a huge integer, a key twice.
    `where`: its path (`runs[0].images_per_second`); `why`: what is wrong with it."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where}: {why}")
        self.where, self.why = where, why


def read_regular(path: PathLike, limit: int) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them.

    OSError for a file that cannot be opened (missing, no permission, a loop of links, a name too
    long); Refused for what is not a regular file (a folder, a FIFO, a device, a socket) or is
    larger than `limit`."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise Refused("is a folder") from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket (and some devices) cannot be opened as a file
            raise Refused("not a regular file (a socket or a device)") from None
        raise
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise Refused("is a folder")
        if not stat.S_ISREG(st.st_mode):
            raise Refused("not a regular file (a FIFO, a device or a socket)")
        if st.st_size > limit:
            raise Refused(f"file is {st.st_size:,} bytes, more than {limit:,}")
        os.set_blocking(fd, True)
        chunks, got = [], 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    if got > limit:  # it grew after the stat
        raise Refused(f"more than {limit:,} bytes")
    return b"".join(chunks)


class _Bad:
    """A value the parser met and no reader takes, kept in place so the walk can say where it was."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why


def _no_constant(name: str) -> _Bad:
    return _Bad(f"{name} is not a number JSON allows")


def _float(text: str) -> Any:
    value = float(text)
    return _Bad(f"{text[:40]} is beyond the range of a number") if value in (float("inf"), float("-inf")) else value


def _int(text: str) -> Any:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:  # not converted: int() of thousands of digits is the cost being refused
        return _Bad(f"an integer of {digits:,} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def parse_json(raw: Union[bytes, str], max_depth: int = MAX_JSON_DEPTH) -> Any:
    """One JSON document within the budgets above. BadValue names the field of a value no reader takes
    (`runs[0].images_per_second: 1e999 is beyond the range of a number`); Refused says what else broke
    a budget; a syntax error is json.JSONDecodeError (with its line and column)."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused("not UTF-8 text") from None
    twice: dict[int, str] = {}  # id of an object -> the first key it was given twice

    def mapping(pairs: list) -> dict:
        out: dict = {}
        for key, value in pairs:
            if key in out and id(out) not in twice:
                twice[id(out)] = key
            out[key] = value
        return out

    try:
        doc = json.loads(
            raw, parse_constant=_no_constant, parse_float=_float, parse_int=_int, object_pairs_hook=mapping
        )
    except RecursionError:
        raise Refused("nested too deeply to read") from None
    _walk(doc, max_depth, twice)
    return doc


def _walk(doc: Any, max_depth: int, twice: dict[int, str]) -> None:
    """Refuse the first value (in document order) no reader takes, naming its path, and a document
    nested deeper than `max_depth`; without recursion."""
    stack: list[tuple[Any, str, int]] = [(doc, "", 0)]
    while stack:
        value, at, depth = stack.pop()
        if isinstance(value, _Bad):
            raise BadValue(at or "the document", value.why)
        if isinstance(value, (dict, list)):
            depth += 1
            if depth > max_depth:
                raise Refused(f"nested deeper than {max_depth} levels")
            if isinstance(value, dict):
                if id(value) in twice:
                    raise BadValue(at or "the document", f"duplicate key {twice[id(value)][:60]!r}")
                items = [(v, f"{at}.{k}" if at else str(k)) for k, v in value.items()]
            else:
                items = [(v, f"{at}[{i}]") for i, v in enumerate(value)]
            stack.extend((v, where, depth) for v, where in reversed(items))


def read_json(path: PathLike, limit: int, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """read_regular then parse_json: OSError, Refused or json.JSONDecodeError on trouble."""
    return parse_json(read_regular(path, limit), max_depth)
