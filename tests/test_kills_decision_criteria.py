"""The criteria's arithmetic through the evaluation a report runs (prepare, then each criterion): the
compliance shares, the deployment penalties, the schedule-share performance score and the migration
estimate's factor, each expected value worked out from the constants and the inputs named in the test."""

from __future__ import annotations

import pytest

from advisor.decision.constants import DEFAULT
from advisor.decision.criteria.compliance import compliance_score
from advisor.decision.criteria.deployment import EDGE_TARGETS, deployment_fit, deployment_score
from advisor.decision.criteria.migration import migration_parts
from advisor.decision.criteria.performance import schedule_share_score, window_hours
from advisor.decision.prepare import prepare
from advisor.requirements import parse_requirements


def test_the_constants_the_criteria_are_worked_with():
    assert [
        DEFAULT[n]
        for n in (
            "COMPLIANCE_HARDWARE_WEIGHT",
            "COMPLIANCE_DEPLOYMENT_WEIGHT",
            "COMPLIANCE_FRAMEWORK_WEIGHT",
            "HYBRID_COMPLIANCE_REQUIRED",
            "HYBRID_COMPLIANCE_PREFERRED",
            "COMPLIANCE_UNMET_PENALTY",
            "HYBRID_EDGE_PENALTY",
            "EDGE_CLOUD_PYTORCH_PENALTY",
            "TRAINING_RUNS",
            "PROJECT_WEEKS",
        )
    ] == [0.4, 0.3, 0.3, 15.0, 5.0, 10.0, 15.0, 15.0, 3.0, 26.0]
    assert EDGE_TARGETS == ("edge-ascend", "mobile")


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def _ctx(kb, needs=None, targets=("ascend-server", "nvidia-server"), constraints=None, epochs=90):
    req = parse_requirements(
        {
            "name": "vision",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
            "hardware": {
                "available": ["ascend", "nvidia"],
                "training_target": "ascend",
                "accelerator": "910B",
                "devices": 8,
            },
            "deployment": {"targets": list(targets)},
            "model": {"family": "cnn", "parameters_millions": 25.6, "source": "pytorch-code"},
            "needs": needs or {},
            "workload": {"model": "resnet50", "dataset_samples": 1281167, "epochs": epochs},
            "constraints": constraints or {},
        }
    )
    ctx, _ = prepare(req, None, [], kb, None, None, False)
    return ctx


def test_where_each_workflow_trains(kb):
    ctx = _ctx(kb)
    assert [(wf, ctx.routes[wf].target, ctx.routes[wf].framework) for wf in ("pytorch", "mindspore", "hybrid")] == [
        ("pytorch", "ascend", "pytorch"),
        ("mindspore", "ascend", "mindspore"),
        ("hybrid", "ascend", "mindspore"),
    ]


def test_no_mandate_is_full_compliance(kb):
    ctx = _ctx(kb)
    assert [compliance_score(wf, ctx, DEFAULT)[0] for wf in ("pytorch", "mindspore", "hybrid")] == [100.0] * 3


def test_a_required_hardware_mandate_weighs_hardware_deployment_and_framework(kb):
    """Ascend training hardware 1.0 x 0.4, half the deployment targets off NVIDIA 0.5 x 0.3, MindSpore
    1 x 0.3 (shares of 1.0): PyTorch 55, MindSpore 85, the hybrid 85 - 5 (its PyTorch prototype, the
    framework only preferred); hardware required and not fully met: each 10 less."""
    ctx = _ctx(kb, {"domestic_hardware": "required", "domestic_framework": "preferred"})
    scores = [compliance_score(wf, ctx, DEFAULT)[0] for wf in ("pytorch", "mindspore", "hybrid")]
    assert scores == [pytest.approx(45.0), pytest.approx(75.0), pytest.approx(70.0)]


