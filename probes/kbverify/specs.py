"""How to call each mapped API on tiny tensors: the MindSpore call and its PyTorch counterpart.
Standard library only (both workers read it).

Inputs are named arrays both workers build the same way from numpy (see worker_common.INPUTS).
An argument is an input name ("x"), a literal, or {"list": [names]}; `call` is:
- fn: `f(*args, **kwargs)`;
- method: `args[0].<name>(*args[1:])` (the name's last part);
- inplace: like method, then check the receiver itself changed to the result (in place really in place);
- layer: `cls(*ctor)(*args)`; weights differ between frameworks, so only the output shape is compared.
`compare`: values (within tol) or shape. An API with no spec is only looked up (status `exists`).
"""

from __future__ import annotations

S = "values"


def fn(ms, torch, args, kwargs=None, torch_kwargs=None, compare=S, tol=1e-5, torch_args=None):
    return {
        "call": "fn",
        "ms": ms,
        "torch": torch,
        "args": args,
        "kwargs": kwargs or {},
        "torch_args": torch_args if torch_args is not None else args,
        "torch_kwargs": torch_kwargs if torch_kwargs is not None else (kwargs or {}),
        "compare": compare,
        "tol": tol,
    }


def method(ms, torch, args, call="method", compare=S, tol=1e-5, torch_args=None):
    return {
        "call": call,
        "ms": ms,
        "torch": torch,
        "args": args,
        "kwargs": {},
        "torch_args": torch_args if torch_args is not None else args,
        "torch_kwargs": {},
        "compare": compare,
        "tol": tol,
    }


def layer(ms, torch, ctor, args, torch_ctor=None, ms_kwargs=None, torch_kwargs=None):
    return {
        "call": "layer",
        "ms": ms,
        "torch": torch,
        "ctor": ctor,
        "torch_ctor": torch_ctor if torch_ctor is not None else ctor,
        "ctor_kwargs": ms_kwargs or {},
        "torch_ctor_kwargs": torch_kwargs or {},
        "args": args,
        "kwargs": {},
        "torch_args": args,
        "torch_kwargs": {},
        "compare": "shape",
        "tol": 0.0,
    }


