"""Multi-device communication and scaling: how much of linear throughput a projection keeps on N
devices, and what that rests on.

The knowledge base's scaling curves give the fraction kept as a function of the device count and the
interconnect (within a host: NVLink, HCCS, PCIe; between hosts: RoCE/InfiniBand or plain Ethernet):
seed "Chips and framework released together" §2.1, ~70% linear at 8 cards and below 30% at 64 on
a weak interconnect. Without curves, the single communication derating range is the fallback. The
scaling probe's measured efficiency replaces the curve where it is device scaling of the same shape
(same hardware kind, rank count and network), else it stands beside it as evidence (a 2-rank run on a
CPU host measures communication plus contention, not device scaling).

`communication_for` returns a `CommPlan`: an immutable description of the factor; the projection
paths ask it for factors (pure) and report whether they applied one, and `settle` writes the final
`Communication` the projection carries.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.constants import DEFAULT, Consts
from advisor.decision.constants import SEED_RELEASED_TOGETHER as SEED_RELEASED_TOGETHER_REF
from advisor.decision.evidence import Evidence, Span, sourced_evidence
from advisor.decision.findings import said
from advisor.decision.probe_fields import host_names
from advisor.decision.workload import model_shape, trainable_share
from advisor.requirements import Requirements
from advisor.decision.workflows import device_kind
from knowledge.models import Accelerator, Derating, KnowledgeBase
from probes.scaling.models import FrameworkScaling, InterHostLink, RankCount, ScalingResult, Spread


class ScalingSpread(BaseModel):
    """Median and min-max over the scaling probe's interleaved repetitions."""

    model_config = ConfigDict(extra="forbid")

    median: float
    min: float
    max: float
    n: int


class ScalingMeasurement(BaseModel):
    """One framework's data-parallel figures from the scaling probe (`advisor probe --scaling`)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="scaling:<framework>-<model>-r<ranks> (its runs are <id>-rep<k> in the result)")
    framework: str
    launcher: Optional[str] = None
    backend: Optional[str] = None
    device: str = Field(description="where the ranks ran: cpu | cuda | Ascend")
    hardware: str = Field(description="nvidia | ascend | cpu")
    model: str
    ranks: int
    label: str = Field(description="the result's label: device-scaling | cpu-contention")
    device_scaling: bool = Field(description="one rank per accelerator (not ranks sharing CPU cores)")
    host: Optional[str] = None
    created: Optional[str] = None
    efficiency: Optional[ScalingSpread] = Field(None, description="images/s(N) / (N x images/s(1))")
    allreduce_share: Optional[ScalingSpread] = Field(None, description="(synced - no-sync step) / synced step")
    contention_factor: Optional[ScalingSpread] = None
    gate_ok: Optional[bool] = Field(None, description="parameters identical across ranks after synced steps")


class InterHostMeasurement(BaseModel):
    """The scaling probe across hosts (`advisor probe --scaling --nnodes N ...`): the same rank count
    across hosts and on one host, and the link it went over; whether the scaling curve uses it."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="inter-host:<framework>-<model>-<nnodes>x<ranks per node>")
    framework: str
    model: str
    backend: Optional[str] = None
    device: str = "cpu"
    hardware: str = Field("cpu", description="nvidia | ascend | cpu")
    nnodes: int
    ranks_per_node: int
    world_size: int
    link: str = Field(description="the interface (and speed) the inter-host runs went over, as node 0 read it")
    loopback: bool = False
    inter_over_intra_step: Optional[ScalingSpread] = Field(
        None, description="synced step across hosts / on one host at the same rank count (> 1: the link's cost)"
    )
    link_share: Optional[ScalingSpread] = Field(
        None, description="share of the cross-host step the link adds: 1 - intra step / inter step"
    )
    allreduce_share: Optional[ScalingSpread] = Field(None, description="allreduce share of the cross-host step")
    efficiency: Optional[ScalingSpread] = Field(None, description="across hosts vs world x 1 rank on node 0")
    gate_ok: Optional[bool] = None
    used: bool = Field(False, description="the scaling curve beyond one host uses it")
    why_not: Optional[str] = None


class CurvePoint(BaseModel):
    """Fraction of linear throughput kept at a device count."""

    model_config = ConfigDict(extra="forbid")

    devices: int
    low: float
    high: float
    target: bool = Field(False, description="the requirements' device count")


CommunicationBasis = Literal[
    "measured", "measured+knowledge", "knowledge", "assumed", "in-reference", "single-device", "none"
]


class Communication(BaseModel):
    """How a projection accounts for multi-device communication, and what it rests on."""

    model_config = ConfigDict(extra="forbid")

    devices: int
    basis: CommunicationBasis = Field(
        description=(
            "measured: the scaling probe's efficiency (device scaling, same rank count and network); "
            "measured+knowledge: the knowledge-base curve/derating, with the scaling probe's figures as evidence; "
            "knowledge: the knowledge-base curve/derating alone; assumed: nothing in the knowledge base; "
            "in-reference: multi-device references that already include their loss; single-device; none: nothing projected"
        )
    )
    basis_detail: str
    kept: Optional[Span] = Field(None, description="fraction of linear multi-device throughput kept [low, high]")
    knowledge_loss: Optional[list[float]] = Field(
        None, description="the knowledge base's communication loss range [low, high] at these devices"
    )
    interconnect: Optional[str] = Field(
        None, description="link class within a host (nvlink | hccs | pcie) and between hosts"
    )
    curve: list[CurvePoint] = Field(
        default_factory=list, description="the knowledge-base scaling curve at powers of two up to the target"
    )
    comm_compute_ratio: Optional[float] = Field(
        None, description="T_comm / T_compute of one data-parallel step (SEED_RELEASED_TOGETHER §5.2), estimated"
    )
    measured: Optional[ScalingMeasurement] = Field(
        None, description="the scaling probe figures consulted for this framework"
    )
    inter_host: Optional[InterHostMeasurement] = Field(
        None, description="the scaling probe across hosts consulted for device counts beyond one host"
    )
    evidence: list[Evidence] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


