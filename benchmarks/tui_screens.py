"""How fast the TUI switches screens: key to painted, driven by Textual's pilot.

The app runs headless with the fixture host check, the cached probe suite and the frozen report
(tests/fixtures/tui), so only the TUI's own work is timed. For each screen key (F1-F4) the time runs from
the key entering the app's queue to the first frame the compositor renders for the new screen
(App._display, which a terminal would be written from). A first visit is the screen's first showing;
later visits come back to it. Goals (issue: a terminal app switches screens at once): first visit under
0.3 s, later visits under 0.1 s, on this machine kind when quiet. Prints the median and worst per screen
and the host's load, since a loaded host is slower, and the CPU time the app spent in each switch
(which the load does not stretch). Only a whole frame written counts: one Textual makes while it
holds updates (a batch) is dropped, and a partial one leaves the last screen's text around it.

    .venv/bin/python benchmarks/tui_screens.py [--rounds 5] [--size 120x40]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("XDG_CACHE_HOME", "/tmp/advisor-bench-cache")  # never the user's cache

KEYS = {"f1": "host", "f2": "requirements", "f3": "probes", "f4": "recommendation"}
GOAL_FIRST_S, GOAL_LATER_S = 0.3, 0.1


def make():
    from fixtures.tui.fakes import FakeLauncher, cached_suite, host_report

    from advisor.report import Report
    from tui.app import make_app

    frozen = Report.model_validate_json((ROOT / "tests" / "fixtures" / "tui" / "report.json").read_text())
    return make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        cached_probes=cached_suite,
        report_builder=lambda *a, **k: frozen.model_copy(),
        requirements_path=str(ROOT / "examples" / "prototype-then-ascend.yaml"),
        initial_mode="host",
        prebuild=True,  # as on a terminal (run_test is headless)
    )


async def switch(app, key: str) -> tuple[float, float]:
    """Seconds from `key` entering the queue to the new screen's first frame written: wall clock, and
    the process's CPU time over it (what the switch itself costs, which a loaded host stretches)."""
    from textual import events
    from textual._compositor import LayoutUpdate

    painted: list[tuple[float, float]] = []
    original = app._display

    def display(screen, renderable):
        # A frame made while Textual holds updates (a batch) is dropped, never written; a partial one
        # (a layout's changed regions) leaves the last screen's text around it: neither is the screen.
        full = isinstance(renderable, LayoutUpdate) and not app._batch_count
        if full and screen is app.screen and app.current_mode == KEYS[key]:
            painted.append((time.perf_counter(), time.process_time()))
        return original(screen, renderable)

    app._display = display
    try:
        start, cpu = time.perf_counter(), time.process_time()
        app.post_message(events.Key(key, None))
        while not painted:
            if time.perf_counter() - start > 30:
                raise TimeoutError(f"{key}: no frame in 30 s")
            await asyncio.sleep(0.001)
        return painted[0][0] - start, painted[0][1] - cpu
    finally:
        app._display = original


Times = dict[str, dict[str, list[tuple[float, float]]]]  # mode -> first/later -> (wall, cpu) per switch


async def measure(rounds: int, size: tuple[int, int]) -> Times:
    from fixtures.tui.pilot import settle

    times: Times = {mode: {"first": [], "later": []} for mode in KEYS.values()}
    for _ in range(rounds):  # a fresh app each round: every screen's first visit again
        app = make()
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            # what the app does once it is up (building the other screens ahead) is not a key's to wait for
            deadline = time.perf_counter() + 120
            while not all(app._built(m) for m in KEYS.values()) and time.perf_counter() < deadline:
                await asyncio.sleep(0.05)
            await settle(pilot)
            seen = {"host"}
            for key in ("f2", "f3", "f4", "f1", "f2", "f3", "f4", "f1", "f3", "f2"):
                mode = KEYS[key]
                took = await switch(app, key)
                times[mode]["later" if mode in seen else "first"].append(took)
                seen.add(mode)
                await settle(pilot)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size", default="120x40")
    args = parser.parse_args()
    cols, rows = (int(x) for x in args.size.split("x"))
    load = os.getloadavg()[0]
    times = asyncio.run(measure(args.rounds, (cols, rows)))
    print(f"TUI screen switches, key to painted ({args.rounds} fresh apps, {cols}x{rows}, load {load:.1f} "
          f"on {os.cpu_count()} CPUs); goals: first visit < {GOAL_FIRST_S} s, later < {GOAL_LATER_S} s")  # fmt: skip
    worst = 0.0
    for mode, parts in times.items():
        for visit, values in parts.items():
            if not values:
                continue
            goal = GOAL_FIRST_S if visit == "first" else GOAL_LATER_S
            walls, cpus = [w for w, _ in values], [c for _, c in values]
            med, top = statistics.median(walls), max(walls)
            worst = max(worst, med / goal)
            print(f"  {mode:15} {visit:5}  median {med * 1000:6.0f} ms  worst {top * 1000:6.0f} ms  "
                  f"(CPU {statistics.median(cpus) * 1000:4.0f} ms; {med / goal:.2f}x the goal, {len(values)} switches)")  # fmt: skip
    print(f"worst median against its goal: {worst:.2f}x (load {os.getloadavg()[0]:.1f} at the end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
