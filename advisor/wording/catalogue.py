"""Every finding's words, keyed by its code. An entry takes the finding's parameters (attribute access;
a parameter that is itself a finding arrives worded) and returns the sentence. Numbers are formatted
here, with advisor.numbers, never where they are computed. Entries are grouped by the module that
emits them; tests/test_findings_catalogue.py checks that every code emitted has an entry and every
entry is emitted."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any, Protocol

from advisor.numbers import pct, range_text, sig
from advisor.wording.review import REVIEW_CATALOGUE


class FindingLike(Protocol):
    """advisor.decision.findings.Finding, read by shape (this leaf imports nothing of the decision model)."""

    code: str
    params: Mapping[str, Any]


def _is_finding(value: Any) -> bool:
    return isinstance(getattr(value, "code", None), str) and isinstance(getattr(value, "params", None), Mapping)


def word(finding: FindingLike) -> str:
    """The catalogue's sentence for a finding."""
    entry = CATALOGUE.get(finding.code)
    if entry is None:
        raise KeyError(f"no wording for the finding {finding.code!r}")
    params = {k: word(v) if _is_finding(v) else v for k, v in finding.params.items()}
    return entry(SimpleNamespace(**params))


Entry = Callable[[Any], str]


def _g(x: float) -> str:
    return f"{x:g}"


def _sig6(x: float) -> str:
    return sig(x, 6)


def _whole(x: float) -> str:
    return f"{x:,.0f}"


def _span(low: float, high: float, end: Callable[[float], str] = sig) -> str:
    """A low-high range with each end written by `end`: one figure when both ends read the same
    ('6,500 W', not '6,500-6,500 W'). The power and cost texts write their ranges here."""
    a, b = end(low), end(high)
    return a if a == b else f"{a}-{b}"


def _counts(counts: list[int]) -> str:
    return "/".join(str(n) for n in counts)


# --- the schedule against the deadline (advisor.decision.schedule) -------------------------------

SCHEDULE: dict[str, Entry] = {
    "schedule.training_past_deadline": lambda p: (
        f"training alone cannot finish by the deadline: {p.training_low:.1f}-{p.training_high:.1f} "
        f"weeks of projected training against {p.deadline:g} weeks"
    ),
    "schedule.calendar_past_deadline": lambda p: (
        f"migration and training together cannot fit: at least {p.calendar_low:.1f} weeks "
        f"(migration at {p.share:.0%} of the team's time, then {p.training_low:.1f} weeks of training) "
        f"against {p.deadline:g} weeks"
    ),
    "schedule.calendar_fast_end_only": lambda p: (
        f"migration and training fit only at the fast end: {p.calendar_low:.1f}-{p.calendar_high:.1f} weeks "
        f"against {p.deadline:g}"
    ),
    "schedule.migration_past_deadline": lambda p: (
        f"the migration cannot fit: at least {p.low:g} h against {p.allowed:g} h "
        f"({p.share:.0%} of {p.team_size} x {p.hours_per_week:g} h x {p.deadline:g} weeks)"
    ),
    "schedule.migration_low_end_only": lambda p: (
        f"the migration fits only at the low end of its estimate ({p.low:g}-{p.high:g} h against {p.allowed:g} h)"
    ),
}


# --- multi-device communication (advisor.decision.communication) ---------------------------------


def _ranks_what(p: Any) -> str:
    return f"{p.framework} ({p.backend or '?'}) {p.nnodes} x {p.ranks_per_node} ranks over {p.link}, {p.model}"


def _probe_what(p: Any) -> str:
    return f"{p.runner} ({p.backend or '?'}) {p.ranks} ranks on {p.device}, {p.model}"


def _spread(p: Any) -> str:
    return f"(min-max {pct(p.min, p.max)} over {p.n} repetitions"


_VERDICT = {
    "communication-bound": "communication-bound: grow the batch or change the split",
    "large-share": "communication is a large share",
    "compute-dominates": "compute dominates",
}

COMMUNICATION: dict[str, Entry] = {
    "comm.link": lambda p: (
        (p.interface or "an unnamed interface")
        + (f", {p.speed_mbps:,} Mb/s" if p.speed_mbps else "")
        + (" (loopback)" if p.loopback else "")
    ),
    # why a cross-host measurement cannot stand for the target's inter-host link
    "comm.inter_host.loopback": lambda p: (
        "the inter-host runs went over loopback (every 'host' on one machine): they measure no network"
    ),
    "comm.inter_host.other_hardware": lambda p: (
        f"the inter-host runs ran on {p.hardware}, the training target is {p.target}: the share of a step the link "
        "takes depends on how fast the devices compute"
    ),
    "comm.inter_host.other_model": lambda p: (
        f"the inter-host runs trained {p.measured_model}, the workload is {p.model}: its gradient size and step time "
        "differ"
    ),
    "comm.inter_host.gate_not_passed": lambda p: "the inter-host runs' correctness gate did not pass",
    "comm.inter_host.no_comparison": lambda p: (
        "the inter-host result has no intra-host comparison and no allreduce share"
    ),
    "comm.inter_host.no_host_curve": lambda p: "the knowledge base has no host scaling curve to join it to",
    # why a scaling measurement cannot stand for the target's multi-device efficiency
    "comm.measured.shared_cpu": lambda p: (
        f"the scaling probe's {p.ranks} ranks shared a CPU host: they measure communication plus "
        "contention on shared cores, not device scaling"
    ),
    "comm.measured.other_hardware": lambda p: (
        f"the scaling probe ran on {p.hardware}, the training target is {p.target}"
    ),
    "comm.measured.other_ranks": lambda p: (
        f"the scaling probe measured {p.ranks} ranks, the requirements ask for {p.devices} devices"
    ),
    "comm.measured.other_model": lambda p: (
        f"the scaling probe ran {p.measured_model}, the workload is {p.model}: its compute/communication ratio differs"
    ),
    "comm.measured.gate_not_passed": lambda p: (
        "the scaling probe's correctness gate did not pass (parameters not identical across ranks)"
    ),
    "comm.measured.no_efficiency": lambda p: "the scaling probe has no efficiency figure",
    # evidence details
    "comm.evidence.inter_host_link_share": lambda p: (
        f"{_ranks_what(p)}: the link adds {p.median:.0%} of the cross-host step (vs the same ranks on one host) "
        f"{_spread(p)})"
    ),
    "comm.evidence.inter_host_allreduce_share": lambda p: (
        f"{_ranks_what(p)}: allreduce {p.median:.0%} of the cross-host step {_spread(p)})"
    ),
    "comm.evidence.efficiency": lambda p: (
        f"{_probe_what(p)}: scaling efficiency {p.median:.0%} of linear {_spread(p)}; "
        + (
            "device scaling)"
            if p.device_scaling
            else "communication plus contention on shared CPU cores, not device scaling)"
        )
    ),
    "comm.evidence.allreduce_share": lambda p: (
        f"{_probe_what(p)}: allreduce {p.median:.0%} of the synced step {_spread(p)}; "
        + (
            "device scaling)"
            if p.device_scaling
            else "communication plus contention on shared CPU cores, not device scaling)"
        )
    ),
    "comm.evidence.curve": lambda p: (
        f"scaling curve {p.link} ({p.scope}): "
        + ", ".join(f"{n}: {pct(lo, hi)}" for n, lo, hi in p.points)
        + (f" ({p.point_source})" if p.point_source else "")
    ),
    "comm.evidence.derating": lambda p: f"multi-device communication loses {p.low:.0%}-{p.high:.0%} of throughput",
    # the interconnect a scaling model stands for
    "comm.interconnect.measured": lambda p: f"{p.host_link} within a host, measured here over {p.link} between hosts",
    "comm.interconnect.curves": lambda p: (
        p.host_link + (f" within a host, {'/'.join(p.networks)} between hosts" if p.networks else "")
    ),
    # where the scaling probe ran, and its shape
    "comm.where": lambda p: "here" if p.here else (f"on {p.host}" if p.host else "in the scaling result"),
    "comm.measured_text": lambda p: (
        f"measured {p.where} ("
        + (f"{p.ranks} ranks on {p.device}" if p.device_scaling else f"{p.ranks} ranks, CPU, contention")
        + ")"
    ),
    # the basis of the factor (a projection's `basis_detail`)
    "comm.detail.nothing_projected": lambda p: "no throughput projected",
    "comm.detail.in_reference": lambda p: (
        f"loss included in the knowledge-base {_counts(p.counts) or 'several'}-device references"
    ),
    "comm.detail.unsupported": lambda p: "unsupported: nothing projected",
    "comm.detail.evidence_beside": lambda p: f"{p.measured} as evidence + {p.why}",
    "comm.detail.measured": lambda p: (
        f"measured {p.where} ({p.ranks} ranks on {p.device}, {p.launcher}/{p.backend}): "
        f"{p.median:.0%} of linear, min-max {pct(p.low, p.high)} over {p.n} repetitions"
    ),
    "comm.detail.host_curve_x_link": lambda p: (
        f"knowledge-base host curve ({p.host_link}, {p.host_curve}) x the inter-host link measured "
        f"here over {p.link} ({p.nnodes} x {p.ranks_per_node} ranks, {p.framework}/{p.backend}) for {p.devices} "
        f"devices: keeps {pct(p.low, p.high)} of linear"
    ),
    "comm.detail.curve": lambda p: (
        f"knowledge-base scaling curve for {p.devices} devices ({p.label}: keeps {pct(p.low, p.high)} of linear)"
    ),
    "comm.detail.assumed": lambda p: (
        f"no communication derating in the knowledge base: 15-50% loss assumed for {p.devices} devices"
    ),
    "comm.detail.derating": lambda p: f"knowledge-base derating for {p.devices} devices ({pct(p.low, p.high)} loss)",
    "comm.detail.single_device": lambda p: (
        "one device: no communication loss"
        + (f"; the scaling probe's {p.framework} figures are shown for when the team scales out" if p.framework else "")
    ),
    "comm.detail.probe_beside": lambda p: f"{p.measured} + {p.detail}",
    "comm.detail.no_probe": lambda p: (
        f"{p.detail}; no scaling probe result (run `advisor probe --scaling`, or pass --scaling FILE)"
    ),
    "comm.detail.no_usable_probe": lambda p: (
        f"{p.detail}; the scaling result has no usable {p.framework} multi-rank measurement"
    ),
    # notes
    "comm.note.single_device": lambda p: (
        f"per-device rate from the knowledge-base {_counts(p.counts)}-device references, which include their "
        "communication loss: one device may run somewhat faster than projected"
    ),
    "comm.note.measured_evidence_only": lambda p: f"{p.why_not}: its figures are evidence only",
    "comm.note.kb_not_applied": lambda p: (
        f"the knowledge-base {'scaling curve' if p.curve else 'derating'} for {p.devices} devices would keep "
        f"{pct(p.low, p.high)} of linear: not applied on top of references that already include their loss"
    ),
    "comm.note.inter_host_evidence_only": lambda p: (
        f"{p.why_not}: the inter-host figures are evidence only; the curve beyond one host is the knowledge base's"
    ),
    "comm.note.inter_host_joined": lambda p: (
        f"beyond one host the curve is the knowledge-base host curve x the link measured over {p.link} at "
        f"{p.world_size} ranks; at other counts the link's extra time grows with the ring all-reduce's 2(N-1)/N "
        "(assumption: latency and congestion at many hosts are not modelled, so large counts may fall further)"
    ),
    "comm.note.network_curve_unused": lambda p: (
        f"the knowledge-base network curve would keep {pct(p.low, p.high)} at {p.devices} devices "
        f"({', '.join(p.curves)}): not used, the inter-host link was measured"
    ),
    "comm.note.inter_host_beyond_host": lambda p: (
        f"the inter-host link measured over {p.link} enters the curve beyond {p.per_host} devices only"
    ),
    "comm.note.kb_unused_measured": lambda p: (
        f"the knowledge-base {'curve' if p.curve else 'derating'} would keep {pct(p.low, p.high)} "
        "(not used: measured on the target's shape)"
    ),
    "comm.note.assumed": lambda p: (
        "no communication derating in the knowledge base: assumed 15-50% loss on multi-device training"
    ),
    "comm.note.probe_beside": lambda p: (
        f"{p.why_not}: its figures are evidence; the projection to {p.devices} devices uses "
        + (
            "the knowledge-base host curve x the measured inter-host link"
            if p.through_link
            else "the knowledge-base range"
        )
    ),
    "comm.note.factor": lambda p: (
        f"measured communication factor (1 - allreduce share) {p.factor:.0%} (min-max {pct(p.low, p.high)}) at "
        f"{p.ranks} ranks: {p.place} the range kept for {p.devices} devices ({pct(p.kept_low, p.kept_high)})"
    ),
    "comm.note.gate_failed": lambda p: (
        f"the scaling probe's {p.framework} correctness gate failed: its figures are suspect"
    ),
    # the links one step's communication goes over, and its time against the compute
    "comm.link.between_hosts": lambda p: f"{p.network or 'roce-ib (assumed)'} between hosts, {sig(p.gbs, 6)} GB/s",
    "comm.link.within_host": lambda p: (
        (p.interconnect if p.has_unit else f"{p.interconnect} ({sig(p.gbs, 6)} GB/s)") if p.gbs else ""
    ),
    "comm.link.knowledge": lambda p: f"{p.name}, {sig(p.gbs, 6)} GB/s ({p.confidence}: knowledge base {p.id})",
    "comm.step": lambda p: (
        f"T_comm/T_compute ~ {sig(p.ratio, 2)} ({p.reference} §5.2): all-reduce of "
        f"{p.gradients_mb:,.0f} MB of gradients per device"
        + (f" (TP {p.tensor} x PP {p.pipeline} x DP {p.data})" if p.tensor * p.pipeline > 1 else "")
        + f" over {p.link} ({sig(p.dp_ms)} ms)"
        + (
            f" + MoE all-to-all of {sig(p.a2a_gb)} GB over expert parallel {p.expert} ({sig(p.a2a_ms)} ms)"
            if p.a2a_gb is not None
            else ""
        )
        + f" vs {sig(p.compute_ms)} ms of compute at {p.peak_share:.0%} of peak for a step of {sig(p.batch, 6)} "
        f"samples: {pct(p.kept_low, p.kept_high)} of linear (no overlap - full overlap); {_VERDICT[p.verdict]}"
    ),
}


