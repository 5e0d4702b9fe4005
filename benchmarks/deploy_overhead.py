"""Harness overhead of the deployment probe: the probe's ONNX Runtime serve step (a child through
probes.launcher, its timer, the parity output and the profiled placement session) against a bare
hand-written ONNX Runtime loop over the same LeNet ONNX file, inputs, thread count and call count.

Two ratios are printed, each the median over interleaved repeats (B P B P ...):
- per call: the probe's P50 latency / the bare loop's P50 (the timer's own cost; bar <= 1.05);
- per step: the probe step's wall time / the bare script's wall time (process start, imports,
  session load, the extra profiled session; what one serve step costs beyond the calls themselves).
Run by hand: `.venv/bin/python benchmarks/deploy_overhead.py [--repeat 3] [--calls 300]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from probes.deploy import runner  # noqa: E402
from probes.deploy.models import DeployConfig  # noqa: E402
from probes.launcher import child_environment  # noqa: E402

BARE = r"""
import json, sys, time
import numpy as np, onnxruntime as ort
path, bs, calls, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
so = ort.SessionOptions(); so.intra_op_num_threads = threads; so.log_severity_level = 3
sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
name = sess.get_inputs()[0].name
feed = {name: np.zeros((bs, 1, 32, 32), np.float32) + 0.5}
ms = []
for _ in range(calls):
    t = time.perf_counter(); sess.run(None, feed)[0]; ms.append((time.perf_counter() - t) * 1e3)
print(json.dumps({"p50": float(np.percentile(ms[len(ms) // 5:], 50))}))
"""


def bare(path: str, calls: int, threads: int) -> tuple[float, float]:
    env = child_environment({"OMP_NUM_THREADS": threads})
    t = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", BARE, path, "1", str(calls), str(threads)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),
    )
    wall = time.perf_counter() - t
    return json.loads(out.stdout.strip().splitlines()[-1])["p50"], wall


def probe(path: str, calls: int, threads: int, outdir: str) -> tuple[float, float]:
    cfg = DeployConfig(batch_sizes=[1], budget=3600, max_calls=calls, threads=threads)
    t = time.perf_counter()
    step = runner.serve_step(
        "bench@onnxruntime-cpu",
        "onnxruntime",
        "pytorch",
        "onnx",
        "lenet",
        "onnxruntime-cpu",
        path,
        cfg,
        outdir,
        provider="CPUExecutionProvider",
    )
    wall = time.perf_counter() - t
    if step.status != "ok":
        raise SystemExit(f"the probe's serve step {step.status}: {step.error}")
    return step.latency_ms["p50"], wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="advisor-deploy-bench-") as tmp:
        ex = runner.export_step("pytorch", "onnx", "lenet", DeployConfig(threads=a.threads), tmp)
        if ex.status != "ok":
            print(f"cannot benchmark: the LeNet ONNX export {ex.status}: {ex.error}")
            return 1
        path = ex.files[0]
        rows = []
        for _ in range(a.repeat):
            rows.append((bare(path, a.calls, a.threads), probe(path, a.calls, a.threads, tmp)))
    call_ratio = statistics.median(p[0] / b[0] for b, p in rows)
    wall_ratio = statistics.median(p[1] / b[1] for b, p in rows)
    for i, (b, p) in enumerate(rows, 1):
        print(f"repeat {i}: bare P50 {b[0]:.4f} ms, wall {b[1]:.2f} s | probe P50 {p[0]:.4f} ms, wall {p[1]:.2f} s")
    print(f"per-call ratio (probe P50 / bare P50): {call_ratio:.3f}  (bar <= 1.05)")
    print(f"per-step ratio (probe wall / bare wall, {a.calls} calls): {wall_ratio:.2f}")
    print(f"host load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
