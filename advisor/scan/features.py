"""What one hazard place is a place *of*: the distinct unportable feature it uses. Each feature is
priced once (advisor/scan/effort.py Ledger.features); its further places add a small increment.

- custom_extension: one kernel per operator the project's bindings register (PYBIND11_MODULE /
  TORCH_LIBRARY `m.def`), forward and backward apart; without registrations, one operator per native source folder (ROIAlign/ROIAlign_cuda.cu, _cpu.cpp, .h are
  one op), or per file stem in a flat csrc/; its Python side (the setup.py build lines, torch.ops calls)
  is glue of the kernels, priced in them.
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
    if kind == "no_equivalent" and api:
        return ".".join(api.split(".")[:2])
    if kind == "model_hub":
        m = HUB_MODULE.search(message)
        return m.group(1) if m else (api or kind).split(".", 1)[0]
    return kind
