"""The scoring's invariants as property tests (hypothesis) over generated teams, on the bundled knowledge
base. They are about differences between workflows, not absolute totals (raising
debugging intensity may lower PyTorch's own total while it gains on the workflows that debug worse).
`sensitivity=False`: the constant search is not what these properties are about, and it is the slow part."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.requirements import CRITERIA, SKILL_LEVELS, parse_requirements
from advisor.decision.scoring import score

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


teams = st.fixed_dictionaries(
    {
        "stage": st.sampled_from(["research", "prototype", "production"]),
        "pytorch": st.sampled_from(SKILL_LEVELS),
        "mindspore": st.sampled_from(SKILL_LEVELS),
        "size": st.integers(1, 12),
        "target": st.sampled_from(["nvidia", "ascend", "undecided"]),
        "devices": st.sampled_from([1, 2, 8, 16, 64]),
        "targets": st.sampled_from(
            [["cpu-server"], ["ascend-server"], ["nvidia-server"], ["edge-ascend"], ["ascend-server", "mobile"]]
        ),
        "family": st.sampled_from(["cnn", "transformer", "other"]),
        "params": st.sampled_from([5.0, 25.6, 340.0, 7000.0]),
        "source": st.sampled_from(["new", "pytorch-code"]),
        "hf": st.sampled_from(["none", "nice", "essential"]),
        "debug": st.sampled_from(["low", "medium", "high"]),
        "domestic": st.sampled_from(["none", "preferred", "required"]),
        "deadline": st.sampled_from([None, 2.0, 8.0, 26.0]),
        "epochs": st.sampled_from([1.0, 10.0, 90.0]),
        "dynamic": st.booleans(),
    }
)


def build(t: dict) -> dict:
    data = {
        "name": "prop",
        "stage": t["stage"],
        "team": {"pytorch": t["pytorch"], "mindspore": t["mindspore"], "size": t["size"]},
        "hardware": {"available": ["nvidia", "ascend", "cpu"], "training_target": t["target"], "devices": t["devices"]},
        "deployment": {"targets": t["targets"]},
        "model": {
            "family": t["family"],
            "parameters_millions": t["params"],
            "source": t["source"],
            "dynamic_control_flow": t["dynamic"],
        },
        "needs": {
            "huggingface": t["hf"],
            "debugging_intensity": t["debug"],
            "domestic_substitution": t["domestic"],
            "distributed_training": t["devices"] > 1,
        },
        "workload": {"model": "resnet50", "dataset_samples": 1_281_167, "epochs": t["epochs"]},
    }
    if t["deadline"]:
        data["constraints"] = {"deadline_weeks": t["deadline"]}
    return data


def card(kb, data):
    return score(parse_requirements(copy.deepcopy(data)), None, None, kb, sensitivity=False)


def by(c):
    return {s.workflow: s for s in c.scores}


def projections(c):
    return {p.workflow: p for p in c.projections}


@SETTINGS
@given(teams, st.sampled_from(["pytorch", "mindspore"]))
def test_more_skill_never_lowers_that_frameworks_score(kb, t, framework):
    levels = []
    for level in SKILL_LEVELS:
        data = build(t)
        data["team"][framework] = level
        levels.append(by(card(kb, data))[framework].total)
    assert levels == sorted(levels), levels


@SETTINGS
@given(teams)
def test_a_stricter_mandate_never_raises_pytorch(kb, t):
    previous, eligible_before = None, True
    for level in ("none", "preferred", "required"):
        data = build(t)
        data["needs"]["domestic_substitution"] = level
        pt = by(card(kb, data))["pytorch"]
        if previous is not None:
            assert pt.total <= previous + 1e-9
            assert not (pt.eligible and not eligible_before)
        previous, eligible_before = pt.total, pt.eligible


@SETTINGS
@given(teams, st.sampled_from(CRITERIA), st.floats(0.05, 3.0))
def test_more_need_on_a_criterion_never_lowers_a_minus_b_where_a_leads_on_it(kb, t, criterion, extra):
    """With weights renormalised, d(T_A - T_B)/dw_c = ((s_A,c - s_B,c) - (T_A - T_B)) / W: raising a
    criterion's weight never lowers the difference when A's lead on the criterion is at least its lead
    in total (the exact form of 'A scores higher than B on that criterion' under renormalisation)."""
    data = build(t)
    base = card(kb, data)
    raw = {w.name: w.raw for w in base.weights}
    i = CRITERIA.index(criterion)
    s = by(base)
    raised = dict(raw)
    raised[criterion] = raw[criterion] + extra
    data["weights"] = raised
    after = by(card(kb, data))
    for a in s:
        for b in s:
            lead_c = s[a].criteria[i].score - s[b].criteria[i].score
            if a != b and lead_c > 0 and lead_c >= s[a].total - s[b].total:
                assert after[a].total - after[b].total >= s[a].total - s[b].total - 1e-2


@SETTINGS
@given(teams)
def test_a_bigger_model_never_makes_a_one_card_target_more_eligible(kb, t):
    before = None
    for params in (10.0, 1000.0, 10000.0, 100000.0):
        data = build(t)
        data["hardware"]["devices"] = 1
        data["model"]["parameters_millions"] = params
        eligible = {w: s.eligible for w, s in by(card(kb, data)).items()}
        if before is not None:
            assert all(before[w] or not eligible[w] for w in eligible), (params, before, eligible)
        before = eligible


@SETTINGS
@given(teams, st.sampled_from([(1, 2), (2, 8), (8, 16), (8, 64), (16, 512)]))
def test_more_devices_never_shorten_time_to_train_beyond_linear(kb, t, pair):
    n1, n2 = pair
    times = []
    for n in pair:
        data = build(t)
        data["hardware"]["devices"] = n
        times.append(projections(card(kb, data)))
    for w, p1 in times[0].items():
        p2 = times[1][w]
        if p1.time_to_train_hours is None or p2.time_to_train_hours is None:
            continue
        for end in ("low", "high"):
            t1, t2 = getattr(p1.time_to_train_hours, end), getattr(p2.time_to_train_hours, end)
            # times are rounded to 4 decimals (1e-4 h): a 10x shorter run may land on either side of the line
            assert t2 >= t1 * n1 / n2 * (1 - 1e-3) - 1e-4, (w, end, t1, t2)


@SETTINGS
@given(teams)
def test_cost_grows_with_epochs(kb, t):
    previous = None
    for epochs in (1.0, 10.0, 100.0):
        data = build(t)
        data["workload"]["epochs"] = epochs
        costs = {c.workflow: c for c in card(kb, data).costs}
        if previous is not None:
            for w, c in costs.items():
                compute = next(p for p in c.parts if p.name == "compute").usd
                before = next(p for p in previous[w].parts if p.name == "compute").usd
                if compute is not None and before is not None:
                    assert compute.low >= before.low and compute.high >= before.high
                if c.total_usd is not None and previous[w].total_usd is not None:
                    assert c.total_usd.low >= previous[w].total_usd.low - 1e-6
        previous = costs


@SETTINGS
@given(teams)
def test_a_tie_or_a_negative_margin_is_never_high(kb, t):
    rec = card(kb, build(t)).recommendation
    if rec.runner_up is not None and rec.margin < 0.5:
        assert rec.confidence != "high"
    parts = rec.confidence_parts
    assert parts is not None and parts.level == rec.confidence
