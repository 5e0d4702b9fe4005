"""One Python module, parsed with `ast` (never imported or run): the PyTorch APIs it uses and the
migration hazards, each with its line."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass, field

from advisor.scan import forward, normalize
from advisor.scan.reach import ModuleReach, module_reach
from advisor.scan import types as typing_
from advisor.scan.imports import (
    HUB_ROOTS,
    all_nodes,
    ImportTable,
    build,
    is_api,
    resolve_star,
    root_of,
)

INPLACE_METHOD = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*_$")  # add_, masked_fill_, zero_
# flag setters and non-tensor methods (GradScaler.unscale_ works on an optimizer; clip_grad_norm_ on a model's
# gradients, through torch.nn.utils or an Accelerator/Fabric: a different API in MindSpore, not an in-place op)
NOT_INPLACE_OPS = {"requires_grad_", "unscale_", "share_memory_", "manual_seed_", "clip_grad_norm_", "clip_grad_value_"}
# Functions whose trailing underscore names an in-place update of something other than a tensor the graph
# computes (gradient clipping over parameters, initialisers): mapped APIs, not in-place tensor ops.
NOT_INPLACE_PREFIXES = ("torch.nn.init.", "torch.nn.utils.")
HOOK_METHOD = re.compile(r"^register_\w*hook$")
DATALOADERS = {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}
# Tensor resizes whose antialias option MindSpore 2.10's ops.interpolate / mint.nn.functional.interpolate lack.
RESIZES = {"torch.nn.functional.interpolate", "torch.nn.functional.upsample"}
# DataLoader options MindSpore's GeneratorDataset/.batch() have no direct equivalent for.
DATALOADER_OPTIONS = {
    "pin_memory": "`pin_memory` has no MindSpore equivalent (drop it; host-to-device copies are managed by the dataset pipeline)",
    "pin_memory_device": "`pin_memory_device` has no MindSpore equivalent (drop it)",
    "persistent_workers": "`persistent_workers` has no MindSpore equivalent (dataset workers live for the pipeline)",
    "prefetch_factor": "`prefetch_factor` maps to the global `mindspore.dataset.config.set_prefetch_size`, not a per-loader option",
    "worker_init_fn": "`worker_init_fn` has no MindSpore equivalent (seed workers via `mindspore.dataset.config.set_seed`)",
    "collate_fn": "`collate_fn` becomes `per_batch_map` in `.batch()` with a different signature",
    "batch_sampler": "`batch_sampler` has no MindSpore equivalent (use a sampler plus `.batch()`)",
    "timeout": "`timeout` has no MindSpore equivalent",
    "multiprocessing_context": "`multiprocessing_context` has no equivalent (GeneratorDataset has `python_multiprocessing` on/off)",
    "generator": "`generator` (RNG for shuffling) has no per-loader equivalent (use `mindspore.dataset.config.set_seed`)",
    "in_order": "`in_order` has no MindSpore equivalent",
}


@dataclass
class RawHazard:
    kind: str
    line: int
    message: str
    in_forward: bool = False
    api: str | None = None  # the API whose use is the hazard (its effort is counted in the hazard's)
    file: str = ""
    cell: int | None = None
    optional: bool = False  # the line is a lazy import (inside a function)
    raw_line: int | None = None  # line in the parsed source (a notebook's joined cells)
    example: tuple[str, str] | None = None  # this place's own before/after (Normalize: its values x 255)


@dataclass
class ClassInfo:
    """A class defined in the module: a model part to port when it is (or derives from) an nn.Module."""

    name: str
    line: int
    end: int
    torch_module: bool  # a base resolves to torch.nn.*
    bases: list[str]  # simple names of bases that are not imports (maybe the project's own modules)
    refs: set[str] = field(default_factory=set)  # names the class body uses (which other classes it holds)


@dataclass
class ModuleScan:
    uses: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    hazards: list[RawHazard] = field(default_factory=list)
    classes: list[ClassInfo] = field(default_factory=list)
    imports: list[tuple[str, int, bool]] = field(default_factory=list)  # (module, line, lazy)
    signals: set[str] = field(default_factory=set)  # training / data / deployment hints
    lazy_lines: set[int] = field(default_factory=set)
    library_calls: dict[str, int] = field(default_factory=dict)  # root -> calls of its functions (usage pricing)
    library_names: dict[str, set[str]] = field(default_factory=dict)  # root -> distinct names it uses (eager imports)
    entry: bool = False  # a program: a `__main__` guard or a loop at module level (a script's training loop)
    evidence: str = ""  # what names its models, lower case, one token a line (advisor/scan/ports.py)
    reach: ModuleReach = field(default_factory=ModuleReach)  # guards, local imports, calls (advisor/scan/reach.py)


# What builds or loads a custom operator (the rest of cpp_extension, e.g. CUDA_HOME, only reads paths;
# BuildExtension is setuptools' build command, which builds what ext_modules lists: `ext_modules=[]` is none).
EXTENSION_BUILDERS = {"load", "load_inline", "CUDAExtension", "CppExtension", "SyclExtension"}
# torch.ops namespaces that are PyTorch's or torchvision's own operators, not a project's extension.
BUILTIN_OP_NAMESPACES = {"aten", "prim", "prims", "quantized", "torchvision", "torchaudio", "_caffe2", "profiler"}
TRAINING_HINTS = (
    "torch.optim.",
    "torch.autograd.grad",
    "torch.cuda.amp.GradScaler",
    "torch.amp.GradScaler",
    # training loops that live in a library: the HF Trainer family, TRL's trainers, Lightning's fit
    "transformers.Trainer",
    "transformers.Seq2SeqTrainer",
    "trl.",
    "pytorch_lightning.Trainer",
    "lightning.Trainer",
)
DATA_HINTS = ("torch.utils.data.", "torchvision.transforms", "torchvision.datasets", "torchaudio.transforms")
DEPLOY_HINTS = (
    "torch.onnx.",
    "torch.jit.trace",
    "torch.jit.save",
    "torch.export.",
    "torch.ao.quantization",
    "torch.quantization",
)


# Hub helpers that are paths, plain file downloads (an input image, a dataset; a checkpoint it fetches is seen
# as pretrained weights) or re-exported stdlib (urllib's urlparse), not a model from the hub.
HUB_PATHS = {
    "torch.hub.download_url_to_file",
    "torch.hub.get_dir",
    "torch.hub.set_dir",
    "torch.hub._get_torch_home",
    "torch.hub.urlparse",
    "torch.hub.HASH_REGEX",
    "torch.hub.tqdm",
}
# Calls that take a NumPy array: what they wrap is not a torch tensor (`torch.from_numpy(a[a > 0])`).
FROM_NUMPY = {"torch.from_numpy", "torch.as_tensor", "torch.tensor"}


def _name_hazard(q: str) -> tuple[str, str] | None:
    """Hazard kind and message for a use of fully qualified name q, from the name alone."""
    if q.startswith(("torch.cuda.amp", "torch.amp", "torch.cpu.amp", "apex.amp")) or q in ("torch.autocast",):
        return (
            "cuda_amp",
            f"`{q}`: mixed precision is configured differently in MindSpore (amp levels O0-O3, loss scale managers)",
        )
    if q.startswith("torch.distributed.rpc"):
        return None  # no equivalent at all: the knowledge base marks it (no_equivalent), not a DDP port
    if q.startswith("torch.ops.") and q != "torch.ops.load_library":
        parts = q.split(".")
        if len(parts) >= 4 and parts[2] not in BUILTIN_OP_NAMESPACES:
            return (
                "custom_extension",
                f"`{q}`: calls custom operator `{parts[2]}.{parts[3]}` registered by a C++/CUDA extension; it needs a MindSpore operator (ops.Custom) or a rewrite",
            )
        return None
    if q.startswith(
        ("torch.distributed", "torch.nn.parallel", "torch.utils.data.distributed", "apex.parallel")
    ) or q in (
        "torch.nn.DataParallel",
        "torch.multiprocessing.spawn",
    ):
        parallel = next((m for prefix, m in PARALLEL_MESSAGES.items() if q.startswith(prefix)), "")
        if parallel:
            return "distributed", f"`{q}`: {parallel}"
        return (
            "distributed",
            f"`{q}`: distributed training is set up differently in MindSpore (communication.init, HCCL, msrun, parallel modes)",
        )
    if q.startswith("torch.utils.cpp_extension.") and q.rsplit(".", 1)[-1] not in EXTENSION_BUILDERS:
        return None  # CUDA_HOME, include_paths...: reading the toolchain's location builds nothing
    if q.startswith(("torch.utils.cpp_extension", "torch.library")) or q == "torch.ops.load_library":
        return (
            "custom_extension",
            f"`{q}`: custom C++/CUDA operator; it must be re-implemented for MindSpore (ops.Custom) or replaced",
        )
    if q.startswith("torch.optim.lr_scheduler.") or (
        root_of(q) == "transformers" and "schedule" in q.rsplit(".", 1)[-1]
    ):
        return (
            "lr_scheduler",
            f"`{q}`: MindSpore passes the learning-rate schedule into the optimizer (a list or LearningRateSchedule) instead of a scheduler object stepped by hand",
        )
    if q in HUB_PATHS:
        return None  # where the hub caches files: a path, not a model from the hub
    if q.startswith("torch.hub."):
        return (
            "model_hub",
            f"`{q}`: model and weights come from torch.hub; MindSpore needs its own model code and converted weights",
        )
    if q in THIRD_PARTY_HAZARDS:
        return THIRD_PARTY_HAZARDS[q]
    if QUANTIZED.search(q) and root_of(q) in QUANTIZED_ROOTS:
        return (
            "quantized_training",
            f"`{q}`: 4/8-bit quantised base weights or optimizers (bitsandbytes); MindSpore has no bitsandbytes backend",
        )

    last = q.rsplit(".", 1)[-1]
    if (
        is_api(q)
        and INPLACE_METHOD.match(last)
        and not q.startswith(NOT_INPLACE_PREFIXES)
        and last not in NOT_INPLACE_OPS
    ):
        return "inplace_op", f"`{q}` is an in-place op"
    return None


# Quantised fine-tuning (QLoRA): the names that put base weights or optimizer state in 4/8 bits.
QUANTIZED = re.compile(r"4bit|8bit|kbit|nf4|BitsAndBytesConfig|Bitsandbytes|Int8Params|Params4bit")
QUANTIZED_ROOTS = {"transformers", "peft", "bitsandbytes", "torchao", "lightning"}
QUANTIZE_KEYWORDS = {"load_in_4bit", "load_in_8bit"}
PARALLEL_MESSAGES = {
    "torch.distributed.fsdp": "sharded data parallel (FSDP): MindSpore's optimizer parallel in semi-auto parallel mode, not a DDP wrapper",
    "torch.distributed._composable.fsdp": "sharded data parallel (fully_shard): MindSpore's optimizer parallel in semi-auto parallel mode",
    "torch.distributed.device_mesh": "a device mesh for tensor/sequence parallelism: MindSpore shard strategies per layer",
    "torch.distributed.tensor": "DTensor placements (tensor parallel): MindSpore shard strategies per layer",
    "torch.distributed._tensor": "DTensor placements (tensor parallel): MindSpore shard strategies per layer",
    "torch.distributed.pipelining": "pipeline parallel stages: MindSpore's pipeline parallel",
    "torch.distributed.checkpoint": "sharded (distributed) checkpoints: MindSpore's per-rank checkpoints with a strategy file",
}

_NMS = (
    "dynamic_shape",
    "`{q}`: non-maximum suppression keeps a data-dependent number of boxes (Graph mode: NMSWithMask's fixed-size "
    "mask, or pad to a maximum count)",
)
# Names of third-party libraries whose use is a hazard in itself (the library's own functions, not torch's).
THIRD_PARTY_HAZARDS = {
    q: (kind, message.format(q=q))
    for q, (kind, message) in {
        "mmcv.ops.batched_nms": _NMS,
        "mmcv.ops.nms": _NMS,
        "mmcv.ops.soft_nms": _NMS,
        "mmdet.models.layers.multiclass_nms": _NMS,
        "mmdet.models.utils.multiclass_nms": _NMS,
    }.items()
}


# A Triton kernel: one GPU kernel to rewrite, priced as a custom operator (knowledge base: custom-cuda-ops).
TRITON_KERNEL = "triton kernel "
TRITON_DECORATORS = ("triton.jit", "triton.language.jit")


def triton_kernel(node: ast.FunctionDef | ast.AsyncFunctionDef, table: ImportTable) -> str | None:
    """The decorator that makes `node` a Triton kernel (`@triton.jit`, `@triton.jit(...)`), else None."""
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        q = table.resolve(target) if isinstance(target, (ast.Name, ast.Attribute)) else None
        if q in TRITON_DECORATORS:
            return q
    return None


def _triton_message(name: str, decorator: str) -> str:
    # Triton-Ascend (gitcode.com/Ascend/triton-ascend, first release 3.2.0 in January 2026, Atlas A2/A3,
    # with torch_npu) compiles Triton kernels for Ascend; its migration guide keeps the kernel body and
    # adjusts the grid to the AI cores and the block sizes to the unified buffer. MindSpore has no Triton.
    return (
        f"`@{decorator}` kernel `{name}`: a Triton GPU kernel; MindSpore cannot run it: rewrite it with "
        "built-in operators or as a custom operator (ops.Custom / an Ascend C kernel) and compare it with the "
        "Triton version (staying on PyTorch, torch_npu with Triton-Ascend 3.2+ on Atlas A2/A3 compiles it "
        "after its grid and block sizes are adapted)"
    )


# Classes whose methods the KB may list (torch.Tensor.add_, torch.nn.Module.register_forward_hook):
# a call `obj.add_()` counts as that method, first class listed wins when names collide.
METHOD_CLASSES = ("torch.Tensor", "torch.nn.Module", "torch.optim.Optimizer")


def method_names(known: set[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for cls in reversed(METHOD_CLASSES):
        for name in known:
            head, _, method = name.rpartition(".")
            if head == cls:
                out[method] = name
    return out


class _Visitor(ast.NodeVisitor):
    def __init__(
        self,
        table: ImportTable,
        known: set[str],
        constants: dict[str, object] | None = None,
        types: typing_.Types | None = None,
    ):
        self.table = table
        self.types = types or typing_.Types()
        self.rebound: set[int] = set()  # `x = x.relu_()`: the in-place result replaces x anyway
        self.numpy_args: set[int] = set()  # arguments of torch.from_numpy(...): NumPy arrays
        self.runtime_depth = 0  # inside a class that binds an inference runtime (TensorRT...)
        self.torch_funcs: list[bool] = []  # per enclosing function: does it use torch
        self.constants = constants or {}  # module-level literals (Normalize's MEAN/STD)
        self.known = known
        self.out = ModuleScan()
        self.forward_depth = 0
        self.methods = method_names(known)
        self.uses_torch = any(is_api(m) for m, _ in table.imports)  # a MindSpore file's x.view() is not torch

    # --- recording -------------------------------------------------------------------------
    def _record(self, q: str, line: int, call: ast.Call | None = None) -> None:
        if is_api(q) or self._kb_hub_api(q):
            self.out.uses[q].append(line)
            if q.startswith(TRAINING_HINTS):
                self.out.signals.add("training")
            elif q.startswith(DATA_HINTS):
                self.out.signals.add("data")
            elif q.startswith(DEPLOY_HINTS):
                self.out.signals.add("deployment")
        if q in normalize.NAMES:
            found = normalize.judge(q, call, self.constants)
            if found is not None:  # None: values on the 0-255 scale already, no trap
                self._hazard("normalize", line, found.message, q)
                if found.before and found.after:
                    self.out.hazards[-1].example = (found.before, found.after)
            return
        found = _name_hazard(q)
        if found and found[0] == "inplace_op" and call is not None and id(call) in self.rebound:
            return  # out = F.relu_(out): the result replaces out, in place or not
        if found:
            self._hazard(found[0], line, found[1], q)

    def _kb_hub_api(self, q: str) -> bool:
        """A hub API (transformers...) is counted only when the knowledge base maps it."""
        if root_of(q) not in HUB_ROOTS:
            return False
        parts = q.split(".")
        return any(".".join(parts[:end]) in self.known for end in range(len(parts), 1, -1))

    def _hazard(self, kind: str, line: int, message: str, api: str | None = None) -> None:
        in_forward = self.forward_depth > 0
        if in_forward and self.runtime_depth and kind == "inplace_op":
            return  # TensorRT binding buffers (`self.bindings[n].data.resize_()`): deployment code, no graph
        if in_forward and kind == "inplace_op":
            message += " inside forward (MindSpore Graph mode and autograd treat in-place updates differently)"
        self.out.hazards.append(RawHazard(kind, line, message, in_forward, api))

    # --- visiting --------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        kernel = triton_kernel(node, self.table)
        if kernel:
            self._hazard("custom_extension", node.lineno, _triton_message(node.name, kernel), TRITON_KERNEL + node.name)
        is_forward = forward.is_forward(node.name)
        if is_forward:
            if not self.runtime_depth:  # a TensorRT/ONNX Runtime backend's forward never runs in a graph
                for f in forward.find(node, self.table):
                    self.out.hazards.append(RawHazard(f.kind, f.line, f.message, True))
            self.forward_depth += 1
        self.torch_funcs.append(is_forward or self._uses_torch(node))
        outer, self.types.masks = self.types.masks, typing_.masks_in(node)
        self.generic_visit(node)
        self.types.masks = outer
        self.torch_funcs.pop()
        if is_forward:
            self.forward_depth -= 1

    def _uses_torch(self, func: ast.AST) -> bool:
        for n in ast.walk(func):
            if isinstance(n, (ast.Name, ast.Attribute)):
                q = self.table.resolve(n)
                if q and is_api(q):
                    return True
        return False

    def visit_Assign(self, node: ast.Assign) -> None:
        v = node.value
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(v, ast.Call):
            name = node.targets[0].id
            if isinstance(v.func, ast.Attribute) and isinstance(v.func.value, ast.Name) and v.func.value.id == name:
                self.rebound.add(id(v))  # x = x.clamp_(0, 1)
            elif v.args and isinstance(v.args[0], ast.Name) and v.args[0].id == name:
                self.rebound.add(id(v))  # out = F.relu_(out)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        """`x[x > 0]`, `t = t[keep]`: boolean-mask indexing keeps a data-dependent number of elements."""
        index = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
        if (
            self.uses_torch
            and isinstance(node.ctx, ast.Load)
            and self.torch_funcs
            and self.torch_funcs[-1]
            and typing_.is_mask(index, self.types.masks)
            and not typing_.is_foreign(node.value, self.types)
            and id(node) not in self.numpy_args
            and not (isinstance(node.value, ast.Name) and node.value.id in self.types.masks)
        ):
            self._hazard(
                "dynamic_shape",
                node.lineno,
                f"`{forward._text(node)}`: boolean-mask indexing, the result's shape depends on the data "
                "(Graph mode: keep the shape with ops.masked_fill / ops.select, or pad to a maximum count)",
                "boolean-mask indexing",
            )
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        torch_module, local = False, []
        for base in node.bases:
            q = self.table.resolve(base) if isinstance(base, (ast.Name, ast.Attribute)) else None
            if q and (q.startswith("torch.nn.") or q in ("torch.autograd.Function",)) and q != "torch.nn.functional":
                torch_module = torch_module or q.startswith("torch.nn.")
            elif q and q.startswith("torch.utils.data."):
                self.out.signals.add("data")
            elif q is None and isinstance(base, ast.Name):
                local.append(base.id)
            elif q is None and isinstance(base, ast.Attribute):
                local.append(base.attr)
        runtime = typing_.imports_runtime(node, self.types)
        end = getattr(node, "end_lineno", None) or node.lineno
        refs = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        refs |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        self.out.classes.append(ClassInfo(node.name, node.lineno, end, torch_module, local, refs - {node.name}))
        self.runtime_depth += runtime
        self.generic_visit(node)
        self.runtime_depth -= runtime

    def visit_Attribute(self, node: ast.Attribute) -> None:
        q = self.table.resolve(node)
        if q is None:
            self.generic_visit(node)
        else:
            self._record(q, node.lineno)  # the whole chain is one use; its prefixes are not

    def visit_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load) or self.table.is_bare_module(node):
            return
        q = self.table.resolve(node) or resolve_star(node.id, self.table, self.known)
        if q:
            self._record(q, node.lineno)

    def visit_Call(self, node: ast.Call) -> None:
        self._quantize_options(node)
        func = node.func
        q = self.table.resolve(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if q is None and isinstance(func, ast.Name) and not self.table.is_bare_module(func):
            q = resolve_star(func.id, self.table, self.known)
        if q is not None and not self.table.is_bare_module(func):
            if q in FROM_NUMPY:
                self.numpy_args.update(id(a) for a in node.args)
            self._record(q, node.lineno, node)
            self._call_options(q, node)
            for child in [*node.args, *node.keywords]:
                self.visit(child)
            return
        if isinstance(func, ast.Attribute):
            self._method_call(func, node)
        self.generic_visit(node)

    def _quantize_options(self, node: ast.Call) -> None:
        """`from_pretrained(..., load_in_4bit=True)` on any receiver: the base weights in 4/8 bits."""
        for kw in node.keywords:
            if kw.arg in QUANTIZE_KEYWORDS and not (isinstance(kw.value, ast.Constant) and not kw.value.value):
                self._hazard(
                    "quantized_training",
                    node.lineno,
                    f"`{kw.arg}=...` loads the base weights in 4/8 bits (bitsandbytes); MindSpore has no bitsandbytes backend",
                )

    def _call_options(self, q: str, node: ast.Call) -> None:
        if not is_api(q):
            return
        for kw in node.keywords:
            if kw.arg == "inplace" and isinstance(kw.value, ast.Constant) and kw.value.value is True:
                self._hazard(
                    "inplace_op",
                    node.lineno,
                    f"`{q}(inplace=True)` is an in-place op (MindSpore has no inplace option: drop it)",
                )
        if q in RESIZES:
            for kw in node.keywords:
                if kw.arg == "antialias" and isinstance(kw.value, ast.Constant) and kw.value.value is True:
                    self._hazard(
                        "missing_option",
                        node.lineno,
                        f"`{q}(antialias=True)`: MindSpore's interpolate has no antialias option (2.10), so a "
                        "downsampled output differs; low-pass filter before resizing, or resize in the data pipeline "
                        "with an antialiasing resize, and compare the outputs",
                        q,
                    )
        if q in DATALOADERS:
            for kw in node.keywords:
                if kw.arg in DATALOADER_OPTIONS and not (
                    isinstance(kw.value, ast.Constant) and kw.value.value in (False, None)
                ):
                    self._hazard("dataloader_option", node.lineno, f"DataLoader {DATALOADER_OPTIONS[kw.arg]}", q)

    def _method_call(self, func: ast.Attribute, node: ast.Call) -> None:
        """Calls on objects whose type the ast does not know: judged by method name only."""
        name = func.attr
        if name == "backward" or name == "step" and isinstance(func.value, ast.Name) and "optim" in func.value.id:
            self.out.signals.add("training")
        if not self.uses_torch:
            return  # x.add_() in a MindSpore or numpy file is not a PyTorch hazard
        if typing_.is_foreign(func.value, self.types):
            return  # np.unique(x), np.array(a).nonzero(), img.copy(): NumPy/OpenCV, not torch
        receiver = typing_.holder(func.value)
        if HOOK_METHOD.match(name):
            self._hazard("hook", node.lineno, f"`.{name}()`: MindSpore Cells support few hooks, and not in Graph mode")
        elif INPLACE_METHOD.match(name) and name not in NOT_INPLACE_OPS and self._inplace_matters(func, node, receiver):
            self._hazard("inplace_op", node.lineno, f"`.{name}()` is an in-place tensor op")
        method = self.methods.get(name) if self.uses_torch else None
        if method and INPLACE_METHOD.match(name) and not self._inplace_matters(func, node, receiver):
            method = None  # the KB's in-place entry would flag it: the in-place semantic does not matter here
        if method:  # only methods the KB names, in files that import torch, so plain objects rarely match
            self.out.uses[method].append(node.lineno)

    def _inplace_matters(self, func: ast.Attribute, node: ast.Call, receiver: str | None) -> bool:
        return (
            id(node) not in self.rebound  # x = x.relu_(): the result replaces x, in place or not
            and not _temporary(func.value)  # (a + b).relu_(), (g - h).mul_(k).add_(g): nobody else holds it
            and receiver not in self.types.objects  # scaler = GradScaler(); opt = SGD(...): not tensors
        )


USAGE_PRICED = ("einops",)


def _temporary(expr: ast.AST) -> bool:
    """A value nobody else holds: an arithmetic result, or a call's result (`(a - b).mul_(k).add_(a)`)
    other than a view-returning slice of a name."""
    return isinstance(expr, (ast.BinOp, ast.UnaryOp, ast.Call))


def is_entry(tree: ast.Module) -> bool:
    """A program rather than a library module: `if __name__ == "__main__":` or a for/while loop at the
    module's top level (a tutorial's or notebook's training loop)."""
    for node in tree.body:
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
            return True
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test) and "__name__" in ast.unparse(node.test):
            return True
    return False


