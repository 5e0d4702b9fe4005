"""run_scaling(config) -> ScalingResult: plan the launches, run them interleaved, summarise.

Per framework and model: 1 rank and N ranks, each launch doing synced steps then the no-sync
control; repetitions interleaved (rep 1: torch 1, torch N, MindSpore 1, MindSpore N; rep 2: ...)
so drift on a shared host spreads over all configurations instead of biasing one. The parent never
imports a framework: availability is `hostfacts.installed` (find_spec).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from datetime import datetime, timezone
from typing import Callable, Optional

from probes import hostfacts
from probes.launcher import Cancel
from probes.scaling import launch, share
from probes.scaling.models import (
    FrameworkScaling,
    Gate,
    RankCount,
    ScalingConfig,
    ScalingEvent,
    ScalingResult,
    ScalingRun,
    Spread,
    Startup,
)

# Parameters equal after synced steps: DDP and MindSpore both average identically on every rank
# (0.0 measured); a tiny tolerance admits a reduction order that differs per rank on some backends.
SYNC_TOLERANCE = 1e-6
# The no-sync control must move ranks apart by more than noise (0.08-0.39 measured on LeNet).
DIVERGE_THRESHOLD = 1e-4
FRAMEWORK_MODULE = {"pytorch": "torch", "mindspore": "mindspore"}


# Host facts (probes/hostfacts.py), bound here so device_for and the tests see one name each.
usable_cores = hostfacts.usable_cores
nvidia_gpu_count = hostfacts.nvidia_gpu_count
ascend_npu_count = hostfacts.ascend_npu_count


def device_for(framework: str, config: ScalingConfig) -> tuple[str, int]:
    """(device, how many) each framework's ranks use: its accelerator when present, else CPU."""
    if config.device == "auto":
        if framework == "pytorch" and nvidia_gpu_count() > 0:
            return "cuda", nvidia_gpu_count()
        if framework == "mindspore" and ascend_npu_count() > 0:
            return "Ascend", ascend_npu_count()
    return "cpu", 0


def framework_available(framework: str) -> Optional[str]:
    """None when the framework can be imported by a child, else the reason it cannot."""
    if not hostfacts.installed(FRAMEWORK_MODULE[framework]):
        return f"{FRAMEWORK_MODULE[framework]} is not installed in {os.path.dirname(sys.executable)}"
    return None


def default_ranks(device_count: int) -> list[int]:
    """1 and N: N = the host's devices, or 2 on a CPU-only host (or with a single device)."""
    return [1, device_count] if device_count > 1 else [1, 2]


def host_summary() -> dict:
    out = {"usable_cores": usable_cores(), "nvidia_gpus": nvidia_gpu_count(), "ascend_npus": ascend_npu_count()}
    from probes.check.host import collect_host  # never raises: what it cannot read stays None

    cpu = collect_host().cpu
    out.update(cpu_model=cpu.model, physical_cores=cpu.physical_cores, logical_cores=cpu.logical_cores)
    return out


# --------------------------------------------------------------------------------- one launch


def _median(values: list) -> Optional[float]:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _max(values: list) -> Optional[float]:
    values = [v for v in values if v is not None]
    return max(values) if values else None


