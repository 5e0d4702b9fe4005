"""The decision arithmetic's values, worked by hand: each test states the inputs, the formula and the
number it must give, so a changed operator, bound or constant fails here by an assertion. Written
against what the mutation run (benchmarks/mutation_check.py) found no test checking."""

from __future__ import annotations

import pytest

from advisor.decision.constants import DEFAULT
from advisor.decision.schedule import pressure_penalty, schedule
from advisor.decision.serving_capacity import Efficiency, Model, fewest_devices, max_batch
from advisor.requirements import parse_requirements

# ---- the schedule against the deadline --------------------------------------------------------------
# One engineer: 40 h a week (HOURS_PER_WEEK), half of it for the migration (DEADLINE_SHARE), so 20 h of
# migration a week; training runs 168 h a calendar week.


def test_the_constants_the_schedule_examples_are_worked_with():
    assert (DEFAULT["HOURS_PER_WEEK"], DEFAULT["DEADLINE_SHARE"], DEFAULT["DEADLINE_PRESSURE_POINTS"]) == (
        40.0,
        0.5,
        30.0,
    )


def test_training_that_fits_only_at_its_slow_end_is_judged_on_its_fast_end():
    """Training 300-400 h is 1.786-2.381 weeks: its fast end fits 2 weeks, so the workflow is not ruled
    out by training alone; 2-4 h of migration at 20 h/week adds 0.1-0.2 weeks: 1.886-2.581 calendar
    weeks, which fits only at the fast end ("maybe"), although the migration alone fits (4 h <= 40 h)."""
    s = schedule("pytorch", [("port", 2.0, 4.0)], team_size=1, deadline=2.0, training_hours=(300.0, 400.0))
    assert s.training_weeks == [round(300 / 168, 3), round(400 / 168, 3)] == [1.786, 2.381]
    assert s.calendar_weeks == [round(2 / 20 + 300 / 168, 3), round(4 / 20 + 400 / 168, 3)] == [1.886, 2.581]
    assert s.allowed_hours == 40.0  # 40 h x 2 weeks x 0.5
    assert s.fits == "maybe"
    assert s.finding.startswith("migration and training fit only at the fast end: 1.9-2.6 weeks against 2")


def test_training_weeks_are_kept_to_3_places_at_both_ends():
    s = schedule("pytorch", [("port", 2.0, 4.0)], team_size=1, deadline=None, training_hours=(300.0, 410.0))
    assert s.training_weeks == [1.786, 2.44]  # 1.785714..., 2.440476...


def test_training_whose_fast_end_misses_the_deadline_does_not_fit_whatever_the_migration():
    s = schedule("pytorch", [("port", 2.0, 4.0)], team_size=1, deadline=1.5, training_hours=(300.0, 400.0))
    assert s.fits == "no"
    assert s.finding.startswith("training alone cannot finish by the deadline: 1.8-2.4 weeks")


def test_migration_then_training_past_the_deadline_does_not_fit_though_each_alone_would():
    """30-35 h of migration is 1.5-1.75 weeks at 20 h/week and fits the 80 h allowance (4 weeks x 40 h x
    0.5) on its own; training 504-588 h is 3-3.5 weeks and fits on its own; after each other they take
    4.5-5.25 weeks: even the fast end misses 4 weeks, so "no" (not the migration's own "yes")."""
    s = schedule("pytorch", [("port", 30.0, 35.0)], team_size=1, deadline=4.0, training_hours=(504.0, 588.0))
    assert s.calendar_weeks == [4.5, 5.25]
    assert s.fits == "no"
    assert s.finding.startswith("migration and training together cannot fit: at least 4.5 weeks")


