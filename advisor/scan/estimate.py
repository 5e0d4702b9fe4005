"""From raw findings to the estimate: classify APIs through the knowledge base's api_mappings,
attach each hazard kind's KB pitfall (fix and effort), sum effort ranges, judge risk, pick a route.

Every hour figure says where it came from (`effort_basis`): a KB entry with its source and
confidence, or one of the stated defaults below when the KB has no figure.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

from advisor.scan.models import (
    ApiUse,
    Hazard,
    HazardSummary,
    Location,
    UnmappedApi,
)

MAX_LOCATIONS = 5
# Hours per distinct API when the mapping entry has no effort_hours (assumption, stated in the basis).
DEFAULT_API_HOURS = {"same": (0.0, 0.25), "differs": (0.5, 2.0), "none": (2.0, 8.0)}
UNMAPPED_HOURS = (0.1, 0.5)  # look it up in the official mapping table, usually a rename
DEFAULT_HAZARD_HOURS = (1.0, 4.0)  # only when no KB pitfall names the kind
PER_EXTRA_FILE = 0.25  # each further file with the same hazard kind adds a quarter of its cost...
MAX_SCALE = 3.0  # ...up to three times: the fix is learned once, then repeated

# How much a hazard kind can derail a migration (judgement from the seeds: control flow, custom
# operators and DDP are the "weeks" cases; Normalize or a scheduler cost an hour or two).
KIND_RISK = {
    "tensor_control_flow": "high",
    "custom_extension": "high",
    "distributed": "high",
    "hook": "medium",
    "cuda_amp": "medium",
    "model_hub": "medium",
    "inplace_op": "low",  # medium when inside forward
    "dataloader_option": "low",
    "lr_scheduler": "low",
    "normalize": "low",
}
FALLBACK_FIX = {
    "tensor_control_flow": "Make the branch static (shapes known at compile time) or use ops.select / mindspore.jit control flow; or run that Cell in PyNative mode.",
    "inplace_op": "Use the out-of-place form and assign the result.",
    "hook": "Replace hooks with explicit outputs or mindspore.ops.HookBackward / PyNative-only Cell hooks.",
    "cuda_amp": "Use mindspore.amp.auto_mixed_precision with a loss scale manager.",
    "distributed": "Use mindspore.communication.init with a parallel mode and launch with msrun.",
    "custom_extension": "Re-implement the operator with mindspore.ops.Custom or compose existing ops.",
    "dataloader_option": "Drop the option or map it to mindspore.dataset settings.",
    "lr_scheduler": "Precompute the schedule (nn.piecewise_constant_lr, nn.cosine_decay_lr) and pass it to the optimizer.",
    "normalize": "Multiply mean and std by 255 for MindSpore vision.Normalize on uint8 HWC images.",
    "model_hub": "Use a MindSpore port of the model or convert the weights.",
}
ORDER = {"low": 0, "medium": 1, "high": 2}


def _hours(value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    return (float(value.low), float(value.high))


def _basis(entry_id: str, rng: Any) -> str:
    return f"KB {entry_id}: {rng.low:g}-{rng.high:g} h ({rng.confidence}, {rng.source})"


def _round(pair: tuple[float, float]) -> tuple[float, float]:
    return (round(pair[0], 2), round(pair[1], 2))


def _locations(locs: list[Location]) -> list[Location]:
    return sorted(locs, key=lambda l: (l.file, l.cell or 0, l.line))[:MAX_LOCATIONS]


class MappingIndex:
    """KB api_mappings by PyTorch name; a name not listed may match its longest listed parent
    (e.g. torch.distributed.all_reduce under an entry for torch.distributed)."""

    def __init__(self, mappings: Iterable[Any]):
        self.by_name = {m.pytorch: m for m in mappings}

    def names(self) -> set[str]:
        return set(self.by_name)

    def find(self, name: str) -> Any | None:
        parts = name.split(".")
        for end in range(len(parts), 1, -1):  # never the bare root ("torch")
            entry = self.by_name.get(".".join(parts[:end]))
            if entry is not None:
                return entry
        return None


def classify_apis(uses: dict[str, list[Location]], kb: Any) -> tuple[list[ApiUse], list[UnmappedApi]]:
    index = MappingIndex(kb.api_mappings)
    apis: list[ApiUse] = []
    unmapped: list[UnmappedApi] = []
    for name in sorted(uses):
        locs = uses[name]
        entry = index.find(name)
        if entry is None:
            unmapped.append(
                UnmappedApi(
                    name=name,
                    count=len(locs),
                    locations=_locations(locs),
                    effort_hours=UNMAPPED_HOURS,
                    effort_basis=f"default {UNMAPPED_HOURS[0]:g}-{UNMAPPED_HOURS[1]:g} h per distinct API not in the KB (assumption)",
                )
            )
            continue
        rng = entry.effort_hours
        if rng is not None:
            hours, basis = _hours(rng), _basis(entry.id, rng)
        else:
            hours = DEFAULT_API_HOURS[entry.mapping]
            basis = f"default {hours[0]:g}-{hours[1]:g} h per distinct '{entry.mapping}' API (assumption; KB {entry.id} has no effort_hours)"
        note = entry.note or ""
        if entry.pytorch != name:
            note = f"(classified via {entry.pytorch}) {note}".strip()
        apis.append(
            ApiUse(
                name=name,
                count=len(locs),
                mapping=entry.mapping,
                mindspore=entry.mindspore,
                note=note,
                fix=entry.fix,
                kb_id=entry.id,
                matched=entry.pytorch,
                pitfall=entry.pitfall,
                locations=_locations(locs),
                effort_hours=_round(hours),
                effort_basis=basis,
            )
        )
    return apis, unmapped


def _context_conditions(p: Any) -> int:
    """Conditions the code cannot show (hardware, deployment); `model.*` and `needs.*` ones are
    what the scan detects in the code (custom CUDA ops, control flow, DDP, hub models)."""
    return sum(1 for c in (p.applies_when or []) if not c.startswith(("model.", "needs.")))


def pitfalls_for(kind: str, kb: Any) -> list[Any]:
    """KB pitfalls whose scan_kinds name this kind, the primary one first: one with an effort
    figure, then the one that needs no context the code cannot show (e.g. 'on Ascend'), then id."""
    candidates = [p for p in kb.pitfalls if kind in (p.scan_kinds or [])]
    candidates.sort(key=lambda p: (p.effort_hours is None, _context_conditions(p), p.id))
    return candidates


def pitfall_for(kind: str, kb: Any) -> Any | None:
    """The primary KB pitfall for a hazard kind (its fix and effort are the hazard's)."""
    found = pitfalls_for(kind, kb)
    return found[0] if found else None


def attach_fixes(raw: list[Any], kb: Any) -> list[Hazard]:
    """RawHazard (kind, line, message, in_forward, api, file) -> Hazard with the KB pitfall's fix."""
    cache: dict[str, Any] = {}
    hazards = []
    for h in raw:
        if h.kind not in cache:
            cache[h.kind] = pitfall_for(h.kind, kb)
        p = cache[h.kind]
        hazards.append(
            Hazard(
                kind=h.kind,
                file=h.file,
                line=h.line,
                cell=h.cell,
                message=h.message,
                fix=(p.fix if p is not None else FALLBACK_FIX[h.kind]),
                pitfall=p.id if p is not None else None,
                in_forward=h.in_forward,
            )
        )
    return hazards


def fold_covered(
    apis: list[ApiUse], unmapped: list[UnmappedApi], covered: dict[str, str]
) -> tuple[list[ApiUse], list[UnmappedApi]]:
    """APIs whose use is itself a hazard cost nothing on their own: the hazard kind's estimate
    (from its KB pitfall) covers them. Counting both would bill the same work twice."""
    def fold(item):
        kind = covered.get(item.name)
        if kind is None:
            return item
        return item.model_copy(
            update={"effort_hours": (0.0, 0.0), "effort_basis": f"counted in the {kind} hazard estimate (was: {item.effort_basis})"}
        )

    return [fold(a) for a in apis], [fold(u) for u in unmapped]


def summarize(hazards: list[Hazard], kb: Any) -> list[HazardSummary]:
    by_kind: dict[str, list[Hazard]] = defaultdict(list)
    for h in hazards:
        by_kind[h.kind].append(h)
    out = []
    for kind in sorted(by_kind):
        items = by_kind[kind]
        files = len({h.file for h in items})
        scale = min(MAX_SCALE, 1.0 + PER_EXTRA_FILE * (files - 1))
        ranked = pitfalls_for(kind, kb)
        p = ranked[0] if ranked else None
        if p is not None and p.effort_hours is not None:
            base, basis = _hours(p.effort_hours), _basis(p.id, p.effort_hours)
        else:
            base = DEFAULT_HAZARD_HOURS
            basis = f"default {base[0]:g}-{base[1]:g} h (assumption; no KB pitfall with effort_hours for {kind})"
        basis += f", once per kind x{scale:g} for {files} file(s)"
        risk = KIND_RISK[kind]
        if kind == "inplace_op" and any(h.in_forward for h in items):
            risk = "medium"
        out.append(
            HazardSummary(
                kind=kind,
                count=len(items),
                files=files,
                risk=risk,
                pitfall=p.id if p is not None else None,
                also=[q.id for q in ranked[1:]],
                title=p.title if p is not None else "",
                fix=p.fix if p is not None else FALLBACK_FIX[kind],
                effort_hours=_round((base[0] * scale, base[1] * scale)),
                effort_basis=basis,
            )
        )
    out.sort(key=lambda s: (-ORDER[s.risk], s.kind))
    return out


TOTAL_BASIS = (
    "items: per distinct API (KB api_mappings effort_hours, or the stated default) and per hazard kind "
    "(KB pitfall effort_hours, scaled for the files affected); low = sum of the lows; high = low + "
    "root-sum-square of the item ranges, since independent items rarely all hit their worst case "
    "together (effort_worst_case_hours is the plain sum of the highs)"
)


def total(
    apis: list[ApiUse], unmapped: list[UnmappedApi], summary: list[HazardSummary]
) -> tuple[tuple[float, float], float]:
    """([low, high], worst case) over all items; see TOTAL_BASIS."""
    items = [a.effort_hours for a in apis] + [u.effort_hours for u in unmapped] + [s.effort_hours for s in summary]
    low = sum(i[0] for i in items)
    spread = sum((i[1] - i[0]) ** 2 for i in items) ** 0.5
    worst = sum(i[1] for i in items)
    return _round((low, low + spread)), round(worst, 2)


def _hard_missing(api: ApiUse) -> bool:
    """No equivalent AND real work to replace it. A 'none' costing at most an hour is one to drop
    (optimizer.zero_grad: gradients are functional in MindSpore); one folded into a hazard is
    judged with that hazard."""
    return api.mapping == "none" and api.effort_hours[1] > 1.0


NOTHING_FOUND = "no PyTorch code found: nothing to migrate"


def judge_risk(
    summary: list[HazardSummary],
    apis: list[ApiUse],
    unmapped: list[UnmappedApi],
    effort: tuple[float, float],
    unparsed: int,
) -> tuple[str, list[str]]:
    """Risk = the worst of: hazard kinds, APIs without a MindSpore equivalent, effort size,
    knowledge-base coverage and unreadable files. Returns the level and its reasons."""
    reasons: list[tuple[str, str]] = []
    for s in summary:
        if s.risk != "low":
            reasons.append((s.risk, f"{s.kind}: {s.count} place(s) in {s.files} file(s)"))
    missing = [a.name for a in apis if _hard_missing(a)]
    if missing:
        level = "high" if len(missing) >= 3 else "medium"
        reasons.append((level, f"{len(missing)} API(s) with no MindSpore equivalent: {', '.join(missing[:5])}"))
    if effort[1] > 80:
        reasons.append(("high", f"up to {effort[1]:.0f} h of work (more than two weeks)"))
    elif effort[1] > 24:
        reasons.append(("medium", f"up to {effort[1]:.0f} h of work (more than three days)"))
    distinct = len(apis) + len(unmapped)
    if distinct and len(unmapped) > 25 and len(unmapped) / distinct > 0.3:
        reasons.append(("medium", f"{len(unmapped)} of {distinct} APIs are not in the knowledge base: the estimate is rougher"))
    if unparsed:
        reasons.append(("medium", f"{unparsed} Python file(s) could not be parsed and were not estimated"))
    if not reasons and not summary and not distinct:
        return "low", [NOTHING_FOUND]
    if not reasons:
        return "low", ["no hazard above low, every API has an equivalent, small effort"]
    worst = max(ORDER[level] for level, _ in reasons)
    level = next(k for k, v in ORDER.items() if v == worst)
    reasons.sort(key=lambda r: -ORDER[r[0]])
    return level, [f"{lvl}: {text}" for lvl, text in reasons]


ROUTE_TEXT = {
    "manual rewrite": "manual rewrite: port the code layer by layer with the API mapping table (seed 002, route 1: a standard ResNet-18 took an afternoon)",
    "ONNX -> MindIR conversion": "ONNX -> MindIR conversion: export the trained model to ONNX and convert it to MindIR for inference on Ascend; no line-by-line rewrite, but unsupported operators send you back to rewriting, and it does not give you MindSpore training code (seed 002, route 2)",
    "adapter layer": "adapter layer (MSAdapter / MindTorch, PyTorch API on MindSpore): run the PyTorch code with few changes to validate quickly, then rewrite the hot spots (seed 002, route 3)",
}


LARGE_LINES = 3000  # a code base this big is more than "a few hundred lines, half a day" (seed 004)
LARGE_APIS = 80
MANY_DIFFERENCES = 25  # distinct APIs that differ or have no equivalent
MANY_MISSING = 3


def choose_route(
    summary: list[HazardSummary], apis: list[ApiUse], unmapped: list[UnmappedApi], lines: int = 0
) -> tuple[str, str, list[str]]:
    """The seeds' advice (seed 002, section 6): small models by hand, large models through ONNX
    first, the adapter layer when framework-level incompatibilities pile up; custom CUDA operators
    and data-dependent control flow rule out the shortcuts. APIs unknown to the KB do not count
    as incompatibilities (mostly renames)."""
    kinds = {s.kind for s in summary}
    differ = sum(1 for a in apis if a.mapping != "same")
    missing = sum(1 for a in apis if _hard_missing(a))
    distinct = len(apis) + len(unmapped)
    if not kinds and not distinct:
        route, why = "manual rewrite", NOTHING_FOUND
    elif "custom_extension" in kinds:
        route = "manual rewrite"
        why = "custom C++/CUDA operators neither export to ONNX nor run under an adapter: they must be rewritten (ops.Custom) together with the code around them"
    elif "tensor_control_flow" in kinds:
        route = "manual rewrite"
        why = "data-dependent control flow in forward does not survive ONNX export (it traces one branch) and fails in Graph mode: restructure it by hand"
    elif "model_hub" in kinds:
        route = "ONNX -> MindIR conversion"
        why = "the model comes from a third-party hub (its code is not yours to rewrite): seed 002 advises large models go through ONNX first; training on MindSpore then needs a MindSpore port of the model"
    elif missing >= MANY_MISSING or differ >= MANY_DIFFERENCES:
        route = "adapter layer"
        why = f"{differ} APIs differ or have no equivalent ({missing} without one): seed 002 advises the adapter layer when framework-level incompatibilities pile up, then rewriting the hot spots"
    elif lines >= LARGE_LINES or distinct >= LARGE_APIS:
        route = "ONNX -> MindIR conversion"
        why = f"a large code base ({lines} lines, {distinct} distinct APIs): seed 002 advises large models go through ONNX first; rewrite by hand what must train on MindSpore"
    else:
        route = "manual rewrite"
        why = "a small code base of standard layers with one-to-one or documented mappings: seed 002 advises small models be rewritten by hand"
    alternatives = [text for name, text in ROUTE_TEXT.items() if name != route]
    return route, f"{ROUTE_TEXT[route]}. Why here: {why}.", alternatives
