"""From raw findings to the estimate: classify APIs through the knowledge base's api_mappings,
attach each hazard kind's KB pitfall (fix and effort), judge risk by a stated rule, pick a route from
the whole picture. The hours themselves are counted in advisor/scan/effort.py.

Every hour figure says where it came from (`effort_basis`): a KB entry with its source and
confidence, or one of the stated defaults below when the KB has no figure.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from advisor.scan import normalize, patterns
from advisor.scan.detect import EXTENSION_BUILDERS, RawHazard
from advisor.scan import features
from advisor.scan.effort import PLACE_INCREMENT, SATURATION, Ledger
from advisor.scan.models import (
    ApiUse,
    Dependency,
    FixExample,
    Hazard,
    HazardSummary,
    Location,
    UnknownLibrary,
    UnmappedApi,
)

if TYPE_CHECKING:
    from knowledge.models import ApiMapping, KnowledgeBase, Pitfall, SourcedRange

MAX_LOCATIONS = 5
# Hours per distinct API when the mapping entry has no effort_hours (assumption, stated in the basis).
DEFAULT_API_HOURS = {"same": (0.0, 0.25), "differs": (0.5, 2.0), "none": (2.0, 8.0)}
UNMAPPED_HOURS = (0.1, 0.5)  # look it up in the official mapping table, usually a rename
DEFAULT_HAZARD_HOURS = (1.0, 4.0)  # only when no KB pitfall names the kind
# How much a hazard kind can derail a migration. "high" only where nothing maps and a redesign or new
# kernels are needed (custom CUDA operators, features with no equivalent); "medium" where there is a
# known route that takes real work (Graph-mode rewrites, dynamic shapes, DDP -> msrun, hooks, hubs);
# "low" for renames and settings. Judgement from the field reports (seed 004 3.3: dynamic shape,
# custom operators, distributed are the hard parts of a complex migration).
KIND_RISK = {
    "custom_extension": "high",
    "no_equivalent": "high",
    "tensor_control_flow": "medium",
    "graph_side_effect": "medium",
    "dynamic_shape": "medium",
    "distributed": "medium",  # low when the only use is a DataParallel wrapper
    "hook": "medium",
    "model_hub": "medium",  # low when only imported lazily (an optional weights loader)
    "cuda_amp": "low",
    "inplace_op": "low",  # medium when inside forward
    "dataloader_option": "low",
    "lr_scheduler": "low",
    "normalize": "low",
    "missing_option": "low",
    "quantized_training": "medium",
}
# A DataParallel wrapper is deleted on MindSpore (one device per process); it is not a DDP port.
TRIVIAL_DISTRIBUTED_HOURS = (0.1, 0.5)
TRIVIAL_DISTRIBUTED = {
    "torch.nn.DataParallel",
    "torch.nn.parallel.DataParallel",
    "torch.cuda.device_count",
    # the functional form: one call that scatters a batch over local GPUs, not a DDP set-up
    "torch.nn.parallel.data_parallel",
    "torch.nn.parallel.data_parallel.data_parallel",
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
    **{kind: k.fix for kind, k in patterns.SCAN_ONLY.items()},
}
ORDER = {"low": 0, "medium": 1, "high": 2}
# Hazard kinds a live check shows: the fix says where (the Normalize trap: the accuracy probe's check).
CHECKS = {"normalize": normalize.CHECK}


def fix_for(kind: str, pitfall: Pitfall | None) -> str:
    """The KB pitfall's fix (or the scan's own), then the live check that shows the hazard, if any."""
    fix = pitfall.fix if pitfall is not None else FALLBACK_FIX[kind]
    return f"{fix} {CHECKS[kind]}" if kind in CHECKS else fix


def _hours(value: SourcedRange | None) -> tuple[float, float] | None:
    if value is None:
        return None
    return (float(value.low), float(value.high))


def _basis(entry_id: str, rng: SourcedRange) -> str:
    return f"KB {entry_id}: {rng.low:g}-{rng.high:g} h ({rng.confidence}, {patterns.cite(rng.source)})"


def _round(pair: tuple[float, float]) -> tuple[float, float]:
    return (round(pair[0], 2), round(pair[1], 2))


def _locations(locs: list[Location]) -> list[Location]:
    return sorted(locs, key=lambda l: (l.file, l.cell or 0, l.line))[:MAX_LOCATIONS]


class MappingIndex:
    """KB api_mappings by PyTorch name; a name not listed may match its longest listed parent
    (e.g. torch.distributed.all_reduce under an entry for torch.distributed)."""

    def __init__(self, mappings: Iterable[ApiMapping]):
        self.by_name = {m.pytorch: m for m in mappings}

    def names(self) -> set[str]:
        return set(self.by_name)

    def find(self, name: str) -> ApiMapping | None:
        parts = name.split(".")
        for end in range(len(parts), 1, -1):  # never the bare root ("torch")
            entry = self.by_name.get(".".join(parts[:end]))
            if entry is not None:
                return entry
        return None


PATH_LOOKUP = "torch.utils.cpp_extension.CUDA_HOME"
METHOD_PREFIXES = ("torch.Tensor.", "torch.nn.Module.", "torch.optim.Optimizer.")


def toolkit_class(name: str, entry: ApiMapping | None) -> str:
    """MindSpore Dev Toolkit's bins: convertible (a mapping exists), probably_tensor (a method matched
    by its name on an object whose type the ast cannot know), no_mapping (none, or not in the KB)."""
    if entry is None or entry.mapping == "none":
        return "no_mapping"
    if name.startswith(METHOD_PREFIXES):
        return "probably_tensor"
    return "convertible"


def api_base(entry: ApiMapping) -> tuple[tuple[float, float], str]:
    """Hours for the first use of an API, and where the figure comes from."""
    if entry is None:
        return (
            UNMAPPED_HOURS,
            f"default {UNMAPPED_HOURS[0]:g}-{UNMAPPED_HOURS[1]:g} h per distinct API not in the KB (assumption)",
        )
    rng = entry.effort_hours
    if rng is not None:
        return _hours(rng), _basis(entry.id, rng)
    hours = DEFAULT_API_HOURS[entry.mapping]
    return (
        hours,
        f"default {hours[0]:g}-{hours[1]:g} h per distinct '{entry.mapping}' API (assumption; KB {entry.id} has no effort_hours)",
    )


def classify_apis(uses: dict[str, list[Location]], kb: KnowledgeBase) -> tuple[list[ApiUse], list[UnmappedApi]]:
    """Each API with its KB mapping and the figure for its first use (effort_hours is set to the whole
    item's included hours later, by scan_path)."""
    index = MappingIndex(kb.api_mappings)
    apis: list[ApiUse] = []
    unmapped: list[UnmappedApi] = []
    for name in sorted(uses):
        locs = uses[name]
        entry = index.find(name)
        if (
            name.startswith("torch.utils.cpp_extension.")
            and name.rsplit(".", 1)[-1] not in EXTENSION_BUILDERS
            and entry is not None
            and entry.pytorch != name
        ):
            entry = index.by_name.get(PATH_LOOKUP, entry)  # ROCM_HOME, include_paths: a lookup, not an extension
        hours, basis = api_base(entry)
        if entry is None:
            unmapped.append(
                UnmappedApi(
                    name=name, count=len(locs), locations=_locations(locs), effort_hours=hours, effort_basis=basis
                )
            )
            continue
        note = entry.note or ""
        if entry.pytorch != name:
            note = f"(classified via {entry.pytorch}) {note}".strip()
        adapter = entry.adapter if entry.adapter is not None else entry.mapping != "none"
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
                toolkit=toolkit_class(name, entry),
                adapter=adapter,
            )
        )
    return apis, unmapped