# Keyed by the MindSpore API the mapping table names (api-mappings.yaml `mindspore`).
SPECS: dict[str, dict] = {
    "mindspore.ops.relu": fn("mindspore.ops.relu", "torch.nn.functional.relu", ["x"]),
    "mindspore.ops.cat": fn("mindspore.ops.cat", "torch.cat", [{"list": ["x", "y"]}], {"axis": 0}, {"dim": 0}),
    "mindspore.ops.stack": fn("mindspore.ops.stack", "torch.stack", [{"list": ["x", "y"]}], {"axis": 0}, {"dim": 0}),
    "mindspore.ops.matmul": fn("mindspore.ops.matmul", "torch.matmul", ["x", "xt"]),
    "mindspore.ops.sum": fn("mindspore.ops.sum", "torch.sum", ["x"], {"dim": 1}, {"dim": 1}),
    "mindspore.ops.mean": fn("mindspore.ops.mean", "torch.mean", ["x"], {"axis": 1}, {"dim": 1}),
    "mindspore.ops.argmax": fn("mindspore.ops.argmax", "torch.argmax", ["x"], {"dim": 1}, {"dim": 1}),
    "mindspore.ops.sigmoid": fn("mindspore.ops.sigmoid", "torch.sigmoid", ["x"]),
    "mindspore.ops.softmax": fn("mindspore.ops.softmax", "torch.softmax", ["x"], {"axis": -1}, {"dim": -1}),
    "mindspore.ops.where": fn("mindspore.ops.where", "torch.where", ["m", "x", "y"]),
    "mindspore.ops.clamp": fn("mindspore.ops.clamp", "torch.clamp", ["x", -0.5, 0.5]),
    "mindspore.ops.swapaxes": fn("mindspore.ops.swapaxes", "torch.transpose", ["x", 0, 1]),
    "mindspore.ops.zeros": fn("mindspore.ops.zeros", "torch.zeros", [[2, 3]]),
    "mindspore.ops.ones": fn("mindspore.ops.ones", "torch.ones", [[2, 3]]),
    "mindspore.ops.arange": fn("mindspore.ops.arange", "torch.arange", [0, 5]),
    "mindspore.ops.flatten": fn("mindspore.ops.flatten", "torch.flatten", ["img"], {"start_dim": 1}),
    "mindspore.ops.einsum": fn("mindspore.ops.einsum", "torch.einsum", ["ij,kj->ik", "x", "y"]),
    "mindspore.ops.interpolate": fn(
        "mindspore.ops.interpolate",
        "torch.nn.functional.interpolate",
        ["img"],
        {"scale_factor": 2.0, "mode": "nearest", "recompute_scale_factor": True},
        {"scale_factor": 2.0, "mode": "nearest"},
    ),
    "mindspore.ops.gelu": fn(
        "mindspore.ops.gelu", "torch.nn.functional.gelu", ["x"], {"approximate": "none"}, {}, tol=1e-4
    ),
    "mindspore.ops.log_softmax": fn(
        "mindspore.ops.log_softmax", "torch.nn.functional.log_softmax", ["x"], {"axis": -1}, {"dim": -1}
    ),
    "mindspore.ops.max_pool2d": fn("mindspore.ops.max_pool2d", "torch.nn.functional.max_pool2d", ["img", 2]),
    "mindspore.ops.avg_pool2d": fn("mindspore.ops.avg_pool2d", "torch.nn.functional.avg_pool2d", ["img", 2]),
    "mindspore.ops.adaptive_avg_pool2d": fn(
        "mindspore.ops.adaptive_avg_pool2d", "torch.nn.functional.adaptive_avg_pool2d", ["img", 1]
    ),
    "mindspore.ops.mse_loss": fn("mindspore.ops.mse_loss", "torch.nn.functional.mse_loss", ["x", "y"]),
    "mindspore.ops.cross_entropy": fn(
        "mindspore.ops.cross_entropy", "torch.nn.functional.cross_entropy", ["x", "targets"], tol=1e-5
    ),
    "mindspore.ops.one_hot": fn(
        "mindspore.ops.one_hot", "torch.nn.functional.one_hot", ["labels", 3], torch_args=["labels", 3]
    ),
    "mindspore.ops.pad": fn("mindspore.ops.pad", "torch.nn.functional.pad", ["x", [1, 1]]),
    "mindspore.ops.masked_fill": fn("mindspore.ops.masked_fill", "torch.masked_fill", ["x", "m", 0.0]),
    "mindspore.ops.masked_select": fn("mindspore.ops.masked_select", "torch.masked_select", ["x", "m"]),
    "mindspore.ops.nonzero": fn("mindspore.ops.nonzero", "torch.nonzero", ["x"]),
    "mindspore.ops.argwhere": fn("mindspore.ops.argwhere", "torch.argwhere", ["x"]),
    "mindspore.ops.unique_consecutive": fn("mindspore.ops.unique_consecutive", "torch.unique_consecutive", ["labels"]),
    "mindspore.ops.add": fn("mindspore.ops.add", "torch.add", ["x", "y"]),
    "mindspore.ops.mul": fn("mindspore.ops.mul", "torch.mul", ["x", "y"]),
    "mindspore.ops.zeros_like": fn("mindspore.ops.zeros_like", "torch.zeros_like", ["x"]),
    "mindspore.ops.stop_gradient": fn("mindspore.ops.stop_gradient", "torch.Tensor.detach", ["x"]),
    "mindspore.ops.is_tensor": fn("mindspore.ops.is_tensor", "torch.is_tensor", ["x"]),
    "mindspore.ops.is_complex": fn("mindspore.ops.is_complex", "torch.is_complex", ["x"]),
    "mindspore.mint.exp": fn("mindspore.mint.exp", "torch.exp", ["x"]),
    "mindspore.mint.log": fn("mindspore.mint.log", "torch.log", ["pos"]),
    "mindspore.mint.abs": fn("mindspore.mint.abs", "torch.abs", ["x"]),
    "mindspore.mint.pow": fn("mindspore.mint.pow", "torch.pow", ["x", 2.0]),
    "mindspore.mint.all": fn("mindspore.mint.all", "torch.all", ["m"]),
    "mindspore.mint.isfinite": fn("mindspore.mint.isfinite", "torch.isfinite", ["x"]),
    "mindspore.mint.min": fn("mindspore.mint.min", "torch.min", ["x"]),
    "mindspore.mint.equal": fn("mindspore.mint.equal", "torch.equal", ["x", "x"]),
    "mindspore.mint.allclose": fn("mindspore.mint.allclose", "torch.allclose", ["x", "y"]),
    "mindspore.mint.zeros_like": fn("mindspore.mint.zeros_like", "torch.zeros_like", ["x"]),
    "mindspore.mint.ones_like": fn("mindspore.mint.ones_like", "torch.ones_like", ["x"]),
    "mindspore.mint.full": fn("mindspore.mint.full", "torch.full", [[2, 2], 1.5]),
    "mindspore.mint.linspace": fn("mindspore.mint.linspace", "torch.linspace", [0.0, 1.0, 5]),
    "mindspore.mint.split": fn("mindspore.mint.split", "torch.split", ["x", 1]),
    "mindspore.mint.meshgrid": fn("mindspore.mint.meshgrid", "torch.meshgrid", ["v", "v"], {"indexing": "ij"}),
    "mindspore.mint.nn.functional.normalize": fn(
        "mindspore.mint.nn.functional.normalize", "torch.nn.functional.normalize", ["x"]
    ),
    "mindspore.mint.nn.functional.conv2d": fn(
        "mindspore.mint.nn.functional.conv2d", "torch.nn.functional.conv2d", ["img", "kernel"], tol=1e-4
    ),
    "mindspore.mint.nn.functional.relu_": method(
        "mindspore.mint.nn.functional.relu_", "torch.nn.functional.relu_", ["x"], call="inplace_fn"
    ),
    "mindspore.Tensor.view": method("mindspore.Tensor.view", "torch.Tensor.view", ["x", 3, 2]),
    "mindspore.Tensor.item": method("mindspore.Tensor.item", "torch.Tensor.item", ["one"]),
    "mindspore.Tensor.asnumpy": method("mindspore.Tensor.asnumpy", "torch.Tensor.numpy", ["x"]),
    "mindspore.Tensor.nonzero": method("mindspore.Tensor.nonzero", "torch.Tensor.nonzero", ["x"]),
    "mindspore.Tensor.masked_select": method(
        "mindspore.Tensor.masked_select", "torch.Tensor.masked_select", ["x", "m"]
    ),
    "mindspore.nn.Dense": layer("mindspore.nn.Dense", "torch.nn.Linear", [3, 4], args=["x"]),
    "mindspore.nn.Conv2d": layer(
        "mindspore.nn.Conv2d",
        "torch.nn.Conv2d",
        [2, 3, 3],
        args=["img"],
        ms_kwargs={"pad_mode": "same"},
        torch_kwargs={"padding": 1},
    ),
    "mindspore.nn.ReLU": layer("mindspore.nn.ReLU", "torch.nn.ReLU", [], args=["x"]),
    "mindspore.nn.GELU": layer("mindspore.nn.GELU", "torch.nn.GELU", [], args=["x"]),
    "mindspore.nn.SiLU": layer("mindspore.nn.SiLU", "torch.nn.SiLU", [], args=["x"]),
    "mindspore.nn.LayerNorm": layer("mindspore.nn.LayerNorm", "torch.nn.LayerNorm", [[3]], args=["x"], torch_ctor=[3]),
    "mindspore.nn.BatchNorm2d": layer("mindspore.nn.BatchNorm2d", "torch.nn.BatchNorm2d", [2], args=["img"]),
    "mindspore.nn.MaxPool2d": layer("mindspore.nn.MaxPool2d", "torch.nn.MaxPool2d", [2, 2], args=["img"]),
    "mindspore.nn.AvgPool2d": layer("mindspore.nn.AvgPool2d", "torch.nn.AvgPool2d", [2, 2], args=["img"]),
    "mindspore.nn.Flatten": layer("mindspore.nn.Flatten", "torch.nn.Flatten", [], args=["img"]),
    "mindspore.nn.Embedding": layer("mindspore.nn.Embedding", "torch.nn.Embedding", [4, 3], args=["labels"]),
    "mindspore.nn.GroupNorm": layer("mindspore.nn.GroupNorm", "torch.nn.GroupNorm", [1, 2], args=["img"]),
}

