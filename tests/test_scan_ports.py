"""Existing MindSpore ports offered with their coverage: which of the project's model families the port
has and which it lacks, named only on the project's own evidence (its classes, imports, model ids, files)."""

import textwrap

from advisor.render.tables.scan import ScanText
from advisor.scan import scan_path


def _write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def _offer(result, port):
    return next((o for o in result.ports if o.port == port), None)


def test_a_diffusers_project_is_offered_mindone(tmp_path):
    """AnimateDiff's shape: its own UNet3D on diffusers' base classes, SD 1.5 parts from diffusers."""
    _write(
        tmp_path,
        {
            "animatediff/models/unet.py": """
            import torch
            from diffusers.modeling_utils import ModelMixin
            from diffusers.models import UNet2DConditionModel

            class UNet3DConditionModel(ModelMixin):
                def forward(self, x):
                    return x
            """,
            "animatediff/pipelines/pipeline_animation.py": """
            import torch
            from diffusers import AutoencoderKL, DDIMScheduler
            from transformers import CLIPTextModel
            """,
        },
    )
    result = scan_path(tmp_path)
    mindone = _offer(result, "mindone")
    assert mindone.covered == ["animatediff", "stable diffusion"] and mindone.missing == []
    assert mindone.files == 2
    assert any("mindone" in a and "animatediff" in a for a in result.route_alternatives)
    assert "mindone (diffusers), 2 file(s)" in ScanText(width=120).format(result)


def test_an_llm_library_is_offered_mindspore_transformers_with_what_it_lacks(tmp_path):
    """litgpt's shape: its own GPT, configured by name for several families."""
    _write(
        tmp_path,
        {
            "lib/config.py": """
            import torch
            configs = [
                dict(name="Llama-2-7b-hf", hf_config=dict(org="meta-llama", name="Llama-2-7b-hf")),
                dict(name="Qwen2.5-7B", hf_config=dict(org="Qwen", name="Qwen2.5-7B")),
                dict(name="gemma-2b", hf_config=dict(org="google", name="gemma-2b")),
            ]
            """,
            "lib/model.py": "import torch\nfrom torch import nn\n\nclass GPT(nn.Module):\n    pass\n",
        },
    )
    offer = _offer(scan_path(tmp_path), "MindSpore Transformers")
    assert offer.covered == ["llama", "qwen"] and offer.missing == ["gemma"]


def test_a_yolo_project_is_offered_mindyolo_and_its_missing_families_are_named(tmp_path):
    _write(
        tmp_path,
        {
            "det/heads/yolov5_head.py": "import torch\nfrom torch import nn\n\nclass YOLOv5Head(nn.Module):\n    pass\n",
            "det/heads/rtmdet_head.py": "import torch\nfrom torch import nn\n\nclass RTMDetHead(nn.Module):\n    pass\n",
        },
    )
    offer = _offer(scan_path(tmp_path), "mindyolo")
    assert offer.covered == ["yolov5"] and offer.missing == ["rtmdet"]


def test_a_block_named_like_a_family_offers_nothing(tmp_path):
    """A diffusion UNet's ResnetBlock3D is no ResNet classifier; `eval` is no EVA."""
    _write(
        tmp_path,
        {
            "unet.py": """
            import torch
            from torch import nn

            class ResnetBlock3D(nn.Module):
                def forward(self, x):
                    return x

            mode = "eval"
            """
        },
    )
    assert scan_path(tmp_path).ports == []
