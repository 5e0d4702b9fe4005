"""What both per-rank scripts share: arguments, the test-only fault hook, timing, and the result files.

Standard library and NumPy only (the rank scripts add their ONE framework). The engines (torchrun,
msrun) start the ranks; their stdout goes to the launcher's logs, so results travel as files in the
run directory the parent chose: every rank writes `rank<r>.json` (+ its parameters as .npy), then
rank 0 reads them all and writes `result.json`, the one file the parent reads.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

# Set by the parent just before it starts the launcher: wall-clock time (time.time()).
T0_ENV = "ADVISOR_SCALING_T0"
# Test-only fault injection, e.g. "crash@1", "raise@1" or "hang@1": that rank dies without a
# word (os._exit), raises a Python exception, or hangs, right after init.
# Only the tests set it; the product never does.
FAULT_ENV = "ADVISOR_SCALING_FAULT"
RESULT_NAME = "result.json"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="one rank of the data-parallel scaling probe")
    p.add_argument("--model", default="lenet")
    p.add_argument("--batch-size", type=int, default=32, help="per-rank batch")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps after the first step")
    p.add_argument("--steps", type=int, default=30, help="timed steps per phase (synced, no-sync)")
    p.add_argument("--threads", type=int, default=1, help="compute threads per rank")
    p.add_argument("--device", default="cpu", help="cpu | cuda (torch); CPU | GPU | Ascend (MindSpore)")
    p.add_argument("--result-dir", required=True)
    p.add_argument("--wait", type=float, default=120.0, help="rank 0: seconds to wait for the others")
    return p.parse_args(argv)


def launcher_seconds(start_wall: float) -> float | None:
    """Seconds from the parent starting the launcher to this rank's script starting."""
    t0 = os.environ.get(T0_ENV)
    try:
        return max(0.0, start_wall - float(t0)) if t0 else None
    except ValueError:
        return None


def maybe_fault(rank: int) -> None:
    spec = os.environ.get(FAULT_ENV, "")
    if "@" not in spec:
        return
    kind, _, target = spec.partition("@")
    if target.strip() != str(rank):
        return
    if kind == "crash":
        os._exit(17)  # like a segfaulting kernel: no Python clean-up, no traceback
    if kind == "raise":
        raise RuntimeError(f"injected fault in rank {rank}")
    if kind == "hang":
        while True:  # like a deadlocked collective: only the parent's timeout ends it
            time.sleep(60)


class Timer:
    def __init__(self) -> None:
        self.t = time.perf_counter()

    def lap(self) -> float:
        now = time.perf_counter()
        dt, self.t = now - self.t, now
        return dt


