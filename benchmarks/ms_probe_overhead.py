"""Harness overhead of the MindSpore CNN probe: the probe's Graph-mode LeNet images/s against a
bare hand-written `nn.TrainOneStepCell` loop of the same network, weights, batches and optimizer,
with the same oneDNN cap, in the same script run (benchmarks/probe_overhead.py covers PyTorch
eager). Interleaved pairs B P B P; the paired ratio is printed with its CI,
spread and grade (probe_overhead.pair_summary). Goal: >= 0.98.

Run by hand: `.venv/bin/python benchmarks/ms_probe_overhead.py [--repeat 2] [--mode graph|pynative]
[--inproc N]`; --inproc N adds N alternating short windows in ONE child: the probe's measurement
loop (probes.training.measure.run) against the bare loop over the same TrainOneStepCell.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from probe_overhead import pair_summary  # noqa: E402  (benchmarks/ is the script's directory)
from probes.training import runner as training  # noqa: E402
from probes.training.models import ProbeConfig  # noqa: E402

BARE = r"""
import json, sys, time
mode, bs, seconds, threads, n_batches = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
import mindspore as ms
from mindspore import nn
from probes.training import data, ms_nets
ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
ms.set_device("CPU")
ms.device_context.cpu.op_tuning.threads_num(threads)
if mode == "pynative":
    ms.runtime.launch_blocking()
net = ms_nets.build("lenet")
train = nn.TrainOneStepCell(nn.WithLossCell(net, ms_nets.loss_fn()), ms_nets.make_optimizer(net))
train.set_train(True)
b = data.synthetic("lenet", bs, n_batches)
xs = [(ms.Tensor(b.images[j]), ms.Tensor(b.labels[j])) for j in range(len(b))]
for i in range(30):
    loss = train(*xs[i % len(xs)])
float(loss.asnumpy())


def bare_window(seconds):
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(20):
            loss = train(*xs[n % len(xs)]); n += 1
        float(loss.asnumpy())
    return n * bs / (time.perf_counter() - t0)


if len(sys.argv) == 6:
    print(json.dumps({"images_per_second": bare_window(seconds)}))
else:  # in-process: the probe's measurement loop (probes.training.measure) against the bare loop,
    # the same TrainOneStepCell, alternating short windows (B P, P B, ...)
    import os
    from probes.training import common, measure
    devnull = os.open(os.devnull, os.O_WRONLY)
    def progress(p):  # what probes.channel.progress costs: one JSON line on a pipe
        os.write(devnull, (json.dumps({"kind": "progress", **p}) + "\n").encode())
    def probe_window(seconds):
        plan = measure.Plan(budget_s=seconds, batch_size=bs, t_crit=2.0, snapshot=common.cpu_snapshot)
        step = lambda i: train(*xs[i % len(xs)])
        return measure.run(step, lambda loss: float(loss.asnumpy()), plan, on_progress=progress)["images_per_second"]
    pairs = []
    for r in range(int(sys.argv[6])):
        if r % 2:
            p = probe_window(seconds); b = bare_window(seconds)
        else:
            b = bare_window(seconds); p = probe_window(seconds)
        pairs.append([b, p])
    print(json.dumps({"pairs": pairs}))
"""


def bare(
    mode: str, bs: int, seconds: float, threads: int, n_batches: int, env_extra: dict, script: str, inproc: int = 0
) -> Any:
    """images/s of the bare loop in a fresh child; with `inproc` rounds, that child's [bare, probe-loop]
    pairs instead."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": str(threads), "GLOG_v": "3"}
    env.pop("ONEDNN_MAX_CPU_ISA", None)
    env.update({k: v for k, v in env_extra.items() if v is not None})
    with tempfile.TemporaryDirectory() as cwd:
        out = subprocess.run(
            [sys.executable, script, mode, str(bs), str(seconds), str(threads), str(n_batches),
             *([str(inproc)] if inproc else [])],
            env=env, capture_output=True, text=True, timeout=600, check=False, cwd=cwd,
        )  # fmt: skip
    if out.returncode:
        raise SystemExit(f"bare MindSpore {mode} failed: {out.stderr[-800:]}")
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    return doc["pairs"] if inproc else doc["images_per_second"]


def probe(mode: str, bs: int, seconds: float, threads: int) -> float:
    cfg = ProbeConfig(frameworks=["mindspore"], models=["lenet"], modes=[mode], batch_size=bs, budget=seconds,
                      parity=False, gemm=False, threads=threads, repeat=1, max_repeat=1)  # fmt: skip
    (r,) = training.run_suite(cfg).runs
    if r.status != "ok":
        raise SystemExit(f"probe failed: {r.error}")
    return r.images_per_second


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--mode", choices=("graph", "pynative"), default="graph")
    ap.add_argument("--batches", type=int, default=8, help="cycled batches in the bare loop (the probe cycles 8)")
    ap.add_argument("--threads", type=int, default=None, help="default: usable cores")
    ap.add_argument(
        "--inproc",
        type=int,
        default=0,
        metavar="N",
        help="also N alternating windows of the probe's measurement loop against the bare loop in one process",
    )
    args = ap.parse_args()
    threads = args.threads or training.usable_cores()
    host = training.host_summary()
    ms_env, notes = training.mindspore_env(host.avx512, True, "cpu")
    b_vals, p_vals = [], []
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(BARE)
    try:
        for i in range(args.repeat):
            b_vals.append(bare(args.mode, args.batch_size, args.seconds, threads, args.batches, ms_env, fh.name))
            p_vals.append(probe(args.mode, args.batch_size, args.seconds, threads))
            print(f"pair {i + 1}: bare {b_vals[-1]:,.0f} img/s, probe {p_vals[-1]:,.0f} img/s", flush=True)
        pairs = (
            bare(args.mode, args.batch_size, args.seconds / 4, threads, args.batches, ms_env, fh.name, args.inproc)
            if args.inproc
            else []
        )
    finally:
        os.unlink(fh.name)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    cap = ms_env.get("ONEDNN_MAX_CPU_ISA") or "none (no AVX-512 trap here)"
    print(
        f"MindSpore {args.mode} LeNet bs{args.batch_size}, {threads} threads, oneDNN cap {cap}, "
        f"{args.batches} cycled batches: bare median {statistics.median(b_vals):,.0f} img/s, probe median "
        f"{statistics.median(p_vals):,.0f} img/s, {pair_summary(b_vals, p_vals, 0.98)}; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    if pairs:
        b_in, p_in = [b for b, _ in pairs], [p for _, p in pairs]
        print(
            f"in one process ({args.inproc} windows of {args.seconds / 4:g} s each side): measurement loop over "
            f"bare {pair_summary(b_in, p_in, 0.98)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
