"""What one hazard place is a place *of*: the distinct unportable feature it uses. Each feature is
priced once (advisor/scan/effort.py Ledger.features); its further places add a small increment.

- custom_extension: one kernel per operator the project's bindings register (PYBIND11_MODULE /
  TORCH_LIBRARY `m.def`), forward and backward apart; without registrations, one operator per native source folder (ROIAlign/ROIAlign_cuda.cu, _cpu.cpp, .h are
  one op), or per file stem in a flat csrc/; its Python side (the setup.py build lines, torch.ops calls)
  is glue of the kernels, priced in them.
- distributed: per parallelism set up: data parallel (DDP and the collectives), sharded data parallel
  (FSDP), tensor parallel (device mesh, DTensor), pipeline parallel, distributed checkpoints; each has
  its own figure (PARALLEL below).
- no_equivalent: per subsystem (torch.fx, torch.jit...): one redesign, wherever it is used.
- model_hub: per hub library (transformers, timm...).
- every other kind: the kind itself (one pattern, one fix).
"""

from __future__ import annotations

import re

NATIVE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh")
# Folder names that hold many operators: the op is the file's stem there, not the folder.
GENERIC_DIRS = {
    "csrc",
    "src",
    "cuda",
    "cpu",
    "kernels",
    "kernel",
    "ops",
    "op",
    "include",
    "lib",
    "native",
    "cpp",
    "ext",
    "extensions",
    "_ext",
    "layers",
    "",
}
STEM_SUFFIX = re.compile(r"(_cuda_kernel|_cuda|_cpu|_kernels?|_impl|_ops?|_gpu|_backward|_forward)+$", re.I)
GLUE = "(glue)"
TRITON = "triton kernel "  # the api of a `@triton.jit` kernel (advisor/scan/detect.py TRITON_KERNEL)
REGISTERED = "native op "  # the api of a registered operator's kernel (advisor/scan/native.py registered_ops)
HUB_MODULE = re.compile(r"imports `(\w+)")
_DOCS = "https://www.mindspore.cn/docs/en/r2.10.0/features/parallel/"
# The parallelisms a distributed place sets up, each a feature with its own figure: (API prefixes, feature,
# hours, basis). Anything else under the distributed kind (DDP, collectives, launch) is the kind's own figure.
PARALLEL: tuple[tuple[tuple[str, ...], str, tuple[float, float], str], ...] = (
    (
        ("torch.distributed.fsdp", "torch.distributed._composable.fsdp", "torch.distributed._composable.fully_shard"),
        "sharded data parallel (FSDP)",
        (16.0, 40.0),
        "FSDP becomes semi-auto parallel with optimizer parallel (parameters and optimizer state sliced over "
        "the data-parallel cards: " + _DOCS + "optimizer_parallel.html): the wrap policy, mixed precision and "
        "per-rank checkpoints re-done, memory and convergence re-checked (assumption)",
    ),
    (
        ("torch.distributed.device_mesh", "torch.distributed.tensor", "torch.distributed._tensor"),
        "tensor parallel (device mesh, DTensor)",
        (24.0, 80.0),
        "a device mesh and DTensor placements become MindSpore shard strategies per layer (operator-level "
        "parallel: "
        + _DOCS
        + "operator_parallel.html), each layer's layout and its communication re-checked (assumption)",
    ),
    (
        ("torch.distributed.pipelining", "torch.distributed.pipeline"),
        "pipeline parallel",
        (24.0, 80.0),
        "stages and micro-batches re-expressed with MindSpore's pipeline parallel ("
        + _DOCS
        + "pipeline_parallel.html) (assumption)",
    ),
    (
        ("torch.distributed.checkpoint",),
        "distributed checkpoint",
        (8.0, 24.0),
        "sharded save/load becomes MindSpore's per-rank checkpoints with their strategy file, resharded on load "
        "(" + _DOCS + "model_transformation.html) (assumption)",
    ),
)


def parallel_feature(api: str | None) -> tuple[str, tuple[float, float], str] | None:
    """(feature, hours, basis) of the parallelism an API sets up, when it is one with its own figure."""
    for prefixes, feature, hours, basis in PARALLEL:
        if api and api.startswith(prefixes):
            return feature, hours, basis
    return None


def is_native(rel: str) -> bool:
    return rel.lower().endswith(NATIVE_SUFFIXES)


def operator_of(rel: str) -> str:
    """The operator a native source belongs to."""
    parts = rel.split("/")
    folder = parts[-2] if len(parts) > 1 else ""
    if folder.lower() not in GENERIC_DIRS:
        return "/".join(parts[:-1])
    stem = parts[-1].rsplit(".", 1)[0]
    return "/".join([*parts[:-1], STEM_SUFFIX.sub("", stem) or stem])


def feature_of(kind: str, file: str, api: str | None, message: str, has_native: bool, registered: bool = False) -> str:
    if kind == "custom_extension":
        if api and api.startswith(TRITON):
            return f"op {file}:{api[len(TRITON) :]}"  # one Triton kernel
        if api and api.startswith(REGISTERED):
            return "op " + api[len(REGISTERED) :]  # one kernel of an op a binding registers
        if registered:
            return GLUE  # its sources, build lines and calls are the glue of the registered ops
        if is_native(file):
            return "op " + operator_of(file)
        if has_native:
            return GLUE
        if api and api.startswith("torch.ops.") and api.count(".") >= 3:
            return "op " + ".".join(api.split(".")[2:4])
        return "extension " + file  # load_inline / a prebuilt library: one op per file that builds it
    if kind == "dynamic_shape":
        return api or kind  # torch.nonzero, torch.unique, boolean-mask indexing: each its own pattern
    if kind == "distributed":
        found = parallel_feature(api)
        return found[0] if found else kind
    if kind == "no_equivalent" and api:
        return ".".join(api.split(".")[:2])
    if kind == "model_hub":
        m = HUB_MODULE.search(message)
        return m.group(1) if m else (api or kind).split(".", 1)[0]
    return kind
