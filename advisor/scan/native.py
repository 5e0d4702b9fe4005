"""Custom C++/CUDA extension sources (.cu, .cuh, and C/C++ files that bind or register operators for
PyTorch): each is a hand-written operator MindSpore cannot load. A C++ program that only links LibTorch
is not one. Read as text, never compiled.

Which framework a native source is written for is decided from its own evidence first (the custom-op
interface it is written against: MindSpore's AOT signature or headers vs torch/ATen/TORCH_LIBRARY),
then from what builds or loads it (ops.Custom vs torch.utils.cpp_extension naming the file), and only
then from the project's Python. A MindSpore custom kernel is not migration work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.scan.files import CUDA_SUFFIXES, Source

# The first line that shows what the file is: a kernel, a binding, a torch include.
MARKER = re.compile(r"__global__|PYBIND11_MODULE|TORCH_LIBRARY|#\s*include\s*[<\"](?:torch|ATen|c10|cuda|pybind11)")
# What makes C/C++ an operator for PyTorch (not a program that merely links LibTorch or finds CUDA):
# a Python binding, an operator registration, the extension header, or CUDA kernels/ATen CUDA code.
EXTENSION_CPP = re.compile(
    r"PYBIND11_MODULE|TORCH_LIBRARY|TORCH_EXTENSION_NAME|#\s*include\s*[<\"]torch/(?:extension|python)\.h|"
    r"__global__|#\s*include\s*[<\"](?:ATen/cuda|c10/cuda|cuda_runtime|cuda\.h|cub/|thrust/)"
)


# MindSpore's custom-op interfaces: the AOT entry point `int f(int nparam, void **params, int *ndims,
# int64_t **shapes, const char **dtypes, void *stream, void *extra)`, its headers, Ascend C kernels.
MINDSPORE_NATIVE = re.compile(
    r"\bint\s+\w+\s*\(\s*int\s+nparam\s*,\s*void\s*\*\s*\*\s*params|"
    r"#\s*include\s*[<\"](?:ms_extension|custom_aot_extra|mindspore/|kernel_operator\.h)|__aicore__"
)
TORCH_NATIVE = re.compile(
    r"TORCH_LIBRARY|TORCH_EXTENSION_NAME|#\s*include\s*[<\"](?:torch/|ATen/|c10/)|\btorch::|\bat::Tensor"
)
# What makes a CUDA file an operator at all: a kernel, device code, or a binding/entry point. A file
# with none (cuda_version.cu: print the runtime version) is a build probe, not a custom op.
OPERATOR_CODE = re.compile(r"__global__|__device__|PYBIND11_MODULE|TORCH_LIBRARY|extern\s+\"C\"")
# A native file named by the Python that builds or loads it: `ops.Custom("./x.so:f")`, `load(sources=["x.cu"])`.
# Read as path-like tokens first, then the suffix inside each: one pass over the text (a pattern that
# backtracks over a long token from every start position is quadratic on one 60 KB word).
PATH_TOKEN = re.compile(rb"[\w\-./]+")
NATIVE_SUFFIX = re.compile(rb"\.(?:cu|cuh|cpp|cc|cxx|so)\b")


def loaders(python: list[Source]) -> dict[str, str]:
    """stem of a native file -> the framework of the Python code that names it (build script or loader)."""
    out: dict[str, str] = {}
    for src in python:
        data = src.data
        if b"cpp_extension" in data or b"CUDAExtension" in data or b"CppExtension" in data:
            fw = "pytorch"
        elif b"ops.Custom" in data or b"CustomRegOp" in data:
            fw = "mindspore"
        else:
            continue
        for stem in native_stems(data):
            out.setdefault(stem, fw)
    return out


def native_stems(data: bytes) -> list[str]:
    """The stems of the native files a text names (`sources=["csrc/x.cu"]` -> x), in order."""
    stems = []
    for token in PATH_TOKEN.finditer(data):
        last = None
        for last in NATIVE_SUFFIX.finditer(token.group()):
            pass
        if last is not None and last.start():
            stems.append(token.group()[: last.start()].decode("utf-8", "replace").rsplit("/", 1)[-1])
    return stems


def framework_of(src: Source, loaded: dict[str, str], project: str) -> str:
    """'mindspore', 'pytorch' or 'none' (not an operator: plain C/C++, a build probe) for one native
    source: its own evidence, then what loads it, then the project's Python (`project`)."""
    text = src.data.decode("utf-8", errors="replace")
    if MINDSPORE_NATIVE.search(text):
        return "mindspore"
    if TORCH_NATIVE.search(text):
        return "pytorch"
    is_cuda = src.path.suffix.lower() in CUDA_SUFFIXES
    if not is_cuda and not EXTENSION_CPP.search(text):
        return "none"
    if not OPERATOR_CODE.search(text) and src.path.suffix.lower() != ".cuh":
        return "none"
    stem = src.rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if stem in loaded:
        return loaded[stem]
    return "mindspore" if project == "mindspore" else "pytorch"


