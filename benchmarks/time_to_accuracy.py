"""Harness overhead of the accuracy probe: its PyTorch eager time-to-accuracy on the digits against a bare
hand-written loop in this process on the same arrays (the probe's own .npz: split, normalisation,
per-epoch orders), the same canonical LeNet-5 weights, SGD (lr 0.01, momentum 0.9, wd 5e-4), batch 32 and
epochs. The rule: "benchmarks, not timed tests, for how close the probe's time-to-accuracy is to a bare
hand-written loop".

Both count training time only (the epochs' train loops up to the first epoch at the target; the test
evaluation after each epoch is timed apart, as the probe does). Interleaved B P B P ...; the median of the
per-repeat ratios probe / bare is printed, for seconds to target and for the whole wall (the probe's child
process start and imports included, the bare loop's in-process evaluation included). The final
accuracies of the two must agree (same arithmetic); the script says whether they do.
`--mindspore` adds one MindSpore graph-mode probe run per repeat for reference (no bare counterpart).
Run by hand: `.venv/bin/python benchmarks/time_to_accuracy.py [--repeat 3] [--epochs 6] [--mindspore]`.

Measured here, 2026-12-01 (torch 2.13.0 CPU, mindspore 2.10.0, 2 threads), on a shared 2-core container
that 4 other helpers loaded at the same time: `uptime` load average 3.4-3.9 during the runs (0.1-0.2 at
the start), so single repeats jumped by over 40x (a bare loop of 0.46 s once took 20.1 s); read the
median of the paired ratios and the calm repeats, not single seconds.
  `--repeat 5 --epochs 8`: both reach 95% at epoch 6, final accuracy 97.11% in both (identical: same
  arrays, weights and order). Calm repeats 3-5: bare 0.45-0.51 s to target, probe 0.48-0.54 s;
  seconds to target probe / bare, median of pairs 0.94 (per repeat 0.86, 0.02, 1.07, 0.94, 1.22): no
  measurable harness overhead in the training loop itself. Wall probe / bare median 4.9 (calm: 3.6-3.7 s
  vs 0.66-0.74 s): the probe's fixed cost is its fresh child (interpreter start, torch import, the
  launcher's channel), about 3 s, paid once per run, outside the time to target.
  `--repeat 3 --epochs 8 --mindspore`: MindSpore graph mode also reaches 95% at epoch 6, final 97.11%;
  15.6-28.0 s to target (compile 0.5-0.9 s); per repeat 31.2x, 15.6x, 3.0x the bare PyTorch loop's
  (median 15.6x; the load slowed the bare loop to 1.8 s and 5.8 s in two of them, so the calm figure is
  the first, ~30x). A framework comparison on a 2-core CPU, where graph mode's per-step cost dominates
  LeNet's tiny steps, not harness overhead. Load average 3.9 at the end of that run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from probes.accuracy import data  # noqa: E402
from probes.accuracy import worker_common as wc  # noqa: E402
from probes.accuracy.models import AccuracyConfig  # noqa: E402
from probes.accuracy.runner import run_suite  # noqa: E402
from probes.hostfacts import usable_cores  # noqa: E402


def bare(npz: str, epochs: int, target: float, threads: int) -> dict:
    """The hand-written loop: what a user would type, on the probe's arrays and weights."""
    import numpy as np
    import torch

    from probes.training import torch_nets

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    t_wall = time.perf_counter()
    with np.load(npz) as z:
        d = {k: z[k] for k in z.files}
    net = torch_nets.build("lenet")
    opt = torch_nets.make_optimizer(net, lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"].astype(np.int64))
    x_test, y_test = torch.from_numpy(d["x_test"]), d["y_test"]
    curve, train_s = [], []
    for order in d["orders"][:epochs]:
        net.train()
        t = time.perf_counter()
        for idx in wc.epoch_batches(order, 32):
            ix = torch.from_numpy(idx.astype(np.int64))
            opt.zero_grad(set_to_none=True)
            loss_fn(net(x[ix]), y[ix]).backward()
            opt.step()
        train_s.append(time.perf_counter() - t)
        net.eval()
        with torch.no_grad():
            pred = np.concatenate([net(x_test[i : i + 256]).argmax(1).numpy() for i in range(0, len(y_test), 256)])
        curve.append(float((pred == y_test).mean()))
    hit = next((i for i, a in enumerate(curve) if a >= target), None)
    return {
        "to_target": None if hit is None else sum(train_s[: hit + 1]),
        "epochs_to_target": None if hit is None else hit + 1,
        "final": curve[-1],
        "wall": time.perf_counter() - t_wall,
    }


def probe(framework: str, mode: str, epochs: int, target: float, threads: int) -> dict:
    cfg = AccuracyConfig(frameworks=[framework], modes=[mode], epochs=epochs, seeds=1, target=target, threads=threads)
    (run,) = run_suite(cfg).runs
    if run.status != "ok":
        raise SystemExit(f"probe {framework}-{mode} {run.status}: {run.error}")
    return {
        "to_target": run.seconds_to_target,
        "epochs_to_target": run.epochs_to_target,
        "final": run.final_accuracy,
        "wall": run.seconds,
        "compile": run.compile_seconds,
    }


def _s(v) -> str:
    return "not reached" if v is None else f"{v:.2f} s"


def _row(name: str, r: dict) -> str:
    ep = f" ({r['epochs_to_target']} ep)" if r["epochs_to_target"] else ""
    return f"{name}: to target {_s(r['to_target'])}{ep}, final {r['final']:.1%}, wall {r['wall']:.2f} s"


def _ratio(p: list, b: list) -> str:
    """Median of the paired (same repeat) ratios: a load spike moves one pair, not the answer."""
    pairs = [pv / bv for pv, bv in zip(p, b) if pv is not None and bv]
    if not pairs:
        return "n/a (target not reached)"
    return f"{statistics.median(pairs):.3f} (per repeat: {', '.join(f'{r:.2f}' for r in pairs)})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--target", type=float, default=0.95)
    ap.add_argument("--threads", type=int, default=None, help="default: usable cores")
    ap.add_argument("--mindspore", action="store_true", help="also one MindSpore graph probe run per repeat")
    a = ap.parse_args()
    threads = a.threads or usable_cores()
    rows = []
    with tempfile.TemporaryDirectory(prefix="advisor-tta-bench-") as tmp:
        npz = str(Path(tmp) / "seed0.npz")
        info = data.prepare(Path(npz), seed=0, epochs=a.epochs)  # the probe's seed-0 arrays
        for i in range(a.repeat):
            b = bare(npz, a.epochs, a.target, threads)
            p = probe("pytorch", "eager", a.epochs, a.target, threads)
            m = probe("mindspore", "graph", a.epochs, a.target, threads) if a.mindspore else None
            rows.append((b, p, m))
            print(f"repeat {i + 1}: {_row('bare', b)} | {_row('probe', p)}", flush=True)
            if m:
                print(f"          {_row('mindspore-graph probe', m)}, compile {m['compile'] or 0:.2f} s", flush=True)
    bs, ps = [r[0] for r in rows], [r[1] for r in rows]
    same = all(abs(b["final"] - p["final"]) < 1e-9 for b, p in zip(bs, ps))
    print(
        f"LeNet-5 on {info['source']} ({info['train_samples']} train / {info['test_samples']} test), "
        f"{a.epochs} epochs, target {a.target:.0%}, {threads} threads, {a.repeat} repeat(s)"
    )
    print(
        f"seconds to target, probe / bare (median of pairs): {_ratio([p['to_target'] for p in ps], [b['to_target'] for b in bs])}"
    )
    print(f"wall, probe / bare (median of pairs): {_ratio([p['wall'] for p in ps], [b['wall'] for b in bs])}")
    print(f"final accuracy bare {bs[0]['final']:.2%}, probe {ps[0]['final']:.2%}: {'identical' if same else 'DIFFER'}")
    if a.mindspore:
        ms = [r[2] for r in rows]
        print(
            f"mindspore-graph probe / bare pytorch, seconds to target (median of pairs): "
            f"{_ratio([m['to_target'] for m in ms], [b['to_target'] for b in bs])} (a framework comparison, not overhead)"
        )
    print(f"host load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (shared machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
