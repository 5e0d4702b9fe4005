"""The scan's parts read like its whole: no role, package or file row reaches past the headline range
(each is totalled by the headline's own rule), and the APIs counted "with no mapping" are named."""

from advisor.render.tables.scan import ScanText
from advisor.scan import effort, scan_path


def _ledger(n_items: int) -> effort.Ledger:
    ledger = effort.Ledger()
    for i in range(n_items):  # independent items (APIs), all in one file and role
        ledger.add(effort.Occurrence(f"api torch.x{i}", "api", "m.py", "other", False, 1.0, 5.0), "")
    ledger.add(effort.Occurrence("port code (model)", "code", "net.py", "model", False, 2.0, 4.0, 100), "")
    return ledger


def test_a_role_row_never_reaches_past_the_total():
    files = [
        effort.FileInfo("m.py", 10, "other", False, True, False),
        effort.FileInfo("net.py", 100, "model", False, True, False),
    ]
    result, total, worst = effort.breakdown(_ledger(9), files, [])
    # total: low 9 + 2 = 11; ranges: nine independent 4 h ones and the line rate's 2 h
    assert total == (11.0, round(11 + (9 * 16 + 4) ** 0.5, 2))
    assert worst == 49.0
    other = next(s for s in result.by_role if s.name == "other")
    assert other.effort_hours == (9.0, 21.0)  # 9 + sqrt(9 x 4^2); a plain sum of highs said 45
    for shares in (result.by_role, result.by_package, result.by_file):
        for share in shares:
            assert share.effort_hours[1] <= total[1]


def test_a_real_scan_has_no_row_above_its_headline(tmp_path):
    code = ["import torch", "import torch.nn as nn", "from torch.optim.lr_scheduler import StepLR", ""]
    code += [f"y{i} = torch.special.x{i}(torch.zeros(2))" for i in range(12)]  # APIs the KB does not know
    code += ["x = torch.zeros(3)", "x.add_(1)", "dist = torch.distributed.init_process_group('nccl')"]
    (tmp_path / "train.py").write_text("\n".join(code) + "\n")
    (tmp_path / "net.py").write_text(
        "import torch.nn as nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x\n"
    )
    result = scan_path(tmp_path)
    b = result.effort_breakdown
    for share in [*b.by_role, *b.by_package, *b.by_file]:
        if not share.excluded:
            assert share.effort_hours[1] <= result.effort_hours[1], share


def test_the_apis_counted_with_no_mapping_are_named(tmp_path):
    (tmp_path / "m.py").write_text(
        "import torch\nimport torch.fx\n\ng = torch.fx.symbolic_trace(torch.nn.Linear(2, 2))\n"
        "y = torch.special.not_a_real_api(torch.zeros(2))\n"
    )
    result = scan_path(tmp_path)
    text = ScanText(width=200).format(result)
    line = next(ln for ln in text.splitlines() if "with no mapping" in ln)
    n = result.api_classes["no_mapping"]
    assert n >= 2 and f"{n} with no mapping (" in line
    assert "torch.fx.symbolic_trace" in line and "torch.special.not_a_real_api" in line
