"""Do the probes' time estimates hold? Runs each probe kind for real and prints, per kind, the estimate
printed before it started against the wall time it took, and how every ETA shown during the run
compared with the time that was really left (goal: every one within 0.67-1.5x), on the host as found
and again with a CPU burner per core (the loaded column), the burners stopped after.

The plan is the one `advisor probe` prints (advisor.progress.planned: this host's figures from earlier
runs, the cold torch.compile from the inductor cache's state, the load now); the runs are the real
runners, in this process's children, with their progress events. After each kind the host's figures
learn from it, as after any probe, so a later pass shows the estimate with this host's own figures.
Each kind runs a small configuration (SMALL): the ratios, not the throughput, are what this measures.
As `advisor probe` does, it takes the installed frameworks (--all-frameworks: every one, the others
announced and ended as unavailable).

    .venv/bin/python benchmarks/probe_estimates.py [--kinds quick,gpt-quick,accuracy,pipeline,deploy,scaling]
        [--loaded | --burners N] [--passes 1] [--cache DIR] [--all-frameworks]

--loaded runs every kind once as the host is and once with one CPU burner per core (each in a session
of its own, at nice 10 so the other sessions on a shared host keep moving); --burners N runs only the
loaded pass with N burners (--one-session: all in one session, as a build's jobs are); --cache points
XDG_CACHE_HOME at a folder (default: a fresh one, so the first pass compiles cold). Each row names the 1-minute load average at its start and end: "as-is" is the host
as found, which on a shared host is the quietest there is, not an idle machine.

--record FILE keeps every kind's events (with their times) and its plan's inputs (load, this host's
figures, the compile cache's state, what the plan read of the host: advisor.estimates.LoadReading);
--replay FILE... --export JSON writes them as plain data (the tests' fixtures); --replay FILE... (pickles
or those JSON files) feeds them again to the progress model of the
checkout it runs from, so two models (before / after a change: run it with PYTHONPATH at the older
checkout) are judged on the same runs, without running a probe.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

GOAL = (0.67, 1.5)
SAMPLE_S = 2.0  # seconds between the ETA samples taken between events
MIN_LEFT_S = 10.0  # ETAs with less than this really left are not judged (a few seconds either way)
KINDS = ("quick", "gpt-quick", "accuracy", "pipeline", "deploy", "scaling")
# Each kind's small configuration: a minute or a few on a 2-core host, every step kind of the probe
# still in it (the set-up children, the rounds, the dynamic-shape children, the launches).
SMALL: dict[str, dict] = {
    "training": {},
    "accuracy": {"modes": ["eager", "graph"], "epochs": 2, "seeds": 1},
    "pipeline": {"batches": 20, "passes": 2},
    "deploy": {"models": ["lenet"], "budget": 1.0},
    "scaling": {"models": ["lenet"], "repeat": 1},
}


def config_of(kind: str, all_frameworks: bool = False):
    """(the registry's kind, its small configuration), with the frameworks `advisor probe` takes by default,
    the installed ones (all_frameworks: every one it names, the others announced and ended as unavailable)."""
    from probes.base import KINDS as REGISTRY
    from probes.hostfacts import missing_frameworks
    from probes.training.models import QUICK
    from probes.transformer.models import GPT_QUICK

    if kind == "quick":
        name, config = "training", REGISTRY["training"].Config(**QUICK)
    elif kind == "gpt-quick":
        name, config = "gpt", REGISTRY["gpt"].Config(**GPT_QUICK)
    else:
        make = REGISTRY[kind].Config
        name, config = kind, make(**{k: v for k, v in SMALL.get(kind, {}).items() if k in make.model_fields})
    frameworks = list(getattr(config, "frameworks", None) or [])
    missing = missing_frameworks(frameworks)
    installed = [fw for fw in frameworks if fw not in missing]
    if installed and missing and not all_frameworks:
        config = config.model_copy(update={"frameworks": installed})
    return name, config


def run_kind(kind: str, all_frameworks: bool = False) -> dict:
    from advisor import host_timings
    from advisor.progress import planned
    from probes.base import KINDS

    name, config = config_of(kind, all_frameworks)
    if name in ("training", "gpt"):
        from advisor.cache import compile_cache_dir

        config = config.model_copy(update={"compile_cache_dir": str(compile_cache_dir())})
    from advisor import estimates

    warm_seen: dict[tuple, bool] = {}
    real_warm = estimates.compile_cache_warm

    def remembered(folder, model_dir):  # the cache's state at planning, for a replay of this run
        warm_seen[(folder, model_dir)] = real_warm(folder, model_dir)
        return warm_seen[(folder, model_dir)]

    estimates.compile_cache_warm = remembered
    figures = host_timings.figures()  # what the plan starts from, before this run teaches it
    # what the plan read of the install (a framework it cannot import is not planned; a CUDA build of torch
    # starts its children later), for a replay on another host
    installed = sorted(
        set(getattr(config, "frameworks", []) or [])
        - estimates.missing_frameworks(getattr(config, "frameworks", []) or [])
    )
    cuda_build = estimates.torch_cuda_build()
    try:
        progress = planned(name, config, window=0.5)
    finally:
        estimates.compile_cache_warm = real_warm
    events: list[tuple[float, object]] = []
    estimate, span = progress.estimate_seconds(), progress.estimate_range()
    opening = progress.opening()
    etas: list[tuple[float, float]] = []
    load_start = os.getloadavg()[0]
    start = time.monotonic()

    def sample() -> None:
        now = time.monotonic()
        view = progress.view(now)
        if view.eta_seconds is not None and view.finished < view.planned:
            etas.append((now, view.eta_seconds))

    def on_event(event) -> None:
        events.append((time.monotonic() - start, event))
        progress.on_event(event)
        sample()

    stop = threading.Event()

    def tick() -> None:  # the displays read the ETA between events too (the CLI's bar ten times a second)
        while not stop.wait(SAMPLE_S):
            sample()

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        KINDS[name].run(config, on_event)
    finally:
        stop.set()
        ticker.join()
    end = time.monotonic()
    progress.finish(end)
    host_timings.learn(name, config, progress)
    actual = end - start
    judged, inside, worst = judge([(t - start, eta) for t, eta in etas], actual)
    return {
        "kind": kind,
        "opening": opening,
        "estimate": estimate,
        "range": span,
        "actual": actual,
        "ratio": estimate / actual if actual else float("nan"),
        "etas": judged,
        "etas_inside": inside,
        "eta_worst": worst,
        "trace": [(round(t - start, 1), round(eta, 1), round(end - t, 1)) for t, eta in etas],  # (at, ETA, left)
        "recording": {
            "name": name,
            "config": config,
            "load": progress.load,
            "figures": figures,
            "figures_version": host_timings.VERSION,
            "warm": warm_seen,
            "installed": installed,
            "cuda_build": cuda_build,
            "events": events,
            "actual": actual,
            "loadavg": (load_start, os.getloadavg()[0]),
        },
    }


def judge(etas: list[tuple[float, float]], actual: float) -> tuple[int, int, float | None]:
    """(ETAs judged, inside the goal, the worst ratio) of (at, ETA) samples against the time really left."""
    ratios = [eta / (actual - t) for t, eta in etas if actual - t >= MIN_LEFT_S]
    inside = sum(1 for r in ratios if GOAL[0] <= r <= GOAL[1])
    return len(ratios), inside, max(ratios, key=lambda r: abs(r - 1.0)) if ratios else None


def replay(recording: dict, load: object = None) -> dict:
    """A recorded run's events fed again, at their recorded times, to the progress model of this
    checkout (the plan from the recorded load, or `load`, figures and compile-cache state): its ETAs
    judged as the live run's were, every event and every SAMPLE_S between."""
    from advisor import estimates
    from advisor.progress import ProbeProgress

    warm = recording["warm"]
    real = estimates.compile_cache_warm, estimates.missing_frameworks, estimates.torch_cuda_build
    estimates.compile_cache_warm = lambda folder, model_dir: warm.get((folder, model_dir), False)
    # the install the plan read (recordings before it kept none: both frameworks, a CPU build of torch)
    installed = set(recording.get("installed", ("pytorch", "mindspore")))
    estimates.missing_frameworks = lambda fws: frozenset(fws or []) - installed
    estimates.torch_cuda_build = lambda: bool(recording.get("cuda_build", False))
    try:
        progress = ProbeProgress.for_config(
            recording["name"],
            recording["config"],
            now=0.0,
            figures=replayed_figures(recording),
            load=load or replayed_load(recording),
        )
    finally:
        estimates.compile_cache_warm, estimates.missing_frameworks, estimates.torch_cuda_build = real
    span = getattr(progress, "estimate_range", lambda: None)()  # a first run's stated range (None: one figure)
    estimate = progress.estimate_seconds()  # before any event, as the live run printed it (after them it
    # counts the extra rounds that ran in full and the steps the runner announced: not the opening's figure)
    etas: list[tuple[float, float]] = []

    def sample(now: float) -> None:
        view = progress.view(now)
        if view.eta_seconds is not None and view.finished < view.planned:
            etas.append((now, view.eta_seconds))

    clock = 0.0
    for at, event in recording["events"]:
        while clock + SAMPLE_S < at:
            clock += SAMPLE_S
            sample(clock)
        progress.on_event(event, now=at)
        sample(at)
        clock = max(clock, at)
    while clock + SAMPLE_S < recording["actual"]:
        clock += SAMPLE_S
        sample(clock)
    judged, inside, worst = judge(etas, recording["actual"])
    return {"estimate": estimate, "range": span, "etas": judged, "inside": inside, "worst": worst, "trace": etas}


def replayed_figures(recording: dict):
    """The host's figures a recorded plan started from, in this checkout's units: a recording made before
    the figures' file version this checkout reads (advisor.host_timings.VERSION; recordings without a
    `figures_version` kept version 1) read as this checkout reads such a file (host_timings.migrated)."""
    from advisor import host_timings
    from advisor.estimates import Figures

    figures = recording["figures"]
    measured = dict(getattr(figures, "measured", figures))
    migrate = getattr(host_timings, "migrated", None)  # a checkout from before version 2 reads them as they are
    if migrate is not None and recording.get("figures_version", 1) < host_timings.VERSION:
        measured = migrate(measured)
    return Figures(measured)


def replayed_load(recording: dict):
    """The plan's load of a recorded run: by this checkout's rule from what the plan read (LoadReading),
    where the recording kept it; else the load the recorded plan used (older recordings: today's rule)."""
    from advisor import estimates

    load, reading = recording["load"], recording.get("reading") or getattr(recording["load"], "reading", None)
    rule = getattr(estimates, "LoadReading", None)
    if reading is not None and rule is not None:
        return (rule(**reading) if isinstance(reading, dict) else reading).load()
    if isinstance(reading, dict):  # a checkout from before the reading: its rule, the 1-minute average alone
        foreign = max(0.0, reading["busy"] - reading["own"])
        if reading["cpus"] - reading["busy"] < 0.5:
            foreign = max(foreign, reading["average"])
        return estimates.Load(reading["cores"], foreign)
    return load


def recordings_of(where: str) -> list[dict]:
    """The recordings of a --record pickle, or of an --export JSON (the tests' fixtures) as replay takes them."""
    if where.endswith(".json"):
        import json

        from advisor.estimates import Figures, Load
        from probes.base import KINDS as REGISTRY

        with open(where) as f:
            kept = json.load(f)
        return [
            dict(
                rec,
                config=REGISTRY[rec["name"]].Config(**rec["config"]),
                load=Load(*rec["load"]) if rec["load"] else None,
                figures=Figures(rec["figures"]),
                warm={(folder, model_dir): w for folder, model_dir, w in rec["warm"]},
                events=[(at, event) for at, event in rec["events"]],
            )
            for rec in kept
        ]
    import pickle

    with open(where, "rb") as f:
        return pickle.load(f)


def replayed_rows(files: list[str]) -> list[dict]:
    """Every recording of `files` replayed by this checkout's model, each run once (the notes' pickles and
    the tests' JSON hold some of the same runs: the same kind, time taken and events are one run)."""
    rows, seen = [], set()
    for where in files:
        for rec in recordings_of(where):
            key = (rec["kind"], round(rec["actual"], 1), len(rec["events"]))
            if key in seen:
                continue
            seen.add(key)
            r = replay(rec)
            load = replayed_load(rec)
            loadavg = rec["loadavg"] if isinstance(rec["loadavg"], (tuple, list)) else (rec["loadavg"],)
            rows.append(
                {
                    "file": os.path.basename(where),
                    "label": rec["label"],
                    "kind": rec["kind"],
                    "loadavg": list(loadavg),
                    "foreign": getattr(load, "foreign", None),
                    "actual": rec["actual"],
                    "estimate": r["estimate"],
                    "range": r["range"],
                    "etas": r["etas"],
                    "inside": r["inside"],
                    "worst": r["worst"],
                    "rules": rules_compared(rec),
                }
            )
    return rows


def replay_main(files: list[str], before: str | None = None, as_json: bool = False) -> int:
    """Each recorded run judged again by this checkout's model (with `before`, a checkout's folder: beside
    that checkout's, replayed by this same script with PYTHONPATH at it), then the totals."""
    rows = replayed_rows(files)
    if as_json:
        import json

        json.dump(rows, sys.stdout)
        return 0
    old = None
    if before:
        import json

        env = dict(os.environ, PYTHONPATH=before)
        got = subprocess.run(  # noqa: S603 - this script, run again with the older checkout's model
            [sys.executable, __file__, "--replay", *files, "--json"], env=env, capture_output=True, text=True
        )
        if got.returncode != 0:
            print(f"error: the replay with {before} failed: {got.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            return 2
        old = json.loads(got.stdout)
    here = os.path.dirname(__import__("advisor").__file__)
    print(
        f"replayed with the progress model of {here}"
        + (f" (before: {before})" if before else "")
        + f"; goal {GOAL[0]}-{GOAL[1]}x"
    )
    print(
        "  file                    pass    kind      load       others  "
        + ("before                   " if old else "")
        + "now"
    )
    for i, r in enumerate(rows):
        cells = ([cell(old[i])] if old else []) + [cell(r)]
        foreign = f"{r['foreign']:6.1f}" if r["foreign"] is not None else "     -"
        load = "-".join(f"{x:.1f}" for x in r["loadavg"])
        print(
            f"  {r['file'][:23]:23} {r['label']:7} {r['kind']:9} {load:10} {foreign}  "
            + "  ".join(f"{c:23}" for c in cells)
        )
        if r["rules"] and not old:
            print(r["rules"], end="")
    for name, got in ((("before", old),) if old else ()) + (("now", rows),):
        print(f"  {name}: " + totals(got))
    return 0


def holds(r: dict) -> bool:
    """Whether the opening held as it was stated: a first run's range holds the time taken, one figure is
    within the goal of it (advisor.progress.ProbeProgress.estimate_range)."""
    span = r.get("range")
    if span:
        return span[0] <= r["actual"] <= span[1]
    return GOAL[0] <= r["estimate"] / r["actual"] <= GOAL[1]


def stated(r: dict) -> str:
    """The opening as it was stated, against the time taken: '0.93x (39/42 s)' or 'in 20-70 s (23 s)'."""
    span = r.get("range")
    if span:
        return f"{'in' if holds(r) else 'OUT'} {span[0]:.0f}-{span[1]:.0f} s ({r['actual']:.0f} s)"
    return f"{r['estimate'] / r['actual']:.2f}x ({r['estimate']:.0f}/{r['actual']:.0f} s)"


def cell(r: dict) -> str:
    """A run's opening as stated and its ETAs inside the goal, in one column."""
    return f"{stated(r)} {100 * r['inside'] / max(1, r['etas']):3.0f}%"


def totals(rows: list[dict]) -> str:
    """Openings that held as stated, the expected figure's range (what the ETA starts from), and the judged
    ETAs inside, over `rows`."""
    ratios = [r["estimate"] / r["actual"] for r in rows]
    ranged = sum(1 for r in rows if r.get("range"))
    etas, good = sum(r["etas"] for r in rows), sum(r["inside"] for r in rows)
    return (
        f"{len(rows)} runs, openings as stated: {sum(map(holds, rows))} held ({ranged} first runs' ranges); "
        f"the expected figure {min(ratios):.2f}-{max(ratios):.2f}x, {100 * good / max(1, etas):.1f}% of {etas:,} "
        "ETAs inside"
    )


def rules_compared(recording: dict) -> str | None:
    """For a run whose plan sampled the run queue: its opening by the 1-minute average alone (the rule
    before) and by the queue alone, beside the named rule's (advisor.estimates.RUN_QUEUE_WEIGHT)."""
    from advisor import estimates

    reading = replayed_load(recording)
    reading = getattr(reading, "reading", None)
    if reading is None or reading.queue is None:
        return None
    cells = []
    for name, weight in (("the average alone", 0.0), ("the run queue alone", 1.0)):
        kept, estimates.RUN_QUEUE_WEIGHT = estimates.RUN_QUEUE_WEIGHT, weight
        try:
            r = replay(recording, load=reading.load())
        finally:
            estimates.RUN_QUEUE_WEIGHT = kept
        cells.append(
            f"{name} {r['estimate'] / recording['actual']:.2f}x ({100 * r['inside'] / max(1, r['etas']):.0f}%)"
        )
    return f"      1-minute average {reading.average:.1f}, run queue {reading.queue:.1f} others: by {', by '.join(cells)}\n"


# The fields of an event the progress model reads (advisor.progress.seen), kept by --export; of the run a
# "done" event carries, its status and grade (an unusable run re-plans the extra round).
EVENT_FIELDS = ("run_id", "kind", "fraction", "run_fraction", "epoch", "epochs", "total", "status", "message",
                "native_kind")  # fmt: skip


def exported(recording: dict) -> dict:
    """A recording as plain JSON data (tests/fixtures/eta_records: the tests replay them without pickle)."""

    def event(e: object) -> dict:
        data = {k: getattr(e, k, None) for k in EVENT_FIELDS}
        run = getattr(e, "run", None)
        if run is not None:
            get = run.get if isinstance(run, dict) else lambda k: getattr(run, k, None)
            data["run"] = {"status": get("status"), "quality": get("quality")}
        return {k: v for k, v in data.items() if v is not None}

    config = recording["config"]
    return {
        "kind": recording["kind"],
        "label": recording["label"],
        "name": recording["name"],
        "config": config.model_dump(mode="json") if hasattr(config, "model_dump") else dict(config),
        "load": [recording["load"].cores, recording["load"].foreign] if recording["load"] else None,
        "reading": reading_of(recording["load"]),
        "figures": dict(recording["figures"].measured),
        "figures_version": recording.get("figures_version", 1),
        "warm": [[folder, model_dir, bool(w)] for (folder, model_dir), w in recording["warm"].items()],
        **{k: recording[k] for k in ("installed", "cuda_build") if k in recording},
        "events": [[round(at, 3), event(e)] for at, e in recording["events"]],
        "actual": round(recording["actual"], 3),
        "loadavg": list(recording["loadavg"]) if isinstance(recording["loadavg"], tuple) else [recording["loadavg"]],
    }


def reading_of(load: object) -> dict | None:
    """What the plan read of the host (advisor.estimates.LoadReading) as plain data, None where it kept none."""
    import dataclasses

    reading = getattr(load, "reading", None)
    return dataclasses.asdict(reading) if reading is not None else None


def export_main(files: list[str], out: str) -> int:
    import json
    import pickle

    kept = []
    for where in files:
        with open(where, "rb") as f:
            kept += [exported(rec) for rec in pickle.load(f)]
    with open(out, "w") as f:
        json.dump(kept, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"{len(kept)} recordings written to {out}")
    return 0


def save_recordings(where: str, rows: list[dict]) -> None:
    import pickle

    kept = [dict(r["recording"], kind=r["kind"], label=r["pass"]) for r in rows]
    with open(where, "wb") as f:
        pickle.dump(kept, f)


SPIN = "while :; do :; done"


def burners(n: int, one_session: bool = False) -> list[subprocess.Popen]:
    """`n` CPU burners at nice 10, each in a session of its own, or all in one (`one_session`: a build's
    jobs, a test run's workers), which the kernel's autogroup shares the cores with as one. Their shell
    exits at once, so they are not this process's descendants (the plan counts a probe's own children, each
    in a session of its own, as its own): other users' work, as on a shared host. Stopped by process group."""
    shells = 1 if one_session else n
    each = n if one_session else 1
    started = [
        subprocess.Popen(  # noqa: S603,S607
            ["nice", "-n", "10", "sh", "-c", f"for i in $(seq {each}); do ({SPIN}) & done"], start_new_session=True
        )
        for _ in range(shells if n else 0)
    ]
    for p in started:
        p.wait()
    return started


def one_pass(
    kinds: list[str],
    n_burners: int,
    label: str,
    record: str | None = None,
    earlier: list[dict] | None = None,
    one_session: bool = False,
    all_frameworks: bool = False,
) -> list[dict]:
    """One pass over the kinds; with `record`, the file keeps the earlier passes' runs (`earlier`) and this
    one's, rewritten after each kind (a second pass had written over the first's)."""
    load = burners(n_burners, one_session)
    rows = []
    try:
        time.sleep(3.0 if load else 0.0)  # the burners' share shows in the load the plan reads
        for kind in kinds:
            r = run_kind(kind, all_frameworks)
            r["pass"] = label
            rows.append(r)
            if record:  # after each kind: a long pass interrupted keeps what it ran
                save_recordings(record, (earlier or []) + rows)
            worst = f", worst {r['eta_worst']:.2f}x" if r["eta_worst"] is not None else ""
            print(
                f"  {label:7} {kind:9} estimate {r['estimate']:6.0f} s  actual {r['actual']:6.0f} s  "
                f"as stated {stated(r)}  ETAs inside the goal {r['etas_inside']}/{r['etas']}{worst}",
                flush=True,
            )
            reading = reading_of(r["recording"]["load"]) or {}
            queue = f", run queue {reading['queue']:.1f}" if reading.get("queue") is not None else ""
            if reading.get("sessions") is not None:
                queue += f", {reading['sessions']:.1f} other sessions"
            print(f"      plan: {r['opening']} (1-minute load {r['recording']['loadavg'][0]:.1f}{queue})", flush=True)
    finally:
        for p in load:  # stopped however the pass ends (their shell is gone: its process group holds them)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
    return rows


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped benchmark stops its burners too
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--burners", type=int, default=None, help="only the loaded pass, with N burners")
    parser.add_argument("--loaded", action="store_true", help="a pass as found, then one burner per core")
    parser.add_argument("--one-session", action="store_true", help="the burners in one session, not one each")
    parser.add_argument("--passes", type=int, default=1)
    parser.add_argument(
        "--all-frameworks", action="store_true", help="keep the frameworks that are not installed (the CLI drops them)"
    )
    parser.add_argument("--cache", default=None)
    parser.add_argument("--record", metavar="FILE", help="keep every kind's events and plan inputs for --replay")
    parser.add_argument("--trace", metavar="FILE", help="write every kind's ETA samples (at, ETA, really left) as JSON")
    parser.add_argument("--replay", nargs="+", metavar="FILE", help="judge recorded runs again (no probe runs)")
    parser.add_argument("--export", metavar="JSON", help="with --replay: write the recordings as JSON instead")
    parser.add_argument("--before", metavar="DIR", help="with --replay: beside the model of the checkout at DIR")
    parser.add_argument("--json", action="store_true", help="with --replay: the judged runs as JSON")
    args = parser.parse_args()
    if args.replay and args.export:
        return export_main(args.replay, args.export)
    if args.replay:
        return replay_main(args.replay, args.before, args.json)
    os.environ["XDG_CACHE_HOME"] = args.cache or tempfile.mkdtemp(prefix="advisor-estimates-")
    kinds = [k for k in args.kinds.split(",") if k]
    cores = os.cpu_count() or 1
    passes = [(args.burners, f"{args.burners} burn")] if args.burners is not None else [(0, "as-is")]
    if args.loaded:
        passes = [(0, "as-is"), (cores, "loaded")]
    print(
        f"probe estimates against actual wall time ({cores} CPUs, load {os.getloadavg()[0]:.1f} at the start, "
        f"cache {os.environ['XDG_CACHE_HOME']}); goal {GOAL[0]}-{GOAL[1]}x",
        flush=True,
    )
    rows = []
    for _ in range(args.passes):
        for n, label in passes:
            rows += one_pass(kinds, n, label, args.record, rows, args.one_session, args.all_frameworks)
    if args.trace:
        import json

        with open(args.trace, "w") as f:
            json.dump([{k: r[k] for k in ("kind", "pass", "estimate", "actual", "trace")} for r in rows], f)
    print("\nkind       " + "".join(f"{label:>24}" for _, label in passes))
    for kind in kinds:
        cells = []
        for _, label in passes:
            got = [r for r in rows if r["kind"] == kind and r["pass"] == label]
            cells.append("  ".join(stated(r) for r in got) or "-")
        print(f"{kind:10} " + "".join(f"{c:>24}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
