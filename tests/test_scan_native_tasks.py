"""Native operators counted as the engineer counts them (one per op a binding
registers, its backward a second kernel), the task metric each architecture is verified on, and
training loops that live in a library (HF Trainer)."""

from pathlib import Path

import pytest

import knowledge
from advisor.scan import files, native, scan_path
from advisor.scan.estimate import pitfalls_for
from advisor.scan.tasks import TASK_FLOOR, TASKS, Evidence, tasks_of

# detectron2's vision.cpp shape: pybind11 and TORCH_LIBRARY registrations, version helpers, a C++
# evaluator bound through its class's methods, a class-method chain that is not an op.
BINDING = """#include <torch/extension.h>
std::string get_cuda_version();
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("get_compiler_version", &get_compiler_version, "v");
  m.def("has_cuda", &has_cuda, "has_cuda");
  m.def("deform_conv_forward", &deform_conv_forward, "f");
  m.def(
      "deform_conv_backward_input",
      &deform_conv_backward_input,
      "b");
  m.def("deform_conv_backward_filter", &deform_conv_backward_filter, "b");
  m.def("COCOevalAccumulate", &COCOeval::Accumulate, "a");
  m.def("COCOevalEvaluateImages", &COCOeval::EvaluateImages, "e");
  pybind11::class_<COCOeval::ImageEvaluation>(m, "ImageEvaluation")
      .def(pybind11::init<>());
}
TORCH_LIBRARY(detectron2, m) {
  m.def("nms_rotated", &nms_rotated);
}
"""
KERNEL = "#include <ATen/ATen.h>\n__global__ void k(float *x) {}\n__global__ void k2(float *x) {}\n"
NET = "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n" + "".join(
    f"    def f{i}(self, x):\n        return torch.relu(x)\n" for i in range(30)
)


def _write(root: Path, tree: dict[str, str]) -> Path:
    for rel, text in tree.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def _item(result, name):
    return next((i for i in result.effort_breakdown.items if i.item == name), None)


def test_registered_ops_group_forward_backward_and_class_methods(tmp_path):
    _write(tmp_path, {"csrc/vision.cpp": BINDING})
    _, found = files.collect(tmp_path)
    ops = {op.name: op for op in native.registered_ops(found.native)}
    assert set(ops) == {"deform_conv", "COCOeval", "nms_rotated"}  # no version helpers, no .def chain
    assert ops["deform_conv"].backward and ops["deform_conv"].entries == [
        "deform_conv_forward",
        "deform_conv_backward_input",
        "deform_conv_backward_filter",
    ]
    assert not ops["COCOeval"].backward and not ops["nms_rotated"].backward
    assert ops["deform_conv"].line == 6  # the first registration's line, where the finding points


def test_registered_ops_are_priced_per_kernel_and_the_sources_are_their_glue(tmp_path):
    """3 ops, one with a backward: 4 kernels in full; the 5 sources with 2 kernels each only add increments."""
    tree = {"csrc/vision.cpp": BINDING, "model.py": NET}
    tree.update({f"csrc/op{i}/op{i}_cuda.cu": KERNEL for i in range(5)})
    result = scan_path(_write(tmp_path, tree))
    base = pitfalls_for("custom_extension", knowledge.load())[0].effort_hours
    places = [h for h in result.hazards if h.kind == "custom_extension"]
    named = [h for h in places if h.message.startswith("custom operator `")]
    assert len(named) == 4
    assert any("`deform_conv` (forward + backward), backward kernel" in h.message for h in named)
    assert all("ops.Custom" in h.message and "Ascend C" in h.message for h in named)
    glue = len(places) - len(named)
    assert glue >= 10  # 5 sources x 2 kernels (+ the binding's own finding)
    scale = 4 + min(0.05 * glue, 1.0)  # the glue is one feature of repeats, saturating at one kernel
    hours = _item(result, "hazard custom_extension").effort_hours
    assert hours == pytest.approx((base.low * scale, base.high * scale), abs=0.05)