def _context_conditions(p: Pitfall) -> int:
    """Conditions the code cannot show (hardware, deployment); `model.*` and `needs.*` ones are
    what the scan detects in the code (custom CUDA ops, control flow, DDP, hub models)."""
    return sum(1 for c in (p.applies_when or []) if not c.startswith(("model.", "needs.")))


def pitfalls_for(kind: str, kb: KnowledgeBase) -> list[Pitfall]:
    """KB pitfalls whose scan_kinds name this kind, the primary one first: one with an effort
    figure, then the one that needs no context the code cannot show (e.g. 'on Ascend'), then id."""
    candidates = [p for p in kb.pitfalls if kind in (p.scan_kinds or [])]
    candidates.sort(key=lambda p: (p.effort_hours is None, _context_conditions(p), p.id))
    return candidates


def pitfall_for(kind: str, kb: KnowledgeBase) -> Pitfall | None:
    """The primary KB pitfall for a hazard kind (its fix and effort are the hazard's)."""
    found = pitfalls_for(kind, kb)
    return found[0] if found else None


def attach_fixes(raw: list[RawHazard], kb: KnowledgeBase) -> list[Hazard]:
    """RawHazard (kind, line, message, in_forward, api, file) -> Hazard with the KB pitfall's fix (or the
    scan's own for the kinds no pitfall explains)."""
    cache: dict[str, Pitfall | None] = {}
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
                fix=fix_for(h.kind, p),
                pitfall=p.id if p is not None else None,
                in_forward=h.in_forward,
                api=h.api,
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
            update={
                "effort_hours": (0.0, 0.0),
                "effort_basis": f"counted in the {kind} hazard estimate (was: {item.effort_basis})",
            }
        )

    return [fold(a) for a in apis], [fold(u) for u in unmapped]