def test_the_migrations_own_fit_pressure_and_penalty():
    """Two engineers (80 h/week, 40 h of it for the migration), 3 weeks: 120 h allowed. 100-140 h: the
    middle, 120 h, is the whole allowance (pressure 1), fits only at the low end; the penalty at pressure
    p is 2 x 30 p / (1 + p) = 30 points at the allowance."""
    s = schedule("hybrid", [("port", 60.0, 80.0), ("tests", 40.0, 60.0)], team_size=2, deadline=3.0)
    assert (s.hours, s.team_hours_per_week, s.weeks) == ([100.0, 140.0], 80.0, [1.25, 1.75])
    assert [p.weeks for p in s.phases] == [[0.75, 1.0], [0.5, 0.75]]
    assert (s.allowed_hours, s.pressure, s.fits) == (120.0, 1.0, "maybe")
    assert s.finding == "the migration fits only at the low end of its estimate (100-140 h against 120 h)"
    assert pressure_penalty(s) == pytest.approx(30.0)
    short = schedule("hybrid", [("port", 130.0, 150.0)], team_size=2, deadline=3.0)
    assert (short.pressure, short.fits) == (round(140 / 120, 4), "no")
    assert short.finding.startswith("the migration cannot fit: at least 130 h against 120 h (50% of 2 x 40 h x 3")
    assert pressure_penalty(short) == pytest.approx(2 * 30 * (140 / 120) / (1 + 140 / 120), abs=1e-3)
    easy = schedule("hybrid", [("port", 10.0, 20.0)], team_size=2, deadline=3.0)
    assert (easy.pressure, easy.fits, easy.finding) == (0.125, "yes", None)
    assert pressure_penalty(schedule("hybrid", [("port", 10.0, 20.0)], team_size=2, deadline=None)) == 0.0


# ---- serving capacity: the fewest devices for a load ------------------------------------------------
# A 1B dense model at 2 bytes a weight, 100-token prompts and outputs, 100 kB of KV cache per token, on
# devices of 10 GB usable, 1 TB/s and 100 TFLOP/s, each used at half its bandwidth and peak:
#   KV room on one device: 10 GB - 2 GB of weights = 8 GB; a request holds 200 tokens x 100 kB = 20 MB,
#     so at most 400 requests in flight;
#   prefill: (2 x 1e9 x 100 + 2 x 10 layers x 100^2 x 1000) FLOPs / 50 TFLOP/s = 4.004 ms;
#   one decode step of b requests: (2 GB + b x 100 kB x 150 tokens) / 0.5 TB/s = 4 ms + 0.03 ms x b
#     (bandwidth-bound: the compute term, 2e9 b / 5e13 = 0.04 ms x b, is shorter below b = 400);
#   requests/s of n instances at b in flight: n b / (b x 4.004 ms + 100 steps) = n b / (0.4 + 0.007004 b).
_MODEL = Model(
    params=1e9,
    active=1e9,
    shape_layers=10,
    hidden=1000,
    kv_per_token=1e5,
    weight_bytes=2.0,
    shared=1e9,
    per_expert=0.0,
    experts=1,
    top_k=1,
    prompt=100,
    output=100,
    usable=10e9,
    bandwidth=1e12,
    peak=1e14,
    precision="bf16",
)
_HALF = Efficiency(bandwidth=0.5, prefill=0.5)


def _load(**serving) -> object:
    return parse_requirements(
        {
            "name": "service",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
            "hardware": {"available": ["nvidia"], "training_target": "nvidia", "devices": 8},
            "deployment": {"targets": ["nvidia-server"]},
            "model": {"family": "transformer", "parameters_millions": 1000, "source": "pytorch-code"},
            "serving": {"prompt_tokens": 100, "output_tokens": 100, **serving},
        }
    )


def _rate(n: int, b: int) -> float:
    return n * b / (0.4 + 0.007004 * b)


def test_the_kv_cache_bounds_the_requests_in_flight():
    assert max_batch(_MODEL, 1) == 400  # 8 GB / 20 MB
    assert max_batch(_MODEL, 2) == 900  # 18 GB / 20 MB


def test_one_instance_carries_100_requests_per_second_with_the_fewest_requests_in_flight():
    """b / (0.4 + 0.007004 b) >= 100 first at b = 134 (133.5 solves it): one device, 134 in flight."""
    point, _ = fewest_devices(_MODEL, _load(requests_per_second=100.0), [1], _HALF)
    assert (point.t, point.n, point.batch) == (1, 1, 134)
    assert _rate(1, 133) < 100 <= _rate(1, 134)
    assert point.rps == pytest.approx(_rate(1, 134), rel=1e-9)
    assert point.ttft_s == pytest.approx(0.004004, rel=1e-9)
    assert point.tpot_s == pytest.approx(0.004 + 0.00003 * 134 + 134 * 0.004004 / 100, rel=1e-9)


