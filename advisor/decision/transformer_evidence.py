"""Judging the transformer probe (`advisor probe --models gpt`) for the report.

Two things come out of one GPT result and the team's requirements:

- the evidence the report cites: tokens/s with its 95% CI and stability grade, step time, MFU,
  the parity verdict and the attention kernel, each "measured here" on the probe's host. It
  applies where the hardware class is the same: a CPU measurement on this host says how the two
  frameworks behave here, never what a 910B or an H100 would do;
- the dynamic-shape adjustment of the migration risk, for workflows that move to MindSpore
  (hybrid, mindspore) when the requirements have variable-length inputs or dynamic control flow:
  the measured cost of truly variable lengths in MindSpore graph mode raises the dynamic-shape
  pitfall's likelihood and takes points off the migration score; a measured mitigation (bucketing,
  or `Cell.set_inputs` dynamic dimensions) that recovers the cost lowers both.

Every constant is named below with its source (or marked assumption) and listed in CONSTANTS so
the sensitivity search can take them in. A noisy or unusable measurement never moves anything.
Pure: no framework, no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Mapping, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.constants import CONSTANTS as DEFINED
from advisor.decision.constants import Constant
from advisor.decision.evidence import Evidence
from advisor.decision.likelihood import RULES, project_of
from advisor.requirements import Requirements

if TYPE_CHECKING:  # the probe's result types, for the annotations only
    from probes.transformer.models import GptResult, GptRun

# --- the constants of the dynamic-shape adjustment (named in advisor.decision.constants) -------------

# The pitfall the measurement speaks to (knowledge/data/pitfalls.yaml): "Graph mode compiles a graph per
# new input shape". Data-dependent control flow (graph-dynamic-control-flow) is another pitfall the probe
# does not measure: its GPT has no data-dependent branches.
PITFALL = "graph-dynamic-shapes"
MIGRATING = ("hybrid", "mindspore")  # the workflows that run MindSpore graph mode


CONSTANTS: dict[str, Constant] = {
    n: DEFINED[n]
    for n in ("DYNAMIC_COST_FLOOR", "DYNAMIC_SHAPE_PENALTY", "DYNAMIC_MEASURED_HIT", "DYNAMIC_MITIGATED_LIKELIHOOD")
}


def constant(name: str, k: Optional[Mapping[str, float]] = None) -> float:
    """A constant's value, moved where `k` (advisor.decision.constants.Consts or a dict) moves it."""
    if k is not None:
        try:
            return float(k[name])
        except KeyError:
            pass
    return CONSTANTS[name].value


# --- what the report reads -------------------------------------------------------------------------


class DynamicShapeFinding(BaseModel):
    """What truly variable lengths cost MindSpore graph mode here, and what the mitigations left."""

    model_config = ConfigDict(extra="forbid")

    usable: bool = Field(description="false: the measurement moves nothing (see reason)")
    reason: str = ""
    cost: Optional[float] = Field(
        None, description="1 - end-to-end tokens/s of truly variable lengths / of the best padded or bucketed way"
    )
    steady_cost: Optional[float] = Field(None, description="the same on the last pass (every length compiled)")
    best_way: Optional[str] = None
    distinct_lengths: Optional[int] = None
    compiles: dict[str, int] = Field(default_factory=dict, description="way -> graph compiles (static graph)")
    compile_seconds: dict[str, float] = Field(default_factory=dict)
    bucketed_cost: Optional[float] = Field(None, description="bucketed against the best way, end to end")
    set_inputs_cost: Optional[float] = Field(
        None, description="Cell.set_inputs dynamic dims on variable lengths against the best static way, end to end"
    )
    set_inputs_compiles: Optional[int] = None
    residual: Optional[float] = Field(None, description="the smallest cost a measured mitigation left")
    mitigation: Optional[Literal["bucketing", "set_inputs"]] = None
    text: str = ""


