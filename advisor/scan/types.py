"""What a name holds, from the imports and simple assignments of one module (no inference beyond that):

- foreign: a NumPy/OpenCV/pandas... module or a local assigned from one (`a = np.array(x)`): its
  `.nonzero()`, `.unique()`, `a[a > 0]` are not torch ops;
- objects: a local assigned from a torch class that is not a tensor (`scaler = GradScaler()`,
  `opt = torch.optim.SGD(...)`): its `unscale_()` is no in-place tensor op;
- masks: a local assigned from a comparison (`xc = p[..., 4] > t`, `keep = ~m & n`): indexing with it
  keeps a data-dependent number of elements.

A name assigned both ways anywhere in the module is left unknown (the table ignores scopes).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from advisor.scan.imports import all_nodes, ImportTable, is_api, root_of

ARRAY_LIBS = {"numpy", "cv2", "pandas", "PIL", "scipy", "math", "random", "cupy", "jax", "tensorflow", "skimage"}
# Inference runtimes: a class that imports one is a deployment backend, never a MindSpore graph.
RUNTIMES = {"tensorrt", "onnxruntime", "openvino", "coremltools", "tflite_runtime", "paddle", "tensorflow", "pycuda"}
NOT_TENSOR_CLASSES = {"Tensor", "tensor"}


@dataclass
class Types:
    foreign: set[str] = field(default_factory=set)
    objects: set[str] = field(default_factory=set)
    masks: set[str] = field(default_factory=set)  # of the module's top level; functions have their own
    runtimes: set[str] = field(default_factory=set)  # names bound to inference-runtime modules


def holder(expr: ast.AST) -> str | None:
    """The name an object is held under: `x`, or `self.x` for an attribute of self."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return "self." + expr.attr
    return None


def _third_party_class(q: str | None) -> bool:
    """`Accelerator(...)` from accelerate, `EMA(...)` from ema_pytorch: an instance of a class from an
    imported library that is not torch (is_api covers torch and torchvision...): an object, not a tensor."""
    return bool(q) and not is_api(q) and q.rsplit(".", 1)[-1][:1].isupper() and root_of(q) not in ARRAY_LIBS


def _other_imports(tree: ast.Module) -> dict[str, str]:
    """Names bound by absolute imports of libraries that are not torch (ImportTable tracks torch's only)."""
    out: dict[str, str] = {}
    for node in all_nodes(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if not is_api(a.name):
                    out[a.asname or a.name.split(".", 1)[0]] = a.name if a.asname else a.name.split(".", 1)[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and not is_api(node.module):
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _resolve_other(func: ast.AST | None, others: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in others:
        return None
    return ".".join([others[func.id], *reversed(parts)])


def root_name(expr: ast.AST) -> str | None:
    """The Name at the root of `a.b(c)[d].e()`."""
    while True:
        if isinstance(expr, ast.Attribute):
            expr = expr.value
        elif isinstance(expr, ast.Call):
            expr = expr.func
        elif isinstance(expr, ast.Subscript):
            expr = expr.value
        else:
            break
    return expr.id if isinstance(expr, ast.Name) else None


def is_mask(expr: ast.AST, masks: set[str]) -> bool:
    if isinstance(expr, ast.Compare):
        text = ast.unparse(expr)
        if "shape" in text or "len(" in text or ".size(" in text or ".ndim" in text:
            return False  # `ti.shape[1] == 6`: a Python bool from sizes, not a mask
        if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expr.ops):
            return False
        return not any(isinstance(c, ast.Constant) and isinstance(c.value, str) for c in [expr.left, *expr.comparators])
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Invert):
        return is_mask(expr.operand, masks)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.BitAnd, ast.BitOr)):
        return is_mask(expr.left, masks) or is_mask(expr.right, masks)
    if isinstance(expr, ast.Name):
        return expr.id in masks
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
        return expr.value.id in masks  # xc[xi]: a row of a mask
    if isinstance(expr, ast.Attribute) and expr.attr in ("T", "mT"):
        return is_mask(expr.value, masks)  # j, k = ((a < g) & (a > 1)).T
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        if expr.func.attr == "bool":
            return True
        if expr.func.attr in ("stack", "cat") and expr.args:  # torch.stack((ones_like(j), j, k))
            elts = expr.args[0].elts if isinstance(expr.args[0], (ast.Tuple, ast.List)) else []
            return any(is_mask(e, masks) for e in elts if isinstance(e, ast.Name))
    return False


def build(tree: ast.Module, table: ImportTable) -> Types:
    types = Types()
    for node in all_nodes(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                bound = a.asname or a.name.split(".", 1)[0]
                if root_of(a.name) in ARRAY_LIBS:
                    types.foreign.add(bound)
                if root_of(a.name) in RUNTIMES:
                    types.runtimes.add(bound)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                if root_of(node.module) in ARRAY_LIBS:
                    types.foreign.add(a.asname or a.name)
                if root_of(node.module) in RUNTIMES:
                    types.runtimes.add(a.asname or a.name)
    others = _other_imports(tree)
    torchy: set[str] = set()
    tensors: set[str] = set()  # assigned from a torch function somewhere: never an object
    for _ in range(2):  # an alias of an alias
        for node in all_nodes(tree):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            name, value = holder(node.targets[0]), node.value
            if name is None:
                continue
            if holder(value) in types.objects and name not in torchy:  # accelerator = self.accelerator
                types.objects.add(name)
                continue
            root = root_name(value)
            if root in types.foreign and name not in torchy:
                types.foreign.add(name)
                continue
            func = value.func if isinstance(value, ast.Call) else None
            q = table.resolve(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
            if _third_party_class(q or _resolve_other(func, others)):
                types.objects.add(name)
            elif q and is_api(q):
                torchy.add(name)
                last = q.rsplit(".", 1)[-1]
                if last[:1].isupper() and last not in NOT_TENSOR_CLASSES:
                    types.objects.add(name)
                else:
                    tensors.add(name)
            elif root and (root in torchy or root in table.names):
                torchy.add(name)
    types.foreign -= torchy
    types.objects -= tensors
    return types


def masks_in(scope: ast.AST) -> set[str]:
    """Names that hold boolean masks in one function (or module): every plain assignment of the name in
    that scope is a mask expression (`j = iou.argsort()` elsewhere in the function makes j unknown)."""
    masks: set[str] = set()
    for _ in range(3):  # a mask built from masks
        verdict: dict[str, bool] = {}
        for node in ast.walk(scope):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            target, value = node.targets[0], node.value
            names = (
                [e.id for e in target.elts if isinstance(e, ast.Name)]
                if isinstance(target, ast.Tuple)
                else [target.id]
                if isinstance(target, ast.Name)
                else []
            )
            ok = is_mask(value, masks)
            for n in names:
                verdict[n] = verdict.get(n, True) and ok
        new = {n for n, ok in verdict.items() if ok}
        if new == masks:
            break
        masks = new
    return masks


def is_foreign(expr: ast.AST, types: Types) -> bool:
    return root_name(expr) in types.foreign


def imports_runtime(cls: ast.ClassDef, types: Types) -> bool:
    """A class that imports (or uses a module-level) inference runtime: TensorRT/ONNX Runtime binding code."""
    for node in ast.walk(cls):
        if isinstance(node, ast.Import) and any(root_of(a.name) in RUNTIMES for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module and root_of(node.module) in RUNTIMES:
            return True
        if isinstance(node, ast.Name) and node.id in types.runtimes:
            return True
    return False
