"""The false positives (and the misses) of the fourth calibration, each on the shape of the real code it
was found in: an OpenMMLab setup.py, a demo's image download, hub utility and tokenizer imports, a
framework-free C++ evaluator, gradient clipping, NMS from a library, interpolate(antialias=True) and
`.item()` as a loop bound in forward."""

import textwrap

from advisor.scan import scan_path


def _write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def _kinds(result, kind):
    return [(h.file, h.line) for h in result.hazards if h.kind == kind]


def test_a_setup_py_building_no_extension_is_no_custom_operator(tmp_path):
    """mmyolo's setup.py: BuildExtension as the build command, `ext_modules=[]`, and no native source."""
    _write(
        tmp_path,
        {
            "setup.py": """
            from setuptools import find_packages, setup
            from torch.utils.cpp_extension import BuildExtension

            setup(
                name='pkg',
                packages=find_packages(),
                ext_modules=[],
                cmdclass={'build_ext': BuildExtension},
                zip_safe=False)
            """,
            "pkg/model.py": "import torch\nx = torch.zeros(3)\n",
        },
    )
    result = scan_path(tmp_path)
    assert not _kinds(result, "custom_extension")
    assert result.risk != "high"


def test_downloading_an_input_image_is_no_model_hub(tmp_path):
    """mmyolo's utils/misc.py get_file_list: a URL given as the demo's input is fetched to a local file."""
    _write(
        tmp_path,
        {
            "pkg/misc.py": """
            import os
            import urllib
            import torch

            def get_file_list(source_root):
                filename = os.path.basename(urllib.parse.unquote(source_root).split('?')[0])
                file_save_path = os.path.join(os.getcwd(), filename)
                torch.hub.download_url_to_file(source_root, file_save_path)
                return [file_save_path]
            """
        },
    )
    result = scan_path(tmp_path)
    assert not _kinds(result, "model_hub")
    parity = [i.item for i in result.effort_breakdown.items]
    assert "checkpoint/weight conversion" not in parity


def test_hub_utilities_and_tokenizers_are_no_model_hub(tmp_path):
    """Hub downloads, tokenizers, configs and schedulers are library pieces: only a model import is a hub
    model (AnimateDiff's pipeline and utils, litgpt's download script)."""
    _write(
        tmp_path,
        {
            "pkg/util.py": """
            import torch
            from huggingface_hub import snapshot_download, hf_hub_download
            from transformers import CLIPTokenizer, AutoConfig
            from diffusers import DDIMScheduler
            from diffusers.utils import is_xformers_available, logging
            from diffusers.configuration_utils import ConfigMixin
            import transformers

            logger = transformers.logging.get_logger(__name__)
            x = torch.zeros(3)
            """,
            "pkg/pipe.py": """
            import torch
            from transformers import CLIPTextModel
            from diffusers import AutoencoderKL
            """,
        },
    )
    result = scan_path(tmp_path)
    assert _kinds(result, "model_hub") == [("pkg/pipe.py", 2), ("pkg/pipe.py", 3)]


def test_a_framework_free_cpp_evaluator_is_not_a_device_kernel(tmp_path):
    """detectron2's layout: vision.cpp (torch binding) registers the ops; COCOeval is host C++ on arrays
    behind pybind11 in cocoeval/ (no torch, no CUDA): its binding is rebuilt, nothing is ported."""
    _write(
        tmp_path,
        {
            "csrc/vision.cpp": """
            #include <torch/extension.h>
            #include "cocoeval/cocoeval.h"
            at::Tensor nms_rotated(const at::Tensor& dets, const at::Tensor& scores, double iou);
            PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
              m.def("nms_rotated", &nms_rotated, "NMS for rotated boxes");
              m.def("COCOevalAccumulate", &COCOeval::Accumulate, "COCOeval::Accumulate");
              m.def("COCOevalEvaluateImages", &COCOeval::EvaluateImages, "COCOeval::EvaluateImages");
            }
            """,
            "csrc/cocoeval/cocoeval.h": """
            #pragma once
            #include <pybind11/numpy.h>
            #include <pybind11/pybind11.h>
            #include <vector>
            namespace py = pybind11;
            namespace COCOeval {
            py::dict Accumulate(const py::object& params, const std::vector<int>& evals);
            }
            """,
            "csrc/cocoeval/cocoeval.cpp": '#include "cocoeval.h"\n#include <algorithm>\n',
            "csrc/nms_rotated/nms_rotated_cuda.cu": "#include <ATen/ATen.h>\n__global__ void nms_rotated_kernel(float* b) {}\n",
            "model.py": "import torch\nx = torch.zeros(3)\n",
        },
    )
    result = scan_path(tmp_path)
    ops = {h.api for h in result.hazards if h.kind == "custom_extension" and (h.api or "").startswith("native op")}
    assert ops == {"native op nms_rotated forward"}
    assert any("framework-free C++ (COCOeval" in w for w in result.not_migration_work)


def test_gradient_clipping_is_not_an_in_place_op(tmp_path):
    _write(
        tmp_path,
        {
            "train.py": """
            import torch

            def step(model, loss, opt, fabric):
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                fabric.clip_grad_norm_(model, opt, max_norm=1.0)
                opt.step()
            """
        },
    )
    result = scan_path(tmp_path)
    assert not _kinds(result, "inplace_op")
    assert any(a.name == "torch.nn.utils.clip_grad_norm_" for a in [*result.apis, *result.unmapped])


def test_non_maximum_suppression_from_a_library_is_a_data_dependent_shape(tmp_path):
    """mmyolo's heads take batched_nms from mmcv.ops; YOLO code calls torchvision.ops.boxes.batched_nms."""
    _write(
        tmp_path,
        {
            "heads.py": """
            import torch
            import torchvision
            from mmcv.ops import batched_nms

            def predict(bboxes, scores, labels, nms_cfg):
                det_bboxes, keep_idxs = batched_nms(bboxes, scores, labels, nms_cfg)
                keep = torchvision.ops.boxes.batched_nms(bboxes, scores, labels, 0.5)
                return det_bboxes, keep
            """
        },
    )
    result = scan_path(tmp_path)
    assert _kinds(result, "dynamic_shape") == [("heads.py", 6), ("heads.py", 7)]


def test_interpolate_with_antialias_is_found(tmp_path):
    _write(
        tmp_path,
        {
            "prep.py": """
            import torch.nn.functional as F

            def resize(image, size):
                small = F.interpolate(image, size=size, mode="bilinear", align_corners=False, antialias=True)
                same = F.interpolate(image, size=size, mode="bilinear", antialias=False)
                return small, same
            """
        },
    )
    result = scan_path(tmp_path)
    assert _kinds(result, "missing_option") == [("prep.py", 4)]
    summary = next(s for s in result.hazard_summary if s.kind == "missing_option")
    assert summary.effort_hours[1] > 0 and "antialias" in summary.example.before


def test_an_item_as_a_range_bound_in_forward_is_found(tmp_path):
    """A decoder's forward takes its loop count out of a tensor (`lengths.max().item()`) through a local
    whose name says length: still tensor data, a Graph-mode break."""
    _write(
        tmp_path,
        {
            "decoder.py": """
            import torch
            from torch import nn

            class Decoder(nn.Module):
                def forward(self, x, lengths):
                    max_len = lengths.max().item()
                    outs = []
                    for t in range(max_len):
                        outs.append(x[:, t])
                    steps = int(lengths.sum())
                    for t in range(steps):
                        pass
                    return torch.stack(outs)
            """
        },
    )
    result = scan_path(tmp_path)
    assert _kinds(result, "tensor_control_flow") == [("decoder.py", 8)]
