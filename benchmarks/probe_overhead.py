"""Harness overhead: the probe's PyTorch eager LeNet images/s against a bare hand-written loop of
the same network, data and optimizer, in the same script run. Goal: probe >= 0.98 x bare.

Both run in fresh child processes (the probe always does), interleaved B P B P B P; the paired
ratio is printed with its 95% CI, the per-pair spread and whether it is stable (pair_summary, which
gpt_probe_overhead.py and ms_probe_overhead.py share). Run by hand:
`.venv/bin/python benchmarks/probe_overhead.py [--repeat 3]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from probes.quality import paired_ratio  # noqa: E402
from probes.training.models import ProbeConfig  # noqa: E402
from probes.training.runner import run_suite, usable_cores  # noqa: E402

BARE = r"""
import json, sys, time, torch
from probes.training import data, torch_nets
bs, seconds, threads = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(threads)
net = torch_nets.build("lenet"); opt = torch_nets.make_optimizer(net)
b = data.synthetic("lenet", bs)
xs = [torch.from_numpy(b.images[i]) for i in range(len(b))]
ys = [torch.from_numpy(b.labels[i].astype("int64")) for i in range(len(b))]
loss_fn = torch.nn.CrossEntropyLoss()
def step(i):
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(net(xs[i % 8]), ys[i % 8]); loss.backward(); opt.step(); return loss
for i in range(30):
    step(i)
n, t0 = 0, time.perf_counter()
while time.perf_counter() - t0 < seconds:
    for _ in range(20):
        loss = step(n); n += 1
float(loss)
dt = time.perf_counter() - t0
print(json.dumps({"images_per_second": n * bs / dt, "steps": n}))
"""


# A ratio is "stable" when its 95% CI half-width is at most 5% of it (probes.quality's bound for a
# paired comparison); it decides the goal only when the whole CI is on one side.
STABLE_HALF_WIDTH = 0.05


def pair_summary(bare_vals: list[float], probe_vals: list[float], goal: float) -> str:
    """probe/bare over interleaved pairs: geometric-mean ratio, its 95% CI, the per-pair spread, whether
    it is stable, and the verdict against the goal (never decided by a CI that crosses it)."""
    pairs = list(zip(probe_vals, bare_vals))
    got = paired_ratio(pairs)
    if got is None:
        return "no usable pair"
    ratio, low, high = got
    each = [p / b for p, b in pairs if p > 0 and b > 0]
    text = f"ratio {ratio:.3f}"
    if low is None or high is None:
        return text + f" (one pair: no spread; goal >= {goal:g} not decided)"
    stable = (high - low) / 2 <= STABLE_HALF_WIDTH * ratio
    if low >= goal:
        verdict = "PASS"
    elif high < goal:
        verdict = f"BELOW the {goal:g} goal"
    else:
        verdict = f"not decided (the CI crosses {goal:g})"
    return (
        f"{text} (95% CI {low:.3f}-{high:.3f}; pairs {min(each):.3f}-{max(each):.3f}; "
        f"{'stable' if stable else 'noisy'}): {verdict}"
    )


def bare(bs: int, seconds: float, threads: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": str(threads)}
    env.pop("ONEDNN_MAX_CPU_ISA", None)
    out = subprocess.run(
        [sys.executable, "-c", BARE, str(bs), str(seconds), str(threads)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])["images_per_second"]


def probe(bs: int, seconds: float, threads: int) -> float:
    cfg = ProbeConfig(
        frameworks=["pytorch"],
        models=["lenet"],
        modes=["eager"],
        batch_size=bs,
        budget=seconds,
        parity=False,
        gemm=False,
        threads=threads,
    )
    (run,) = run_suite(cfg).runs
    if run.status != "ok":
        raise SystemExit(f"probe failed: {run.error}")
    return run.images_per_second


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--threads", type=int, default=None, help="default: usable cores")
    args = ap.parse_args()
    threads = args.threads or usable_cores()
    b_vals, p_vals = [], []
    for i in range(args.repeat):
        b_vals.append(bare(args.batch_size, args.seconds, threads))
        p_vals.append(probe(args.batch_size, args.seconds, threads))
        print(f"repeat {i + 1}: bare {b_vals[-1]:.0f} img/s, probe {p_vals[-1]:.0f} img/s", flush=True)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(
        f"torch eager LeNet bs{args.batch_size}, {threads} threads: bare median "
        f"{statistics.median(b_vals):.0f} img/s, probe median {statistics.median(p_vals):.0f} img/s, "
        f"{pair_summary(b_vals, p_vals, 0.98)}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
