"""Runs the training-probe suite: one fresh child per (framework, mode, model) through
probes.launcher, plus one aux child per framework (GEMM peak + parity arrays). Never imports a
framework itself; validates what the workers send into probes.training.models.


    suite = run_suite(ProbeConfig(budget=6), on_event=print, cancel=Cancel())
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import shutil
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from pydantic import ValidationError

from probes import hostfacts, launcher, quality
from probes.training import parity
from probes.launcher import Cancel
from probes.training.models import (
    MODES_OF,
    HostSummary,
    ParityResult,
    ProbeConfig,
    ProbeEvent,
    ProbeRun,
    ProbeSuite,
    run_id,
)

WORKER = {"pytorch": "probes.training.worker_torch", "mindspore": "probes.training.worker_mindspore"}

EventCallback = Callable[[ProbeEvent], None]


# ------------------------------------------------------------------ host and set-up (pure parts)

# One home for host facts: probes/hostfacts.py. The names stay importable here (tests patch them).
installed_frameworks = hostfacts.installed_frameworks
usable_cores = hostfacts.usable_cores
cpu_times = hostfacts.cpu_times
steal_fraction = hostfacts.steal_fraction
_loadavg = hostfacts.loadavg


def host_summary() -> HostSummary:
    """What the numbers depend on (probes.check.host never raises: what it cannot read stays empty)."""
    from probes.check.host import collect_host

    info = collect_host()
    h = HostSummary(
        os=platform.system(),
        kernel=platform.release(),
        python=platform.python_version(),
        logical_cores=info.cpu.logical_cores or usable_cores(),
        loadavg_before=_loadavg(),
        cpu_model=info.cpu.model,
        physical_cores=info.cpu.physical_cores,
        memory_total_mb=info.memory.total_mb,
        avx512="avx512f" in (info.cpu.flags or []),
    )
    h.fingerprint = fingerprint(h)
    return h


def fingerprint(h: HostSummary) -> str:
    """Stable id of what the measurements depend on: CPU, cores, memory, OS, Python, frameworks."""
    return hostfacts.fingerprint(h.cpu_model, h.logical_cores, h.memory_total_mb, installed_frameworks())


def mindspore_env(avx512: Optional[bool], tune: bool, device: str) -> tuple[dict, list[str]]:
    """Environment for MindSpore children and the notes that go into the result.

    On AVX-512 CPUs MindSpore's bundled oneDNN picks reference conv kernels (~100x slower);
    capping oneDNN at AVX2 selects the JIT GEMM kernels. Never applied to torch."""
    env = {"GLOG_v": "3"}
    notes = []
    if tune and avx512 and device in ("auto", "cpu"):
        env["ONEDNN_MAX_CPU_ISA"] = "AVX2"
        notes.append(
            "ONEDNN_MAX_CPU_ISA=AVX2 for MindSpore: on this AVX-512 CPU its oneDNN would "
            "pick reference convolution kernels (use --no-tune to measure that default)"
        )
    elif not tune and avx512:
        notes.append("untuned (--no-tune): MindSpore convolutions may run oneDNN reference kernels on this AVX-512 CPU")
    return env, notes


def default_compile_cache() -> str:
    return str(hostfacts.cache_dir() / "torchinductor")


def run_timeout(config: ProbeConfig, mode: str, model: str, budget: Optional[float] = None) -> float:
    """Generous: start-up + compile allowance + the budget with its 3x hard cap."""
    if config.timeout:
        return config.timeout
    t = 60.0 + 4.0 * (budget or config.budget)
    if mode in ("compile", "graph"):
        t += 120.0
    if model == "resnet50":
        t += 120.0
    return t * max(1.0, config.batch_size / 64.0) if model != "lenet" else t


@dataclass(frozen=True)
class Job:
    framework: str
    mode: str
    model: str
    batch_size: int
    repeat: int = 0  # the round this run belongs to
    threads: int = 0  # 0 = config.threads or the usable cores
    budget: float = 0.0  # 0 = config.budget

    @property
    def id(self) -> str:
        return run_id(self.framework, self.mode, self.model, self.batch_size)


def round_specs(config: ProbeConfig) -> list[tuple[str, str]]:
    """The (framework, mode) pairs of one round, in the order they alternate."""
    return [(fw, mode) for fw in config.frameworks for mode in MODES_OF[fw] if mode in config.modes]


def plan_jobs(config: ProbeConfig) -> list[Job]:
    """The first `repeat` rounds, interleaved: for each model and round, alternate (P M P M)."""
    return [
        Job(fw, mode, model, config.batch_size, rep)
        for model in config.models
        for rep in range(config.repeat)
        for fw, mode in round_specs(config)
    ]


# ------------------------------------------------------------------ the host, right before a round
# Per model the runs go in interleaved rounds (A B A B ..., fresh processes), each round with the
# threads found idle just before it; probes.quality grades every run and builds the paired
# comparisons; while one is not decidable and config.max_repeat allows, another round runs at twice
# the budget, at most BUDGET_CAP_FACTOR x --budget.

BUDGET_CAP_FACTOR = 4  # assumption: the calibration benchmark's 4x budget
IDLE_WINDOW_S = 0.5  # the /proc/stat window that counts the idle cores before a round


def idle_cores(window: float = IDLE_WINDOW_S) -> Optional[float]:
    """Cores nobody used during `window` seconds (from /proc/stat via cpu_times()), at most the
    usable ones; None where /proc/stat is unreadable."""
    before = cpu_times()
    time.sleep(window)
    after = cpu_times()
    if not before or not after or after["total"] <= before["total"]:
        return None
    frac = (after["idle"] - before["idle"]) / (after["total"] - before["total"])
    return round(min(float(usable_cores()), frac * (os.cpu_count() or usable_cores())), 2)


def round_threads(config: ProbeConfig, idle: Optional[float]) -> tuple[int, str]:
    """(threads, why): --threads if given, else the idle cores (rounded, at least 1)."""
    cores = usable_cores()
    if config.threads:
        why = "--threads"
        if idle is not None and config.threads > idle + 0.5:
            why += f" (only {idle:.1f} of {cores} cores were idle before this round)"
        return config.threads, why
    if idle is None:
        return cores, "usable cores (idle cores not readable)"
    threads = max(1, min(cores, int(idle + 0.5)))
    return threads, f"idle cores: {idle:.1f} of {cores} were idle before this round"


def run_load(before: Optional[dict], after: Optional[dict], child_cpu_s: float, wall_s: float, threads: int) -> dict:
    """What else ran during one child: steal share, other processes' cores (all busy CPU time minus
    this child's own, from RUSAGE_CHILDREN), and the contention: the share of the run's threads
    that those other processes took, max(0, foreign + threads - cores) / threads."""
    out: dict = {}
    steal = steal_fraction(before, after)
    if steal is not None:
        out["steal"] = round(steal, 4)
    if before and after and wall_s > 0:
        hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        busy_s = (after["busy"] - before["busy"]) / hz
        out.update(_contention((busy_s - child_cpu_s) / wall_s, threads, os.cpu_count() or usable_cores()))
    out["load_measured_over"] = "the whole child process (start-up included)"
    return out


def window_load(window: Optional[list], threads: int) -> Optional[dict]:
    """run_load over the timed measurement only, from the worker's two cpu_snapshot()s: start-up,
    compile and the compile workers' exit do not count there. None when the worker sent none."""
    try:
        a, b = window
        wall = b["wall_s"] - a["wall_s"]
        total = b["total_s"] - a["total_s"]
        busy, own = b["busy_s"] - a["busy_s"], b["self_cpu_s"] - a["self_cpu_s"]
        cores = int(b["cpus"])
    except (TypeError, ValueError, KeyError):
        return None
    if wall <= 0 or total <= 0:
        return None
    out = {
        "steal": round((b["steal_s"] - a["steal_s"]) / total, 4),
        **_contention(busy / wall - own / wall, threads, cores),
    }
    out["load_measured_over"] = "the timed measurement"
    return out


