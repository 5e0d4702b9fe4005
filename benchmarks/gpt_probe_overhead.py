"""Harness overhead of the transformer probe: its tokens/s against a bare hand-written loop of the
same GPT, weights, token batches and optimizer, for every framework and mode (PyTorch eager and
torch.compile, MindSpore graph and PyNative), in the same script run. Goal: probe >= 0.98 x bare.

Both run in fresh child processes (the probe always does), interleaved B P B P per mode; the paired
ratio is printed with its CI, spread and grade
(probe_overhead.pair_summary). MindSpore children get the probe's own environment (the oneDNN AVX2 cap
on AVX-512 hosts, launch_blocking for PyNative). Run by hand:
`.venv/bin/python benchmarks/gpt_probe_overhead.py [--repeat 2] [--size tiny|default] [--inproc N]`.

--inproc N adds, per mode, N alternating short windows in ONE child process: the probe's own
measurement loop (probes.training.measure.run, progress messages and load snapshots included) against
the bare loop over the same step. That isolates the harness cost inside the reported tokens/s and
keeps load swings on a shared host from landing on one side only.
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
from probes.transformer.models import GptConfig  # noqa: E402
from probes.transformer.runner import run  # noqa: E402
from probes.training import runner as training  # noqa: E402

SIZES = {"tiny": dict(layers=2, hidden=64, heads=4, seq=32, vocab=512, batch_size=4), "default": {}}

BARE = r"""
import json, sys, time
mode, seconds, threads = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
layers, hidden, heads, seq, vocab, bs = (int(x) for x in sys.argv[4:10])
from probes.transformer import batches, spec
s = spec.Shape(layers, hidden, heads, seq, vocab)
data = batches.fixed(vocab, bs, seq)
if mode in ("eager", "compile"):
    import torch
    from probes.transformer import torch_gpt
    torch.set_num_threads(threads)
    net = torch_gpt.build(s); opt = torch_gpt.optimizer(net)
    fn = torch.compile(net) if mode == "compile" else net
    xs = [(torch.from_numpy(b.tokens.astype("int64")), torch.from_numpy(b.targets.astype("int64")),
           torch.from_numpy(b.weights)) for b in data]
    def step(i):
        x, y, w = xs[i % len(xs)]
        opt.zero_grad(set_to_none=True)
        loss = torch_gpt.loss(fn(x), y, w); loss.backward(); opt.step(); return loss
    sync = lambda loss: float(loss.detach())
else:
    import mindspore as ms
    from mindspore import nn
    from probes.transformer import ms_gpt
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    ms.device_context.cpu.op_tuning.threads_num(threads)
    if mode == "pynative":
        ms.runtime.launch_blocking()
    net = ms_gpt.build(s)
    train = nn.TrainOneStepCell(ms_gpt.WithLoss(net), ms_gpt.optimizer(net)); train.set_train(True)
    xs = [tuple(ms.Tensor(a) for a in (b.tokens, b.targets, b.weights, b.positions)) for b in data]
    step = lambda i: train(*xs[i % len(xs)])
    sync = lambda loss: float(loss.asnumpy())
for i in range(10):
    sync(step(i))


FASTEST = {}  # side -> the fastest ms/step over one sync's steps: a floor contention cannot lower


def bare_window(seconds, every=5, side="bare"):
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        t = time.perf_counter()
        for _ in range(every):
            loss = step(n); n += 1
        sync(loss)
        FASTEST[side] = min(FASTEST.get(side, 1e9), (time.perf_counter() - t) / every * 1e3)
    return n * bs * seq / (time.perf_counter() - t0)


if len(sys.argv) == 10:
    print(json.dumps({"tokens_per_second": bare_window(seconds)}))
else:  # in-process: the probe's own measurement loop (probes.training.measure) against the bare loop,
    # the same step, alternating short windows (B P, P B, ...) so load swings hit both sides alike
    import os
    from probes.training import common, measure
    rounds = int(sys.argv[10])
    devnull = os.open(os.devnull, os.O_WRONLY)
    def progress(p):  # what probes.channel.progress costs: one JSON line on a pipe
        os.write(devnull, (json.dumps({"kind": "progress", **p}) + "\n").encode())
    def probe_window(seconds):
        plan = measure.Plan(budget_s=seconds, batch_size=bs * seq, t_crit=2.0, snapshot=common.cpu_snapshot)
        res = measure.run(step, sync, plan, on_progress=progress)
        FASTEST["probe"] = min([FASTEST.get("probe", 1e9), *res["sample_step_ms"]])
        K[0] = res["steps_per_sample"]
        return res["images_per_second"]
    K = [1]
    pairs = []
    for r in range(rounds):
        if r % 2:
            p = probe_window(seconds); b = bare_window(seconds)
        else:
            b = bare_window(seconds); p = probe_window(seconds)
        bare_window(seconds / 2, every=K[0], side="same")  # the probe's k steps per sync: a like-for-like floor
        pairs.append([b, p])
    print(json.dumps({"pairs": pairs, "fastest_ms": FASTEST}))
