"""Triton kernels (`@triton.jit`) are custom GPU operators: each one is found and priced as a kernel."""

from __future__ import annotations

import textwrap

from advisor.scan import scan_path

KERNELS = """
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))


@triton.jit(debug=True)
def relu_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pass


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        out = torch.empty_like(x)
        add_kernel[(1,)](self.fc(x), x, out, x.numel())
        return out
"""


def _scan(folder, text, name="kern.py"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(textwrap.dedent(text).lstrip("\n"))
    return scan_path(folder)


def _kernels(result):
    return [(h.line, h.message.split("`")[3]) for h in result.hazards if h.kind == "custom_extension"]


def test_each_triton_kernel_is_a_custom_operator_at_its_definition(tmp_path):
    result = _scan(tmp_path, KERNELS)
    assert _kernels(result) == [(8, "add_kernel"), (14, "relu_kernel")]
    assert result.risk == "high"
    assert result.route != "ONNX -> MindIR conversion"  # a Triton kernel exports to no ONNX graph
    message = next(h.message for h in result.hazards if h.kind == "custom_extension")
    assert "MindSpore cannot run it" in message and "Triton-Ascend" in message


def test_two_kernels_cost_more_than_one(tmp_path):
    one = _scan(tmp_path / "one", KERNELS.replace("@triton.jit(debug=True)", ""))
    two = _scan(tmp_path / "two", KERNELS)
    assert len(_kernels(one)) == 1 and len(_kernels(two)) == 2
    (low1, high1), (low2, high2) = one.effort_hours, two.effort_hours
    assert low2 > low1 and high2 > high1


def test_the_jit_decorator_is_found_through_aliases(tmp_path):
    result = _scan(
        tmp_path,
        """
        import triton as tr
        from triton import jit
        from triton.language import jit as lang_jit

        @tr.jit
        def a(x): pass

        @jit
        def b(x): pass

        @lang_jit
        def c(x): pass
        """,
    )
    assert [name for _, name in _kernels(result)] == ["a", "b", "c"]


def test_other_jits_are_not_triton_kernels(tmp_path):
    result = _scan(
        tmp_path,
        """
        import torch
        import numba

        def jit(f):
            return f

        @torch.jit.script
        def a(x: torch.Tensor) -> torch.Tensor:
            return x * 2

        @numba.jit
        def b(x):
            return x

        @jit
        def c(x):
            return x
        """,
    )
    assert _kernels(result) == []
