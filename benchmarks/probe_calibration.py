"""Calibration: a probe at the default budget and one 4x longer agree within 10% on the median
step time (PyTorch eager and MindSpore graph, LeNet and optionally ResNet-18).

Run by hand: `.venv/bin/python benchmarks/probe_calibration.py [--models lenet,resnet18]`.
"""

from __future__ import annotations

import argparse
import os
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
    args = ap.parse_args()
    models = args.models.split(",")
    results = {}
    for budget in (args.budget, 4 * args.budget):
        cfg = ProbeConfig(models=models, modes=["eager", "graph"], budget=budget,
                          batch_size=args.batch_size, parity=False, gemm=False)
        for run in run_suite(cfg).runs:
            results.setdefault(run.id, {})[budget] = run
    worst = 0.0
    for rid, by_budget in results.items():
        short, long = by_budget[args.budget], by_budget[4 * args.budget]
        if short.status != "ok" or long.status != "ok":
            print(f"{rid}: not comparable ({short.status}/{long.status})")
            continue
        ms, ml = short.step_time_ms.median, long.step_time_ms.median
        diff = abs(ms / ml - 1)
        worst = max(worst, diff)
        print(f"{rid}: median {ms:.3f} ms ({args.budget:g} s, {short.stop_reason}) vs {ml:.3f} ms "
              f"({4 * args.budget:g} s, {long.stop_reason}): {diff:.1%} "
              f"{'PASS' if diff <= 0.10 else 'OUTSIDE 10%'}; img/s {short.images_per_second:.0f} vs "
              f"{long.images_per_second:.0f}")
    print(f"worst median difference {worst:.1%} (bar <= 10%); load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