def test_without_registrations_the_folder_rule_still_counts_operators(tmp_path):
    tree = {"model.py": NET, "csrc/a/a_cuda.cu": KERNEL, "csrc/b/b_cuda.cu": KERNEL}
    result = scan_path(_write(tmp_path, tree))
    base = pitfalls_for("custom_extension", knowledge.load())[0].effort_hours
    lo, _ = _item(result, "hazard custom_extension").effort_hours
    assert 2 * base.low <= lo < 3 * base.low


def _ev(modules=(), apis=(), tokens=()):
    return Evidence(set(modules), set(apis), "\n".join(tokens))


@pytest.mark.parametrize(
    ("evidence", "expected"),
    [
        ({"eval.py": _ev({"pycocotools.cocoeval"}, tokens=["cocoeval"])}, ["detection/segmentation"]),
        ({"data.py": _ev({"pycocotools.coco"}, tokens=["coco"])}, []),  # the COCO dataset alone (captioning)
        (
            {"post.py": _ev(apis={"torchvision.ops.batched_nms", "torchvision.ops.box_iou"})},
            ["detection/segmentation"],
        ),
        ({"asr.py": _ev({"torchaudio"}, tokens=["whisper", "transcribe"])}, ["speech recognition"]),
        ({"fid.py": _ev({"pytorch_fid.inception"}, tokens=["fid_score"])}, ["image generation"]),
        (
            {"ft.py": _ev({"peft"}, {"transformers.Trainer"}, ["llamaforcausallm", "loraconfig"])},
            ["LLM fine-tuning"],
        ),
        ({"x.py": _ev({"pycocotools_extra", "numpy"}, {"torch.stftx"})}, []),  # prefixes match whole names only
        # round 5: one import is never a task; audio is not speech recognition; LoRA on a UNet is no LLM
        ({"loaders.py": _ev({"peft"})}, []),
        ({"audio.py": _ev({"librosa", "torchaudio"}, {"torch.stft"})}, []),
        (
            {"unet.py": _ev({"peft"}, tokens=["loraattnprocessor", "unet2dconditionmodel", "ddpmscheduler"])},
            ["image generation"],
        ),
    ],
)
def test_tasks_are_named_on_the_projects_own_evidence(evidence, expected):
    assert [t.name for t, _, _ in tasks_of(evidence)] == expected


def test_task_metric_is_priced_on_the_architectures_that_show_it(tmp_path):
    """Two detection heads (their own names show the task) and one generic net: two architectures are
    evaluated on mAP, the harness reused; a project whose architectures show nothing is evaluated once."""
    tree = {
        "models/yolo_head.py": NET.replace("Net", "YOLOHead"),
        "models/retinanet.py": NET.replace("Net", "RetinaNet"),
        "models/plain.py": NET.replace("Net", "Plain"),
        "eval.py": "import torch\nfrom pycocotools.cocoeval import COCOeval\nCOCOeval(None, None)\n",
    }
    result = scan_path(_write(tmp_path, tree))
    task = next(t for t in TASKS if t.name == "detection/segmentation")
    item = _item(result, "task metric verification (detection/segmentation)")
    share = 1 + max(1 / 2, TASK_FLOOR)
    assert item.effort_hours == pytest.approx((task.hours[0] * share, task.hours[1] * share), abs=0.02)
    assert "imports pycocotools.cocoeval" in item.basis
    # without the heads' names the evaluator alone still shows the task (an import and its name): once
    (tmp_path / "models/yolo_head.py").rename(tmp_path / "models/a.py")
    (tmp_path / "models/retinanet.py").rename(tmp_path / "models/b.py")
    (tmp_path / "models/a.py").write_text(NET)
    (tmp_path / "models/b.py").write_text(NET.replace("Net", "Other"))
    item = _item(scan_path(tmp_path), "task metric verification (detection/segmentation)")
    assert item.effort_hours == pytest.approx(task.hours, abs=0.02)


