"""The decision model against the field reports' advice (seeds 000/002/004): the examples give their
expected workflows, table-driven cases reproduce "when to choose which", monotonicity holds, hard
constraints rule workflows out, and every criterion carries its evidence. Uses the bundled
knowledge base (the real one: these are the product's acceptance tests for it as much as for scoring)."""

from __future__ import annotations

import copy
import itertools
from pathlib import Path

import pytest

from advisor.requirements import CRITERIA, SKILL_LEVELS, load_requirements, parse_requirements
from advisor.decision.scoring import score
from advisor.decision.weights import resolve_weights

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def make(**overrides) -> dict:
    """A neutral team; `overrides` are dotted paths ("needs.huggingface": "essential")."""
    data = {
        "name": "case",
        "stage": "prototype",
        "team": {"pytorch": "basic", "mindspore": "basic", "size": 5},
        "hardware": {"available": ["nvidia", "ascend", "cpu"], "training_target": "undecided", "devices": 1},
        "deployment": {"targets": ["cpu-server"]},
        "model": {"family": "cnn", "parameters_millions": 25.6, "source": "new"},
        "needs": {
            "huggingface": "none",
            "distributed_training": False,
            "debugging_intensity": "medium",
            "throughput_priority": "medium",
            "domestic_substitution": "none",
            "edge_cloud": False,
        },
    }
    for path, value in overrides.items():
        node = data
        *parents, leaf = path.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return data


def decide(kb, data, **kw):
    return score(parse_requirements(copy.deepcopy(data)), None, None, kb, **kw)


def total(card, workflow):
    return next(s for s in card.scores if s.workflow == workflow).total


@pytest.mark.parametrize(
    "example, expected",
    [
        ("ascend-production.yaml", "mindspore"),
        ("nvidia-research-team.yaml", "pytorch"),
        ("prototype-then-ascend.yaml", "pytorch"),  # the torch_npu route: see the test below
    ],
)
def test_examples_give_their_expected_workflow(kb, example, expected):
    card = score(load_requirements(ROOT / "examples" / example), None, None, kb)
    assert card.recommendation.workflow == expected, [(s.workflow, s.total, s.blocked_by) for s in card.scores]


ON_NVIDIA = {
    "hardware.available": ["nvidia", "cpu"],
    "hardware.training_target": "nvidia",
    "deployment.targets": ["nvidia-server"],
}
ON_ASCEND = {
    "hardware.available": ["ascend", "cpu"],
    "hardware.training_target": "ascend",
    "hardware.accelerator": "Ascend 910B",
    "deployment.targets": ["ascend-server"],
}

# The seeds' "什么场景选哪个" advice, as requirements -> expected workflow.
SEED_CASES = {
    # 选PyTorch: team already on PyTorch; heavy HuggingFace use; NVIDIA deployment; research with debugging.
    "pytorch-team-on-nvidia-with-hf": (
        {
            **ON_NVIDIA,
            "team.pytorch": "expert",
            "team.mindspore": "none",
            "needs.huggingface": "essential",
            "model.source": "pytorch-code",
        },
        "pytorch",
    ),
    "research-debugging-on-nvidia": (
        {**ON_NVIDIA, "stage": "research", "team.pytorch": "proficient", "needs.debugging_intensity": "high"},
        "pytorch",
    ),
    "hf-essential-neutral-team-nvidia": ({**ON_NVIDIA, "needs.huggingface": "essential"}, "pytorch"),
    "neutral-research-team-on-nvidia": ({**ON_NVIDIA, "stage": "research", "needs.huggingface": "nice"}, "pytorch"),
    "domestic-only-preferred-on-nvidia": (
        {**ON_NVIDIA, "team.pytorch": "proficient", "needs.domestic_substitution": "preferred"},
        "pytorch",
    ),
    # 选MindSpore: Ascend hardware; edge-cloud; strict throughput; domestic substitution.
    "ascend-hardware": ({**ON_ASCEND, "stage": "production", "needs.debugging_intensity": "low"}, "mindspore"),
    "edge-cloud-on-ascend": (
        {**ON_ASCEND, "deployment.targets": ["ascend-server", "edge-ascend"], "needs.edge_cloud": True},
        "mindspore",
    ),
    "throughput-on-ascend": (
        {
            **ON_ASCEND,
            "stage": "production",
            "needs.throughput_priority": "high",
            "needs.debugging_intensity": "low",
            "hardware.devices": 8,
            "workload": {"model": "resnet50", "dataset_samples": 1200000, "epochs": 90},
        },
        "mindspore",
    ),
    # The seeds' "strict throughput" reason for MindSpore is torch_npu's 13-17% gap; on this 90-epoch
    # ResNet-50 (about two hours on 8 x 910B) it changes neither cost nor schedule, so the PyTorch team
    # stays on PyTorch through torch_npu (performance scores what a throughput gap changes).
    "throughput-pytorch-team-on-ascend-stays-on-torch-npu": (
        {
            **ON_ASCEND,
            "stage": "production",
            "team.pytorch": "proficient",
            "team.mindspore": "basic",
            "needs.throughput_priority": "high",
            "needs.debugging_intensity": "low",
            "hardware.devices": 8,
            "workload": {"model": "resnet50", "dataset_samples": 1200000, "epochs": 90},
        },
        "pytorch",
    ),
    "domestic-required-pytorch-team": (
        {
            **ON_ASCEND,
            "team.pytorch": "proficient",
            "team.mindspore": "basic",
            "stage": "production",
            "needs.debugging_intensity": "low",
            "needs.domestic_substitution": "required",
        },
        "mindspore",
    ),
    "mindspore-team-mobile": (
        {
            "team.mindspore": "proficient",
            "hardware.training_target": "ascend",
            "deployment.targets": ["mobile", "edge-ascend"],
            "needs.edge_cloud": True,
        },
        "mindspore",
    ),
    "mindspore-experts-on-ascend-prototype": (
        {**ON_ASCEND, "team.mindspore": "expert", "team.pytorch": "proficient", "needs.debugging_intensity": "high"},
        "mindspore",
    ),
    # 两个都要用: validate in PyTorch quickly, then migrate to MindSpore for Ascend deployment.
    "validate-in-pytorch-deploy-on-ascend": (
        {
            **ON_ASCEND,
            "hardware.available": ["nvidia", "ascend", "cpu"],
            "team.pytorch": "proficient",
            "team.mindspore": "basic",
            "needs.debugging_intensity": "high",
            "needs.huggingface": "nice",
            "needs.domestic_substitution": "preferred",
        },
        "hybrid",
    ),
}


