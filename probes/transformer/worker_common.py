"""What both GPT workers share (standard library + numpy, no framework): the command line, the
shape from it, the parity array names, and the dynamic-shape driver.

The dynamic driver trains one schedule of variable-length batches three ways (padded to the
maximum, bucketed, truly variable), each way on a fresh model (and a reset compiler), every step
synced and timed alone, and counts the graph compiles as the framework reports them.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable, Optional

from probes.transformer import batches, spec

WAYS = ("padded", "bucketed", "variable")
# A step this many times slower than the steady time of its shape counted as a compile where the
# framework reports no count (assumption: a recompile of even the tiny GPT costs > 10 steady steps).
COMPILE_STEP_FACTOR = 3.0


def parser(framework: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"probes.transformer.worker_{framework}")
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("run", "aux", "dynamic"):
        c = sub.add_parser(name)
        c.add_argument("--layers", type=int, default=4)
        c.add_argument("--hidden", type=int, default=256)
        c.add_argument("--heads", type=int, default=4)
        c.add_argument("--seq", type=int, default=128)
        c.add_argument("--vocab", type=int, default=8192)
        c.add_argument("--batch-size", type=int, default=8)
        c.add_argument("--threads", type=int, default=0)
        c.add_argument("--mode", default="")
    r = sub.choices["run"]
    r.add_argument("--budget", type=float, default=6.0)
    r.add_argument("--max-steps", type=int, default=None)
    r.add_argument("--t-crit", type=float, required=True)
    r.add_argument("--tuned", default="")
    a = sub.choices["aux"]
    a.add_argument("--out", required=True)
    a.add_argument("--no-gemm", action="store_true")
    a.add_argument("--no-parity", action="store_true")
    a.add_argument("--parity-batch", type=int, default=2)
    a.add_argument("--gemm-seconds", type=float, default=0.25)
    a.add_argument("--attention-seconds", type=float, default=1.0)
    d = sub.choices["dynamic"]
    d.add_argument("--variant", required=True, help="eager|compile|compile-dynamic|graph|graph-dynamic|pynative")
    d.add_argument("--ways", default=",".join(WAYS))
    d.add_argument("--steps", type=int, default=16, help="batches in the schedule")
    d.add_argument("--distinct", type=int, default=8, help="distinct lengths in the schedule")
    d.add_argument("--passes", type=int, default=3, help="times the schedule is trained (pass 1 compiles)")
    return p


def memory_checked(work: Callable) -> Callable:
    """`work(args)` run only when the shape fits this host's memory (probes.transformer.memory): a
    shape too large is a failed run naming what it needs, sent before any weight is made."""
    from probes import channel
    from probes.transformer import memory

    def checked(args) -> int:
        problem = memory.refusal(shape_of(args), args.batch_size)
        if problem:
            channel.result(status="failed", error=problem)
            return 0
        return work(args)

    return checked


def shape_of(args) -> spec.Shape:
    s = spec.Shape(args.layers, args.hidden, args.heads, args.seq, args.vocab)
    s.check()
    return s


def drive_ways(
    make_step: Callable[[str], Callable],
    compiles: Callable[[], Optional[int]],
    args,
    s: spec.Shape,
    on_way: Optional[Callable[[str, float], None]] = None,
    clock: Callable[[], float] = time.perf_counter,
) -> list[dict]:
    """For each way: make_step(way) -> step(batch) -> loss as float (synced); compiles() is the
    framework's running count of compiled graphs (None where it reports none). on_way(way, fraction)
    hears each way start and each step end, with the share of all the child's steps done."""
    lens = batches.lengths(s.seq, args.steps, args.distinct)
    out = []
    ways = [w for w in args.ways.split(",") if w]
    total, done = len(ways) * args.passes * len(lens), 0
    for way in ways:
        if on_way:
            on_way(way, done / total if total else 0.0)
        sched = batches.schedule(s.vocab, args.batch_size, s.seq, lens, way)
        t0 = clock()
        step = make_step(way)
        setup_s = clock() - t0
        base = compiles()
        steps = []
        for p in range(args.passes):
            for b in sched:
                t = clock()
                loss = step(b)
                dt = clock() - t
                after = compiles()
                steps.append(
                    {
                        "pass": p,
                        "length": int(b.tokens.shape[1]),
                        "real_tokens": b.real_tokens,
                        "all_tokens": int(b.tokens.size),
                        "seconds": dt,
                        "compiles": None if after is None or base is None else after - base,
                        "loss": loss,
                    }
                )
                done += 1
                if on_way:
                    on_way(way, done / total)
        summary = summarize_way(way, steps, setup_s, lens)
        summary.update(getattr(step, "info", {}))  # what the framework set up for this way
        out.append(summary)
    return out


def summarize_way(way: str, steps: list[dict], setup_s: float, lens: list[int]) -> dict:
    """Compiles (the framework's counter, else detected from step times), compile seconds, other
    stalls, steady and end-to-end tokens/s (real tokens only: padding is work, not progress).
    Steady = the last pass over the schedule (every shape seen before, lazy work done)."""
    last = max((x["pass"] for x in steps), default=0)
    steady = [x for x in steps if x["pass"] == last] or steps
    # seconds per computed token of a steady step: the expected time of any step from its width
    per_tok = statistics.median(x["seconds"] / x["all_tokens"] for x in steady)
    reported = steps[-1]["compiles"] if steps and steps[-1]["compiles"] is not None else None
    prev = 0
    compile_s, stall_s, compile_steps, stall_steps = 0.0, 0.0, 0, 0
    for x in steps:
        expected = per_tok * x["all_tokens"]
        excess = max(0.0, x["seconds"] - expected)
        slow = x["seconds"] > COMPILE_STEP_FACTOR * expected and excess > 0.05
        fired = slow
        if reported is not None:
            fired = (x["compiles"] or 0) > prev
            prev = x["compiles"] or 0
        if fired:
            compile_steps += 1
            compile_s += excess
        elif slow:  # slow without a new graph: lazy work (a backward graph, kernels for a new size)
            stall_steps += 1
            stall_s += excess
    total_s = sum(x["seconds"] for x in steps)
    steady_s = sum(x["seconds"] for x in steady)
    real = sum(x["real_tokens"] for x in steps)
    return {
        "way": way,
        "steps": len(steps),
        "passes": last + 1,
        "distinct_lengths": len(set(lens)),
        "shapes": sorted({x["length"] for x in steps}),
        "compiles": reported if reported is not None else compile_steps,
        "compiles_source": "framework counter" if reported is not None else "step-time detection",
        "compile_steps": compile_steps,
        "compile_seconds": compile_s,
        "stall_steps": stall_steps,
        "stall_seconds": stall_s,
        "setup_seconds": setup_s,
        "total_seconds": total_s,
        "steady_tokens_per_second": sum(x["real_tokens"] for x in steady) / steady_s if steady_s > 0 else None,
        "end_to_end_tokens_per_second": real / total_s if total_s > 0 else None,
        "padding_share": 1.0 - real / max(1, sum(x["all_tokens"] for x in steps)),
        "first_step_seconds": steps[0]["seconds"] if steps else None,
        "step_seconds": [round(x["seconds"], 5) for x in steps],
        "loss_first": steps[0]["loss"] if steps else None,
        "loss_last": steps[-1]["loss"] if steps else None,
    }


# parity arrays both workers write (canonical names): logits, loss, grad/<name>, after/<name>
PARITY_KEYS = ("logits", "loss")