def library_names(tree: ast.Module, local: frozenset[str] = frozenset()) -> dict[str, set[str]]:
    """The distinct names a module takes from each third-party root, outside functions (a lazy import is an
    optional path): `from detectron2.data import MetadataCatalog` -> detectron2.data.MetadataCatalog;
    `import peft` then `peft.get_peft_model(...)` -> peft.get_peft_model. torch's own roots are not here
    (their APIs are priced one by one)."""
    lazy: set[int] = set()
    for node in all_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lazy.update(id(n) for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom)))
    out: dict[str, set[str]] = defaultdict(set)
    modules: dict[str, str] = {}
    for node in all_nodes(tree):
        if id(node) in lazy:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            root = root_of(node.module)
            if root not in local and not is_api(node.module):
                out[root].update(f"{node.module}.{a.name}" for a in node.names if a.name != "*")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if root_of(a.name) not in local and not is_api(a.name):
                    modules[a.asname or root_of(a.name)] = a.asname and a.name or root_of(a.name)
    if modules:
        for node in all_nodes(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
                qualified = modules[node.value.id]
                out[root_of(qualified)].add(f"{qualified}.{node.attr}")
    return dict(out)


def library_calls(tree: ast.Module, roots: tuple[str, ...]) -> dict[str, int]:
    """Calls of names imported from each root (`rearrange(...)`, `einops.repeat(...)`, `Rearrange(...)`)."""
    names: dict[str, str] = {}
    modules: dict[str, str] = {}
    for node in all_nodes(tree):
        if isinstance(node, ast.ImportFrom) and node.module and root_of(node.module) in roots:
            for a in node.names:
                names[a.asname or a.name] = root_of(node.module)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if root_of(a.name) in roots:
                    modules[a.asname or root_of(a.name)] = root_of(a.name)
    if not names and not modules:
        return {}
    out: dict[str, int] = {}
    for node in all_nodes(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        root = (
            names.get(f.id)
            if isinstance(f, ast.Name)
            else modules.get(f.value.id)
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
            else None
        )
        if root:
            out[root] = out.get(root, 0) + 1
    return out


# What makes a hub import a model (an architecture with released weights) rather than a tokenizer, a config,
# a scheduler, a base class or a utility: the names it takes (AutoModelForCausalLM, UNet2DConditionModel,
# StableDiffusionPipeline, pipeline, timm.create_model) or a timm architecture module's classes.
HUB_MODEL_NAME = re.compile(
    r"Model|For[A-Z]|Pipeline|^pipeline$|^create_model$|^load_checkpoint$|^(UNet|Autoencoder|ControlNet|VQ)\w*$"
)
HUB_TOOLING_NAME = re.compile(r"Tokeni[sz]er|Config|Processor|FeatureExtractor|Mixin|Output$|^Base|Args$|Arguments$")
# huggingface_hub downloads files and holds no framework code: its checkpoints count as pretrained weights.
NO_MODELS = ("huggingface_hub",)


def hub_imports(tree: ast.Module, local: frozenset[str] = frozenset()) -> list[tuple[str, int, set[str]]]:
    """(module, line, names it takes) of each import from a hub library (not the project's own: timm scanned
    from inside imports itself); `import transformers` takes the attributes the module reads from it."""
    hubs = set(HUB_ROOTS) - set(local)
    out = []
    aliases: dict[str, int] = {}
    for node in all_nodes(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level and root_of(node.module) in hubs:
            out.append((node.module, node.lineno, {a.name for a in node.names}))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if root_of(a.name) in hubs:
                    out.append((a.name, node.lineno, set()))
                    aliases[a.asname or root_of(a.name)] = len(out) - 1
    if aliases:
        for node in all_nodes(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                out[aliases[node.value.id]][2].add(node.attr)
    return out


def hub_model(module: str, names: set[str]) -> bool:
    """Does an import from a hub library take a model? (`import transformers` read for nothing is not one.)"""
    if root_of(module) in NO_MODELS:
        return False
    parts = module.split(".")
    if (
        root_of(module) == "timm"
        and len(parts) > 2
        and parts[1] == "models"
        and not parts[2].startswith(("_", "layers"))
    ):
        return any(n[:1].isupper() for n in names)  # timm.models.resnet import ResNet: an architecture
    return any(HUB_MODEL_NAME.search(n) and not HUB_TOOLING_NAME.search(n) for n in names)


MAX_TOKEN = 100  # a model id or config name is short; longer strings are prose or data


def evidence(tree: ast.Module) -> str:
    """The module's model evidence, lower case, one token a line: the classes it defines, the names it
    imports, and its short strings without blanks (model ids, config names: "meta-llama/Llama-2-7b-hf")."""
    tokens: set[str] = set()
    for node in all_nodes(tree):
        if isinstance(node, ast.ClassDef):
            tokens.add(node.name)
        elif isinstance(node, ast.ImportFrom):
            tokens.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            tokens.update(a.name.rsplit(".", 1)[-1] for a in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and 1 < len(node.value) <= MAX_TOKEN:
            if not any(c.isspace() for c in node.value):
                tokens.add(node.value)
    return "\n".join(sorted(tokens)).lower()


def scan_module(tree: ast.Module, known: set[str], local: frozenset[str] = frozenset()) -> ModuleScan:
    """`local`: the project's own top-level packages (importing them is not a third-party dependency)."""
    table = build(tree, local)
    visitor = _Visitor(table, known, normalize.constants(tree), typing_.build(tree, table))
    visitor.visit(tree)
    for module, line, names in hub_imports(tree, local):
        if not hub_model(module, names):
            continue  # tokenizers, configs, schedulers, utilities and downloads: library pieces, not a model
        lazy = line in table.lazy_lines
        where = " (lazily, inside a function: an optional path such as loading pretrained weights)" if lazy else ""
        visitor.out.hazards.append(
            RawHazard(
                "model_hub",
                line,
                f"imports `{module}`{where}: models and weights from a third-party hub need MindSpore ports (e.g. MindSpore's own model zoos) or converted weights",
            )
        )
    visitor.out.evidence = evidence(tree)
    visitor.out.reach = module_reach(tree)
    visitor.out.library_calls = library_calls(tree, USAGE_PRICED)
    visitor.out.library_names = library_names(tree, local)
    visitor.out.entry = is_entry(tree)
    visitor.out.imports = [(m, line, lazy) for m, line, lazy in table.all_imports if root_of(m) not in local]
    visitor.out.lazy_lines = table.lazy_lines
    return visitor.out