@pytest.mark.parametrize("case", sorted(SEED_CASES))
def test_seed_advice(kb, case):
    overrides, expected = SEED_CASES[case]
    card = decide(kb, make(**overrides))
    detail = [(s.workflow, round(s.total, 1), s.blocked_by) for s in card.scores]
    if expected.startswith("!"):
        assert card.recommendation.workflow != expected[1:], detail
    else:
        assert card.recommendation.workflow == expected, detail


def test_more_pytorch_skill_never_lowers_pytorch(kb):
    bases = [
        make(**ON_NVIDIA),
        make(**ON_ASCEND),
        make(**SEED_CASES["validate-in-pytorch-deploy-on-ascend"][0]),
        make(**{**ON_ASCEND, "needs.domestic_substitution": "required"}),
    ]
    for base in bases:
        totals = []
        for level in SKILL_LEVELS:
            data = copy.deepcopy(base)
            data["team"]["pytorch"] = level
            # totals only: the constant sensitivity search (the expensive part) moves no total
            totals.append(total(decide(kb, data, sensitivity=False), "pytorch"))
        assert totals == sorted(totals) and totals[0] < totals[-1], totals


def test_stricter_domestic_requirement_never_raises_pytorch(kb):
    for base, hf, target in itertools.product(
        [ON_NVIDIA, ON_ASCEND], ["none", "essential"], ["nvidia", "ascend", "undecided"]
    ):
        previous = None
        eligible_before = True
        for level in ("none", "preferred", "required"):
            data = make(
                **{
                    **base,
                    "needs.huggingface": hf,
                    "hardware.training_target": target,
                    "needs.domestic_substitution": level,
                }
            )
            card = decide(kb, data, sensitivity=False)  # totals and eligibility only
            pt = next(s for s in card.scores if s.workflow == "pytorch")
            if previous is not None:
                assert pt.total <= previous + 1e-9
                assert not (pt.eligible and not eligible_before)
            previous, eligible_before = pt.total, pt.eligible


def test_domestic_required_rules_out_pytorch_with_reason(kb):
    card = decide(kb, make(**{**ON_ASCEND, "needs.domestic_substitution": "required"}))
    pt = next(s for s in card.scores if s.workflow == "pytorch")
    assert not pt.eligible
    assert any("domestic_substitution=required" in b for b in pt.blocked_by)
    assert card.recommendation.workflow != "pytorch"
    assert any("pytorch is ruled out" in r for r in card.recommendation.reasons)


def test_nvidia_target_rules_out_mindspore_with_kb_evidence(kb):
    card = decide(kb, make(**ON_NVIDIA))
    ms = next(s for s in card.scores if s.workflow == "mindspore")
    assert not ms.eligible and "CUDA" in ms.blocked_by[0]
    perf = next(c for c in ms.criteria if c.name == "performance")
    assert perf.score == 0 and any(e.kind == "knowledge" and e.ref == "mindspore" for e in perf.evidence)