"""


def bare(mode: str, seconds: float, threads: int, cfg: GptConfig, env_extra: dict, script: str, inproc: int = 0) -> Any:
    """tokens/s of the bare loop in a fresh child; with `inproc` rounds, that child's [bare, probe-loop]
    pairs instead."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": str(threads), "GLOG_v": "3"}
    env.pop("ONEDNN_MAX_CPU_ISA", None)
    env.update({k: v for k, v in env_extra.items() if v is not None})
    sizes = [cfg.layers, cfg.hidden, cfg.heads, cfg.seq, cfg.vocab, cfg.batch_size]
    with tempfile.TemporaryDirectory() as cwd:  # MindSpore writes its graph dumps into the cwd
        out = subprocess.run(
            [sys.executable, script, mode, str(seconds), str(threads), *map(str, sizes), *([str(inproc)] if inproc else [])],
            env=env, capture_output=True, text=True, timeout=900, check=False, cwd=cwd,
        )  # fmt: skip
    if out.returncode:
        raise SystemExit(f"bare {mode} failed: {out.stderr[-800:]}")
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    return (doc["pairs"], doc["fastest_ms"]) if inproc else doc["tokens_per_second"]


def probe(fw: str, mode: str, seconds: float, threads: int, size: dict) -> float:
    cfg = GptConfig(frameworks=[fw], modes=[mode], budget=seconds, threads=threads, repeat=1, max_repeat=1,
                    parity=False, gemm=False, attention=False, dynamic=False, **size)  # fmt: skip
    (r,) = run(cfg).runs
    if r.status != "ok":
        raise SystemExit(f"probe {fw} {mode} failed: {r.error}")
    return r.tokens_per_second


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--size", choices=tuple(SIZES), default="default")
    ap.add_argument("--modes", default="eager,compile,graph,pynative")
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
    size = SIZES[args.size]
    cfg = GptConfig(**size)
    ms_env, _ = training.mindspore_env(training.host_summary().avx512, True, "cpu")
    fw_of = {"eager": "pytorch", "compile": "pytorch", "graph": "mindspore", "pynative": "mindspore"}
    lines = []
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(BARE)  # a file, not -c: MindSpore graph mode parses source
    try:
        for mode in [m for m in args.modes.split(",") if m]:
            fw = fw_of[mode]
            env = ms_env if fw == "mindspore" else {}
            b_vals, p_vals = [], []
            for i in range(args.repeat):
                b_vals.append(bare(mode, args.seconds, threads, cfg, env, fh.name))
                p_vals.append(probe(fw, mode, args.seconds, threads, size))
                print(
                    f"{fw} {mode} pair {i + 1}: bare {b_vals[-1]:,.0f} tok/s, probe {p_vals[-1]:,.0f} tok/s", flush=True
                )
            if b_vals:
                lines.append(
                    f"{fw} {mode}: bare median {statistics.median(b_vals):,.0f} tok/s, probe median "
                    f"{statistics.median(p_vals):,.0f} tok/s, {pair_summary(b_vals, p_vals, 0.98)}"
                )
            if args.inproc:
                pairs, fastest = bare(mode, args.seconds / 4, threads, cfg, env, fh.name, args.inproc)
                b_in, p_in = [b for b, _ in pairs], [p for _, p in pairs]
                lines.append(
                    f"{fw} {mode}, in one process ({args.inproc} windows of {args.seconds / 4:g} s each side): "
                    f"measurement loop over bare {pair_summary(b_in, p_in, 0.98)}; fastest ms/step over the "
                    f"probe's k steps per sync: bare {fastest['same']:.2f}, probe {fastest['probe']:.2f} "
                    f"(ratio {fastest['same'] / fastest['probe']:.3f}; bare syncing every 5: {fastest['bare']:.2f})"
                )
                print(f"  {lines[-1]}", flush=True)  # a mode's result survives a later mode's failure
    finally:
        os.unlink(fh.name)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"GPT {args.size} ({cfg.layers}L H{cfg.hidden} S{cfg.seq} V{cfg.vocab} bs{cfg.batch_size}), "
          f"{threads} threads, {args.repeat} interleaved pairs; load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")  # fmt: skip
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