# mindspore.mint mirrors the PyTorch signatures: the same call on both sides.
_MINT_UNARY = ("cos", "sin", "tanh", "floor", "round", "trunc", "sign", "square", "atan", "isnan", "clone", "argsort")
_MINT_POS = ("sqrt", "rsqrt", "log2")
_MINT_CALLS = {
    "maximum": ["x", "y"],
    "minimum": ["x", "y"],
    "div": ["x", "pos"],
    "mul": ["x", "y"],
    "atan2": ["x", "pos"],
    "isclose": ["x", "y"],
    "any": ["m"],
    "logical_not": ["m"],
    "argmin": ["x"],
    "prod": ["x"],
    "var": ["x"],
    "var_mean": ["x"],
    "norm": ["x"],
    "flip": ["x", [0]],
    "roll": ["x", 1],
    "squeeze": ["col", 1],
    "permute": ["img", [0, 2, 3, 1]],
    "triu": ["x"],
    "unbind": ["x"],
    "chunk": ["x", 2],
    "repeat_interleave": ["x", 2],
    "sort": ["x"],
    "topk": ["x", 2],
    "gather": ["x", 1, "idx"],
    "mm": ["x", "xt"],
    "bmm": ["seq", "seqt"],
    "dot": ["v", "v"],
    "eye": [3],
    "full_like": ["x", 2.0],
    "addcmul": ["x", "y", "x"],
    "addmm": ["sq", "x", "xt"],
    "baddbmm": ["bsq", "seq", "seqt"],
    "empty_like": ["x"],
    "nn.functional.sigmoid": ["x"],
    "nn.functional.relu6": ["x"],
    "nn.functional.softplus": ["x"],
    "nn.functional.linear": ["x", "w", "b"],
    "nn.functional.layer_norm": ["x", [3]],
    "nn.functional.group_norm": ["img", 1],
    "nn.functional.pixel_shuffle": ["img4", 2],
    "nn.functional.smooth_l1_loss": ["x", "y"],
    "nn.functional.binary_cross_entropy_with_logits": ["x", "prob"],
    "nn.functional.threshold": ["x", 0.1, 0.0],
    "nn.functional.prelu": ["x", "one"],
    "nn.functional.adaptive_max_pool2d": ["img", 1],
}
_SHAPE_ONLY = {"empty_like", "clone"}
for _name in _MINT_UNARY + _MINT_POS:
    SPECS[f"mindspore.mint.{_name}"] = fn(
        f"mindspore.mint.{_name}", f"torch.{_name}", ["pos" if _name in _MINT_POS else "x"]
    )
