"""Total cost of ownership per workflow: compute (device-hours x the dated price), energy (power x
hours x PUE x electricity price), the team's time on the project (the same for every workflow: what
the differences are relative to) and engineering (migration/adaptation hours x the engineer-day rate,
from the code scan when `model.code_path` is given), each a range with its sources.

Energy is part of a cloud price: with `constraints.compute_pricing: cloud` (the default) it is shown
but not added. Owned hardware (`owned`) is never charged a rental price: compute is the purchase price
written off over `constraints.amortisation_years` (AMORTISATION_YEARS when absent), or nothing when the
capital is sunk (`owned_capital: sunk`), and the energy is added. The power budget is the vendor
server's datasheet power where the knowledge base has it, else the cards' power x SERVER_POWER_PER_CARD_POWER
(the same server share the energy uses), at the high end of the power range.

`constraints.budget_usd` is compared with the parts `constraints.budget_scope` names: compute (compute
and energy, the default), engineering (adds the migration and engineering hours) or total (adds the
team's time): `TotalCost.budget_usd` is that sum.
"""

from __future__ import annotations

from typing import Literal, Optional, TYPE_CHECKING, Union

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.constants import CONSTANTS, DEFAULT, Consts
from advisor.decision.evidence import Evidence, Span, kb_evidence, req_evidence
from advisor.decision.findings import said
from knowledge.models import Accelerator, CostAssumption, KnowledgeBase, Sourced, SourcedRange

if TYPE_CHECKING:  # the projection and the requirements import the cost model, not the other way
    from advisor.decision.projections import Projection
    from advisor.requirements import Requirements


class CostItem(BaseModel):
    """One line of the engineering cost: a part of the migration estimate (a role of the scanned code,
    the known pitfalls, ...) in hours and dollars."""

    model_config = ConfigDict(extra="forbid")

    name: str
    hours: list[float] = Field(description="[low, high]")
    usd: Span