def _example(
    kind: str, hazards: list[Hazard], index: MappingIndex | None, places: dict[int, tuple[str, str]] | None = None
) -> FixExample:
    """A place's own before/after (the Normalize values found, x 255) for the first included place that has
    one, else the API's own from the KB when one of the places has it, else the kind's pattern."""
    found = [places[id(h)] for h in hazards if places and id(h) in places]
    live = [places[id(h)] for h in hazards if places and id(h) in places and not h.excluded]
    if found:
        before, after = (live or found)[0]
        return FixExample(before=before, after=after, source=patterns.EXAMPLES[kind].source + " (its values, x 255)")
    if index is not None:
        for h in hazards:
            entry = index.find(h.api) if h.api else None
            if entry is not None and entry.before:
                return FixExample(before=entry.before, after=entry.after, source=f"KB {entry.id}: {entry.source}")
    ex = patterns.EXAMPLES[kind]
    return FixExample(before=ex.before, after=ex.after, source=ex.source)


def _feature_words(kind: str) -> str:
    return {
        "custom_extension": "operators, the build lines and calls are part of the kernel they build",
        "no_equivalent": "subsystems",
        "model_hub": "hub libraries",
    }.get(kind, "one pattern")


def _own_figures(kind: str, items: list[Hazard]) -> list[tuple[str, tuple[float, float], str]]:
    """Features of a kind that carry their own figure (a sharded or tensor-parallel set-up is not a DDP
    wrapper), in the order first seen."""
    out: dict[str, tuple[tuple[float, float], str]] = {}
    if kind == "distributed":
        for h in items:
            found = features.parallel_feature(h.api)
            if found and found[0] not in out:
                out[found[0]] = (found[1], found[2])
    return [(f, hours, why) for f, (hours, why) in out.items()]


def kind_risk(kind: str, items: list[Hazard]) -> str:
    """The kind's risk from where it sits: excluded places do not count, a lazy hub import or a lone
    DataParallel wrapper is low."""
    live = [h for h in items if not h.excluded and not h.optional]
    if not live:
        return "low"
    if kind == "distributed" and all(h.api in TRIVIAL_DISTRIBUTED for h in live):
        return "low"
    if kind == "inplace_op" and any(h.in_forward for h in live):
        return "medium"
    return KIND_RISK[kind]