class DynamicRiskAdjustment(BaseModel):
    """The stated move of one workflow's dynamic-shape pitfall likelihood and migration score."""

    model_config = ConfigDict(extra="forbid")

    workflow: str
    applies: bool
    direction: Literal["rises", "falls", "none"] = "none"
    pitfall: str = PITFALL
    likelihood_before: Optional[float] = Field(None, description="the pitfall's likelihood by its rule (risks.RULES)")
    likelihood: Optional[float] = Field(None, description="the pitfall's likelihood set by the measurement")
    penalty_points: float = Field(0.0, description="migration-score points taken off")
    unmitigated_points: float = Field(0.0, description="what the measured cost alone would take off")
    constants: list[str] = Field(default_factory=list)
    line: str = ""


class TransformerEvidence(BaseModel):
    """The GPT probe's result as the report reads it (mirrors AccuracyEvidence)."""

    model_config = ConfigDict(extra="forbid")

    source: Literal["none", "file"] = "none"
    file: Optional[str] = None
    created: Optional[str] = None
    host: str = ""
    hardware_class: Optional[str] = Field(None, description="where the probe ran: cpu | cuda | npu")
    target_class: str = Field("undecided", description="the requirements' hardware.training_target")
    same_hardware_class: bool = False
    applies_where: str = ""
    workload: bool = Field(False, description="the requirements describe a transformer")
    dynamic_inputs: bool = Field(False, description="model.dynamic_shapes: variable-length inputs")
    model: str = ""
    evidence: list[Evidence] = Field(default_factory=list)
    parity: Optional[str] = None
    attention: list[str] = Field(default_factory=list)
    dynamic: Optional[DynamicShapeFinding] = None
    adjustments: list[DynamicRiskAdjustment] = Field(default_factory=list)
    note: str = ""

    def adjustment(self, workflow: str) -> Optional[DynamicRiskAdjustment]:
        return next((a for a in self.adjustments if a.workflow == workflow and a.applies), None)

    def lines(self) -> list[str]:
        """The section a renderer prints, in sentences (renderers only format them)."""
        if self.source == "none":
            return [self.note]
        out = [self.note, *(e.detail for e in self.evidence)]
        out += [x for x in (self.parity, *self.attention) if x]
        if self.dynamic is not None:
            out.append("Dynamic shapes: " + self.dynamic.text)
        out += [a.line for a in self.adjustments if a.workflow in MIGRATING]
        return out


NOT_MEASURED = (
    "transformer probe not run: tokens/s, parity and the dynamic-shape cost rest on the knowledge base "
    "(run `advisor probe --models gpt --json -o FILE`, then --gpt FILE)"
)


def _host(result: GptResult) -> str:
    h = result.host
    cpu = h.cpu_model or "an unnamed CPU"
    cores = f", {h.logical_cores} logical cores" if h.logical_cores else ""
    return f"{cpu}{cores}"


def _hardware_class(result: GptResult) -> Optional[str]:
    devices = {str(r.device).split(":")[0] for r in result.runs if r.status == "ok" and r.device}
    if not devices:
        return None
    return "cpu" if devices == {"cpu"} else next(d for d in sorted(devices) if d != "cpu")


def _shape(result: GptResult) -> str:
    c = result.config
    if c is None:
        return "the probe's GPT"
    return f"a {c.layers}-layer GPT (hidden {c.hidden}, {c.heads} heads, sequence {c.seq}, vocabulary {c.vocab})"


def _run_evidence(r: GptRun, where: str) -> Evidence:
    step = r.step_time_ms.median if r.step_time_ms is not None else None
    parts = [f"{r.tokens_per_second:,.0f} tokens/s"]
    if r.ci95:
        parts[0] += f" (95% CI {r.ci95[0]:,.0f}-{r.ci95[1]:,.0f})"
    if step is not None:
        parts.append(f"step {step:.1f} ms")
    if r.mfu is not None:
        parts.append(f"MFU {r.mfu:.1%} of the on-host GEMM peak")
    grade = r.quality or "not graded"
    reasons = f": {'; '.join(r.quality_reasons)}" if r.quality_reasons and grade != "stable" else ""
    return Evidence(
        kind="measured",
        ref=f"gpt:{r.id}",
        value=round(float(r.tokens_per_second), 3),
        ci95=[round(float(x), 3) for x in r.ci95] if r.ci95 else None,
        spread=[round(min(r.repeats), 3), round(max(r.repeats), 3)] if len(r.repeats) > 1 else None,
        detail=f"{r.framework} {r.mode}: {', '.join(parts)}; {grade}{reasons}; measured here, {where}",
    )