KERNEL = re.compile(r"__global__\b(.*)")
# Bounded: an unclosed `__launch_bounds__(` repeated along a long line would otherwise rescan the line
# from each one (quadratic). Real bounds are a few numbers.
QUALIFIERS = re.compile(r"__launch_bounds__\s*\([^)\n]{0,200}\)")


def _kernel_name(line: str) -> str | None:
    m = KERNEL.search(line)
    if not m or line.lstrip().startswith(("//", "/*", "*")):  # absent, or mentioned in a comment
        return None
    rest = QUALIFIERS.sub(" ", m.group(1))
    return _name_before_paren(rest) or "?"


def _name_before_paren(text: str) -> str | None:
    """The identifier just before the first `(` that follows one (`void k(`, `k <<<`... -> k), read by
    walking back from each `(` over blanks and then the name: each character is looked at a bounded number
    of times, where a pattern `(\\w+)\\s*\\(` is quadratic on one long word."""
    start = 0
    while True:
        paren = text.find("(", start)
        if paren < 0:
            return None
        end = paren
        while end > start and text[end - 1].isspace():
            end -= 1
        begin = end
        while begin > start and (text[begin - 1].isalnum() or text[begin - 1] == "_"):
            begin -= 1
        if begin < end:
            return text[begin:end]
        start = paren + 1


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


# An operator a binding registers: pybind11's `m.def("name", &target, ...)` or TORCH_LIBRARY's
# `m.def("name(Tensor x) -> Tensor", &target)`. Class-method chains (`.def(` after a `)`) are not ops.
REGISTRATION = re.compile(r"\b\w+\s*\.\s*def\s*\(\s*\"(\w+)[^\"]*\"\s*(?:,\s*&?\s*([\w:]+))?")
# What a binding exposes that is not an operator: version and availability queries.
NOT_AN_OP = re.compile(r"version|^has_|^is_|available", re.I)
DIRECTION = re.compile(r"_?(?:forward|backward|fwd|bwd|grad)(?:_\w+)?$", re.I)
BACKWARD = re.compile(r"backward|bwd|grad", re.I)


@dataclass
class RegisteredOp:
    """One operator as the engineer counts it: forward and backward entry points of the same op together."""

    name: str
    file: str  # the binding that registers it
    line: int
    backward: bool = False
    entries: list[str] = field(default_factory=list)
    framework_free: str = ""  # the framework-free source that defines it (host C++ on arrays), if it is one


# Code for a framework or a device: torch/ATen/c10, CUDA, MindSpore. A C++ source with none of it (a COCO
# evaluator on host arrays behind pybind11) runs the same beside MindSpore: its binding is rebuilt, nothing ported.
FRAMEWORK_CODE = re.compile(
    r"#\s*include\s*[<\"](?:torch|ATen|c10|cuda|cub|thrust|mindspore|ms_extension|kernel_operator)|"
    r"__global__|__device__|__aicore__|\btorch::|\bat::"
)


def framework_free(sources: list[Source]) -> list[Source]:
    """The C/C++ sources that are neither device code nor written against a framework."""
    return [
        s
        for s in sources
        if s.path.suffix.lower() not in CUDA_SUFFIXES
        and not FRAMEWORK_CODE.search(s.data.decode("utf-8", errors="replace"))
    ]


def _defined_in(key: str, sources: list[Source]) -> str:
    """The first source that defines `key` as a namespace, class or struct (COCOeval), else ''."""
    pattern = re.compile(r"\b(?:namespace|class|struct)\s+" + re.escape(key) + r"\b")
    for src in sorted(sources, key=lambda s: s.rel):
        if pattern.search(src.data.decode("utf-8", errors="replace")):
            return src.rel
    return ""


def registered_ops(sources: list[Source], free: list[Source] | None = None) -> list[RegisteredOp]:
    """The distinct operators the bindings among `sources` register, in file and line order. An op's key is
    its target's class for `&Class::method` targets (COCOeval::Accumulate and ::EvaluateImages are one
    evaluator), else its name without the forward/backward suffix (deform_conv_forward,
    deform_conv_backward_input -> deform_conv)."""
    ops: dict[str, RegisteredOp] = {}
    for src in sorted(sources, key=lambda s: s.rel):
        text = src.data.decode("utf-8", errors="replace")
        if "def(" not in text.replace(" ", ""):
            continue
        for m in REGISTRATION.finditer(text):
            name, target = m.group(1), m.group(2) or ""
            if NOT_AN_OP.search(name):
                continue
            cls = target.split("::")[-2] if "::" in target else ""
            key = cls if cls[:1].isupper() else (DIRECTION.sub("", name) or name)
            line = text.count("\n", 0, m.start()) + 1
            op = ops.setdefault(key.lower(), RegisteredOp(key, src.rel, line))
            op.entries.append(name)
            op.backward = op.backward or bool(BACKWARD.search(name))
    for op in ops.values():
        op.framework_free = _defined_in(op.name, free or []) if op.name[:1].isupper() else ""
    return list(ops.values())