def test_a_preferred_mandate_costs_no_unmet_penalty_and_a_required_framework_costs_the_hybrid_15(kb):
    preferred = _ctx(kb, {"domestic_hardware": "preferred", "domestic_framework": "preferred"})
    assert [compliance_score(wf, preferred, DEFAULT)[0] for wf in ("pytorch", "mindspore", "hybrid")] == [
        pytest.approx(55.0),
        pytest.approx(85.0),
        pytest.approx(80.0),
    ]
    framework = _ctx(kb, {"domestic_framework": "required"})  # only the framework: shares of 0.3
    assert [compliance_score(wf, framework, DEFAULT)[0] for wf in ("pytorch", "mindspore", "hybrid")] == [
        0.0,  # 0 - 10, clamped
        pytest.approx(100.0),
        pytest.approx(75.0),  # 100 - 15, then -10: required, not fully met
    ]


def test_a_training_only_mandate_leaves_the_deployment_out(kb):
    """Scope training: hardware 1.0 x 0.4 and MindSpore x 0.3 over 0.7: PyTorch 0.4 / 0.7."""
    ctx = _ctx(
        kb, {"domestic_hardware": "preferred", "domestic_framework": "preferred", "domestic_scope": ["training"]}
    )
    assert compliance_score("pytorch", ctx, DEFAULT)[0] == pytest.approx(100 * 0.4 / 0.7)
    assert compliance_score("mindspore", ctx, DEFAULT)[0] == pytest.approx(100.0)


def _fits(ctx, wf):
    route = ctx.routes[wf]
    return [
        deployment_fit(route.framework, t, ctx, DEFAULT, route.serving_for(t))[0] for t in ctx.req.deployment.targets
    ]


def test_deployment_is_the_mean_fit_of_the_targets_less_the_hybrids_edge_penalty(kb):
    cloud = _ctx(kb)
    for wf in ("pytorch", "mindspore", "hybrid"):
        fits = _fits(cloud, wf)
        assert deployment_score(wf, cloud, DEFAULT)[0] == pytest.approx(sum(fits) / len(fits)), wf
    edge = _ctx(kb, targets=("ascend-server", "edge-ascend"))
    fits = _fits(edge, "hybrid")
    assert deployment_score("hybrid", edge, DEFAULT)[0] == pytest.approx(max(0.0, sum(fits) / 2 - 15.0))
    fits = _fits(edge, "mindspore")
    assert deployment_score("mindspore", edge, DEFAULT)[0] == pytest.approx(sum(fits) / 2)


def test_edge_cloud_costs_a_pytorch_stack_15(kb):
    ctx = _ctx(kb, {"edge_cloud": True})
    fits = _fits(ctx, "pytorch")
    assert deployment_score("pytorch", ctx, DEFAULT)[0] == pytest.approx(max(0.0, sum(fits) / len(fits) - 15.0))
    fits = _fits(ctx, "mindspore")
    assert deployment_score("mindspore", ctx, DEFAULT)[0] == pytest.approx(sum(fits) / len(fits))


def test_the_schedule_share_score(kb):
    """TRAINING_RUNS (3) x the mid time to train over the project's 26 weeks x 168 h: the best workflow's
    share b and this one's s give 100 x (1 - s) / (1 - b)."""
    ctx = _ctx(kb)
    window, _ = window_hours(ctx.req, DEFAULT)
    assert window == 26 * 168.0
    times = {wf: ctx.compared[wf].time_to_train_hours.mid for wf in ("pytorch", "mindspore", "hybrid")}
    best = 3 * min(times.values()) / window
    assert best < 1
    for wf, hours in times.items():
        expected = 100 * max(0.0, 1 - 3 * hours / window) / (1 - best)
        assert schedule_share_score(wf, ctx, DEFAULT, 1.0)[0] == pytest.approx(expected), wf
    slow = {wf: h / (0.5 if ctx.compared[wf].framework == "mindspore" else 1.0) for wf, h in times.items()}
    best = 3 * min(slow.values()) / window
    score = schedule_share_score("pytorch", ctx, DEFAULT, 0.5)[0]
    assert score == pytest.approx(100 * max(0.0, 1 - 3 * slow["pytorch"] / window) / (1 - best))