# --- serving capacity against the stated load (advisor.decision.serving_capacity) ----------------

SERVING: dict[str, Entry] = {
    "serving.miss.kv_cache": lambda p: "the requests in flight do not fit in memory (KV cache)",
    "serving.miss.ttft": lambda p: f"time to first token {p.ttft_ms:,.0f} ms > {p.target_ms:g} ms",
    "serving.miss.tpot": lambda p: f"time per output token {p.tpot_ms:,.0f} ms > {p.target_ms:g} ms",
    "serving.miss.rate": lambda p: f"{sig(p.rps)} requests/s < {p.target:g}",
    "serving.miss.weights": lambda p: (
        f"the weights and one request's KV cache need {p.instance_devices} devices per instance"
    ),
    "serving.miss.concurrency": lambda p: (
        f"{p.concurrency} requests in flight over {p.instances} instance(s) of {p.instance_devices}: "
        f"{p.each} each, {p.fit} fit beside the weights ({p.kv_gb:.2f} GB of KV cache each)"
    ),
    "serving.no_instance_holds_weights": lambda p: "no instance size holds the weights",
    "serving.even_most_instances_miss": lambda p: (
        f"with {p.instance_devices} device(s) per instance, even {p.instances:,} instances miss: {p.miss}"
    ),
    "serving.precision.no_fp8": lambda p: (
        f"fp8 needs FP8 tensor cores (Hopper, Ada, Blackwell): the {p.accelerator} has none"
    ),
    "serving.precision.fp8": lambda p: "fp8 compute at twice the 16-bit dense peak",
    "serving.precision.no_int8": lambda p: (
        f"w8a8 needs int8 compute: the knowledge base has no int8 figure for the {p.accelerator}"
    ),
    "serving.precision.w8a8": lambda p: "w8a8: int8 weights and activations at the int8 peak",
    "serving.precision.no_16bit_peak": lambda p: f"the knowledge base has no 16-bit peak for the {p.accelerator}",
    "serving.precision.fp16_for_bf16": lambda p: (
        f"the {p.accelerator} has no bf16: 16-bit weights are served as fp16 (a bf16-trained model may overflow "
        "fp16's range: check its activations)"
    ),
    "serving.no_memory_figure": lambda p: (
        f"the knowledge base has no memory or bandwidth figure for the {p.accelerator}"
    ),
    "serving.kv_cache": lambda p: (
        f"{p.kv_heads} key/value heads of {p.head:g} (SERVING_KV_HEADS, assumption) x {p.layers} layers x 2 bytes: "
        f"{sig(p.mb_per_token)} MB of KV cache per token; usable memory {p.usable_memory}"
    ),
    "serving.no_figures": lambda p: "no figures to judge",
    "serving.no_count_meets": lambda p: f"no number of {p.accelerator} meets the load: {p.why}",
    "serving.meets": lambda p: (
        f"{p.needed} x {p.accelerator} are the fewest that meet it ({p.instances} instance(s) of {p.instance_devices}); "
        + (
            f"the team's {p.devices} run as {p.team_instances} instance(s) of {p.team_instance_devices}"
            if p.team_instances is not None
            else f"the team has {p.devices}"
        )
    ),
    "serving.needs_devices": lambda p: (
        f"{p.devices} x {p.accelerator} cannot ({p.miss}); {p.needed} meet it ({p.instances} instance(s) of "
        f"{p.instance_devices})"
        + (f" ({p.optimistic} at the optimistic end of the efficiencies)" if p.optimistic is not None else "")
    ),
}


# --- the total cost of ownership (advisor.decision.tco) ------------------------------------------


def _usd(low: float, high: float) -> str:
    return _span(low, high, lambda x: f"${x:,.0f}")


def _stated(field: str, constant: str) -> Entry:
    return lambda p: field if p.stated else f"{constant}, {p.source}"


TCO: dict[str, Entry] = {
    "tco.evidence.capital_sunk": lambda p: "the hardware is already paid for",
    "tco.compute.sunk": lambda p: (
        f"{p.devices} x {p.accelerator} owned, capital sunk (constraints.owned_capital: sunk): no compute charge, "
        "energy only"
    ),
    "tco.compute.owned_missing": lambda p: (
        f"{p.devices} x {p.accelerator} owned: "
        + ("no time to train projected" if p.no_hours else f"no purchase price for {p.accelerator}")
        + " in the knowledge base (a rental price is not charged for owned hardware; add a `card` or `server` "
        "price in prices.yaml, or state constraints.owned_capital: sunk)"
    ),
    "tco.source.amortisation": _stated("constraints.amortisation_years", "AMORTISATION_YEARS"),
    "tco.source.project_weeks": _stated("constraints.deadline_weeks", "PROJECT_WEEKS"),
    "tco.evidence.price": lambda p: f"{p.provider}: ${p.usd:,.0f} per {p.kind} ({p.term}, {p.observed})",
    "tco.compute.owned": lambda p: (
        f"{p.devices} x {p.accelerator} owned: ${_span(p.low, p.high, _whole)} per device written off over "
        f"{p.years:g} years ({p.why}) = ${_span(p.per_hour_low, p.per_hour_high)} per device-hour, for the "
        "projected time to train"
    ),
    "tco.budget_not_judged": lambda p: "the budget is not judged: the compute part has no figure",
    "tco.budget_fits_scope": lambda p: (
        f"the {' + '.join(p.parts)} costs fit constraints.budget_usd ({_usd(p.scoped_low, p.scoped_high)} of "
        f"${p.limit:,.0f}); with the team's time the total is at least {_usd(p.total_low, p.total_high)} "
        "(budget_scope: total compares that)"
    ),
    "tco.compute.cloud": lambda p: f"{p.devices} x {p.accelerator} for the projected time to train",
    "tco.compute.none": lambda p: "no price per device-hour or no time to train projected",
    "tco.evidence.pue": lambda p: f"PUE {_span(p.low, p.high, _g)}",
    "tco.evidence.electricity": lambda p: f"electricity ${_span(p.low, p.high, _g)} per kWh (as of {p.as_of})",
    "tco.energy": lambda p: (
        f"{_span(p.low, p.high)} kWh x PUE x price"
        + ("" if p.owned else " (inside the cloud price: shown, not added; constraints.compute_pricing=owned adds it)")
    ),
    "tco.energy.none": lambda p: "no power figure, PUE or electricity price in the knowledge base",
    "tco.evidence.engineer_day": lambda p: f"engineer-day ${_span(p.low, p.high, _g)} (as of {p.as_of})",
    "tco.evidence.team": lambda p: f"{p.size} engineers for {p.weeks:g} weeks",
    "tco.team": lambda p: f"{p.size} engineers x {p.weeks:g} weeks ({p.why}) x day rate: the same for every workflow",
    "tco.no_day_rate": lambda p: "no engineer-day rate in the knowledge base",
    "tco.evidence.migration": lambda p: f"{_span(p.low, p.high, _g)} h of migration/adaptation work",
    "tco.engineering": lambda p: (
        f"{_span(p.low, p.high, _g)} h / {p.per_day:g} h per day x day rate (hours from "
        + ("the code scan and pitfalls" if p.scanned else "the knowledge-base pitfalls and porting estimate")
        + ")"
        + (f"; {p.excluded}" if p.excluded else "")
    ),
    "tco.power.servers": lambda p: (
        f"power budget: {p.servers} server(s) of {p.server_devices} x {p.accelerator} at the server's datasheet "
        f"power {_span(p.watts_low, p.watts_high, _sig6)} W ({p.source}): {_span(p.kw_low, p.kw_high, _sig6)} kW"
    ),
    "tco.power.cards": lambda p: (
        f"power budget: {p.devices} x {p.accelerator} at {_span(p.watts_low, p.watts_high, _sig6)} W per card x "
        f"{sig(p.server, 6)} for the server around it (CPUs, memory, network, storage; no server datasheet in the "
        f"knowledge base; SERVER_POWER_PER_CARD_POWER: {p.server_source}): "
        f"{_span(p.kw_low, p.kw_high, _sig6)} kW, provisioned at the high end; the field report's 'cards x "
        f"power + {p.redundancy:.0%}' ({p.redundancy_source}) gives "
        f"{_span(p.cards_low, p.cards_high)} kW, the cards alone"
    ),
    "tco.power.cloud": lambda p: (
        "cloud pricing: the hourly price includes power and cooling, so the power budget matters only "
        "for owned hardware or an on-site cluster (constraints.compute_pricing: owned)"
    ),
}


# --- the report envelope's notes on what was measured (advisor.report) ---------------------------

_COMPARISON_ONLY = "the runs are shown for comparison but do not enter the performance score"

REPORT: dict[str, Entry] = {
    "report.probes.none": lambda p: (
        "no probe results: performance and cost come from the knowledge base (run `advisor probe` or pass "
        "--probes FILE)"
    ),
    "report.probes.none_succeeded": lambda p: (
        f"no probe run succeeded ({', '.join(f'{n} {s}' for s, n in p.statuses)}): performance and cost come "
        "from the knowledge base (see each run's error; `advisor check` says what this host lacks)"
    ),
    "report.probes.other_hardware": lambda p: f"{p.reason}: " + _COMPARISON_ONLY,
    "report.probes.other_hardware.reason": lambda p: (
        f"probes ran on {', '.join(p.hardware) or 'no hardware'}, the training target is {', '.join(p.targets)}"
    ),
    "report.probes.other_model": lambda p: f"{p.reason}: {_COMPARISON_ONLY} (run `advisor probe --models {p.model}`)",
    "report.probes.other_model.reason": lambda p: f"no probe run of the workload's model ({p.model})",
    "report.probes.custom_model": lambda p: (
        "the workload is a custom model: the probe runs are shown for comparison but do not enter the performance score"
    ),
    "report.scaling.none": lambda p: (
        "no scaling probe result: multi-device projections use the knowledge-base communication derating (run "
        "`advisor probe --scaling`, or pass --scaling FILE)"
    ),
    "report.scaling.failed": lambda p: f"{p.framework} {p.model}: {p.status}" + (f": {p.reason}" if p.reason else ""),
    "report.scaling.not_used": lambda p: (
        "needs.distributed_training is false: the scaling result is shown but not used"
    ),
    "report.scaling.one_rank": lambda p: (
        "the scaling result holds one rank per framework (one device on the probe's host): nothing was "
        "allreduced, so it gives no communication figure; multi-device projections use the knowledge-base "
        "communication derating (run `advisor probe --scaling` on a host of 2 or more devices)"
    ),
    "report.scaling.cpu_contention": lambda p: (
        "measured on a CPU host: communication plus contention on shared cores, not device scaling; the "
        "projections to the target's devices use the knowledge-base communication derating, with these figures "
        "as evidence"
    ),
}


