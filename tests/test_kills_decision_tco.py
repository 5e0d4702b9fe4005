"""The total cost of ownership, worked by hand from the knowledge base's cost assumptions: the team's
time, the compute (rented, or owned and written off, or sunk), the energy (shown in a cloud price,
added for owned hardware), the engineering hours part by part, the budget's scope and the power budget.
The figures it reads are asserted first."""

from __future__ import annotations

import pytest

from advisor.decision.constants import DEFAULT
from advisor.decision.evidence import Span
from advisor.decision.projections import project
from advisor.decision.tco import HOURS_PER_YEAR, capital_per_device, comparable_parts, compared_total, total_cost
from advisor.requirements import parse_requirements


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


@pytest.fixture(scope="module")
def accs(kb):
    return {a.id: a for a in kb.accelerators}


def test_the_figures_the_costs_are_worked_with(kb, accs):
    """An engineer-day $300-1,000, PUE 1.2-1.5, electricity $0.04-0.18 a kWh; 8 hours a day, 40 a week,
    26 project weeks, 4 years of write-off; an H100 bought at $25,000-30,000, 8 in a 10.2 kW DGX; a 910B
    card at 310, 350 or 400 W, its server 1.8 x that."""
    from advisor.decision.tco import _cost

    assert [(c, _cost(kb, c).usd.low, _cost(kb, c).usd.high) for c in ("engineer_day", "pue", "electricity_kwh")] == [
        ("engineer_day", 300.0, 1000.0),
        ("pue", 1.2, 1.5),
        ("electricity_kwh", 0.04, 0.18),
    ]
    assert [DEFAULT[n] for n in ("HOURS_PER_DAY", "HOURS_PER_WEEK", "PROJECT_WEEKS", "AMORTISATION_YEARS")] == [
        8.0,
        40.0,
        26.0,
        4.0,
    ]
    assert capital_per_device(kb, accs["h100"])[:2] == (25000.0, 30000.0)
    assert (accs["h100"].server_power_w.value, accs["h100"].server_devices) == (10200.0, 8)
    tdp = accs["ascend-910b"].tdp_w
    assert (accs["ascend-910b"].server_power_w, [tdp.value] + [a.value for a in tdp.alternatives]) == (
        None,
        [310.0, 350.0, 400.0],
    )
    assert (DEFAULT["SERVER_POWER_PER_CARD_POWER"], HOURS_PER_YEAR) == (1.8, 8766.0)


def _req(target: str = "nvidia", devices: int = 8, **constraints):
    accelerator = {"nvidia": "H100", "ascend": "910B"}[target]
    return parse_requirements(
        {
            "name": "vision",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
            "hardware": {
                "available": [target],
                "training_target": target,
                "accelerator": accelerator,
                "devices": devices,
            },
            "deployment": {"targets": [f"{target}-server"]},
            "model": {"family": "cnn", "parameters_millions": 25.6, "source": "pytorch-code"},
            "workload": {"model": "custom", "gflops_per_sample": 1000, "dataset_samples": 1000000},
            "constraints": constraints,
        }
    )


_PARTS = [("port", 30.0, 60.0), ("tests", 10.0, 20.0), ("nothing", 0.0, 0.0), ("review", 0.333, 0.333)]


def _cost_of(kb, accs, req, target="nvidia"):
    acc = accs["h100" if target == "nvidia" else "ascend-910b"]
    proj = project("pytorch", req, kb, [], basis_cap="peak")
    return proj, total_cost(proj, [40.0, 80.0], req, kb, acc, parts_hours=_PARTS)


def _parts(cost) -> dict:
    return {p.name: p for p in cost.parts}