def _parity(result: GptResult) -> Optional[str]:
    p = result.parity
    if p is None:
        return None
    if not p.checks:
        return f"parity {p.status}" + (f": {p.error}" if p.error else "")
    worst = max(p.checks, key=lambda c: c.value / c.tolerance if c.tolerance else float("inf"))
    if p.ok:
        return (
            f"parity passed: logits, loss and gradients after one step agree across frameworks (worst: "
            f"{worst.name} {worst.value:.2g} against a derived bound of {worst.tolerance:.2g}); measured here"
        )
    failed = next((c for c in p.checks if not c.ok), worst)
    cause = f"; likely cause: {p.likely_cause}" if p.likely_cause else ""
    return f"parity failed: {failed.name} {failed.value:.2g} beyond its derived bound {failed.tolerance:.2g}{cause}"


def _attention(result: GptResult) -> list[str]:
    out = []
    for k in result.attention:
        if k.framework == "pytorch" and k.backend:
            out.append(f"PyTorch: F.scaled_dot_product_attention used the {k.backend} kernel here")
        elif k.framework == "mindspore":
            out.append(
                "MindSpore: flash_attention_score ran here"
                if k.available
                else "MindSpore: FlashAttentionScore is not available on this host (Ascend-only); written-out "
                "attention was measured"
            )
    return out


def _e2e(result: GptResult, variant: str, way: str) -> Optional[float]:
    for d in result.dynamic:
        if d.variant == variant and d.status == "ok":
            for w in d.ways:
                if w.way == way:
                    return w.end_to_end_tokens_per_second
    return None


def dynamic_finding(result: GptResult, k: Optional[Mapping[str, float]] = None) -> DynamicShapeFinding:
    """MindSpore graph mode's variable-length cost and its measured mitigations, or why it is unusable."""
    floor = constant("DYNAMIC_COST_FLOOR", k)
    v = next((x for x in result.dynamic_verdicts if x.variant == "graph"), None)
    if v is None or v.variable_cost is None or v.best_way is None:
        return DynamicShapeFinding(
            usable=False,
            reason="MindSpore graph mode's variable-length way was not measured against a padded or bucketed way",
        )
    graph_run = next((r for r in result.runs if r.framework == "mindspore" and r.mode == "graph"), None)
    f = DynamicShapeFinding(
        usable=True,
        cost=round(v.variable_cost, 4),
        steady_cost=round(v.variable_steady_cost, 4) if v.variable_steady_cost is not None else None,
        best_way=v.best_way,
        compiles=dict(v.compiles),
        compile_seconds=dict(v.compile_seconds),
    )
    for d in result.dynamic:
        for w in d.ways:
            if d.variant == "graph" and w.way == "variable":
                f.distinct_lengths = w.distinct_lengths
            if d.variant == "graph-dynamic" and w.way == "variable":
                f.set_inputs_compiles = w.compiles
    best = _e2e(result, "graph", v.best_way)
    bucketed, dyn = _e2e(result, "graph", "bucketed"), _e2e(result, "graph-dynamic", "variable")
    if best:
        f.bucketed_cost = round(1 - bucketed / best, 4) if bucketed else None
        f.set_inputs_cost = round(1 - dyn / best, 4) if dyn else None
    mitigations = [
        (c, m) for c, m in ((f.bucketed_cost, "bucketing"), (f.set_inputs_cost, "set_inputs")) if c is not None
    ]
    if mitigations:
        f.residual, f.mitigation = min(mitigations)
    # the host's noise: the fixed-length graph run of the same result must be graded stable
    if graph_run is None or graph_run.status != "ok":
        f.usable, f.reason = False, "no measured fixed-length MindSpore graph run to judge this host's noise by"
    elif graph_run.quality != "stable":
        why = "; ".join(graph_run.quality_reasons) or "not graded"
        f.usable, f.reason = (
            False,
            f"the MindSpore graph run was graded {graph_run.quality or 'not graded'} here: {why}",
        )
    f.text = _finding_text(f, floor)
    return f