# --- each workflow's throughput, time and cost (advisor.decision.projections) --------------------


def _cpu_only(p: Any) -> str:
    model = p.model or "the workload's model"
    return (
        f"CPU training: only a probe run of {model} on a CPU host can project it (run `advisor probe --models {model}`)"
    )


_NO_TRAINING = "workload.kind: inference: no training projection"

PROJECTIONS: dict[str, Entry] = {
    "proj.host.unnamed": lambda p: "a probed host",
    "proj.host.where": lambda p: f"{p.accelerator} (host {p.host})",
    "proj.mfu.basis": lambda p: f"MFU {pct(p.low, p.high)} from {p.refs} reference(s): {p.basis}",
    "proj.mfu.peak_disagrees": lambda p: (
        f"{p.accelerator} 16-bit peak {p.low:g}-{p.high:g} TFLOPS (the knowledge base's sources disagree)"
    ),
    "proj.factor.device_scaling": lambda p: (
        f"each reference from its own device count to {p.devices} ({p.basis}): "
        + "; ".join(f"{ref} ({n} devices) x{lo:.2f}-{hi:.2f}" for ref, n, lo, hi in p.scaled)
    ),
    "proj.factor.recompute": lambda p: (
        f"the team's recompute adds {p.share:.0%} compute per step (one forward pass for full recompute, "
        f"RECOMPUTE_SELECTIVE_SHARE of it for selective); the references ran with {', '.join(p.modes)} recompute"
    ),
    "proj.factor.qlora": lambda p: (
        f"QLoRA dequantises the 4-bit base every pass: x{p.factor:.2f} (QLORA_DEQUANT_OVERHEAD, {p.source})"
    ),
    "proj.factor.communication_bound": lambda p: (
        f"capped at the step's communication bound (T_comm/T_compute {p.ratio:.2g}): "
        f"{p.kept_low:.0%} of the compute-only rate without overlap, {p.kept_high:.0%} with full overlap"
    ),
    "proj.communication_bound": lambda p: (
        f"the projection is capped at its own communication bound: {p.kept_low:.0%}-{p.kept_high:.0%} of "
        "linear (advisor.decision.communication.comm_compute)"
    ),
    "proj.evidence.probe_run": lambda p: (
        f"{p.framework} {p.mode} {p.model} bs{p.batch_size} on {p.device} ({p.host}): {p.rate:.1f} img/s"
        + (f", quality {p.quality}" if p.quality else "")
    ),
    "proj.flops_scaled": lambda p: (
        f"scaled from the probe's {sig(p.run_gflops)} GFLOPs/image to the workload's {sig(p.gflops)} "
        "(same efficiency assumed)"
    ),
    "proj.reference.other_models": lambda p: (
        f"{p.accelerator} references of {', '.join(p.models)} scaled to the workload by FLOPs"
    ),
    "proj.reference.device_scaled": lambda p: (
        f"{p.ref_devices}-device references projected to {p.devices} devices: x{p.low:.2f}-{p.high:.2f} for the "
        "added communication (knowledge-base range)"
    ),
    "proj.evidence.reference": lambda p: (
        f"{p.framework} {p.mode} {p.model} ({p.dataset}) on {p.devices}x {p.accelerator}, {p.precision}: "
        f"{p.rate:g} img/s"
    ),
    "proj.evidence.reference_elsewhere": lambda p: (
        f"{p.framework} {p.mode} {p.model} ({p.dataset}) on {p.devices}x {p.accelerator}: {p.rate:g} img/s, "
        f"{p.fraction:.0%} of its peak"
    ),
    "proj.evidence.peak": lambda p: f"{p.accelerator} peak {p.value:g} TFLOPS",
    "proj.evidence.peak_range": lambda p: f"{p.accelerator} peak {p.low:g}-{p.high:g} TFLOPS (sources differ)",
    "proj.evidence.peak_precision": lambda p: f"{p.accelerator} peak {p.precision} {p.value:g} TFLOPS",
    "proj.reference.by_peak": lambda p: (
        f"no {p.framework} reference on {p.accelerator}: the fraction of peak reached on the same vendor's other "
        f"chips ({pct(p.low, p.high)}) applied to its peak"
    ),
    "proj.evidence.adapter_ratio": lambda p: (
        f"operator coverage loses {p.loss_low:.0%}-{p.loss_high:.0%}: an adapter path keeps "
        f"{p.kept_low:.0%}-{p.kept_high:.0%} of the first-party throughput"
    ),
    "proj.reference.via_native": lambda p: (
        f"no {p.framework} reference on {p.vendor} chips: {p.native}'s reference-based projection x "
        f"{p.low:.2f}-{p.high:.2f} for the adapter layer"
    ),
    "proj.derating.missing": lambda p: f"no {p.factor} derating in the knowledge base",
    "proj.derating.coverage_half": lambda p: (
        ("first-party path: lower" if p.native else "adapter path: upper") + " half of the operator-coverage loss"
    ),
    "proj.evidence.derating": lambda p: f"{p.factor.replace('_', ' ')} loses {p.low:.0%}-{p.high:.0%} of peak",
    "proj.basis.measured": lambda p: f"probe run {p.run} on {p.where}",
    "proj.basis.mfu": lambda p: f"MFU of published LLM training runs applied to {p.accelerator}'s 16-bit peak",
    "proj.basis.reference": lambda p: f"knowledge-base reference measurements of {p.framework} on {p.accelerator}",
    "proj.basis.reference_by_peak": lambda p: (
        f"knowledge-base references of {p.framework} on other {p.vendor} chips, scaled to {p.accelerator}'s peak"
    ),
    "proj.basis.reference_via_native": lambda p: (
        f"knowledge-base references of the first-party framework on {p.vendor} chips x an adapter ratio"
    ),
    "proj.basis.peak": lambda p: f"{p.accelerator} peak x derating ranges",
    "proj.hybrid": lambda p: "hybrid: production training runs on MindSpore after the PyTorch prototype is migrated",
    "proj.mindspore_no_gpu": lambda p: (
        f"MindSpore's newest releases do not run on CUDA GPUs (last with GPU support: {p.last_gpu or 'unknown'})"
    ),
    "proj.runs_elsewhere": lambda p: (
        f"probe runs on {', '.join(p.accelerators)} not used as measurements: the target accelerator is {p.target}"
    ),
    "proj.not_meaningful": lambda p: f"the projection is not meaningful: {p.why}",
    "proj.rate_not_finite": lambda p: (
        f"the rate comes out at {sig(p.low)}-{sig(p.high)} {p.unit}, not a positive finite number: check the inputs "
        "that scale it (model.sequence_length, the model's size, the accelerator's peak figures)"
    ),
    "proj.rate_no_finite_time": lambda p: (
        f"{sig(p.low)} {p.unit} at the slow end leaves no finite time to train: check the inputs that scale the rate"
    ),
    "proj.run_beyond_max": lambda p: (
        f"the run would take {sig(p.years)} years even at the fast end, beyond MEANINGFUL_MAX_HOURS "
        f"({p.max_years:g} years): check the workload and the model's size and shape"
    ),
    "proj.serving.no_reference": lambda p: f"{_NO_TRAINING}; serving on {p.where}, no serving reference",
    "proj.serving.basis": lambda p: (
        f"{_NO_TRAINING}; serving on {p.where} through {p.runtime}: {p.low:,.0f}-{p.high:,.0f} {p.unit} per device"
    ),
    "proj.evidence.pipeline": lambda p: f"input pipeline: {p.detail}",
    "proj.pipeline.small_images": lambda p: (
        "the pipeline probe times 32x32 images: a full-size image pipeline (JPEG decode, large crops) is "
        "slower, so its rate is an upper bound for this workload's loader"
    ),
    "proj.pipeline.bounds": lambda p: (
        f"the measured input pipeline bounds it: {p.high:,.0f} images/s at most from {p.hosts:g} host(s) "
        f"({p.framework} {p.variant}, measured here): a faster loader, more hosts or pre-processed data"
    ),
    "proj.record.cap": lambda p: (
        f"capped at the published record: {p.benchmark}, {p.record_devices} x {p.accelerator} {p.record:,.0f} "
        f"images/s ({p.cap:,.0f} on {p.devices}); the projection reached {p.high:,.0f}"
    ),
    "proj.evidence.record": lambda p: f"record: {p.benchmark} ({p.as_of})",
    "proj.loader.bounds": lambda p: (
        f"the data loader bounds it: projected {p.high:,.0f} images/s exceeds what the input pipeline of {p.hosts:g} "
        f"host(s) is assumed to deliver ({p.feed:,.0f} images/s, INPUT_PIPELINE_PER_HOST): capped there for the "
        "score, the time and the schedule alike"
    ),
    "proj.time.under_a_minute": lambda p: (
        f"projected time to train is under a minute at the fast end ({p.seconds:.0f} s): "
        "check the workload (dataset_samples x epochs) and the throughput basis"
    ),
    "proj.time.beyond_a_year": lambda p: (
        f"projected time to train is beyond a year at the slow end ({p.years:.1f} years): "
        "not a plan; more devices, a smaller model or a smaller workload"
    ),
    "proj.evidence.price": lambda p: (
        f"{p.accelerator} costs ${_span(p.low, p.high, _g)} per device-hour (as of {p.as_of})"
    ),
    "proj.no_price": lambda p: (
        f"no price per device-hour for {p.accelerator} in the knowledge base: cost not projected"
    ),
    "proj.evidence.power": lambda p: (
        f"{p.basis}; the fleet draws {_span(p.low_kw, p.high_kw)} kW while training "
        "(TYPICAL_DRAW_LOW-HIGH of its maximum)"
    ),
    "proj.none.no_kb": lambda p: "no knowledge base and no measurement on this hardware",
    "proj.none.cpu": _cpu_only,
    "proj.none.no_accelerator": lambda p: f"no {p.target} accelerator in the knowledge base",
    "proj.none.not_projectable": lambda p: (
        f"not projectable: the knowledge base has no published throughput of a {p.family} model (a "
        "recommender, a diffusion or graph model), and a CNN's or a transformer's share of peak does not "
        "transfer to it (a recommender's embedding lookups are bound by memory bandwidth and all-to-all, not "
        "FLOPs; a diffusion U-Net mixes convolutions and attention at several resolutions). The probe that "
        f"would measure it: measure a training step of the model itself on one {p.accelerator}, timed after "
        "warm-up at the planned per-device batch (samples/s, as `advisor probe` times its own models), then "
        "its scaling over the devices with `advisor probe --scaling`; the suite's probes train LeNet, ResNet "
        "and a small GPT, none of which stands in for it"
    ),
    "proj.none.no_workload": lambda p: "no workload in the requirements (add `workload:` to project time and cost)",
    "proj.none.overhead_bound": lambda p: (
        f"the workload's {sig(p.gflops)} training GFLOPs per sample are too few to project from references or peak "
        f"FLOPs (overhead-bound, not compute-bound): only a probe run on {p.accelerator} can project it"
    ),
    "proj.none.no_peak": lambda p: f"no reference and no peak figure for {p.accelerator}",
}


# --- whether the model fits the devices (advisor.decision.memory) --------------------------------