for _name, _args in _MINT_CALLS.items():
    _torch = ("torch." + _name) if not _name.startswith("nn.") else "torch." + _name
    SPECS[f"mindspore.mint.{_name}"] = fn(
        f"mindspore.mint.{_name}", _torch, _args, compare="shape" if _name in _SHAPE_ONLY else S, tol=1e-4
    )
for _ms, _torch, _ctor, _args in (
    ("mindspore.nn.Sigmoid", "torch.nn.Sigmoid", [], ["x"]),
    ("mindspore.nn.Tanh", "torch.nn.Tanh", [], ["x"]),
    ("mindspore.nn.Identity", "torch.nn.Identity", [], ["x"]),
    ("mindspore.nn.LeakyReLU", "torch.nn.LeakyReLU", [], ["x"]),
    ("mindspore.nn.MSELoss", "torch.nn.MSELoss", [], ["x", "y"]),
    ("mindspore.nn.L1Loss", "torch.nn.L1Loss", [], ["x", "y"]),
    ("mindspore.nn.BCEWithLogitsLoss", "torch.nn.BCEWithLogitsLoss", [], ["x", "prob"]),
    ("mindspore.nn.Conv1d", "torch.nn.Conv1d", [3, 2, 1], ["seqc"]),
    ("mindspore.nn.BatchNorm1d", "torch.nn.BatchNorm1d", [3], ["x"]),
    ("mindspore.nn.AdaptiveAvgPool2d", "torch.nn.AdaptiveAvgPool2d", [1], ["img"]),
    ("mindspore.nn.InstanceNorm2d", "torch.nn.InstanceNorm2d", [2], ["img"]),
    ("mindspore.nn.MaxPool1d", "torch.nn.MaxPool1d", [2, 2], ["seq"]),
    ("mindspore.nn.Upsample", "torch.nn.Upsample", [], ["img"]),
    ("mindspore.mint.nn.ReLU6", "torch.nn.ReLU6", [], ["x"]),
    ("mindspore.mint.nn.ELU", "torch.nn.ELU", [], ["x"]),
    ("mindspore.mint.nn.Hardswish", "torch.nn.Hardswish", [], ["x"]),
    ("mindspore.mint.nn.LogSoftmax", "torch.nn.LogSoftmax", [1], ["x"]),
    ("mindspore.mint.nn.PReLU", "torch.nn.PReLU", [], ["x"]),
    ("mindspore.mint.nn.ZeroPad2d", "torch.nn.ZeroPad2d", [1], ["img"]),
    ("mindspore.mint.nn.ConstantPad2d", "torch.nn.ConstantPad2d", [1, 0.5], ["img"]),
    ("mindspore.mint.nn.Dropout2d", "torch.nn.Dropout2d", [], ["img"]),
    ("mindspore.mint.nn.AdaptiveMaxPool2d", "torch.nn.AdaptiveMaxPool2d", [1], ["img"]),
):
    SPECS[_ms] = layer(_ms, _torch, _ctor, args=_args)
