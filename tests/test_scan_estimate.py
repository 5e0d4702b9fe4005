"""Route, risk and effort scaling: pure functions over scan items (table-driven), and the totals."""

import pytest

import knowledge
from advisor.scan import effort as eff
from advisor.scan import scan_path
from advisor.scan.estimate import (
    MANUAL_HOURS,
    TORCH_NPU_HOURS,
    Picture,
    choose_route,
    judge_risk,
    pitfalls_for,
)
from advisor.scan.models import ApiUse, Dependency, HazardSummary, Location


def _api(name, mapping, hours=(0.1, 0.5), adapter=None):
    return ApiUse(
        name=name,
        count=1,
        mapping=mapping,
        kb_id=name,
        matched=name,
        effort_hours=hours,
        effort_basis="t",
        adapter=mapping != "none" if adapter is None else adapter,
    )


def _kind(kind, risk="low", hours=(1.0, 2.0), count=1, excluded=0):
    return HazardSummary(
        kind=kind, count=count, files=1, risk=risk, fix="f", effort_hours=hours, effort_basis="t", excluded=excluded
    )


CONV = [_api("torch.nn.Conv2d", "differs")]


@pytest.mark.parametrize(
    "kinds, apis, effort, training, route",
    [
        ([], CONV, (2, 10), True, "manual rewrite"),
        ([_kind("custom_extension", "high")], CONV, (20, 60), True, "manual rewrite"),
        (
            [_kind("custom_extension", "high"), _kind("no_equivalent", "high")],
            CONV,
            (20, 60),
            True,
            "stay on PyTorch via torch_npu",
        ),
        ([], CONV, (500, TORCH_NPU_HOURS + 1), True, "stay on PyTorch via torch_npu"),
        ([], CONV, (2, 10), False, "ONNX -> MindIR conversion"),  # inference only
        ([_kind("custom_extension", "high")], CONV, (2, 10), False, "manual rewrite"),  # custom ops do not export
        ([], CONV * 10, (50, MANUAL_HOURS + 1), True, "adapter layer"),  # mid-size, all on the adapter's list
        (
            [],
            [_api("torch.nn.Conv2d", "differs"), _api("torch.fx.x", "none")],
            (50, MANUAL_HOURS + 1),
            True,
            "manual rewrite",
        ),  # half the APIs not on the adapter's list
        ([_kind("custom_extension", "high", excluded=1)], CONV, (2, 10), True, "manual rewrite"),  # only in tests
    ],
)
def test_route_is_chosen_from_the_whole_picture(kinds, apis, effort, training, route):
    chosen, why, alternatives = choose_route(Picture(kinds, apis, [], effort, training=training))
    assert chosen == route, why
    assert "Why here:" in why and len(alternatives) == 3 and not any(a.startswith(route) for a in alternatives)


def test_nothing_to_migrate_for_mindspore_code_and_empty_folders():
    route, why, alternatives = choose_route(Picture([], [], [], framework="mindspore", mindspore_files=3))
    assert route == "nothing to migrate" and "already MindSpore" in why and alternatives == []
    route, why, _ = choose_route(Picture([], [], [], framework="none"))
    assert route == "nothing to migrate" and "no PyTorch code found" in why


@pytest.mark.parametrize(
    "summary, apis, effort, unparsed, deps, risk",
    [
        ([_kind("normalize"), _kind("lr_scheduler")], [_api("a.b", "same")], (2, 6), 0, [], "low"),
        ([_kind("hook", "medium")], [], (2, 6), 0, [], "medium"),
        ([_kind("custom_extension", "high")], [], (2, 6), 0, [], "high"),
        ([_kind("no_equivalent", "high")], [], (2, 6), 0, [], "high"),
        ([], [_api("torch.x", "none", (2, 8))], (2, 8), 0, [], "medium"),
        ([], [_api(f"torch.x{i}", "none", (2, 8)) for i in range(3)], (6, 24), 0, [], "medium"),  # a route exists
        ([], [], (10, 30), 0, [], "low"),
        ([], [], (100, 5000), 0, [], "medium"),  # big is not blocked: never high on size alone
        ([], [], (1, 2), 1, [], "medium"),
        (
            [],
            [],
            (1, 2),
            0,
            [Dependency(name="fvcore", files=1, uses=1, first=Location(file="a.py", line=1), mapping="none")],
            "medium",
        ),
        (
            [],
            [],
            (1, 2),
            0,
            [
                Dependency(
                    name="fvcore", files=1, uses=1, first=Location(file="a.py", line=1), mapping="none", optional=True
                )
            ],
            "low",
        ),
    ],
)
def test_risk_follows_the_documented_rule(summary, apis, effort, unparsed, deps, risk):
    level, reasons = judge_risk(summary, apis, [], effort, unparsed, deps)
    assert level == risk, reasons
    assert reasons and (level == "low" or reasons[0].startswith(level))