def _need(p: Any) -> str:
    return (
        f"at least {p.min_devices} x {p.accelerator}" if p.min_devices else f"more than any number of {p.accelerator}"
    )


def _layout_why(p: Any) -> str:
    head = f"chosen for the least estimated step-time overhead ({p.overhead:+.1%}"
    head += f", of which recompute {p.recompute:+.1%})" if p.recompute else ")"
    if p.other is None:
        return head + " among the layouts that fit"
    return (
        f"{head} over {p.other} ({p.other_overhead:+.1%}, {p.other_gb:g} GB per device); overheads: full "
        "recompute one forward pass, selective RECOMPUTE_SELECTIVE_SHARE of it, TP_OVERHEAD_PER_DOUBLING per tensor-"
        "parallel doubling, the 1F1B bubble (p - 1) / micro-batches, ZERO3_OVERHEAD, the data-parallel all-reduce's "
        "time beyond the step's compute (it overlaps the backward pass)"
    )


def _fine_tune(p: Any) -> str:
    nf4 = f", QLORA_NF4_BITS: {p.nf4_source}" if p.width == "int4" else ""
    assumed = "" if p.share_stated else " (trainable share 1% assumed: set model.trainable_share)"
    return (
        f"{p.method.upper()}: {p.frozen_share:.2%} of the weights frozen at {sig(p.frozen)} bytes/parameter "
        f"({p.width}{nf4}), {p.share:.2%} trained at {p.total:g}{assumed}"
    )


MEMORY: dict[str, Entry] = {
    "mem.formula.zero_paper": lambda p: (
        "the ZeRO paper's model states (Rajbhandari et al. 2020, Figure 1: ZeRO-1 4 + 12/N, ZeRO-2 "
        "2 + 14/N, ZeRO-3 16/N bytes/parameter)"
    ),
    "mem.formula.deepspeed": lambda p: (
        "DeepSpeed's ZeRO estimators (estimate_zero2_model_states_mem_needs 4 + 16/N, ZeRO-3 18/N + 4 x "
        "the largest layer; ZeRO-1 as the ZeRO paper, 4 + 12/N)"
    ),
    "mem.formula.megatron": lambda p: (
        "Megatron's distributed optimizer (Megatron Core developer guide: bf16 parameters with fp32 main "
        "gradients 6 + 12/d bytes/parameter, 18 without it; fp16 4 + 16/d; fp32 8 + 8/d)"
    ),
    "mem.formula.mindspore": lambda p: (
        "MindSpore's optimizer parallel (MindSpore docs, Optimizer Parallel, optimizer_level: level1 "
        "weights and optimizer states sharded over the data-parallel group, 4 + 12/d; level2 with the gradients, "
        "2 + 14/d; level3 with the weights gathered again for the backward, 16/d + 4 x the largest layer)"
    ),
    "mem.formula.none": lambda p: (
        "plain data parallel: every rank holds the whole model state (16 bytes/parameter for mixed-precision "
        "Adam, ZeRO paper §3)"
    ),
    "mem.sharding.none": lambda p: "no sharding",
    "mem.sharding.megatron_ddp": lambda p: "no sharding (Megatron DDP)",
    "mem.sharding.distributed_optimizer": lambda p: "distributed optimizer",
    "mem.sharding.optimizer_parallel": lambda p: "optimizer parallel",
    "mem.sharding.optimizer_parallel_gradients": lambda p: "optimizer parallel with gradient sharding",
    "mem.sharding.optimizer_parallel_weights": lambda p: (
        "optimizer parallel level 3 (weights re-gathered for the backward)"
    ),
    "mem.layout": lambda p: (
        f"TP {p.tp} x PP {p.pp} x DP {p.dp}"
        + (f" (EP {p.ep})" if p.ep > 1 else "")
        + f", {p.sharding}, recompute {p.recompute}, micro-batch {p.micro_batch}"
    ),
    "mem.usable.stated": lambda p: f"knowledge base usable_memory_gb: {p.gib:g} GiB = {p.gb:.1f} GB",
    "mem.usable.reserve": lambda p: f"{p.gib:g} GiB ({p.gb:.1f} GB) x {p.share:g} ({p.constant}: {p.source})",
    "mem.usable.none": lambda p: f"the knowledge base has no memory figure for {p.accelerator}",
    "mem.evidence.usable": lambda p: f"{p.accelerator}: {p.gib:g} GiB usable",
    "mem.evidence.memory": lambda p: f"{p.accelerator}: {p.gib:g} GiB on the device",
    "mem.evidence.parameters": lambda p: f"{p.millions:g} M parameters",
    "mem.evidence.precision": lambda p: (
        f"{p.precision} training, {p.optimizer}: {p.total:g} bytes/parameter of model states"
        + (" (low-precision optimizer states)" if p.low else "")
        + ("" if p.stated else f" (defaults for a {p.family})")
    ),
    "mem.shape_derived": lambda p: "transformer shape derived from the size: " + "; ".join(p.derived),
    "mem.activations_assumed": lambda p: (
        f"activations {p.mb:g} MB per sample assumed for a {p.family} (set model.activation_mb_per_sample)"
    ),
    "mem.no_workload": lambda p: "no workload: activations counted for one sample per device",
    "mem.not_judged": lambda p: f"{p.basis}: memory fit not judged",
    "mem.low_precision_states": lambda p: (
        "low-precision optimizer states: no fp32 master copy, 16-bit moments (assumes bf16 rounding of the "
        "updates does not stall training: a pure-bf16 optimizer such as Kahan-summed AdamW, or 8-bit Adam)"
    ),
    "mem.master_weights": lambda p: (
        f"{p.precision} training keeps fp32 master weights and fp32 optimizer moments ({p.total:g} bytes/parameter, "
        "ZeRO paper; Megatron-LM, DeepSpeed and MindFormers do): set model.optimizer_states: low-precision otherwise"
    ),
    "mem.fine_tune": _fine_tune,
    "mem.moe": lambda p: (
        f"mixture of experts: memory holds all {p.millions:g} M parameters ({p.experts} experts), "
        f"FLOPs follow the {p.active:g} M a token passes through (top-{p.top}); "
        "activations counted as the dense model of the active size"
    ),
    "mem.layout_on": lambda p: (
        f"layout on {p.devices} x {p.accelerator}: {p.layout}: {p.states:g} GB of model states + "
        f"{p.activations:g} GB of activations = {p.per_device:g} GB per device "
        f"({p.usable:.1f} GB usable; Korthikanti et al. 2022 activations; model states under {p.formula})"
    ),
    "mem.layout_why": _layout_why,
    "mem.full_recompute": lambda p: (
        f"full activation recompute: one more forward pass per step, {p.overhead:.0%} more compute"
    ),
    "mem.does_not_fit": lambda p: (
        f"{p.millions:g} M parameters need {p.states:,.0f} GB of model states: {_need(p)} "
        f"({p.usable:.1f} GB usable each) with the model split; hardware.devices={p.devices}"
        + (f" (on {p.min_devices}: {p.least})" if p.least is not None else "")
    ),
    "mem.micro_batches": lambda p: (
        f"a per-device batch of {p.batch} does not fit: micro-batches of {p.micro_batch} with gradient accumulation"
    ),
    "mem.must_split": lambda p: (
        f"model states ({p.states:,.0f} GB) exceed one {p.accelerator} ({p.usable:.1f} GB usable): "
        f"{p.strategy} needed on {p.devices} devices (at least {p.min_devices})"
    ),
    "mem.blocks": lambda p: (
        f"model.parameters_millions={p.millions:g}: {p.states:,.0f} GB of model states need "
        + (f"at least {p.min_devices}" if p.min_devices else "no number of")
        + f" {p.accelerator} devices ({p.usable:g} GB usable each), hardware.devices={p.devices}"
    ),
}


# --- the transformer probe's evidence and the dynamic-shape adjustment (advisor.decision.transformer_evidence) --


def _gpt_host(p: Any) -> str:
    return (p.cpu or "an unnamed CPU") + (f", {p.cores} logical cores" if p.cores else "")


def _gpt_run(p: Any) -> str:
    parts = [f"{p.tokens:,.0f} tokens/s" + (f" (95% CI {p.ci95[0]:,.0f}-{p.ci95[1]:,.0f})" if p.ci95 else "")]
    if p.step is not None:
        parts.append(f"step {p.step:.1f} ms")
    if p.mfu is not None:
        parts.append(f"MFU {p.mfu:.1%} of the on-host GEMM peak")
    grade = p.grade or "not graded"
    reasons = f": {'; '.join(p.reasons)}" if p.reasons and grade != "stable" else ""
    return f"{p.framework} {p.mode}: {', '.join(parts)}; {grade}{reasons}; measured here, {p.where}"


def _gpt_dynamic(p: Any) -> str:
    text = (
        f"truly variable lengths cost {p.cost:.0%} of end-to-end tokens/s in MindSpore graph mode against "
        f"{p.best_way} ({p.variable_compiles} graph compiles for {p.distinct} distinct lengths, "
        f"{p.compile_seconds:.1f} s compiling, against {p.best_compiles})"
    )
    if p.steady_cost is not None:
        text += f"; once every length is compiled, {p.steady_cost:.0%}"
    if p.set_inputs_cost is not None:
        text += (
            f"; with Cell.set_inputs dynamic dims {p.set_inputs_compiles} compile(s) and {p.set_inputs_cost:.0%} "
            f"against {p.best_way}"
        )
    if p.bucketed_cost is not None:
        text += f"; bucketed {p.bucketed_cost:.0%} against {p.best_way}"
    if not p.usable:
        return f"{text}. Not used: {p.reason}"
    if p.cost is not None and p.cost < p.floor:
        text += f" (below the {p.floor:.0%} floor, DYNAMIC_COST_FLOOR: no measurable cost)"
    return text


def _gpt_applies(p: Any) -> str:
    head = f"applies where: same hardware class ({p.cls or 'unknown'}): evidence about the frameworks on {p.host}, "
    if p.same:
        return head + "the class the team trains on"
    return (
        head
        + f"not a projection for the training target ({p.target}"
        + (f", {p.accelerator})" if p.accelerator else ")")
    )


_GPT_NOT_MEASURED = (
    "transformer probe not run: tokens/s, parity and the dynamic-shape cost rest on the knowledge base "
    "(run `advisor probe --models gpt --json -o FILE`, then --gpt FILE)"
)

