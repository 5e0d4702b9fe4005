"""Optional paths priced as optional: a kernel or a library reached only through an availability guard,
an import that may fail, a function only called inside one, an opt-in extension or an extra is shown apart
with the fallback it has, and raises neither the risk nor the route (round 5: whisper's Triton DTW kernels
with their CPU fallback made it "high", litgpt's opt-in Thunder kernels were its largest item)."""

import textwrap

from advisor.scan import scan_path


def _write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def _kernels(result):
    return [h for h in result.hazards if h.kind == "custom_extension"]


KERNEL_MODULE = """
import torch
try:
    import triton
    import triton.language as tl
except ImportError:
    raise RuntimeError("triton import failed")


@triton.jit
def dtw_kernel(cost, trace, x, N, M, BLOCK_SIZE: tl.constexpr):
    pass
"""
MODEL = "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x\n"


def test_a_kernel_module_reached_only_through_fallbacks_is_optional(tmp_path):
    """whisper's shape: timing.py imports triton_ops inside a try in `if x.is_cuda:` and lazily in
    dtw_cuda(), which is only called inside a try with a CPU fallback."""
    _write(
        tmp_path,
        {
            "pkg/triton_ops.py": KERNEL_MODULE,
            "pkg/model.py": MODEL,
            "pkg/timing.py": """
            import subprocess
            import warnings
            import torch

            def median_filter(x):
                result = None
                if x.is_cuda:
                    try:
                        from .triton_ops import median_filter_cuda
                        result = median_filter_cuda(x)
                    except (RuntimeError, subprocess.CalledProcessError):
                        warnings.warn("falling back")
                return result if result is not None else x.median()

            def dtw_cuda(x):
                from .triton_ops import dtw_kernel
                return dtw_kernel

            def dtw(x):
                if x.is_cuda:
                    try:
                        return dtw_cuda(x)
                    except (RuntimeError, subprocess.CalledProcessError):
                        warnings.warn("falling back")
                return x
            """,
        },
    )
    result = scan_path(tmp_path)
    (kernel,) = _kernels(result)
    assert kernel.optional and "(optional: its module is only imported" in kernel.message
    summary = next(s for s in result.hazard_summary if s.kind == "custom_extension")
    assert summary.optional == 1 and summary.risk == "low" and summary.effort_hours == (0.0, 0.0)
    assert result.risk != "high" and "custom" not in result.route_why


def test_a_kernel_module_imported_plainly_stays_required(tmp_path):
    _write(
        tmp_path,
        {"pkg/triton_ops.py": KERNEL_MODULE, "pkg/model.py": "import torch\nfrom .triton_ops import dtw_kernel\n"},
    )
    (kernel,) = _kernels(scan_path(tmp_path))
    assert not kernel.optional


def test_kernels_behind_an_availability_guard_are_optional(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/ops.py": """
            import torch
            from pkg.constants import _TRITON_AVAILABLE

            if _TRITON_AVAILABLE:
                import triton

                @triton.jit
                def _fused_kernel(x_ptr):
                    pass
            """,
            "pkg/constants.py": "_TRITON_AVAILABLE = False\n",
        },
    )
    (kernel,) = _kernels(scan_path(tmp_path))
    assert kernel.optional and "behind `if _TRITON_AVAILABLE`" in kernel.message


def test_a_native_extension_used_only_with_a_fallback_is_optional(tmp_path):
    """sam2's shape: setup.py builds pkg._C from one .cu when it can; get_connected_components imports it
    lazily and every caller wraps it in try/except and carries on without it."""
    _write(
        tmp_path,
        {
            "setup.py": """
            from setuptools import setup
            from torch.utils.cpp_extension import BuildExtension, CUDAExtension

            def get_extensions():
                try:
                    srcs = ["pkg/csrc/connected_components.cu"]
                    return [CUDAExtension("pkg._C", srcs)]
                except Exception:
                    return []

            setup(ext_modules=get_extensions(), cmdclass={"build_ext": BuildExtension})
            """,
            "pkg/csrc/connected_components.cu": "#include <torch/extension.h>\n__global__ void label(int* x) {}\n",
            "pkg/misc.py": """
            import torch
            import warnings

            def get_connected_components(mask):
                from pkg import _C
                return _C.get_connected_components(mask)

            def fill_holes(mask):
                try:
                    labels = get_connected_components(mask)
                except Exception as e:
                    warnings.warn(f"{e}: skipping the post-processing step")
                    labels = mask
                return labels
            """,
            "pkg/model.py": MODEL,
        },
    )
    result = scan_path(tmp_path)
    assert _kernels(result) and all(h.optional for h in _kernels(result))
    assert result.risk != "high"


def test_an_opt_in_extension_folder_is_priced_apart(tmp_path):
    """litgpt's shape: extensions/thunder holds an executor with Triton kernels nothing in litgpt imports."""
    _write(
        tmp_path,
        {
            "lib/model.py": MODEL,
            "extensions/thunder/kernels/swiglu.py": "import torch\nimport triton\n\n@triton.jit\ndef _fg_kernel(e):\n    pass\n",
            "extensions/thunder/executor.py": "import torch\nfrom extensions.thunder.kernels.swiglu import _fg_kernel\n",
        },
    )
    result = scan_path(tmp_path)
    (kernel,) = _kernels(result)
    assert kernel.excluded and kernel.optional and "opt-in extension" in kernel.message
    assert any(r.startswith("extensions/ (2 file(s)) is an opt-in extension") for r in result.risk_reasons)
    assert result.risk != "high"


def test_libraries_behind_a_guard_or_only_in_an_extra_are_optional(tmp_path):
    _write(
        tmp_path,
        {
            "setup.py": "from setuptools import setup\nsetup(install_requires=['torch'], extras_require={'quant': ['bitsandbytes>=0.41']})\n",
            "pkg/model.py": """
            import torch
            import bitsandbytes as bnb
            try:
                import xformers.ops
            except ImportError:
                xformers = None
            import deepspeed
            """,
        },
    )
    deps = {d.name: d for d in scan_path(tmp_path).dependencies}
    assert deps["bitsandbytes"].optional and deps["bitsandbytes"].effort_hours == (0.0, 0.0)
    assert deps["xformers"].optional
    assert not deps["deepspeed"].optional
