"""Each hazard kind is found at the right line, and static code is not flagged."""

import textwrap

import knowledge
from advisor.scan import HAZARD_KINDS, scan_path
from advisor.scan.estimate import FALLBACK_FIX, pitfall_for


def _scan(tmp_path, text, name="code.py"):
    (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))
    return scan_path(tmp_path)


def _found(result, kind):
    return [(h.file, h.line) for h in result.hazards if h.kind == kind]


def test_graph_mode_rules_in_forward(tmp_path):
    """Only what MindSpore Graph mode rejects (or silently drops) is flagged; see
    tests/test_scan_graph_mode.py for the same patterns compiled with the real MindSpore."""
    result = _scan(
        tmp_path,
        """
        import torch
        from torch import nn

        class M(nn.Module):
            def forward(self, x, mask=None):
                if x.shape[0] > 64:                # shape: compiles
                    return x * 2
                if x.sum() > 0:                    # value, branches of different shapes: compiles
                    x = x[:2]
                if mask is None:                   # None check: compiles
                    pass
                for t in [x, x * 2]:               # list of tensors: compiles
                    x = x + t
                n = int(x.sum())
                for i in range(n):                 # int(...) count: compiles
                    x = x + 1
                for i in range(x.sum()):           # line 17: range over a tensor value
                    x = x + 1
                self.feats.append(x)               # line 19: silently lost
                self.cache["k"] = x                # line 20: silently lost
                self.count = 1                     # plain attribute: compiles (LAX)
                if x.mean() > 0:                   # line 22: Tensor vs tuple
                    return x
                return (x, x)

            def forward_features(self, x):
                y = x if x.sum() > 0 else 0        # line 27: Tensor vs number
                if x.sum() > 0:                    # line 28: tuple vs Tensor through an assignment
                    z = (x, x)
                else:
                    z = x
                if x.sum() > 0:                    # Tensor vs None: compiles
                    return x
                return None

        def helper(x):
            if x.sum() > 1:                        # not in forward: not flagged
                return x
            return (x, x)
        """,
    )
    assert [line for _, line in _found(result, "tensor_control_flow")] == [17, 22, 27, 28]
    assert [line for _, line in _found(result, "graph_side_effect")] == [19, 20]
    msg = {h.line: h.message for h in result.hazards if h.kind == "tensor_control_flow"}
    assert "make_range" in msg[17] and "Tensor" in msg[22] and "tuple/list" in msg[22]
    assert "number" in msg[27]
    assert all(h.in_forward for h in result.hazards if h.kind in ("tensor_control_flow", "graph_side_effect"))


