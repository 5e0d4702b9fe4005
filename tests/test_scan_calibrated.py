"""Cases on small projects written here: MindSpore code, Python 2 trees, a library that
imports itself, lazy hub imports, LibTorch programs vs extensions, torch.ops calls, DataParallel,
data-dependent shapes, features with no equivalent, the dependency inventory, --exclude and --by."""

import json
import textwrap

import pytest

from advisor.cli import main
from advisor.errors import UsageError
from advisor.scan import scan_path


def _write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def test_mindspore_project_is_nothing_to_migrate(tmp_path):
    _write(
        tmp_path,
        {
            "net.py": """
        import mindspore as ms
        from mindspore import nn, ops
        class Net(nn.Cell):
            def construct(self, x):
                if x.sum() > 0:
                    return x
                return (x, x)
        """,
            "train.py": "import mindspore\nfrom net import Net\n",
        },
    )
    r = scan_path(tmp_path)
    assert r.framework == "mindspore" and r.mindspore_files == 2
    assert r.route == "nothing to migrate" and r.risk == "low" and "already MindSpore" in r.risk_reasons[0]
    assert r.hazards == [] and r.effort_hours == (0.0, 0.0)


def test_python2_tree_says_why_nothing_was_scanned(tmp_path, capsys):
    _write(
        tmp_path, {"a.py": "import torch\nprint 'hello'\n", "b.py": "try:\n    pass\nexcept IOError, e:\n    pass\n"}
    )
    with pytest.raises(UsageError, match="2 look like Python 2"):
        scan_path(tmp_path)
    assert main(["scan", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "2to3" in err


def test_a_library_importing_itself_is_not_a_hub_dependency(tmp_path):
    root = _write(
        tmp_path / "timm",
        {
            "timm/__init__.py": "from timm.models import create_model\n",
            "timm/models/__init__.py": "",
            "timm/models/vit.py": """
            import torch
            from torch import nn
            from timm.layers import Mlp
            import timm
            class ViT(nn.Module):
                def forward(self, x):
                    return x
            """,
        },
    )
    r = scan_path(root)
    assert not [h for h in r.hazards if h.kind == "model_hub"]
    assert not [d for d in r.dependencies if d.name == "timm"]


def test_lazy_transformers_import_does_not_flip_the_route(tmp_path):
    _write(
        tmp_path,
        {
            "model.py": """
        import torch
        from torch import nn
        class GPT(nn.Module):
            def forward(self, x):
                return x
            @classmethod
            def from_pretrained(cls, name):
                from transformers import GPT2LMHeadModel  # only to copy weights
                return GPT2LMHeadModel.from_pretrained(name)
        """,
            "train.py": """
        import torch
        from model import GPT
        model = GPT()
        opt = torch.optim.AdamW(model.parameters())
        loss = model(torch.ones(2)).sum()
        loss.backward()
        opt.step()
        """,
        },
    )
    r = scan_path(tmp_path)
    hub = [h for h in r.hazards if h.kind == "model_hub"]
    assert hub and all(h.optional for h in hub)
    hub_summary = next(s for s in r.hazard_summary if s.kind == "model_hub")
    assert hub_summary.risk == "low" and hub_summary.effort_hours == (0.0, 0.0)  # priced apart, not in the total
    assert r.effort_breakdown.excluded_hours[0] > 0
    assert r.route == "manual rewrite" and r.risk == "low", (r.route, r.risk_reasons)
    dep = next(d for d in r.dependencies if d.name == "transformers")
    assert dep.optional and dep.mindspore == "mindnlp" and dep.effort_hours == (0.0, 0.0)


def test_libtorch_programs_and_cuda_home_are_not_custom_operators(tmp_path):
    _write(
        tmp_path,
        {
            "cpp/infer.cpp": '#include <torch/script.h>\n#include <torch/torch.h>\nint main() { auto m = torch::jit::load("m.pt"); }\n',
            "setup_env.py": "from torch.utils.cpp_extension import CUDA_HOME\nprint(CUDA_HOME)\nimport torch\n",
            "ext/op.cpp": "#include <torch/extension.h>\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}\n",
            "ext/kernel.cu": "__global__ void k(float* x) {}\n",
            "ext/setup.py": "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('op', ['op.cpp'])\n",
            "model.py": "import torch\ny = torch.ops.myops.fused_gelu(x)\nz = torch.ops.aten.add(x, x)\nk = torch.ops.torchvision.nms(b, s, 0.5)\n",
        },
    )
    r = scan_path(tmp_path)
    places = {(h.file, h.line) for h in r.hazards if h.kind == "custom_extension"}
    assert ("cpp/infer.cpp", 1) not in {(f, 1) for f, _ in places if f == "cpp/infer.cpp"} and not any(
        f == "cpp/infer.cpp" for f, _ in places
    )
    assert not any(f == "setup_env.py" for f, _ in places)
    assert (
        ("ext/kernel.cu", 1) in places and ("ext/setup.py", 2) in places and any(f == "ext/op.cpp" for f, _ in places)
    )
    assert ("model.py", 2) in places  # torch.ops.myops: a custom op
    assert ("model.py", 3) not in places and ("model.py", 4) not in places  # aten, torchvision: built in
    assert r.extension_sources == 2 and r.risk == "high"


def test_one_dataparallel_line_is_low_risk_ddp_is_medium(tmp_path_factory):
    dp = _write(
        tmp_path_factory.mktemp("dp"),
        {"train.py": "import torch\nmodel = torch.nn.DataParallel(model)\nloss.backward()\n"},
    )
    r = scan_path(dp)
    assert next(s for s in r.hazard_summary if s.kind == "distributed").risk == "low" and r.risk == "low"
    ddp = _write(
        tmp_path_factory.mktemp("ddp"),
        {
            "train.py": """
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
        dist.init_process_group("nccl")
        model = DDP(model)
        """
        },
    )
    assert scan_path(ddp).risk == "medium"


def test_data_dependent_shapes_and_features_without_equivalent(tmp_path):
    _write(
        tmp_path,
        {
            "det.py": """
        import torch
        import torch.fx
        import torchvision
        def post(boxes, scores, mask):
            idx = torch.nonzero(mask)
            keep = torchvision.ops.nms(boxes, scores, 0.5)
            sel = scores.masked_select(mask)
            u = torch.unique(idx)
            return keep
        gm = torch.fx.symbolic_trace(model)
        nt = torch.nested.nested_tensor([a, b])
        """
        },
    )
    r = scan_path(tmp_path)
    dyn = sorted(h.line for h in r.hazards if h.kind == "dynamic_shape")
    assert dyn == [5, 6, 7, 8]
    none = {h.line for h in r.hazards if h.kind == "no_equivalent"}
    assert {10, 11} <= none
    s = {k.kind: k for k in r.hazard_summary}
    assert s["no_equivalent"].risk == "high" and s["dynamic_shape"].risk == "medium"
    assert s["no_equivalent"].effort_hours[0] >= 8  # priced as a redesign, not a rename
    assert s["dynamic_shape"].example and "nonzero" in s["dynamic_shape"].example.before  # the API's own pattern
    assert r.risk == "high"


def test_dependency_inventory_with_mindspore_counterparts(tmp_path):
    _write(tmp_path, {"m.py": "import torch\nimport timm\nimport einops\nfrom fvcore.nn import FlopCountAnalysis\n"})
    deps = {d.name: d for d in scan_path(tmp_path).dependencies}
    assert deps["timm"].mindspore == "mindcv" and deps["fvcore"].mapping == "none" and deps["fvcore"].mindspore is None
    assert deps["einops"].effort_hours[1] > 0


def test_tests_examples_tools_are_priced_apart_and_exclude_adds_globs(tmp_path, capsys):
    model = "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def forward(self, x):\n        return x\n"
    _write(
        tmp_path,
        {
            "pkg/model.py": model,
            "pkg/legacy.py": model,
            "tests/test_m.py": model,
            "examples/demo.py": model + "torch.distributed.init_process_group('nccl')\n",
        },
    )
    r = scan_path(tmp_path)
    b = r.effort_breakdown
    assert b.included_files == 2 and b.excluded_files == 2 and b.excluded_hours[0] > 0
    assert {s.name for s in b.by_file if not s.excluded} == {"pkg/model.py", "pkg/legacy.py"}
    assert r.risk == "low"  # the distributed call sits in an example
    dist = next(h for h in r.hazards if h.kind == "distributed")
    assert dist.excluded and dist.role == "examples"
    narrower = scan_path(tmp_path, exclude=["pkg/legacy.py"])
    assert narrower.effort_hours[0] < r.effort_hours[0]
    everything = scan_path(tmp_path, default_excludes=False)
    assert everything.effort_hours[0] > r.effort_hours[0] and everything.effort_breakdown.excluded_files == 0
    # the breakdowns add up: per-file lows sum to the total low
    assert sum(s.effort_hours[0] for s in b.by_file if not s.excluded) == pytest.approx(r.effort_hours[0], abs=0.05)
    assert main(["scan", str(tmp_path), "--by", "package", "--exclude", "pkg/legacy.py"]) == 0
    out = capsys.readouterr().out
    assert "Effort by top-level package" in out and "Effort by role" in out and "Excluded from the total: 3" in out
    assert main(["scan", str(tmp_path), "--json", "--by", "file"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"effort_breakdown", "dependencies", "api_classes", "framework", "risk_rule"} <= set(doc)
    assert main(["scan", str(tmp_path), "--by", "nope"]) == 2


def test_model_code_is_costed_as_model_wherever_it_sits(tmp_path):
    _write(
        tmp_path,
        {
            "train.py": """
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
            def forward(self, x):
                return self.fc(x)
        net = Net()
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        net(torch.ones(2)).sum().backward()
        opt.step()
        """
        },
    )
    r = scan_path(tmp_path)
    roles = {s.name for s in r.effort_breakdown.by_role}
    assert {"model", "training"} <= roles
    assert r.api_classes["convertible"] >= 2
