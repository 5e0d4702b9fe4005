"""Calibration: does the default probe budget give the same throughput as a 4x longer one?

For each run (PyTorch eager and MindSpore graph on LeNet by default), pairs of probes are measured
in alternation in fresh processes: default budget, 4x budget, default, 4x, ... The ratio
(default / 4x) is the geometric mean over the pairs with its 95% t interval (probes.quality's paired
ratio), next to the min-max of the single pairs and each side's quality. Goal: within 5% on a quiet
host; on a loaded one an honest UNSTABLE verdict, never a confident wrong number.

    .venv/bin/python benchmarks/budget_calibration.py [--budget 6] [--pairs 3] [--models lenet]
                                               [--modes eager,graph] [--burn N]

--burn N runs N CPU burners (`while True: pass` processes) alongside: the loaded-host mode.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from probes import quality  # noqa: E402
from probes.training.models import ProbeConfig  # noqa: E402
from probes.training.runner import run_suite, usable_cores  # noqa: E402

TOLERANCE = 0.05  # the goal: default and 4x budget within 5% on a quiet host


def verdict(ratio, low, high, usable_pairs: int, pairs: int) -> str:
    """PASS / OUTSIDE 5% only when the interval is narrow enough to tell; else UNSTABLE."""
    if ratio is None or low is None or usable_pairs < quality.MIN_PAIRS:
        return f"UNSTABLE here ({usable_pairs} of {pairs} pairs usable: no interval)"
    if (high - low) / 2 / ratio > TOLERANCE:
        return f"UNSTABLE here (ratio CI half-width {(high - low) / 2 / ratio:.0%} > {TOLERANCE:.0%})"
    if low >= 1 - TOLERANCE and high <= 1 + TOLERANCE:
        return "PASS (CI within 5%)"
    if abs(ratio - 1) <= TOLERANCE:
        return "PASS (ratio within 5%, CI reaches past it)"
    return f"OUTSIDE 5% (ratio {ratio:.3f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="lenet")
    ap.add_argument("--modes", default="eager,graph")
    ap.add_argument("--budget", type=float, default=ProbeConfig().budget, help="the default budget (s)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--pairs", type=int, default=3, help="interleaved (default, 4x) pairs")
    ap.add_argument(
        "--threads",
        type=int,
        default=usable_cores(),
        help="fixed, so both sides of a pair use the same (default: usable cores)",
    )
    ap.add_argument("--burn", type=int, default=0, help="CPU burner processes alongside (loaded host)")
    args = ap.parse_args()
    budgets = (args.budget, 4 * args.budget)
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL) for _ in range(args.burn)
    ]
    results: dict = {}  # run id -> [(run at default, run at 4x)]
    load_start = os.getloadavg()[0]
    t0 = time.monotonic()
    try:
        for p in range(args.pairs):
            got = {}
            for budget in budgets:
                cfg = ProbeConfig(
                    models=args.models.split(","),
                    modes=args.modes.split(","),
                    budget=budget,
                    batch_size=args.batch_size,
                    threads=args.threads,
                    parity=False,
                    gemm=False,
                    repeat=1,
                    max_repeat=None,
                )
                for run in run_suite(cfg).runs:
                    got.setdefault(run.id, []).append(run)
            for rid, (short, long) in got.items():
                results.setdefault(rid, []).append((short, long))
            print(f"pair {p + 1} of {args.pairs} done ({time.monotonic() - t0:.0f} s)", flush=True)
    finally:
        for b in burners:
            b.kill()
        for b in burners:
            b.wait()
    print(
        f"\nbudget {budgets[0]:g} s vs {budgets[1]:g} s, {args.threads} thread(s), batch {args.batch_size}, "
        f"{args.burn} burner(s); load average {load_start:.2f} at the start, "
        f"{os.getloadavg()[0]:.2f} at the end, {os.cpu_count()} CPUs"
    )
    for rid, pairs in results.items():
        ok = [(s, long) for s, long in pairs if s.status == "ok" and long.status == "ok"]
        for r in (r for pair in pairs for r in pair if r.status != "ok"):
            print(f"{rid} ({r.settings.get('budget', '?')} s): {r.status}: {(r.error or '')[:200]}")
        usable = [
            (s.images_per_second, long.images_per_second)
            for s, long in ok
            if "unusable" not in (s.quality, long.quality)
        ]
        single = [s.images_per_second / long.images_per_second for s, long in ok]
        got = quality.paired_ratio(usable)
        ratio, low, high = got if got else (None, None, None)
        qual = ", ".join(f"{s.quality}/{long.quality}" for s, long in ok) or "no finished pair"
        spread = f"{min(single):.3f}-{max(single):.3f}" if single else "-"
        ci = f"{low:.3f}-{high:.3f}" if low is not None else "-"
        shown = f"{ratio:.3f}" if ratio is not None else "-"
        print(
            f"{rid}: ratio default/4x {shown} (95% CI {ci}, {len(usable)} usable of {len(pairs)} pairs); "
            f"single pairs {spread}; quality per pair (default/4x): {qual}"
        )
        print(f"    -> {verdict(ratio, low, high, len(usable), len(pairs))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