# --- the scaling probe's result ---------------------------------------------------------------


def as_scaling(scaling: object) -> Optional[ScalingResult]:
    """A scaling result as its model: a model as it is, its JSON validated (once per call: the report
    passes the model, validated where it was read); None for none."""
    if scaling is None or isinstance(scaling, ScalingResult):
        return scaling
    return ScalingResult.model_validate(scaling)


def _spread(data: Optional[Spread]) -> Optional[ScalingSpread]:
    if data is None:
        return None
    return ScalingSpread(median=round(data.median, 4), min=round(data.min, 4), max=round(data.max, 4), n=data.n)


def scaling_host(scaling: object) -> Optional[str]:
    """The host the scaling probe ran on, as its result names it (the probe keeps the host facts as a mapping)."""
    result = as_scaling(scaling)
    host = result.host if result is not None else {}
    names = host_names(host)
    return names.hostname or names.cpu_model or names.name or None


def _measurement(result: ScalingResult, entry: FrameworkScaling, rc: RankCount) -> ScalingMeasurement:
    device = entry.device or "cpu"
    kind = device_kind(device)
    return ScalingMeasurement(
        id=f"scaling:{entry.framework}-{entry.model}-r{rc.ranks}",
        framework=entry.framework,
        launcher=entry.launcher,
        backend=entry.backend,
        device=device,
        hardware=kind,
        model=entry.model,
        ranks=rc.ranks,
        label=result.label or "unknown",
        # Per framework: on a GPU host MindSpore's ranks may still share the CPU (the result's label then
        # says cpu-contention for the whole result) while PyTorch's ranks each own a GPU.
        device_scaling=kind != "cpu",
        host=scaling_host(result),
        created=result.created,
        efficiency=_spread(rc.efficiency),
        allreduce_share=_spread(rc.allreduce_share),
        contention_factor=_spread(rc.contention_factor),
        gate_ok=rc.gate_ok,
    )


def scaling_measurements(scaling: object) -> list[ScalingMeasurement]:
    """Every framework and network of a scaling result at its largest multi-rank count measured."""
    result = as_scaling(scaling)
    out = []
    for entry in result.frameworks if result is not None else []:
        counts = [rc for rc in entry.rank_counts if rc.ranks > 1 and rc.runs_ok]
        if counts:
            out.append(_measurement(result, entry, max(counts, key=lambda c: c.ranks)))
    return out


def pick_measurement(
    scaling: object, framework: str, model: Optional[str], devices: int
) -> Optional[ScalingMeasurement]:
    """The scaling probe's figures for a framework: the workload's own network first, the rank count
    equal to the target's devices when measured, else the largest one."""
    result = as_scaling(scaling)
    if result is None:
        return None
    entries = sorted(
        (f for f in result.frameworks if f.framework == framework and f.status in ("ok", "partial")),
        key=lambda f: (f.model != model, f.model),
    )
    for entry in entries:
        counts = [rc for rc in entry.rank_counts if rc.ranks > 1 and rc.efficiency is not None]
        if counts:
            rc = next((c for c in counts if c.ranks == devices), None) or max(counts, key=lambda c: c.ranks)
            return _measurement(result, entry, rc)
    return None


def _link_text(link: InterHostLink) -> str:
    return said("comm.link", interface=link.interface, speed_mbps=link.speed_mbps, loopback=link.loopback)


def _inverse_share(r: ScalingSpread) -> ScalingSpread:
    """1 - 1/r for a step ratio r (the share of the slower step the link adds); min and max swap ends."""
    return ScalingSpread(
        median=round(1 - 1 / r.median, 4), min=round(1 - 1 / r.min, 4), max=round(1 - 1 / r.max, 4), n=r.n
    )


def inter_host_measurements(scaling: object) -> list[InterHostMeasurement]:
    """Every framework and model of a multi-node scaling result's `inter_host` block."""
    result = as_scaling(scaling)
    block = result.inter_host if result is not None else None
    if block is None:
        return []
    link = block.link
    out = []
    for f in block.frameworks:
        if f.status not in ("ok", "partial"):
            continue
        fw, model = f.framework, f.model
        tag = f"{fw}-{model}-r{block.world_size}-{block.nnodes}x"
        device = next((r.device for r in result.runs if r.id.startswith(tag)), "cpu")
        ratio = _spread(f.inter_over_intra_step)
        out.append(
            InterHostMeasurement(
                id=f"inter-host:{fw}-{model}-{block.nnodes}x{block.ranks_per_node}",
                framework=fw,
                model=model,
                backend=f.backend,
                device=device,
                hardware=device_kind(device),
                nnodes=block.nnodes,
                ranks_per_node=block.ranks_per_node,
                world_size=f.world_size or block.world_size,
                link=_link_text(link),
                loopback=link.loopback,
                inter_over_intra_step=ratio,
                link_share=_inverse_share(ratio) if ratio is not None and ratio.min > 0 else None,
                allreduce_share=_spread(f.inter.allreduce_share if f.inter is not None else None),
                efficiency=_spread(f.efficiency),
                gate_ok=f.gate_ok,
            )
        )
    return out


