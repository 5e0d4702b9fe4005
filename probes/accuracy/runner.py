"""Runs the accuracy probe: data prepared once per seed in the parent, then every (framework, mode)
trained in its own child, seed by seed, so a drifting host moves every run of a seed alike."""

from __future__ import annotations

import datetime as dt
import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

from probes import hostfacts, launcher
from probes.accuracy import data
from probes.accuracy.models import RUNS, AccuracyConfig, AccuracyGap, AccuracyRun, AccuracySuite
from probes.training.runner import idle_cores, round_threads

WORKER = {"pytorch": "probes.accuracy.worker_torch", "mindspore": "probes.accuracy.worker_mindspore"}


def plan(config: AccuracyConfig) -> list[tuple[str, str]]:
    return [(fw, mode) for fw in config.frameworks for mode in RUNS[fw] if mode in config.modes]


def to_target(run: AccuracyRun, target: float) -> None:
    """Fill final accuracy and time-to-target from the per-epoch curve (compile in and apart)."""
    if not run.accuracy:
        return
    run.final_accuracy = run.accuracy[-1]
    steps = run.settings.pop("step_seconds", None) or []
    if run.first_step_seconds is not None and steps:
        run.compile_seconds = max(0.0, run.first_step_seconds - statistics.median(steps))
    hit = next((i for i, acc in enumerate(run.accuracy) if acc >= target), None)
    if hit is None:
        return
    run.epochs_to_target = hit + 1
    run.seconds_to_target = sum(run.epoch_seconds[: hit + 1])
    run.seconds_to_target_steady = run.seconds_to_target - (run.compile_seconds or 0.0)


def gap(a: list[AccuracyRun], b: list[AccuracyRun]) -> Optional[AccuracyGap]:
    """a minus b in final accuracy, paired by seed; 95% t interval over seeds (one seed: the value)."""
    pairs = {r.seed: r.final_accuracy for r in a if r.final_accuracy is not None}
    diffs = [pairs[r.seed] - r.final_accuracy for r in b if r.final_accuracy is not None and r.seed in pairs]
    if not diffs or not a or not b:
        return None
    mean = statistics.fmean(diffs)
    if len(diffs) > 1:
        from scipy import stats

        half = stats.t.ppf(0.975, len(diffs) - 1) * statistics.stdev(diffs) / len(diffs) ** 0.5
    else:
        half = 0.0
    return AccuracyGap(
        a=f"{a[0].framework}-{a[0].mode}",
        b=f"{b[0].framework}-{b[0].mode}",
        per_seed=diffs,
        mean=mean,
        ci95=[mean - half, mean + half],
        max_abs=max(abs(d) for d in diffs),
    )


def _run_one(
    fw: str,
    mode: str,
    seed: int,
    npz: Path,
    config: AccuracyConfig,
    cancel: Optional[launcher.Cancel],
    on_message: Optional[Callable[[dict], None]],
) -> AccuracyRun:
    args = [
        "-m",
        WORKER[fw],
        "--npz",
        str(npz),
        "--mode",
        mode,
        "--batch-size",
        str(config.batch_size),
        "--lr",
        str(config.lr),
        "--target",
        str(config.target),
    ]
    # the threads found idle just before the child, as a training round takes them: on every core beside a
    # busy session its threads waited for one another at each step (a run took 113-117 s beside three
    # busy sessions on 2 cores where one thread took 44-58 s)
    threads, why = round_threads(config, idle_cores() if not config.threads else None)
    args += ["--threads", str(threads)]
    env = {"OMP_NUM_THREADS": str(threads)}
    out = launcher.run_child(args, timeout=config.timeout, env_extra=env, cancel=cancel, on_message=on_message)
    run_id = f"{fw}-{mode}-seed{seed}"
    if not out.ok:
        return AccuracyRun(
            id=run_id, framework=fw, mode=mode, seed=seed, status=out.status, error=out.error, seconds=out.seconds
        )
    res = dict(out.result)
    res.pop("kind", None)
    status = res.pop("status", "ok")
    settings = res.pop("settings", {}) or {}
    settings.update(threads=threads, threads_why=why)
    settings["step_seconds"] = res.pop("step_seconds", [])
    run = AccuracyRun(
        id=run_id,
        seed=seed,
        status=status,
        settings=settings,
        seconds=out.seconds,
        **{k: v for k, v in res.items() if k not in ("framework", "mode")},
        framework=fw,
        mode=mode,
    )
    to_target(run, config.target)
    return run