def test_more_load_than_one_instance_carries_takes_the_fewest_instances_found_by_bisection():
    """One full instance (400 in flight) carries 400 / 3.2016 = 124.9 requests/s: 300/s needs 3 instances
    (2 carry 249.8, 3 carry 374.7), each again at 134 in flight; 4 would also meet it but are not the
    fewest."""
    point, _ = fewest_devices(_MODEL, _load(requests_per_second=300.0), [1], _HALF)
    assert _rate(2, 400) < 300 <= _rate(3, 400)
    assert (point.t, point.n, point.batch) == (1, 3, 134)


def test_a_latency_target_no_instance_meets_says_which_target_and_why():
    point, why = fewest_devices(_MODEL, _load(requests_per_second=1.0, ttft_ms=4.0), [1], _HALF)
    assert point is None
    assert why == "with 1 device(s) per instance, even 1,048,576 instances miss: time to first token 4 ms > 4 ms"


# ---- the scaling curve between its points -----------------------------------------------------------


def _curve():
    from advisor.decision.communication import Curve
    from advisor.decision.evidence import Evidence

    ev = Evidence(kind="knowledge", ref="test-curve", detail="a curve built in the test")
    return Curve(id="test-curve", link="roce-ib", points=((64, 0.60, 0.80), (8, 0.75, 0.93)), evidence=ev)


def test_a_curve_keeps_its_first_point_at_and_below_it():
    assert _curve().at(8) == (0.75, 0.93)
    assert _curve().at(2) == (0.75, 0.93)


def test_a_curve_is_interpolated_in_log_devices_between_its_points():
    """16 devices is a third of the way from 8 to 64 in log n: 0.75 - 0.15 / 3 = 0.70, 0.93 - 0.13 / 3."""
    low, high = _curve().at(16)
    assert (low, high) == (pytest.approx(0.70, abs=1e-12), pytest.approx(0.93 - 0.13 / 3, abs=1e-12))
    assert _curve().at(64) == (pytest.approx(0.60), pytest.approx(0.80))


def test_a_curve_keeps_falling_past_its_last_point_never_below_2_percent():
    """512 devices is one more 8x step past 64: the last segment again, 0.60 - 0.15 = 0.45, 0.80 - 0.13;
    far beyond, the 2% floor."""
    low, high = _curve().at(512)
    assert (low, high) == (pytest.approx(0.45, abs=1e-12), pytest.approx(0.67, abs=1e-12))
    assert _curve().at(8**12) == (0.02, 0.02)


# ---- ecosystem fit: the knowledge base's ratings of the stack -----------------------------------------


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def test_ecosystem_fit_is_the_weighted_mean_of_the_stacks_ratings(kb):
    """An NVIDIA team: PyTorch is scored on the pytorch stack's four aspect ratings, MindSpore on its
    own, each the mean weighted by ECOSYSTEM_ASPECTS with the model hub weighed by the HuggingFace need;
    the 0-5 ratings come out on 0-100 (aspect_score)."""
    from pathlib import Path

    from advisor.decision.criteria.common import aspect_score
    from advisor.decision.criteria.ecosystem import ECOSYSTEM_ASPECTS, HUB_WEIGHT
    from advisor.measurements import Measurements
    from advisor.report import build_report
    from advisor.requirements import load_requirements

    req = load_requirements(Path(__file__).resolve().parents[1] / "examples" / "nvidia-research-team.yaml")
    report = build_report(req, Measurements(), kb=kb, created_at="2026-01-01T00:00:00Z")
    weights = {**ECOSYSTEM_ASPECTS, "model_hub": DEFAULT[HUB_WEIGHT[req.needs.huggingface]]}
    for workflow in ("pytorch", "mindspore"):
        ratings = {aspect: aspect_score(kb, workflow, aspect)[0] for aspect in weights}
        assert None not in ratings.values(), ratings
        expected = sum(weights[a] * ratings[a] for a in weights) / sum(weights.values())
        (score,) = [s for s in report.scores if s.workflow == workflow]
        (ecosystem,) = [c for c in score.criteria if c.name == "ecosystem"]
        assert ecosystem.score == pytest.approx(expected, abs=0.051), workflow  # stored to 1 decimal