def test_a_cloud_cost_counts_the_team_the_rented_compute_and_the_engineering(kb, accs):
    """Team: 5 engineers x 26 weeks x 40 h / 8 h = 650 days x $300-1,000. Engineering: 40-80 h / 8 x the
    day rate = $1,500-10,000, part by part (a part of no hours left out). Energy: the kWh x PUE x price,
    inside the cloud price (not counted). The total adds the counted parts; the budget (scope compute)
    is the compute alone."""
    proj, cost = _cost_of(kb, accs, _req())
    parts = _parts(cost)
    assert (parts["team"].usd.low, parts["team"].usd.high, parts["team"].counted) == (195000.0, 650000.0, True)
    assert parts["compute"].usd == proj.compute_cost_usd and parts["compute"].counted
    e = proj.energy_kwh
    assert (parts["energy"].usd.low, parts["energy"].usd.high) == (
        round(e.low * 1.2 * 0.04, 2),
        round(e.high * 1.5 * 0.18, 2),
    )
    assert parts["energy"].counted is False
    eng = parts["engineering"]
    assert (eng.usd.low, eng.usd.high, eng.counted) == (1500.0, 10000.0, True)
    assert [(i.name, i.hours, i.usd.low, i.usd.high) for i in eng.items] == [
        ("port", [30.0, 60.0], 1125.0, 7500.0),
        ("tests", [10.0, 20.0], 375.0, 2500.0),
        ("review", [0.33, 0.33], round(0.333 / 8 * 300, 2), round(0.333 / 8 * 1000, 2)),  # 12.49, 41.62
    ]
    c = proj.compute_cost_usd
    assert (cost.total_usd.low, cost.total_usd.high) == (
        round(195000.0 + c.low + 1500.0, 2),
        round(650000.0 + c.high + 10000.0, 2),
    )
    assert (cost.budget_scope, cost.budget_parts, cost.budget_usd) == ("compute", ["compute"], c)


def test_a_deadline_sets_the_teams_weeks(kb, accs):
    """10 weeks: 5 x 10 x 40 / 8 = 250 days: $75,000-250,000."""
    _, cost = _cost_of(kb, accs, _req(deadline_weeks=10))
    assert (_parts(cost)["team"].usd.low, _parts(cost)["team"].usd.high) == (75000.0, 250000.0)


@pytest.mark.parametrize(
    "scope, names", [("engineering", ["compute", "engineering"]), ("total", ["team", "compute", "engineering"])]
)
def test_the_budget_scope_sums_its_counted_parts(kb, accs, scope, names):
    _, cost = _cost_of(kb, accs, _req(budget_scope=scope))
    parts = _parts(cost)
    assert cost.budget_parts == names
    assert cost.budget_usd.low == round(sum(parts[n].usd.low for n in names), 2)
    assert cost.budget_usd.high == round(sum(parts[n].usd.high for n in names), 2)


def test_owned_hardware_is_written_off_and_its_energy_added(kb, accs):
    """$25,000-30,000 over 4 years of 8,766 h: $0.713-0.856 per device-hour, x 8 devices x the hours to
    train; the energy is counted and in the compute budget."""
    proj, cost = _cost_of(kb, accs, _req(compute_pricing="owned"))
    parts, hours = _parts(cost), proj.time_to_train_hours
    assert (parts["compute"].usd.low, parts["compute"].usd.high) == (
        round(hours.low * 8 * 25000 / (4 * 8766), 2),
        round(hours.high * 8 * 30000 / (4 * 8766), 2),
    )
    assert parts["energy"].counted is True
    assert cost.budget_parts == ["compute", "energy"]
    assert cost.budget_usd.high == round(parts["compute"].usd.high + parts["energy"].usd.high, 2)
    assert cost.total_usd.high == round(sum(p.usd.high for p in cost.parts), 2)


def test_owned_hardware_over_stated_years_or_sunk(kb, accs):
    proj, two = _cost_of(kb, accs, _req(compute_pricing="owned", amortisation_years=2))
    hours = proj.time_to_train_hours
    assert _parts(two)["compute"].usd.high == round(hours.high * 8 * 30000 / (2 * 8766), 2)
    _, sunk = _cost_of(kb, accs, _req(compute_pricing="owned", owned_capital="sunk"))
    assert (_parts(sunk)["compute"].usd.low, _parts(sunk)["compute"].usd.high) == (0.0, 0.0)