def run_suite(
    config: AccuracyConfig,
    cancel: Optional[launcher.Cancel] = None,
    on_event: Optional[Callable[[str, dict], None]] = None,
) -> AccuracySuite:
    start = time.monotonic()
    suite = AccuracySuite(config=config, created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
    jobs = plan(config)
    missing = not_installed(config)
    with tempfile.TemporaryDirectory(prefix="advisor-accuracy-") as tmp:
        for seed in range(config.seeds):
            npz = Path(tmp) / f"seed{seed}.npz"
            suite.data = data.prepare(npz, seed=seed, epochs=config.epochs, data=config.data)
            for fw, mode in jobs:
                run_id = f"{fw}-{mode}-seed{seed}"
                if on_event:
                    on_event(run_id, {"kind": "start"})
                hook = (lambda msg, rid=run_id: on_event(rid, msg)) if on_event else None
                if fw in missing:  # no child: it would fail at its first import, counted as a failure
                    run = AccuracyRun(id=run_id, framework=fw, mode=mode, seed=seed, status="unavailable",
                                      error=missing[fw])  # fmt: skip
                else:
                    run = _run_one(fw, mode, seed, npz, config, cancel, hook)
                suite.runs.append(run)
                if on_event:
                    on_event(run_id, {"kind": "done", "run": run})
                if cancel is not None and cancel.is_set():
                    break
    by_job = {
        (fw, mode): [r for r in suite.runs if (r.framework, r.mode) == (fw, mode) and r.status == "ok"]
        for fw, mode in jobs
    }
    baseline = next(((fw, m) for fw, m in jobs if fw == "pytorch"), None)
    for fw, mode in jobs:
        if baseline and fw != "pytorch":
            g = gap(by_job[baseline], by_job[(fw, mode)])
            if g:
                suite.gaps.append(g)
    if config.seeds == 1:
        suite.warnings.append("one seed: the accuracy gap has no spread; use --seeds 3 for an interval")
    suite.seconds = time.monotonic() - start
    return suite


def not_installed(config: AccuracyConfig) -> dict[str, str]:
    """{framework: why} for the chosen frameworks this interpreter cannot import (found, never imported)."""
    return {fw: hostfacts.not_installed_reason(fw) for fw in hostfacts.missing_frameworks(config.frameworks)}


NORMALIZE_CHECK = "normalize-check"  # its run id in the progress plan (advisor.progress)


def run_normalize_check(timeout: float = 300, cancel: Optional[launcher.Cancel] = None) -> dict:
    """MindSpore's Normalize on 0-255 bytes against the 0-1 floats it expects (worker_normalize), live."""
    with tempfile.TemporaryDirectory(prefix="advisor-normalize-") as tmp:
        npz = Path(tmp) / "u8.npz"
        data.prepare_uint8(npz)
        out = launcher.run_child(
            ["-m", "probes.accuracy.worker_normalize", "--npz", str(npz)], timeout=timeout, cancel=cancel
        )
    if not out.ok:
        return {"status": out.status, "error": out.error}
    res = dict(out.result)
    res.pop("kind", None)
    return res


def run(
    config: AccuracyConfig,
    cancel: Optional[launcher.Cancel] = None,
    on_event: Optional[Callable[[str, dict], None]] = None,
) -> AccuracySuite:
    """The accuracy kind's run (probes.base.KINDS["accuracy"]), the same for the CLI and the TUI: the
    suite, then, with MindSpore chosen and not cancelled, the Normalize check. Each worker's per-epoch
    message also says its fraction of the run and, in words, the test accuracy it reached."""

    def said(run_id: str, msg: dict) -> None:
        if msg.get("kind") == "progress" and "epoch" in msg and msg.get("epochs"):
            msg = {**msg, "fraction": float(msg["epoch"]) / float(msg["epochs"])}
            if msg.get("accuracy") is not None:
                msg["message"] = f"epoch {msg['epoch']}/{msg['epochs']}: test accuracy {float(msg['accuracy']):.1%}"
        on_event(run_id, msg)

    suite = run_suite(config, cancel=cancel, on_event=said if on_event else None)
    if "mindspore" not in config.frameworks or (cancel is not None and cancel.is_set()):
        return suite
    if "mindspore" in not_installed(config):
        return suite  # its runs say why; the check would fail at the same import
    if on_event:
        on_event(NORMALIZE_CHECK, {"kind": "start", "message": "MindSpore Normalize 0-1 vs 0-255"})
    suite.normalize_check = check = run_normalize_check(cancel=cancel)
    if on_event:
        on_event(NORMALIZE_CHECK, {"kind": "done", "status": check.get("status", "ok"), "message": check.get("error")})
    return suite
