"""Reading small YAML input files that a user wrote: bounded, strict and never expanded blindly.

`yaml.safe_load` already refuses tags that build objects. What it does not refuse: duplicate keys (a
silent overwrite hides a typo), an alias bomb (a 1 KB file whose nine levels of aliases expand to
gigabytes), nesting deeper than Python's recursion limit, and integers longer than Python converts.
Each of those is bad input here: one UsageError line naming the file and where.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml

from advisor.errors import UsageError

# A requirements file has about a hundred nodes; 100,000 after alias expansion is far beyond any
# real file and still costs milliseconds to build.
MAX_EXPANDED_NODES = 100_000
# Deeper than any real configuration; well inside Python's recursion limit for the constructor.
MAX_DEPTH = 64


class StrictLoader(yaml.SafeLoader):
    """SafeLoader that also rejects duplicate keys and reads 1e3 as a number (YAML 1.2, JSON)."""


def _construct_mapping(loader: StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            duplicate = key in seen
        except TypeError:  # an unhashable key (a list as key): the constructor says so below
            duplicate = False
        if duplicate:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        if not isinstance(key, (list, dict)):
            seen.add(key)
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
# YAML 1.1 (PyYAML) reads `1e3` and `5e5` as strings: a user writing a number in exponent form got
# "expected a valid number (got str '1e3')". Read them as floats, as YAML 1.2 and JSON do.
StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"), list("-+0123456789")
)


def _where(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark else "somewhere"


def _check_graph(name: str, root: yaml.Node) -> None:
    """Count the nodes the document expands to (an alias counts its whole target again) and its
    depth, without expanding anything: refuse a bomb before the constructor builds it."""
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node: yaml.Node, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise UsageError(
                f"{name}: {_where(node.start_mark)}: nested deeper than {MAX_DEPTH} levels: "
                "expected a flat configuration file"
            )
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise UsageError(
                f"{name}: {_where(node.start_mark)}: an alias refers to its own parent: expected plain YAML values"
            )
        active.add(key)
        if isinstance(node, yaml.SequenceNode):
            total = 1 + sum(size(child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total = 1 + sum(size(k, depth + 1) + size(v, depth + 1) for k, v in node.value)
        else:
            total = 1
        active.discard(key)
        if total > MAX_EXPANDED_NODES:
            raise UsageError(
                f"{name}: {_where(node.start_mark)}: aliases expand to more than "
                f"{MAX_EXPANDED_NODES:,} values: expected a small configuration file "
                "(write the values out instead of nesting aliases)"
            )
        sizes[key] = total
        return total

    size(root, 0)


def yaml_error(name: str, exc: yaml.YAMLError) -> UsageError:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if isinstance(exc, yaml.constructor.ConstructorError) and "constructor for the tag" in str(problem):
        tag = str(problem).split("tag", 1)[-1].strip(" '")
        return UsageError(
            f"{name}: {_where(mark)}: YAML tag {tag!r} is not allowed: "
            "expected plain YAML values (mappings, lists, strings, numbers, booleans)"
        )
    return UsageError(f"{name}: {_where(mark)}: invalid YAML: {clip(str(problem))}")


def clip(text: str, limit: int = 120) -> str:
    """A value quoted in an error line: never more than `limit` characters of it."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def load_yaml(text: str, name: str) -> Any:
    """Parse one YAML document strictly; every failure is one UsageError line naming `name`."""
    loader = StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_graph(name, node)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise yaml_error(name, exc) from None
    except RecursionError:
        raise UsageError(f"{name}: nested too deeply to read: expected a flat configuration file") from None
    except ValueError as exc:  # e.g. an integer longer than Python converts (4,300 digits)
        raise UsageError(f"{name}: invalid value: {clip(str(exc))}") from None
    finally:
        loader.dispose()


def read_bounded(path: str | os.PathLike, limit: int, expected: str, flag: str = "") -> bytes:
    """The bytes of a regular file of at most `limit` bytes, or one UsageError line.

    Reads at most limit + 1 bytes, so /dev/zero or a huge file is refused without reading it all,
    and refuses what is not a regular file (a folder, a FIFO, a device) before opening it."""
    name = str(path)
    where = f"{name}: {flag}: " if flag else f"{name}: "
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UsageError(f"{where}no such file: expected {expected}") from None
    except OSError as exc:
        raise UsageError(f"{where}cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{where}is a folder: expected {expected}")
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{where}not a regular file: expected {expected}")
    if st.st_size > limit:
        raise UsageError(f"{where}file is {st.st_size:,} bytes: expected {expected} of at most {limit:,} bytes")
    try:
        with Path(path).open("rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise UsageError(f"{where}cannot read: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise UsageError(f"{where}more than {limit:,} bytes: expected {expected} of at most {limit:,} bytes")
    return raw