def _why_not_inter_host(ih: InterHostMeasurement, target: str, model: Optional[str]) -> Optional[str]:
    """Why a cross-host measurement cannot stand for the target's inter-host link (None: it can)."""
    if ih.loopback:
        return said("comm.inter_host.loopback")
    if ih.hardware != target:
        return said("comm.inter_host.other_hardware", hardware=ih.hardware, target=target)
    if model and ih.model != model:
        return said("comm.inter_host.other_model", measured_model=ih.model, model=model)
    if ih.gate_ok is not True:
        return said("comm.inter_host.gate_not_passed")
    if ih.link_share is None and ih.allreduce_share is None:
        return said("comm.inter_host.no_comparison")
    return None


def pick_inter_host(
    scaling: object, framework: str, model: Optional[str], target: str
) -> Optional[InterHostMeasurement]:
    """The cross-host figures for a framework (the workload's own model first), judged for the target."""
    mine = sorted(
        (m for m in inter_host_measurements(scaling) if m.framework == framework),
        key=lambda m: (m.model != model, m.model),
    )
    if not mine:
        return None
    ih = mine[0]
    why = _why_not_inter_host(ih, target, model)
    return ih.model_copy(update={"used": why is None, "why_not": why})


def inter_host_evidence(ih: InterHostMeasurement) -> list[Evidence]:
    what = dict(
        framework=ih.framework,
        backend=ih.backend,
        nnodes=ih.nnodes,
        ranks_per_node=ih.ranks_per_node,
        link=ih.link,
        model=ih.model,
    )
    ev = []
    for spread, code in (
        (ih.link_share, "comm.evidence.inter_host_link_share"),
        (ih.allreduce_share, "comm.evidence.inter_host_allreduce_share"),
    ):
        if spread is not None:
            ev.append(
                Evidence(
                    kind="measured",
                    ref=ih.id,
                    value=spread.median,
                    spread=[spread.min, spread.max],
                    detail=said(code, **what, median=spread.median, min=spread.min, max=spread.max, n=spread.n),
                )
            )
    return ev


def measurement_evidence(m: ScalingMeasurement) -> list[Evidence]:
    what = dict(
        runner=m.launcher or m.framework,
        backend=m.backend,
        ranks=m.ranks,
        device=m.device,
        model=m.model,
        device_scaling=m.device_scaling,
    )
    ev = []
    for spread, code in (
        (m.efficiency, "comm.evidence.efficiency"),
        (m.allreduce_share, "comm.evidence.allreduce_share"),
    ):
        if spread is not None:
            ev.append(
                Evidence(
                    kind="measured",
                    ref=m.id,
                    label=m.label,
                    value=spread.median,
                    spread=[spread.min, spread.max],
                    detail=said(code, **what, median=spread.median, min=spread.min, max=spread.max, n=spread.n),
                )
            )
    return ev


def _why_not_measured(m: ScalingMeasurement, target: str, devices: int, model: Optional[str]) -> Optional[str]:
    """Why a scaling measurement cannot stand for the target's multi-device efficiency (None: it can)."""
    if not m.device_scaling:
        return said("comm.measured.shared_cpu", ranks=m.ranks)
    if m.hardware != target:
        return said("comm.measured.other_hardware", hardware=m.hardware, target=target)
    if m.ranks != devices:
        return said("comm.measured.other_ranks", ranks=m.ranks, devices=devices)
    if model and m.model != model:
        return said("comm.measured.other_model", measured_model=m.model, model=model)
    if m.gate_ok is not True:
        return said("comm.measured.gate_not_passed")
    if m.efficiency is None:
        return said("comm.measured.no_efficiency")
    return None


# --- the knowledge base's scaling curves --------------------------------------------------------


def host_link(acc: Optional[Accelerator], target: str) -> str:
    """The link class between devices of one host, from the accelerator's `interconnect` text."""
    text = (getattr(acc, "interconnect", None) or "").lower().replace("no nvlink", "")
    if "nvlink" in text:
        return "nvlink"
    if "hccs" in text or (target == "ascend" and "pcie" not in text and text):
        return "hccs"
    return "pcie"  # unknown: the weak case (the weak-interconnect curve of SEED_RELEASED_TOGETHER §2.1)


