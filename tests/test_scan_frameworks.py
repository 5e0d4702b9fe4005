"""Framework of each file and each native source from its own evidence (part 1): MindSpore
code, MindSpore custom kernels, compatibility bridges and vendored libraries are not migration work.
The shapes are taken from real projects (a MindSpore NLP library's AOT kernels and torch bridge, a
detection repo's setup.py, a cuda_version.cu build probe)."""

from pathlib import Path

from advisor.scan import scan_path

AOT_KERNEL = """#include <cuda_runtime.h>
__global__ void kernel_forward(const int B, const float *w, float *y) { y[0] = w[0]; }
extern "C"
{
    int wkv_forward(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes, void *stream,
                    void *extra)
    {
        kernel_forward<<<1, 1>>>(1, static_cast<float *>(params[0]), static_cast<float *>(params[1]));
        return 0;
    }
}
"""
PLAIN_KERNEL = "__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }\n"
TORCH_KERNEL = """#include <torch/extension.h>
__global__ void roi_align_kernel(const float *in, float *out) { out[0] = in[0]; }
at::Tensor roi_align(at::Tensor x) { return x; }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("roi_align", &roi_align); }
"""
CUDA_VERSION = """#include <cuda_runtime_api.h>
int get_cudart_version() { return CUDART_VERSION; }
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def mindspore_library(root: Path) -> Path:
    return _write(
        root,
        {
            "src/mylib/models/rwkv.py": (
                "import mindspore\nfrom mindspore import nn, ops\n\n"
                "wkv = ops.Custom('./_csrc/cuda/wkv.so:wkv_forward', out_shape=lambda s: s, out_dtype=lambda t: t, func_type='aot')\n\n"
                "class RWKV(nn.Cell):\n    def construct(self, x):\n        x.add_(1)\n        return wkv(x)\n"
            ),
            "src/mylib/_csrc/cuda/wkv.cu": AOT_KERNEL,
            "src/mylib/_csrc/cuda/scale.cu": PLAIN_KERNEL,
            "src/mylib/quant/ops.py": "from mindspore import ops\nscale = ops.Custom('scale.so:scale', func_type='aot')\n",
            # the bridge: the torch API on MindSpore, and the hook that makes `import torch` load it
            "src/mindtorch/__init__.py": "import mindspore\nfrom .tensor import Tensor\n",
            "src/mindtorch/tensor.py": "from mindspore import Tensor as _T\n\nclass Tensor(_T):\n    def add_(self, o):\n        return self\n",
            "src/mindtorch/nn/functional.py": "from ..tensor import Tensor\n\ndef relu(x):\n    return x\n",
            "src/mindtorch/torch_proxy.py": (
                "import sys\nimport mindspore\n\nclass Finder:\n    def find_spec(self, name, path, target=None):\n"
                "        return None if name != 'torch' else None\n\nsys.meta_path.insert(0, Finder())\n"
            ),
            # library code written against torch, running on the bridge
            "src/mylib/ocr/train_lora.py": (
                "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n"
                "def main(model, data):\n    opt = torch.optim.AdamW(model.parameters())\n    model = DDP(model)\n"
                "    for x in data:\n        loss = model(x)\n        loss.backward()\n        opt.step()\n"
            ),
            # a vendored copy of a PyTorch library: not read at all
            "third_party/apex/csrc/fused.cu": TORCH_KERNEL,
            "third_party/apex/apex/amp.py": "import torch\nfrom torch.cuda.amp import autocast\n",
        },
    )


def test_a_mindspore_library_with_kernels_and_a_bridge_is_nothing_to_migrate(tmp_path):
    result = scan_path(mindspore_library(tmp_path))
    assert result.framework == "mindspore"
    assert result.route == "nothing to migrate"
    assert result.risk == "low"
    assert result.effort_hours == (0.0, 0.0)
    assert result.extension_sources == 0 and result.mindspore_kernels == 2
    assert not [h for h in result.hazards if not h.excluded]  # not the kernels, not DDP on the bridge
    notes = " | ".join(result.not_migration_work)
    assert "2 file(s): MindSpore custom-op kernel source" in notes
    assert "4 file(s): PyTorch-compatibility bridge on MindSpore" in notes
    assert "runs on the project's torch bridge" in notes
    vendored = {s.file: s.reason for s in result.skipped}
    assert vendored["third_party/"].startswith("vendored third-party library")


def test_a_plain_cuda_kernel_takes_the_framework_of_what_loads_it(tmp_path):
    """No headers in the kernel itself: setup.py's CUDAExtension makes it a PyTorch op."""
    _write(
        tmp_path,
        {
            "setup.py": (
                "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                "setup(ext_modules=[CUDAExtension('scale_ext', ['csrc/scale.cu'])], cmdclass={'build_ext': BuildExtension})\n"
            ),
            "csrc/scale.cu": PLAIN_KERNEL,
            "model.py": "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x\n",
        },
    )
    result = scan_path(tmp_path)
    assert result.framework == "pytorch"
    assert result.extension_sources == 1 and result.mindspore_kernels == 0
    assert any(h.kind == "custom_extension" and h.file == "csrc/scale.cu" for h in result.hazards)


def test_cuda_version_probe_is_not_a_custom_op(tmp_path):
    _write(
        tmp_path,
        {
            "csrc/cuda_version.cu": CUDA_VERSION,
            "model.py": "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x\n",
        },
    )
    result = scan_path(tmp_path)
    assert result.extension_sources == 0
    assert not [h for h in result.hazards if h.kind == "custom_extension"]


def test_a_torch_kernel_in_a_mindspore_project_is_still_a_torch_op(tmp_path):
    """Its own evidence (torch/extension.h, PYBIND11 with at::Tensor) wins over the project's."""
    mindspore_library(tmp_path)
    _write(tmp_path, {"src/mylib/legacy/roi.cu": TORCH_KERNEL})
    result = scan_path(tmp_path)
    assert result.extension_sources == 1 and result.mindspore_kernels == 2
    assert result.framework == "mixed"


def test_a_converter_that_imports_both_frameworks_is_not_priced(tmp_path):
    _write(
        tmp_path,
        {
            "model.py": "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n",
            "convert.py": (
                "import torch\nimport mindspore\n\ndef convert(path):\n    sd = torch.load(path)\n"
                "    return [mindspore.Parameter(mindspore.Tensor(v.numpy()), k) for k, v in sd.items()]\n"
            ),
        },
    )
    result = scan_path(tmp_path)
    names = {a.name for a in [*result.apis, *result.unmapped]}
    assert "torch.relu" in names and "torch.load" not in names
    assert result.framework == "mixed"
    assert any("MindSpore code" in n for n in result.not_migration_work)