def test_deadline_blocks_a_migration_that_cannot_fit(kb):
    data = make(
        **{
            **ON_ASCEND,
            "team.size": 1,
            "constraints.deadline_weeks": 0.5,
            "model.source": "pytorch-code",
            "needs.distributed_training": True,
            "model.custom_cuda_ops": True,
        }
    )
    card = decide(kb, data)
    hybrid = next(s for s in card.scores if s.workflow == "hybrid")
    assert not hybrid.eligible and "deadline_weeks" in hybrid.blocked_by[0]


def test_nothing_eligible_still_answers_with_low_confidence(kb):
    data = make(**{**ON_NVIDIA, "needs.domestic_substitution": "required"})
    card = decide(kb, data)
    assert not any(s.eligible for s in card.scores)
    assert card.recommendation.confidence == "low"
    assert "No workflow meets every hard constraint" in card.recommendation.summary


def test_every_criterion_has_evidence_and_a_score(kb):
    for example in ("ascend-production.yaml", "nvidia-research-team.yaml", "prototype-then-ascend.yaml"):
        card = score(load_requirements(ROOT / "examples" / example), None, None, kb)
        for s in card.scores:
            assert [c.name for c in s.criteria] == list(CRITERIA)
            for c in s.criteria:
                assert 0 <= c.score <= 100 and c.evidence, (s.workflow, c.name)
                for e in c.evidence:
                    if e.kind == "knowledge":
                        assert e.source and e.confidence
                        assert kb.get(e.ref) is not None, e.ref
                    if e.kind == "measured":
                        assert e.ci95
            assert abs(sum(c.weight for c in s.criteria) - 1) < 1e-6
            assert abs(s.total - sum(c.weight * c.score for c in s.criteria)) < 1e-2


def test_default_weights_follow_requirements():
    low = {w.name: w.weight for w in resolve_weights(parse_requirements(make(**{"needs.throughput_priority": "low"})))}
    high = {
        w.name: w.weight for w in resolve_weights(parse_requirements(make(**{"needs.throughput_priority": "high"})))
    }
    assert high["performance"] > low["performance"]
    hf = {w.name: w.weight for w in resolve_weights(parse_requirements(make(**{"needs.huggingface": "essential"})))}
    assert hf["ecosystem"] > low["ecosystem"]


def test_user_weights_override_and_renormalise(kb):
    data = make(**{**SEED_CASES["validate-in-pytorch-deploy-on-ascend"][0], "weights": {"team": 5, "compliance": 0}})
    req = parse_requirements(data)
    weights = {w.name: w for w in resolve_weights(req)}
    assert abs(sum(w.weight for w in weights.values()) - 1) < 1e-9
    assert weights["team"].origin == "user" and weights["compliance"].weight == 0
    assert weights["team"].weight > 0.6
    card = score(req, None, None, kb)
    # With team skill dominating, the PyTorch-proficient team gets PyTorch.
    assert card.recommendation.workflow == "pytorch"


def test_sensitivity_thresholds_really_flip_the_winner(kb):
    req = load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml")
    card = score(req, None, None, kb)
    flips = [s for s in card.sensitivity if s.threshold is not None]
    assert flips, "a close call must have at least one weight that flips it"
    assert [s.criterion for s in card.sensitivity] == list(CRITERIA)
    for item in flips:
        # Put the criterion at just beyond the threshold, others rescaled: the winner must change.
        w = item.threshold + (0.01 if item.threshold > item.weight else -0.01)
        w = min(max(w, 0.0), 1.0)
        others = {x.name: x.weight for x in card.weights if x.name != item.criterion}
        scale = (1 - w) / sum(others.values())
        weights = {**{k: v * scale for k, v in others.items()}, item.criterion: w}
        data = req.model_dump(mode="json")
        data["weights"] = weights
        flipped = score(parse_requirements(data), None, None, kb)
        assert flipped.recommendation.workflow == item.new_top, item


def test_score_is_pure_and_deterministic(kb):
    req = load_requirements(ROOT / "examples" / "ascend-production.yaml")
    a = score(req, None, None, kb).model_dump_json()
    b = score(req, None, None, kb).model_dump_json()
    assert a == b


def test_works_without_a_knowledge_base():
    card = score(load_requirements(ROOT / "examples" / "nvidia-research-team.yaml"), None, None, None)
    assert card.recommendation.workflow == "pytorch"
    assert any("no knowledge base" in a for a in card.assumptions)
    assert all(p.basis == "none" for p in card.projections)