def to_run(spec: launch.LaunchSpec, rep: int, outcome: launch.LaunchOutcome) -> ScalingRun:
    """Turn rank 0's result file (or the failure) into a validated ScalingRun."""
    run = ScalingRun(
        id=f"{spec.framework}-{spec.model}-r{spec.ranks}-rep{rep}",
        framework=spec.framework,
        launcher=launch.LAUNCHERS[spec.framework],
        model=spec.model,
        ranks=spec.ranks,
        repetition=rep,
        status=outcome.status,
        error=outcome.error,
        command=outcome.command,
        device=spec.device,
        batch_size_per_rank=spec.batch_size,
        threads_per_rank=spec.threads,
        startup=Startup(total_seconds=round(outcome.seconds, 3)),
    )
    doc = outcome.result or {}
    ranks = doc.get("ranks") or []
    if ranks:
        step = _max([_median(r.get("sync_step_s") or []) for r in ranks])
        nosync = _max([_median(r.get("nosync_step_s") or []) for r in ranks])
        run.backend, run.world_size = doc.get("backend"), doc.get("world_size")
        if step:
            run.step_ms = step * 1000.0
            run.images_per_second = spec.ranks * spec.batch_size / step
        if nosync:
            run.nosync_step_ms = nosync * 1000.0
        if step and nosync:  # the share, judged against the control's noise (probes/scaling/share.py)
            verdict = share.judge(spec.ranks, ranks)
            run.allreduce_share, run.allreduce_share_note = verdict.share, verdict.note
            run.allreduce_noise, run.sync_nosync_difference = verdict.noise, verdict.difference
        run.startup = Startup(
            launcher_seconds=_max([r.get("launcher_seconds") for r in ranks]),
            import_seconds=_max([r.get("import_seconds") for r in ranks]),
            init_seconds=_max([r.get("init_seconds") for r in ranks]),
            build_seconds=_max([r.get("build_seconds") for r in ranks]),
            first_step_seconds=_max([r.get("first_step_seconds") for r in ranks]),
            total_seconds=round(outcome.seconds, 3),
        )
        r0 = ranks[0]
        run.loss_first, run.loss_last = r0.get("loss_first"), r0.get("loss_last")
        run.weights_checksum, run.framework_version = r0.get("weights_checksum"), r0.get("framework_version")
    gate = doc.get("gate")
    if gate and spec.ranks > 1:
        identical = gate["sync_max_abs_diff"] <= SYNC_TOLERANCE
        diverged = gate["nosync_max_abs_diff"] > DIVERGE_THRESHOLD
        run.gate = Gate(**gate, params_identical=identical, control_diverged=diverged, ok=identical and diverged)
        if run.status == "ok" and run.world_size != spec.ranks:
            run.status, run.error = "failed", f"world size {run.world_size}, expected {spec.ranks}"
        elif run.status == "ok" and not run.gate.ok:
            run.status = "failed"
            run.error = "correctness gate failed: " + (
                f"parameters differ across ranks after synced steps (max |diff| {gate['sync_max_abs_diff']:.3g})"
                if not identical
                else f"the no-sync control did not diverge (max |diff| {gate['nosync_max_abs_diff']:.3g}),"
                " so the check cannot tell synced from unsynced"
            )
    if run.status != "ok":
        run.output_tail = outcome.output_tail[-3000:] or None
    return run


# -------------------------------------------------------------------------------------- summary


def spread(values: list) -> Optional[Spread]:
    values = [float(v) for v in values if v is not None]
    if not values:
        return None
    return Spread(median=statistics.median(values), min=min(values), max=max(values), n=len(values))


