"""The task a project's models are judged on, from the project's own evidence, and the verification that
task needs after a port: a ported detector is done when its mAP matches, not when one forward pass does.
Output parity (same input, same output) is priced per architecture in advisor/scan/pricing.py; this is the
task-metric check on top of it: run the task's evaluation on the ported model (converted weights, or a
short training run) and chase the differences, which live in the post-processing (NMS, mask pasting,
decoding loops) that output parity on one batch does not reach.

A task is named only on the project's evidence, never on one import: its libraries, the APIs it calls, and
its own names (the classes it defines, its model ids and config strings, its file names). At least two
pieces are needed, one of them the project's own (a call, a name); a task that also requires a kind of
model (an LLM for LLM fine-tuning) needs that too. It is priced on each architecture whose own file, or a
project file that file imports, shows it; when none does, once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Task:
    name: str
    metric: str
    hours: tuple[float, float]  # the first architecture: evaluation harness on the port + chasing the gap
    modules: tuple[str, ...]  # imported module prefixes that show the task (one piece each, never enough alone)
    apis: tuple[str, ...]  # qualified API prefixes whose calls show it
    names: str  # pattern on the project's own tokens (lower case: classes, strings, file names)
    requires: str = ""  # a pattern the project's tokens must also show (the kind of model the task is on)


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
        (
            "torchvision.ops.nms",
            "torchvision.ops.batched_nms",
            "torchvision.ops.boxes",
            "torchvision.ops.roi_align",
            "torchvision.ops.box_iou",
            "torchvision.ops.MultiScaleRoIAlign",
        ),
        r"detector|yolo|rcnn|retinanet|fcos|rtmdet|^ssd|nms|anchor|bbox_head|roi_?head|mask_?former|panoptic|"
        r"semantic_?seg|instance_?seg|segment|deeplab|cocoeval|mean_?ap",
    ),
    Task(
        "speech recognition",
        "WER on a held-out speech set",
        (8.0, 24.0),
        # audio input libraries show audio, not recognition: they count once a recognition name is there too
        ("torchaudio", "jiwer", "librosa", "soundfile"),
        # torch.stft is audio, not recognition (a vocoder, an audio-conditioned generator use it too)
        ("torch.nn.CTCLoss", "torch.nn.functional.ctc_loss", "torchaudio.models.decoder"),
        r"\basr|speech_?recog|whisper|wav2vec|hubert|conformer|ctc|transcri|word_?error|\bwer\b|jiwer",
    ),
    Task(
        "image generation",
        "FID (InceptionV3 features) against the PyTorch samples",
        (8.0, 24.0),
        ("pytorch_fid", "cleanfid", "torch_fidelity", "diffusers"),
        ("torchmetrics.image.fid",),
        r"diffusion|ddpm|ddim|unet_?[23]d|autoencoderkl|vqgan|stylegan|animatediff|text2img|img2img|"
        r"noise_?schedul|denois|fid_?score|frechet",
    ),
    Task(
        "LLM fine-tuning",
        "fine-tuning loss curve and evaluation/generations against the PyTorch run",
        (16.0, 32.0),
        ("peft", "trl"),
        (),
        r"lora|peft|adapter|finetun|fine_tun|\bsft|dpo\b|instruction_?tun|alpaca",
        requires=r"causallm|for_?causal|gpt|llama|qwen|mistral|mixtral|gemma|phi[-_]?\d|falcon|pythia|olmo|"
        r"language_?model",
    ),
)
# Each further architecture evaluated on the same task reuses the harness: max(1/k, TASK_FLOOR) of the
# first. Assumption: every architecture is still evaluated (its own post-processing, its own numbers).
TASK_FLOOR = 0.25


@dataclass
class Evidence:
    """One file's evidence: the modules it imports, the APIs it calls, its own tokens (one a line)."""

    modules: set[str] = field(default_factory=set)
    apis: set[str] = field(default_factory=set)
    tokens: str = ""


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


_COMPILED: dict[str, re.Pattern[str]] = {}


def _rx(pattern: str) -> re.Pattern[str]:
    if pattern not in _COMPILED:
        _COMPILED[pattern] = re.compile(pattern, re.M)
    return _COMPILED[pattern]


def pieces(task: Task, ev: Evidence) -> list[str]:
    """What in one file shows the task, as words ('imports peft', 'calls torch.stft', 'names lora_r')."""
    out = [f"imports {m}" for m in sorted(ev.modules) if _under(m, task.modules)][:2]
    out += [f"calls {a}" for a in sorted(ev.apis) if _under(a, task.apis)][:2]
    rx = _rx(task.names)
    named = [line for line in ev.tokens.split("\n") if rx.search(line)]
    out += [f"names {line}" for line in named[:3]]
    return out


def tasks_of(evidence: dict[str, Evidence]) -> list[tuple[Task, str, set[str]]]:
    """(task, the evidence in words, the files that show it) for each task the project shows, in TASKS order."""
    out = []
    everything = "\n".join(ev.tokens for ev in evidence.values())
    for task in TASKS:
        found = {rel: pieces(task, ev) for rel, ev in evidence.items()}
        found = {rel: p for rel, p in found.items() if p}
        said = sorted({piece for p in found.values() for piece in p})
        own = [piece for piece in said if not piece.startswith("imports ")]
        if not (own and len(said) >= 2) or task.requires and not _rx(task.requires).search(everything):
            continue
        out.append((task, ", ".join(said[:4]) + (f" and {len(said) - 4} more" if len(said) > 4 else ""), set(found)))
    return out