@dataclass(frozen=True)
class Curve:
    """kept(n) for one link class; `points` are (devices, low, high)."""

    id: str
    link: str
    points: tuple[tuple[int, float, float], ...]
    evidence: Evidence

    def at(self, n: float) -> tuple[float, float]:
        pts = sorted(self.points)
        if n <= pts[0][0]:
            return pts[0][1], pts[0][2]
        for (n0, l0, h0), (n1, l1, h1) in zip(pts, pts[1:]):
            if n <= n1:
                t = (math.log(n) - math.log(n0)) / (math.log(n1) - math.log(n0))
                return l0 + t * (l1 - l0), h0 + t * (h1 - h0)
        # beyond the last point: keep falling along the last segment (in log n), never below 2%
        (n0, l0, h0), (n1, l1, h1) = pts[-2], pts[-1]
        t = (math.log(n) - math.log(n1)) / (math.log(n1) - math.log(n0))
        low, high = max(0.02, l1 + t * (l1 - l0)), max(0.02, h1 + t * (h1 - h0))
        return min(low, l1), min(high, h1)


def _curves(kb: Optional[KnowledgeBase]) -> dict[tuple[str, str], Curve]:
    out = {}
    for c in sorted(getattr(kb, "scaling_curves", None) or [], key=lambda c: c.id):
        pts = tuple(sorted((p.devices, p.efficiency.low, p.efficiency.high) for p in c.points))
        if len(pts) < 2:
            continue
        first = c.points[0].efficiency
        ev = Evidence(
            kind="knowledge",
            ref=c.id,
            value=[list(p) for p in pts],
            source=c.source,
            confidence=c.confidence,
            detail=said(
                "comm.evidence.curve",
                link=c.link,
                scope=c.scope,
                points=pts,
                point_source=first.source if first.source != c.source else None,
            ),
        )
        out.setdefault((c.scope, c.link), Curve(id=c.id, link=c.link, points=pts, evidence=ev))
    return out


@dataclass(frozen=True)
class ScalingModel:
    """Fraction of linear kept at N devices: the host curve up to a host's devices, times the network
    curve at N (1 within one host). An unknown network spans both network classes."""

    host: Curve
    networks: tuple[Curve, ...]
    per_host: int
    measured: Optional[InterHostMeasurement] = None
    """the scaling probe across hosts: replaces the network curves beyond one host"""

    def network_at(self, devices: float) -> Optional[tuple[float, float]]:
        """Fraction kept by the inter-host link at `devices` (None within one host or without a figure)."""
        if devices <= self.per_host:
            return None
        m = self.measured
        if m is not None:
            # The link's extra time x (per step, relative to the same ranks on one host) at the measured world
            # size W grows with the ring all-reduce's bandwidth term 2(N-1)/N (assumption; it barely grows).
            share = m.link_share or m.allreduce_share
            s_min, s_max = min(share.min, 0.99), min(share.max, 0.99)
            x_low, x_high = s_min / (1 - s_min), s_max / (1 - s_max)
            w = max(2, m.world_size)
            g = ((devices - 1) / devices) / ((w - 1) / w)
            return 1 / (1 + max(0.0, x_high) * g), 1 / (1 + max(0.0, x_low) * g)
        if not self.networks:
            return None
        spans = [c.at(devices) for c in self.networks]
        return min(s[0] for s in spans), max(s[1] for s in spans)

    def at(self, devices: float) -> tuple[float, float]:
        low, high = self.host.at(min(devices, self.per_host))
        net = self.network_at(devices)
        if net is not None:
            low, high = low * net[0], high * net[1]
        return low, high

    def points(self, devices: int) -> list[CurvePoint]:
        ns = sorted({2**i for i in range(max(1, int(math.log2(max(devices, 8)))) + 2)} | {devices})
        return [
            CurvePoint(devices=n, low=round(self.at(n)[0], 4), high=round(self.at(n)[1], 4), target=n == devices)
            for n in ns
        ]

    @property
    def reach(self) -> Optional[int]:
        """The largest device count the network curves have a point at (None: measured, or no network curve)."""
        if self.measured is not None or not self.networks:
            return None
        return max(c.points[-1][0] for c in self.networks)

    @property
    def label(self) -> str:
        if self.measured is not None:
            return said("comm.interconnect.measured", host_link=self.host.link, link=self.measured.link)
        return said("comm.interconnect.curves", host_link=self.host.link, networks=[c.link for c in self.networks])

    @property
    def evidence(self) -> list[Evidence]:
        if self.measured is not None:
            return [self.host.evidence] + inter_host_evidence(self.measured)
        return [self.host.evidence] + [c.evidence for c in self.networks]


def scaling_model(
    kb: Optional[KnowledgeBase], acc: Optional[Accelerator], target: str, req: Requirements, k: Consts = DEFAULT
) -> Optional[ScalingModel]:
    curves = _curves(kb)
    host = curves.get(("host", host_link(acc, target)))
    if host is None:
        return None
    network = req.hardware.network
    nets = [
        c for (scope, link), c in sorted(curves.items()) if scope == "network" and (network is None or link == network)
    ]
    return ScalingModel(host=host, networks=tuple(nets), per_host=int(k["DEVICES_PER_HOST"]))


# --- the plan a projection follows --------------------------------------------------------------