def summarize(
    hazards: list[Hazard],
    kb: KnowledgeBase,
    ledger: Ledger,
    index: MappingIndex | None = None,
    examples: dict[int, tuple[str, str]] | None = None,
) -> list[HazardSummary]:
    """One line per kind; its places are priced in the ledger: the first at the KB pitfall's figure
    (or the scan's own), each further place max(1/k, floor) of it. `examples`: a place's own
    before/after by id(hazard) (the Normalize values found), shown instead of the kind's pattern."""
    by_kind: dict[str, list[Hazard]] = defaultdict(list)
    for h in hazards:
        by_kind[h.kind].append(h)
    out = []
    for kind in sorted(by_kind):
        items = by_kind[kind]
        ranked = pitfalls_for(kind, kb)
        p = ranked[0] if ranked else None
        own = patterns.SCAN_ONLY.get(kind)
        if p is not None and p.effort_hours is not None:
            base, basis = _hours(p.effort_hours), _basis(p.id, p.effort_hours)
        elif own is not None:
            base, basis = own.effort, f"scan: {own.effort[0]:g}-{own.effort[1]:g} h ({own.basis})"
        else:
            base = DEFAULT_HAZARD_HOURS
            basis = f"default {base[0]:g}-{base[1]:g} h (assumption; no KB pitfall with effort_hours for {kind})"
        live = [h for h in items if not h.excluded]
        if kind == "distributed" and live and all(h.api in TRIVIAL_DISTRIBUTED for h in live):
            base, basis = (
                TRIVIAL_DISTRIBUTED_HOURS,
                (
                    f"scan: {TRIVIAL_DISTRIBUTED_HOURS[0]:g}-{TRIVIAL_DISTRIBUTED_HOURS[1]:g} h "
                    "(only a DataParallel wrapper: delete it; assumption)"
                ),
            )
        has_native = any(features.is_native(h.file) for h in items)
        registered = any((h.api or "").startswith(features.REGISTERED) for h in items)
        places = [
            (
                features.feature_of(kind, h.file, h.api, h.message, has_native, registered),
                h.file,
                h.role,
                h.excluded or h.optional,
            )
            for h in items
        ]
        distinct = len({p[0] for p in places if p[0] != features.GLUE})
        basis += (
            f"; per distinct feature ({distinct}: {_feature_words(kind)}) once, each further place "
            f"{PLACE_INCREMENT:g} of it, at most {SATURATION:g} of it in all"
        )
        name = f"hazard {kind}"
        if any(h.optional for h in items):
            basis += (
                "; places on an optional path (a lazy import, an availability guard, a try/except import, an "
                "opt-in extension: the code has a path without them) are priced apart, like excluded files"
            )
        own = {f: hours for f, hours, _ in _own_figures(kind, items)}
        for f, hours, why in _own_figures(kind, items):
            basis += f"; {f}: {hours[0]:g}-{hours[1]:g} h ({why})"
        ledger.features(name, "hazard", base, places, basis, glue=features.GLUE, bases=own)
        out.append(
            HazardSummary(
                kind=kind,
                count=len(items),
                files=len({h.file for h in items}),
                risk=kind_risk(kind, items),
                pitfall=p.id if p is not None else None,
                also=[q.id for q in ranked[1:]],
                title=p.title if p is not None else (own.title if own else ""),
                fix=fix_for(kind, p),
                effort_hours=ledger.item_hours(name),
                effort_basis=basis,
                excluded=sum(1 for h in items if h.excluded),
                optional=sum(1 for h in items if h.optional and not h.excluded),
                example=_example(kind, items, index, examples),
            )
        )
    out.sort(key=lambda s: (-ORDER[s.risk], s.kind))
    return out


TOTAL_BASIS = (
    "items: the code to port (per line, by role), module classes, each API (its KB figure for the first use, "
    "diminishing per repeat), each hazard kind (its KB pitfall figure for the first place, diminishing per place) "
    "and third-party libraries; low = sum of the lows; high = low + root-sum-square of the item ranges "
    "(effort_worst_case_hours is the plain sum of the highs); effort_breakdown has every item, file, package and role"
)


def _hard_missing(api: ApiUse) -> bool:
    """No equivalent AND real work to replace it. A 'none' costing at most an hour is one to drop
    (optimizer.zero_grad: gradients are functional in MindSpore); one folded into a hazard is
    judged with that hazard."""
    return api.mapping == "none" and api.count > api.excluded_uses and api.effort_hours[1] > 1.0


