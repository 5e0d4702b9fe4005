"""The third-party libraries the scan knows: what each is on the MindSpore side (a counterpart that is
the same, one that differs, none), what using it costs, and the runtimes ("stacks") a project stands on,
priced as the runtime a port replaces rather than name by name. Libraries that hold no framework code
move as they are; anything else a project imports is listed as not understood, never silently free.

Hours are assumptions, each saying what it is anchored on; the projects they were checked on are in
benchmarks/scan_calibration.md.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Optional

Hours = tuple[float, float]


@dataclass(frozen=True)
class Library:
    mindspore: Optional[str]
    mapping: str  # same | differs | none
    note: str
    effort: Hours  # per library used (swap + check), on top of the code that calls it
    per_use: Hours = (0.0, 0.0)  # priced by usage: each call of the library's functions
    stack: str = ""  # the runtime it belongs to (STACKS): priced as that runtime, not on its own


@dataclass(frozen=True)
class Stack:
    """A runtime a project stands on (its runner, trainer or launcher, hooks, config and checkpoints): a port
    replaces it once, adapts every file built on it, and re-implements or swaps each piece it takes."""

    roots: tuple[str, ...]  # import roots that belong to it
    runtime: Hours  # replacing the runtime once: train loop or runner, launch, checkpoints, logging, config
    per_file: Hours  # each included file built on it (imports it outside a function)
    counterpart: str  # the ported counterpart, where one exists
    basis: str  # what the figures are anchored on
    names: tuple[str, ...] = ()  # qualified name prefixes that belong to it inside a larger library


_NO = (4.0, 16.0)  # re-implementing what the code used from a library with no counterpart (assumption)
_SWAP = (1.0, 4.0)  # swapping to the MindSpore-side library and checking outputs (assumption)
# Features, not places, for the libraries a project is built on: each distinct name it takes from one
# (a class, a function, a submodule's member) is one piece to re-implement (no counterpart) or to swap
# and check (a counterpart that differs); the k-th costs max(1/k, NAME_FLOOR) of the first (the pieces
# of one library share its idioms). Hours per name, by mapping; assumptions, checked in
# benchmarks/scan_calibration.md round 4 (Mask2Former on detectron2, alpaca-lora on transformers/peft).
PER_NAME = {"none": (1.0, 4.0), "differs": (0.25, 1.0), "same": (0.0, 0.0)}
NAME_FLOOR = 0.25
_ROUND5 = "assumption anchored on the engineer's estimates of benchmarks/scan_calibration.md round 5"
# Runtimes priced as runtimes (round 5: an OpenMMLab project priced name by name came out 0.42x, where
# replacing the stack is most of the port; Lightning Fabric's ~460 uses were 17-68 h).
STACKS: dict[str, Stack] = {
    "OpenMMLab": Stack(
        (
            "mmengine",
            "mmcv",
            "mmdet",
            "mmseg",
            "mmpose",
            "mmpretrain",
            "mmcls",
            "mmocr",
            "mmrotate",
            "mmdet3d",
            "mmaction",
        ),
        (80.0, 200.0),
        (1.0, 3.0),
        "mindyolo for the YOLO family (its own runner and configs); none for the mmengine runtime",
        "mmengine's Runner, hooks, registry and config builder replaced by a MindSpore train loop and explicit "
        "construction; each registered, config-built file adapted; " + _ROUND5 + " (mmyolo: 3-5 weeks)",
    ),
    "Lightning": Stack(
        ("lightning", "pytorch_lightning", "lightning_fabric", "lightning_utilities"),
        (40.0, 120.0),
        (1.0, 4.0),
        "none: mindspore.train.Model or a hand-written train step, msrun for the launch",
        "Trainer/Fabric (launch, strategies, precision plugins, sharded save/load, callbacks) replaced by a "
        "MindSpore train step; each LightningModule or Fabric script rewritten; " + _ROUND5 + " (litgpt: 3-5 weeks)",
    ),
    "HF Accelerate": Stack(
        ("accelerate",),
        (16.0, 40.0),
        (0.5, 2.0),
        "none: msrun and MindSpore's data parallel mode",
        "Accelerator's launch, device placement, mixed precision and gradient accumulation replaced; "
        "assumption anchored on round 3's denoising-diffusion-pytorch estimate (2-3 days)",
    ),
    "HF Trainer": Stack(
        ("trl",),
        (16.0, 48.0),
        (1.0, 3.0),
        "mindnlp's Trainer (the HF Trainer API) or MindSpore Transformers' Trainer",
        "the Trainer's loop, arguments, callbacks and checkpointing moved to the MindSpore-side trainer and "
        "checked; assumption anchored on round 4's alpaca-lora estimate (2-4 days with the model swap)",
        names=(
            "transformers.Trainer",
            "transformers.Seq2SeqTrainer",
            "transformers.TrainingArguments",
            "transformers.Seq2SeqTrainingArguments",
            "transformers.TrainerCallback",
        ),
    ),
    "DeepSpeed": Stack(
        ("deepspeed",),
        (40.0, 120.0),
        (1.0, 3.0),
        "none: MindSpore's optimizer parallel (ZeRO-like sharding) and pipeline parallel",
        "the engine, ZeRO stages and its config replaced by MindSpore parallel modes and checked for memory "
        "and convergence (assumption)",
    ),
    "Megatron": Stack(
        ("megatron",),
        (160.0, 400.0),
        (2.0, 6.0),
        "MindSpore Transformers (its parallel core follows Megatron's tensor/pipeline/sequence parallelism)",
        "tensor, pipeline and sequence parallel layers, the distributed optimizer and checkpoints re-expressed "
        "with MindSpore's parallel modes (assumption)",
    ),
}

LIBRARIES: dict[str, Library] = {
    "timm": Library(
        "mindcv", "differs", "mindcv has most timm architectures and weights; create_model names differ", _SWAP
    ),
    "transformers": Library(
        "mindnlp", "differs", "MindNLP mirrors the HF transformers API (AutoModel, Trainer) on MindSpore", _SWAP
    ),
    "diffusers": Library(
        "mindone (diffusers port)", "differs", "mindone ports diffusers pipelines to MindSpore", _SWAP
    ),
    "huggingface_hub": Library(
        "mindnlp / huggingface_hub (framework-free)",
        "same",
        "hub downloads are framework-free; the weights need converting",
        (0.5, 2.0),
    ),
    "peft": Library("mindnlp.peft", "differs", "MindNLP ships a PEFT port", _SWAP),
    "accelerate": Library(
        None, "none", "no counterpart: MindSpore's parallel modes and msrun replace it", _NO, stack="HF Accelerate"
    ),
    "lightning": Library(
        None,
        "none",
        "no counterpart: rewrite the LightningModule as a Cell plus a train step (or mindspore.train.Model)",
        _NO,
        stack="Lightning",
    ),
    "pytorch_lightning": Library(
        None,
        "none",
        "no counterpart: rewrite the LightningModule as a Cell plus a train step (or mindspore.train.Model)",
        _NO,
        stack="Lightning",
    ),
    "lightning_utilities": Library(
        None, "none", "Lightning's own helpers: go with the Lightning runtime", (0.0, 0.0), stack="Lightning"
    ),
    "lightning_fabric": Library(
        None,
        "none",
        "no counterpart: Fabric's launch, strategies and plugins become a MindSpore train step",
        _NO,
        stack="Lightning",
    ),
    "einops": Library(
        "einops-free reshape/transpose",
        "differs",
        "einops has no MindSpore backend: a small rearrange/repeat shim over ops.reshape/transpose/tile, "
        "then each call's pattern re-checked (priced by usage)",
        (2.0, 8.0),
        (0.05, 0.25),
    ),
    "ema_pytorch": Library(
        "a hand-written EMA over Cell.parameters_dict() (mindcv has one)",
        "differs",
        "EMA of the weights (and its checkpoint keys): a few dozen lines to re-implement and check",
        (1.0, 4.0),
    ),
    "pytorch_fid": Library(
        None,
        "none",
        "FID needs its InceptionV3 with the pretrained pt_inception weights: port the network, convert the "
        "weights and check the features match, or compute FID outside MindSpore",
        (8.0, 24.0),
    ),
    "torch_fidelity": Library(
        None, "none", "FID/IS/KID with pretrained InceptionV3 weights: port and convert, or run outside", (8.0, 24.0)
    ),
    "cleanfid": Library(
        None, "none", "FID with pretrained InceptionV3 weights: port and convert, or run outside", (8.0, 24.0)
    ),
    "fvcore": Library(None, "none", "no counterpart (FLOP counting, config nodes): drop or re-implement", (1.0, 8.0)),
    "apex": Library(
        "mindspore.amp / mindspore.communication",
        "differs",
        "apex.amp -> mindspore.amp; apex.parallel -> MindSpore data parallel; fused kernels have no counterpart",
        _SWAP,
    ),
    "mmcv": Library(
        None,
        "none",
        "no counterpart (its CUDA ops and runner): port the used ops and the runner",
        (16.0, 80.0),
        stack="OpenMMLab",
    ),
    "mmengine": Library(
        None, "none", "no counterpart: replace the runner with a MindSpore train loop", _NO, stack="OpenMMLab"
    ),
    "mmdet": Library(
        None,
        "none",
        "no counterpart for the mmdet API (base detectors and heads, data structures, assigners, coders, losses); "
        "YOLO-family detectors exist in mindyolo",
        (8.0, 40.0),
        stack="OpenMMLab",
    ),
    "mmseg": Library(None, "none", "no counterpart for the mmseg API", (8.0, 40.0), stack="OpenMMLab"),
    "mmpose": Library(None, "none", "no counterpart for the mmpose API", (8.0, 40.0), stack="OpenMMLab"),
    "mmpretrain": Library(
        None,
        "none",
        "no counterpart for the mmpretrain API (mindcv has many of its backbones)",
        (8.0, 40.0),
        stack="OpenMMLab",
    ),
    "mmcls": Library(
        None,
        "none",
        "no counterpart for the mmcls API (mindcv has many of its backbones)",
        (8.0, 40.0),
        stack="OpenMMLab",
    ),
    "mmrotate": Library(None, "none", "no counterpart for the mmrotate API", (8.0, 40.0), stack="OpenMMLab"),
    "mmocr": Library(None, "none", "no counterpart for the mmocr API", (8.0, 40.0), stack="OpenMMLab"),
    "mmdet3d": Library(None, "none", "no counterpart for the mmdet3d API", (8.0, 40.0), stack="OpenMMLab"),
    "mmaction": Library(None, "none", "no counterpart for the mmaction API", (8.0, 40.0), stack="OpenMMLab"),
    "mmrazor": Library(
        None, "none", "no counterpart for the mmrazor API (distillation, pruning, NAS)", (8.0, 40.0), stack="OpenMMLab"
    ),
    "mmdeploy": Library(
        None, "none", "no counterpart: deployment on Ascend goes through MindIR and MindSpore Lite", (8.0, 24.0)
    ),
    "detectron2": Library(None, "none", "no counterpart: port the used models and ops", (16.0, 80.0)),
    "torchmetrics": Library(
        "mindspore.train.Metric", "differs", "MindSpore metrics cover the common ones (Accuracy, F1...)", (0.5, 3.0)
    ),
    "torch_geometric": Library(
        "mindspore_gl", "differs", "MindSpore Graph Learning covers message passing, not the PyG API", (8.0, 40.0)
    ),
    "dgl": Library(
        "mindspore_gl", "differs", "MindSpore Graph Learning covers message passing, not the DGL API", (8.0, 40.0)
    ),
    "deepspeed": Library(
        None,
        "none",
        "no counterpart: MindSpore's optimizer sharding / parallel modes replace ZeRO",
        (8.0, 40.0),
        stack="DeepSpeed",
    ),
    "megatron": Library(
        "MindSpore Transformers",
        "none",
        "no API counterpart: MindSpore Transformers' parallel core replaces it",
        (16.0, 80.0),
        stack="Megatron",
    ),
    "trl": Library(
        None,
        "none",
        "no counterpart for TRL's trainers (SFT, DPO, PPO): the loop and its losses are ported",
        (8.0, 24.0),
        stack="HF Trainer",
    ),
    # named by round 5 as silent unknowns
    "einx": Library(
        "einx-free reshape/transpose",
        "differs",
        "einx has no MindSpore backend: its rearrange/reduce patterns become ops.reshape/transpose/sum calls, each "
        "re-checked (priced by usage)",
        (2.0, 8.0),
        (0.05, 0.25),
    ),
    "functorch": Library(
        "mindspore.vmap / mindspore.grad", "differs", "torch.func's transforms map to MindSpore's vmap and grad", _SWAP
    ),
    "fairscale": Library(
        None,
        "none",
        "sharded training and model-parallel layers: MindSpore's optimizer and model parallel modes",
        (8.0, 40.0),
    ),
    "tensordict": Library(
        None,
        "none",
        "TensorDict containers of torch tensors: a dict of MindSpore tensors with its methods re-implemented",
        (2.0, 8.0),
    ),
    "torch_einops_utils": Library(
        None, "none", "small torch helpers (pack_one, pad_at_dim...): re-implemented", (1.0, 4.0)
    ),
    "lion_pytorch": Library(
        None, "none", "the Lion optimizer: re-implemented as a MindSpore optimizer and checked on one step", (2.0, 6.0)
    ),
    "thunder": Library(
        None,
        "none",
        "Lightning Thunder (a compiler for torch programs): no counterpart; MindSpore's jit replaces it",
        (4.0, 16.0),
    ),
    "torch_xla": Library(
        None, "none", "the TPU backend of torch: dropped on MindSpore (Ascend is the target)", (1.0, 4.0)
    ),
    "litdata": Library(
        "litdata (framework-free streaming) in a GeneratorDataset",
        "differs",
        "its streaming datasets yield plain samples; its torch DataLoader becomes a GeneratorDataset",
        (2.0, 8.0),
    ),
    "lm_eval": Library(
        None,
        "none",
        "lm-evaluation-harness drives a model through an LM wrapper (HFLM is torch): write one for the "
        "MindSpore model and check a task's score",
        (8.0, 24.0),
    ),
    "safetensors": Library(
        "safetensors (numpy) / mindspore.load_checkpoint",
        "differs",
        "safetensors.torch becomes the numpy flavour (or MindSpore's safetensors checkpoints)",
        (0.5, 2.0),
    ),
    "ultralytics": Library(
        "mindyolo", "differs", "YOLO models and training exist in mindyolo, not the ultralytics API", (8.0, 40.0)
    ),
    "open_clip": Library(
        "mindnlp / mindone CLIP",
        "differs",
        "CLIP models with converted weights; open_clip's factory API differs",
        (4.0, 16.0),
    ),
    "sentence_transformers": Library(
        "mindnlp sentence-transformers", "differs", "MindNLP ports the sentence-transformers API", _SWAP
    ),
    "causal_conv1d": Library(
        None,
        "none",
        "its CUDA causal depthwise conv1d: a padded nn.Conv1d (its own reference) on MindSpore",
        (2.0, 8.0),
    ),
    "mamba_ssm": Library(
        None,
        "none",
        "selective-scan and SSD kernels (CUDA/Triton): re-implemented with MindSpore ops (its reference scans) or as custom ops",
        (16.0, 80.0),
    ),
    "xformers": Library(
        "mindspore.ops.flash_attention_score", "differs", "fused attention exists as an Ascend op", (1.0, 6.0)
    ),
    "flash_attn": Library(
        "mindspore.ops.flash_attention_score", "differs", "fused attention exists as an Ascend op", (1.0, 6.0)
    ),
    "bitsandbytes": Library(None, "none", "no counterpart for its CUDA 8-bit optimizers/quantization", _NO),
    "kornia": Library(
        "mindspore.dataset.vision", "differs", "image ops partly in mindspore.dataset.vision", (2.0, 8.0)
    ),
    "albumentations": Library(
        "albumentations (numpy)", "same", "works on numpy images: usable in a GeneratorDataset as is", (0.0, 0.5)
    ),
    "torchdata": Library("mindspore.dataset", "differs", "datapipes become a mindspore.dataset pipeline", _SWAP),
    "ignite": Library(None, "none", "no counterpart: replace the engine with a train loop", _NO),
    "onnxruntime": Library("onnxruntime (framework-free)", "same", "framework-free; keep it", (0.0, 0.25)),
    "tensorrt": Library(
        "MindSpore Lite", "differs", "deployment on Ascend goes through MindIR + MindSpore Lite", (2.0, 8.0)
    ),
}

LIBRARY_SOURCE = "advisor/scan/libraries.py LIBRARIES (counterparts from mindcv, MindNLP, mindone, mindyolo, mindspore_gl READMEs; hours assumption)"

# Libraries that hold no framework code (they work on numbers, files, text, images or processes): they move
# as they are. Checked against what the calibrated projects import (benchmarks/scan_calibration.md).
FRAMEWORK_FREE = frozenset(
    """numpy scipy pandas sklearn skimage PIL cv2 imageio matplotlib seaborn plotly tqdm rich tabulate yaml ruamel
    toml tomli omegaconf hydra fire click typer jsonargparse docstring_parser requests urllib3 aiohttp httpx
    boto3 botocore fsspec s3fs gcsfs h5py lmdb pyarrow datasets tokenizers sentencepiece tiktoken regex ftfy nltk
    jiwer librosa soundfile audioread resampy decord av moviepy ffmpeg pycocotools panopticapi lvis
    cityscapesscripts shapely termcolor colorama wandb tensorboard tensorboardX mlflow comet_ml neptune psutil
    GPUtil pynvml packaging setuptools pkg_resources importlib_metadata typing_extensions attr attrs pydantic
    dataclasses_json filelock portalocker iopath pytest hypothesis gradio fastapi uvicorn starlette flask
    litserve jinja2 markdown bs4 lxml networkx numba sympy termplotlib pyyaml simplejson ujson
    orjson msgpack zmq grpc google protobuf onnx six future mock tensorstore zarr xxhash mmh3 natsort
    prettytable coloredlogs loguru absl scienceplots opt_einsum more_itertools zstandard cloudpickle dill joblib
    black isort docutils pygments sphinx sphinx_rtd_theme recommonmark myst_parser IPython ipywidgets dotenv
    structlog opentelemetry werkzeug flask_cors imagesize submitit aiofiles editdistance jieba Levenshtein
    rapidfuzz pycocoevalcap streamlit humanize parameterized""".split()
)


def _stdlib() -> frozenset[str]:
    """The standard library's top-level names (sys.stdlib_module_names from Python 3.10; before it, what the
    stdlib folder holds and the built-in modules)."""
    names = getattr(sys, "stdlib_module_names", None)
    if names is None:  # Python 3.9
        import os
        import sysconfig

        folder = sysconfig.get_paths()["stdlib"]
        names = {n.split(".")[0] for n in os.listdir(folder)} | set(sys.builtin_module_names)
    return frozenset(names) | {"__future__"}


STDLIB = _stdlib()
# Other frameworks and exporters (a converter, an export target, a comparison): understood, and not part of
# a MindSpore port (its export paths are priced by the deployment code that calls them).
ASIDE = frozenset(
    """tensorflow tensorflow_datasets tensorflowjs tflite_runtime tflite_support keras jax jaxlib flax optax
    ml_dtypes mxnet gluoncv paddle paddlepaddle x2paddle coremltools openvino nncf onnxsim onnxslim tritonclient
    tensorrt_llm""".split()
)
# MindSpore and its own libraries, and torch's Ascend plugin: understood (MindSpore code is not ported).
MINDSPORE_SIDE = frozenset(
    {"mindspore", "mindnlp", "mindcv", "mindone", "mindyolo", "mindformers", "mindtorch", "msadapter", "torch_npu"}
)
# Roots the scan reads name by name (torch and its domain libraries, hubs, apex, Triton, NMS from mmcv/mmdet).
READ_BY_NAME = frozenset({"torch", "torchvision", "torchaudio", "torchtext", "triton", "apex"})


def understood(root: str) -> bool:
    """Does the scan know what a top-level import is (apart from LIBRARIES and the project's own modules)?"""
    return root in STDLIB or root in FRAMEWORK_FREE or root in MINDSPORE_SIDE or root in READ_BY_NAME or root in ASIDE