TRANSFORMER: dict[str, Entry] = {
    "gpt.not_measured": lambda p: _GPT_NOT_MEASURED,
    "gpt.no_run": lambda p: (
        "the transformer probe measured no run (every run failed or was skipped): " + _GPT_NOT_MEASURED
    ),
    "gpt.measured": lambda p: (
        f"measured here on {p.host} with {p.model}: {p.stable} of {p.runs} runs graded stable; "
        + ("" if p.workload else "the requirements are not a transformer workload, so it is context only; ")
        + p.where
    ),
    "gpt.applies_where": _gpt_applies,
    "gpt.host": _gpt_host,
    "gpt.model.unknown": lambda p: "the probe's GPT",
    "gpt.model": lambda p: (
        f"a {p.layers}-layer GPT (hidden {p.hidden}, {p.heads} heads, sequence {p.seq}, vocabulary {p.vocab})"
    ),
    "gpt.evidence.run": _gpt_run,
    "gpt.parity.status": lambda p: f"parity {p.status}" + (f": {p.error}" if p.error else ""),
    "gpt.parity.passed": lambda p: (
        f"parity passed: logits, loss and gradients after one step agree across frameworks (worst: "
        f"{p.name} {p.value:.2g} against a derived bound of {p.tolerance:.2g}); measured here"
    ),
    "gpt.parity.failed": lambda p: (
        f"parity failed: {p.name} {p.value:.2g} beyond its derived bound {p.tolerance:.2g}"
        + (f"; likely cause: {p.cause}" if p.cause else "")
    ),
    "gpt.attention.pytorch": lambda p: f"PyTorch: F.scaled_dot_product_attention used the {p.backend} kernel here",
    "gpt.attention.mindspore": lambda p: (
        "MindSpore: flash_attention_score ran here"
        if p.available
        else "MindSpore: FlashAttentionScore is not available on this host (Ascend-only); written-out "
        "attention was measured"
    ),
    "gpt.dynamic.heading": lambda p: "Dynamic shapes: " + p.text,
    "gpt.dynamic.not_measured": lambda p: (
        "MindSpore graph mode's variable-length way was not measured against a padded or bucketed way"
    ),
    "gpt.dynamic.no_graph_run": lambda p: "no measured fixed-length MindSpore graph run to judge this host's noise by",
    "gpt.dynamic.graph_not_stable": lambda p: (
        f"the MindSpore graph run was graded {p.quality or 'not graded'} here: {'; '.join(p.reasons) or 'not graded'}"
    ),
    "gpt.dynamic": _gpt_dynamic,
    "gpt.adjust.not_migrating": lambda p: f"{p.workflow}: does not run MindSpore graph mode",
    "gpt.adjust.fixed_shapes": lambda p: (
        f"{p.workflow}: the requirements have fixed shapes (model.dynamic_shapes false)"
    ),
    "gpt.adjust.moves_nothing": lambda p: (
        f"{p.workflow}: the dynamic-shape measurement moves nothing: {p.reason if p.reason is not None else 'not measured'}"
    ),
    "gpt.adjust.below_floor": lambda p: (
        f"{p.workflow}: truly variable lengths cost {p.cost:.0%} here, below the {p.floor:.0%} floor "
        "(DYNAMIC_COST_FLOOR): no change"
    ),
    "gpt.adjust.mitigated": lambda p: (
        f"{p.workflow}: variable lengths cost {p.cost:.0%} in MindSpore graph mode here, and "
        + ("bucketing the lengths" if p.mitigation == "bucketing" else "declaring dynamic dims with Cell.set_inputs")
        + f" measured {p.residual:.0%} against {p.best_way}: -{p.points:g} migration points ({p.penalty:g} x "
        f"{p.residual_kept:.0%}) instead of -{p.unmitigated:g} ({p.penalty:g} x {p.cost:.0%}; "
        f"DYNAMIC_SHAPE_PENALTY); {p.pitfall} likelihood {p.before:g} -> {p.after:g} (DYNAMIC_MITIGATED_LIKELIHOOD)"
    ),
    "gpt.adjust.unmitigated": lambda p: (
        f"{p.workflow}: variable lengths cost {p.cost:.0%} in MindSpore graph mode here and "
        + (
            f"no measured mitigation recovers it (best: {p.mitigation} {p.residual:.0%})"
            if p.residual is not None
            else "no mitigation was measured"
        )
        + f": -{p.points:g} migration points ({p.penalty:g} x {p.left:.0%}, DYNAMIC_SHAPE_PENALTY); {p.pitfall} "
        f"likelihood {p.before:g} -> {p.after:g} (DYNAMIC_MEASURED_HIT)"
    ),
}


# --- how sure the verdict is (advisor.decision.confidence) ---------------------------------------

CONFIDENCE: dict[str, Entry] = {
    "conf.noise_overlap": lambda p: (
        f"measured throughput of {p.top} and {p.runner} overlap within their 95% CIs"
        + ("; the performance difference that decides the verdict is inside the noise" if p.decides else "")
    ),
    "conf.evidence.no_runner": lambda p: "no runner-up: decided by hard constraints",
    "conf.evidence.nothing_favours": lambda p: "no criterion favours the top workflow",
    "conf.evidence.weak_items": lambda p: (
        f"{p.weak} of {p.total} evidence items in the deciding criteria are assumptions, blog figures or rules on "
        "the requirements"
    ),
    "conf.decided.nothing_eligible": lambda p: "no workflow meets every hard constraint: the best-scoring one is shown",
    "conf.decided.hard_constraint": lambda p: (
        f"decided by hard constraints: {', '.join(p.beaten)} scored higher but is ruled out"
    ),
    "conf.decided.scores_alone": lambda p: "decided by the scores; the others are ruled out by hard constraints",
    "conf.decided.scores": lambda p: "decided by the scores of eligible workflows",
    "conf.step.nothing_eligible": lambda p: "nothing eligible",
    "conf.step.tie": lambda p: f"a tie: {p.margin:.2f} points",
    "conf.step.negative": lambda p: f"negative margin {p.margin:.2f}",
    "conf.step.weak_evidence": lambda p: f"weak decisive evidence ({p.score:.1f}/5)",
    "conf.step.fair_evidence": lambda p: f"high needs good decisive evidence; it is fair ({p.score:.1f}/5)",
    "conf.step.fragile": lambda p: f"fragile: {p.note} ({p.change:.0%} away)",
    "conf.step.inside_noise": lambda p: "the measured difference that decides it is inside the noise",
}


# --- the criteria's notes and evidence (advisor.decision.criteria) -------------------------------


def _compliance(p: Any) -> str:
    texts = {
        "hardware": lambda v: f"training hardware {v:.1f}",
        "deployment": lambda v: f"non-NVIDIA deployment {v:.2f}",
        "framework": lambda v: f"domestic framework {v:.0f}",
    }
    note = " + ".join(f"{texts[kind](value)} x{share:.2f}" for kind, value, share in p.parts)
    note += " (shares " + ", ".join(p.shares) + ")"
    if p.scope is not None:
        note += f"; needs.domestic_scope={'+'.join(p.scope)}"
    if p.hybrid_penalty is not None:
        note += f"; -{p.hybrid_penalty:g} for the PyTorch prototype stage"
    if p.unmet_penalty is not None:
        note += f"; -{p.unmet_penalty:g} as substitution is required but not fully met"
    return note


_ADAPTER = " (PyTorch on Ascend through torch_npu)"
_PATH_TEXT = {"native": "first-party", "vendor-converter": "vendor converter", "export": "export/conversion"}


def _undecided(p: Any) -> str:
    return "".join(
        f"; not decidable here against {other}: paired ratio {c.ratio} (95% CI {c.ci95}, {c.pairs} pairs, "
        f"quality {c.quality})"
        for other, c in p.undecided
    )


_ASSUMED_PATH = {
    "ASSUMED_PERF_CPU": "CPU training",
    "ASSUMED_PERF_NATIVE": "first-party path",
    "ASSUMED_PERF_ADAPTER": "adapter path",
}


CRITERIA: dict[str, Entry] = {
    "crit_common.aspect": lambda p: f"{p.framework} {p.aspect}: {p.score}/5: {p.statement}",
    "crit_team.evidence.skill": lambda p: f"{p.framework} skill {p.level}",
    "crit_team.one_stack": lambda p: f"{p.base:g} + {p.step:g} per {p.framework} skill level",
    "crit_team.two_stacks": lambda p: (
        f"needs both skills: {p.share:.0%} PyTorch, {1 - p.share:.0%} MindSpore, -{p.two:g} for keeping two stacks "
        "(HYBRID_TWO_STACKS)"
        + (f"; -{p.small:g} for a team of <= 2 carrying two stacks" if p.small is not None else "")
    ),
    "crit_team.evidence.small_team": lambda p: "two stacks to keep up with for a team of two or fewer",
    "crit_cost.evidence.no_workload": lambda p: "no workload in the requirements",
    "crit_cost.evidence.no_figures": lambda p: "no cost figures for every workflow",
    "crit_cost.all_equal": lambda p: "no cost figures for every workflow: all equal",
    "crit_cost.relative": lambda p: (
        f"{p.total} total cost ({' + '.join(p.parts)}) relative to the cheapest"
        + (f"; not compared: {', '.join(p.missing)}" if p.missing else "")
    ),
    "crit_compliance.evidence.mandate": lambda p: f"domestic {p.which} {p.level}",
    "crit_compliance.none": lambda p: "no domestic-substitution requirement",
    "crit_compliance.note": _compliance,
    "crit_compliance.evidence.scope": lambda p: f"the mandate binds {' and '.join(p.scope)} only",
    "crit_compliance.evidence.target": lambda p: f"production training on {p.target}",
    "crit_ecosystem.prototype_on_nvidia": lambda p: (
        f"{p.share:.0%} prototyping on NVIDIA, {1 - p.share:.0%} training and serving on Ascend at stage "
        f"{p.stage} (PyTorch prototype on NVIDIA, then torch_npu, no port)"
    ),
    "crit_ecosystem.kb_scores": lambda p: (
        f"knowledge-base {p.criterion} scores{_ADAPTER if p.adapter else ''} (0-5 -> 0-100)"
    ),
    "crit_ecosystem.evidence.fluency": lambda p: (
        f"prototyping in PyTorch pays off as far as the team is faster there (x{p.fluency:.2f})"
    ),
    "crit_ecosystem.hybrid": lambda p: (
        f"{p.share:.0%} in the PyTorch prototype{_ADAPTER if p.adapter else ''}, {1 - p.share:.0%} in MindSpore "
        f"production (stage {p.stage}, team skills)"
    ),
    "crit_ecosystem.evidence.hub": lambda p: f"model hub weighed x{p.weight:g} of {p.total:g} aspect weights",
    "crit_ecosystem.no_entries": lambda p: f"no {p.criterion} entries in the knowledge base: neutral 50",
    "crit_ecosystem.with_hub": lambda p: f"{p.note}; HuggingFace need {p.need}: model hub x{p.weight:g}",
    "crit_ecosystem.evidence.debugging": lambda p: "how much debugging the work needs",
    "crit_deployment.route": lambda p: (
        f"{p.target}: {p.route}, {_PATH_TEXT[p.path]}" + ("" if p.path == "native" else f" ({p.constant})")
    ),
    "crit_deployment.evidence.route": lambda p: f"{p.route}: {p.stack}",
    "crit_deployment.first_party": lambda p: f"{p.target}: first-party path",
    "crit_deployment.conversion": lambda p: f"{p.target}: via export/conversion (CONVERSION_FIT)",
    "crit_deployment.unknown": lambda p: (
        f"{p.target}: no deployment entry in the knowledge base (UNKNOWN_DEPLOYMENT_FIT)"
    ),
    "crit_deployment.kb_score": lambda p: f"{p.target}: knowledge-base deployment score",
    "crit_deployment.evidence.measured": lambda p: f"{p.framework} -> {p.target}: {p.score}/100 ({p.note})",
    "crit_deployment.measured_cpu": lambda p: f"{p.target}: measured here, best path {p.framework} -> {p.best}",
    "crit_deployment.capped": lambda p: (
        f"{p.note}; capped: every {p.framework} export path measured here scored below {p.points:g}"
    ),
    "crit_deployment.exports_work": lambda p: f"{p.note}; export paths work here (measured, CPU)",
    "crit_deployment.evidence.targets": lambda p: f"deploys {p.framework} models to {', '.join(p.targets)}",
    "crit_deployment.target": lambda p: f"{p.note} {p.value:.0f}",
    "crit_deployment.evidence.edge": lambda p: (
        "edge targets: operator support found only at conversion of the PyTorch-designed model"
    ),
    "crit_deployment.edge_penalty": lambda p: (
        f"-{p.penalty:g} edge runtime constraints invisible while prototyping (HYBRID_EDGE_PENALTY)"
    ),
    "crit_deployment.evidence.edge_cloud": lambda p: (
        "train in the cloud, infer on devices: two toolchains on a PyTorch stack"
    ),
    "crit_deployment.edge_cloud_penalty": lambda p: f"-{p.penalty:g} edge-cloud on two toolchains",
    "crit_performance.communication": lambda p: f"; communication: {p.detail}",
    "crit_performance.by_schedule": lambda p: (
        f"{p.hours} to train ({p.basis}) x {p.runs:g} runs (TRAINING_RUNS) = {p.share:.1%} of the project's "
        f"{p.window:,.0f} h ({p.why}); the best workflow takes {p.best:.1%}{p.comm}"
        + (
            f"; /{p.keep:g} for dynamic control flow/shapes outside Graph mode (DYNAMIC_GRAPH_KEEP)"
            if p.keep is not None
            else ""
        )
        + _undecided(p)
    ),
    "crit_performance.by_rate": lambda p: (
        f"{p.rate} ({p.basis}), relative to the fastest (no time to train to weigh it against){p.comm}"
        + (
            f"; x{p.keep:g} for dynamic control flow/shapes outside Graph mode (DYNAMIC_GRAPH_KEEP)"
            if p.keep is not None
            else ""
        )
        + _undecided(p)
    ),
    "crit_performance.evidence.window": lambda p: f"{p.window:,.0f} h of wall-clock time",
    "crit_performance.evidence.dynamic_flow": lambda p: (
        "data-dependent control flow / dynamic shapes (knowledge base workflows bad_for)"
    ),
    "crit_performance.evidence.path": lambda p: f"{p.path} on {p.target}",
    "crit_performance.assumed": lambda p: (
        f"no projection possible ({p.why}): {_ASSUMED_PATH[p.constant]}, {p.value:g} assumed ({p.constant})"
    ),
    "crit_performance.evidence.serving": lambda p: "the product's load and latency targets (serving:)",
    "crit_performance.slo.meets": lambda p: (
        f"serving through {p.runtime}: meets the stated load on {p.devices} device(s)"
    ),
    "crit_performance.slo.needs_devices": lambda p: (
        f"serving through {p.runtime}: needs {p.needed} devices for the stated load, {p.devices} available ({p.reason})"
    ),
    "crit_performance.slo.cannot": lambda p: f"serving through {p.runtime}: cannot meet the stated load ({p.reason})",
    "crit_performance.serving_rate": lambda p: (
        f"serving through {p.runtime}: {p.rate} on {p.devices} device(s), relative to the fastest"
        + (f"; latency {p.latency} {p.latency_what}" if p.latency is not None else "")
        + "; "
        + "; ".join(p.notes)
    ),
    "crit_performance.evidence.inference_only": lambda p: (
        "an inference-only product: the serving path is scored, not training"
    ),
}


