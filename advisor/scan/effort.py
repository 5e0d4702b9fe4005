"""Effort that scales with what must be ported: every occurrence (a line of torch code, a module
class, an API call site, a hazard place, a library) costs something, the first of a kind the most,
each repeat less but never nothing. Each occurrence belongs to one file, so the same figures are
totalled per file, per top-level package, per role and per item, each by the total's own rule (lows
add up; ranges by root-sum-square, so no part reads higher than the whole).

The constants are assumptions anchored on the field reports and checked against real projects in
benchmarks/scan_calibration.md.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from advisor.scan.models import EffortBreakdown, EffortItem, EffortShare
from advisor.scan.roles import package_of

# Porting a line of code that uses torch (rename, re-check arguments, run it): "a training script of a
# few hundred lines: half a day if you know both" (seed 004, 3.3) is ~8-13 h per 1,000 lines; a
# team porting many similar files goes faster. Hours per line (low, high). Assumption; round 3 of
# benchmarks/scan_calibration.md moved it from 0.004-0.012 to the anchor's 8 h low end (large projects came
# out 2-3x low; with it 8 of 9 projects overlap the engineer's range).
LINE_HOURS = (0.008, 0.02)
# Tests, examples and tools are simpler to port than the model (they call it). Assumption.
ROLE_FACTOR = {"tests": 0.5, "examples": 0.5, "tools": 0.5}
# Checking each nn.Module -> nn.Cell port against PyTorch (same input, same output): the first takes
# an hour or so, later ones reuse the harness. Hours per module class. Assumption.
MODULE_HOURS = (0.25, 1.0)
# Per-architecture parity verification: each model family (a file whose top-level nn.Module classes no
# other module holds) is checked end to end (same input, same output; with converted weights when the
# project uses pretrained ones). The first sets up the harness; each later one max(1/k, floor) of it.
# Assumption, calibrated in benchmarks/scan_calibration.md: round 3 set it; round 5 doubled the figure with
# converted weights (2-8 -> 4-16 h), the engineers' estimates of six projects with released weights putting
# conversion-and-compare at half a day to two days per architecture (sam2, AnimateDiff, litgpt, whisper,
# yolov5, Mask2Former), where the scan stayed 0.5-0.6x on them.
PARITY_HOURS = {"weights": (4.0, 16.0), "scratch": (1.0, 4.0)}
# Writing the checkpoint converter (parameter names, layouts, BN statistics) once, when the project uses
# pretrained weights; each architecture's name mapping is in its parity figure. Assumption.
WEIGHT_CONVERSION_HOURS = (8.0, 24.0)
# A training program (a file that steps an optimizer and runs as a program) is run once against its
# PyTorch loss curve after the port: optimizer, schedule, loss scaling and data order show there, not in
# output parity. The first sets up the comparison; each later one max(1/k, FLOOR['training_run']) of it.
# Hours per program; assumption (the engineer's "port, run, check it still converges" per tutorial,
# benchmarks/scan_calibration.md round 3).
TRAINING_RUN_HOURS = (1.0, 4.0)
ARCH_MIN_LINES = 50  # a file whose top-level modules are smaller than this is a helper, not an architecture
# A bigger architecture takes longer to check: its figure x max(1, module lines / ARCH_SCALE_LINES), at
# most ARCH_SCALE_MAX times (a 100-line CIFAR net vs a 1,000-line Unet or vision transformer). Assumption.
ARCH_SCALE_LINES = 400
ARCH_SCALE_MAX = 4.0
# Each repeat k (k >= 2) of the same item costs max(1/k, floor) of the first: diminishing, never nothing.
FLOOR = {
    "parity": 0.5,
    "training_run": 0.5,
    "module": 0.25,
    "api": 0.05,
    "hazard": 0.1,
    "custom_extension": 0.5,
    "no_equivalent": 0.5,
    "dependency": 0.0,
}
# Features, not places: an unportable feature (a hazard kind's API, a kernel, a hub library) costs its
# figure once; each further place of the same feature adds PLACE_INCREMENT of it, and all the repeats
# together at most SATURATION of it (the fix is the same pattern everywhere; the edit itself is in the
# line cost). Assumptions, checked on the projects in benchmarks/scan_calibration.md.
PLACE_INCREMENT = 0.05
SATURATION = 1.0
RULE = (
    "every occurrence costs: each line of torch-using code LINE_HOURS {line} h (tests/examples/tools x0.5); each "
    "nn.Module class MODULE_HOURS {module} h; each distinct API its KB figure (or the default); each hazard kind its "
    "KB pitfall figure (or the scan's own); the k-th repeat of the same API, class or hazard costs max(1/k, floor) of "
    "the first (floors: {floors}), so cost keeps growing with the code; each distinct hazard feature and API costs its "
    "figure once and each further place {increment:g} of it, at most {saturation:g} of it in all (features, not places); "
    "'same' APIs cost once (their call sites are "
    "in the line cost). Total: low = sum of the item lows, high = low + root-sum-square of the ranges of independent "
    "items (independent items rarely all hit their high end); the line-cost items share one rate and the module and "
    "parity items one harness, so their ranges add up before the root-sum-square. Per-file, package and role figures follow "
    "the same rule on what they hold (so none reaches past the total). Excluded files (default: tests, examples, tools) are priced apart, not in the total."
)


def weight(k: int, floor: float) -> float:
    """Cost of the k-th occurrence (from 1) relative to the first."""
    return 1.0 if k <= 1 else max(1.0 / k, floor)


@dataclass
class Occurrence:
    item: str  # the item it belongs to ("api torch.nn.Conv2d", "hazard distributed", "port code (model)")
    kind: str  # code | modules | parity | api | hazard | dependency
    file: str
    role: str
    excluded: bool
    low: float
    high: float
    count: int = 1


@dataclass
class FileInfo:
    rel: str
    lines: int
    role: str
    excluded: bool
    torch: bool
    mindspore: bool
    model_lines: int = 0  # lines inside nn.Module classes


class Ledger:
    """Collects occurrences; items in the order they are first seen."""

    def __init__(self) -> None:
        self.occ: list[Occurrence] = []
        self.basis: dict[str, str] = {}

    def add(self, occ: Occurrence, basis: str) -> None:
        self.occ.append(occ)
        self.basis.setdefault(occ.item, basis)

    def series(
        self,
        item: str,
        kind: str,
        base: tuple[float, float],
        places: list[tuple[str, str, bool]],
        floor: float,
        basis: str,
    ) -> None:
        """One item at several places (file, role, excluded): included places first, so what the excluded
        files add is the marginal cost."""
        ordered = sorted(places, key=lambda p: p[2])
        for k, (file, role, excl) in enumerate(ordered, start=1):
            w = weight(k, floor)
            self.add(Occurrence(item, kind, file, role, excl, base[0] * w, base[1] * w), basis)

    def features(
        self,
        item: str,
        kind: str,
        base: tuple[float, float],
        places: list[tuple[str, str, str, bool]],
        basis: str,
        glue: str = "",
        bases: dict[str, tuple[float, float]] | None = None,
    ) -> None:
        """One item whose places (feature, file, role, excluded) belong to distinct features: each feature's
        first place in full, each further place PLACE_INCREMENT of it until the repeats reach SATURATION.
        Places of the `glue` feature (build lines, calls of a kernel priced in its source) are repeats only.
        `bases`: features whose figure is their own, not `base`."""
        ordered = sorted(places, key=lambda p: p[3])
        spent: dict[str, float] = {}
        for feature, file, role, excl in ordered:
            lo, hi = (bases or {}).get(feature, base)
            if feature not in spent and feature != glue:
                spent[feature] = 0.0
                w = 1.0
            else:
                used = spent.get(feature, 0.0)
                w = min(PLACE_INCREMENT, max(0.0, SATURATION - used))
                spent[feature] = used + w
            self.add(Occurrence(item, kind, file, role, excl, lo * w, hi * w), basis)

    def item_hours(self, item: str, excluded: bool = False) -> tuple[float, float]:
        lo = sum(o.low for o in self.occ if o.item == item and o.excluded == excluded)
        hi = sum(o.high for o in self.occ if o.item == item and o.excluded == excluded)
        return (round(lo, 2), round(hi, 2))


def code_lines(ledger: Ledger, files: list[FileInfo]) -> None:
    for f in files:
        if not f.torch:
            continue  # no torch in it: moved as is
        factor = ROLE_FACTOR.get(f.role, 1.0)
        parts = [("model", f.model_lines, 1.0), (f.role, f.lines - f.model_lines, factor)]
        if f.role in ROLE_FACTOR:  # a test's helper Cell is still a test
            parts = [(f.role, f.lines, factor)]
        for role, n, fac in parts:
            if n > 0:
                ledger.add(
                    Occurrence(
                        f"port code ({role})",
                        "code",
                        f.rel,
                        role,
                        f.excluded,
                        n * LINE_HOURS[0] * fac,
                        n * LINE_HOURS[1] * fac,
                        n,
                    ),
                    f"{n} line(s) x {LINE_HOURS[0]:g}-{LINE_HOURS[1]:g} h per line"
                    + (f" x{fac:g}" if fac != 1 else "")
                    + " (assumption anchored on seed 004 3.3)",
                )


def _round(pair: tuple[float, float]) -> tuple[float, float]:
    return (round(pair[0], 2), round(pair[1], 2))


def _shares(occ: list[Occurrence], key, files: dict[str, FileInfo], role_key: bool = False) -> list[EffortShare]:
    """Hours per file, package or role by the total's own rule: the sum of the lows, plus the
    root-sum-square of the ranges of what it holds grouped as the total groups them (so no row's range
    reaches past the total's)."""
    lows: dict[str, float] = defaultdict(float)
    ranges: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    members: dict[str, set[str]] = defaultdict(set)
    lines: dict[str, int] = defaultdict(int)
    for o in occ:
        k = key(o)
        lows[k] += o.low
        ranges[k][CORRELATED.get(o.kind, o.item)] += o.high - o.low
        members[k].add(o.file)
        if o.kind == "code":
            lines[k] += o.count
    out = []
    for k, lo in lows.items():
        fs = members[k]
        hi = lo + sum(r * r for r in ranges[k].values()) ** 0.5
        out.append(
            EffortShare(
                name=k,
                role=k.replace(" (excluded)", "") if role_key else (files[k].role if k in files else None),
                files=len(fs),
                lines=lines[k],
                effort_hours=_round((lo, hi)),
                excluded=all(files[f].excluded for f in fs if f in files) if fs else False,
            )
        )
    out.sort(key=lambda s: (-s.effort_hours[1], s.name))
    return out


# Items whose uncertainty is one shared figure (the team's line rate; the module and parity harness):
# their ranges add linearly inside the group; groups and the other items are independent (root-sum-square).
CORRELATED = {"code": "line rate", "modules": "harness", "parity": "harness"}


def _spread(items: list[EffortItem]) -> float:
    groups: dict[str, float] = defaultdict(float)
    for i in items:
        groups[CORRELATED.get(i.kind, i.item)] += i.effort_hours[1] - i.effort_hours[0]
    return sum(r * r for r in groups.values()) ** 0.5


def breakdown(
    ledger: Ledger, files: list[FileInfo], exclude: list[str]
) -> tuple[EffortBreakdown, tuple[float, float], float]:
    """The breakdown, the total [low, high] of the included occurrences and its worst case."""
    by_file = {f.rel: f for f in files}
    included = [o for o in ledger.occ if not o.excluded]
    excluded_occ = [o for o in ledger.occ if o.excluded]
    items: list[EffortItem] = []
    seen: dict[str, list] = {}
    for o in included:
        if o.item not in seen:
            seen[o.item] = [o.kind, 0, 0.0, 0.0]
        entry = seen[o.item]
        entry[1] += o.count
        entry[2] += o.low
        entry[3] += o.high
    for name, (kind, count, lo, hi) in seen.items():
        items.append(
            EffortItem(item=name, kind=kind, count=count, effort_hours=_round((lo, hi)), basis=ledger.basis[name])
        )
    items.sort(key=lambda i: (-i.effort_hours[1], i.item))
    low = sum(i.effort_hours[0] for i in items)
    spread = _spread(items)
    worst = sum(i.effort_hours[1] for i in items)
    ex_lo = sum(o.low for o in excluded_occ)
    ex_hi = sum(o.high for o in excluded_occ)
    result = EffortBreakdown(
        rule=RULE.format(
            line=f"{LINE_HOURS[0]:g}-{LINE_HOURS[1]:g}",
            module=f"{MODULE_HOURS[0]:g}-{MODULE_HOURS[1]:g}",
            floors=", ".join(f"{k} {v:g}" for k, v in FLOOR.items() if v),
            increment=PLACE_INCREMENT,
            saturation=SATURATION,
        ),
        exclude=list(exclude),
        included_files=sum(1 for f in files if not f.excluded),
        excluded_files=sum(1 for f in files if f.excluded),
        excluded_hours=_round((ex_lo, ex_hi)),
        items=items,
        by_role=_shares(ledger.occ, lambda o: o.role + (" (excluded)" if o.excluded else ""), by_file, role_key=True),
        by_package=_shares(ledger.occ, lambda o: package_of(o.file), by_file),
        by_file=_shares(ledger.occ, lambda o: o.file, by_file),
    )
    total = _round((low, low + spread))
    for share in result.by_role:
        share.excluded = share.name.endswith(" (excluded)")
    for share in [*result.by_role, *result.by_package, *result.by_file]:
        if not share.excluded and share.effort_hours[1] > total[1]:
            # a part holding (nearly) everything: the total sums rounded items, the part raw occurrences
            share.effort_hours = (share.effort_hours[0], total[1])
    return result, total, round(worst, 2)
