"""The scan's Graph-mode rules against the real MindSpore: one table of forward bodies, each with what
MindSpore 2.10 Graph mode does with it (ok / rejected / lost = compiles but the change is dropped).
The scan must flag exactly the rejected and lost ones; the slow test compiles every body as a Cell
with the installed MindSpore to check the table itself."""

import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

from advisor.scan import scan_path

# name: (__init__ lines, forward body using only what torch and MindSpore tensors share, outcome)
CASES = {
    "shape_if": ("", "if x.shape[0] > 64:\n    return x * 2\nreturn x", "ok"),
    "value_if_other_shape": ("", "if x.sum() > 0:\n    return x[:2]\nreturn x", "ok"),
    "loop_over_tensor_list": ("", "out = x\nfor t in [x, x * 2]:\n    out = out + t\nreturn out", "ok"),
    "loop_over_rows": ("", "out = x[0]\nfor row in x:\n    out = out + row\nreturn out", "ok"),
    "none_check": ("", "mask = None\nif mask is None:\n    return x\nreturn x * mask", "ok"),
    "boolean_index": ("", "return x[x > 0]", "ok"),
    "while_on_value": ("", "s = x.sum()\nwhile s > 0:\n    s = s - 1\nreturn s", "ok"),
    "int_loop_count": ("", "n = int(x.sum())\nout = x\nfor i in range(n):\n    out = out + 1\nreturn out", "ok"),
    "tensor_or_none": ("", "if x.sum() > 0:\n    return x\nreturn None", "ok"),
    "self_attribute": ("self.count = 0", "self.count = self.count + 1\nreturn x", "ok"),
    "branch_tensor_tuple": ("", "if x.sum() > 0:\n    return x\nreturn (x, x)", "rejected"),
    "branch_tensor_number": ("", "if x.sum() > 0:\n    return x\nreturn 0", "rejected"),
    "branch_assign_types": ("", "if x.sum() > 0:\n    y = (x, x)\nelse:\n    y = x\nreturn y", "rejected"),
    "range_of_tensor": ("", "out = x\nfor i in range(x.sum()):\n    out = out + 1\nreturn out", "rejected"),
    "range_of_item": ("", "out = x\nfor i in range(x.sum().item()):\n    out = out + 1\nreturn out", "rejected"),
    "self_list_append": ("self.feats = []", "self.feats.append(x)\nreturn x", "lost"),
    "self_dict_item": ("self.store = {}", "self.store['a'] = x\nreturn x", "lost"),
}
KIND = {"rejected": "tensor_control_flow", "lost": "graph_side_effect"}


def _cls(name, init, body, base, method):
    init_block = textwrap.indent(init or "pass", " " * 8)
    return (
        f"class {name}({base}):\n    def __init__(self):\n        super().__init__()\n{init_block}\n"
        f"    def {method}(self, x):\n{textwrap.indent(body, ' ' * 8)}\n"
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_scan_flags_exactly_what_graph_mode_rejects(name, tmp_path):
    init, body, outcome = CASES[name]
    (tmp_path / "m.py").write_text(
        "import torch\nfrom torch import nn\n\n" + _cls("M", init, body, "nn.Module", "forward")
    )
    kinds = {h.kind for h in scan_path(tmp_path).hazards} & {"tensor_control_flow", "graph_side_effect"}
    assert kinds == ({KIND[outcome]} if outcome in KIND else set()), (name, kinds)


PROBE = """
import importlib, json, numpy as np
import mindspore as ms
ms.set_context(mode=ms.GRAPH_MODE)
x = ms.Tensor(np.ones((4, 3), np.float32))
out = {}
for name, attr in CELLS.items():
    cell = importlib.import_module("cell_" + name).M()  # Graph mode reads the source: a real file
    try:
        cell(x)
    except Exception:
        out[name] = "rejected"
        continue
    out[name] = "lost" if attr and len(getattr(cell, attr)) == 0 else "ok"
print("RESULT " + json.dumps(out))
"""


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="MindSpore is not installed")
def test_the_table_is_what_the_installed_mindspore_does(tmp_path):
    cells = {}
    for name, (init, body, _) in CASES.items():
        attr = init.split("=")[0].strip().removeprefix("self.") if init and init.rstrip().endswith(("[]", "{}")) else ""
        (tmp_path / f"cell_{name}.py").write_text(
            "from mindspore import nn\n\n" + _cls("M", init, body, "nn.Cell", "construct")
        )
        cells[name] = attr
    script = f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\nCELLS = {cells!r}\n" + PROBE
    # cwd: MindSpore writes rank_0/ analysis files where it runs
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line, done.stderr[-2000:]
    got = json.loads(line[len("RESULT ") :])
    assert got == {name: outcome for name, (_, _, outcome) in CASES.items()}