def test_rules_moved_into_constants_move_the_scores(kb):
    """The criteria's decisive numbers (the scan-risk points, the hybrid's PyTorch shares, the
    prototype fluency step, the model-hub weights) are named constants, read through Consts and searched;
    moving one moves the score it drives, and the defaults reproduce the old tables."""
    from advisor.decision.constants import CONSTANTS

    names = [
        "SCAN_RISK_MEDIUM_PENALTY",
        "SCAN_RISK_HIGH_PENALTY",
        "HYBRID_SHARE_SCALE",
        "PROTOTYPE_FLUENCY_STEP",
        "HUB_WEIGHT_NONE",
        "HUB_WEIGHT_NICE",
        "HUB_WEIGHT_ESSENTIAL",
    ]
    assert all(CONSTANTS[n].search is not None for n in names)
    assert [CONSTANTS[n].value for n in names] == [5.0, 10.0, 1.0, 0.25, 0.5, 1.5, 3.0]
    req = load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml")

    def crit(card, wf, name):
        s = next(s for s in card.scores if s.workflow == wf)
        return next(c for c in s.criteria if c.name == name).score

    base = score(req, kb=kb, sensitivity=False)
    moved = score(req, kb=kb, sensitivity=False, constants={"HYBRID_SHARE_SCALE": 0.5})
    assert crit(moved, "hybrid", "team") != crit(base, "hybrid", "team")
    assert crit(moved, "pytorch", "team") == crit(base, "pytorch", "team")
    hub = {"essential": "HUB_WEIGHT_ESSENTIAL", "nice": "HUB_WEIGHT_NICE", "none": "HUB_WEIGHT_NONE"}[
        req.needs.huggingface
    ]
    heavier = score(req, kb=kb, sensitivity=False, constants={hub: 9.0})
    assert crit(heavier, "pytorch", "ecosystem") != crit(base, "pytorch", "ecosystem")
    full = score(req, kb=kb)
    found = {c.name: c for c in full.constant_sensitivity}
    assert set(names) <= set(found)


def test_pytorch_with_nvidia_for_development_is_one_route_to_ascend(kb):
    """NVIDIA for development, Ascend for production. The pytorch workflow is the route
    'prototype on NVIDIA in plain PyTorch, train and serve through torch_npu, no port', its debugging and
    ecosystem scored where the work is done (the stage's split, as the hybrid's). What the field reports
    say of it is modelled, not special-cased: the Ascend operator library's gaps, the conversion chain
    and CPU fallback at serving bite torch_npu too (the pitfalls), and torch_npu's documentation and
    community are Ascend's, not PyTorch's (3/5). Outcome on the bundled example: PyTorch through
    torch_npu, 2.8 points ahead of the hybrid, confidence low. The seeds' reason for the hybrid
    ("validate in PyTorch, then MindSpore for throughput and Ascend deployment") is throughput, and here
    the assumed input pipeline (INPUT_PIPELINE_PER_HOST, 20,000 images/s) caps every route alike. Since
    performance is scored by the share of the schedule a run takes, the loader's rate no longer flips it:
    a 25-minute run is minutes either way. The PyTorch prototype phase weighs the same in the PyTorch
    route and the hybrid (one rule: the stage's share x the team's fluency)."""
    req = load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml")
    card = score(req, kb=kb)
    rec = card.recommendation
    assert rec.workflow == "pytorch" and rec.runner_up == "hybrid" and rec.confidence == "low"
    assert 0 < rec.margin < 5
    pt = next(s for s in card.scores if s.workflow == "pytorch")
    notes = {c.name: c.note for c in pt.criteria}
    for name in ("debugging", "ecosystem"):
        assert "prototyping on NVIDIA" in notes[name] and "then torch_npu, no port" in notes[name]
    assert {"unsupported-operator", "torch-npu-adapter-overhead"} <= set(pt.pitfalls)
    loader = next(c for c in card.constant_sensitivity if c.name == "INPUT_PIPELINE_PER_HOST")
    assert loader.new_top is None  # the loader changes minutes of a 16-week project
    hy = next(s for s in card.scores if s.workflow == "hybrid")
    for name in ("debugging", "ecosystem"):
        share = next(c for c in pt.criteria if c.name == name).note.split("%")[0]
        assert share == next(c for c in hy.criteria if c.name == name).note.split("%")[0]
    # without NVIDIA to develop on, the pytorch workflow works through torch_npu throughout
    ascend_only = req.model_copy(update={"hardware": req.hardware.model_copy(update={"available": ["ascend", "cpu"]})})
    only = score(ascend_only, kb=kb, sensitivity=False)
    pt_only = next(s for s in only.scores if s.workflow == "pytorch")
    debug = next(c for c in pt_only.criteria if c.name == "debugging")
    assert "prototyping on NVIDIA" not in debug.note
    assert debug.score < next(c for c in pt.criteria if c.name == "debugging").score
