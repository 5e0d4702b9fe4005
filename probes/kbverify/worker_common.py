"""What both kbverify workers share: the inputs (the same numpy arrays on each side), name lookup and
the case loop. Standard library and numpy only; the framework is passed in as `adapter`."""

from __future__ import annotations

import importlib
import json
import sys


def inputs(np):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    return {
        "x": x,
        "y": rng.standard_normal((2, 3)).astype(np.float32),
        "xt": rng.standard_normal((3, 2)).astype(np.float32),
        "m": x > 0,
        "pos": np.abs(x) + 0.5,
        "one": np.array([1.5], dtype=np.float32),
        "v": np.arange(3, dtype=np.float32),
        "labels": np.array([0, 2, 2, 1], dtype=np.int64),
        "targets": np.array([0, 2], dtype=np.int64),  # one class per row of x
        "idx": np.array([[0, 2], [1, 0]], dtype=np.int64),
        "col": rng.standard_normal((3, 1)).astype(np.float32),
        "prob": (rng.random((2, 3)) > 0.5).astype(np.float32),
        "seq": rng.standard_normal((2, 3, 4)).astype(np.float32),
        "seqt": rng.standard_normal((2, 4, 3)).astype(np.float32),
        "seqc": rng.standard_normal((1, 3, 4)).astype(np.float32),
        "sq": rng.standard_normal((2, 2)).astype(np.float32),
        "bsq": rng.standard_normal((2, 3, 3)).astype(np.float32),
        "w": rng.standard_normal((4, 3)).astype(np.float32),
        "b": rng.standard_normal((4,)).astype(np.float32),
        "img4": rng.standard_normal((1, 4, 2, 2)).astype(np.float32),
        "img": rng.standard_normal((1, 2, 4, 4)).astype(np.float32),
        "kernel": rng.standard_normal((3, 2, 3, 3)).astype(np.float32),
        # drawn after the ones above, so adding them changed none of those
        "g": rng.standard_normal((4, 3)).astype(np.float32),  # a gradient for w
        "hwc": rng.random((4, 4, 3)).astype(np.float32),  # an image as the data pipeline holds it
        "u8": (rng.random((4, 4, 3)) * 255).astype(np.uint8),
        "vol": rng.standard_normal((1, 2, 2, 2, 2)).astype(np.float32),
        "grid": (rng.random((1, 2, 2, 2)) * 2 - 1).astype(np.float32),
        "bn_mean": rng.standard_normal((2,)).astype(np.float32),
        "bn_var": (rng.random((2,)) + 0.5).astype(np.float32),
        "theta": rng.standard_normal((1, 2, 3)).astype(np.float32),
        "kernel_t": rng.standard_normal((2, 3, 3, 3)).astype(np.float32),
    }


def lookup(name: str):
    """The object a dotted name names (module path, then attributes), or raise LookupError."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # noqa: BLE001 - not a module at this depth: try a shorter prefix
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                raise LookupError(f"{'.'.join(parts[:cut])} has no {attr!r}")
            obj = getattr(obj, attr)
        return obj
    raise LookupError(f"cannot import {parts[0]}")


def to_list(np, value):
    """An output as plain data: {'shape', 'values'} for arrays, lists of those, or a scalar."""
    if isinstance(value, (list, tuple)):
        return [to_list(np, v) for v in value]
    if isinstance(value, (bool, int, float)):
        return {"shape": [], "values": [float(value)]}
    arr = np.asarray(value)
    return {"shape": list(arr.shape), "values": arr.astype(np.float64).ravel().tolist()}


def run_cases(np, adapter, cases: list[dict], side: str) -> list[dict]:
    """side: 'ms' or 'torch'. Each case: {'id', 'api', 'spec' or None} -> {'id', 'status', ...}."""
    data = inputs(np)
    out = []
    for case in cases:
        name = case["api"] if side == "ms" else (case.get("spec") or {}).get("torch", case["api"])
        row = {"id": case["id"], "api": name}
        try:
            target = lookup(name)
        except LookupError as exc:
            out.append({**row, "status": "missing", "error": str(exc)})
            continue
        spec = case.get("spec")
        if not spec or spec["call"] == "launch_only":  # no spec, or one that needs a launched job (msrun)
            out.append({**row, "status": "exists", **({"error": spec["why"]} if spec else {})})
            continue
        try:
            row.update(adapter.call(target, spec, data, side))
            row.setdefault("status", "ok")
        except Exception as exc:  # noqa: BLE001 - a failing API is the finding
            row.update(status="failed", error=f"{type(exc).__name__}: {first_line(str(exc))}")
        out.append(row)
    return out


def first_line(text: str) -> str:
    """The first line that says something (MindSpore frames its errors with rows of dashes)."""
    for line in text.splitlines():
        line = line.strip()
        if line and not set(line) <= set("-=* "):
            return line[:300]
    return ""


def read_cases(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def args_of(spec: dict, data: dict, side: str, tensor):
    def one(a):
        if isinstance(a, str) and a in data:
            return tensor(data[a])
        if isinstance(a, dict) and "list" in a:
            return [tensor(data[n]) for n in a["list"]]
        if isinstance(a, list):
            return tuple(a)
        return a

    key = "args" if side == "ms" else "torch_args"
    kw = spec["kwargs"] if side == "ms" else spec["torch_kwargs"]
    return [one(a) for a in spec[key]], dict(kw)


def main_for(adapter, argv=None) -> int:
    """`python -m probes.kbverify.worker_X CASES.json`: results go back through probes.channel."""
    from probes import channel

    def work(path):
        import numpy as np

        channel.result(
            version=adapter.version(),
            device=adapter.device(),
            rows=run_cases(np, adapter, read_cases(path), adapter.side),
        )
        return 0

    args = sys.argv[1:] if argv is None else argv
    return channel.guarded(work, args[0])


def run_snippet(code: str, namespace: dict):
    """A spec's code (probes/kbverify/snippets.py, this repository's own text) with `target`, the
    framework, numpy and the inputs as tensors bound; it leaves its result in `out`. Run from a file:
    MindSpore reads a function's source (jit, grad, vmap, ops.Custom pyfunc), which exec'd text lacks."""
    import os
    import tempfile
    import types

    fd, path = tempfile.mkstemp(prefix="kbverify_snippet_", suffix=".py")
    name = os.path.basename(path)[:-3]
    module = types.ModuleType(name)  # jit and vmap look the function's module up by name
    module.__file__ = path
    module.__dict__.update(namespace)
    sys.modules[name] = module
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(code)
        exec(compile(code, path, "exec"), module.__dict__)  # noqa: S102 - our own spec text
        return module.__dict__["out"]
    finally:
        os.unlink(path)
        sys.modules.pop(name, None)