@dataclass(frozen=True)
class CommPlan:
    """The multi-device factor a projection path multiplies by (fraction of linear throughput kept),
    the evidence and notes that set it. Immutable: `factor`/`span` are pure, the paths return whether
    they applied it, and `settle` writes the final Communication."""

    comm: Communication
    ev: tuple[Evidence, ...] = ()
    notes: tuple[str, ...] = ()
    why_not: Optional[str] = None
    measured_text: str = ""
    factor_note: str = ""
    model: Optional[ScalingModel] = None

    @property
    def measured(self) -> bool:
        return self.comm.basis == "measured"

    def factor(self, ref_devices: int) -> tuple[float, float, bool]:
        """(low, high, applied): the kept fraction for a throughput measured on `ref_devices` devices,
        projected to the target's device count."""
        devices, kept = self.comm.devices, self.comm.kept
        if devices <= 1 or kept is None:
            return 1.0, 1.0, False
        if ref_devices <= 1:
            return kept.low, kept.high, True
        if ref_devices >= devices:
            return 1.0, 1.0, False  # the published run carries its own loss at this count
        reach = self.model.reach if self.model is not None and not self.measured else None
        if reach is not None and ref_devices >= reach:
            # The published run is already past the curve's last point: the curve (a data-parallel
            # assumption) has nothing to say between its count and the team's, and a ring all-reduce's
            # time does not grow with the ranks. What grows with the team's own step is its
            # communication bound (comm_compute), applied after this.
            return 1.0, 1.0, False
        if self.model is not None and not self.measured:
            r_low, r_high = self.model.at(ref_devices)
            ratios = sorted((min(1.0, kept.low / r_low), min(1.0, kept.high / r_high)))
            return ratios[0], ratios[1], True
        # The target has more devices than the published run: its loss lies in the same range and does
        # not shrink with more devices, so the per-device rate keeps low/high of it at worst.
        return kept.low / kept.high, 1.0, True

    def span(self) -> tuple[float, float, list[Evidence], list[str]]:
        kept = self.comm.kept
        if kept is None or self.comm.devices <= 1:
            return 1.0, 1.0, [], []
        return kept.low, kept.high, list(self.ev), list(self.notes)


def carried_loss(devices: int, ref_devices: int) -> bool:
    """A reference on `ref_devices` that already carries the target's (or a larger) communication loss."""
    return ref_devices > 1 and (devices <= 1 or ref_devices >= devices)


def settle(plan: CommPlan, applied: bool, ref_devices: frozenset[int], projected: bool) -> Communication:
    """The Communication a projection carries, given what its path did."""
    devices = plan.comm.devices
    if not projected:
        return _not_applied(plan, "none", said("comm.detail.nothing_projected")) if devices > 1 else plan.comm
    if devices > 1 and not applied:
        return _not_applied(plan, "in-reference", said("comm.detail.in_reference", counts=sorted(ref_devices)))
    if devices <= 1 and ref_devices:
        return plan.comm.model_copy(update={"notes": plan.comm.notes + [single_device_note(ref_devices)]})
    return plan.comm


def single_device_note(ref_devices: frozenset[int]) -> str:
    return said("comm.note.single_device", counts=sorted(ref_devices))


def unsupported(plan: CommPlan) -> Communication:
    return _not_applied(plan, "none", said("comm.detail.unsupported"))


def _not_applied(plan: CommPlan, basis: CommunicationBasis, why: str) -> Communication:
    """The path taken did not multiply by a communication factor: say so, keep the measurement as evidence."""
    comm = plan.comm
    m, kept = comm.measured, comm.kept
    detail = (
        said("comm.detail.evidence_beside", measured=plan.measured_text, why=why) if m and plan.measured_text else why
    )
    notes = [said("comm.note.measured_evidence_only", why_not=plan.why_not)] if m and plan.why_not else []
    if basis == "in-reference" and kept is not None and comm.knowledge_loss:
        notes.append(
            said(
                "comm.note.kb_not_applied",
                curve=plan.model is not None,
                devices=comm.devices,
                low=kept.low,
                high=kept.high,
            )
        )
        if plan.factor_note:
            notes.append(plan.factor_note)
    return comm.model_copy(
        update={
            "basis": basis,
            "kept": None,
            "basis_detail": detail,
            "notes": notes,
            "evidence": [e for e in comm.evidence if e.kind == "measured"],
        }
    )  # the knowledge-base range did not enter


def _derating(kb: Optional[KnowledgeBase], factor: str) -> Optional[Derating]:
    entries = [d for d in getattr(kb, "derating", []) if d.factor == factor]
    return sorted(entries, key=lambda d: d.id)[0] if entries else None


@dataclass(frozen=True)
class _Sources:
    """What the communication plan can rest on for one framework and target."""

    devices: int
    model: Optional[str]
    measured: Optional[ScalingMeasurement]
    curve: Optional[ScalingModel]  # the knowledge base's own scaling model
    derating: Optional[Derating]
    inter_host: Optional[InterHostMeasurement]


def _gather(
    framework: str,
    target: str,
    acc: Optional[Accelerator],
    req: Requirements,
    kb: Optional[KnowledgeBase],
    scaling: object,
    k: Consts,
) -> _Sources:
    """Pass 1: the scaling probe's figures (only when the team trains distributed), the knowledge base's
    curve for the target's links and `hardware.network`, and its communication derating."""
    devices = req.hardware.devices
    model = req.workload.model if req.workload else None
    probe = scaling is not None and req.needs.distributed_training
    return _Sources(
        devices=devices,
        model=model,
        measured=pick_measurement(scaling, framework, model, devices) if probe else None,
        curve=scaling_model(kb, acc, target, req, k) if kb is not None else None,
        derating=_derating(kb, "communication") if kb is not None else None,
        inter_host=pick_inter_host(scaling, framework, model, target) if probe else None,
    )


