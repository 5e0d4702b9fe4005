"""Reading small YAML input files that a user wrote: bounded, strict and never expanded blindly.

`yaml.safe_load` already refuses tags that build objects. What it does not refuse: duplicate keys (a
silent overwrite hides a typo), an alias bomb (a 1 KB file whose nine levels of aliases expand to
gigabytes), nesting deeper than Python's recursion limit, and integers longer than Python converts.
Each of those is bad input here: one UsageError line naming the file and where.
"""

from __future__ import annotations

import os
import re
from typing import Any

import yaml

from advisor.errors import UsageError
from advisor.sanitize import for_terminal

# A requirements file has about a hundred nodes; 100,000 after alias expansion is far beyond any
# real file and still costs milliseconds to build.
MAX_EXPANDED_NODES = 100_000
# Deeper than any real configuration; well inside Python's recursion limit for the constructor.
MAX_DEPTH = 64


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            duplicate = key in seen
        except TypeError:  # an unhashable key (a list as key): the constructor says so below
            duplicate = False
        if duplicate:
            shown = clip(for_terminal(repr(key)), 60)
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {shown}", key_node.start_mark)
        if not isinstance(key, (list, dict)):
            seen.add(key)
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_BOOL, _INT, _FLOAT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_INT_12 = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    """YAML 1.2 integers: `010` is ten (not YAML 1.1's octal eight), `0o10` eight, `0x10` sixteen."""
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _strict(base: type) -> type:
    """`base` (SafeLoader, or its C build) reading YAML 1.2 core scalars, refusing duplicate keys.

    YAML 1.1 (PyYAML's default) reads `devices: 1:30` as 90 (base 60), `010` as 8 and `no`, `on`,
    `y` as booleans: a typo became a silent, wrong number. Here only true/false are booleans,
    integers are decimal (or 0o / 0x), `1:30` stays text (and a number field refuses it), and
    `1e3` is a float as in JSON."""
    loader = type(f"Strict{base.__name__}", (base,), {})
    loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag not in (_BOOL, _INT, _FLOAT)]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    loader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
    loader.add_implicit_resolver(_INT, _INT_12, list("-+0123456789"))
    loader.add_implicit_resolver(
        _FLOAT,
        re.compile(
            r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        list("-+.0123456789"),
    )
    loader.add_constructor(_INT, _construct_int)
    loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    return loader


# The one strict loader for every YAML file the tool reads (requirements, knowledge base and its
# overrides); the C build where PyYAML has one (same semantics, ~10x faster on the bundled KB).
StrictLoader = _strict(yaml.SafeLoader)
StrictCLoader = _strict(yaml.CSafeLoader) if hasattr(yaml, "CSafeLoader") else StrictLoader


def _where(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark else "somewhere"


_STR = yaml.resolver.BaseResolver.DEFAULT_SCALAR_TAG
_PLAIN_TAGS = {
    yaml.MappingNode: yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    yaml.SequenceNode: yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG,
}


def _explicit_tag(loader: Any, node: yaml.Node) -> str | None:
    """The tag a node was given explicitly (`!!float 1:30`, `!!bool yes`, `!!binary ...`), else None.

    A tag reaches the YAML 1.1 constructors the strict loader keeps out (base 60, yes/no booleans,
    bytes, sets): only what the value would resolve to on its own is plain YAML."""
    if isinstance(node, yaml.ScalarNode):
        plain = not node.style  # None from the Python parser, '' from the C one
        implicit = loader.resolve(yaml.ScalarNode, node.value, (plain, not plain))
        return None if node.tag in (implicit, _STR) else node.tag  # `!!str 5`: a string, as asked
    return None if node.tag == _PLAIN_TAGS.get(type(node)) else node.tag


def _check_graph(
    name: str, root: yaml.Node, max_nodes: int = MAX_EXPANDED_NODES, max_depth: int = MAX_DEPTH, loader: Any = None
) -> None:
    """Count the nodes the document expands to (an alias counts its whole target again) and its
    depth, without expanding anything: refuse a bomb before the constructor builds it. With
    `loader`, refuse an explicit tag too."""
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node: yaml.Node, depth: int) -> int:
        if depth > max_depth:
            raise UsageError(
                f"{name}: {_where(node.start_mark)}: nested deeper than {max_depth} levels: "
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
        tag = _explicit_tag(loader, node) if loader is not None else None
        if tag is not None:
            raise UsageError(
                f"{name}: {_where(node.start_mark)}: YAML tag {clip(for_terminal(tag), 60)!r} is not allowed: "
                "expected plain YAML values (mappings, lists, strings, numbers, booleans)"
            )
        if isinstance(node, yaml.SequenceNode):
            total = 1 + sum(size(child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total = 1 + sum(size(k, depth + 1) + size(v, depth + 1) for k, v in node.value)
        else:
            total = 1
        active.discard(key)
        if total > max_nodes:
            raise UsageError(
                f"{name}: {_where(node.start_mark)}: aliases expand to more than "
                f"{max_nodes:,} values: expected a small configuration file "
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
    if "nesting depth" in str(problem):  # the C parser's own bound
        return UsageError(f"{name}: {_where(mark)}: nested too deeply to read: expected a flat configuration file")
    return UsageError(f"{name}: {_where(mark)}: invalid YAML: {clip(for_terminal(str(problem)))}")


def clip(text: str, limit: int = 120) -> str:
    """A value quoted in an error line: never more than `limit` characters of it."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def load_yaml(text: str, name: str, max_nodes: int = MAX_EXPANDED_NODES, max_depth: int = MAX_DEPTH) -> Any:
    """Parse one YAML document strictly; every failure is one UsageError line naming `name`.

    `max_nodes` bounds what aliases may expand to (a knowledge-base file is larger than a
    requirements file and passes a larger bound)."""
    loader = StrictCLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_graph(name, node, max_nodes, max_depth, loader)
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
    """The bytes of a regular file of at most `limit` bytes, or one UsageError line naming the file
    (and `flag`) and what was `expected` (probes.bounded.read_regular: a FIFO, a device, a folder or
    a file larger than `limit` is refused without blocking and without reading it whole)."""
    from probes.bounded import Refused, read_regular

    name = str(path)
    where = f"{name}: {flag}: " if flag else f"{name}: "
    try:
        return read_regular(path, limit)
    except FileNotFoundError:
        raise UsageError(f"{where}no such file: expected {expected}") from None
    except Refused as exc:
        raise UsageError(
            f"{where}{exc}: expected {expected} of at most {limit:,} bytes"
            if "bytes" in str(exc)
            else f"{where}{exc}: expected {expected}"
        ) from None
    except OSError as exc:
        raise UsageError(f"{where}cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:  # an embedded NUL byte in the name
        raise UsageError(f"{where}cannot read: {exc}") from None
