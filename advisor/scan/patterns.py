"""The scan's own data: the before/after fix pattern for every hazard kind and the kinds the scan reports
beyond the knowledge base's pitfalls (the libraries it knows are in advisor/scan/libraries.py).

Every figure carries its source; "verified here" means a test in tests/test_scan_graph_mode.py
compiles the pattern with the installed MindSpore (2.10.0 when this was written).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The field reports as a reader cites them: by title and section (seeds/README.md), never by file.
SEED_000 = '"MindSpore vs PyTorch, measured on the same task" (field report),'
SEED_002 = '"Ascend 910 and MindSpore in practice: specs, set-up, pitfalls, migration" (field report), §'
SEED_004 = '"Chips and framework released together: what it means for developers" (field report), §'
SEED_TITLES = {
    "000": "'MindSpore vs PyTorch, measured on the same task'",
    "002": "'Ascend 910 and MindSpore in practice: specs, set-up, pitfalls, migration'",
    "004": "'Chips and framework released together: what it means for developers'",
}
_SEED_PATH = re.compile(r"(?:shared/)?seeds/(\d{3})_[0-9a-f]+\.txt")


def cite(source: str) -> str:
    """A knowledge-base source as a reader cites it: a field report by its title, never by its file."""
    return _SEED_PATH.sub(lambda m: "field report " + SEED_TITLES.get(m.group(1), "(unnamed)"), source)


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
    "quantized_training": Example(
        "model = AutoModelForCausalLM.from_pretrained(name, load_in_4bit=True)\nmodel = prepare_model_for_kbit_training(model)",
        "from msbnb import Linear4bitWithLoRA   # MindNLP's bitsandbytes-style layers (grouped INT4, not NF4)\n"
        "# or LoRA on a bf16 base (about 4x the weight memory of NF4): check it fits, then compare the loss curve",
        "MindNLP src/msbnb (commit 7dd3e355, 2026-03-08): INT8/INT4 weight quantization and QLoRA layers on "
        "MindSpore's quantization operators",
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
    "quantized_training": Kind(
        "Quantised fine-tuning (4/8-bit base weights)",
        "bitsandbytes has no MindSpore backend: use MindNLP's msbnb layers (INT8, grouped INT4, QLoRA) or fine-tune "
        "on a bf16/fp16 base after checking the memory fits, then compare the fine-tuning loss curve and generations "
        "with the quantised PyTorch run (NF4 and grouped INT4 round differently).",
        (8.0, 24.0),
        "assumption per quantisation feature: swap the quantised layers and 8-bit optimizers, re-plan memory, "
        "re-check the fine-tuning result",
        "medium",
    ),
    "no_equivalent": Kind(
        "Features with no MindSpore equivalent",
        "Redesign that part: there is no API to rename to (torch.fx passes, nested tensors, TorchScript modules, RPC).",
        (8.0, 40.0),
        "assumption per feature used (a redesign, not a rename)",
        "high",
    ),
}
