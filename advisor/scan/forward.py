"""What MindSpore Graph mode really rejects in `forward` (checked by compiling small cells with the
installed MindSpore 2.10 in tests/test_scan_graph_mode.py):

- branches on a tensor *value* that yield different types (Tensor vs tuple, list or number):
  "Cannot join the return values of different branches";
- `range()` over a tensor value (`range(x.sum())`, `range(n.item())`): make_range needs an int;
- mutating a list or dict held on `self` (`self.feats.append(x)`, `self.cache[k] = v`): compiles,
  and the change is silently lost.

What it compiles, so what is NOT flagged: `if x.shape[0] > 64`, `if x.sum() > 0` (even with branches
of different shapes), loops over tensors or lists of tensors, `while` on a tensor value, None checks,
boolean indexing, `int(x.sum())` as a loop count, plain `self.attr = value` (default LAX syntax level).

A small taint analysis finds what is a tensor: forward's tensor-like parameters, and every local
computed from them or from a torch call.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from advisor.scan.imports import ImportTable, is_api

# Calls whose result does not depend on tensor data (safe in a test).
STATIC_CALLS = {"isinstance", "hasattr", "callable", "type", "getattr", "issubclass"}
STATIC_TORCH = {
    "torch.jit.is_scripting",
    "torch.jit.is_tracing",
    "torch.is_grad_enabled",
    "torch.is_tensor",
    "torch.onnx.is_in_onnx_export",
    "torch.compiler.is_compiling",
    "torch.is_autocast_enabled",
}
# Tensor metadata that is fixed when the graph is compiled: not data.
META_ATTRS = {
    "dtype",
    "device",
    "requires_grad",
    "is_cuda",
    "layout",
    "is_sparse",
    "is_leaf",
    "is_quantized",
    "is_nested",
}
META_METHODS = {"is_floating_point", "is_complex", "is_contiguous", "get_device", "type"}
SHAPE_WORDS = ("shape", "size", "dim", "ndim", "ndimension", "numel", "len")
MAX_TEXT = 70


@dataclass
class Finding:
    line: int
    message: str
    kind: str = "tensor_control_flow"


def _params(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Parameters that probably carry tensors: not self/cls, not flags with constant defaults or
    bool/int/str annotations."""
    a = func.args
    positional = a.posonlyargs + a.args
    defaults: dict[str, ast.expr] = {}
    for arg, default in zip(positional[len(positional) - len(a.defaults) :], a.defaults):
        defaults[arg.arg] = default
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        if default is not None:
            defaults[arg.arg] = default
    names: set[str] = set()
    for i, arg in enumerate(positional + a.kwonlyargs):
        if i == 0 and arg.arg in ("self", "cls", "ctx"):  # ctx: autograd.Function.forward
            continue
        ann = arg.annotation
        if isinstance(ann, ast.Name) and ann.id in ("bool", "int", "str", "float"):
            continue
        if isinstance(defaults.get(arg.arg), ast.Constant):
            continue
        names.add(arg.arg)
    if a.vararg is not None:  # *inputs: usually tensors; **kwargs: usually options, not tracked
        names.add(a.vararg.arg)
    return names


def is_forward(name: str) -> bool:
    """forward itself and its helpers (forward_features, _forward_impl): what runs in the graph."""
    return name == "forward" or name.startswith(("forward_", "_forward"))