# --- the migration estimate (advisor.decision.criteria.migration, .scan_parts) -------------------


def _roles(p: Any) -> str:
    return "port by role (code scan): " + ", ".join(f"{r.role} {range_text(r.low, r.high, 'h')}" for r in p.roles)


MIGRATION: dict[str, Entry] = {
    # the parts of the estimate (the schedule's phases, the engineering cost's items)
    "crit_migration.part.known_pitfalls": lambda p: "known pitfalls",
    "crit_migration.part.scan_port": lambda p: "port (code scan)",
    "crit_migration.part.port": lambda p: "port (re-implement and check the model)",
    "crit_migration.part.reverse_port": lambda p: "port the MindSpore code to PyTorch (api-mappings in reverse)",
    "crit_migration.part.kernels": lambda p: f"{p.extra} more custom CUDA kernel(s)",
    "crit_migration.part.dynamic_shapes": lambda p: "dynamic shapes for Graph mode",
    "crit_migration.part.parallel_pytorch": lambda p: f"parallelism set-up by hand ({p.strategy})",
    "crit_migration.part.parallel_mindspore": lambda p: (
        f"parallelism set-up with MindSpore auto-parallel ({p.strategy})"
    ),
    "crit_migration.part.auto_parallel_limits": lambda p: (
        "auto-parallel limits: strategy search, semi-automatic split by hand"
    ),
    "crit_scan_parts.role": lambda p: f"port: {p.role} (code scan)",
    "crit_scan_parts.excluded": lambda p: (
        f"{', '.join(p.roles) or 'excluded files'} excluded: {p.files} file(s), "
        f"{range_text(p.low, p.high, 'h')} shown apart, not counted"
    ),
    # evidence details
    "crit_migration.evidence.no_kb": lambda p: "no knowledge base: pitfall hours unknown",
    "crit_migration.evidence.scan": lambda p: (
        f"scan of the team's code: {p.hazards} hazards, {p.low:g}-{p.high:g} h, risk {p.risk}"
    ),
    "crit_migration.evidence.port": lambda p: (
        f"re-implementing and checking a {p.family} model in MindSpore: {p.low:g}-{p.high:g} h (seeds 002 6.1, 004 3.3)"
    ),
    "crit_migration.evidence.reverse_port": lambda p: (
        f"existing MindSpore code to PyTorch: {p.base_low:g}-{p.base_high:g} h re-implementation + "
        f"{p.share:g} (REVERSE_PORT_API_SHARE) x {p.differs} differing APIs' effort = {p.low:.0f}-{p.high:.0f} h"
    ),
    "crit_migration.evidence.kernels": lambda p: (
        f"{p.kernels} custom CUDA kernels: {p.extra} beyond the pitfall's first, {p.low:g}-{p.high:g} h each"
    ),
    "crit_migration.evidence.dynamic_shapes": lambda p: (
        f"bucketing inputs so Graph mode compiles a few shapes: {p.low:g}-{p.high:g} h"
    ),
    "crit_migration.evidence.parallel_pytorch": lambda p: (
        f"the model must be split ({p.strategy}): FSDP/DeepSpeed/Megatron set-up {p.low:g}-{p.high:g} h"
    ),
    "crit_migration.evidence.parallel_mindspore": lambda p: (
        f"the model must be split: MindSpore's automatic parallelism writes much of it ({p.low:g}-{p.high:g} h)"
    ),
    "crit_migration.evidence.pitfall": lambda p: f"{p.title}: {p.low:g}-{p.high:g} h",
    "crit_migration.evidence.team_week": lambda p: f"one team-week = {p.capacity:g} h",
    "crit_migration.evidence.deadline": lambda p: f"{p.allowed:g} h may go to migration",
    "crit_migration.evidence.accuracy": lambda p: (
        f"final test accuracy {p.line} (measured here, {p.verdict}; {p.data})"
    ),
    "crit_migration.evidence.dynamic_measured": lambda p: f"{p.text} ({p.where})",
    # the score's note, piece by piece
    "crit_migration.hours": lambda p: (
        f"{range_text(p.low, p.high, 'h')} of migration/adaptation work vs one team-week ({p.capacity:g} h)"
    ),
    "crit_migration.scan_risk": lambda p: f"-{p.penalty:g} for the scan's {p.risk} risk",
    "crit_migration.pressure": lambda p: (
        f"-{p.penalty:.1f} deadline pressure ({p.pressure:.0%} of the {p.allowed:g} h allowed before the deadline)"
    ),
    "crit_migration.accuracy.differs": lambda p: (
        f"-{p.penalty:g} for a measured accuracy gap beyond +-{p.tolerance * 100:g} point "
        f"({p.line}; ACCURACY_GAP_PENALTY)"
    ),
    "crit_migration.accuracy.same": lambda p: f"accuracy measured the same here ({p.line})",
    "crit_migration.accuracy.undecided": lambda p: f"accuracy gap measured but not decided ({p.line})",
    "crit_migration.note.roles": lambda p: _roles(p) + (f"; {p.excluded}" if p.excluded else ""),
    "crit_migration.note.auto_parallel_credit": lambda p: f"MindSpore auto-parallel credit: {p.source}",
    "crit_migration.note.auto_parallel_limits": lambda p: f"auto-parallel limits: {p.source}",
}


# --- an inference product's serving path (advisor.decision.serving) ------------------------------

SERVE: dict[str, Entry] = {
    # the runtime a route serves through when its stack names none
    "serve.runtime.tensorrt_llm_or_vllm": lambda p: "TensorRT-LLM or vLLM",
    "serve.runtime.tensorrt_or_onnxruntime": lambda p: "TensorRT (ONNX export) or ONNX Runtime",
    "serve.runtime.mindie_or_vllm_ascend": lambda p: "MindIE or vLLM-Ascend (PyTorch weights, torch_npu)",
    "serve.runtime.onnx_om_atc": lambda p: "ONNX -> OM via ATC (CANN)",
    "serve.runtime.mindie_mindspore": lambda p: "MindIE (MindSpore backend)",
    "serve.runtime.mindspore_lite_ascend": lambda p: "MindSpore Lite (MindIR on Ascend)",
    "serve.runtime.mindspore_lite_gpu": lambda p: "MindSpore Lite (GPU)",
    "serve.runtime.mindspore_lite_tensorrt": lambda p: "MindSpore Lite (GPU, TensorRT delegate)",
    "serve.runtime.vendor": lambda p: "vendor runtime",
    # why the route's stack cannot serve the stated quantisation
    "serve.unsupported.quantization": lambda p: (
        f"{p.stack} does not list {p.quantization} quantisation (it lists {', '.join(p.listed)})"
    ),
    "serve.unsupported.no_16bit": lambda p: f"{p.stack} lists no 16-bit serving precision",
    "serve.unit.per_device": lambda p: f"{p.unit} per device",
    "serve.evidence.reference": lambda p: (
        f"{p.runtime}, {p.model} on {p.devices} x {p.accelerator}, {p.precision} ({p.scenario}, {p.as_of}): "
        f"{p.rate:,.1f} {p.unit} per device -> {p.scaled:,.1f} for this model and accelerator"
    ),
    # what the latency is
    "serve.latency.at_load": lambda p: "per output token at the load (capacity arithmetic)",
    "serve.latency.batch_one": lambda p: "per request at batch 1 (90th percentile)",
    "serve.latency.floor": lambda p: (
        f"at least, per output token at batch 1 (weights read once from memory: N x {p.served:g} bytes / bandwidth)"
    ),
    # how the rate was found
    "serve.note.capacity_rate": lambda p: (
        f"rate from the capacity arithmetic at the load (prefills included): {p.low:,.0f}-{p.high:,.0f} tokens/s "
        "per device"
    ),
    "serve.note.references_beside": lambda p: (
        f"the serving references rescaled by bandwidth, size and bytes give {p.low:,.0f}-{p.high:,.0f} per "
        "device (evidence only: a rate does not scale as 1/N across model sizes)"
    ),
    "serve.note.references_here": lambda p: f"from {p.count} serving reference(s) on {p.accelerator}",
    "serve.note.references_elsewhere": lambda p: (
        f"from {p.count} serving reference(s) on other accelerators, scaled by "
        + ("memory bandwidth (decoding is bandwidth bound)" if p.bandwidth else "16-bit peak")
    ),
    "serve.note.model_size": lambda p: f"scaled to {p.params_b:g}B parameters by N_ref / N",
    "serve.note.weight_bytes": lambda p: (
        f"scaled by the rows' bytes per weight over the served {p.served:g} (a step reads every weight)"
    ),
    "serve.note.single_reference": lambda p: (
        f"a single serving reference: widened by {p.widen:.0%} either side (SINGLE_REFERENCE_WIDEN)"
    ),
    "serve.note.ascend_efficiency": lambda p: (
        f"x{p.efficiency:g} for serving on Ascend from NVIDIA rows (SERVING_ASCEND_EFFICIENCY, assumption)"
    ),
    "serve.note.no_load": lambda p: (
        "no serving load stated: the capacity at a full batch of 1,024-token prompts and 256-token answers "
        "(the serving: defaults), not judged against targets"
    ),
    "serve.encoder_not_judged": lambda p: (
        "the serving capacity arithmetic covers decoders (token generation); an encoder is not judged"
    ),
    "serve.note.load": lambda p: f"serving load: {p.reason}",
}


# --- the deployment probe's paths (advisor.decision.deployment) ----------------------------------

_BATCH = {True: ", dynamic batch", False: ", fixed batch"}

