"""Reviewed equivalent mutants: changes no test can kill because the code behaves the same with them.

Each entry names the mutant by its file, function, operator and text (not its position, which moves when
the file is edited), and by the source line it is on where the same text occurs elsewhere in the function,
and says why no behaviour changes. Listed mutants are counted apart, as
"equivalent", never as killed; one that stops matching (the code changed) is simply judged again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from mutation.operators import Mutant

EQUIVALENT = "equivalent"


@dataclass(frozen=True)
class Equivalent:
    path: str
    function: str
    operator: str
    before: str
    after: str
    why: str
    line: str = ""
    """the source line the change is on, stripped (empty: any line of the function)"""


REVIEWED: tuple[Equivalent, ...] = (
    Equivalent(
        "probes/training/stats.py",
        "noise_warnings",
        "constant",
        "0",
        "1",
        'summary.get("n", 0) -> summary.get("n", 1): a summary without a count reads 0 or 1 samples, both '
        "below the 3 the warnings need: no warning either way",
        line='if summary.get("n", 0) >= 3:',
    ),
    Equivalent(
        "advisor/render/_fmt.py",
        "num",
        "constant",
        "10",
        "11",
        "10 ** digits -> 11 ** digits: a magnitude in [10^d, 11^d) has at least d + 1 integer digits, so the "
        "other branch gives max(0, d - (d + 1)) = 0 decimals: the same ',.0f' text",
    ),
    Equivalent(
        "advisor/cache.py",
        "_save",
        "constant",
        "1",
        "2",
        "the indentation of a cache file (the result or its run index): both are only ever read back as JSON",
    ),
    Equivalent(
        "advisor/output.py",
        "_umask",
        "constant",
        "18",
        "19",
        "the umask set for an instant to read it (0o022 -> 0o023) is restored on the next line and the value "
        "read is the old one; reached only without /proc, and no file is created in between",
    ),
    Equivalent(
        "advisor/decision/throughput.py",
        "reference_mfu",
        "arguments",
        "Shape(ref.layers or 1, ref.hidden or 1, 1, ref.sequence or 1, 0, [])",
        "Shape(ref.hidden or 1, ref.layers or 1, 1, ref.sequence or 1, 0, [])",
        "layers and hidden swapped in the shape of a published reference: the only use is the FLOPs per token, "
        "6 N + 12 L s h, where L and h appear only as their product",
    ),
    Equivalent(
        "advisor/render/tables/probe.py",
        "_cv",
        "constant",
        "0",
        "1",
        "(run.samples or st.n or 0) < 2 -> (... or 1) < 2: with neither count both read as fewer than 2 samples, "
        "so the CV is '-' either way",
    ),
    Equivalent(
        "probes/training/measure.py",
        "run",
        "arithmetic",
        "k * bs",
        "k / bs",
        "the items per sample given to the stop rule: the rule compares the interval's half-width with a share "
        "of the estimate, both linear in it, so any positive value gives the same answer",
    ),
    Equivalent(
        "probes/training/runner.py",
        "run_load",
        "constant",
        "100",
        "101",
        "the clock-tick rate assumed where os.sysconf is missing: every POSIX system the probes run on has it, "
        "so the fallback is never evaluated",
    ),
    Equivalent(
        "advisor/decision/criteria/compliance.py",
        "compliance_score",
        "constant",
        "1.0",
        "2.0",
        "the fallback denominator when the parts' weights sum to 0: parts is never empty past the early return "
        "(a stated mandate adds its part), and weights that sum to 0 make the numerator 0 too: 0 / 1 = 0 / 2",
        line="den = sum(w for _, w, _ in parts) or 1.0",
    ),
    Equivalent(
        "advisor/decision/criteria/performance.py",
        "schedule_share_score",
        "constant",
        "100.0",
        "200.0",
        "the score when the share is not positive, in the branch where even the best workflow's share is at "
        "least 1: this workflow's share is at least the best one's, so it is positive and the fallback is "
        "never taken",
        line="score = 100 * best / share if share > 0 else 100.0",
    ),
    Equivalent(
        "advisor/decision/throughput.py",
        "reference_mfu",
        "constant",
        "0",
        "1",
        "the vocabulary of a published reference's shape: the only use is train_flops_per_token, 6 N + 12 L s h, "
        "which does not read it",
        line="shape = Shape(ref.layers or 1, ref.hidden or 1, 1, ref.sequence or 1, 0, [])",
    ),
    Equivalent(
        "advisor/decision/criteria/cost.py",
        "cost_scores",
        "boolean",
        "not names or cheapest is None or totals[wf] is None",
        "not names and cheapest is None and (totals[wf] is None)",
        "the three are one condition for a supported workflow: comparable_parts keeps a part only where every "
        "supported workflow has a figure for it, so a total is None exactly when no part is comparable, and "
        "the cheapest is None exactly when every total is",
    ),
    Equivalent(
        "advisor/decision/projections.py",
        "_measured",
        "constant",
        "0.0",
        "1.0",
        "the rate of a measured run without one: _measured is reached only through measured_runs, which keeps "
        "only runs with a positive rate, so the fallback is never read",
        line="ips = float(run.images_per_second or 0.0)",
    ),
    Equivalent(
        "advisor/decision/serving_capacity.py",
        "fewest_devices",
        "constant",
        "1",
        "2",
        "the search's first bracket (0, 1) -> (0, 2): more instances only help, so when one instance meets the "
        "targets the bisection of (0, 2) lands on 1, and when it does not both brackets reach (1, 2) or "
        "double to the same (2, 4): the same count either way",
        line="lo, hi = 0, 1",
    ),
    Equivalent(
        "probes/training/runner.py",
        "_merge_repeats",
        "statement",
        "body.images_per_second = statistics.median_low(values)",
        "pass",
        "the merged run's rate set to the lower median of the repeats: the body is already the copy of "
        "pool[(n - 1) // 2], the pool sorted by that rate, so its own rate is the lower median",
    ),
    Equivalent(
        "advisor/decision/serving_capacity.py",
        "judge",
        "min/max",
        "any((n.code in CANNOT_SERVE for n in notes))",
        "all((n.code in CANNOT_SERVE for n in notes))",
        "the notes of a model that cannot be built (model_for) hold a cannot-serve note only when the "
        "precision has no width, and then it is the only note; otherwise none of them is one: any and all "
        "agree on a list of one, and on a list with none (never empty: a missing memory figure adds its note)",
    ),
    Equivalent(
        "probes/training/measure.py",
        "run",
        "constant",
        "1e-06",
        "2e-06",
        "the width of the float guard in ceil(target / step - 1e-6), which keeps a ratio that lands a hair "
        "above a whole number from asking one step more: the two widths differ only for a ratio within 1e-6 "
        "to 2e-6 above a whole number, where a sample of k or k + 1 steps meets its target time alike",
        line="k = max(1, math.ceil(plan.sample_target_s / max(est_s, 1e-9) - 1e-6))",
    ),
    Equivalent(
        "probes/training/measure.py",
        "run",
        "arguments",
        "stats.converged(sample_ms, sample_s, k * bs, plan.t_crit, plan.min_samples)",
        "stats.converged(sample_s, sample_ms, k * bs, plan.t_crit, plan.min_samples)",
        "each sample's milliseconds per step are its seconds x 1e3 / k, with k fixed within a run: the stop "
        "rule reads only the coefficient of variation and the interval's half-width relative to its "
        "estimate, both unchanged by scaling every sample alike",
    ),
    Equivalent(
        "advisor/output.py",
        "_not_an_input",
        "arguments",
        "same_file(path, given)",
        "same_file(given, path)",
        "same_file is os.path.samefile, symmetric in its arguments (one inode either way round)",
    ),
)


def equivalent_why(mutant: Mutant, root: Optional[Path] = None) -> Optional[str]:
    """The reviewed reason this mutant cannot change behaviour, or None. An entry that names its source
    line matches only on that line, read under `root` (without a root it does not match)."""
    for e in REVIEWED:
        if (e.path, e.function, e.operator, e.before, e.after) != (
            mutant.path,
            mutant.function,
            mutant.operator,
            mutant.before,
            mutant.after,
        ):
            continue
        if e.line and (root is None or _source_line(root, mutant) != e.line):
            continue
        return e.why
    return None


def _source_line(root: Path, mutant: Mutant) -> str:
    lines = (root / mutant.path).read_text(encoding="utf-8").splitlines()
    return lines[mutant.line - 1].strip() if 0 < mutant.line <= len(lines) else ""
