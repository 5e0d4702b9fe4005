"""Does the TUI's estimate hold? The real app, headless under Textual's pilot, runs the probe a new user
starts first (the Probes screen's first-run default: the quick profile) with the real frameworks, and
prints what the screen promised against what it took.

The app reads the run queue once a second while it runs and a plan weighs the last 15 s of readings
(advisor.estimates.recent_queue), so the script waits on the Probes screen as a person reading it
would (`--read`, 20 s by default) before pressing Start. During the run it samples the ETA the screen
shows each second against the time really left (known at the end). Goal: 0.67-1.5x. A first run uses an
empty cache (`--cache DIR`, created empty when missing; pass the same one again for a second run, with
what the first taught this host).

    .venv/bin/python benchmarks/tui_probe_estimate.py [--cache DIR] [--read 20] [--size 120x40]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL = (0.67, 1.5)


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f} (5-minute {five:.1f})"


async def run(read_s: float, size: tuple[int, int]) -> int:
    from tui.app import make_app

    app = make_app(initial_mode="probes")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await asyncio.sleep(read_s)  # a person reads the screen; the app samples the run queue meanwhile
        screen = app.screen
        promised = screen.estimate_text()
        print(f"before Start ({_load()}): {promised}")
        began = time.monotonic()
        await pilot.press("s")
        state = app.state.kinds["training"]
        samples: list[tuple[float, float]] = []  # (seconds since Start, ETA shown)
        opening, span = None, None
        while True:
            await asyncio.sleep(1.0)
            clock = state.clock
            if clock is not None and opening is None:
                opening, span = clock.estimate_seconds(), clock.estimate_range()  # a first run states the range
            if clock is not None and state.running:
                view = clock.view()
                if view.eta_seconds is not None:
                    samples.append((time.monotonic() - began, view.eta_seconds))
            if state.ended is not None and not state.running:
                break
            if time.monotonic() - began > 1800:
                print("no end in 30 minutes")
                return 1
        took = time.monotonic() - began
        await pilot.pause()
        print(f"after ({_load()}): {screen._last_finished()}")
    ratio = (opening or 0.0) / took
    inside = [s for s in samples if took - s[0] > 3]  # the last seconds' ratios mean nothing
    ok = [
        (at, eta) for at, eta in inside if GOAL[0] <= (eta + 0.5) / (took - at + 0.5) <= GOAL[1]
    ]  # half a second each side: the screen shows whole seconds
    worst = max(inside, key=lambda s: abs(1 - (s[1] + 0.5) / (took - s[0] + 0.5)), default=None)
    if span:  # as stated: the range holds the time taken
        held = f"stated {span[0]:.0f}-{span[1]:.0f} s: {'held' if span[0] <= took <= span[1] else 'MISSED'}"
    else:
        held = f"stated about {opening:.0f} s: {'inside' if GOAL[0] <= ratio <= GOAL[1] else 'OUTSIDE'} the goal"
    print(
        f"opening estimate {opening:.0f} s, actual {took:.0f} s: {ratio:.2f}x ({held}, goal {GOAL[0]}-{GOAL[1]}x); "
        f"ETAs inside {len(ok)}/{len(inside)}"
        + (f", worst {(worst[1] + 0.5) / (took - worst[0] + 0.5):.2f}x at {worst[0]:.0f} s" if worst else "")
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", help="the cache folder (empty: a first run on this host)")
    parser.add_argument("--read", type=float, default=20.0, help="seconds on the Probes screen before Start")
    parser.add_argument("--size", default="120x40")
    args = parser.parse_args(argv)
    cache = args.cache or tempfile.mkdtemp(prefix="advisor-tui-eta-")
    os.makedirs(cache, exist_ok=True)
    os.environ["XDG_CACHE_HOME"] = cache  # never the user's cache
    sys.path.insert(0, str(ROOT))
    width, height = (int(x) for x in args.size.split("x"))
    print(f"cache {cache}; {os.cpu_count()} CPUs")
    return asyncio.run(run(args.read, (width, height)))


if __name__ == "__main__":
    sys.exit(main())
