"""Route, risk and the per-kind effort scaling: pure functions over scan items (table-driven)."""

import pytest

import knowledge
from advisor.scan import scan_path
from advisor.scan.estimate import choose_route, judge_risk, pitfalls_for
from advisor.scan.models import ApiUse, HazardSummary


def _api(name, mapping, hours=(0.1, 0.5)):
    return ApiUse(name=name, count=1, mapping=mapping, kb_id=name, matched=name, effort_hours=hours, effort_basis="t")


def _kind(kind, risk="low", hours=(1.0, 2.0)):
    return HazardSummary(kind=kind, count=1, files=1, risk=risk, fix="f", effort_hours=hours, effort_basis="t")


@pytest.mark.parametrize(
    "kinds, apis, lines, route",
    [
        ([], [_api("torch.nn.Conv2d", "differs")], 100, "manual rewrite"),
        (["custom_extension", "model_hub"], [], 100, "manual rewrite"),
        (["tensor_control_flow"], [], 100, "manual rewrite"),
        (["model_hub"], [], 100, "ONNX -> MindIR conversion"),
        ([], [_api(f"torch.x{i}", "differs") for i in range(25)], 100, "adapter layer"),
        ([], [_api(f"torch.x{i}", "none", (2, 8)) for i in range(3)], 100, "adapter layer"),
        ([], [_api(f"torch.x{i}", "none", (0, 0.1)) for i in range(3)], 100, "manual rewrite"),  # droppable
        ([], [_api("torch.nn.Conv2d", "same")], 5000, "ONNX -> MindIR conversion"),
    ],
)
def test_route_follows_the_seeds_advice(kinds, apis, lines, route):
    chosen, why, alternatives = choose_route([_kind(k) for k in kinds], apis, [], lines)
    assert chosen == route
    assert "seed 002" in why and len(alternatives) == 2 and not any(a.startswith(route) for a in alternatives)


@pytest.mark.parametrize(
    "summary, apis, effort, unparsed, risk",
    [
        ([_kind("normalize"), _kind("lr_scheduler")], [_api("a.b", "same")], (2, 6), 0, "low"),
        ([_kind("hook", "medium")], [], (2, 6), 0, "medium"),
        ([_kind("distributed", "high")], [], (2, 6), 0, "high"),
        ([], [_api("torch.x", "none", (2, 8))], (2, 8), 0, "medium"),
        ([], [_api(f"torch.x{i}", "none", (2, 8)) for i in range(3)], (6, 24), 0, "high"),
        ([], [], (10, 30), 0, "medium"),
        ([], [], (10, 90), 0, "high"),
        ([], [], (1, 2), 1, "medium"),
    ],
)
def test_risk_is_the_worst_reason(summary, apis, effort, unparsed, risk):
    level, reasons = judge_risk(summary, apis, [], effort, unparsed)
    assert level == risk
    assert reasons and (level == "low" or reasons[0].startswith(level))


def test_kind_effort_grows_with_files_up_to_three_times(tmp_path):
    kb = knowledge.load()
    base = pitfalls_for("lr_scheduler", kb)[0].effort_hours  # interfaces.md requires one
    code = "import torch\ns = torch.optim.lr_scheduler.StepLR(opt, 1)\n"
    for n in range(1, 11):
        (tmp_path / f"m{n}.py").write_text(code)
        if n in (1, 3, 10):
            s = next(k for k in scan_path(tmp_path).hazard_summary if k.kind == "lr_scheduler")
            scale = min(3.0, 1 + 0.25 * (n - 1))
            assert s.files == n and s.count == n
            assert s.effort_hours == pytest.approx((base.low * scale, base.high * scale), abs=0.01)


def test_every_hazard_kind_has_a_kb_pitfall_with_effort():
    """interfaces.md: each scan kind MUST be named by a pitfall with effort_hours."""
    from advisor.scan import HAZARD_KINDS

    kb = knowledge.load()
    missing = [k for k in HAZARD_KINDS if not any(p.effort_hours for p in pitfalls_for(k, kb))]
    assert missing == []