DEPLOY: dict[str, Entry] = {
    "deploy.export.not_run": lambda p: f"{p.model}: {p.framework} -> {p.format} was not run",
    "deploy.export.failed": lambda p: (
        f"{p.model}: export to {p.format} failed"
        + (f" on operator {p.operator}" if p.operator else "")
        + f" (measured): {p.error or ''}"
    ).rstrip(": "),
    "deploy.export.status": lambda p: f"{p.model}: export to {p.format} {p.status}: {p.error}",
    "deploy.export.works": lambda p: (
        f"{p.model}: export to {p.format} works ({p.exporter}, {p.seconds:.2f} s"
        + (f", {p.megabytes:.1f} MB" if p.megabytes is not None else "")
        + (f", opset {p.opset}" if p.opset else "")
        + _BATCH.get(p.dynamic_batch, "")
        + "; measured)"
    ),
    "deploy.serve.not_served": lambda p: (
        f"{p.model}: not served on {p.engine}: " + (f"{p.error}" if p.ran else f"{p.engine} was not run")
    ),
    "deploy.serve.status": lambda p: f"{p.model}: serving on {p.engine} {p.status}: {p.error}",
    "deploy.serve.latency": lambda p: (
        f"{p.model}: P50 {p.p50:.3f} ms at batch {p.batch} on {p.engine} vs {p.base:.3f} ms in {p.source} "
        f"({p.ratio:.2g}x the source's speed; measured)"
    ),
    "deploy.serve.latency_alone": lambda p: (
        f"{p.model}: P50 {p.p50:.3f} ms on {p.engine}; no source baseline to compare (measured)"
    ),
    "deploy.parity.unchecked": lambda p: (
        f"{p.model}: parity with {p.source} not checked" + (f" ({p.error})" if p.skipped else "")
    ),
    "deploy.parity.agree": lambda p: (
        f"{p.model}: outputs agree with {p.source} (max abs {p.max_abs_diff:.2e} <= {p.tolerance:.2e}; measured)"
    ),
    "deploy.parity.disagree": lambda p: f"{p.model}: outputs DISAGREE with {p.source} ({p.error}; measured)",
    "deploy.serve.fallback": lambda p: (
        f"{p.model}: {p.fallback} of {p.nodes} nodes left {p.chosen} ({', '.join(p.ops)}): silent fallback (measured)"
    ),
    "deploy.note.not_measured": lambda p: (
        "not measured on this host"
        + (f" ({p.reason})" if p.reason else "")
        + ": use the knowledge base for this target"
    ),
    "deploy.note.measured": lambda p: (
        f"measured here: {p.framework} -> {p.format} -> {p.engine}, weakest of {p.models} model(s); "
        f"points: export {p.export:g}, serves {p.serves:g}, parity {p.parity:g}, latency vs source {p.latency:g} "
        "(assumption)"
    ),
}


# --- the verdict and its reasons (advisor.decision.scoring) --------------------------------------


def _versus(p: Any) -> str:
    if p.runner is None:
        return ", the only eligible workflow"
    if p.tie:
        return f", tied with {p.runner} ({p.lead:.1f} points)"
    return f", {p.lead:.1f} points ahead of {p.runner}"


SCORE: dict[str, Entry] = {
    # what a workflow does, when the knowledge base does not say
    "score.summary.pytorch": lambda p: "build, train and deploy on PyTorch",
    "score.summary.mindspore": lambda p: "build, train and deploy on MindSpore",
    "score.summary.hybrid": lambda p: (
        "prototype and validate in PyTorch, then migrate the validated model to MindSpore for training and "
        "deployment on Ascend"
    ),
    "score.summary.torch_npu_route": lambda p: (
        "Prototype in PyTorch on NVIDIA, then train and serve on Ascend via torch_npu, no port"
    ),
    "score.stack.trains": lambda p: f"trains with {p.name}",
    "score.stack.serves": lambda p: f"serves with {' and '.join(p.names)}",
    # the verdict's headline (one decimal, as every format)
    "score.summary.nothing_eligible": lambda p: (
        f"No workflow meets every hard constraint; the best-scoring is {p.workflow} ({p.total:.1f}/100): {p.what}."
    ),
    "score.summary.verdict": lambda p: (
        f"{p.workflow} ({p.total:.1f}/100{_versus(p)}; confidence {p.level}"
        + ("; decided by hard constraints" if p.hard else "")
        + f"): {p.what}."
    ),
    # the confidence's steps down
    "score.step.deadline": lambda p: f"the deadline: {p.finding}",
    "score.step.assumed_accelerator": lambda p: (
        f"the hard constraint that decides it rests on an assumed accelerator: {p.note}"
    ),
    "score.mandate_flip": lambda p: (
        f"the verdict depends on how needs.domestic_substitution={p.level} is read: as hardware only (torch_npu on "
        f"Ascend meets it) it is {p.workflow} ({p.total:.1f}/100) instead of {p.top}; set needs.domestic_hardware "
        "and needs.domestic_framework to say which"
    ),
    # the reasons
    "score.reason.for": lambda p: (
        f"{p.criterion}: {p.score:.0f} vs {p.other:.0f} for {p.runner} (weight {p.weight:.2f}, +{p.gain:.1f} points): "
        f"{p.note}"
    ),
    "score.reason.against": lambda p: (
        f"against it: {p.criterion} {p.score:.0f} vs {p.other:.0f} for {p.runner} ({p.gain:.1f} points): {p.note}"
    ),
    "score.reason.ruled_out": lambda p: f"{p.workflow} is ruled out: {p.why}",
}


# --- the model's own assumptions and the placement (advisor.decision.prepare) --------------------

PREPARE: dict[str, Entry] = {
    "prep.model.scores": lambda p: (
        "criterion scores are 0-100 per workflow; the total is their weighted mean (weights renormalised to 1)"
    ),
    "prep.model.migration": lambda p: (
        "migration effort sums the typical fix hours of the knowledge-base pitfalls that apply (plus re-implementing "
        "the model when PyTorch code is ported, custom CUDA kernels, dynamic shapes and parallelism set-up when the "
        "model must be split); one team-week of it scores 50, less the deadline pressure"
    ),
    "prep.model.cost": lambda p: (
        "cost = total cost of ownership: the team's time on the project, compute (device-hours x the dated price), "
        "energy (owned hardware only) and engineering (migration hours x day rate)"
    ),
    "prep.model.confidence": lambda p: (
        f"confidence: high from a margin of {p.high:g} points, medium from {p.medium:g}; one step lower for weak "
        "decisive evidence, for a verdict that flips within a quarter of a weight or constant, and for a measured "
        "difference inside the noise"
    ),
    "prep.workload_gflops": lambda p: (
        f"workload {p.model}: {p.gflops:g} training GFLOPs per image (ImageNet-size 224x224 input); set "
        "workload.gflops_per_sample for other input sizes"
    ),
    "prep.no_kb": lambda p: "no knowledge base loaded: ecosystem, debugging and migration are neutral or assumed",
    "prep.target_not_available": lambda p: (
        f"hardware.training_target={p.target} is not in hardware.available: the team has to get that hardware "
        "before production training"
    ),
    "prep.shared_basis": lambda p: (
        f"performance and cost compare workflows on the basis all of them share ({p.basis}); projections show each "
        "one's best basis"
    ),
    "prep.run_unusable": lambda p: (
        f"probe run {p.run} is marked unusable ({'; '.join(p.reasons) or 'no reason given'}): shown, never scored"
    ),
    "prep.placed": lambda p: (
        f"placed on {p.where} (the faster of {p.places} places: "
        + "; ".join(f"{where}: {speed}" for where, speed in p.compared)
        + ")"
    ),
    "prep.speed.unsupported": lambda p: "not supported",
    "prep.speed.train": lambda p: f"{sig(p.low)}-{sig(p.high)} h to train",
    "prep.speed.serve": lambda p: f"{p.low:,.0f}-{p.high:,.0f} {p.unit}",
    "prep.speed.none": lambda p: "no projection",
    "prep.multi_device": lambda p: (
        f"multi-device training on {p.devices} device(s): "
        + "; ".join(f"{'/'.join(wfs)} {text}" for text, wfs in p.parts)
    ),
    "prep.host_unmeasured": lambda p: (
        f"this host has {p.kind} hardware but no probe results for it: run `advisor probe` (or --run-probes) to "
        "measure instead of projecting"
    ),
}


# --- the accuracy probe judged (advisor.decision.accuracy) ---------------------------------------

_ACCURACY_NOT_MEASURED = (
    "accuracy parity not measured: whether the frameworks compute the same thing rests on the knowledge base "
    "(run `advisor probe --accuracy --json -o FILE`, then --accuracy FILE)"
)


def _gap(p: Any) -> str:
    return (
        f"{p.a} - {p.b}: {p.mean * 100:+.2f} points (95% CI {p.low * 100:+.2f} to {p.high * 100:+.2f}, {p.seeds} seeds)"
    )


ACCURACY: dict[str, Entry] = {
    "accuracy.gap.one_seed": lambda p: (
        f"{p.a} - {p.b}: {p.mean * 100:+.2f} points at one seed: no spread to judge "
        '"the same" by; --seeds 3 gives an interval'
    ),
    "accuracy.gap.same": lambda p: f"{_gap(p)}, inside +-{p.tolerance * 100:.0f} point",
    "accuracy.gap.differs": lambda p: f"{_gap(p)}, outside +-{p.tolerance * 100:.0f} point",
    "accuracy.gap.undecided": lambda p: (
        f"{_gap(p)}: the interval crosses +-{p.tolerance * 100:.0f} point; more seeds (--seeds 3) narrow it"
    ),
    "accuracy.normalize.not_run": lambda p: "Normalize check: " + (p.error or "not run"),
    "accuracy.normalize.trap": lambda p: (
        f"Normalize trap: PyTorch-style 0-1 mean/std on uint8 input gave a batch mean of {p.wrong_mean:.1f} "
        f"(std {p.wrong_std:.1f}) and a first loss of {p.wrong_loss:.2f}; the 0-255 values give "
        f"{p.right_mean:.2f} (std {p.right_std:.2f}) and {p.right_loss:.2f}"
    ),
    "accuracy.not_measured": lambda p: _ACCURACY_NOT_MEASURED,
    "accuracy.no_gap": lambda p: (
        "the accuracy probe measured no cross-framework gap (a framework failed or ran alone): "
        + _ACCURACY_NOT_MEASURED
    ),
    "accuracy.bundled_digits": lambda p: "the bundled digits",
    "accuracy.measured.same": lambda p: (
        "measured here: the frameworks reach the same test accuracy within the tolerance"
        f" (LeNet-5 on {p.data}, not the team's own model)"
    ),
    "accuracy.measured.differs": lambda p: (
        "measured here: the frameworks' final test accuracy differs beyond the tolerance"
        f" (LeNet-5 on {p.data}, not the team's own model)"
    ),
    "accuracy.measured.undecided": lambda p: (
        "measured here, not decided: the gap's interval crosses the tolerance (more seeds narrow it)"
        f" (LeNet-5 on {p.data}, not the team's own model)"
    ),
}


# --- a transformer's shape (advisor.decision.workload) -------------------------------------------

WORKLOAD: dict[str, Entry] = {
    # the published shapes' sources
    "shape.source.gpt3_small": lambda p: "GPT-3 Small (Brown et al. 2020, Table 2.1)",
    "shape.source.bert_large": lambda p: "BERT-large (Devlin et al. 2019)",
    "shape.source.gpt3_xl": lambda p: "GPT-3 XL (Brown et al. 2020, Table 2.1)",
    "shape.source.gpt3_2_7b": lambda p: "GPT-3 2.7B (Brown et al. 2020, Table 2.1)",
    "shape.source.llama2_7b": lambda p: "Llama-2 7B (Touvron et al. 2023, Table 1 and model card)",
    "shape.source.llama2_13b": lambda p: "Llama-2 13B (Touvron et al. 2023)",
    "shape.source.llama_33b": lambda p: "LLaMA 33B (Touvron et al. 2023a, Table 2)",
    "shape.source.llama2_70b": lambda p: "Llama-2 70B (Touvron et al. 2023)",
    "shape.source.gpt3_175b": lambda p: "GPT-3 175B (Brown et al. 2020, Table 2.1)",
    # how a field of the shape was derived
    "shape.derived.published": lambda p: f"{p.field} {p.value} ({p.source})",
    "shape.derived.hidden_solved": lambda p: f"hidden {p.hidden} (12 x layers x hidden^2 = N)",
    "shape.derived.heads_128": lambda p: f"heads {p.heads} (128-wide heads)",
}


# --- the input-pipeline probe judged (advisor.decision.pipeline) ---------------------------------

_PIPELINE_NOT_MEASURED = (
    "input pipeline not measured: the data loader's bound is the knowledge base's assumption "
    "(INPUT_PIPELINE_PER_HOST; run `advisor probe --pipeline --json -o FILE`, then --pipeline FILE)"
)