def _join_inter_host(
    src: _Sources,
) -> tuple[Optional[ScalingModel], Optional[InterHostMeasurement], list[str], list[Evidence]]:
    """Pass 2: a usable cross-host measurement replaces the network curves beyond one host; one that is
    not usable stays as evidence, with why. Returns (the model used, the measurement, notes, evidence)."""
    ih, curve, devices = src.inter_host, src.curve, src.devices
    if ih is None:
        return curve, None, [], []
    if ih.used and curve is None:
        ih = ih.model_copy(update={"used": False, "why_not": said("comm.inter_host.no_host_curve")})
    if not ih.used:
        note = said("comm.note.inter_host_evidence_only", why_not=ih.why_not)
        return curve, ih, [note], inter_host_evidence(ih)
    assert curve is not None
    joined = ScalingModel(host=curve.host, networks=curve.networks, per_host=curve.per_host, measured=ih)
    notes = [said("comm.note.inter_host_joined", link=ih.link, world_size=ih.world_size)]
    if devices > joined.per_host and curve.networks:
        k_low, k_high = curve.at(devices)
        notes.append(
            said(
                "comm.note.network_curve_unused",
                low=k_low,
                high=k_high,
                devices=devices,
                curves=[c.id for c in curve.networks],
            )
        )
    elif devices <= joined.per_host:
        notes.append(said("comm.note.inter_host_beyond_host", link=ih.link, per_host=joined.per_host))
    return joined, ih, notes, []


def _knowledge_loss(src: _Sources) -> tuple[Optional[list[float]], list[Evidence]]:
    """The knowledge base's own loss range at the target's devices (curve, else derating) and its evidence."""
    if src.curve is not None:
        k_low, k_high = src.curve.at(src.devices)
        return [round(1 - k_high, 4), round(1 - k_low, 4)], []
    d = src.derating
    if d is None:
        return None, []
    detail = said("comm.evidence.derating", low=d.loss.low, high=d.loss.high)
    return [d.loss.low, d.loss.high], [sourced_evidence(d.id, d.loss, detail)]


def _measured_plan(
    base: dict,
    m: ScalingMeasurement,
    where: str,
    kb_loss: Optional[list[float]],
    curve: bool,
    evidence: list[Evidence],
    kb_ev: list[Evidence],
    notes: list[str],
) -> CommPlan:
    """Pass 3a: the scaling probe measured the target's own shape: its efficiency is the range."""
    eff = m.efficiency
    assert eff is not None
    low, high = eff.min, min(eff.max, 1.0)
    detail = said(
        "comm.detail.measured",
        where=where,
        ranks=m.ranks,
        device=m.device,
        launcher=m.launcher,
        backend=m.backend,
        median=eff.median,
        low=low,
        high=high,
        n=eff.n,
    )
    if kb_loss:
        notes = notes + [said("comm.note.kb_unused_measured", curve=curve, low=1 - kb_loss[1], high=1 - kb_loss[0])]
    comm = Communication(
        **base,
        basis="measured",
        basis_detail=detail,
        kept=Span(low=round(low, 4), high=round(high, 4), unit="fraction"),
        evidence=evidence + kb_ev,
        notes=notes,
    )
    return CommPlan(comm, tuple(evidence), ())


def _knowledge_range(
    smodel: Optional[ScalingModel], d: Optional[Derating], devices: int, ih: Optional[InterHostMeasurement]
) -> tuple[float, float, CommunicationBasis, str, list[str]]:
    """Pass 3b: the fraction kept from the knowledge base (curve x measured link, curve, derating), else assumed."""
    if smodel is not None and smodel.measured is not None and devices > smodel.per_host and ih is not None:
        low, high = smodel.at(devices)
        detail = said(
            "comm.detail.host_curve_x_link",
            host_link=smodel.host.link,
            host_curve=smodel.host.id,
            link=ih.link,
            nnodes=ih.nnodes,
            ranks_per_node=ih.ranks_per_node,
            framework=ih.framework,
            backend=ih.backend,
            devices=devices,
            low=low,
            high=high,
        )
        return low, high, "measured+knowledge", detail, []
    if smodel is not None:
        low, high = smodel.at(devices)
        detail = said("comm.detail.curve", devices=devices, label=smodel.label, low=low, high=high)
        return low, high, "knowledge", detail, []
    if d is None:
        detail = said("comm.detail.assumed", devices=devices)
        return 0.5, 0.85, "assumed", detail, [said("comm.note.assumed")]
    detail = said("comm.detail.derating", devices=devices, low=d.loss.low, high=d.loss.high)
    return 1 - d.loss.high, 1 - d.loss.low, "knowledge", detail, []


