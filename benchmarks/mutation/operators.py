"""Generated mutants: one small change inside one function body, found by walking the module's syntax tree.

The operator set is the one a reviewer plants by hand: a comparison negated, a constant off by one, an
arithmetic or boolean operator swapped, min for max, a statement dropped, two arguments swapped. Only
function bodies are mutated (a default, a decorator or module-level code is evaluated once, at import),
and never strings (words belong to the rendering layer and are not arithmetic).

A mutant is rebuilt from its position in a fixed walk of a freshly parsed tree, so the list can be made in
one process and applied in another; compiling the mutated tree keeps every line number.
"""

from __future__ import annotations

import ast
import builtins
import copy
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Callable, Iterator, Optional

_NEGATED = {
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
_ARITHMETIC = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Pow: ast.Mult,
    ast.Mod: ast.FloorDiv,
}
_BUILTINS = frozenset(dir(builtins))
_SWAPPED_CALLS = {"min": "max", "max": "min", "any": "all", "all": "any"}


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to the repository root
    function: str  # qualified name of the outermost function holding the change (its code is swapped)
    index: int  # position of the change in the module's walk
    operator: str
    line: int
    lines: tuple[int, ...]  # lines a test must execute to reach the change
    before: str
    after: str

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line}:{self.operator}:{self.index}"


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and _is_text(stmt.value)


# Each rule takes a node and returns the mutated copy's change, applied in place, or None when the node is
# not a site for it. A rule must return the same answer for the same node in any process.
def _comparison(node: ast.AST) -> Optional[Callable[[ast.AST], None]]:
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _NEGATED:

        def apply(n: ast.AST) -> None:
            n.ops = [_NEGATED[type(n.ops[0])]()]

        return apply
    return None


def _constant(node: ast.AST) -> Optional[Callable[[ast.AST], None]]:
    if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
        return None
    if isinstance(node.value, int):

        def apply(n: ast.AST) -> None:
            n.value = n.value + 1

        return apply
    if isinstance(node.value, float):

        def apply(n: ast.AST) -> None:
            n.value = n.value * 2 if n.value else 1.0

        return apply
    return None


def _arithmetic(node: ast.AST) -> Optional[Callable[[ast.AST], None]]:
    if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _ARITHMETIC:
        if isinstance(node, ast.BinOp) and any(
            _is_text(side) or isinstance(side, (ast.List, ast.Tuple)) for side in (node.left, node.right)
        ):
            return None  # text or sequence concatenation, not arithmetic

        def apply(n: ast.AST) -> None:
            n.op = _ARITHMETIC[type(n.op)]()

        return apply
    return None


def _boolean(node: ast.AST) -> Optional[Callable[[ast.AST], None]]:
    if isinstance(node, ast.BoolOp):

        def apply(n: ast.AST) -> None:
            n.op = ast.Or() if isinstance(n.op, ast.And) else ast.And()

        return apply
    return None


def _call(node: ast.AST) -> Optional[Callable[[ast.AST], None]]:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _SWAPPED_CALLS:

        def apply(n: ast.AST) -> None:
            n.func = ast.Name(id=_SWAPPED_CALLS[n.func.id], ctx=ast.Load())

        return apply
    return None


def _arguments(node: ast.AST) -> Optional[Callable[[ast.AST], None]]:
    if not isinstance(node, ast.Call) or len(node.args) < 2:
        return None
    if isinstance(node.func, ast.Name) and node.func.id in _BUILTINS:
        return None  # min, max, isinstance, round ...: symmetric or a type error, never a wrong number
    first, second = node.args[0], node.args[1]
    if isinstance(first, ast.Starred) or isinstance(second, ast.Starred):
        return None
    if ast.dump(first) == ast.dump(second) or _is_text(first) or _is_text(second):
        return None

    def apply(n: ast.AST) -> None:
        n.args[0], n.args[1] = n.args[1], n.args[0]

    return apply


def _statement(node: ast.AST) -> Optional[Callable[[ast.AST], None]]:
    """Statements whose loss leaves valid code: a call for its effect, an update, a store, a raise."""
    droppable = (
        (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call))
        or isinstance(node, (ast.AugAssign, ast.Raise))
        or (isinstance(node, ast.Assign) and all(isinstance(t, (ast.Attribute, ast.Subscript)) for t in node.targets))
    )
    if not droppable:
        return None

    def apply(n: ast.AST) -> None:
        n.__class__ = ast.Pass
        for field in list(n._fields):
            delattr(n, field)
        n._fields = ()

    return apply


