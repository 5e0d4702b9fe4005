"""Custom C++/CUDA extension sources (.cu, .cuh, and C/C++ files that use torch or pybind11):
each is a hand-written operator MindSpore cannot load. Read as text, never compiled."""

from __future__ import annotations

import re

from advisor.scan.files import CUDA_SUFFIXES, Source

# The first line that shows what the file is: a kernel, a binding, a torch include.
MARKER = re.compile(r"__global__|PYBIND11_MODULE|TORCH_LIBRARY|#\s*include\s*[<\"](?:torch|ATen|c10|cuda|pybind11)")
TORCH_CPP = re.compile(r"torch|ATen|c10::|pybind11|cuda", re.IGNORECASE)


def extension_line(src: Source) -> int | None:
    """Line to report for an extension source, or None when the file is not extension code."""
    text = src.data.decode("utf-8", errors="replace")
    is_cuda = src.path.suffix.lower() in CUDA_SUFFIXES
    if not is_cuda and not TORCH_CPP.search(text):
        return None  # plain C/C++ next to the Python code: not a torch extension
    for number, line in enumerate(text.splitlines(), start=1):
        if MARKER.search(line):
            return number
    return 1