def _contention(foreign: float, threads: int, cores: int) -> dict:
    foreign = max(0.0, foreign)
    return {"foreign_cores": round(foreign, 2), "contention": round(max(0.0, foreign + threads - cores) / threads, 3)}


def _children_cpu_s() -> float:
    import resource  # POSIX; the runner's children are waited for, so their CPU time is counted

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


# ------------------------------------------------------------------ children


def _child_env(
    framework: str, config: ProbeConfig, ms_env: dict, compile_cache: str, threads: Optional[int] = None
) -> dict:
    threads = str(threads or config.threads or usable_cores())
    env = {"OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}
    if framework == "mindspore":
        env.update(ms_env)
    else:
        env["ONEDNN_MAX_CPU_ISA"] = None  # never for torch (it slows torch down)
        env["TORCHINDUCTOR_CACHE_DIR"] = compile_cache
    return env


def _run_from_outcome(job: Job, config: ProbeConfig, out: launcher.ChildOutcome) -> ProbeRun:
    base = dict(
        id=job.id,
        framework=job.framework,
        mode=job.mode,
        model=job.model,
        batch_size=config.batch_size,
        seconds=round(out.seconds, 3),
    )
    res = dict(out.result or {})
    res.pop("kind", None)
    if out.status == "ok" and res.get("status") == "ok":
        res.pop("warmup_step_ms", None)
        res.pop("ci95", None)  # recomputed from the raw samples with scipy (probes.quality)
        res.pop("load_window", None)  # turned into settings steal / foreign_cores / contention
        res.update(base)
        try:
            return ProbeRun(**res)
        except ValidationError as exc:
            return ProbeRun(
                **base, status="failed", error=f"the worker sent an invalid result: {str(exc).splitlines()[0]}"
            )
    if out.status == "ok" and res.get("status") == "unavailable":
        return ProbeRun(**base, status="unavailable", error=res.get("error"), settings=res.get("settings") or {})
    status = {"timeout": "timeout", "cancelled": "cancelled"}.get(out.status, "failed")
    error = out.error or res.get("error") or "no result"
    return ProbeRun(**base, status=status, error=error)


def _run_job(
    job: Job,
    config: ProbeConfig,
    env: dict,
    on_event: Optional[EventCallback],
    cancel: Optional[Cancel],
    index: int,
    total: int,
) -> ProbeRun:
    threads = job.threads or config.threads or usable_cores()
    budget = job.budget or config.budget
    args = [
        "-m",
        WORKER[job.framework],
        "run",
        "--model",
        job.model,
        "--mode",
        job.mode,
        "--batch-size",
        str(config.batch_size),
        "--budget",
        str(budget),
        "--threads",
        str(threads),
        "--device",
        config.device,
        "--t-crit",
        f"{quality.stop_rule_t():.6f}",
    ]
    if config.data:
        args += ["--data", str(Path(config.data).expanduser().resolve())]
    if config.max_steps:
        args += ["--max-steps", str(config.max_steps)]
    if job.framework == "mindspore" and env.get("ONEDNN_MAX_CPU_ISA"):
        args += ["--tuned", "ONEDNN_MAX_CPU_ISA=AVX2"]

    def on_message(msg: dict) -> None:
        if msg.get("kind") == "progress" and on_event is not None:
            on_event(
                ProbeEvent(
                    run_id=job.id,
                    kind="progress",
                    fraction=msg.get("fraction"),
                    step_ms=msg.get("step_ms"),
                    images_per_second=msg.get("images_per_second"),
                    message=msg.get("phase"),
                    index=index,
                    total=total,
                )
            )

    env = {**env, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    if env.get("TORCHINDUCTOR_CACHE_DIR"):
        # One cache folder per workload, so "warm" means this model and batch compiled before,
        # not that another model's kernels sit in a shared folder.
        env = {
            **env,
            "TORCHINDUCTOR_CACHE_DIR": os.path.join(
                env["TORCHINDUCTOR_CACHE_DIR"], f"{job.model}-bs{config.batch_size}-{config.device}"
            ),
        }
    load_start = _loadavg()
    cpu_before, child_cpu, t0 = cpu_times(), _children_cpu_s(), time.monotonic()
    out = launcher.run_child(
        args,
        timeout=run_timeout(config, job.mode, job.model, budget),
        env_extra=env,
        on_message=on_message,
        cancel=cancel,
    )
    load = window_load((out.result or {}).get("load_window"), threads) or run_load(
        cpu_before, cpu_times(), _children_cpu_s() - child_cpu, time.monotonic() - t0, threads
    )
    run = _run_from_outcome(job, config, out)
    run.settings.update(round=job.repeat, budget=budget, **load)
    if load_start:
        run.settings["loadavg_at_start"] = load_start
    quality.assess(run)  # the load, steal and contention above are part of its rule
    return run


def _aux(
    framework: str, config: ProbeConfig, env: dict, models: list[str], outdir: str, cancel: Optional[Cancel]
) -> launcher.ChildOutcome:
    args = [
        "-m",
        WORKER[framework],
        "aux",
        "--out",
        outdir,
        "--models",
        ",".join(models),
        "--threads",
        str(config.threads or usable_cores()),
        "--device",
        config.device,
    ]
    if not config.gemm:
        args.append("--no-gemm")
    timeout = config.timeout or (90.0 + 60.0 * len(models) + 120.0 * ("resnet50" in models))
    return launcher.run_child(args, timeout=timeout, env_extra=env, cancel=cancel)


def _merge_repeats(runs: list[ProbeRun]) -> list[ProbeRun]:
    """--repeat: one run per id, the median-throughput usable repeat as its body, all values listed.
    Unusable repeats are listed but left out of the median (all unusable: the median of all)."""
    by_id: dict[str, list[ProbeRun]] = {}
    for r in runs:
        by_id.setdefault(r.id, []).append(r)
    merged = []
    for rid, group in by_id.items():
        ok = [r for r in group if r.status == "ok" and r.images_per_second]
        if len(group) == 1 or not ok:
            merged.append(group[0])
            continue
        usable = [r for r in ok if r.quality != "unusable"]
        pool = sorted(usable or ok, key=lambda r: r.images_per_second)
        body = pool[(len(pool) - 1) // 2].model_copy(deep=True)
        values = [r.images_per_second for r in pool]
        body.repeats = [r.images_per_second for r in ok]
        # The median repeat itself (the lower middle one for an even count): its CI and quality
        # belong to the number shown.
        body.images_per_second = statistics.median_low(values)
        if len(ok) < len(group):
            body.warnings.append(f"{len(group) - len(ok)} of {len(group)} repeats did not finish")
        if body.quality is not None:
            quality.merge_quality(body, values, len(usable), len(ok))
        _first_start_up(body, ok[0] if ok[0] is group[0] else None, ok)
        merged.append(body)
    return merged


START_UP = ("first_step_seconds", "compile_seconds", "import_seconds", "build_seconds")
FIRST_SETTINGS = ("compile_cache", "inductor_cache_files_before")


def _first_start_up(body: ProbeRun, first: Optional[ProbeRun], ok: list[ProbeRun]) -> None:
    """Start-up (import, build, first step, compile) is what a user meets once, with cold caches: the
    merged run keeps the first round's, and lists every repeat's compile time."""
    if any(r.compile_seconds is not None for r in ok):
        body.settings["compile_seconds_repeats"] = [r.compile_seconds for r in ok]
    if first is None:
        return
    for name in START_UP:
        setattr(body, name, getattr(first, name))
    for key in FIRST_SETTINGS:
        if key in first.settings:
            body.settings[key] = first.settings[key]
    body.settings["start_up_from"] = "the first round (cold caches)"


def _rounds(runs: list[ProbeRun], model: str) -> dict[int, dict[str, ProbeRun]]:
    out: dict[int, dict[str, ProbeRun]] = {}
    for r in runs:
        if r.model == model:
            out.setdefault(int(r.settings.get("round", 0)), {})[r.id] = r
    return out


def model_comparisons(runs: list[ProbeRun], model: str, ids: list[str]) -> list:
    """The paired comparisons of one model's runs so far (each merged side's quality decides too)."""
    sides = {
        r.id: (r.quality if r.status == "ok" else None) for r in _merge_repeats([r for r in runs if r.model == model])
    }
    return quality.comparisons(model, ids, _rounds(runs, model), sides)


def _undecided(runs: list[ProbeRun], model: str, ids: list[str]) -> list[str]:
    """What another round could still settle: comparisons not decidable whose sides both produced a
    result at least once; a lone run that is not stable."""
    ran = {r.id for r in runs if r.model == model and r.status == "ok"}
    if len(ids) == 1:
        merged = [r for r in _merge_repeats([r for r in runs if r.model == model]) if r.status == "ok"]
        return [r.id for r in merged if r.quality != "stable"]
    return [
        f"{c.a} vs {c.b}" for c in model_comparisons(runs, model, ids) if not c.decidable and c.a in ran and c.b in ran
    ]


# MFU is a ratio of two measurements: the run's FLOP/s and the GEMM peak measured before it. Taken
# under different contention it says more about the load than the network (a PyTorch ResNet-18 at "97%"
# of a peak measured while the host was busy). Reported only when the other processes' busy cores during
# the run and during the GEMM peak's child differ by at most this much (assumption: half a core, the
# contention grade's own resolution on a 2-core host), by the same rule for every framework.
MFU_LOAD_MATCH_CORES = 0.5
MFU_NOT_COMPARABLE = "MFU not reported: the GEMM peak was measured under other load than this run"
MFU_ABOVE_PEAK = "MFU not reported: the run achieved more than the GEMM peak measured before it (the load changed)"


def _add_efficiency(suite: ProbeSuite) -> None:
    """Achieved GFLOP/s and MFU against the GEMM peak measured here, when both were measured under
    comparable load. The vendor's datasheet peak is judging (advisor.decision.vendor_peak)."""
    for r in suite.runs:
        if r.status != "ok" or not r.images_per_second or not r.train_flops_per_image:
            continue
        r.achieved_gflops = r.images_per_second * r.train_flops_per_image / 1e9
        peak = suite.gemm_peak.get(r.framework)
        details = suite.gemm_details.get(r.framework, {})
        if not peak or r.device != details.get("device"):
            continue
        then, now = details.get("foreign_cores"), r.settings.get("foreign_cores")
        if isinstance(then, (int, float)) and isinstance(now, (int, float)) and abs(then - now) > MFU_LOAD_MATCH_CORES:
            r.warnings.append(MFU_NOT_COMPARABLE)
        elif r.achieved_gflops > peak:  # a peak below what the network achieved was measured under contention
            r.warnings.append(MFU_ABOVE_PEAK)
        else:
            r.mfu = r.achieved_gflops / peak


# ------------------------------------------------------------------ the suite


def run_suite(
    config: ProbeConfig, on_event: Optional[EventCallback] = None, cancel: Optional[Cancel] = None
) -> ProbeSuite:
    """Measure every requested (framework, mode, model); never raises for a failing run."""
    t_start = time.monotonic()
    cpu_before = cpu_times()
    cancel = cancel or Cancel()
    host = host_summary()
    fws = installed_frameworks()
    suite = ProbeSuite(
        created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        host=host,
        config=config,
        frameworks=fws,
        tool_version=hostfacts.package_version("framework-advisor"),
    )  # probes never import advisor
    if host.logical_cores and host.loadavg_before and host.loadavg_before[0] > 0.75 * host.logical_cores:
        suite.warnings.append(
            f"the host was busy before the probe (load average "
            f"{host.loadavg_before[0]} on {host.logical_cores} CPUs): numbers are noisy"
        )
    ms_env, notes = mindspore_env(host.avx512, config.tune, config.device)
    compile_cache = config.compile_cache_dir or default_compile_cache()
    envs = {fw: _child_env(fw, config, ms_env, compile_cache) for fw in WORKER}

    specs = round_specs(config)
    if any(fw == "mindspore" for fw, _ in specs):  # a PyTorch-only run has no MindSpore tuning
        suite.warnings += notes
    max_rounds = max(config.repeat, config.max_repeat or config.repeat)
    runs: list[ProbeRun] = []
    tmp = str(launcher.make_temp_dir("advisor-parity-"))  # swept by a later run if this process is killed
    try:
        # Aux first (GEMM peak + parity arrays): also warms the page cache of both frameworks'
        # libraries, so import times in the timed runs are comparable.
        aux: dict[str, launcher.ChildOutcome] = {}
        for fw in config.frameworks:
            if not fws[fw]["installed"] or cancel.is_set() or not (config.gemm or config.parity):
                continue
            if on_event:
                on_event(
                    ProbeEvent(
                        run_id=f"{fw}-aux",
                        kind="start",
                        message=f"{fw}: GEMM peak" + (" and parity arrays" if config.parity else ""),
                    )
                )
            before, child_cpu, t0 = cpu_times(), _children_cpu_s(), time.monotonic()
            out = _aux(fw, config, envs[fw], list(config.models) if config.parity else [], tmp, cancel)
            load = run_load(before, cpu_times(), _children_cpu_s() - child_cpu, time.monotonic() - t0, 1)
            aux[fw] = out
            if out.ok and out.result and out.result.get("gemm"):
                suite.gemm_peak[fw] = float(out.result["gemm"]["gflops"])
                suite.gemm_details[fw] = {
                    **out.result["gemm"],
                    "device": out.result.get("device"),
                    "foreign_cores": load.get("foreign_cores"),  # the load the peak was measured under
                }
            elif not out.ok:
                suite.warnings.append(f"{fw} GEMM/parity child {out.status}: {out.error}")
            if on_event:
                on_event(ProbeEvent(run_id=f"{fw}-aux", kind="done", message=out.status))

        if config.parity:
            suite.parity = _parity(config, aux, cancelled=cancel.is_set())

        ctx = _Rounds(
            config,
            specs,
            max_rounds,
            fws,
            envs,
            ms_env,
            notes,
            on_event,
            cancel,
            runs,
            aux,
            total=len(plan_jobs(config)),
        )
        for model in config.models:
            suite.adaptation.append(_model_rounds(model, ctx))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    suite.runs = _merge_repeats(runs)
    unscored = never_usable(runs, suite.runs)
    if unscored:  # the reader's first question: why nothing of it counts, and what to do about it
        suite.warnings.insert(0, unscored)
    for model in config.models:
        suite.comparisons += model_comparisons(
            runs, model, [run_id(fw, mode, model, config.batch_size) for fw, mode in specs]
        )
    _add_efficiency(suite)
    _cross_checks(suite)
    suite.host.steal_fraction = steal = steal_fraction(cpu_before, cpu_times())
    if steal is not None and steal > 0.05:
        suite.warnings.append(
            f"the hypervisor took {steal:.0%} of CPU time from this machine during "
            "the probe (steal time): numbers are lower and noisier than on a dedicated host"
        )
    suite.host.loadavg_after = after = _loadavg()
    cores = host.logical_cores or 1
    if after and after[0] > 0.75 * cores and not any("busy before" in w for w in suite.warnings):
        suite.warnings.append(
            f"the host was busy during the probe (load average {after[0]} on "
            f"{cores} CPUs at the end): numbers are noisy"
        )
    suite.seconds = round(time.monotonic() - t_start, 2)
    return suite


# An aux child silent this long hung in its framework's import (2-3 s quiet here, ~10 s on a loaded
# 2-core host: assumption, a wide margin), so each run of that framework would hang the same way.
AUX_HUNG_SECONDS = 60.0


def _not_run(job: Job, status: str, error: str) -> ProbeRun:
    """A planned run that was never started, and why."""
    return ProbeRun(
        id=job.id,
        framework=job.framework,
        mode=job.mode,
        model=job.model,
        batch_size=job.batch_size,
        status=status,
        error=error,
    )


def _hung(out: Optional[launcher.ChildOutcome]) -> bool:
    return out is not None and out.status == "timeout" and not out.messages and out.seconds >= AUX_HUNG_SECONDS


@dataclass
class _Rounds:
    """What every round of the suite shares; `runs` collects every run, `index`/`total` count them."""

    config: ProbeConfig
    specs: list
    max_rounds: int
    fws: dict
    envs: dict
    ms_env: dict
    notes: list
    on_event: Optional[EventCallback]
    cancel: Cancel
    runs: list
    aux: dict  # framework -> its aux child's outcome: one that hung means its runs would hang too
    index: int = 0
    total: int = 0


def _model_rounds(model: str, ctx: _Rounds) -> dict:
    """The interleaved rounds of one model: `repeat` rounds, then more (at twice the budget, up to
    BUDGET_CAP_FACTOR x) while a comparison is undecided and `max_rounds` allows. Returns what it did."""
    config, specs, max_rounds, fws, runs, cancel, on_event = (
        ctx.config,
        ctx.specs,
        ctx.max_rounds,
        ctx.fws,
        ctx.runs,
        ctx.cancel,
        ctx.on_event,
    )
    ids = [run_id(fw, mode, model, config.batch_size) for fw, mode in specs]
    log: dict = {
        "model": model,
        "rounds": 0,
        "budgets": [],
        "threads": [],
        "idle_cores": [],
        "max_rounds": max_rounds,
        "budget_cap": config.budget * BUDGET_CAP_FACTOR,
    }
    budget = config.budget
    for rnd in range(max_rounds):
        if rnd >= config.repeat:
            if cancel.is_set():
                log["stopped"] = "cancelled"
                return log
            if not _undecided(runs, model, ids):
                break
            last = [r for r in runs if r.model == model and r.settings.get("round") == rnd - 1]
            if any(r.quality != "stable" for r in last if r.status == "ok"):
                budget = min(config.budget * BUDGET_CAP_FACTOR, budget * 2)
            ctx.total += len(specs)
        measured = any(fws[fw]["installed"] for fw, _ in specs) and not cancel.is_set()
        idle = idle_cores() if measured else None
        threads, why = round_threads(config, idle)
        log["rounds"] += 1
        log["budgets"].append(budget)
        log["threads"].append(threads)
        log["idle_cores"].append(idle)
        for fw, mode in specs:
            ctx.index += 1
            i, total = ctx.index, ctx.total
            job = Job(fw, mode, model, config.batch_size, rnd, threads, budget)
            if on_event:
                on_event(
                    ProbeEvent(
                        run_id=job.id,
                        kind="start",
                        index=i,
                        total=total,
                        message=f"{job.framework} {job.mode} {job.model}",
                    )
                )
            if not fws[job.framework]["installed"]:
                run = _not_run(job, "unavailable", hostfacts.not_installed_reason(job.framework))
            elif cancel.is_set():
                run = _not_run(job, "cancelled", "cancelled by the user")
            elif _hung(ctx.aux.get(job.framework)):
                # The same interpreter and import hung once already: do not wait out every run's timeout.
                run = _not_run(
                    job,
                    "failed",
                    f"not started: {job.framework}'s first child (GEMM peak / parity) "
                    f"timed out ({ctx.aux[job.framework].error})",
                )
            else:
                run = _run_job(job, config, ctx.envs[job.framework], on_event, cancel, i, total)
                run.settings["threads_reason"] = why
            run.settings.setdefault("round", rnd)
            if run.status == "ok" and job.framework == "mindspore" and ctx.ms_env.get("ONEDNN_MAX_CPU_ISA"):
                run.settings.setdefault("tuning", ctx.notes[0] if ctx.notes else None)
            runs.append(run)
            if on_event:
                on_event(
                    ProbeEvent(
                        run_id=job.id,
                        kind="done",
                        run=run,
                        index=i,
                        total=total,
                        images_per_second=run.images_per_second,
                        message=run.status,
                    )
                )
    left = _undecided(runs, model, ids)
    if cancel.is_set():
        log["stopped"] = "cancelled"
    elif not left:
        log["stopped"] = f"stop rule held after {log['rounds']} round(s)"
    elif max_rounds > config.repeat:
        log["stopped"] = (
            f"cap reached ({max_rounds} rounds, budget up to {max(log['budgets']):g} s): "
            f"still undecided: {', '.join(left)}"
        )
    else:
        log["stopped"] = (
            f"{log['rounds']} round(s) as asked (no extra rounds: --max-repeat): undecided: {', '.join(left)}"
        )
    return log


def never_usable(runs: list[ProbeRun], merged: list[ProbeRun]) -> Optional[str]:
    """What to do when a merged run is graded unusable (shown, never scored), in one sentence with the load
    its rounds met; None otherwise. Two ways there: every round unusable on its own (a busy host), or usable
    rounds that disagree with each other beyond the repeat-spread bound."""
    by_id: dict[str, list[ProbeRun]] = {}
    for r in runs:
        if r.status == "ok":
            by_id.setdefault(r.id, []).append(r)
    bad = [m.id for m in merged if m.status == "ok" and m.quality == "unusable" and m.id in by_id]
    if not bad:
        return None
    whole = [rid for rid in bad if all(r.quality == "unusable" for r in by_id[rid])]
    loads = [r.settings.get("foreign_cores") for rid in bad for r in by_id[rid]]
    loads = sorted(x for x in loads if isinstance(x, (int, float)))
    busy = f" (other processes used {loads[len(loads) // 2]:.1f} of {usable_cores()} cores)" if loads else ""
    rounds = max(len(by_id[rid]) for rid in bad)
    if whole == bad:
        why = f" in all {rounds} round(s)"
    else:  # some rounds were usable alone, but they disagreed too much for one number
        parts = [f"{', '.join(whole)} in all {rounds} round(s)"] if whole else []
        for rid in (rid for rid in bad if rid not in whole):
            rates = [r.images_per_second or 0.0 for r in by_id[rid] if r.quality != "unusable"]
            spread = quality.repeat_spread(rates)
            parts.append(
                f"{rid}: its {len(rates)} usable rounds spread {spread:.0%} around their median "
                f"(unusable above {quality.REPEAT_SPREAD[1]:.0%})"
            )
        why = f" ({'; '.join(parts)})"
    return (
        f"not scored: {', '.join(bad)} graded unusable{why}{busy}; "
        "rerun when the host is quieter, or measure longer (a longer --budget, more rounds with --max-repeat)"
    )


def _parity(config: ProbeConfig, aux: dict, cancelled: bool = False) -> list[ParityResult]:
    out = []
    for model in config.models:
        if not all(fw in aux for fw in ("pytorch", "mindspore")):
            wanted = all(fw in config.frameworks for fw in ("pytorch", "mindspore"))
            if cancelled and wanted:  # both were asked for: the cancel stopped it, nothing is missing
                out.append(ParityResult(**parity.skipped(model, "cancelled before both frameworks' arrays were made")))
                continue
            out.append(
                ParityResult(
                    **parity.skipped(
                        model, "parity needs both PyTorch and MindSpore installed and requested", "unavailable"
                    )
                )
            )
            continue
        a, b = aux["pytorch"], aux["mindspore"]
        bad = [f"{fw}: {o.error}" for fw, o in aux.items() if not o.ok]
        if bad:
            out.append(ParityResult(**parity.skipped(model, "; ".join(bad), "failed")))
            continue
        pa = (a.result or {}).get("parity_files", {}).get(model)
        pb = (b.result or {}).get("parity_files", {}).get(model)
        if not pa or not pb:
            out.append(ParityResult(**parity.skipped(model, "a worker wrote no parity arrays", "failed")))
            continue
        res = parity.compare_files(model, pa, pb)
        res["batch_size"] = 8
        out.append(ParityResult(**res))
    return out


def _cross_checks(suite: ProbeSuite) -> None:
    """Sanity across runs: first losses equal across frameworks (same weights and data)."""
    by_model: dict[str, list[ProbeRun]] = {}
    for r in suite.runs:
        if r.status == "ok" and r.loss_first is not None:
            by_model.setdefault(r.model, []).append(r)
    for model, rs in by_model.items():
        losses = [r.loss_first for r in rs]
        if max(losses) - min(losses) > 1e-3:
            suite.warnings.append(
                f"{model}: first-step losses differ across runs "
                f"({min(losses):.5f}..{max(losses):.5f}): the runs did not start "
                "from the same weights and data"
            )
