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
from advisor.decision.findings import said
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
            out.append(said("gpt.dynamic.heading", text=self.dynamic.text))
        out += [a.line for a in self.adjustments if a.workflow in MIGRATING]
        return out


NOT_MEASURED = said("gpt.not_measured")


def _host(result: GptResult) -> str:
    return said("gpt.host", cpu=result.host.cpu_model, cores=result.host.logical_cores)


def _hardware_class(result: GptResult) -> Optional[str]:
    devices = {str(r.device).split(":")[0] for r in result.runs if r.status == "ok" and r.device}
    if not devices:
        return None
    return "cpu" if devices == {"cpu"} else next(d for d in sorted(devices) if d != "cpu")


def _shape(result: GptResult) -> str:
    c = result.config
    if c is None:
        return said("gpt.model.unknown")
    return said("gpt.model", layers=c.layers, hidden=c.hidden, heads=c.heads, seq=c.seq, vocab=c.vocab)


def _run_evidence(r: GptRun, where: str) -> Evidence:
    step = r.step_time_ms.median if r.step_time_ms is not None else None
    return Evidence(
        kind="measured",
        ref=f"gpt:{r.id}",
        value=round(float(r.tokens_per_second), 3),
        ci95=[round(float(x), 3) for x in r.ci95] if r.ci95 else None,
        spread=[round(min(r.repeats), 3), round(max(r.repeats), 3)] if len(r.repeats) > 1 else None,
        detail=said(
            "gpt.evidence.run",
            framework=r.framework,
            mode=r.mode,
            tokens=r.tokens_per_second,
            ci95=r.ci95,
            step=step,
            mfu=r.mfu,
            grade=r.quality,
            reasons=r.quality_reasons,
            where=where,
        ),
    )


def _parity(result: GptResult) -> Optional[str]:
    p = result.parity
    if p is None:
        return None
    if not p.checks:
        return said("gpt.parity.status", status=p.status, error=p.error)
    worst = max(p.checks, key=lambda c: c.value / c.tolerance if c.tolerance else float("inf"))
    if p.ok:
        return said("gpt.parity.passed", name=worst.name, value=worst.value, tolerance=worst.tolerance)
    failed = next((c for c in p.checks if not c.ok), worst)
    return said(
        "gpt.parity.failed", name=failed.name, value=failed.value, tolerance=failed.tolerance, cause=p.likely_cause
    )


def _attention(result: GptResult) -> list[str]:
    out = []
    for k in result.attention:
        if k.framework == "pytorch" and k.backend:
            out.append(said("gpt.attention.pytorch", backend=k.backend))
        elif k.framework == "mindspore":
            out.append(said("gpt.attention.mindspore", available=k.available))
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
            reason=said("gpt.dynamic.not_measured"),
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
        f.usable, f.reason = False, said("gpt.dynamic.no_graph_run")
    elif graph_run.quality != "stable":
        reason = said("gpt.dynamic.graph_not_stable", quality=graph_run.quality, reasons=graph_run.quality_reasons)
        f.usable, f.reason = False, reason
    f.text = _finding_text(f, floor)
    return f


def _finding_text(f: DynamicShapeFinding, floor: float) -> str:
    return said(
        "gpt.dynamic",
        cost=f.cost,
        best_way=f.best_way,
        variable_compiles=f.compiles.get("variable"),
        distinct=f.distinct_lengths,
        compile_seconds=f.compile_seconds.get("variable", 0.0),
        best_compiles=f.compiles.get(f.best_way),
        steady_cost=f.steady_cost,
        set_inputs_compiles=f.set_inputs_compiles,
        set_inputs_cost=f.set_inputs_cost,
        bucketed_cost=f.bucketed_cost,
        usable=f.usable,
        reason=f.reason,
        floor=floor,
    )


def risk_adjustment(
    wf: str, req: Requirements, f: Optional[DynamicShapeFinding], k: Optional[Mapping[str, float]] = None
) -> DynamicRiskAdjustment:
    """How the measured variable-length cost moves workflow `wf`'s migration risk (with the constants
    as `k` moves them: the scorecard calls this per workflow and per sensitivity step)."""
    dynamic = req.model.dynamic_shapes
    a = DynamicRiskAdjustment(workflow=wf, applies=False)
    if wf not in MIGRATING:
        a.line = said("gpt.adjust.not_migrating", workflow=wf)
        return a
    if not dynamic:
        a.line = said("gpt.adjust.fixed_shapes", workflow=wf)
        return a
    if f is None or not f.usable or f.cost is None:
        a.line = said("gpt.adjust.moves_nothing", workflow=wf, reason=f.reason if f else None)
        return a
    floor, pen = constant("DYNAMIC_COST_FLOOR", k), constant("DYNAMIC_SHAPE_PENALTY", k)
    a.applies, a.constants = True, ["DYNAMIC_COST_FLOOR"]
    a.likelihood_before = RULES[PITFALL](project_of(req, None))[0]
    if f.cost < floor:
        a.line = said("gpt.adjust.below_floor", workflow=wf, cost=f.cost, floor=floor)
        return a
    a.unmitigated_points = round(pen * f.cost, 2)
    a.constants += ["DYNAMIC_SHAPE_PENALTY"]
    if f.residual is not None and f.residual < floor:
        low = constant("DYNAMIC_MITIGATED_LIKELIHOOD", k)
        a.direction, a.likelihood = "falls", low
        a.penalty_points = round(pen * max(f.residual, 0.0), 2)
        a.constants += ["DYNAMIC_MITIGATED_LIKELIHOOD"]
        a.line = said(
            "gpt.adjust.mitigated",
            workflow=wf,
            cost=f.cost,
            mitigation=f.mitigation,
            residual=f.residual,
            best_way=f.best_way,
            points=a.penalty_points,
            penalty=pen,
            residual_kept=max(f.residual, 0.0),
            unmitigated=a.unmitigated_points,
            pitfall=PITFALL,
            before=a.likelihood_before,
            after=low,
        )
        return a
    hit = constant("DYNAMIC_MEASURED_HIT", k)
    left = f.cost if f.residual is None else min(f.cost, max(f.residual, 0.0))
    a.direction, a.likelihood = "rises", hit
    a.penalty_points = round(pen * left, 2)
    a.constants += ["DYNAMIC_MEASURED_HIT"]
    a.line = said(
        "gpt.adjust.unmitigated",
        workflow=wf,
        cost=f.cost,
        mitigation=f.mitigation,
        residual=f.residual,
        points=a.penalty_points,
        penalty=pen,
        left=left,
        pitfall=PITFALL,
        before=a.likelihood_before,
        after=hit,
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
    where = said(
        "gpt.applies_where", cls=cls, host=host, same=same, target=target, accelerator=req.hardware.accelerator
    )
    measured = [r for r in result.runs if r.status == "ok" and r.tokens_per_second]
    ev = [_run_evidence(r, where) for r in measured]
    finding = dynamic_finding(result, k) if result.dynamic_verdicts else None
    adjustments = [risk_adjustment(wf, req, finding, k) for wf in workflows]
    stable = [r for r in measured if r.quality == "stable"]  # the runs the stability grade lets count
    if not ev:
        note = said("gpt.no_run")
    else:
        note = said(
            "gpt.measured",
            host=host,
            model=_shape(result),
            stable=len(stable),
            runs=len(ev),
            workload=workload,
            where=where,
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