def _probe_beside(
    m: ScalingMeasurement, why_not: str, where: str, devices: int, low: float, high: float, through_link: bool
) -> tuple[str, str, list[str]]:
    """Pass 4: a scaling probe result that is not the target's shape stands beside the range as evidence:
    (its text for the detail, the note comparing its communication factor, every note)."""
    measured_text = said(
        "comm.measured_text", where=where, ranks=m.ranks, device=m.device, device_scaling=m.device_scaling
    )
    notes = [said("comm.note.probe_beside", why_not=why_not, devices=devices, through_link=through_link)]
    factor_note = ""
    if m.allreduce_share is not None:
        share = m.allreduce_share
        factor, f_low, f_high = 1 - share.median, 1 - share.max, 1 - share.min
        place = "inside" if low <= factor <= high else ("below" if factor < low else "above")
        factor_note = said(
            "comm.note.factor",
            factor=factor,
            low=f_low,
            high=f_high,
            ranks=m.ranks,
            place=place,
            devices=devices,
            kept_low=low,
            kept_high=high,
        )
        notes.append(factor_note)
    if m.gate_ok is False:
        notes.append(said("comm.note.gate_failed", framework=m.framework))
    return measured_text, factor_note, notes


def communication_for(
    framework: str,
    target: str,
    acc: Optional[Accelerator],
    req: Requirements,
    kb: Optional[KnowledgeBase],
    scaling: object = None,
    here: bool = False,
    k: Consts = DEFAULT,
) -> CommPlan:
    """How a projection accounts for communication on the target's devices. The scaling probe counts
    only when the requirements ask for distributed training; it sets the range only when it is device
    scaling of the same shape, else it stands beside the knowledge-base curve as evidence."""
    src = _gather(framework, target, acc, req, kb, scaling, k)
    devices, m = src.devices, src.measured
    smodel, ih, ih_notes, ih_ev = _join_inter_host(src)
    kb_loss, d_ev = _knowledge_loss(src)
    kb_ev = smodel.evidence if smodel is not None else d_ev
    m_ev = (measurement_evidence(m) if m else []) + ih_ev
    where = said("comm.where", here=here, host=m.host if m else None)
    curve = smodel.points(devices) if smodel is not None else []
    base = dict(
        devices=devices,
        knowledge_loss=kb_loss,
        measured=m,
        interconnect=smodel.label if smodel else None,
        curve=curve,
        inter_host=ih,
    )
    if devices <= 1:
        detail = said("comm.detail.single_device", framework=m.framework if m else None)
        one = Span(low=1.0, high=1.0, unit="fraction")
        return CommPlan(
            Communication(**base, basis="single-device", basis_detail=detail, kept=one, evidence=m_ev, notes=ih_notes)
        )
    why_not = _why_not_measured(m, target, devices, src.model) if m else None
    if m and why_not is None:
        return _measured_plan(base, m, where, kb_loss, smodel is not None, m_ev, kb_ev, list(ih_notes))
    low, high, basis, detail, keep_notes = _knowledge_range(smodel, src.derating, devices, ih)
    notes, measured_text, factor_note = list(ih_notes), "", ""
    if m and why_not:
        basis = "measured+knowledge" if basis == "knowledge" else basis
        through = smodel is not None and smodel.measured is not None and devices > smodel.per_host
        measured_text, factor_note, more = _probe_beside(m, why_not, where, devices, low, high, through)
        detail = said("comm.detail.probe_beside", measured=measured_text, detail=detail)
        notes.extend(more)
    elif req.needs.distributed_training:
        detail = (
            said("comm.detail.no_probe", detail=detail)
            if scaling is None
            else said("comm.detail.no_usable_probe", detail=detail, framework=framework)
        )
    comm = Communication(
        **base,
        basis=basis,
        basis_detail=detail,
        kept=Span(low=round(low, 4), high=round(high, 4), unit="fraction"),
        evidence=m_ev + kb_ev,
        notes=notes,
    )
    return CommPlan(comm, tuple(kb_ev), tuple(keep_notes), why_not, measured_text, factor_note, smodel)


# --- T_comm vs T_compute (seed "Chips and framework released together" §5.2) ---------------------


def link_gbs(text: Optional[str], k: Consts = DEFAULT) -> Optional[float]:
    """GB/s of a device link from the accelerator's `interconnect` text ('NVLink 3.0, 600 GB/s',
    'HCCS 3 x 240 Gbps', 'PCIe 4.0'); None when the text gives no figure."""
    t = (text or "").lower()
    m = re.search(r"(\d+(?:\.\d+)?)\s*x\s*(\d+(?:\.\d+)?)\s*gbps", t)
    if m:
        return float(m.group(1)) * float(m.group(2)) / 8
    m = re.search(r"(\d+(?:\.\d+)?)\s*gb/s", t)
    if m:
        return float(m.group(1))
    m = re.search(r"pcie\s*(?:gen)?\s*(\d)", t)
    if m:
        return k["PCIE_GEN4_GBS"] * 2 ** (int(m.group(1)) - 4)
    return None


@dataclass(frozen=True)
class StepSplit:
    """How one optimizer step is cut over the devices (from the memory layout, else plain data parallel)."""

    tensor: int = 1
    pipeline: int = 1
    data: int = 1
    expert: int = 1
    gathers_weights: bool = False
    """the weights are sharded and gathered for every pass (ZeRO-3): 1.5x the all-reduce's data"""


@dataclass(frozen=True)
class CommCheck:
    """One step's communication time over its compute time, and the share of linear it allows."""

    ratio: float
    note: str
    kept_low: float
    """no overlap: T_compute / (T_compute + T_comm)"""
    kept_high: float
    """full overlap: T_compute / max(T_compute, T_comm)"""