def test_an_owned_accelerator_without_a_price_has_no_compute_figure_and_no_budget(kb, accs):
    proj, cost = _cost_of(kb, accs, _req("ascend", compute_pricing="owned"), target="ascend")
    assert capital_per_device(kb, accs["ascend-910b"]) is None
    assert _parts(cost)["compute"].usd is None and _parts(cost)["compute"].counted
    assert cost.budget_usd is None


def test_the_budget_is_judged_on_the_workflows_own_projection(kb, accs):
    """Compared on a capped basis, budgeted on its own: the budget is the own projection's compute."""
    req = _req()
    proj, _ = _cost_of(kb, accs, req)
    own = proj.model_copy(update={"compute_cost_usd": Span(low=1.0, high=2.0, unit="USD")})
    cost = total_cost(proj, [40.0, 80.0], req, kb, accs["h100"], parts_hours=_PARTS, own=own)
    assert _parts(cost)["compute"].usd == proj.compute_cost_usd
    assert (cost.budget_usd.low, cost.budget_usd.high, cost.budget_parts) == (1.0, 2.0, ["compute"])
    same = total_cost(proj, [40.0, 80.0], req, kb, accs["h100"], parts_hours=_PARTS, own=proj)
    assert same.budget_usd == proj.compute_cost_usd


def test_the_power_budget_from_the_servers_datasheet(kb, accs):
    """8 H100s fill one 10.2 kW server; 9 need two (20.4 kW), 16 two."""
    proj, cost = _cost_of(kb, accs, _req())
    assert (cost.power_budget_kw, cost.power_budget_kw_range.low) == (10.2, 10.2)
    for devices, kw in ((9, 20.4), (16, 20.4), (17, 30.6), (1, 10.2)):
        more = total_cost(proj.model_copy(update={"devices": devices}), [40.0, 80.0], _req(), kb, accs["h100"])
        assert more.power_budget_kw == kw, devices


def test_the_power_budget_from_the_cards_power_times_the_server_share(kb, accs):
    """8 910Bs without a server datasheet: 8 x 310-400 W x 1.8 = 4.464-5.76 kW, provisioned at 5.76."""
    _, cost = _cost_of(kb, accs, _req("ascend"), target="ascend")
    assert (cost.power_budget_kw_range.low, cost.power_budget_kw_range.high, cost.power_budget_kw) == (
        4.46,
        5.76,
        5.76,
    )


def test_only_the_parts_every_supported_workflow_has_are_compared(kb, accs):
    _, cloud = _cost_of(kb, accs, _req())
    _, owned_ascend = _cost_of(kb, accs, _req("ascend", compute_pricing="owned"), target="ascend")
    costs = {"pytorch": cloud, "mindspore": owned_ascend}
    assert comparable_parts(costs, {"pytorch"}) == ["team", "compute", "engineering"]
    assert comparable_parts(costs, {"pytorch", "mindspore"}) == ["team", "engineering"]
    parts = _parts(cloud)
    assert compared_total(cloud, ["team", "engineering"]) == (
        parts["team"].usd.low + 1500.0,
        parts["team"].usd.high + 10000.0,
    )
    assert compared_total(cloud, []) is None


def test_the_cards_power_budget_is_kept_to_2_places(kb, accs):
    """A card of 333-377 W without a server datasheet, 8 of them x 1.8: 4.79520 -> 4.8 and 5.42880 -> 5.43 kW."""
    from knowledge.models import Sourced

    tdp = Sourced(
        value=333.0,
        source="test",
        confidence="assumption",
        alternatives=[Sourced(value=377.0, source="test", confidence="assumption")],
    )
    odd = accs["ascend-910b"].model_copy(update={"tdp_w": tdp})
    proj, _ = _cost_of(kb, accs, _req("ascend"), target="ascend")
    cost = total_cost(proj, [40.0, 80.0], _req("ascend"), kb, odd)
    assert (cost.power_budget_kw_range.low, cost.power_budget_kw_range.high) == (4.8, 5.43)