def _finding_text(f: DynamicShapeFinding, floor: float) -> str:
    n = f.distinct_lengths
    text = (
        f"truly variable lengths cost {f.cost:.0%} of end-to-end tokens/s in MindSpore graph mode against "
        f"{f.best_way} ({f.compiles.get('variable')} graph compiles for {n} distinct lengths, "
        f"{f.compile_seconds.get('variable', 0.0):.1f} s compiling, against {f.compiles.get(f.best_way)})"
    )
    if f.steady_cost is not None:
        text += f"; once every length is compiled, {f.steady_cost:.0%}"
    if f.set_inputs_cost is not None:
        text += (
            f"; with Cell.set_inputs dynamic dims {f.set_inputs_compiles} compile(s) and {f.set_inputs_cost:.0%} "
            f"against {f.best_way}"
        )
    if f.bucketed_cost is not None:
        text += f"; bucketed {f.bucketed_cost:.0%} against {f.best_way}"
    if not f.usable:
        return f"{text}. Not used: {f.reason}"
    if f.cost is not None and f.cost < floor:
        text += f" (below the {floor:.0%} floor, DYNAMIC_COST_FLOOR: no measurable cost)"
    return text


def risk_adjustment(
    wf: str, req: Requirements, f: Optional[DynamicShapeFinding], k: Optional[Mapping[str, float]] = None
) -> DynamicRiskAdjustment:
    """How the measured variable-length cost moves workflow `wf`'s migration risk (with the constants
    as `k` moves them: the scorecard calls this per workflow and per sensitivity step)."""
    dynamic = req.model.dynamic_shapes
    a = DynamicRiskAdjustment(workflow=wf, applies=False)
    if wf not in MIGRATING:
        a.line = f"{wf}: does not run MindSpore graph mode"
        return a
    if not dynamic:
        a.line = f"{wf}: the requirements have fixed shapes (model.dynamic_shapes false)"
        return a
    if f is None or not f.usable or f.cost is None:
        a.line = f"{wf}: the dynamic-shape measurement moves nothing: {f.reason if f else 'not measured'}"
        return a
    floor, pen = constant("DYNAMIC_COST_FLOOR", k), constant("DYNAMIC_SHAPE_PENALTY", k)
    a.applies, a.constants = True, ["DYNAMIC_COST_FLOOR"]
    a.likelihood_before = RULES[PITFALL](project_of(req, None))[0]
    before = f"{a.likelihood_before:g}"
    if f.cost < floor:
        a.line = (
            f"{wf}: truly variable lengths cost {f.cost:.0%} here, below the {floor:.0%} floor (DYNAMIC_COST_FLOOR): "
            "no change"
        )
        return a
    a.unmitigated_points = round(pen * f.cost, 2)
    a.constants += ["DYNAMIC_SHAPE_PENALTY"]
    if f.residual is not None and f.residual < floor:
        low = constant("DYNAMIC_MITIGATED_LIKELIHOOD", k)
        a.direction, a.likelihood = "falls", low
        a.penalty_points = round(pen * max(f.residual, 0.0), 2)
        a.constants += ["DYNAMIC_MITIGATED_LIKELIHOOD"]
        how = "bucketing the lengths" if f.mitigation == "bucketing" else "declaring dynamic dims with Cell.set_inputs"
        likely = f"likelihood {before} -> {low:g} (DYNAMIC_MITIGATED_LIKELIHOOD)"
        a.line = (
            f"{wf}: variable lengths cost {f.cost:.0%} in MindSpore graph mode here, and {how} measured "
            f"{f.residual:.0%} against {f.best_way}: -{a.penalty_points:g} migration points ({pen:g} x "
            f"{max(f.residual, 0.0):.0%}) instead of -{a.unmitigated_points:g} ({pen:g} x {f.cost:.0%}; "
            f"DYNAMIC_SHAPE_PENALTY); {PITFALL} {likely}"
        )
        return a
    hit = constant("DYNAMIC_MEASURED_HIT", k)
    left = f.cost if f.residual is None else min(f.cost, max(f.residual, 0.0))
    a.direction, a.likelihood = "rises", hit
    a.penalty_points = round(pen * left, 2)
    a.constants += ["DYNAMIC_MEASURED_HIT"]
    fix = (
        f"no measured mitigation recovers it (best: {f.mitigation} {f.residual:.0%})"
        if f.residual is not None
        else "no mitigation was measured"
    )
    a.line = (
        f"{wf}: variable lengths cost {f.cost:.0%} in MindSpore graph mode here and {fix}: "
        f"-{a.penalty_points:g} migration points ({pen:g} x {left:.0%}, DYNAMIC_SHAPE_PENALTY); {PITFALL} "
        f"likelihood {before} -> {hit:g} (DYNAMIC_MEASURED_HIT)"
    )
    return a