RULES: dict[str, Callable[[ast.AST], Optional[Callable[[ast.AST], None]]]] = {
    "comparison": _comparison,
    "constant": _constant,
    "arithmetic": _arithmetic,
    "boolean": _boolean,
    "min/max": _call,
    "arguments": _arguments,
    "statement": _statement,
}


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """Outermost functions and methods (nested classes included), with their qualified names."""

    def walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.AST]]:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield prefix + stmt.name, stmt
            elif isinstance(stmt, ast.ClassDef):
                yield from walk(stmt.body, f"{prefix}{stmt.name}.")

    yield from walk(tree.body, "")


def _body_nodes(fn: ast.AST) -> Iterator[tuple[ast.AST, ast.stmt]]:
    """Every node inside a function's body, with the statement that holds it; strings never entered."""

    def visit(node: ast.AST, stmt: ast.stmt) -> Iterator[tuple[ast.AST, ast.stmt]]:
        if _is_text(node):
            return
        if isinstance(node, ast.stmt):
            stmt = node
        yield node, stmt
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            children = node.body if isinstance(node.body, list) else [node.body]  # not defaults, decorators
        else:
            children = list(ast.iter_child_nodes(node))
        for child in children:
            if isinstance(child, (ast.arguments, ast.arg)) or getattr(child, "_no_mutate", False):
                continue
            yield from visit(child, stmt)

    for stmt in fn.body:
        if not _docstring(stmt):
            yield from visit(stmt, stmt)


def _sites(tree: ast.Module) -> Iterator[tuple[int, str, str, ast.AST, ast.stmt, Callable[[ast.AST], None]]]:
    index = 0
    for qualname, fn in _functions(tree):
        for node, stmt in _body_nodes(fn):
            if isinstance(node, ast.Constant) and _in_annotation_or_index(node):
                continue
            for operator, rule in RULES.items():
                change = rule(node)
                if change is not None:
                    yield index, qualname, operator, node, stmt, change
                    index += 1


def _in_annotation_or_index(node: ast.AST) -> bool:
    return bool(getattr(node, "_annotation", False))


def _mark_annotations(tree: ast.Module) -> None:
    """Annotations are never run: their constants are no sites."""
    for node in ast.walk(tree):
        for ann in (getattr(node, "annotation", None), getattr(node, "returns", None)):
            if isinstance(ann, ast.AST):
                for sub in ast.walk(ann):
                    sub._annotation = True  # type: ignore[attr-defined]
        if isinstance(node, ast.AnnAssign) and node.value is None:
            node._no_mutate = True  # type: ignore[attr-defined]


def _parse(source: str, path: str) -> ast.Module:
    tree = ast.parse(source, filename=path)
    _mark_annotations(tree)
    return tree


def _reach(node: ast.AST, stmt: ast.stmt) -> tuple[int, ...]:
    lines = set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    lines.add(stmt.lineno)
    return tuple(sorted(lines))


def mutants_of(root: Path, path: str, functions: Optional[tuple[str, ...]] = None) -> list[Mutant]:
    """Every mutant of one file, or of the named functions (qualified-name prefixes) in it."""
    source = (root / path).read_text(encoding="utf-8")
    found = []
    for index, qualname, operator, node, stmt, change in _sites(_parse(source, path)):
        if functions and not any(qualname == f or qualname.startswith(f + ".") for f in functions):
            continue
        before = ast.unparse(node)
        mutated = copy.deepcopy(node)
        change(mutated)
        after = "pass" if operator == "statement" else ast.unparse(mutated)
        found.append(
            Mutant(path, qualname, index, operator, node.lineno, _reach(node, stmt), _short(before), _short(after))
        )
    return found


def _short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def mutated_code(root: Path, mutant: Mutant) -> CodeType:
    """The code object of the mutant's function, compiled from the changed tree with its line numbers."""
    source = (root / mutant.path).read_text(encoding="utf-8")
    tree = _parse(source, mutant.path)
    for index, _qualname, _operator, node, _stmt, change in _sites(tree):
        if index == mutant.index:
            change(node)
            ast.fix_missing_locations(tree)
            break
    else:
        raise LookupError(f"{mutant.key}: the site is gone (the file changed since the list was made)")
    module = compile(tree, str(root / mutant.path), "exec", dont_inherit=True)
    return find_code(module, mutant.function)


def find_code(code: CodeType, qualname: str) -> CodeType:
    for const in code.co_consts:
        if isinstance(const, CodeType):
            if const.co_qualname == qualname:
                return const
            if qualname.startswith(const.co_qualname + "."):  # a method: look inside its class body
                try:
                    return find_code(const, qualname)
                except LookupError:
                    pass
    raise LookupError(qualname)