def _fed(p: Any) -> str:
    low, high = f"{p.fed_low:.0%}", f"{p.fed_high:.0%}"
    return low if low == high else f"{low}-{high}"


PIPELINE: dict[str, Entry] = {
    "pipeline.passes.one": lambda p: "one timed pass per variant, no repetitions: no spread",
    "pipeline.passes.graded": lambda p: (
        f"{p.passes} interleaved timed passes per variant, graded "
        f"{', '.join(sorted({g or 'ungraded' for g in p.grades}))} by their spread"
    ),
    "pipeline.starved": lambda p: (
        f"starved: the pipeline delivers {p.alone:,.0f} samples/s, the step alone takes {p.step:,.0f}"
    ),
    "pipeline.keeps_up": lambda p: (
        f"keeps up: {p.alone:,.0f} samples/s against a step of {p.step:,.0f} ({p.alone / p.step:.1f}x headroom)"
    ),
    "pipeline.not_measured": lambda p: _PIPELINE_NOT_MEASURED,
    "pipeline.no_run": lambda p: "the pipeline probe has no successful run: " + _PIPELINE_NOT_MEASURED,
    "pipeline.bundled_digits": lambda p: "the bundled digits",
    "pipeline.measured": lambda p: (
        "measured here: each framework's fastest loader variant bounds the projected throughput per host "
        f"({p.data}, {p.batch} per batch; {p.passes})"
    ),
    # how a measured rate transfers to the target host
    "pipeline.rule.not_applied": lambda p: (
        f"not applied: {p.passes} timed pass(es), graded {p.quality or 'ungraded'}; a measured pipeline "
        f"bounds the projection only when stable over {p.min_passes:g} passes (PIPELINE_MIN_PASSES)"
    ),
    "pipeline.rule.per_worker": lambda p: (
        f"{p.per_worker:,.0f} samples/s per loader worker here x {p.workers:g} workers on a target host "
        f"(PIPELINE_WORKERS_PER_HOST) = {p.host:,.0f} samples/s per host"
    ),
    "pipeline.feed": lambda p: (
        f"on {p.devices} x {p.where} this pipeline would feed {_fed(p)} of the chips: {p.framework} "
        f"{p.variant} ({p.workers} worker(s)) delivers {p.rate:,.0f} samples/s per host "
        f"(measured here, {p.samples} samples in {p.seconds:.2f} s, one pass: no spread), "
        f"the {p.on_host} device(s) of a host would take {p.take_low:,.0f}-{p.take_high:,.0f}; {p.rule}"
        + (
            f"; the projection is capped at {p.hosts:g} host(s) x {p.host_rate:,.0f} = {p.cap:,.0f} samples/s"
            if p.capped
            else ("; it keeps up: no cap" if p.applied else "")
        )
    ),
}


# --- the workflows' places (advisor.decision.workflows) ------------------------------------------


def _compared_on(p: Any) -> str:
    return "; ".join(f"{'/'.join(wfs)} on {hw}" for hw, wfs in p.where)


WORKFLOW_PLACES: dict[str, Entry] = {
    # why the hybrid does not apply
    "workflows.no_prototype.inference": lambda p: (
        "workload.kind=inference: nothing is trained, so there is no prototype phase to run in PyTorch"
    ),
    "workflows.no_prototype.fine_tune": lambda p: (
        f"model.fine_tune={p.fine_tune}: training starts from released weights, so there is no "
        "prototype phase to run in PyTorch"
    ),
    "workflows.no_prototype.checkpoint": lambda p: (
        "model.from_checkpoint: training continues released weights, so there is no prototype phase to run in PyTorch"
    ),
    # the chip a place trains on
    "workflows.no_accelerator": lambda p: f"the knowledge base has no {p.target} accelerator",
    "workflows.assumed_chip": lambda p: (
        (
            f"no {p.target} accelerator named ({p.other[0]} is {p.other[1]})"
            if p.other is not None
            else "no hardware.accelerator given"
        )
        + f": assumed {p.chip}, the current {p.target} training chip (name it in hardware.accelerator "
        "or hardware.accelerators to compare on your own)"
    ),
    "workflows.fleet_used": lambda p: f"fleet used: {p.count} x {p.kind} (hardware.accelerators)",
    # what an undecided target compares the workflows on
    "workflows.compared.same_hardware": lambda p: (
        f"hardware.training_target=undecided: every workflow compared on the same hardware ({_compared_on(p)})"
    ),
    "workflows.compared.placed": lambda p: (
        f"hardware.training_target=undecided: each workflow placed where its route does best ({_compared_on(p)}); "
        "different silicon, compared by what it costs in time and money"
    ),
}


# --- the hard constraints (advisor.decision.evaluate) --------------------------------------------

# what a workflow's production stack uses that a domestic mandate forbids
_FOREIGN = {"framework": "PyTorch framework", "training": "NVIDIA training hardware", "deployment": "NVIDIA deployment"}

EVALUATE: dict[str, Entry] = {
    "evaluate.block.foreign": lambda p: (
        f"{p.field}: production stack uses {', '.join(_FOREIGN[part] for part in p.parts)}"
    ),
    "evaluate.block.unsupported": lambda p: f"hardware.training_target={p.target}: {p.detail}",
    "evaluate.block.serving": lambda p: f"serving: {p.reason}",
    "evaluate.block.budget": lambda p: (
        f"constraints.budget_usd={p.budget:g}: {' + '.join(p.parts)} cost at least ${p.low:,.0f} "
        f"(constraints.budget_scope={p.scope})"
    ),
    "evaluate.block.deadline": lambda p: f"constraints.deadline_weeks={p.weeks:g}: {p.finding}",
    "evaluate.block.migration": lambda p: (
        f"constraints.deadline_weeks={p.weeks:g}: migration needs at least {p.hours:g} h, "
        f"more than {p.share:.0%} of the team's time ({p.allowed:g} h)"
    ),
}


# --- the MFU references a projection rests on (advisor.decision.throughput) ----------------------

_MFU_KIND = {"moe": "MoE ", "fine-tune": "fine-tuning ", "": ""}

THROUGHPUT: dict[str, Entry] = {
    "throughput.mfu.own_route": lambda p: (
        f"{_MFU_KIND[p.kind]}MFU references on {p.accelerator} measured on this workflow's route ({p.route})"
    ),
    "throughput.mfu.same_accelerator": lambda p: f"{_MFU_KIND[p.kind]}MFU references on {p.accelerator}",
    "throughput.mfu.same_vendor": lambda p: (
        f"{_MFU_KIND[p.kind]}MFU references on other {p.vendor} chips (none on {p.accelerator}), the MFU taken to "
        "transfer"
    ),
    "throughput.mfu.every": lambda p: f"every 16-bit {_MFU_KIND[p.kind]}MFU reference (none on {p.vendor} chips)",
    "throughput.mfu.single_reference": lambda p: (
        f"a single MFU reference: widened by {p.widen:.0%} either side (SINGLE_REFERENCE_WIDEN)"
    ),
    "throughput.evidence.reference": lambda p: (
        f"{p.system}, {p.model} on {p.devices} x {p.accelerator}, {p.precision} ({p.as_of}): "
        f"MFU {p.low:.0%}" + (f"-{p.high:.0%}" if f"{p.high:.0%}" != f"{p.low:.0%}" else "")
    ),
}


# --- where the verdict would change (advisor.decision.sensitivity) -------------------------------

SENSITIVITY: dict[str, Entry] = {
    "sensitivity.weight.stays": lambda p: f"{p.top} stays on top at any {p.criterion} weight",
    "sensitivity.weight.flips": lambda p: (
        f"{p.who} would win if the {p.criterion} weight were {'raised' if p.threshold > p.weight else 'lowered'} "
        f"from {p.weight:.2f} to {p.threshold:.2f}"
    ),
    "sensitivity.constant.stays": lambda p: (
        f"{p.top} stays on top for {p.name} anywhere in {p.low:g}-{p.high:g}"
        + (f" (no {p.missing} result to apply it to)" if p.missing else "")
    ),
    "sensitivity.constant.migration_factor": lambda p: (
        f"{p.top} would lose to {p.who} if migration took {p.threshold:g}x the estimate"
    ),
    "sensitivity.constant.flips": lambda p: (
        f"{p.who} would win if {p.what} {sig(p.threshold)} {p.unit} (now {sig(p.value)})"
    ),
}


# --- why a pitfall bites (advisor.decision.likelihood) -------------------------------------------


def _model_size(p: Any) -> str:
    """'an 11.7M-parameter cnn': with its article, as the register reads as prose."""
    text = f"{p.params_m:g}M-parameter {p.family}" if p.params_m else f"{p.family} model of unstated size"
    an = text[0] in "aeiou8" or text.split("M")[0].split(".")[0] in ("11", "18") or text.startswith("11")
    return ("an " if an else "a ") + text


LIKELIHOOD: dict[str, Entry] = {
    "likelihood.why.conditions": lambda p: "applies because " + ", ".join(p.held),
    "likelihood.why.always": lambda p: "applies to every project on this workflow",
    "likelihood.why.not_ported": lambda p: (
        f"model.source is {p.source}: written for MindSpore, no PyTorch code to port (habits still carry over)"
    ),
    "likelihood.size": _model_size,
}


# --- the stack each workflow is scored on (advisor.decision.stack_routes) ------------------------

STACK_ROUTES: dict[str, Entry] = {
    "stack_routes.nothing_trained": lambda p: "nothing is trained (workload.kind: inference)",
    "stack_routes.no_training_route": lambda p: f"{p.path} on {p.target}: no route in the knowledge base",
    "stack_routes.serving": lambda p: "; ".join(
        f"{name if name is not None else 'no serving route in the knowledge base'} ({target})"
        for name, target in p.routes
    ),
}


# --- a fleet's power (advisor.decision.power) ----------------------------------------------------

POWER: dict[str, Entry] = {
    "power.server": lambda p: (
        f"{p.accelerator}: its server draws up to {p.watts:,.0f} W for {p.devices} devices ({p.each:,.0f} W each, "
        "CPUs, network and storage included)"
    ),
    "power.cards": lambda p: (
        f"{p.accelerator} draws up to {_span(p.low, p.high, _sig6)} W x {sig(p.factor, 6)} for its server "
        f"(SERVER_POWER_PER_CARD_POWER: {p.source})"
    ),
}


# --- interruptions and checkpoints (advisor.decision.reliability) --------------------------------

RELIABILITY: dict[str, Entry] = {
    "reliability.allowance": lambda p: (
        f"failure and checkpoint allowance: {p.interruptions_low:.2g}-{p.interruptions_high:.2g} interruptions "
        f"expected (one per {p.mtbi:,.0f} h on {p.devices} devices; {p.source}), {p.restart:g} h to restart each "
        "(RESTART_HOURS, assumption) plus half a checkpoint interval of lost work; a "
        f"{p.checkpoint_gb:,.0f} GB checkpoint written in {p.write_minutes:.1f} min every {p.interval:.1f} h "
        f"(Young's optimum; {p.write_gbs:g} GB/s per host, CHECKPOINT_WRITE_GBS_PER_HOST): +{p.low:,.1f}-{p.high:,.1f} h"
    ),
}


# --- the requirements that raise a weight (advisor.decision.weights) -----------------------------

WEIGHTS: dict[str, Entry] = {
    "weights.edge_targets": lambda p: "deployment.targets (edge)",
}


CATALOGUE: dict[str, Entry] = {
    **SCHEDULE,
    **COMMUNICATION,
    **SERVING,
    **TCO,
    **REPORT,
    **PROJECTIONS,
    **MEMORY,
    **TRANSFORMER,
    **CONFIDENCE,
    **CRITERIA,
    **MIGRATION,
    **SERVE,
    **DEPLOY,
    **SCORE,
    **PREPARE,
    **ACCURACY,
    **WORKLOAD,
    **PIPELINE,
    **WORKFLOW_PLACES,
    **EVALUATE,
    **THROUGHPUT,
    **SENSITIVITY,
    **LIKELIHOOD,
    **STACK_ROUTES,
    **POWER,
    **RELIABILITY,
    **WEIGHTS,
    **REVIEW_CATALOGUE,
}