def test_repeat_weight_diminishes_but_never_vanishes():
    weights = [eff.weight(k, 0.05) for k in range(1, 200)]
    assert weights[0] == 1 and weights[1] == 0.5
    assert all(a >= b for a, b in zip(weights, weights[1:]))
    assert min(weights) == 0.05


def test_a_hazard_feature_is_priced_once_and_its_places_saturate(tmp_path):
    """lr_scheduler (one pattern) in n files: the first at the KB pitfall's figure, each further place
    5% of it, the repeats at most 100% of it: 1, 3, 10, 30 files cost 1, 1.1, 1.45, 2 times the first
    (every place priced at >= 0.5 x the first made a tutorial collection 4.7x too dear)."""
    kb = knowledge.load()
    base = pitfalls_for("lr_scheduler", kb)[0].effort_hours
    code = "import torch\ns = torch.optim.lr_scheduler.StepLR(opt, 1)\n"
    for n, scale in ((1, 1.0), (3, 1.1), (10, 1.45), (30, 2.0)):
        for i in range(1, n + 1):
            (tmp_path / f"m{i}.py").write_text(code)
        s = next(k for k in scan_path(tmp_path).hazard_summary if k.kind == "lr_scheduler")
        assert s.files == n and s.count == n
        assert s.effort_hours == pytest.approx((base.low * scale, base.high * scale), abs=0.02)


def test_effort_scales_with_modules_and_call_sites(tmp_path_factory):
    """5 module classes vs 200: the 200 cost far more (not the same 'nn.Module' once), and less than
    40 times as much (repeats are cheaper); an API's call sites saturate (features, not places)."""

    def project(n):
        root = tmp_path_factory.mktemp(f"p{n}")
        body = "import torch\nfrom torch import nn\n" + "".join(
            f"class Block{i}(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            f"        self.c = nn.Conv2d(3, 3, 3)\n    def forward(self, x):\n        return self.c(x)\n"
            for i in range(n)
        )
        (root / "models.py").write_text(body)
        return scan_path(root)

    small, big = project(5), project(200)
    assert big.effort_hours[0] > 8 * small.effort_hours[0]
    assert big.effort_hours[0] < 40 * small.effort_hours[0]
    modules = next(i for i in big.effort_breakdown.items if i.kind == "modules")
    assert modules.count == 200
    conv = next(a for a in big.apis if a.name == "torch.nn.Conv2d")
    conv_small = next(a for a in small.apis if a.name == "torch.nn.Conv2d")
    # one API, many call sites: the first use in full, each further 5%, at most double (5 uses: 1.2x)
    assert conv.count == 200 and conv.effort_hours[1] == pytest.approx(conv_small.effort_hours[1] * 2.0 / 1.2, abs=0.02)


def test_every_hazard_kind_is_explained_with_effort_and_an_example():
    """KB kinds by a pitfall with effort_hours (interfaces.md); the scan's own kinds by its data."""
    from advisor.scan import HAZARD_KINDS
    from advisor.scan.models import SCAN_ONLY_KINDS
    from advisor.scan.patterns import EXAMPLES, SCAN_ONLY

    kb = knowledge.load()
    missing = [
        k for k in HAZARD_KINDS if k not in SCAN_ONLY_KINDS and not any(p.effort_hours for p in pitfalls_for(k, kb))
    ]
    assert missing == []
    assert set(SCAN_ONLY) == set(SCAN_ONLY_KINDS)
    assert set(EXAMPLES) == set(HAZARD_KINDS)
    assert all(e.before and e.after and e.source for e in EXAMPLES.values())
