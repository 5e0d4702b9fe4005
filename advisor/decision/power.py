"""Power and energy of a fleet, from the server it runs in.

An accelerator does not draw alone: its server's CPUs, memory, network cards, storage and fans
roughly double the cards' own power (NVIDIA DGX H100: 10.2 kW maximum for 8 x 700 W cards). The
knowledge base gives the vendor server's datasheet maximum (`Accelerator.server_power_w` for
`server_devices` accelerators); without it, the cards' power x SERVER_POWER_PER_CARD_POWER. Where
the knowledge base gives the power as a range (a 910B: 310-400 W), the low end bounds the low energy
and the high end the high energy and the budget. A training run draws a typical share of that maximum
(TYPICAL_DRAW_LOW-HIGH), so energy is a range even when the hours are one figure. The power budget
(advisor.decision.tco) provisions the maximum at the high end.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from advisor.decision.constants import CONSTANTS, DEFAULT, Consts
from advisor.decision.evidence import Evidence, Span, sourced_evidence
from advisor.decision.findings import said
from knowledge.models import Accelerator


@dataclass(frozen=True)
class FleetPower:
    """Maximum power per device (its share of the server), and what it rests on."""

    per_device_w: float
    basis: str
    evidence: list[Evidence]
    per_device_w_high: float = 0.0  # the high end of the knowledge base's power range (0: one figure)

    @property
    def high_w(self) -> float:
        return max(self.per_device_w, self.per_device_w_high)

    def maximum_kw(self, devices: int) -> float:
        """The servers' maximum at the high end of the power range (what a budget provisions)."""
        return self.high_w * devices / 1000

    def typical_kw(self, devices: int, k: Consts = DEFAULT) -> tuple[float, float]:
        """The draw while training: a typical share of the maximum at the low and the high end."""
        return (
            self.per_device_w * devices / 1000 * k["TYPICAL_DRAW_LOW"],
            self.high_w * devices / 1000 * k["TYPICAL_DRAW_HIGH"],
        )


def fleet_power(acc: Optional[Accelerator], k: Consts = DEFAULT) -> Optional[FleetPower]:
    """Each device's share of its server's maximum power, or None without any power figure."""
    if acc is None:
        return None
    if acc.server_power_w is not None and acc.server_devices:
        per = acc.server_power_w.value / acc.server_devices
        high = max([acc.server_power_w.value, *(a.value for a in acc.server_power_w.alternatives)]) / acc.server_devices
        basis = said(
            "power.server", accelerator=acc.name, watts=acc.server_power_w.value, devices=acc.server_devices, each=per
        )
        return FleetPower(per, basis, [sourced_evidence(acc.id, acc.server_power_w, basis, figure="power")], high)
    if acc.tdp_w is None:
        return None
    factor = k["SERVER_POWER_PER_CARD_POWER"]
    watts = [acc.tdp_w.value, *(a.value for a in acc.tdp_w.alternatives)]
    per, high = acc.tdp_w.value * factor, max(watts) * factor
    basis = said(
        "power.cards",
        accelerator=acc.name,
        low=acc.tdp_w.value,
        high=max(watts),
        factor=factor,
        source=CONSTANTS["SERVER_POWER_PER_CARD_POWER"].source,
    )
    return FleetPower(per, basis, [sourced_evidence(acc.id, acc.tdp_w, basis, figure="power")], high)


def energy_kwh(power: FleetPower, devices: int, hours: Span, k: Consts = DEFAULT) -> Span:
    """kWh of a run: the fleet's typical draw range x the hours range (never a one-point range)."""
    low_kw, high_kw = power.typical_kw(devices, k)
    return Span(low=round(low_kw * hours.low, 2), high=round(high_kw * hours.high, 2), unit="kWh")


def power_budget_kw(power: FleetPower, devices: int, k: Consts = DEFAULT) -> float:
    """The power to provision: the servers' maximum (the cards and everything around them) at the high end
    of the power range."""
    return round(power.maximum_kw(devices), 2)