SPECS["mindspore.nn.Upsample"]["ctor_kwargs"] = {"scale_factor": 2.0, "recompute_scale_factor": True}
SPECS["mindspore.nn.Upsample"]["torch_ctor_kwargs"] = {"scale_factor": 2.0}

# MindSpore Tensor in-place methods a port reaches for when the scan flags `x.div_()` / `x.clamp_()`:
# run on a copy of x, the receiver must hold the result afterwards (measured on MindSpore 2.10 CPU:
# div_ returned a new tensor and left x unchanged; clamp_ raised "kernel InplaceClampScalar unregistered").
INPLACE: dict[str, dict] = {
    f"mindspore.Tensor.{name}_": method(f"mindspore.Tensor.{name}_", f"torch.Tensor.{name}_", args, call="inplace")
    for name, args in (
        ("div", ["x", 2.0]),
        ("clamp", ["x", -0.5, 0.5]),
        ("add", ["x", "y"]),
        ("sub", ["x", "y"]),
        ("mul", ["x", 2.0]),
        ("zero", ["x"]),
        ("fill", ["x", 1.5]),
        ("copy", ["x", "y"]),
        ("masked_fill", ["x", "m", 0.0]),
        ("clip", ["x", -0.5, 0.5]),
    )
}
# The in-place method the scan's `.name_()` finding is a use of (for showing a failure beside it).
INPLACE_METHODS = {spec["torch"].rsplit(".", 1)[-1]: api for api, spec in INPLACE.items()}
# A fixed subset for the bounded CI test: a few of each call kind plus the two known failures.
CI_SUBSET = (
    "mindspore.ops.relu",
    "mindspore.ops.cat",
    "mindspore.ops.swapaxes",
    "mindspore.ops.softmax",
    "mindspore.mint.exp",
    "mindspore.Tensor.view",
    "mindspore.nn.Dense",
    "mindspore.nn.Conv2d",
    "mindspore.Tensor.div_",
    "mindspore.Tensor.clamp_",
    "mindspore.Tensor.add_",
    "mindspore.nn.Cell",
    # snippets: an optimizer step that matches, one whose defaults differ as the table says, a compiled
    # function (run from a module file), a launch-only API, a mint kernel missing on CPU
    "mindspore.nn.SGD",
    "mindspore.nn.AdamWeightDecay",
    "mindspore.jit",
    "mindspore.communication.init",
    "mindspore.mint.randperm",
)


def all_specs() -> dict[str, dict]:
    from probes.kbverify.snippets import SNIPPETS

    return {**SPECS, **SNIPPETS, **INPLACE}