def transformer_evidence(
    result: Union[GptResult, dict, None],
    req: Requirements,
    file: Optional[str] = None,
    k: Optional[Mapping[str, float]] = None,
    workflows: tuple[str, ...] = ("pytorch", "hybrid", "mindspore"),
) -> TransformerEvidence:
    """Judge a GptResult (or its JSON dict) against the requirements; None: the 'not measured' evidence."""
    target = req.hardware.training_target
    workload = req.model.family == "transformer" or (req.workload is not None and req.workload.model == "transformer")
    dynamic = req.model.dynamic_shapes
    if result is None:
        return TransformerEvidence(target_class=target, workload=workload, dynamic_inputs=dynamic, note=NOT_MEASURED)
    if isinstance(result, dict):
        from probes.transformer.models import GptResult

        result = GptResult.model_validate(result)
    host, cls = _host(result), _hardware_class(result)
    same = cls is not None and cls == {"cpu": "cpu", "cuda": "nvidia", "npu": "ascend"}.get(target, target)
    where = f"applies where: same hardware class ({cls or 'unknown'}): evidence about the frameworks on {host}, " + (
        "the class the team trains on"
        if same
        else f"not a projection for the training target ({target}"
        + (f", {req.hardware.accelerator}" if req.hardware.accelerator else "")
        + ")"
    )
    ev = [_run_evidence(r, where) for r in result.runs if r.status == "ok" and r.tokens_per_second]
    finding = dynamic_finding(result, k) if result.dynamic_verdicts else None
    adjustments = [risk_adjustment(wf, req, finding, k) for wf in workflows]
    usable = [e for e in ev if "; stable;" in e.detail]
    if not ev:
        note = "the transformer probe measured no run (every run failed or was skipped): " + NOT_MEASURED
    else:
        note = (
            f"measured here on {host} with {_shape(result)}: {len(usable)} of {len(ev)} runs graded stable; "
            + ("" if workload else "the requirements are not a transformer workload, so it is context only; ")
            + where
        )
    return TransformerEvidence(
        source="file",
        file=file,
        created=result.created,
        host=host,
        hardware_class=cls,
        target_class=target,
        same_hardware_class=same,
        applies_where=where,
        workload=workload,
        dynamic_inputs=dynamic,
        model=_shape(result),
        evidence=ev,
        parity=_parity(result),
        attention=_attention(result),
        dynamic=finding,
        adjustments=adjustments,
        note=note,
    )