def test_a_schedule_no_workflow_fits_scores_the_time_against_the_best(kb):
    """2,000 epochs against a deadline of 0.15 weeks (25.2 h): 3 runs of even the fastest workflow overrun
    it, so 100 x best / share."""
    ctx = _ctx(kb, constraints={"deadline_weeks": 0.15}, epochs=2000)
    times = {wf: ctx.compared[wf].time_to_train_hours.mid for wf in ("pytorch", "mindspore", "hybrid")}
    assert 3 * min(times.values()) / 25.2 > 1
    for wf, hours in times.items():
        assert schedule_share_score(wf, ctx, DEFAULT, 1.0)[0] == pytest.approx(100 * min(times.values()) / hours)


def test_the_migration_hours_factor_scales_every_part(kb):
    ctx = _ctx(kb)
    for wf in ("pytorch", "mindspore", "hybrid"):
        parts, _, _ = migration_parts(wf, ctx, DEFAULT)
        doubled, _, _ = migration_parts(wf, ctx, DEFAULT.moved("MIGRATION_HOURS_FACTOR", 2.0))
        assert [n for n, _, _ in doubled] == [n for n, _, _ in parts]
        assert [(a, b) for _, a, b in doubled] == [(pytest.approx(2 * a), pytest.approx(2 * b)) for _, a, b in parts]
    assert any(b > 0 for _, _, b in migration_parts("mindspore", ctx, DEFAULT)[0])


def test_without_a_knowledge_base_the_pitfall_hours_are_named_unknown(kb):
    req = _ctx(kb).req
    bare, _ = prepare(req, None, [], None, None, None, False)
    _, ev, _ = migration_parts("mindspore", bare, DEFAULT)
    assert "model.source" in [e.ref for e in ev if e.kind == "requirement"]
    _, ev, _ = migration_parts("mindspore", _ctx(kb), DEFAULT)
    assert "model.source" not in [e.ref for e in ev if e.kind == "requirement"]


# ---- the migration estimate part by part ---------------------------------------------------------------


def test_the_migration_constants_the_parts_are_worked_with():
    assert [
        DEFAULT[n]
        for n in (
            "PORT_HOURS_CNN_LOW",
            "PORT_HOURS_CNN_HIGH",
            "CUSTOM_KERNEL_HOURS_LOW",
            "CUSTOM_KERNEL_HOURS_HIGH",
            "DYNAMIC_SHAPES_HOURS_LOW",
            "DYNAMIC_SHAPES_HOURS_HIGH",
            "REVERSE_PORT_API_SHARE",
            "HOURS_PER_WEEK",
        )
    ] == [4.0, 16.0, 8.0, 40.0, 8.0, 32.0, 0.3, 40.0]


def _model_ctx(kb, **model):
    req = parse_requirements(
        {
            "name": "vision",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
            "hardware": {
                "available": ["ascend", "nvidia"],
                "training_target": "ascend",
                "accelerator": "910B",
                "devices": 8,
            },
            "deployment": {"targets": ["ascend-server"]},
            "model": {"family": "cnn", "parameters_millions": 25.6, "source": "pytorch-code", **model},
            "workload": {"model": "resnet50", "dataset_samples": 1281167, "epochs": 90},
        }
    )
    return prepare(req, None, [], kb, None, None, False)[0]


def _named(parts) -> dict:
    return {name: (low, high) for name, low, high in parts}


def test_porting_pytorch_code_to_mindspore_costs_the_familys_base_hours(kb):
    """A CNN re-implemented in MindSpore: PORT_HOURS_CNN 4-16 h; the PyTorch workflow ports nothing."""
    ctx = _model_ctx(kb)
    assert _named(migration_parts("mindspore", ctx, DEFAULT)[0])["port (re-implement and check the model)"] == (
        4.0,
        16.0,
    )
    assert "port (re-implement and check the model)" not in _named(migration_parts("pytorch", ctx, DEFAULT)[0])


