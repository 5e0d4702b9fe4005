"""The scan's own data: the before/after fix pattern for every hazard kind, the three kinds the scan
reports beyond the knowledge base's pitfalls, and the third-party libraries it inventories.

Every figure carries its source; "verified here" means a test in tests/test_scan_graph_mode.py
compiles the pattern with the installed MindSpore (2.10.0 when this was written).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

# The field reports as a reader cites them: by title and section (seeds/README.md), never by file.
SEED_000 = '"MindSpore vs PyTorch, measured on the same task" (field report),'
SEED_002 = '"Ascend 910 and MindSpore in practice: specs, set-up, pitfalls, migration" (field report), §'
SEED_004 = '"Chips and framework released together: what it means for developers" (field report), §'
VERIFIED = "verified here: tests/test_scan_graph_mode.py compiles it with the installed MindSpore in Graph mode"


@dataclass(frozen=True)
class Example:
    before: str
    after: str
    source: str


# One before/after per hazard kind: the pattern of the fix, not a generated port.
EXAMPLES: dict[str, Example] = {
    "tensor_control_flow": Example(
        "if x.sum() > 0:\n    return x\nreturn (x, x)          # Tensor vs tuple",
        "if x.sum() > 0:\n    return (x, x)\nreturn (x, x)          # same type on every branch",
        VERIFIED + " (different branch types: 'Cannot join the return values'; range(tensor) rejected)",
    ),
    "inplace_op": Example(
        "x.add_(1)\nx.masked_fill_(m, 0)",
        "x = x + 1\nx = ops.masked_fill(x, m, 0)",
        "MindSpore API mapping table (in-place ops); seed 004 3.2",
    ),
    "hook": Example(
        "h = layer.register_forward_hook(save)\nout = model(x)",
        "class Net(nn.Cell):\n    def construct(self, x):\n        feat = self.layer(x)\n        return self.head(feat), feat",
        "MindSpore nn.Cell docs: hooks only in PyNative mode",
    ),
    "cuda_amp": Example(
        "with torch.autocast('cuda'):\n    loss = model(x)\nscaler.scale(loss).backward()",
        "net = ms.amp.auto_mixed_precision(net, 'O2')\nloss_scaler = ms.amp.DynamicLossScaler(2**16, 2, 1000)",
        SEED_002 + "4.3, 5.2",
    ),
    "distributed": Example(
        "dist.init_process_group('nccl')\nmodel = DDP(model)",
        "from mindspore.communication import init\ninit()\nms.set_auto_parallel_context(parallel_mode='data_parallel', gradients_mean=True)\n# launch: msrun --worker_num=8 train.py",
        SEED_004 + "3.3; " + SEED_002 + "5.4",
    ),
    "custom_extension": Example(
        "ext = load_inline('fused', cpp_src, cuda_src)\ny = ext.fused(x)",
        "fused = ops.Custom('./fused.so:Fused', out_shape=lambda s: s, out_dtype=lambda t: t, func_type='aot')\ny = fused(x)   # or compose built-in ops",
        SEED_002 + "5.1 (ops.Custom; TBE/DSL on Ascend is costly)",
    ),
    "dataloader_option": Example(
        "DataLoader(ds, batch_size=32, shuffle=True, pin_memory=True, collate_fn=pad)",
        "ds = GeneratorDataset(src, ['x', 'y'], shuffle=True)\nds = ds.batch(32, per_batch_map=pad)",
        SEED_004 + "4.3; " + SEED_002 + "5.3",
    ),
    "lr_scheduler": Example(
        "sched = StepLR(opt, step_size=10, gamma=0.1)\n...\nsched.step()",
        "lr = nn.piecewise_constant_lr([10 * spe, 20 * spe], [0.1, 0.01])\nopt = nn.SGD(net.trainable_params(), learning_rate=lr)",
        SEED_000 + " pitfall log, pitfall 3",
    ),
    "normalize": Example(
        "T.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010))",
        "vision.Normalize(mean=[125.3, 123.0, 113.9], std=[51.6, 50.8, 51.3])  # 0-255 scale, HWC",
        SEED_000 + " pitfall log, pitfall 1",
    ),
    "model_hub": Example(
        "from transformers import AutoModel\nm = AutoModel.from_pretrained('bert-base-uncased')",
        "from mindnlp.transformers import AutoModel\nm = AutoModel.from_pretrained('bert-base-uncased')",
        "MindNLP README (HF-compatible AutoModel API); mindcv for timm models",
    ),
    "graph_side_effect": Example(
        "def forward(self, x):\n    self.feats.append(x)\n    return self.head(x)",
        "def construct(self, x):\n    return self.head(x), x   # return it instead of storing it",
        VERIFIED + " (self.list.append and self.dict[k] = v in construct are silently lost)",
    ),
    "dynamic_shape": Example(
        "idx = torch.nonzero(mask)\nkeep = boxes[idx[:, 0]]",
        "keep = ops.masked_fill(boxes, ~mask[:, None], 0)   # fixed shape + mask\n# or pad to a maximum count (NMSWithMask returns a fixed-size mask)",
        SEED_004 + "3.3 (dynamic shape in Graph mode)",
    ),
    "missing_option": Example(
        "y = F.interpolate(x, size=(224, 224), mode='bilinear', antialias=True)",
        "# ops.interpolate has no antialias: smooth first when shrinking (or resize in the data pipeline)\n"
        "y = ops.interpolate(ops.avg_pool2d(x, k, k), size=(224, 224), mode='bilinear')  # k = shrink factor\n"
        "# then compare y with PyTorch's on real inputs",
        "MindSpore 2.10 API: mindspore.ops.interpolate(input, size, scale_factor, mode, align_corners, "
        "recompute_scale_factor) has no antialias argument (checked on the installed 2.10.0)",
    ),
    "no_equivalent": Example(
        "gm = torch.fx.symbolic_trace(model)\n# rewrite the graph ...",
        "# no MindSpore equivalent: rewrite the transformation by hand on the Cell\n# (mindspore.rewrite covers some graph edits)",
        "MindSpore API mapping table: no entry for these modules",
    ),
}


@dataclass(frozen=True)
class Kind:
    """A hazard kind the scan reports that no KB pitfall explains: its title, fix, cost and risk."""

    title: str
    fix: str
    effort: tuple[float, float]
    basis: str
    risk: str


SCAN_ONLY: dict[str, Kind] = {
    "graph_side_effect": Kind(
        "Mutating self in construct",
        "Return what forward stores on self (features, caches) instead of mutating a list/dict attribute; "
        "plain attribute updates work under the default jit_syntax_level LAX but fail under STRICT unless a Parameter.",
        (0.25, 1.0),
        "assumption: one refactor per place, " + VERIFIED,
        "medium",
    ),
    "dynamic_shape": Kind(
        "Data-dependent output shapes",
        "Keep shapes fixed: masks with ops.masked_fill / ops.select, padding to a maximum count, NMSWithMask; "
        "or run that part in PyNative mode (they compile on CPU, but dynamic shapes cost compile time and speed on Ascend).",
        (1.0, 4.0),
        "assumption per place; " + SEED_004 + "3.3 names dynamic shape the first hard part",
        "medium",
    ),
    "missing_option": Kind(
        "An argument MindSpore's counterpart does not have",
        "Reproduce what the option does around the MindSpore call (antialias: smooth before shrinking, or resize "
        "with an antialiasing resize in the data pipeline) and compare the outputs with PyTorch's.",
        (1.0, 4.0),
        "assumption per option (a known workaround, then an output comparison)",
        "low",
    ),
    "no_equivalent": Kind(
        "Features with no MindSpore equivalent",
        "Redesign that part: there is no API to rename to (torch.fx passes, nested tensors, TorchScript modules, RPC).",
        (8.0, 40.0),
        "assumption per feature used (a redesign, not a rename)",
        "high",
    ),
}


@dataclass(frozen=True)
class Library:
    mindspore: Optional[str]
    mapping: str  # same | differs | none
    note: str
    effort: tuple[float, float]  # per library used (swap + check), on top of the code that calls it
    per_use: tuple[float, float] = (0.0, 0.0)  # priced by usage: each call of the library's functions


_NO = (4.0, 16.0)  # re-implementing what the code used from a library with no counterpart (assumption)
_SWAP = (1.0, 4.0)  # swapping to the MindSpore-side library and checking outputs (assumption)
# Features, not places, for the libraries a project is built on: each distinct name it takes from one
# (a class, a function, a submodule's member) is one piece to re-implement (no counterpart) or to swap
# and check (a counterpart that differs); the k-th costs max(1/k, NAME_FLOOR) of the first (the pieces
# of one library share its idioms). Hours per name, by mapping; assumptions, checked in
# benchmarks/scan_calibration.md round 4 (Mask2Former on detectron2, alpaca-lora on transformers/peft).
PER_NAME = {"none": (1.0, 4.0), "differs": (0.25, 1.0), "same": (0.0, 0.0)}
NAME_FLOOR = 0.25
# Third-party PyTorch-side libraries, by import root. Counterparts from the projects' own READMEs.
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
    "accelerate": Library(None, "none", "no counterpart: MindSpore's parallel modes and msrun replace it", _NO),
    "lightning": Library(
        None,
        "none",
        "no counterpart: rewrite the LightningModule as a Cell plus a train step (or mindspore.train.Model)",
        _NO,
    ),
    "pytorch_lightning": Library(
        None,
        "none",
        "no counterpart: rewrite the LightningModule as a Cell plus a train step (or mindspore.train.Model)",
        _NO,
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
        None, "none", "no counterpart (its CUDA ops and runner): port the used ops and the runner", (16.0, 80.0)
    ),
    "mmengine": Library(None, "none", "no counterpart: replace the runner with a MindSpore train loop", _NO),
    "mmdet": Library(
        "mindyolo / MindSpore model zoo",
        "differs",
        "detection models exist in mindyolo and the model zoo, not the mmdet API",
        (8.0, 40.0),
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
        None, "none", "no counterpart: MindSpore's optimizer sharding / parallel modes replace ZeRO", (8.0, 40.0)
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
LIBRARY_SOURCE = "advisor/scan/patterns.py LIBRARIES (counterparts from mindcv, MindNLP, mindone, mindspore_gl READMEs; hours assumption)"