def _write_json(path: Path, doc: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    os.replace(tmp, path)  # the reader never sees half a file


def _save_npy(path: Path, arr) -> None:
    import numpy as np

    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.save(fh, np.ascontiguousarray(arr, dtype=np.float32))
    os.replace(tmp, path)


def write_rank(result_dir: str, rank: int, doc: dict, params_sync, params_nosync) -> None:
    """This rank's timings plus its flat parameters after the synced steps and at the end (after
    the no-sync control)."""
    d = Path(result_dir)
    _save_npy(d / f"params-sync-rank{rank}.npy", params_sync)
    _save_npy(d / f"params-nosync-rank{rank}.npy", params_nosync)
    _write_json(d / f"rank{rank}.json", doc)  # last: its presence means the rank is done


def _max_abs_diff(arrays) -> float:
    import numpy as np

    ref = arrays[0]
    return float(max((float(np.max(np.abs(a - ref))) for a in arrays[1:]), default=0.0))


def collect(result_dir: str, world: int, header: dict, wait: float) -> None:
    """Rank 0: wait for every rank's file, compare parameters across ranks, write result.json."""
    import numpy as np

    d = Path(result_dir)
    deadline = time.monotonic() + wait
    missing = list(range(world))
    while missing and time.monotonic() < deadline:
        missing = [r for r in range(world) if not (d / f"rank{r}.json").exists()]
        if missing:
            time.sleep(0.05)
    doc = dict(header)
    if missing:
        doc["error"] = f"ranks {missing} wrote no result within {wait:.0f} s"
        _write_json(d / RESULT_NAME, doc)
        return
    ranks = [json.loads((d / f"rank{r}.json").read_text()) for r in range(world)]
    sync = [np.load(d / f"params-sync-rank{r}.npy") for r in range(world)]
    nosync = [np.load(d / f"params-nosync-rank{r}.npy") for r in range(world)]
    doc["ranks"] = ranks
    doc["gate"] = {
        # After synced steps every rank must hold the same parameters (gradients really averaged).
        "sync_max_abs_diff": _max_abs_diff(sync),
        # After the no-sync control (own gradients only) they must differ: the check can fail.
        "nosync_max_abs_diff": _max_abs_diff(nosync),
        "param_count": int(sync[0].size),
    }
    _write_json(d / RESULT_NAME, doc)


def median_ms(seconds: list) -> float | None:
    return statistics.median(seconds) * 1000.0 if seconds else None


def n_batches(world: int) -> int:
    """Enough distinct batches that every rank gets its own share (at least the probe's 8)."""
    return max(8, 2 * world)


def rank_shard(batches, rank: int, world: int) -> list:
    """Rank r takes global batches r, r+world, ... (as a DistributedSampler would): rank 0's first
    batch is the single-process probe's first batch, and ranks see different data, so the no-sync
    control can diverge."""
    return [(batches.images[i], batches.labels[i]) for i in range(rank, len(batches), world)]


PROGRESS_NAME = "progress.json"


def report_progress(result_dir: str, rank: int, stage: str, fraction: float) -> None:
    """Rank 0 only: where it is, for the parent's progress events (it polls this file)."""
    if rank != 0:
        return
    try:
        _write_json(Path(result_dir) / PROGRESS_NAME, {"stage": stage, "fraction": round(fraction, 3)})
    except OSError:
        pass  # progress is a courtesy, never a failure


def run_phases(step, flat_params, args, doc: dict, rank: int = 0) -> tuple:
    """The timing protocol both rank scripts share. `step(sync) -> loss` runs one training step
    (synced: gradients allreduced; else the no-sync control) and waits for it to finish.

    first synced step (timed apart) -> warmup -> synced block -> parameter snapshot (the gate) ->
    first no-sync step (timed apart: MindSpore compiles a second graph) -> no-sync block ->
    synced block -> no-sync block -> ... (blocks of ~3 steps). Alternating short blocks spread
    drift and bursts of foreign load on a shared host over both kinds instead of biasing the
    allreduce share. Synced steps after the control still do the full
    compute and allreduce, so their time is valid although the ranks' parameters now differ.
    """
    blocks = max(1, args.steps // 3)  # short blocks: a burst of foreign load hits both kinds
    per_block = [args.steps // blocks + (1 if i < args.steps % blocks else 0) for i in range(blocks)]
    times = {True: [], False: []}
    losses = []
    total = 1 + args.warmup + 1 + 2 * args.steps
    report_progress(args.result_dir, rank, "first step", 0.0)
    t = Timer()
    losses.append(step(True))
    doc["first_step_seconds"] = t.lap()
    report_progress(args.result_dir, rank, "warmup", 1 / total)
    for _ in range(args.warmup):
        step(True)
    params_sync = None
    for i, k in enumerate(per_block):
        for sync in (True, False):
            if not sync and i == 0:
                params_sync = flat_params()
                t.lap()
                step(False)
                doc["nosync_first_step_seconds"] = t.lap()
            for _ in range(k):
                t.lap()
                loss = step(sync)
                times[sync].append(t.lap())
                if sync:
                    losses.append(loss)
            done = 2 + args.warmup + len(times[True]) + len(times[False])
            report_progress(args.result_dir, rank, "synced / no-sync steps", done / total)
    doc.update(sync_step_s=times[True], nosync_step_s=times[False], loss_first=losses[0], loss_last=losses[-1])
    return params_sync, flat_params()