NOTHING_FOUND = "no PyTorch code found: nothing to migrate"
ALREADY_MINDSPORE = "already MindSpore code ({n} file(s) are MindSpore code, a bridge on it or MindSpore kernels; no PyTorch code to port): nothing to migrate"
# Effort is a size, not a blocker: a big port is at most medium risk (it has a route).
MEDIUM_HOURS = 160.0  # one person-month (assumption: 4 weeks x 40 h)
RISK_RULE = (
    "risk = the worst of: hazard kinds by KIND_RISK in included code (high only for custom CUDA/C++ operators and "
    "features with no MindSpore equivalent; medium for Graph-mode rewrites, data-dependent shapes, DDP-style "
    "distributed code, hooks, non-optional hub models; low for renames and settings; a lone DataParallel wrapper or "
    "a lazy hub import is low); APIs with no equivalent costing over 1 h (medium); third-party libraries the code "
    "needs with no MindSpore counterpart (medium); third-party libraries the scan does not know, imported by included code "
    f"(medium: not understood); effort above {MEDIUM_HOURS:g} h (medium: big, but it has a "
    "route); files that do not parse (medium). Tests, examples, tools and --exclude files never raise it."
)


def judge_risk(
    summary: list[HazardSummary],
    apis: list[ApiUse],
    unmapped: list[UnmappedApi],
    effort: tuple[float, float],
    unparsed: int,
    dependencies: list[Dependency] | None = None,
    unknown: list[UnknownLibrary] | None = None,
) -> tuple[str, list[str]]:
    """Risk by RISK_RULE. Returns the level and its reasons, worst first."""
    reasons: list[tuple[str, str]] = []
    for s in summary:
        if s.risk != "low":
            live = s.count - s.excluded - s.optional
            apart = f" ({s.optional} more on optional paths, priced apart)" if s.optional else ""
            reasons.append((s.risk, f"{s.kind}: {live} place(s) in {s.files} file(s){apart}"))
    missing = [a.name for a in apis if _hard_missing(a)]
    if missing:
        reasons.append(("medium", f"{len(missing)} API(s) with no MindSpore equivalent: {', '.join(missing[:5])}"))
    blocked = [d.name for d in dependencies or [] if d.mapping == "none" and not d.optional and not d.excluded]
    if blocked:
        reasons.append(("medium", f"third-party libraries with no MindSpore counterpart: {', '.join(blocked[:6])}"))
    not_understood = [u for u in unknown or [] if not u.optional and not u.excluded]
    if not_understood:
        names = ", ".join(f"{u.name} ({u.files} file(s))" for u in not_understood[:6])
        more = f" and {len(not_understood) - 6} more" if len(not_understood) > 6 else ""
        reasons.append(
            (
                "medium",
                f"not understood: {len(not_understood)} third-party libraries the scan has no knowledge of, not in the estimate: {names}{more}",
            )
        )
    if effort[1] > MEDIUM_HOURS:
        reasons.append(("medium", f"up to {effort[1]:.0f} h of work (more than a person-month)"))
    if unparsed:
        reasons.append(("medium", f"{unparsed} Python file(s) could not be parsed and were not estimated"))
    distinct = len(apis) + len(unmapped)
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
    "stay on PyTorch via torch_npu": "stay on PyTorch via torch_npu: keep the code and run it on Ascend through the torch_npu plugin (seed 002, 3.5); custom CUDA kernels still need Ascend kernels",
}
NOTHING_ROUTE = "nothing to migrate"

# Beyond this much work (high end) a port is a project of its own: keep PyTorch and use torch_npu.
TORCH_NPU_HOURS = 1600.0  # about a person-year (assumption: 40 weeks x 40 h)
MANUAL_HOURS = 80.0  # up to two person-weeks a hand port is the simplest route (seed 002 6.3: small models by hand)
ADAPTER_COVERAGE = 0.9  # share of distinct APIs the adapter runs as is before it is worth trying


