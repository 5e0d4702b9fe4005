"""Custom C++/CUDA extension sources (.cu, .cuh, and C/C++ files that bind or register operators for
PyTorch): each is a hand-written operator MindSpore cannot load. A C++ program that only links LibTorch
is not one. Read as text, never compiled."""

from __future__ import annotations

import re

from advisor.scan.files import CUDA_SUFFIXES, Source

# The first line that shows what the file is: a kernel, a binding, a torch include.
MARKER = re.compile(r"__global__|PYBIND11_MODULE|TORCH_LIBRARY|#\s*include\s*[<\"](?:torch|ATen|c10|cuda|pybind11)")
# What makes C/C++ an operator for PyTorch (not a program that merely links LibTorch or finds CUDA):
# a Python binding, an operator registration, the extension header, or CUDA kernels/ATen CUDA code.
EXTENSION_CPP = re.compile(
    r"PYBIND11_MODULE|TORCH_LIBRARY|TORCH_EXTENSION_NAME|#\s*include\s*[<\"]torch/(?:extension|python)\.h|"
    r"__global__|#\s*include\s*[<\"](?:ATen/cuda|c10/cuda|cuda_runtime|cuda\.h|cub/|thrust/)"
)


KERNEL = re.compile(r"__global__\b(.*)")
QUALIFIERS = re.compile(r"__launch_bounds__\s*\([^)]*\)")
NAME_BEFORE_PAREN = re.compile(r"(\w+)\s*\(")


def _kernel_name(line: str) -> str | None:
    m = KERNEL.search(line)
    if not m or line.lstrip().startswith(("//", "/*", "*")):  # absent, or mentioned in a comment
        return None
    rest = QUALIFIERS.sub(" ", m.group(1))
    name = NAME_BEFORE_PAREN.search(rest)
    return name.group(1) if name else "?"


def extension_findings(src: Source) -> list[tuple[int, str]]:
    """(line, message) per CUDA kernel (`__global__`), or one for the file when it has none;
    [] when the file is not extension code (plain C/C++ that never mentions torch or CUDA)."""
    text = src.data.decode("utf-8", errors="replace")
    is_cuda = src.path.suffix.lower() in CUDA_SUFFIXES
    if not is_cuda and not EXTENSION_CPP.search(text):
        return []  # plain C/C++, a LibTorch program (torch/torch.h, torch::jit::load), or a CUDA_HOME lookup
    lines = text.splitlines()
    kernels = []
    for number, line in enumerate(lines, start=1):
        name = _kernel_name(line)
        if name:
            kernels.append(
                (
                    number,
                    f"CUDA kernel `{name}` in `{src.rel}`: each kernel needs a MindSpore/Ascend operator (ops.Custom) or a rewrite with built-in ops",
                )
            )
    if kernels:
        return kernels
    first = next((n for n, line in enumerate(lines, start=1) if MARKER.search(line)), 1)
    return [(first, f"extension source `{src.rel}`: hand-written C++/CUDA operator code MindSpore cannot load")]
