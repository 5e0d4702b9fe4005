"""Name resolution through imports and aliases (ast only)."""

import ast
import textwrap

from advisor.scan import scan_path
from advisor.scan.imports import build


def _names(result):
    """name -> count over mapped and unmapped APIs (which list depends on the KB, not the resolver)."""
    return {a.name: a.count for a in [*result.apis, *result.unmapped]}


def _write(folder, files):
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return folder


def test_import_table_resolves_aliases_and_attribute_chains():
    tree = ast.parse(
        textwrap.dedent(
            """
            import torch
            import torch.nn as nn
            from torch import optim
            from torch.nn import functional as F
            from torch.optim.lr_scheduler import StepLR as Sched
            import os
            Conv = nn.Conv2d
            """
        )
    )
    table = build(tree)

    def q(src):
        return table.resolve(ast.parse(src, mode="eval").body)

    assert q("nn.Conv2d") == "torch.nn.Conv2d"
    assert q("optim.SGD") == "torch.optim.SGD"
    assert q("F.relu") == "torch.nn.functional.relu"
    assert q("torch.optim.lr_scheduler.StepLR") == "torch.optim.lr_scheduler.StepLR"
    assert q("Sched") == "torch.optim.lr_scheduler.StepLR"
    assert q("Conv") == "torch.nn.Conv2d"
    assert q("os.path.join") is None  # not a tracked library
    assert q("model.conv") is None  # not an import


def test_scan_counts_apis_through_every_import_form(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/model.py": """
                import torch.nn as nn
                from torch import optim
                from torch.nn import functional as F
                import torch.nn

                class Net(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.a = nn.Conv2d(1, 2, 3)
                        self.b = nn.Conv2d(2, 2, 3)
                        self.c = torch.nn.Linear(2, 2)

                    def forward(self, x):
                        return F.relu(self.c(self.b(self.a(x))))

                opt = optim.Adam(Net().parameters())
                """,
            "pkg/other.py": """
                from torch.nn import Conv2d, ReLU as Act
                from . import model            # relative import: not torch
                nn = object()                  # a different `nn` in this module
                layer = Conv2d(1, 1, 1)
                act = Act()
                nn.Conv2d                      # not torch here
                """,
        },
    )
    names = _names(scan_path(tmp_path))
    assert names["torch.nn.Conv2d"] == 3  # two in model.py (alias), one in other.py (from-import)
    assert names["torch.nn.Linear"] == 1  # `import torch.nn` then the full chain
    assert names["torch.nn.functional.relu"] == 1
    assert names["torch.optim.Adam"] == 1
    assert names["torch.nn.ReLU"] == 1  # `ReLU as Act`
    assert names["torch.nn.Module"] == 1
    # Chains count once, at full length: no `torch.nn` or `torch` entries for the prefixes.
    assert "torch.nn" not in names and "torch" not in names


def test_locations_are_relative_paths_with_lines(tmp_path):
    _write(tmp_path, {"sub/train.py": "import torch\n\nx = torch.zeros(3)\n"})
    result = scan_path(tmp_path)
    api = next(a for a in [*result.apis, *result.unmapped] if a.name == "torch.zeros")
    assert [(l.file, l.line) for l in api.locations] == [("sub/train.py", 3)]


def test_single_file_path_is_scanned(tmp_path):
    script = _write(tmp_path, {"one.py": "from torch import nn\nm = nn.Linear(1, 1)\n"}) / "one.py"
    result = scan_path(script)
    assert result.python_files == 1
    assert _names(result)["torch.nn.Linear"] == 1


def test_methods_count_only_when_the_knowledge_base_lists_them(tmp_path):
    """`loss.backward()` has no import to resolve; it counts as torch.Tensor.backward only because
    the KB names that method (the receiver's type is unknown to ast)."""
    import knowledge

    known = {m.pytorch for m in knowledge.load().api_mappings}
    _write(tmp_path, {"t.py": "import torch\nloss.backward()\nmodel.register_forward_hook(f)\nthing.frobnicate()\n"})
    names = _names(scan_path(tmp_path))
    for method in ("torch.Tensor.backward", "torch.nn.Module.register_forward_hook"):
        assert (method in names) == (method in known)
    assert not any(n.endswith("frobnicate") for n in names)