def test_inplace_ops(tmp_path):
    result = _scan(
        tmp_path,
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = nn.ReLU(inplace=True)   # line 8
                nn.init.kaiming_normal_(self.w)     # initialisation API: not a hazard
                self.w.requires_grad_(False)        # flag setter: not a hazard

            def forward(self, x):
                x.add_(1)                           # line 13
                return F.relu_(x)                   # line 14

        optimizer.zero_grad()                       # no trailing underscore: not in-place
        """,
    )
    assert _found(result, "inplace_op") == [("code.py", 8), ("code.py", 13), ("code.py", 14)]
    in_forward = {h.line: h.in_forward for h in result.hazards if h.kind == "inplace_op"}
    assert in_forward == {8: False, 13: True, 14: True}
    summary = {s.kind: s for s in result.hazard_summary}
    assert summary["inplace_op"].risk == "medium"  # in-place inside forward


def test_hooks_amp_distributed(tmp_path):
    result = _scan(
        tmp_path,
        """
        import torch
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
        from torch.cuda.amp import GradScaler

        model.register_forward_hook(fn)             # line 6
        x.register_hook(fn)                         # line 7
        scaler = GradScaler()                       # line 8
        with torch.autocast("cuda"):                # line 9
            pass
        dist.init_process_group("nccl")             # line 11
        model = DDP(model)                          # line 12
        fsdp = torch.distributed.fsdp.FullyShardedDataParallel(model)  # line 13
        """,
    )
    assert _found(result, "hook") == [("code.py", 6), ("code.py", 7)]
    assert _found(result, "cuda_amp") == [("code.py", 8), ("code.py", 9)]
    assert _found(result, "distributed") == [("code.py", 11), ("code.py", 12), ("code.py", 13)]


def test_custom_extensions_python_and_sources(tmp_path):
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "op.cu").write_text(
        "// fused op\n#include <cuda.h>\n__global__ void k() {}\n\ntemplate <typename T>\n__global__ void __launch_bounds__(256) add_kernel(T* x) {}\n"
    )
    (tmp_path / "csrc" / "op.cuh").write_text("#pragma once\n")
    (tmp_path / "csrc" / "bind.cpp").write_text("#include <torch/extension.h>\nint x;\n")
    (tmp_path / "csrc" / "plain.c").write_text("int main(void) { return 0; }\n")  # not torch: ignored
    result = _scan(
        tmp_path,
        """
        from torch.utils.cpp_extension import load_inline
        import torch.utils.cpp_extension as ext
        mod = load_inline(name="m", cpp_sources="")
        setup(ext_modules=[ext.CUDAExtension("m", ["csrc/op.cu"])])
        """,
        name="setup.py",
    )
    found = _found(result, "custom_extension")
    assert ("setup.py", 3) in found and ("setup.py", 4) in found
    assert ("csrc/op.cu", 3) in found and ("csrc/op.cu", 6) in found  # one per kernel
    kernels = [h.message for h in result.hazards if h.file == "csrc/op.cu"]
    assert "`k`" in kernels[0] and "`add_kernel`" in kernels[1]
    assert ("csrc/op.cuh", 1) in found
    assert ("csrc/bind.cpp", 1) in found
    assert not any(f == "csrc/plain.c" for f, _ in found)
    assert result.extension_sources == 3


def test_dataloader_options(tmp_path):
    result = _scan(
        tmp_path,
        """
        from torch.utils.data import DataLoader
        a = DataLoader(ds, batch_size=8, shuffle=True, num_workers=4, drop_last=True)
        b = DataLoader(ds, pin_memory=True, persistent_workers=True,
                       prefetch_factor=4, worker_init_fn=seed, collate_fn=pad)
        c = DataLoader(ds, pin_memory=False, collate_fn=None)
        """,
    )
    found = [h for h in result.hazards if h.kind == "dataloader_option"]
    specific = [h for h in found if h.message.startswith("DataLoader `")]
    assert {h.line for h in specific} == {3}  # drop_last/num_workers have equivalents; False/None are unset
    options = " ".join(h.message for h in specific)
    for option in ("pin_memory", "persistent_workers", "prefetch_factor", "worker_init_fn", "collate_fn"):
        assert f"`{option}`" in options
    assert len(specific) == 5
    # Other DataLoader lines are flagged only if the KB marks DataLoader itself (ApiMapping.scan_kind).
    entry = next((m for m in knowledge.load().api_mappings if m.pytorch == "torch.utils.data.DataLoader"), None)
    generic = {h.line for h in found if h not in specific}
    if entry is not None and entry.scan_kind == "dataloader_option":
        assert generic == {2, 5}
    else:
        assert generic == set()


def test_scheduler_normalize_and_model_hubs(tmp_path):
    result = _scan(
        tmp_path,
        """
        import torch
        import timm
        from transformers import AutoModel, get_cosine_schedule_with_warmup
        from torchvision import transforms as T
        from torch.optim import lr_scheduler

        sched = lr_scheduler.CosineAnnealingLR(opt, T_max=50)          # line 7
        warm = get_cosine_schedule_with_warmup(opt, 10, 100)           # line 8
        norm = T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])  # line 9
        hub = torch.hub.load("pytorch/vision", "resnet18")             # line 10
        """,
    )
    assert _found(result, "lr_scheduler") == [("code.py", 7), ("code.py", 8)]
    assert _found(result, "normalize") == [("code.py", 9)]
    norm = next(h for h in result.hazards if h.kind == "normalize")
    assert "0-255" in norm.message and "multiply by 255" in norm.message
    # `import timm` that reads nothing from it takes no model: only AutoModel and torch.hub.load do
    assert _found(result, "model_hub") == [("code.py", 3), ("code.py", 10)]
    # transformers/timm APIs are hub APIs, not PyTorch APIs to map
    assert not any(a.name.startswith(("transformers", "timm")) for a in [*result.apis, *result.unmapped])


def test_fix_and_effort_come_from_the_kb_pitfall_for_the_kind(tmp_path):
    kb = knowledge.load()
    result = _scan(
        tmp_path,
        """
        import torch
        from torch import nn
        class M(nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    x.mul_(2)
                    return x
                return (x, x)
        m.register_forward_hook(f)
        """,
    )
    assert {h.kind for h in result.hazards} == {"tensor_control_flow", "inplace_op", "hook"}
    for hazard in result.hazards:
        pitfall = pitfall_for(hazard.kind, kb)
        if pitfall is None:  # KB lacks it: the stated fallback, and no pitfall id claimed
            assert hazard.fix == FALLBACK_FIX[hazard.kind] and hazard.pitfall is None
        else:
            assert hazard.fix == pitfall.fix and hazard.pitfall == pitfall.id
            assert hazard.kind in pitfall.scan_kinds
    for s in result.hazard_summary:
        pitfall = pitfall_for(s.kind, kb)
        if pitfall is not None and pitfall.effort_hours is not None:
            assert s.effort_hours == (round(pitfall.effort_hours.low, 2), round(pitfall.effort_hours.high, 2))
            assert pitfall.id in s.effort_basis
        else:
            assert "assumption" in s.effort_basis
    assert set(FALLBACK_FIX) == set(HAZARD_KINDS)


def _notebook(cells):
    import json

    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True)} for kind, text in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def test_notebook_cells_are_scanned_with_cell_and_line(tmp_path):
    (tmp_path / "explore.ipynb").write_text(
        _notebook(
            [
                ("markdown", "# Notes\nimport nothing here"),
                ("code", "%matplotlib inline\n!pip install timm\nimport torch\nfrom torch import nn"),
                (
                    "code",
                    "class M(nn.Module):\n    def forward(self, x):\n        if x.sum() > 0:\n            return x\n        return (x, x)",
                ),
                ("code", "%%bash\nls -la"),
                ("code", "m = nn.Linear(2, 2)\nm.weight.data.zero_()"),
            ]
        )
    )
    (tmp_path / "broken.ipynb").write_text(_notebook([("code", "import torch"), ("code", "x = (")]))
    (tmp_path / "fake.ipynb").write_text("not json")
    result = scan_path(tmp_path)
    where = {(h.kind, h.file, h.cell, h.line) for h in result.hazards}
    assert ("tensor_control_flow", "explore.ipynb", 3, 3) in where
    assert ("inplace_op", "explore.ipynb", 5, 2) in where
    linear = next(a for a in [*result.apis, *result.unmapped] if a.name == "torch.nn.Linear")
    assert [(l.file, l.cell, l.line) for l in linear.locations] == [("explore.ipynb", 5, 1)]
    reasons = {s.file: s.reason for s in result.skipped}
    assert "cell 2" in reasons["broken.ipynb"]
    assert "not a notebook" in reasons["fake.ipynb"]
    assert result.python_files == 1
