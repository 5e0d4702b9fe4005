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
            "hardware": {"available": ["ascend", "nvidia"], "training_target": "ascend", "accelerator": "910B", "devices": 8},
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
    ctx = _ctx(kb, {"domestic_hardware": "preferred", "domestic_framework": "preferred", "domestic_scope": ["training"]})
    assert compliance_score("pytorch", ctx, DEFAULT)[0] == pytest.approx(100 * 0.4 / 0.7)
    assert compliance_score("mindspore", ctx, DEFAULT)[0] == pytest.approx(100.0)


def _fits(ctx, wf):
    route = ctx.routes[wf]
    return [deployment_fit(route.framework, t, ctx, DEFAULT, route.serving_for(t))[0] for t in ctx.req.deployment.targets]


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
