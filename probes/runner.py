"""Runs the training-probe suite: one fresh child per (framework, mode, model) through
probes.launcher, plus one aux child per framework (GEMM peak + parity arrays). Never imports a
framework itself; validates what the workers send into probes.probe_models.

    suite = run_suite(ProbeConfig(budget=6), on_event=print, cancel=Cancel())
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from pydantic import ValidationError

from probes import hostfacts, launcher, parity
from probes.launcher import Cancel
from probes.probe_models import (
    MODES_OF, HostSummary, ParityResult, ProbeConfig, ProbeEvent, ProbeRun, ProbeSuite, run_id,
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
    """What the numbers depend on (probes.host never raises: what it cannot read stays empty)."""
    from probes.host import collect_host

    info = collect_host()
    h = HostSummary(os=platform.system(), kernel=platform.release(), python=platform.python_version(),
                    logical_cores=info.cpu.logical_cores or usable_cores(), loadavg_before=_loadavg(),
                    cpu_model=info.cpu.model, physical_cores=info.cpu.physical_cores,
                    memory_total_mb=info.memory.total_mb, avx512="avx512f" in (info.cpu.flags or []))
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
        notes.append("ONEDNN_MAX_CPU_ISA=AVX2 for MindSpore: on this AVX-512 CPU its oneDNN would "
                     "pick reference convolution kernels (use --no-tune to measure that default)")
    elif not tune and avx512:
        notes.append("untuned (--no-tune): MindSpore convolutions may run oneDNN reference "
                     "kernels on this AVX-512 CPU")
    return env, notes


def default_compile_cache() -> str:
    return str(hostfacts.cache_dir() / "torchinductor")


def run_timeout(config: ProbeConfig, mode: str, model: str) -> float:
    """Generous: start-up + compile allowance + the budget with its 3x hard cap."""
    if config.timeout:
        return config.timeout
    t = 60.0 + 4.0 * config.budget
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
    repeat: int = 0

    @property
    def id(self) -> str:
        return run_id(self.framework, self.mode, self.model, self.batch_size)


def plan_jobs(config: ProbeConfig) -> list[Job]:
    """Interleaved: for each model and repeat, alternate the frameworks (P M P M)."""
    jobs = []
    for model in config.models:
        for rep in range(config.repeat):
            for fw in config.frameworks:
                for mode in MODES_OF[fw]:
                    if mode in config.modes:
                        jobs.append(Job(fw, mode, model, config.batch_size, rep))
    return jobs


# ------------------------------------------------------------------ children

def _child_env(framework: str, config: ProbeConfig, ms_env: dict, compile_cache: str) -> dict:
    threads = str(config.threads or usable_cores())
    env = {"OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}
    if framework == "mindspore":
        env.update(ms_env)
    else:
        env["ONEDNN_MAX_CPU_ISA"] = None  # never for torch (it slows torch down)
        env["TORCHINDUCTOR_CACHE_DIR"] = compile_cache
    return env


def _run_from_outcome(job: Job, config: ProbeConfig, out: launcher.ChildOutcome) -> ProbeRun:
    base = dict(id=job.id, framework=job.framework, mode=job.mode, model=job.model,
                batch_size=config.batch_size, seconds=round(out.seconds, 3))
    res = dict(out.result or {})
    res.pop("kind", None)
    if out.status == "ok" and res.get("status") == "ok":
        res.pop("warmup_step_ms", None)
        res.update(base)
        try:
            return ProbeRun(**res)
        except ValidationError as exc:
            return ProbeRun(**base, status="failed",
                            error=f"the worker sent an invalid result: {str(exc).splitlines()[0]}")
    if out.status == "ok" and res.get("status") == "unavailable":
        return ProbeRun(**base, status="unavailable", error=res.get("error"),
                        settings=res.get("settings") or {})
    status = {"timeout": "timeout", "cancelled": "cancelled"}.get(out.status, "failed")
    error = out.error or res.get("error") or "no result"
    return ProbeRun(**base, status=status, error=error)


def _run_job(job: Job, config: ProbeConfig, env: dict, on_event: Optional[EventCallback],
             cancel: Optional[Cancel], index: int, total: int) -> ProbeRun:
    args = ["-m", WORKER[job.framework], "run", "--model", job.model, "--mode", job.mode,
            "--batch-size", str(config.batch_size), "--budget", str(config.budget),
            "--threads", str(config.threads or usable_cores()), "--device", config.device]
    if config.data:
        args += ["--data", str(Path(config.data).expanduser().resolve())]
    if config.max_steps:
        args += ["--max-steps", str(config.max_steps)]
    if job.framework == "mindspore" and env.get("ONEDNN_MAX_CPU_ISA"):
        args += ["--tuned", "ONEDNN_MAX_CPU_ISA=AVX2"]

    def on_message(msg: dict) -> None:
        if msg.get("kind") == "progress" and on_event is not None:
            on_event(ProbeEvent(run_id=job.id, kind="progress", fraction=msg.get("fraction"),
                                step_ms=msg.get("step_ms"), images_per_second=msg.get("images_per_second"),
                                message=msg.get("phase"), index=index, total=total))

    if env.get("TORCHINDUCTOR_CACHE_DIR"):
        # One cache folder per workload, so "warm" means this model and batch compiled before,
        # not that another model's kernels sit in a shared folder.
        env = {**env, "TORCHINDUCTOR_CACHE_DIR": os.path.join(
            env["TORCHINDUCTOR_CACHE_DIR"], f"{job.model}-bs{config.batch_size}-{config.device}")}
    load_start = _loadavg()
    out = launcher.run_child(args, timeout=run_timeout(config, job.mode, job.model), env_extra=env,
                             on_message=on_message, cancel=cancel)
    run = _run_from_outcome(job, config, out)
    if load_start:
        run.settings["loadavg_at_start"] = load_start
        cores = usable_cores()
        if run.status == "ok" and load_start[0] > 0.75 * cores:
            run.warnings.append(f"host busy when this run started (1-min load average {load_start[0]} "
                                f"on {cores} CPUs): other processes competed for the cores")
    return run


def _aux(framework: str, config: ProbeConfig, env: dict, models: list[str], outdir: str,
         cancel: Optional[Cancel]) -> launcher.ChildOutcome:
    args = ["-m", WORKER[framework], "aux", "--out", outdir, "--models", ",".join(models),
            "--threads", str(config.threads or usable_cores()), "--device", config.device]
    if not config.gemm:
        args.append("--no-gemm")
    timeout = config.timeout or (90.0 + 60.0 * len(models) + 120.0 * ("resnet50" in models))
    return launcher.run_child(args, timeout=timeout, env_extra=env, cancel=cancel)


def _merge_repeats(runs: list[ProbeRun]) -> list[ProbeRun]:
    """--repeat: one run per id, the median-throughput repeat as its body, all values listed."""
    by_id: dict[str, list[ProbeRun]] = {}
    for r in runs:
        by_id.setdefault(r.id, []).append(r)
    merged = []
    for rid, group in by_id.items():
        ok = [r for r in group if r.status == "ok" and r.images_per_second]
        if len(group) == 1 or not ok:
            merged.append(group[0])
            continue
        ok.sort(key=lambda r: r.images_per_second)
        body = ok[(len(ok) - 1) // 2].model_copy(deep=True)
        values = [r.images_per_second for r in ok]
        body.repeats = values
        body.images_per_second = statistics.median(values)
        spread = (max(values) - min(values)) / body.images_per_second
        if spread > 0.10:
            body.warnings.append(f"repeats differ by {spread:.0%} (min-max over {len(values)} runs)")
        if len(ok) < len(group):
            body.warnings.append(f"{len(group) - len(ok)} of {len(group)} repeats did not finish")
        merged.append(body)
    return merged


def _vendor_peak(runs: list[ProbeRun]) -> Optional[dict]:
    """fp32 peak of the accelerator the runs used, from the knowledge base (if it knows it)."""
    names = {r.settings.get("device_name") for r in runs if r.device in ("cuda", "npu")} - {None}
    if not names:
        return None
    try:
        import knowledge
        kb = knowledge.load()
        for name in names:
            acc = kb.find_accelerator(name)
            if acc is not None and acc.fp32_tflops is not None:
                return {"accelerator": acc.id, "fp32_gflops": acc.fp32_tflops.value * 1e3,
                        "source": acc.fp32_tflops.source, "confidence": acc.fp32_tflops.confidence}
    except Exception:  # the KB is optional here
        return None
    return None


def _add_efficiency(suite: ProbeSuite) -> None:
    vendor = (suite.vendor_peak or {}).get("fp32_gflops")
    for r in suite.runs:
        if r.status != "ok" or not r.images_per_second or not r.train_flops_per_image:
            continue
        r.achieved_gflops = r.images_per_second * r.train_flops_per_image / 1e9
        peak = suite.gemm_peak.get(r.framework)
        if peak and r.device == suite.gemm_details.get(r.framework, {}).get("device"):
            mfu = r.achieved_gflops / peak
            if mfu > 1.0:  # a peak below what the network achieved was measured under contention
                r.warnings.append(f"MFU not reported: {r.achieved_gflops:.0f} GFLOP/s achieved is above "
                                  f"the {peak:.0f} GFLOP/s GEMM peak measured earlier (host load changed)")
            else:
                r.mfu = mfu
        if vendor and r.device in ("cuda", "npu"):
            r.mfu_vendor = r.achieved_gflops / vendor


# ------------------------------------------------------------------ the suite

def run_suite(config: ProbeConfig, on_event: Optional[EventCallback] = None,
              cancel: Optional[Cancel] = None) -> ProbeSuite:
    """Measure every requested (framework, mode, model); never raises for a failing run."""
    t_start = time.monotonic()
    cpu_before = cpu_times()
    cancel = cancel or Cancel()
    host = host_summary()
    fws = installed_frameworks()
    suite = ProbeSuite(created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                       host=host, config=config, frameworks=fws,
                       tool_version=hostfacts.package_version("framework-advisor"))  # probes never import advisor
    if host.logical_cores and host.loadavg_before and host.loadavg_before[0] > 0.75 * host.logical_cores:
        suite.warnings.append(f"the host was busy before the probe (load average "
                              f"{host.loadavg_before[0]} on {host.logical_cores} CPUs): numbers are noisy")
    ms_env, notes = mindspore_env(host.avx512, config.tune, config.device)
    compile_cache = config.compile_cache_dir or default_compile_cache()
    envs = {fw: _child_env(fw, config, ms_env, compile_cache) for fw in WORKER}

    jobs = plan_jobs(config)
    if any(job.framework == "mindspore" for job in jobs):  # a PyTorch-only run has no MindSpore tuning
        suite.warnings += notes
    total = len(jobs)
    runs: list[ProbeRun] = []
    tmp = tempfile.mkdtemp(prefix="advisor-parity-")
    try:
        # Aux first (GEMM peak + parity arrays): also warms the page cache of both frameworks'
        # libraries, so import times in the timed runs are comparable.
        aux: dict[str, launcher.ChildOutcome] = {}
        for fw in config.frameworks:
            if not fws[fw]["installed"] or cancel.is_set() or not (config.gemm or config.parity):
                continue
            if on_event:
                on_event(ProbeEvent(run_id=f"{fw}-aux", kind="start",
                                    message=f"{fw}: GEMM peak" + (" and parity arrays" if config.parity else "")))
            out = _aux(fw, config, envs[fw], list(config.models) if config.parity else [], tmp, cancel)
            aux[fw] = out
            if out.ok and out.result and out.result.get("gemm"):
                suite.gemm_peak[fw] = float(out.result["gemm"]["gflops"])
                suite.gemm_details[fw] = {**out.result["gemm"], "device": out.result.get("device")}
            elif not out.ok:
                suite.warnings.append(f"{fw} GEMM/parity child {out.status}: {out.error}")
            if on_event:
                on_event(ProbeEvent(run_id=f"{fw}-aux", kind="done", message=out.status))

        if config.parity:
            suite.parity = _parity(config, aux)

        for i, job in enumerate(jobs, start=1):
            if on_event:
                on_event(ProbeEvent(run_id=job.id, kind="start", index=i, total=total,
                                    message=f"{job.framework} {job.mode} {job.model}"))
            if not fws[job.framework]["installed"]:
                run = ProbeRun(id=job.id, framework=job.framework, mode=job.mode, model=job.model,
                               batch_size=config.batch_size, status="unavailable",
                               error=f"{job.framework} is not installed in {os.path.basename(os.sys.executable)}'s environment")
            elif cancel.is_set():
                run = ProbeRun(id=job.id, framework=job.framework, mode=job.mode, model=job.model,
                               batch_size=config.batch_size, status="cancelled", error="cancelled by the user")
            elif _hung(aux.get(job.framework)):
                # The same interpreter and import hung once already: do not wait out every run's timeout.
                run = ProbeRun(id=job.id, framework=job.framework, mode=job.mode, model=job.model,
                               batch_size=config.batch_size, status="failed",
                               error=f"not started: {job.framework}'s first child (GEMM peak / parity) "
                                     f"timed out ({aux[job.framework].error})")
            else:
                run = _run_job(job, config, envs[job.framework], on_event, cancel, i, total)
            if run.status == "ok" and job.framework == "mindspore" and ms_env.get("ONEDNN_MAX_CPU_ISA"):
                run.settings.setdefault("tuning", notes[0] if notes else None)
            runs.append(run)
            if on_event:
                on_event(ProbeEvent(run_id=job.id, kind="done", run=run, index=i, total=total,
                                    images_per_second=run.images_per_second, message=run.status))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    suite.runs = _merge_repeats(runs)
    suite.vendor_peak = _vendor_peak(suite.runs)
    _add_efficiency(suite)
    _cross_checks(suite)
    suite.host.steal_fraction = steal = steal_fraction(cpu_before, cpu_times())
    if steal is not None and steal > 0.05:
        suite.warnings.append(f"the hypervisor took {steal:.0%} of CPU time from this machine during "
                              "the probe (steal time): numbers are lower and noisier than on a dedicated host")
    suite.host.loadavg_after = after = _loadavg()
    cores = host.logical_cores or 1
    if after and after[0] > 0.75 * cores and not any("busy before" in w for w in suite.warnings):
        suite.warnings.append(f"the host was busy during the probe (load average {after[0]} on "
                              f"{cores} CPUs at the end): numbers are noisy")
    suite.seconds = round(time.monotonic() - t_start, 2)
    return suite


# An aux child silent this long hung in its framework's import (2-3 s quiet here, ~10 s on a loaded
# 2-core host: assumption, a wide margin), so each run of that framework would hang the same way.
AUX_HUNG_SECONDS = 60.0


def _hung(out: Optional[launcher.ChildOutcome]) -> bool:
    return out is not None and out.status == "timeout" and not out.messages and out.seconds >= AUX_HUNG_SECONDS


def _parity(config: ProbeConfig, aux: dict) -> list[ParityResult]:
    out = []
    for model in config.models:
        if not all(fw in aux for fw in ("pytorch", "mindspore")):
            out.append(ParityResult(**parity.skipped(model, "parity needs both PyTorch and MindSpore "
                                                            "installed and requested", "unavailable")))
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
            suite.warnings.append(f"{model}: first-step losses differ across runs "
                                  f"({min(losses):.5f}..{max(losses):.5f}): the runs did not start "
                                  "from the same weights and data")