def test_custom_kernels_beyond_the_pitfalls_first_and_dynamic_shapes(kb):
    """3 custom CUDA kernels: on MindSpore the custom-ops pitfall charges the first, 2 more at 8-40 h each =
    16-80 h; torch_npu on Ascend is charged no such pitfall, so all 3: 24-120 h. Dynamic shapes add 8-32 h
    on MindSpore's graph mode only."""
    ctx = _model_ctx(kb, custom_cuda_ops=True, custom_cuda_kernels=3, dynamic_shapes=True)
    ms = _named(migration_parts("mindspore", ctx, DEFAULT)[0])
    assert ms["2 more custom CUDA kernel(s)"] == (16.0, 80.0)
    assert ms["dynamic shapes for Graph mode"] == (8.0, 32.0)
    pt = _named(migration_parts("pytorch", ctx, DEFAULT)[0])
    assert pt["3 more custom CUDA kernel(s)"] == (24.0, 120.0)
    assert "dynamic shapes for Graph mode" not in pt


def test_the_migration_score_is_a_team_week_over_a_team_week_and_the_middle_hours(kb):
    """5 engineers x 40 h = 200 h a week; the score 100 x 200 / (200 + the middle of the summed parts), no
    deadline so no pressure; the hours returned are the parts' sums to 2 places."""
    from advisor.decision.criteria.migration import migration_score

    ctx = _model_ctx(kb, custom_cuda_kernels=2)
    for wf in ("pytorch", "mindspore", "hybrid"):
        (score, _, _), hours, _ = migration_score(wf, ctx, DEFAULT)
        parts = migration_parts(wf, ctx, DEFAULT)[0]
        low, high = sum(p[1] for p in parts), sum(p[2] for p in parts)
        assert hours == [round(low, 2), round(high, 2)], wf
        assert score == pytest.approx(100 * 200 / (200 + (low + high) / 2)), wf


def test_mindspore_code_moved_to_pytorch_reads_the_differing_apis_in_reverse(kb):
    """The CNN's base 4-16 h + 0.3 (REVERSE_PORT_API_SHARE) x the effort of every API mapping that differs."""
    ctx = _model_ctx(kb, source="mindspore-code")
    differs = [m for m in kb.api_mappings if m.mapping == "differs" and m.effort_hours]
    assert differs
    expected = (
        pytest.approx(4.0 + 0.3 * sum(m.effort_hours.low for m in differs)),
        pytest.approx(16.0 + 0.3 * sum(m.effort_hours.high for m in differs)),
    )
    for wf in ("pytorch", "hybrid"):
        parts = _named(migration_parts(wf, ctx, DEFAULT)[0])
        assert parts["port the MindSpore code to PyTorch (api-mappings in reverse)"] == expected, wf
    assert "port the MindSpore code to PyTorch (api-mappings in reverse)" not in _named(
        migration_parts("mindspore", ctx, DEFAULT)[0]
    )


# ---- the evaluation: totals, eligibility and the order ---------------------------------------------------


def test_each_total_is_the_weighted_sum_of_its_criteria_and_the_ranking_follows_it(kb):
    from advisor.decision.evaluate import evaluate, rank

    ev = evaluate(_ctx(kb), DEFAULT)
    for s in ev.scores:
        assert s.total == round(sum(c.weight * c.score for c in s.criteria), 3), s.workflow
        assert s.eligible and s.blocked_by == []
    totals = [s.total for s in rank(ev.scores)]
    assert totals == sorted(totals, reverse=True)
    assert ev.top() == rank(ev.scores)[0].workflow


def test_a_budget_below_every_compute_cost_makes_none_eligible(kb):
    """$0.01 against a compute cost of at least some dollars: every workflow blocked, once; a budget of
    $1e12 blocks none."""
    from advisor.decision.evaluate import evaluate

    tight = evaluate(_ctx(kb, constraints={"budget_usd": 0.01}), DEFAULT)
    assert [(s.eligible, len(s.blocked_by)) for s in tight.scores] == [(False, 1)] * 3
    ample = evaluate(_ctx(kb, constraints={"budget_usd": 1e12}), DEFAULT)
    assert [s.eligible for s in ample.scores] == [True] * 3