def summarise(
    framework: str, model: str, runs: list[ScalingRun], ranks: list[int], device: str, batch_size: int, threads: int
) -> FrameworkScaling:
    mine = [r for r in runs if r.framework == framework and r.model == model]
    ok = [r for r in mine if r.status == "ok"]
    base = {r.repetition: r for r in ok if r.ranks == 1}
    counts = []
    for n in ranks:
        at_n = [r for r in ok if r.ranks == n]
        paired = [(base[r.repetition], r) for r in at_n if r.repetition in base]
        multi = n > 1
        counts.append(
            RankCount(
                ranks=n,
                runs_ok=len(at_n),
                runs_total=len([r for r in mine if r.ranks == n]),
                images_per_second=spread([r.images_per_second for r in at_n]),
                step_ms=spread([r.step_ms for r in at_n]),
                nosync_step_ms=spread([r.nosync_step_ms for r in at_n]),
                allreduce_share=spread([r.allreduce_share for r in at_n]),
                allreduce_share_note=share.summary_note(n, at_n) if at_n else None,
                sync_nosync_difference=spread([r.sync_nosync_difference for r in at_n]),
                efficiency=spread(
                    [
                        r.images_per_second / (n * b.images_per_second)
                        for b, r in paired
                        if r.images_per_second and b.images_per_second
                    ]
                )
                if multi
                else None,
                contention_factor=spread(
                    [b.step_ms / r.nosync_step_ms for b, r in paired if b.step_ms and r.nosync_step_ms]
                )
                if multi
                else None,
                communication_factor=spread(
                    [r.nosync_step_ms / r.step_ms for r in at_n if r.step_ms and r.nosync_step_ms]
                )
                if multi
                else None,
                launcher_seconds=spread([r.startup.launcher_seconds for r in at_n]),
                init_seconds=spread([r.startup.init_seconds for r in at_n]),
                first_step_seconds=spread([r.startup.first_step_seconds for r in at_n]),
                total_seconds=spread([r.startup.total_seconds for r in at_n]),
                gate_ok=(all(r.gate is not None and r.gate.ok for r in at_n) if at_n else None) if multi else None,
            )
        )
    status = "ok" if mine and len(ok) == len(mine) else ("partial" if ok else "failed")
    if any(r.status == "cancelled" for r in mine) and not ok:
        status = "cancelled"
    failed = [r for r in mine if r.status != "ok"]
    top = next((c for c in reversed(counts) if c.ranks > 1 and c.efficiency), None)
    top_share = next((c for c in reversed(counts) if c.ranks > 1 and c.allreduce_share), None)
    return FrameworkScaling(
        framework=framework,
        launcher=launch.LAUNCHERS[framework],
        model=model,
        status=status,
        reason=f"{failed[0].id}: {failed[0].error}" if failed else None,
        device=device,
        backend=next((r.backend for r in ok if r.backend), None),
        batch_size_per_rank=batch_size,
        threads_per_rank=threads,
        rank_counts=counts,
        efficiency=top.efficiency.median if top else None,
        allreduce_share=top_share.allreduce_share.median if top_share else None,
    )


def label_for(devices: dict, ranks: list[int], cores: int, threads: int) -> tuple[str, str]:
    if devices and all(d != "cpu" for d in devices.values()):
        return "device-scaling", "one rank per accelerator: device scaling on this host"
    return "cpu-contention", (
        f"CPU-only: up to {max(ranks)} ranks x {threads} thread(s) share {cores} usable core(s); "
        "these numbers measure communication plus contention on shared cores, not device scaling"
    )


# ------------------------------------------------------------------------------------------ run


