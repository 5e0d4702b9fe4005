"""Prices as dated observations: the policy that picks one (knowledge/pricing.py), the cost entry the
loader derives from it, and what the bundled prices say."""

from __future__ import annotations

import datetime as dt
import statistics

import pytest

import knowledge
from knowledge.models import PriceObservation
from knowledge.pricing import WINDOW_MONTHS, choose, hourly_cost_entries


def obs(oid, usd, provider="A", term="on-demand", observed="2026-06-01", kind="hour", confidence="secondary"):
    return PriceObservation(
        id=oid,
        accelerator="x",
        kind=kind,
        usd=usd,
        provider=provider,
        term=term,
        observed=dt.date.fromisoformat(observed),
        source="test",
        confidence=confidence,
    )


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


def test_newest_observation_per_provider_wins():
    c = choose([obs("old", 9.0, "A", observed="2025-09-01"), obs("new", 3.0, "A", observed="2026-06-01")])
    assert (c.value, c.low, c.high, c.as_of) == (3.0, 3.0, 3.0, dt.date(2026, 6, 1))
    assert [o.id for o in c.observations] == ["new"]


def test_median_across_providers_and_the_range():
    c = choose([obs("a", 1.0, "A"), obs("b", 4.0, "B"), obs("c", 2.0, "C"), obs("d", 10.0, "D")])
    assert c.value == statistics.median([1.0, 2.0, 4.0, 10.0]) == 3.0
    assert (c.low, c.high) == (1.0, 10.0) and c.providers == ["A", "C", "B", "D"]


def test_on_demand_before_other_terms():
    c = choose([obs("spot", 1.0, "A", term="spot"), obs("od", 5.0, "B"), obs("cb", 2.0, "C", term="capacity-block")])
    assert c.value == 5.0 and [o.id for o in c.observations] == ["od"]
    # with no on-demand price at all, every term counts
    c = choose([obs("spot", 1.0, "A", term="spot"), obs("cb", 2.0, "C", term="capacity-block")])
    assert c.value == 1.5


def test_a_provider_far_older_than_the_newest_is_dropped():
    c = choose([obs("stale", 9.0, "A", observed="2024-12-31"), obs("fresh", 3.0, "B", observed="2026-06-01")])
    assert [o.id for o in c.observations] == ["fresh"] and c.value == 3.0
    # within the window it stays
    c = choose([obs("recent", 9.0, "A", observed="2025-09-01"), obs("fresh", 3.0, "B", observed="2026-06-01")])
    assert c.value == 6.0 and WINDOW_MONTHS == 12


def test_weakest_confidence_and_one_kind_only():
    c = choose([obs("a", 1.0, "A", confidence="vendor"), obs("b", 2.0, "B", confidence="blog")])
    assert c.confidence == "blog"
    assert choose([]) is None
    with pytest.raises(ValueError, match="one kind"):
        choose([obs("a", 1.0), obs("b", 2.0, kind="card")])


def test_derived_cost_entry_names_its_observations():
    entries = hourly_cost_entries([obs("a", 1.0, "A"), obs("b", 3.0, "B"), obs("c", 5000.0, kind="card")], "label")
    assert list(entries) == ["x-hour"]
    e = entries["x-hour"]
    assert (e["kind"], e["accelerator"], e["usd"]["value"], e["as_of"]) == (
        "accelerator_hour",
        "x",
        2.0,
        dt.date(2026, 6, 1),
    )
    assert "a, b" in e["usd"]["source"] and [a["value"] for a in e["usd"]["alternatives"]] == [1.0, 3.0]
    assert "range 1-3" in e["usd"]["note"]


def test_h100_price_is_the_2026_median_not_the_2024_capacity_block(kb):
    hourly = kb.costs_for("accelerator_hour", "h100")
    assert [c.id for c in hourly] == ["h100-hour"]  # one price per accelerator: nothing to pick by id
    price = hourly[0]
    assert price.usd.value == pytest.approx(2.995) and price.as_of == dt.date(2026, 5, 20)
    assert 4.916 not in [a.value for a in price.usd.alternatives]  # the capacity block is not used
    choice = kb.price_for("h100")
    assert (choice.low, choice.high) == (1.8, 6.98) and len(choice.observations) == 8
    assert "h100-aws-capacity-block" in {p.id for p in kb.prices_for("h100")}  # kept for history


def test_v100_32gb_is_priced_from_a_v100_32gb_instance(kb):
    price = kb.get("v100-hour")
    assert price.usd.value == 3.9 and "p3dn" in price.usd.source + str(price.usd.alternatives)
    assert kb.get("v100-16gb-hour").usd.value == 3.06


def test_every_training_accelerator_has_a_price(kb):
    for acc in kb.accelerators:
        if acc.training_capable and acc.vendor != "generic":
            assert kb.costs_for("accelerator_hour", acc.id), acc.id
    c910 = kb.costs_for("accelerator_hour", "ascend-910c")[0]
    assert c910.usd.confidence == "assumption" and "two 910B" in c910.usd.note


def test_ascend_prices_are_marked_assumption_with_reasoning(kb):
    for acc_id in ("ascend-910", "ascend-910b", "ascend-910b4", "ascend-910c"):
        c = kb.costs_for("accelerator_hour", acc_id)[0]
        assert c.confidence == "assumption" and c.usd.confidence == "assumption"
        assert c.usd.note and len(c.usd.note) > 20, acc_id


def test_an_override_of_a_derived_price_wins_field_by_field(tmp_path):
    (tmp_path / "costs.yaml").write_text(
        "- id: h100-hour\n  usd: {value: 2.1, source: our contract, confidence: vendor}\n  as_of: 2026-11-01\n"
    )
    kb = knowledge.load([tmp_path])
    c = kb.get("h100-hour")
    assert (c.usd.value, c.usd.confidence, str(c.as_of), c.kind, c.accelerator) == (
        2.1,
        "vendor",
        "2026-11-01",
        "accelerator_hour",
        "h100",
    )


def test_a_users_own_observation_enters_the_median(tmp_path):
    (tmp_path / "prices.yaml").write_text(
        "- {id: our-h100, accelerator: h100, kind: hour, usd: 100.0, provider: Ours, term: on-demand,"
        " observed: 2026-11-01, source: our invoice, confidence: vendor}\n"
    )
    kb = knowledge.load([tmp_path])
    assert kb.price_for("h100").as_of == dt.date(2026, 11, 1)
    assert kb.get("h100-hour").usd.value == pytest.approx(3.0)  # 9 providers now: the 5th of 9
    assert kb.get("h100-hour").usd.alternatives[-1].value == 100.0


def test_a_price_for_an_unknown_accelerator_is_a_broken_reference(tmp_path):
    (tmp_path / "prices.yaml").write_text(
        "- {id: bad, accelerator: no-such-chip, kind: hour, usd: 1, provider: X, term: spot,"
        " observed: 2026-01-01, source: s, confidence: blog}\n"
    )
    with pytest.raises(knowledge.KnowledgeError, match="no accelerator with id 'no-such-chip'"):
        knowledge.load([tmp_path])


def test_purchase_prices_where_published(kb):
    card = kb.price_for("rtx-4090", "card")
    assert card.value == 1599 and card.observations[0].term == "list"
    server = kb.prices_for("v100", "server")[0]
    assert server.devices == 8 and server.usd == 149000