def test_a_required_hardware_mandate_blocks_an_nvidia_deployment_in_its_scope(kb):
    """Deploying to NVIDIA servers breaks a required domestic-hardware mandate over training and
    deployment (every workflow, once); with the mandate on training only, Ascend training passes."""
    from advisor.decision.evaluate import evaluate

    both = evaluate(_ctx(kb, {"domestic_hardware": "required"}), DEFAULT)
    assert [(s.eligible, len(s.blocked_by)) for s in both.scores] == [(False, 1)] * 3
    training = evaluate(_ctx(kb, {"domestic_hardware": "required", "domestic_scope": ["training"]}), DEFAULT)
    assert [s.eligible for s in training.scores] == [True] * 3
    framework = evaluate(_ctx(kb, {"domestic_framework": "required"}, targets=("ascend-server",)), DEFAULT)
    assert [(s.workflow, s.eligible) for s in framework.scores] == [
        ("pytorch", False),
        ("mindspore", True),
        ("hybrid", True),
    ]


# ---- performance without a time to train ---------------------------------------------------------------


def _llm_ctx(kb, **changes):
    from advisor.requirements import parse_requirements as parse

    data = {
        "name": "llm",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
        "hardware": {"available": ["nvidia"], "training_target": "nvidia", "accelerator": "H100", "devices": 8},
        "deployment": {"targets": ["nvidia-server"]},
        "model": {"family": "transformer", "parameters_millions": 6740, "source": "pytorch-code"},
        "workload": {"model": "transformer", "kind": "inference"},
        **changes,
    }
    return prepare(parse(data), None, [], kb, None, None, False)[0]


def test_a_served_load_scores_the_share_of_the_devices_it_needs(kb):
    """A 7B model on 8 H100s: 2 requests/s are met (100); 300 requests/s need 20 devices, 8 are 40% of
    them (40); a 0.01 ms first token cannot be met (0)."""
    from advisor.decision.criteria.performance import performance_score

    load = {"prompt_tokens": 1000, "output_tokens": 200}
    for serving, verdict, needed, score in (
        ({**load, "requests_per_second": 2.0}, "meets", 1, 100.0),
        ({**load, "requests_per_second": 300.0}, "needs-devices", 20, 40.0),
        ({**load, "requests_per_second": 2.0, "ttft_ms": 0.01}, "cannot", None, 0.0),
    ):
        ctx = _llm_ctx(kb, serving=serving)
        slo = ctx.compared["pytorch"].serving.slo
        assert (slo.verdict, slo.devices, slo.devices_needed) == (verdict, 8, needed)
        assert performance_score("pytorch", ctx, DEFAULT)[0] == pytest.approx(score)


def test_no_projection_takes_the_assumed_score_of_the_path(kb):
    """No workload on NVIDIA: PyTorch's first-party path takes ASSUMED_PERF_NATIVE (80); MindSpore's GPU
    path is unsupported (0). On Ascend without a workload: PyTorch through torch_npu ASSUMED_PERF_ADAPTER
    (60), MindSpore 80."""
    from advisor.decision.criteria.performance import performance_score

    assert [DEFAULT[n] for n in ("ASSUMED_PERF_CPU", "ASSUMED_PERF_NATIVE", "ASSUMED_PERF_ADAPTER")] == [
        30.0,
        80.0,
        60.0,
    ]
    nvidia = _llm_ctx(kb, workload=None)
    assert [performance_score(wf, nvidia, DEFAULT)[0] for wf in ("pytorch", "mindspore")] == [80.0, 0.0]
    ascend = _llm_ctx(
        kb,
        workload=None,
        hardware={"available": ["ascend"], "training_target": "ascend", "accelerator": "910B", "devices": 8},
        deployment={"targets": ["ascend-server"]},
    )
    assert [performance_score(wf, ascend, DEFAULT)[0] for wf in ("pytorch", "mindspore")] == [60.0, 80.0]
    cpu = _llm_ctx(
        kb,
        workload=None,
        hardware={"available": ["cpu"], "training_target": "cpu", "devices": 1},
        deployment={"targets": ["cpu-server"]},
    )
    assert performance_score("pytorch", cpu, DEFAULT)[0] == 30.0


