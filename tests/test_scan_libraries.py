"""What a project imports: every third-party library is priced, framework-free, or listed by name as not
understood (never silently free); the runtimes a project stands on (OpenMMLab, Lightning, the HF Trainer)
are priced as the runtime a port replaces, not name by name."""

import textwrap

import pytest

from advisor.render.tables.scan import ScanText
from advisor.scan import libraries, scan_path


def _write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def _item(result, name):
    return next(i for i in result.effort_breakdown.items if i.item == name)


def test_an_unknown_library_is_listed_and_counted_as_not_understood(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/model.py": """
            import json
            import numpy as np
            import torch
            import somelib_nobody_knows
            from somelib_nobody_knows.ops import fused
            import helpers  # a sibling module, imported by bare name
            import MultiScaleDeformableAttention as MSDA  # the extension the project's setup.py compiles
            x = torch.zeros(3)
            """,
            "pkg/helpers.py": "x = 1\n",
            "setup.py": "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('MultiScaleDeformableAttention', ['a.cu'])\n",
        },
    )
    result = scan_path(tmp_path)
    assert [(u.name, u.files, u.uses) for u in result.unknown_libraries] == [("somelib_nobody_knows", 1, 2)]
    assert any(r.startswith("medium: not understood: 1 third-party librar") for r in result.risk_reasons)
    assert "somelib_nobody_knows (1 file(s))" in " ".join(result.risk_reasons)
    assert result.model_dump()["unknown_libraries"][0]["name"] == "somelib_nobody_knows"
    assert "somelib_nobody_knows in 1 file(s)" in ScanText(width=200).format(result)


def test_a_lazy_unknown_import_is_listed_but_does_not_raise_the_risk(tmp_path):
    _write(tmp_path, {"m.py": "import torch\n\ndef f():\n    import somelib_nobody_knows\n"})
    result = scan_path(tmp_path)
    assert result.unknown_libraries[0].optional
    assert not any("not understood" in r for r in result.risk_reasons)


@pytest.mark.parametrize(
    "root", ["einx", "torch_einops_utils", "lion_pytorch", "thunder", "torch_xla", "litdata", "lm_eval"]
)
def test_the_libraries_round_5_found_silent_are_known_and_priced(tmp_path, root):
    _write(tmp_path, {"m.py": f"import torch\nimport {root}\nx = {root}.something(torch.zeros(2))\n"})
    result = scan_path(tmp_path)
    assert not result.unknown_libraries
    dep = next(d for d in result.dependencies if d.name == root)
    assert dep.effort_hours[1] > 0, dep


OPENMMLAB = {
    "pkg/registry.py": """
    from mmengine.registry import MODELS as MMENGINE_MODELS
    from mmengine.registry import Registry
    MODELS = Registry('model', parent=MMENGINE_MODELS)
    """,
    "pkg/heads/yolo_head.py": """
    import torch
    from mmdet.models.dense_heads.base_dense_head import BaseDenseHead
    from mmdet.structures import SampleList
    from mmengine.model import BaseModule
    from mmcv.cnn import ConvModule

    class YOLOHead(BaseDenseHead):
        def forward(self, x):
            return torch.sigmoid(x)
    """,
    "pkg/backbone.py": """
    import torch
    from mmcv.cnn import ConvModule
    from mmengine.model import BaseModule

    class Darknet(BaseModule):
        def forward(self, x):
            return x
    """,
}


def test_an_openmmlab_project_is_priced_as_the_runtime_a_port_replaces(tmp_path):
    _write(tmp_path, OPENMMLAB)
    result = scan_path(tmp_path)
    stack = libraries.STACKS["OpenMMLab"]
    item = _item(result, "stack OpenMMLab")
    files = 3  # the three files import the stack outside a function
    assert item.count == files
    names = {
        "mmengine.registry.MODELS",
        "mmengine.registry.Registry",
        "mmengine.model.BaseModule",
        "mmdet.models.dense_heads.base_dense_head.BaseDenseHead",
        "mmdet.structures.SampleList",
        "mmcv.cnn.ConvModule",
    }
    assert item.effort_hours[0] >= stack.runtime[0] + files * stack.per_file[0] + len(names) * 0.25
    assert "replacing the runtime" in item.basis and "mindyolo" in item.basis
    by_lib = {d.name: d for d in result.dependencies}
    for lib in ("mmengine", "mmdet", "mmcv"):
        assert by_lib[lib].effort_hours == (0.0, 0.0)
        assert by_lib[lib].effort_basis.startswith("priced in the OpenMMLab stack")
    assert not any(i.item.startswith("library mm") for i in result.effort_breakdown.items)


def test_lightning_fabric_scripts_are_priced_per_script(tmp_path):
    script = """
    import lightning as L
    import torch
    from lightning.fabric.strategies import FSDPStrategy

    def main():
        fabric = L.Fabric(strategy=FSDPStrategy(), precision="bf16-true")
        fabric.launch()
        model = fabric.setup(torch.nn.Linear(2, 2))
        fabric.save("ckpt", {"model": model})

    if __name__ == "__main__":
        main()
    """
    _write(tmp_path, {"pkg/pretrain.py": script, "pkg/finetune.py": script, "pkg/util.py": "import torch\n"})
    result = scan_path(tmp_path)
    stack = libraries.STACKS["Lightning"]
    item = _item(result, "stack Lightning")
    assert item.count == 2
    assert item.effort_hours[0] >= stack.runtime[0] + 2 * stack.per_file[0]


def test_the_hf_trainer_is_a_runtime_inside_transformers(tmp_path):
    _write(
        tmp_path,
        {
            "finetune.py": """
            import torch
            import transformers
            from transformers import AutoModelForCausalLM, AutoTokenizer

            model = AutoModelForCausalLM.from_pretrained("base")
            trainer = transformers.Trainer(model=model, args=transformers.TrainingArguments(output_dir="o"))
            trainer.train()
            """
        },
    )
    result = scan_path(tmp_path)
    item = _item(result, "stack HF Trainer")
    assert item.count == 1 and "mindnlp's Trainer" in item.basis