def _target_names(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


class _Taint:
    def __init__(self, table: ImportTable, tainted: set[str]):
        self.table = table
        self.tainted = tainted
        self.shapes: set[str] = set()  # locals computed from a shape (`b = x.shape[0]`)
        self.items: set[str] = set()  # locals holding a tensor's value as a number (`n = lengths.max().item()`)

    def what(self, expr: ast.AST) -> str:
        """'shape' when the test reads a shape (directly or through a local), else 'value'. A value read
        out of a tensor (`.item()`, or a local holding one) is data, whatever its name says (`max_len`)."""
        names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        if _item_call(expr) or names & self.items:
            return "value"
        text = ast.unparse(expr)
        if any(w in text for w in SHAPE_WORDS):
            return "shape"
        return "shape" if names & self.shapes else "value"

    def _mark(self, target: ast.AST, value: ast.AST) -> None:
        names = _target_names(target)
        self.tainted.update(names)
        if _item_call(value) or {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} & self.items:
            self.items.update(names)
        elif self.what(value) == "shape":
            self.shapes.update(names)

    def depends(self, expr: ast.AST) -> bool:
        """Does expr read a tensor (tainted name or a torch call), outside static checks?"""
        if isinstance(expr, ast.Compare):
            if all(isinstance(op, (ast.Is, ast.IsNot)) for op in expr.ops):
                return False  # `x is None`: known at compile time
            if any(isinstance(c, ast.Constant) and isinstance(c.value, str) for c in [expr.left, *expr.comparators]):
                return False  # `mode == "cpu"`: a string, not a tensor
        if isinstance(expr, ast.Attribute) and expr.attr in META_ATTRS:
            return False
        if isinstance(expr, ast.Call):
            func = expr.func
            if isinstance(func, ast.Name) and func.id in STATIC_CALLS:
                return False
            if isinstance(func, ast.Attribute) and func.attr in META_METHODS:
                return False
            qualified = self.table.resolve(func)
            if qualified and is_api(qualified):
                if qualified in STATIC_TORCH:
                    return False
                if qualified.startswith("torch."):
                    return True
        if isinstance(expr, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            return self.depends(expr.elt)  # any(t.device.type != "cpu" for t in xs): static per element
        if isinstance(expr, ast.Name):
            return isinstance(expr.ctx, ast.Load) and expr.id in self.tainted
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls"):
            return False  # self.training, self.flag: module configuration
        return any(self.depends(child) for child in ast.iter_child_nodes(expr))

    def spread(self, func: ast.AST) -> None:
        """Mark locals computed from tensors, until nothing changes."""
        for _ in range(10):
            before = len(self.tainted) + len(self.shapes) + len(self.items)
            for node in ast.walk(func):
                if isinstance(node, ast.Assign) and self.depends(node.value):
                    for t in node.targets:
                        self._mark(t, node.value)
                elif (
                    isinstance(node, (ast.AugAssign, ast.AnnAssign))
                    and node.value is not None
                    and self.depends(node.value)
                ):
                    self._mark(node.target, node.value)
                elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and self.depends(node.iter):
                    self._mark(node.target, node.iter)
                elif isinstance(node, ast.NamedExpr) and self.depends(node.value):
                    self._mark(node.target, node.value)
            if len(self.tainted) + len(self.shapes) + len(self.items) == before:
                return


def _text(expr: ast.AST) -> str:
    text = " ".join(ast.unparse(expr).split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


MUTATORS = {"append", "extend", "insert", "update", "pop", "clear", "setdefault", "remove", "add"}
INT_CASTS = {"int", "len"}  # a Python int: JIT fallback gives range() what it needs


def _value_test(test: ast.AST, taint: _Taint) -> bool:
    """A test on tensor data (not a shape, not static): only then can the branches disagree at run time."""
    return taint.depends(test) and taint.what(test) == "value"


def _kind(expr: ast.AST | None, taint: _Taint) -> str | None:
    """The type a branch yields, where the ast shows it; None where it cannot tell or for None."""
    if expr is None or isinstance(expr, ast.Constant) and expr.value is None:
        return None  # Tensor vs None joins (verified)
    if isinstance(expr, ast.Constant):
        return "string" if isinstance(expr.value, str) else "number"
    if isinstance(expr, (ast.Tuple, ast.List, ast.ListComp)):
        return "tuple/list"
    if isinstance(expr, (ast.Dict, ast.DictComp)):
        return "dict"
    return "Tensor" if taint.depends(expr) else None


def _blocks(func: ast.AST):
    """Every statement list in func, not entering nested functions or classes."""
    stack = [func]
    while stack:
        node = stack.pop()
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block
                stack.extend(
                    s for s in block if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                )
        stack.extend(getattr(node, "handlers", []) or [])


def _returns(stmts: list[ast.stmt]) -> list[ast.Return]:
    out = []
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Return):
                out.append(node)
    return out


def _assigned(stmts: list[ast.stmt]) -> dict[str, ast.AST]:
    """name -> value of the plain assignments at the top of a block."""
    return {
        s.targets[0].id: s.value
        for s in stmts
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
    }


def _differ(one: list[ast.AST | None], other: list[ast.AST | None], taint: _Taint) -> tuple[str, str] | None:
    a = {k for k in (_kind(e, taint) for e in one) if k}
    b = {k for k in (_kind(e, taint) for e in other) if k}
    for x in sorted(a):
        for y in sorted(b):
            if x != y:
                return x, y
    return None


def _branch_types(func: ast.AST, taint: _Taint) -> list[Finding]:
    found = []
    for block in _blocks(func):
        for i, stmt in enumerate(block):
            if not isinstance(stmt, ast.If) or not _value_test(stmt.test, taint):
                continue
            rest = stmt.orelse or block[i + 1 :]
            pair = _differ([r.value for r in _returns(stmt.body)], [r.value for r in _returns(rest)], taint)
            if pair is None and stmt.orelse:
                body, other = _assigned(stmt.body), _assigned(stmt.orelse)
                for name in sorted(set(body) & set(other)):
                    pair = pair or _differ([body[name]], [other[name]], taint)
            if pair:
                found.append(
                    Finding(
                        stmt.lineno,
                        f"`if {_text(stmt.test)}` in forward branches on a tensor value and "
                        f"yields {pair[0]} on one branch, {pair[1]} on the other: Graph mode cannot join them",
                    )
                )
    for node in ast.walk(func):
        if isinstance(node, ast.IfExp) and _value_test(node.test, taint):
            pair = _differ([node.body], [node.orelse], taint)
            if pair:
                found.append(
                    Finding(
                        node.lineno,
                        f"`... if {_text(node.test)} else ...` in forward yields {pair[0]} or "
                        f"{pair[1]} depending on a tensor value: Graph mode cannot join them",
                    )
                )
    return found


def _int_cast(expr: ast.AST, casts: set[str]) -> bool:
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in INT_CASTS:
        return True
    return isinstance(expr, ast.Name) and expr.id in casts


def _item_call(expr: ast.AST) -> bool:
    """`n.item()` anywhere in a range bound: only a tensor has .item(), so this is tensor data."""
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "item" and not n.args
        for n in ast.walk(expr)
    )


def _names(expr: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def _flat(target: ast.AST) -> list[ast.AST]:
    """`self.a[k], self.b = ...`: every single target of a tuple/list target."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [t for e in target.elts for t in _flat(e)]
    if isinstance(target, ast.Starred):
        return _flat(target.value)
    return [target]


def _ranges(func: ast.AST, taint: _Taint) -> list[Finding]:
    casts = {
        t.id
        for n in ast.walk(func)
        if isinstance(n, ast.Assign) and _int_cast(n.value, set())
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    found = []
    for node in ast.walk(func):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"):
            continue
        bad = [
            a
            for a in node.args
            if not _int_cast(a, casts) and (_value_test(a, taint) or _item_call(a) or _names(a) & taint.items)
        ]
        if bad:
            found.append(
                Finding(
                    node.lineno,
                    f"`range({_text(bad[0])})` in forward takes its count from tensor data: "
                    "Graph mode needs an int (make_range), use int(...) or a fixed bound",
                )
            )
    return found


def _self_mutations(func: ast.AST) -> list[Finding]:
    def on_self(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"

    found = []
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATORS
            and on_self(node.func.value)
        ):
            found.append(
                Finding(
                    node.lineno,
                    f"`{_text(node.func)}(...)` in forward mutates a container on self: "
                    "Graph mode compiles it and the change is silently lost",
                    "graph_side_effect",
                )
            )
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        )
        for t in [f for t in targets for f in _flat(t)]:
            if isinstance(t, ast.Subscript) and on_self(t.value):
                found.append(
                    Finding(
                        node.lineno,
                        f"`{_text(t)} = ...` in forward writes into a container on self: "
                        "Graph mode compiles it and the change is silently lost",
                        "graph_side_effect",
                    )
                )
    return found


def find(func: ast.FunctionDef | ast.AsyncFunctionDef, table: ImportTable) -> list[Finding]:
    taint = _Taint(table, _params(func))
    taint.spread(func)
    found = _branch_types(func, taint) + _ranges(func, taint) + _self_mutations(func)
    found.sort(key=lambda f: f.line)
    return found