# ---- the team and the cost criteria --------------------------------------------------------------------


def _team(pytorch: str, mindspore: str, size: int = 5, stage: str = "production"):
    return parse_requirements(
        {
            "name": "team",
            "stage": stage,
            "team": {"pytorch": pytorch, "mindspore": mindspore, "size": size},
            "hardware": {"available": ["ascend"], "training_target": "ascend", "devices": 8},
            "deployment": {"targets": ["ascend-server"]},
            "model": {"family": "cnn", "parameters_millions": 25.6, "source": "pytorch-code"},
        }
    )


def test_the_team_score_is_25_plus_25_a_skill_level():
    """TEAM_SKILL_BASE 25 + TEAM_SKILL_STEP 25 x the level (none 0 ... expert 3): expert 100, basic 50.
    The hybrid: production keeps 30% of the team's work in PyTorch (x HYBRID_SHARE_SCALE 1), less
    HYBRID_TWO_STACKS 8, and SMALL_TEAM_PENALTY 10 for a team of two or fewer."""
    from advisor.decision.criteria.team import team_score

    assert [DEFAULT[n] for n in ("TEAM_SKILL_BASE", "TEAM_SKILL_STEP", "HYBRID_TWO_STACKS", "SMALL_TEAM_PENALTY")] == [
        25.0,
        25.0,
        8.0,
        10.0,
    ]
    assert DEFAULT["HYBRID_SHARE_SCALE"] == 1.0
    req = _team("expert", "basic")
    assert [team_score(wf, req, DEFAULT)[0] for wf in ("pytorch", "mindspore")] == [100.0, 50.0]
    assert team_score("hybrid", req, DEFAULT)[0] == pytest.approx(0.3 * 100 + 0.7 * 50 - 8)
    small = _team("expert", "basic", size=2)
    assert team_score("hybrid", small, DEFAULT)[0] == pytest.approx(0.3 * 100 + 0.7 * 50 - 8 - 10)
    research = _team("proficient", "none", stage="research")  # 60% in PyTorch: 0.6 x 75 + 0.4 x 25 - 8
    assert team_score("hybrid", research, DEFAULT)[0] == pytest.approx(0.6 * 75 + 0.4 * 25 - 8)
    assert team_score("mindspore", research, DEFAULT)[0] == 25.0


def test_the_cost_score_is_the_cheapest_total_over_each_workflows(kb):
    """100 x the cheapest compared total (low + high) / this workflow's, over the parts every workflow has."""
    from advisor.decision.evaluate import evaluate
    from advisor.decision.tco import comparable_parts, compared_total

    ev = evaluate(_ctx(kb), DEFAULT)
    names = comparable_parts(ev.costs, {"pytorch", "mindspore", "hybrid"})
    assert names
    sums = {wf: sum(compared_total(ev.costs[wf], names)) for wf in ("pytorch", "mindspore", "hybrid")}
    for s in ev.scores:
        (cost,) = [c for c in s.criteria if c.name == "cost"]
        assert cost.score == round(100 * min(sums.values()) / sums[s.workflow], 3), s.workflow
    assert max(c.score for s in ev.scores for c in s.criteria if c.name == "cost") == 100.0


def test_the_ecosystem_and_debugging_criteria_lead_with_the_requirement_that_weighs_them(kb):
    from advisor.decision.evaluate import evaluate

    ev = evaluate(_ctx(kb), DEFAULT)
    for s in ev.scores:
        by_name = {c.name: c for c in s.criteria}
        assert (by_name["ecosystem"].evidence[0].kind, by_name["ecosystem"].evidence[0].ref) == (
            "requirement",
            "needs.huggingface",
        )
        assert by_name["debugging"].evidence[0].ref == "needs.debugging_intensity"
        assert len(by_name["ecosystem"].evidence) > 1
