"""The task a project's models are judged on, from its own evidence (imports and the APIs it calls), and
the verification that task needs after a port: a ported detector is done when its mAP matches, not when
one forward pass does. Output parity (same input, same output) is priced per architecture in
advisor/scan/__init__.py; this is the task-metric check on top of it: run the task's evaluation on the
ported model (converted weights, or a short training run) and chase the differences, which live in the
post-processing (NMS, mask pasting, decoding loops) that output parity on one batch does not reach.

A task is named only on evidence; a project with none (a CIFAR trainer, a tutorial) gets no task item.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    name: str
    metric: str
    hours: tuple[float, float]  # the first architecture: evaluation harness on the port + chasing the gap
    modules: tuple[str, ...]  # imported module prefixes that show the task
    apis: tuple[str, ...]  # qualified API prefixes that show it


# Hours are assumptions (the engineer's estimates in benchmarks/scan_calibration.md count 1-2 weeks for
# "weight conversion and mAP parity on COCO" on a detector; WER parity on two model sizes 3-5 days; FID
# with converted InceptionV3 weights 3-5 days; a fine-tuning loss curve and generations 2-4 days).
TASKS = (
    Task(
        "detection/segmentation",
        "mAP / PQ / mIoU on the task's benchmark (COCO-style evaluation)",
        (16.0, 40.0),
        # pycocotools.coco alone is the COCO dataset (captioning uses it too); its evaluator is the task
        ("pycocotools.cocoeval", "lvis", "panopticapi", "cityscapesscripts", "detectron2", "mmdet", "mmseg"),
        ("torchvision.ops.nms", "torchvision.ops.batched_nms", "torchvision.ops.roi_align", "torchvision.ops.box_iou"),
    ),
    Task(
        "speech recognition",
        "WER on a held-out speech set",
        (8.0, 24.0),
        ("torchaudio", "jiwer", "librosa", "soundfile"),
        ("torch.stft",),
    ),
    Task(
        "image generation",
        "FID (InceptionV3 features) against the PyTorch samples",
        (8.0, 24.0),
        ("pytorch_fid", "cleanfid", "torch_fidelity", "diffusers"),
        ("torchmetrics.image.fid",),
    ),
    Task(
        "LLM fine-tuning",
        "fine-tuning loss curve and evaluation/generations against the PyTorch run",
        (16.0, 32.0),
        ("peft", "trl"),
        (),
    ),
)
# Each further architecture evaluated on the same task reuses the harness: max(1/k, TASK_FLOOR) of the
# first. Assumption: every architecture is still evaluated (its own post-processing, its own numbers).
TASK_FLOOR = 0.25


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def tasks_of(modules: set[str], apis: set[str]) -> list[tuple[Task, str]]:
    """(task, the evidence) for each task the project shows (imported modules, called APIs), in TASKS order."""
    out = []
    for task in TASKS:
        by_module = sorted(m for m in modules if _under(m, task.modules))
        by_api = sorted(a for a in apis if _under(a, task.apis))
        if by_module or by_api:
            said = [f"imports {m}" for m in by_module[:2]] + [f"calls {a}" for a in by_api[:2]]
            out.append((task, ", ".join(said)))
    return out