def run_scaling(
    config: Optional[ScalingConfig] = None,
    on_event: Optional[Callable[[ScalingEvent], None]] = None,
    cancel: Optional[Cancel] = None,
) -> ScalingResult:
    """Run the scaling probe. Never raises for a failing framework or rank: that is data."""
    config = config or ScalingConfig()
    start = time.monotonic()
    cores = usable_cores()
    warnings: list[str] = []
    frameworks, unavailable, devices, ranks_of = [], {}, {}, {}
    for fw in config.frameworks:
        reason = framework_available(fw)
        if reason:
            unavailable[fw] = reason
            continue
        device, count = device_for(fw, config)
        ranks = config.ranks or default_ranks(count)
        if device != "cpu":
            too_many = [n for n in ranks if n > count]
            if too_many:
                warnings.append(f"{fw}: {too_many} ranks exceed the host's {count} {device} devices; skipped")
                ranks = [n for n in ranks if n <= count] or [1]
        frameworks.append(fw)
        devices[fw], ranks_of[fw] = device, ranks
    all_ranks = sorted({n for rs in ranks_of.values() for n in rs}) or (config.ranks or [1, 2])
    threads = config.threads_per_rank or max(1, cores // max(all_ranks))
    if any(d == "cpu" for d in devices.values()) and max(all_ranks) * threads > cores:
        warnings.append(
            f"{max(all_ranks)} ranks x {threads} thread(s) oversubscribe {cores} usable "
            "core(s): the N-rank figures include time-slicing"
        )
    if config.repeat < 3:
        warnings.append(f"{config.repeat} repetition(s): fewer than 3, the min-max spread is not meaningful")

    load_start = _loadavg()
    plan = []
    for rep in range(1, config.repeat + 1):
        for model in config.models:
            for fw in frameworks:
                order = ranks_of[fw] if rep % 2 else list(reversed(ranks_of[fw]))  # ABBA-ish
                for n in order:
                    plan.append(
                        (
                            rep,
                            launch.LaunchSpec(
                                framework=fw,
                                ranks=n,
                                model=model,
                                batch_size=config.batch_size,
                                steps=config.steps,
                                warmup=config.warmup,
                                threads=threads,
                                device=devices[fw],
                                timeout=config.timeout,
                            ),
                        )
                    )
    runs: list[ScalingRun] = []
    for i, (rep, spec) in enumerate(plan):
        run_id = f"{spec.framework}-{spec.model}-r{spec.ranks}-rep{rep}"
        if cancel is not None and cancel.is_set():
            break
        _emit(
            on_event,
            ScalingEvent(
                kind="start",
                run_id=run_id,
                fraction=i / len(plan),
                index=i + 1,
                total=len(plan),
                message=f"{launch.LAUNCHERS[spec.framework]}: {spec.model}, "
                f"{spec.ranks} rank(s), repetition {rep}/{config.repeat}",
            ),
        )

        def progress(stage: str, frac: float, i=i, run_id=run_id) -> None:
            _emit(
                on_event,
                ScalingEvent(
                    kind="progress",
                    run_id=run_id,
                    fraction=(i + frac) / len(plan),
                    run_fraction=frac,
                    index=i + 1,
                    total=len(plan),
                    message=f"{run_id}: {stage} {frac:.0%}",
                ),
            )

        run = to_run(spec, rep, launch.run_launch(spec, cancel=cancel, on_progress=progress))
        runs.append(run)
        what = (
            f"{run.images_per_second:,.0f} img/s total"
            if run.status == "ok" and run.images_per_second
            else f"{run.status}: {run.error}"
        )
        _emit(
            on_event,
            ScalingEvent(
                kind="done",
                run_id=run_id,
                fraction=(i + 1) / len(plan),
                message=f"{run_id}: {what}",
                run=run,
                index=i + 1,
                total=len(plan),
            ),
        )

    results = [
        summarise(fw, model, runs, ranks_of[fw], devices[fw], config.batch_size, threads)
        for model in config.models
        for fw in frameworks
    ]
    for fw, reason in unavailable.items():
        for model in config.models:
            results.append(
                FrameworkScaling(
                    framework=fw,
                    launcher=launch.LAUNCHERS[fw],
                    model=model,
                    status="unavailable",
                    reason=reason,
                    batch_size_per_rank=config.batch_size,
                    threads_per_rank=threads,
                )
            )
    label, text = label_for(devices, all_ranks, cores, threads)
    host = host_summary()
    host.update(loadavg_start=load_start, loadavg_end=_loadavg())
    warnings += noise_warnings(results, host, cores)
    return ScalingResult(
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        host=host,
        label=label,
        label_text=text,
        config=config,
        frameworks=results,
        runs=runs,
        warnings=warnings,
        seconds=round(time.monotonic() - start, 2),
    )


def _loadavg() -> Optional[float]:
    loads = hostfacts.loadavg()
    return loads[0] if loads else None


# A single rank has nothing to allreduce, so its "allreduce share" is pure measurement noise.
NOISE_SHARE = 0.10


def noise_warnings(results: list, host: dict, cores: int) -> list[str]:
    """Say when the host was too busy for the figures to mean much (they are still reported)."""
    out = []
    loads = [v for v in (host.get("loadavg_start"), host.get("loadavg_end")) if v is not None]
    if loads and max(loads) > cores:
        out.append(
            f"the host was busy (1-min load average up to {max(loads):.1f} on {cores} usable "
            "core(s)): other processes competed with the ranks; expect wide min-max spreads"
        )
    for fw in results:
        one = next((c for c in fw.rank_counts if c.ranks == 1 and c.sync_nosync_difference), None)
        if one and abs(one.sync_nosync_difference.median) > NOISE_SHARE:
            out.append(
                f"{fw.framework} {fw.model}: at 1 rank (nothing to allreduce) synced and no-sync "
                f"steps still differ by {one.sync_nosync_difference.median:+.0%}: that is the noise floor "
                "of the allreduce share on this host now"
            )
    return out


def _emit(on_event, event: ScalingEvent) -> None:
    if on_event is None:
        return
    try:
        on_event(event)
    except Exception:  # a display problem must not lose the measurement
        pass