class CostPart(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Literal["team", "compute", "energy", "engineering"]
    usd: Optional[Span] = Field(None, description="null: no figure (said why in detail)")
    counted: bool = Field(description="part of the total")
    detail: str
    evidence: list[Evidence] = Field(default_factory=list)
    items: list[CostItem] = Field(
        default_factory=list, description="engineering: the migration estimate part by part (per role from the scan)"
    )


class TotalCost(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workflow: str
    parts: list[CostPart]
    total_usd: Optional[Span] = Field(None, description="sum of the counted parts that have figures")
    power_budget_kw: Optional[float] = Field(
        None,
        description="the servers' maximum power at the high end of the power range: the vendor server's datasheet, "
        "else the cards' power x SERVER_POWER_PER_CARD_POWER",
    )
    power_budget_kw_range: Optional[Span] = Field(
        None, description="the same over the knowledge base's power range (value and its alternatives)"
    )
    notes: list[str] = Field(default_factory=list)
    budget_scope: Literal["compute", "engineering", "total"] = Field(
        "compute", description="what constraints.budget_usd is compared with (constraints.budget_scope)"
    )
    budget_usd: Optional[Span] = Field(
        None, description="the parts in the budget scope, summed (null: the compute part has no figure)"
    )
    budget_parts: list[str] = Field(default_factory=list, description="the parts summed into budget_usd")


# The parts each budget scope sums (constraints.budget_scope).
BUDGET_PARTS = {
    "compute": ("compute", "energy"),
    "engineering": ("compute", "energy", "engineering"),
    "total": ("team", "compute", "energy", "engineering"),
}
HOURS_PER_YEAR = 8766.0  # 365.25 days


def capital_per_device(kb: Optional[KnowledgeBase], acc: Optional[Accelerator]) -> Optional[tuple[float, float, list]]:
    """(low, high, observations): the purchase price of one device from the knowledge base's card and
    server prices (a server's price divided by its cards), or None when none is recorded."""
    if kb is None or acc is None:
        return None
    obs = [p for p in kb.prices_for(acc.id) if p.kind in ("card", "server")]
    if not obs:
        return None
    each = [p.usd / (p.devices if p.kind == "server" else 1) for p in obs]
    return min(each), max(each), obs


def _owned_compute(
    proj: Projection, req: Requirements, kb: Optional[KnowledgeBase], acc: Optional[Accelerator], k: Consts
) -> CostPart:
    """Owned hardware: the purchase price written off over the amortisation years, for the device-hours
    the job holds; nothing when the capital is sunk. Never a rental price."""
    hours = proj.time_to_train_hours
    where = dict(devices=proj.devices, accelerator=proj.accelerator or proj.target)
    if req.constraints.owned_capital == "sunk":
        return CostPart(
            name="compute",
            usd=Span(low=0.0, high=0.0, unit="USD") if hours is not None else None,
            counted=True,
            evidence=[req_evidence("constraints.owned_capital", "sunk", said("tco.evidence.capital_sunk"))],
            detail=said("tco.compute.sunk", **where),
        )
    capital = capital_per_device(kb, acc)
    if capital is None or hours is None:
        return CostPart(
            name="compute", counted=True, detail=said("tco.compute.owned_missing", **where, no_hours=hours is None)
        )
    low, high, obs = capital
    years = req.constraints.amortisation_years or k["AMORTISATION_YEARS"]
    per_low, per_high = low / (years * HOURS_PER_YEAR), high / (years * HOURS_PER_YEAR)
    why = said(
        "tco.source.amortisation",
        stated=bool(req.constraints.amortisation_years),
        source=CONSTANTS["AMORTISATION_YEARS"].source,
    )
    return CostPart(
        name="compute",
        usd=Span(
            low=round(hours.low * proj.devices * per_low, 2),
            high=round(hours.high * proj.devices * per_high, 2),
            unit="USD",
        ),
        counted=True,
        evidence=[
            kb_evidence(
                o,
                said(
                    "tco.evidence.price", provider=o.provider, usd=o.usd, kind=o.kind, term=o.term, observed=o.observed
                ),
                o.usd,
                figure="price",
            )
            for o in obs
        ],
        detail=said(
            "tco.compute.owned",
            **where,
            low=low,
            high=high,
            years=years,
            why=why,
            per_hour_low=per_low,
            per_hour_high=per_high,
        ),
    )


def _budget(parts: list[CostPart], req: Requirements) -> tuple[Optional[Span], list[str], list[str]]:
    """The parts in the budget scope summed, the names summed, and what the reader should know."""
    scope = req.constraints.budget_scope
    names = [n for n in BUDGET_PARTS[scope] if any(p.name == n and p.counted for p in parts)]
    spans = [p.usd for p in parts if p.name in names and p.counted and p.usd is not None]
    compute = next((p for p in parts if p.name == "compute"), None)
    notes: list[str] = []
    if compute is None or compute.usd is None:
        return None, names, [said("tco.budget_not_judged")]
    span = Span(low=round(sum(s.low for s in spans), 2), high=round(sum(s.high for s in spans), 2), unit="USD")
    return span, names, notes


def _cost(kb: Optional[KnowledgeBase], kind: str) -> Optional[CostAssumption]:
    if kb is None:
        return None
    entries = sorted(kb.costs_for(kind), key=lambda c: c.id)
    return entries[0] if entries else None


def _range(value: Union[Sourced, SourcedRange]) -> tuple[float, float]:
    return (value.low, value.high) if hasattr(value, "low") else (value.value, value.value)


def total_cost(
    proj: Projection,
    hours: list[float],
    req: Requirements,
    kb: Optional[KnowledgeBase],
    acc: Optional[Accelerator],
    k: Consts = DEFAULT,
    parts_hours: Optional[list[tuple[str, float, float]]] = None,
    excluded: str = "",
    own: Optional[Projection] = None,
) -> TotalCost:
    """The TCO of one workflow from its (compared) projection and its migration hours [low, high];
    `parts_hours`: the migration estimate part by part (label, low, high), shown as the engineering items;
    `excluded`: what the code scan left out of the total (tests, examples), said in the detail;
    `own`: the workflow's own best projection when `proj` is capped to a basis every workflow shares:
    the budget is judged on what this workflow would really cost, not on the like-with-like comparison."""
    parts = [
        _team_part(req, kb, k),
        _compute_part(proj, req, kb, acc, k),
        _energy_part(proj, req, kb),
        _engineering_part(hours, req, kb, k, parts_hours, excluded),
    ]
    counted = [p.usd for p in parts if p.counted and p.usd is not None]
    total = (
        Span(low=round(sum(s.low for s in counted), 2), high=round(sum(s.high for s in counted), 2), unit="USD")
        if counted
        else None
    )
    notes: list[str] = []
    if own is not None and own is not proj:
        mine = total_cost(own, hours, req, kb, acc, k, parts_hours, excluded)
        scoped, scoped_names, scope_notes = mine.budget_usd, mine.budget_parts, []
        if mine.budget_usd is None:
            scope_notes = [said("tco.budget_not_judged")]
    else:
        scoped, scoped_names, scope_notes = _budget(parts, req)
    notes.extend(scope_notes)
    limit = req.constraints.budget_usd
    if limit is not None and scoped is not None and total is not None and req.constraints.budget_scope != "total":
        if scoped.high <= limit < total.low:
            notes.append(
                said(
                    "tco.budget_fits_scope",
                    parts=scoped_names,
                    scoped_low=scoped.low,
                    scoped_high=scoped.high,
                    limit=limit,
                    total_low=total.low,
                    total_high=total.high,
                )
            )
    budget, span, power_notes = _power_budget(proj, req, acc, k)
    notes.extend(power_notes)
    return TotalCost(
        workflow=proj.workflow,
        parts=parts,
        total_usd=total,
        power_budget_kw=budget,
        power_budget_kw_range=span,
        notes=notes,
        budget_scope=req.constraints.budget_scope,
        budget_usd=scoped,
        budget_parts=scoped_names,
    )


def _compute_part(
    proj: Projection, req: Requirements, kb: Optional[KnowledgeBase], acc: Optional[Accelerator], k: Consts
) -> CostPart:
    """Compute: owned hardware written off, or the cloud price for the projected device-hours."""
    owned = req.constraints.compute_pricing == "owned"
    c = proj.compute_cost_usd
    if owned:
        return _owned_compute(proj, req, kb, acc, k)
    if c is not None:
        # the projection's price evidence names the knowledge base's price entry (its power evidence names
        # the accelerator itself): selected by that reference, never by the evidence's words
        hourly = kb.costs_for("accelerator_hour", proj.accelerator) if kb is not None and proj.accelerator else []
        prices = {entry.id for entry in hourly}
        ev = [e for e in proj.cost_evidence if e.ref in prices]
        return CostPart(
            name="compute",
            usd=c,
            counted=True,
            evidence=ev,
            detail=said("tco.compute.cloud", devices=proj.devices, accelerator=proj.accelerator or proj.target),
        )
    return CostPart(name="compute", counted=True, detail=said("tco.compute.none"))


def _energy_part(proj: Projection, req: Requirements, kb: Optional[KnowledgeBase]) -> CostPart:
    """Energy: the projected kWh x PUE x the electricity price (counted for owned hardware only)."""
    owned = req.constraints.compute_pricing == "owned"
    energy = proj.energy_kwh
    pue, power = _cost(kb, "pue"), _cost(kb, "electricity_kwh")
    if energy is not None and pue is not None and power is not None:
        (pl, ph), (el, eh) = _range(pue.usd), _range(power.usd)
        usd = Span(low=round(energy.low * pl * el, 2), high=round(energy.high * ph * eh, 2), unit="USD")
        return CostPart(
            name="energy",
            usd=usd,
            counted=owned,
            evidence=[
                kb_evidence(pue, said("tco.evidence.pue", low=pl, high=ph), [pl, ph]),
                kb_evidence(power, said("tco.evidence.electricity", low=el, high=eh, as_of=power.as_of), [el, eh]),
            ]
            + [e for e in proj.cost_evidence if e.ref == proj.accelerator],  # the fleet's power, from its accelerator
            detail=said("tco.energy", low=energy.low, high=energy.high, owned=owned),
        )
    return CostPart(name="energy", counted=owned, detail=said("tco.energy.none"))


def _team_part(req: Requirements, kb: Optional[KnowledgeBase], k: Consts) -> CostPart:
    """The team's time on the project: the same for every workflow."""
    day = _cost(kb, "engineer_day")
    per_day = k["HOURS_PER_DAY"]
    if day is not None:
        # The team's time on the project is the same for every workflow; it is what the differences
        # are relative to ("relative to the total"), so $1 of compute no longer moves the score 20 points.
        dl, dh = _range(day.usd)
        weeks = req.constraints.deadline_weeks or k["PROJECT_WEEKS"]
        days = req.team.size * weeks * k["HOURS_PER_WEEK"] / per_day
        why = said(
            "tco.source.project_weeks",
            stated=bool(req.constraints.deadline_weeks),
            source=CONSTANTS["PROJECT_WEEKS"].source,
        )
        return CostPart(
            name="team",
            usd=Span(low=round(days * dl, 2), high=round(days * dh, 2), unit="USD"),
            counted=True,
            evidence=[
                kb_evidence(day, said("tco.evidence.engineer_day", low=dl, high=dh, as_of=day.as_of), [dl, dh]),
                req_evidence("team.size", req.team.size, said("tco.evidence.team", size=req.team.size, weeks=weeks)),
            ],
            detail=said("tco.team", size=req.team.size, weeks=weeks, why=why),
        )
    return CostPart(name="team", counted=True, detail=said("tco.no_day_rate"))


def _engineering_part(
    hours: list[float],
    req: Requirements,
    kb: Optional[KnowledgeBase],
    k: Consts,
    parts_hours: Optional[list[tuple[str, float, float]]],
    excluded: str,
) -> CostPart:
    """Engineering: the migration hours x the day rate, part by part."""
    day = _cost(kb, "engineer_day")
    per_day = k["HOURS_PER_DAY"]
    if day is not None:
        dl, dh = _range(day.usd)
        usd = Span(low=round(hours[0] / per_day * dl, 2), high=round(hours[1] / per_day * dh, 2), unit="USD")
        items = [
            CostItem(
                name=n,
                hours=[round(a, 2), round(b, 2)],
                usd=Span(low=round(a / per_day * dl, 2), high=round(b / per_day * dh, 2), unit="USD"),
            )
            for n, a, b in parts_hours or []
            if b > 0
        ]
        return CostPart(
            name="engineering",
            usd=usd,
            counted=True,
            items=items,
            evidence=[
                kb_evidence(day, said("tco.evidence.engineer_day", low=dl, high=dh, as_of=day.as_of), [dl, dh]),
                req_evidence("team.size", req.team.size, said("tco.evidence.migration", low=hours[0], high=hours[1])),
            ],
            detail=said(
                "tco.engineering",
                low=hours[0],
                high=hours[1],
                per_day=per_day,
                scanned=bool(req.model.code_path),
                excluded=excluded,
            ),
        )
    return CostPart(name="engineering", counted=True, detail=said("tco.no_day_rate"))


def _power_budget(
    proj: Projection, req: Requirements, acc: Optional[Accelerator], k: Consts
) -> tuple[Optional[float], Optional[Span], list[str]]:
    """The power budget (kW, its range) and the lines that say how it was reached."""
    budget, span, notes = None, None, []
    if acc is not None and acc.server_power_w is not None and acc.server_devices:
        # the vendor server's datasheet power: CPUs, memory, network and storage besides the cards
        watts = [acc.server_power_w.value, *(a.value for a in acc.server_power_w.alternatives)]
        servers = -(-proj.devices // acc.server_devices)
        span = Span(low=round(min(watts) * servers / 1000, 2), high=round(max(watts) * servers / 1000, 2), unit="kW")
        budget = span.high
        notes.append(
            said(
                "tco.power.servers",
                servers=servers,
                server_devices=acc.server_devices,
                accelerator=acc.name,
                watts_low=min(watts),
                watts_high=max(watts),
                source=acc.server_power_w.source,
                kw_low=span.low,
                kw_high=span.high,
            )
        )
    elif acc is not None and acc.tdp_w is not None:
        # no server datasheet: the cards' power x the server share the energy uses too (an 8-card server
        # draws about twice its cards), over the knowledge base's power range (310-400 W for the 910B),
        # provisioned at its high end
        watts = [acc.tdp_w.value, *(a.value for a in acc.tdp_w.alternatives)]
        server = k["SERVER_POWER_PER_CARD_POWER"]
        per_kw = proj.devices / 1000 * server
        span = Span(low=round(min(watts) * per_kw, 2), high=round(max(watts) * per_kw, 2), unit="kW")
        budget = span.high
        cards_only = proj.devices / 1000 * (1 + k["POWER_REDUNDANCY"])
        notes.append(
            said(
                "tco.power.cards",
                devices=proj.devices,
                accelerator=acc.name,
                watts_low=min(watts),
                watts_high=max(watts),
                server=server,
                server_source=CONSTANTS["SERVER_POWER_PER_CARD_POWER"].source,
                kw_low=span.low,
                kw_high=span.high,
                redundancy=k["POWER_REDUNDANCY"],
                redundancy_source=CONSTANTS["POWER_REDUNDANCY"].source,
                cards_low=min(watts) * cards_only,
                cards_high=max(watts) * cards_only,
            )
        )
    if span is not None and req.constraints.compute_pricing == "cloud":
        notes.append(said("tco.power.cloud"))
    return budget, span, notes


def comparable_parts(costs: dict[str, TotalCost], supported: set[str]) -> list[str]:
    """Counted parts that have a figure for every supported workflow: only those are compared."""
    names = ["team", "compute", "energy", "engineering"]
    out = []
    for name in names:
        rows = [next(p for p in costs[wf].parts if p.name == name) for wf in supported]
        if rows and all(p.counted and p.usd is not None for p in rows):
            out.append(name)
    return out


def compared_total(cost: TotalCost, parts: list[str]) -> Optional[tuple[float, float]]:
    spans = [p.usd for p in cost.parts if p.name in parts and p.usd is not None]
    if not spans:
        return None
    return sum(s.low for s in spans), sum(s.high for s in spans)