def device_link(
    acc: Accelerator, req: Requirements, k: Consts, kb: Optional[KnowledgeBase], between: bool
) -> tuple[Optional[float], str]:
    """GB/s per device and its words: `hardware.network` between hosts, the accelerator's link within one."""
    if between:
        bw = k["NETWORK_ROCE_IB_GBS"] if req.hardware.network != "ethernet" else k["NETWORK_ETHERNET_GBS"]
        return bw, said("comm.link.between_hosts", network=req.hardware.network, gbs=bw)
    bw = link_gbs(getattr(acc, "interconnect", None), k)
    text = acc.interconnect or ""
    where = said("comm.link.within_host", interconnect=text, gbs=bw, has_unit="gb/s" in text.lower())
    if not bw and kb is not None:
        # an interconnect text without a figure ("HCCS, 8 NPUs full mesh"): the intra-node link entry has one
        link = next((i for i in kb.interconnects_for(acc.id) if i.scope == "intra-node" and i.bandwidth_gbs), None)
        if link is not None:
            bw = link.bandwidth_gbs.value
            where = said(
                "comm.link.knowledge", name=link.name, gbs=bw, confidence=link.bandwidth_gbs.confidence, id=link.id
            )
    return bw, where


def comm_compute(
    acc: Optional[Accelerator],
    req: Requirements,
    gflops: Optional[float],
    k: Consts = DEFAULT,
    kb: Optional[KnowledgeBase] = None,
    split: Optional[StepSplit] = None,
    peak_share: Optional[float] = None,
    grad_bytes: float = 2.0,
) -> Optional[CommCheck]:
    """One optimizer step's communication time over its compute time (seed "Chips and framework released
    together" §5.2). The step is `workload.global_batch` sequences (else `batch_size`); each device computes
    its share at `peak_share` of peak (the projection's MFU, else EFFECTIVE_PEAK_SHARE). T_comm = the ring
    all-reduce of each device's gradients over its data-parallel group, 2 (d-1)/d x N / (t p) x bytes /
    link, plus, for a mixture of experts, the all-to-all of each token's hidden state to its top-k
    experts and back, forward and backward (4 k h x 2 bytes per token and MoE layer, x (e-1)/e). The
    link is `hardware.network` between hosts, the accelerator's link within one."""
    devices = req.hardware.devices
    peak = acc.fp16_tflops or acc.bf16_tflops or acc.fp32_tflops if acc is not None else None
    if devices <= 1 or peak is None or not gflops or acc is None:
        return None
    split = split or StepSplit(data=devices)
    per_host = k["DEVICES_PER_HOST"]
    bw, where = device_link(acc, req, k, kb, devices > per_host)
    if not bw:
        return None
    share = peak_share or k["EFFECTIVE_PEAK_SHARE"]
    m = req.model
    batch = (req.workload.global_batch or req.workload.batch_size) if req.workload else 1
    rate = peak.value * 1e12 * share
    if not (math.isfinite(rate) and rate > 0):
        return None  # a peak that underflows (an override of 5e-324): no step time to set against
    t_compute = batch * gflops * 1e9 / devices / rate
    params = m.parameters_millions * 1e6
    active = (m.active_parameters_millions or m.parameters_millions) * 1e6
    experts_held = 0.0
    if m.is_moe and m.experts and m.experts_per_token:
        experts_held = (params - active) / (m.experts - m.experts_per_token) * m.experts
    cut = split.tensor * split.pipeline
    # LoRA and QLoRA exchange the adapters' gradients only (the frozen base has none)
    grads = ((params - experts_held) / cut + experts_held / (cut * split.expert)) * grad_bytes * trainable_share(m, k)
    d = split.data
    volume = 1.5 if split.gathers_weights else 1.0  # ZeRO paper §7.2.3
    t_dp = 2 * (d - 1) / d * grads / (bw * 1e9) * volume if d > 1 else 0.0
    t_a2a, a2a_gb = 0.0, None
    if m.is_moe and split.expert > 1 and req.workload is not None:
        shape = model_shape(m)
        tokens = batch * shape.sequence / devices
        e = split.expert
        a2a_bw, _ = device_link(acc, req, k, kb, e > per_host)
        moved = tokens * shape.layers * 4 * (m.experts_per_token or 1) * shape.hidden * 2.0 * (e - 1) / e
        t_a2a = moved / ((a2a_bw or bw) * 1e9)
        a2a_gb = moved / 1e9
    t_comm = t_dp + t_a2a
    ratio = t_comm / t_compute
    kept_low, kept_high = 1 / (1 + ratio), 1 / max(1.0, ratio)
    verdict = "communication-bound" if ratio >= 1 else ("large-share" if ratio >= 0.3 else "compute-dominates")
    note = said(
        "comm.step",
        ratio=ratio,
        reference=SEED_RELEASED_TOGETHER_REF,
        gradients_mb=grads / 1e6,
        tensor=split.tensor,
        pipeline=split.pipeline,
        data=d,
        link=where,
        dp_ms=t_dp * 1e3,
        a2a_gb=a2a_gb,
        expert=split.expert,
        a2a_ms=t_a2a * 1e3,
        compute_ms=t_compute * 1e3,
        peak_share=share,
        batch=batch,
        kept_low=kept_low,
        kept_high=kept_high,
        verdict=verdict,
    )
    return CommCheck(ratio, note, kept_low, kept_high)