# ---- the team's recompute in the projected time ------------------------------------------------------


def test_the_recompute_factor_is_one_over_one_plus_the_teams_extra_compute_to_4_places(kb):
    """A 7B transformer on 8 x H100 with selective recompute: the projection divides its rate by
    1 + the layout's recompute overhead and lists the factor, stored to 4 decimal places."""
    import copy

    from advisor.decision.projections import project, team_recompute
    from advisor.decision.workflows import routes

    data = {
        "name": "llm",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "basic", "size": 6},
        "hardware": {"available": ["nvidia"], "training_target": "nvidia", "accelerator": "H100", "devices": 8},
        "deployment": {"targets": ["nvidia-server"]},
        "model": {
            "family": "transformer",
            "parameters_millions": 6740,
            "source": "pytorch-code",
            "recompute": "selective",
        },
        "needs": {"distributed_training": True},
        "workload": {"model": "transformer", "tokens": 1e10},
    }
    req = parse_requirements(copy.deepcopy(data))
    proj = project("pytorch", req, kb, [], route=routes(req, kb)["pytorch"])
    extra = team_recompute(req, proj.memory)
    assert extra and round(1 / (1 + extra), 5) != round(1 / (1 + extra), 4)  # the rounding is visible
    (factor,) = [f for f in proj.time_factors if f.name == "recompute"]
    assert factor.low == factor.high == round(1 / (1 + extra), 4)


# ---- serving: the capacity's own units, and a target no device meets --------------------------------


def _service(**serving) -> dict:
    return {
        "name": "llm service",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
        "hardware": {"available": ["nvidia"], "training_target": "nvidia", "accelerator": "H100", "devices": 8},
        "deployment": {"targets": ["nvidia-server"]},
        "model": {"family": "transformer", "parameters_millions": 6740, "source": "pytorch-code"},
        "workload": {"model": "transformer", "kind": "inference"},
        "serving": {"prompt_tokens": 1000, "output_tokens": 200, **serving},
    }


def test_the_kv_cache_of_a_request_is_its_tokens_times_the_cache_per_token(kb):
    """GB per request = MB per token x 1e6 x (1000 + 200 tokens) / 1e9 (each stored to 4 places)."""
    from advisor.decision.projections import project
    from advisor.decision.workflows import routes

    req = parse_requirements(_service(requests_per_second=2.0))
    cap = project("pytorch", req, kb, [], route=routes(req, kb)["pytorch"]).serving.capacity
    assert cap.kv_mb_per_token > 0
    tolerance = 0.5e-4 * 1200 / 1e3 + 0.5e-4  # the per-token figure's rounding carried over 1200 tokens
    assert cap.kv_gb_per_request == pytest.approx(cap.kv_mb_per_token * 1e6 * 1200 / 1e9, abs=tolerance)


def test_a_serving_target_no_device_can_meet_blocks_the_workflow(kb):
    """A first token in 0.01 ms: no instance size prefills 1000 tokens of a 7B model that fast, so the
    verdict is "cannot" and every workflow serving on NVIDIA is blocked by it, named as a serving fact."""
    from advisor.measurements import Measurements
    from advisor.report import build_report

    req = parse_requirements(_service(requests_per_second=2.0, ttft_ms=0.01))
    report = build_report(req, Measurements(), kb=kb, created_at="2026-01-01T00:00:00Z")
    (pytorch,) = [s for s in report.scores if s.workflow == "pytorch"]
    assert not pytorch.eligible
    assert any(b.startswith("serving: ") for b in pytorch.blocked_by), pytorch.blocked_by


def test_the_schedules_weeks_are_kept_to_3_places():
    """Three engineers, 3 x 40 = 120 h a week: 10-25 h is 0.0833-0.2083 weeks -> 0.083, 0.208, each phase
    alike."""
    s = schedule("pytorch", [("port", 10.0, 25.0)], team_size=3, deadline=None)
    assert (s.team_hours_per_week, s.weeks) == (120.0, [0.083, 0.208])
    assert [p.weeks for p in s.phases] == [[0.083, 0.208]]
    assert [p.hours for p in s.phases] == [[10.0, 25.0]]