@dataclass
class Picture:
    """What the route is chosen from."""

    summary: list[HazardSummary]
    apis: list[ApiUse]
    unmapped: list[UnmappedApi]
    effort: tuple[float, float] = (0.0, 0.0)
    training: bool = True  # a training loop in the included code
    deployment: bool = False  # export/serving code in the included code
    framework: str = "pytorch"
    mindspore_files: int = 0
    dependencies: list[Dependency] = field(default_factory=list)


def _live_kinds(summary: list[HazardSummary]) -> set[str]:
    """Kinds with places the port must carry (not excluded, not on an optional path)."""
    return {
        s.kind
        for s in summary
        if s.count > s.excluded + s.optional and (s.risk != "low" or s.kind in ("custom_extension", "no_equivalent"))
    }


def adapter_coverage(apis: list[ApiUse], unmapped: list[UnmappedApi]) -> float:
    used = [a for a in apis if a.count > a.excluded_uses]
    total = len(used) + len([u for u in unmapped if u.count > u.excluded_uses])
    return sum(1 for a in used if a.adapter) / total if total else 0.0


def choose_route(pic: Picture) -> tuple[str, str, list[str]]:
    """The whole picture: nothing to port; an inference-only model goes through ONNX; a port bigger than
    TORCH_NPU_HOURS, or custom kernels plus features with no equivalent, stays on PyTorch via torch_npu;
    a mid-size port whose APIs the adapter covers goes through MSAdapter/MindTorch; else by hand."""
    kinds = _live_kinds(pic.summary)
    distinct = len(pic.apis) + len(pic.unmapped)
    high = pic.effort[1]
    coverage = adapter_coverage(pic.apis, pic.unmapped)
    if pic.framework == "mindspore" or (not distinct and not kinds):
        why = ALREADY_MINDSPORE.format(n=pic.mindspore_files) if pic.framework == "mindspore" else NOTHING_FOUND
        return NOTHING_ROUTE, why, []
    blockers = kinds & {"custom_extension", "no_equivalent"}
    if high > TORCH_NPU_HOURS or blockers == {"custom_extension", "no_equivalent"}:
        route = "stay on PyTorch via torch_npu"
        why = (
            f"up to {high:.0f} h to port (more than ~{TORCH_NPU_HOURS:g} h, a person-year)"
            if high > TORCH_NPU_HOURS
            else "custom CUDA operators and features with no MindSpore equivalent"
        )
        why += ": keeping the PyTorch code on Ascend costs far less than a rewrite"
    elif not pic.training and not blockers and "tensor_control_flow" not in kinds:
        route = "ONNX -> MindIR conversion"
        why = (
            "inference only (no training loop in the included code)"
            + (", with export code already" if pic.deployment else "")
            + ": export the model to ONNX and convert it to MindIR for Ascend; no training code has to move"
        )
    elif blockers:
        route = "manual rewrite"
        why = "custom C++/CUDA operators or features with no equivalent neither export to ONNX nor run under the adapter: rewrite them (ops.Custom / a redesign) with the code around them"
    elif high > MANUAL_HOURS and coverage >= ADAPTER_COVERAGE:
        route = "adapter layer"
        why = (
            f"up to {high:.0f} h by hand, and {coverage:.0%} of the distinct APIs are ones the adapter runs "
            "(mapped, not marked unsupported): validate on MindSpore through MSAdapter/MindTorch first, then rewrite the hot spots"
        )
    elif high <= MANUAL_HOURS:
        route = "manual rewrite"
        why = f"up to {high:.0f} h, a small port: seed 002 advises small models be rewritten by hand"
    else:
        route = "manual rewrite"
        why = (
            f"up to {high:.0f} h and only {coverage:.0%} of the distinct APIs are on the adapter's list "
            f"(it needs {ADAPTER_COVERAGE:.0%}): port by hand, module by module"
        )
    alternatives = [text for name, text in ROUTE_TEXT.items() if name != route]
    return route, f"{ROUTE_TEXT[route]}. Why here: {why}.", alternatives
