"""Python control flow on tensor values or shapes inside `forward`: what MindSpore Graph mode
cannot compile as written (seed 000, pitfall 2: `if x.shape[0] > 64:` fails to compile).

A small taint analysis: forward's tensor-like parameters, and every local computed from them or from
a torch call, are "tensors"; an `if`/`while`/`for`/conditional expression whose test uses one is a
hazard. `x is None`, `isinstance(x, ...)` and `self.*` flags are static and not flagged.
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
META_ATTRS = {"dtype", "device", "requires_grad", "is_cuda", "layout", "is_sparse", "is_leaf", "is_quantized", "is_nested"}
META_METHODS = {"is_floating_point", "is_complex", "is_contiguous", "get_device", "type"}
SHAPE_WORDS = ("shape", "size", "dim", "ndim", "ndimension", "numel", "len")
MAX_TEXT = 70


@dataclass
class Finding:
    line: int
    message: str


def _params(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Parameters that probably carry tensors: not self/cls, not flags with constant defaults or
    bool/int/str annotations."""
    a = func.args
    positional = a.posonlyargs + a.args
    defaults: dict[str, ast.expr] = {}
    for arg, default in zip(positional[len(positional) - len(a.defaults):], a.defaults):
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

    def what(self, expr: ast.AST) -> str:
        """'shape' when the test reads a shape (directly or through a local), else 'value'."""
        text = ast.unparse(expr)
        if any(w in text for w in SHAPE_WORDS):
            return "shape"
        names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        return "shape" if names & self.shapes else "value"

    def _mark(self, target: ast.AST, value: ast.AST) -> None:
        names = _target_names(target)
        self.tainted.update(names)
        if self.what(value) == "shape":
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
        if isinstance(expr, ast.Name):
            return isinstance(expr.ctx, ast.Load) and expr.id in self.tainted
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls"):
            return False  # self.training, self.flag: module configuration
        return any(self.depends(child) for child in ast.iter_child_nodes(expr))

    def spread(self, func: ast.AST) -> None:
        """Mark locals computed from tensors, until nothing changes."""
        for _ in range(10):
            before = len(self.tainted) + len(self.shapes)
            for node in ast.walk(func):
                if isinstance(node, ast.Assign) and self.depends(node.value):
                    for t in node.targets:
                        self._mark(t, node.value)
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None and self.depends(node.value):
                    self._mark(node.target, node.value)
                elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and self.depends(node.iter):
                    self._mark(node.target, node.iter)
                elif isinstance(node, ast.NamedExpr) and self.depends(node.value):
                    self._mark(node.target, node.value)
            if len(self.tainted) + len(self.shapes) == before:
                return


def _text(expr: ast.AST) -> str:
    text = " ".join(ast.unparse(expr).split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def _loops_over_tensor(iterable: ast.AST, taint: _Taint) -> bool:
    """`for t in (q, k)` unrolls over a fixed-length literal; anything else tensor-derived does not."""
    return not isinstance(iterable, (ast.Tuple, ast.List)) and taint.depends(iterable)


def find(func: ast.FunctionDef | ast.AsyncFunctionDef, table: ImportTable) -> list[Finding]:
    taint = _Taint(table, _params(func))
    taint.spread(func)
    found: list[Finding] = []
    for node in ast.walk(func):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)) and taint.depends(node.test):
            word = {ast.If: "if", ast.While: "while", ast.IfExp: "conditional expression"}[type(node)]
            found.append(Finding(node.lineno, f"`{word} {_text(node.test)}` in forward branches on a tensor {taint.what(node.test)}"))
        elif isinstance(node, (ast.For, ast.AsyncFor)) and _loops_over_tensor(node.iter, taint):
            found.append(Finding(node.lineno, f"`for ... in {_text(node.iter)}` in forward loops over a tensor {taint.what(node.iter)}"))
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for gen in node.generators:
                if _loops_over_tensor(gen.iter, taint):
                    found.append(Finding(node.lineno, f"comprehension `for ... in {_text(gen.iter)}` in forward loops over a tensor {taint.what(gen.iter)}"))
                for cond in gen.ifs:
                    if taint.depends(cond):
                        found.append(Finding(node.lineno, f"comprehension filter `if {_text(cond)}` in forward tests a tensor {taint.what(cond)}"))
    found.sort(key=lambda f: f.line)
    return found
