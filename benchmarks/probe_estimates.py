"""Do the probes' time estimates hold? Runs each probe kind for real and prints, per kind, the estimate
printed before it started against the wall time it took, and how every ETA shown during the run
compared with the time that was really left (goal: every one within 0.67-1.5x).

The plan is the one `advisor probe` prints (advisor.progress.planned: this host's figures from earlier
runs, the cold torch.compile from the inductor cache's state, the load now); the runs are the real
runners, in this process's children, with their progress events. After each kind the host's figures
learn from it, as after any probe, so a second pass shows the estimate with this host's own figures.

    .venv/bin/python benchmarks/probe_estimates.py [--kinds quick,training,gpt,accuracy,pipeline,deploy,scaling]
        [--burners N] [--passes 2] [--cache DIR]

--burners N starts N CPU burners (each in a session of its own, as the README's loaded-host recipe) for
the loaded case; --cache points XDG_CACHE_HOME at a folder (default: a fresh one, so the first pass
compiles cold).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

GOAL = (0.67, 1.5)
MIN_LEFT_S = 10.0  # ETAs with less than this really left are not judged (a few seconds either way)


def config_of(kind: str):
    from probes.base import KINDS
    from probes.training.models import QUICK

    if kind == "quick":
        return "training", KINDS["training"].Config(**QUICK)
    name = "training" if kind == "training" else kind
    return name, KINDS[name].Config()


def run_kind(kind: str) -> dict:
    from advisor import host_timings
    from advisor.progress import planned
    from probes.base import KINDS

    name, config = config_of(kind)
    if name in ("training", "gpt"):
        from advisor.cache import compile_cache_dir

        config = config.model_copy(update={"compile_cache_dir": str(compile_cache_dir())})
    progress = planned(name, config, window=0.5)
    estimate = progress.estimate_seconds()
    opening = progress.opening()
    etas: list[tuple[float, float]] = []
    start = time.monotonic()

    def on_event(event) -> None:
        progress.on_event(event)
        now = time.monotonic()
        view = progress.view(now)
        if view.eta_seconds is not None and view.finished < view.planned:
            etas.append((now, view.eta_seconds))

    KINDS[name].run(config, on_event)
    end = time.monotonic()
    progress.finish(end)
    host_timings.learn(name, config, progress)
    actual = end - start
    judged = [(eta, end - t) for t, eta in etas if end - t >= MIN_LEFT_S]
    ratios = [eta / left for eta, left in judged]
    inside = sum(1 for r in ratios if GOAL[0] <= r <= GOAL[1])
    return {
        "kind": kind,
        "opening": opening,
        "estimate": estimate,
        "actual": actual,
        "ratio": estimate / actual if actual else float("nan"),
        "etas": len(ratios),
        "etas_inside": inside,
        "eta_worst": max(ratios, key=lambda r: abs(r - 1.0)) if ratios else None,
    }


def burners(n: int) -> list[subprocess.Popen]:
    return [
        subprocess.Popen(["sh", "-c", "while :; do :; done"], start_new_session=True)  # noqa: S603,S607
        for _ in range(n)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default="quick,training")
    parser.add_argument("--burners", type=int, default=0)
    parser.add_argument("--passes", type=int, default=1)
    parser.add_argument("--cache", default=None)
    args = parser.parse_args()
    os.environ["XDG_CACHE_HOME"] = args.cache or tempfile.mkdtemp(prefix="advisor-estimates-")
    load = burners(args.burners)
    try:
        time.sleep(2.0 if load else 0.0)  # the burners' share shows in the load the plan reads
        print(
            f"probe estimates against actual wall time ({os.cpu_count()} CPUs, {args.burners} burner(s), "
            f"load {os.getloadavg()[0]:.1f}, cache {os.environ['XDG_CACHE_HOME']}); goal {GOAL[0]}-{GOAL[1]}x",
            flush=True,
        )
        for rnd in range(args.passes):
            for kind in args.kinds.split(","):
                r = run_kind(kind)
                worst = f", worst {r['eta_worst']:.2f}x" if r["eta_worst"] is not None else ""
                print(
                    f"  pass {rnd + 1} {kind:9} estimate {r['estimate']:6.0f} s  actual {r['actual']:6.0f} s  "
                    f"estimate/actual {r['ratio']:.2f}x  ETAs inside the goal {r['etas_inside']}/{r['etas']}{worst}",
                    flush=True,
                )
                print(f"      plan: {r['opening']}", flush=True)
    finally:
        for p in load:
            os.killpg(p.pid, signal.SIGTERM)
    return 0


if __name__ == "__main__":
    sys.exit(main())
