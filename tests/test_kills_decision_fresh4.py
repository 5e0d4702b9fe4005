"""The decision arithmetic, for the real gaps the fresh draw after test_kills_decision_fresh3.py (seed 2032)
found: the usable memory's evidence in a fit, a server price shared by its cards, the power budget's range
over a datasheet's alternatives, the accelerator an owned cost names and the rank counts the scaling
probe is picked at. Each expected value is worked out in its docstring; a finding is asserted by its code,
worded through the catalogue."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from advisor.decision.communication import pick_measurement
from advisor.decision.constants import DEFAULT
from advisor.decision.findings import said
from advisor.decision.memory import memory_fit, usable_memory
from advisor.decision.projections import project
from advisor.decision.tco import _power_budget, capital_per_device, total_cost
from kill_inputs import h100_team


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


@pytest.fixture(scope="module")
def h100(kb):
    (acc,) = [a for a in kb.accelerators if a.id == "h100"]
    return acc


def _vision(**constraints):
    return h100_team(
        name="vision",
        model={"family": "cnn", "parameters_millions": 25.6, "source": "pytorch-code"},
        workload={"model": "custom", "gflops_per_sample": 1000, "dataset_samples": 1_000_000_000},
        constraints=constraints,
    )


def test_a_memory_fit_carries_the_evidence_of_the_usable_memory(kb, h100):
    """The H100 has no usable-memory figure: 80 GiB x USABLE_MEMORY_NVIDIA, and that reading's evidence
    stands among the fit's."""
    _, _, u_ev = usable_memory(h100)
    assert u_ev
    fit = memory_fit(SimpleNamespace(accelerator=h100, training=None), _vision(), kb)
    assert all(e in fit.evidence for e in u_ev)


def test_a_servers_price_is_shared_by_its_cards_and_a_cards_is_its_own():
    """A server of 8 cards at $240,000 is $30,000 a card; a card bought alone at $25,000 is $25,000."""
    prices = [
        SimpleNamespace(kind="server", usd=240000.0, devices=8),
        SimpleNamespace(kind="card", usd=25000.0, devices=1),
    ]
    kb = SimpleNamespace(prices_for=lambda acc_id: prices)
    low, high, obs = capital_per_device(kb, SimpleNamespace(id="x"))
    assert (low, high, len(obs)) == (25000.0, 30000.0, 2)


def test_the_power_budget_spans_a_servers_datasheet_alternatives():
    """16 devices in servers of 8: 2 servers of 10,201 or 11,003 W: 20.402-22.006 kW, kept to two places
    (20.4-22.01), provisioned at the high end and stated as the finding tco.power.servers with those
    figures; rented, the finding tco.power.cloud says the provider carries it."""
    acc = SimpleNamespace(
        name="card",
        server_power_w=SimpleNamespace(value=10201.0, alternatives=[SimpleNamespace(value=11003.0)], source="sheet"),
        server_devices=8,
    )
    owned = SimpleNamespace(constraints=SimpleNamespace(compute_pricing="owned"))
    budget, span, notes = _power_budget(SimpleNamespace(devices=16), owned, acc, DEFAULT)
    assert (span.low, span.high, budget) == (20.4, 22.01, 22.01)
    assert said("tco.power.cloud") not in notes
    assert notes == [
        said(
            "tco.power.servers",
            servers=2,
            server_devices=8,
            accelerator="card",
            watts_low=10201.0,
            watts_high=11003.0,
            source="sheet",
            kw_low=20.4,
            kw_high=22.01,
        )
    ]
    cloud = SimpleNamespace(constraints=SimpleNamespace(compute_pricing="cloud"))
    assert said("tco.power.cloud") in _power_budget(SimpleNamespace(devices=16), cloud, acc, DEFAULT)[2]


def test_an_owned_cost_names_the_projected_accelerator(kb, h100):
    """Owned hardware with the capital sunk: the compute part states the finding tco.compute.sunk with the
    projection's devices and its accelerator (not the vendor target)."""
    req = _vision(compute_pricing="owned", owned_capital="sunk")
    proj = project("pytorch", req, kb, [], basis_cap="peak")
    assert proj.accelerator and proj.accelerator != proj.target
    (compute,) = [p for p in total_cost(proj, [40.0, 80.0], req, kb, h100).parts if p.name == "compute"]
    assert compute.detail == said("tco.compute.sunk", devices=proj.devices, accelerator=proj.accelerator)


def test_the_scaling_probe_is_picked_at_a_rank_count_with_an_efficiency():
    """The fixture measures 1 and 2 ranks; a 4-rank count without an efficiency (it did not run) is not
    picked for 8 devices: the largest with one, 2 ranks, is."""
    path = Path(__file__).parent / "fixtures" / "scaling" / "scaling-2vcpu-lenet.json"
    scaling = json.loads(path.read_text(encoding="utf-8"))
    (pt,) = [f for f in scaling["frameworks"] if f["framework"] == "pytorch"]
    four = json.loads(json.dumps(pt["rank_counts"][-1]))
    four.update(ranks=4, efficiency=None, runs_ok=0)
    pt["rank_counts"].append(four)
    assert pick_measurement(scaling, "pytorch", "lenet", 8).ranks == 2
