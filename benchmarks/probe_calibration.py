"""Calibration: a probe at the default budget and one 4x longer agree within 10% on the median
step time (PyTorch eager and MindSpore graph, LeNet and optionally ResNet-18).

Run by hand: `.venv/bin/python benchmarks/probe_calibration.py [--models lenet,resnet18] [--repeat 3]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from probes.probe_models import ProbeConfig  # noqa: E402
from probes.runner import run_suite  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="lenet")
    ap.add_argument("--budget", type=float, default=ProbeConfig().budget)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3,
                    help="interleaved short/long pairs; medians of the per-run medians are compared, "
                         "since one pair mostly measures this host's run-to-run noise")
    args = ap.parse_args()
    models = args.models.split(",")
    budgets = (args.budget, 4 * args.budget)
    medians: dict = {}  # run id -> budget -> [median step ms per run]
    for rep in range(args.repeat):
        for budget in budgets:
            cfg = ProbeConfig(models=models, modes=["eager", "graph"], budget=budget,
                              batch_size=args.batch_size, parity=False, gemm=False)
            for run in run_suite(cfg).runs:
                if run.status == "ok":
                    medians.setdefault(run.id, {}).setdefault(budget, []).append(run.step_time_ms.median)
                else:
                    print(f"{run.id} ({budget:g} s): {run.status}: {run.error}")
        print(f"pair {rep + 1} of {args.repeat} done", flush=True)
    worst = 0.0
    for rid, by_budget in medians.items():
        short, long = by_budget.get(budgets[0], []), by_budget.get(budgets[1], [])
        if not short or not long:
            print(f"{rid}: not comparable")
            continue
        ms, ml = statistics.median(short), statistics.median(long)
        diff = abs(ms / ml - 1)
        worst = max(worst, diff)
        spread = lambda v: f"{min(v):.2f}-{max(v):.2f}"  # noqa: E731
        print(f"{rid}: median step {ms:.3f} ms ({budgets[0]:g} s runs: {spread(short)}) vs {ml:.3f} ms "
              f"({budgets[1]:g} s runs: {spread(long)}), n={len(short)}/{len(long)}: {diff:.1%} "
              f"{'PASS' if diff <= 0.10 else 'OUTSIDE 10%'}")
    print(f"worst median difference {worst:.1%} (bar <= 10%); load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