def test_hf_trainer_fine_tuning_is_training_not_inference(tmp_path):
    """alpaca-lora's shape: no optimizer of its own, the loop is transformers.Trainer; the model comes from
    the hub, so the task is checked once even without an architecture in the project."""
    _write(
        tmp_path,
        {
            "finetune.py": (
                "import torch\nimport transformers\nfrom peft import get_peft_model\n"
                "from transformers import LlamaForCausalLM\n"
                "model = get_peft_model(LlamaForCausalLM.from_pretrained('x'), None)\n"
                "trainer = transformers.Trainer(model=model)\ntrainer.train()\n"
            )
        },
    )
    result = scan_path(tmp_path)
    assert result.route != "ONNX -> MindIR conversion"
    assert "inference only" not in result.route_why
    task = next(t for t in TASKS if t.name == "LLM fine-tuning")
    item = _item(result, "task metric verification (LLM fine-tuning)")
    assert item.effort_hours == pytest.approx(task.hours, abs=0.01)


def test_a_library_the_project_is_built_on_is_priced_per_distinct_name(tmp_path):
    """Mask2Former on detectron2: each distinct name taken from a library with no counterpart is a piece
    to re-implement (the k-th max(1/k, NAME_FLOOR) of the first); repeats and lazy imports add nothing."""
    from advisor.scan import libraries

    names = ["get_cfg", "DatasetCatalog", "MetadataCatalog", "Boxes", "ImageList"]
    code = (
        "import torch\nimport detectron2.data as d2data\n"
        "from detectron2.config import get_cfg\nfrom detectron2.structures import Boxes, ImageList\n"
        "cfg = get_cfg()\nd2data.DatasetCatalog.get('x')\nd2data.MetadataCatalog.get('x')\nd2data.DatasetCatalog.list()\n"
        "def later():\n    from detectron2.engine import DefaultTrainer\n    return DefaultTrainer\n"
        "x = torch.zeros(1)\n"
    )
    _write(tmp_path, {"train.py": code, "more.py": "import torch\nfrom detectron2.structures import Boxes\n"})
    result = scan_path(tmp_path)
    lib = libraries.LIBRARIES["detectron2"]
    per = libraries.PER_NAME[lib.mapping]
    share = sum(max(1 / k, libraries.NAME_FLOOR) if k > 1 else 1.0 for k in range(1, len(names) + 1))
    item = _item(result, "library detectron2")
    expected = (lib.effort[0] + per[0] * share, lib.effort[1] + per[1] * share)
    assert item.effort_hours == pytest.approx(expected, abs=0.02)
    assert f"per distinct name used from detectron2 ({len(names)};" in item.basis


def test_each_training_program_gets_one_convergence_check(tmp_path):
    """A tutorial collection's shape: two scripts with a training loop at module level and one with a
    `__main__` guard are programs; a module that only defines a train step is not."""
    from advisor.scan import effort

    loop = "import torch\nopt = torch.optim.SGD([], lr=0.1)\nfor step in range(3):\n    opt.step()\n"
    guarded = "import torch\n\ndef main():\n    torch.optim.SGD([], lr=0.1).step()\n\nif __name__ == '__main__':\n    main()\n"
    library = "import torch\n\ndef train_step(opt):\n    opt.step()\n    return torch.optim.SGD\n"
    _write(tmp_path, {"a/main.py": loop, "b/main.py": loop, "train.py": guarded, "engine.py": library})
    item = _item(scan_path(tmp_path), "training convergence check")
    floor = effort.FLOOR["training_run"]
    share = 1 + max(1 / 2, floor) + max(1 / 3, floor)
    lo, hi = effort.TRAINING_RUN_HOURS
    assert item.effort_hours == pytest.approx((lo * share, hi * share), abs=0.02)
    assert item.count == 3  # the three programs, not engine.py
