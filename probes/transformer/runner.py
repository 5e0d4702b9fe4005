"""Runs the transformer probe (kind "gpt"): one aux child per framework (GEMM peak, parity arrays,
attention kernels), then interleaved rounds of one fresh child per (framework, mode) through
probes.launcher, graded by probes.quality, then one child per dynamic-shape variant. Never imports
a framework; validates what the workers send into probes.transformer.models.

    result = run(GptConfig(budget=6), on_event=print, cancel=Cancel())
"""

from __future__ import annotations

import datetime as _dt
import os
import shutil
import time
from typing import Callable, Optional

import numpy as np
from pydantic import ValidationError

from probes import hostfacts, launcher, quality
from probes.launcher import Cancel
from probes.training import runner as training
from probes.training import stats
from probes.transformer import flops, memory, parity, spec
from probes.transformer.verdicts import attention_verdict, dynamic_verdict, headline
from probes.transformer.models import (
    MODES_OF,
    VARIANTS,
    AttentionKernel,
    DynamicRun,
    GptComparison,
    GptConfig,
    GptEvent,
    GptParity,
    GptResult,
    GptRun,
    run_id,
)

WORKER = {"pytorch": "probes.transformer.worker_torch", "mindspore": "probes.transformer.worker_mindspore"}
OnEvent = Callable[[GptEvent], None]


def shape(config: GptConfig) -> spec.Shape:
    return spec.Shape(config.layers, config.hidden, config.heads, config.seq, config.vocab)


def shape_args(config: GptConfig, threads: int) -> list[str]:
    return [
        "--layers", str(config.layers), "--hidden", str(config.hidden), "--heads", str(config.heads),
        "--seq", str(config.seq), "--vocab", str(config.vocab), "--batch-size", str(config.batch_size),
        "--threads", str(threads),
    ]  # fmt: skip


def round_specs(config: GptConfig) -> list[tuple[str, str]]:
    return [(fw, m) for fw in config.frameworks for m in MODES_OF[fw] if m in config.modes]


def dynamic_specs(config: GptConfig) -> list[str]:
    """The requested variants whose framework and mode were asked for."""
    return [
        v for v in config.dynamic_variants if VARIANTS[v][0] in config.frameworks and VARIANTS[v][1] in config.modes
    ]


def run_timeout(config: GptConfig, mode: str, budget: float) -> float:
    if config.timeout:
        return config.timeout
    # start-up + the budget with its 3x hard cap + a cold compile of the whole training step
    return 90.0 + 4.0 * budget + (300.0 if mode in ("compile", "graph") else 0.0)


def dynamic_timeout(config: GptConfig) -> float:
    if config.timeout:
        return config.timeout
    compiles = len(config.dynamic_ways) * (config.dynamic_distinct + 2)  # static graph: one per shape
    return 180.0 + 60.0 * compiles + 3.0 * config.dynamic_passes * config.dynamic_steps


def _env(framework: str, config: GptConfig, ms_env: dict, threads: int, cache: str) -> dict:
    env = {"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    if framework == "mindspore":
        env.update(ms_env)
    else:
        env["ONEDNN_MAX_CPU_ISA"] = None  # never for torch (it slows torch down)
        env["TORCHINDUCTOR_CACHE_DIR"] = cache
    return env


def _cache_root(config: GptConfig) -> str:
    s = shape(config)
    root = config.compile_cache_dir or training.default_compile_cache()
    return os.path.join(root, f"gpt-L{s.layers}-H{s.hidden}-A{s.heads}-S{s.seq}-V{s.vocab}-bs{config.batch_size}")


# ------------------------------------------------------------------ grading


def assess(run: GptRun) -> GptRun:
    """ci95 (scipy, batch means of the raw samples) and the stability grade of probes.quality."""
    if run.status != "ok":
        return run
    samples = list(run.sample_step_ms or [])
    ci = None
    if samples and run.steps_per_sample and run.tokens_per_step:
        ci = quality.throughput_ci(samples, run.steps_per_sample, run.tokens_per_step)
    a = np.asarray(samples, dtype=np.float64)
    facts = quality.Facts(
        samples=len(samples),
        ci=ci,
        cv=float(a.std(ddof=1) / a.mean()) if a.size > 1 and a.mean() > 0 else None,
        drift=stats.drift(samples),
        steal=run.settings.get("steal"),
        contention=run.settings.get("contention"),
        foreign_cores=run.settings.get("foreign_cores"),
    )
    run.ci95 = [ci[1], ci[2]] if ci else None
    run.quality, run.quality_reasons = quality.classify(facts)
    run.warnings = quality.graded(run.warnings)
    return run


def _from_outcome(fw: str, mode: str, config: GptConfig, out: launcher.ChildOutcome) -> GptRun:
    base = dict(id=run_id(fw, mode), framework=fw, mode=mode, seconds=round(out.seconds, 3))
    res = dict(out.result or {})
    for k in ("kind", "warmup_step_ms", "load_window", "batch_size"):
        res.pop(k, None)
    if out.status == "ok" and res.get("status") == "ok":
        res["tokens_per_second"] = res.pop("images_per_second", None)
        res["tokens_per_second_median"] = res.pop("images_per_second_median", None)
        res["tokens_per_step"] = config.batch_size * config.seq
        res.update(base)
        if not res["tokens_per_second"]:
            # every step went to warm-up (a loaded host, a tight --max-steps): no steady rate to report, so
            # not an "ok" run with an empty throughput
            res["status"] = "timeout"
            res["error"] = "no steady state: the budget or --max-steps ended before any measured step"
        try:
            return GptRun(**res)
        except ValidationError as exc:
            return GptRun(**base, status="failed", error=f"invalid worker result: {str(exc).splitlines()[0]}")
    if out.status == "ok" and res.get("status") == "unavailable":
        return GptRun(**base, status="unavailable", error=res.get("error"))
    status = {"timeout": "timeout", "cancelled": "cancelled"}.get(out.status, "failed")
    return GptRun(**base, status=status, error=out.error or res.get("error") or "no result")


# ------------------------------------------------------------------ children


def _timed_run(fw, mode, rnd, threads, budget, config, ms_env, on_event, cancel, index, total) -> GptRun:
    rid = run_id(fw, mode)
    args = ["-m", WORKER[fw], "run", *shape_args(config, threads), "--mode", mode, "--budget", str(budget)]
    args += ["--t-crit", f"{quality.stop_rule_t():.6f}"]
    if config.max_steps:
        args += ["--max-steps", str(config.max_steps)]
    if fw == "mindspore" and ms_env.get("ONEDNN_MAX_CPU_ISA"):
        args += ["--tuned", "ONEDNN_MAX_CPU_ISA=AVX2"]

    def on_message(msg: dict) -> None:
        if msg.get("kind") == "progress" and on_event:
            on_event(
                GptEvent(
                    run_id=rid,
                    kind="progress",
                    fraction=msg.get("fraction"),
                    step_ms=msg.get("step_ms"),
                    tokens_per_second=msg.get("images_per_second"),
                    message=msg.get("phase"),
                    index=index,
                    total=total,
                )
            )

    env = _env(fw, config, ms_env, threads, os.path.join(_cache_root(config), "timed"))
    cpu_before, child_cpu, t0 = training.cpu_times(), training._children_cpu_s(), time.monotonic()
    out = launcher.run_child(
        args, timeout=run_timeout(config, mode, budget), env_extra=env, on_message=on_message, cancel=cancel
    )
    load = training.window_load((out.result or {}).get("load_window"), threads) or training.run_load(
        cpu_before, training.cpu_times(), training._children_cpu_s() - child_cpu, time.monotonic() - t0, threads
    )
    run = _from_outcome(fw, mode, config, out)
    run.settings.update(round=rnd, budget=budget, threads=threads, **load)
    return assess(run)


def _aux(fw: str, config: GptConfig, ms_env: dict, outdir: str, cancel: Cancel) -> launcher.ChildOutcome:
    threads = config.threads or training.usable_cores()
    args = ["-m", WORKER[fw], "aux", *shape_args(config, threads), "--out", outdir]
    if not config.gemm:
        args.append("--no-gemm")
    if not config.parity:
        args.append("--no-parity")
    env = _env(fw, config, ms_env, threads, os.path.join(_cache_root(config), "aux"))
    return launcher.run_child(args, timeout=config.timeout or 300.0, env_extra=env, cancel=cancel)


def _dynamic(variant: str, config: GptConfig, ms_env: dict, cancel: Cancel, on_event, index, total) -> DynamicRun:
    fw = VARIANTS[variant][0]
    rid = f"{fw}-{variant}-dynamic"
    threads = config.threads or training.usable_cores()
    args = ["-m", WORKER[fw], "dynamic", *shape_args(config, threads), "--variant", variant]
    args += ["--ways", ",".join(config.dynamic_ways), "--steps", str(config.dynamic_steps)]
    args += ["--distinct", str(config.dynamic_distinct), "--passes", str(config.dynamic_passes)]

    def on_message(msg: dict) -> None:
        if msg.get("kind") == "progress" and on_event:
            on_event(
                GptEvent(
                    run_id=rid,
                    kind="progress",
                    message=msg.get("phase"),
                    fraction=msg.get("fraction"),  # of the child's steps, over all its ways
                    index=index,
                    total=total,
                )
            )

    env = _env(fw, config, ms_env, threads, os.path.join(_cache_root(config), "dynamic"))
    out = launcher.run_child(args, timeout=dynamic_timeout(config), env_extra=env, on_message=on_message, cancel=cancel)
    base = dict(id=rid, framework=fw, variant=variant, seconds=round(out.seconds, 3))
    res = dict(out.result or {})
    res.pop("kind", None)
    if out.status == "ok" and res.get("status") == "ok":
        res.update(base)
        try:
            return DynamicRun(**res)
        except ValidationError as exc:
            return DynamicRun(**base, status="failed", error=f"invalid worker result: {str(exc).splitlines()[0]}")
    if out.status == "ok" and res.get("status") == "unavailable":
        return DynamicRun(**base, status="unavailable", error=res.get("error"))
    status = {"timeout": "timeout", "cancelled": "cancelled"}.get(out.status, "failed")
    return DynamicRun(**base, status=status, error=out.error or res.get("error") or "no result")


# ------------------------------------------------------------------ rounds and their summary


def merge_rounds(runs: list[GptRun]) -> list[GptRun]:
    """One run per id: the median-throughput usable round as the body, every round's tokens/s in
    `repeats`, the grade worsened by the spread between rounds (probes.quality.merge_quality)."""
    by_id: dict[str, list[GptRun]] = {}
    for r in runs:
        by_id.setdefault(r.id, []).append(r)
    merged = []
    for group in by_id.values():
        ok = [r for r in group if r.status == "ok" and r.tokens_per_second]
        if len(group) == 1 or not ok:
            merged.append(group[0])
            continue
        usable = [r for r in ok if r.quality != "unusable"]
        pool = sorted(usable or ok, key=lambda r: r.tokens_per_second)
        body = pool[(len(pool) - 1) // 2].model_copy(deep=True)
        body.repeats = [r.tokens_per_second for r in ok]
        for name in ("first_step_seconds", "compile_seconds", "import_seconds", "build_seconds"):
            setattr(body, name, getattr(ok[0], name))  # start-up as a user meets it: the first round's
        body.settings["start_up_from"] = "the first round (cold caches)"
        if body.quality is not None:
            quality.merge_quality(body, [r.tokens_per_second for r in pool], len(usable), len(ok))
        merged.append(body)
    return merged


def comparisons(runs: list[GptRun], ids: list[str]) -> list[GptComparison]:
    rounds: dict[int, dict[str, GptRun]] = {}
    for r in runs:
        rounds.setdefault(int(r.settings.get("round", 0)), {})[r.id] = r
    out = []
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            pairs = []
            for by_id in rounds.values():
                ra, rb = by_id.get(a), by_id.get(b)
                if ra and rb and ra.status == rb.status == "ok" and "unusable" not in (ra.quality, rb.quality):
                    pairs.append((ra.tokens_per_second, rb.tokens_per_second))
            c = GptComparison(a=a, b=b, pairs=len(pairs))
            got = quality.paired_ratio(pairs)
            if got:
                c.ratio, low, high = got
                c.ci95 = [low, high] if low is not None else None
            if c.pairs < quality.MIN_PAIRS:
                c.reasons.append(f"{c.pairs} usable pair(s): at least {quality.MIN_PAIRS} are needed for an interval")
            elif c.ci95 and c.ci95[0] <= 1.0 <= c.ci95[1]:
                c.reasons.append(f"the ratio's 95% CI {c.ci95[0]:.3f}-{c.ci95[1]:.3f} includes 1")
            c.decidable = bool(c.ci95) and c.pairs >= quality.MIN_PAIRS and not (c.ci95[0] <= 1.0 <= c.ci95[1])
            out.append(c)
    return out


def efficiency(result: GptResult) -> None:
    """Achieved GFLOP/s (6N + 12LHS per token) and MFU against the GEMM peak measured here, when both
    were measured under comparable load (the training probe's rule: training.MFU_LOAD_MATCH_CORES)."""
    for r in result.runs:
        if r.status != "ok" or not r.tokens_per_second or not r.train_flops_per_token:
            continue
        r.achieved_gflops = r.tokens_per_second * r.train_flops_per_token / 1e9
        peak = result.gemm_peak.get(r.framework)
        if not peak:
            continue
        then = result.gemm_details.get(r.framework, {}).get("foreign_cores")
        now = r.settings.get("foreign_cores")
        if (
            isinstance(then, (int, float))
            and isinstance(now, (int, float))
            and abs(then - now) > training.MFU_LOAD_MATCH_CORES
        ):
            r.warnings.append(training.MFU_NOT_COMPARABLE)
        elif r.achieved_gflops > peak:
            r.warnings.append(training.MFU_ABOVE_PEAK)
        else:
            r.mfu = r.achieved_gflops / peak


# ------------------------------------------------------------------ the probe


class _Progress:
    """The events a progress display reads: the run index and the total, which grows when an extra
    round is added. Silent without a listener."""

    def __init__(self, on_event: Optional[OnEvent], total: int):
        self.on_event, self.total, self.index = on_event, total, 0

    def emit(self, run_id: str, kind: str, message: str, counted: bool = True, **fields) -> None:
        if self.on_event:
            at = {"index": self.index} if counted else {}
            self.on_event(GptEvent(run_id=run_id, kind=kind, message=message, total=self.total, **at, **fields))


def run(config: GptConfig, on_event: Optional[OnEvent] = None, cancel: Optional[Cancel] = None) -> GptResult:
    """Measure every requested (framework, mode) and dynamic variant; never raises for a failing run."""
    t_start = time.monotonic()
    cancel = cancel or Cancel()
    host = training.host_summary()
    fws = training.installed_frameworks()
    s = shape(config)
    result = GptResult(
        created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        host=host,
        config=config,
        frameworks=fws,
        tool_version=hostfacts.package_version("framework-advisor"),
        param_count=spec.param_count(s),
        flops=flops.describe(s),
    )  # the weights' checksum is the workers': the parent never makes the weights
    if host.logical_cores and host.loadavg_before and host.loadavg_before[0] > 0.75 * host.logical_cores:
        result.warnings.append(
            f"the host was busy before the probe (load average {host.loadavg_before[0]} on "
            f"{host.logical_cores} CPUs): numbers are noisy"
        )
    ms_env, notes = training.mindspore_env(host.avx512, config.tune, "cpu")
    if "mindspore" in config.frameworks:
        result.warnings += notes
    wanted = [fw for fw in config.frameworks if fws.get(fw, {}).get("installed")]
    for fw in config.frameworks:
        if fw not in wanted:
            result.warnings.append(f"{fw} is not installed: its runs are left out")
    specs = [(fw, m) for fw, m in round_specs(config) if fw in wanted]
    variants = [v for v in dynamic_specs(config) if VARIANTS[v][0] in wanted] if config.dynamic else []
    too_big = memory.refusal(s, config.batch_size)
    if too_big:  # no child starts: each would fail the same way, and a host out of memory harms the rest
        result.warnings.append(too_big)
        result.runs = [
            GptRun(id=run_id(fw, m), framework=fw, mode=m, status="failed", error=too_big) for fw, m in specs
        ]
        result.verdicts = [f"not measured: {too_big}"]
        result.seconds = round(time.monotonic() - t_start, 2)
        return result
    # the runs a progress display counts, as the training suite announces them: the GEMM / parity /
    # attention children are preparation, named by their ids, never counted as runs
    progress = _Progress(on_event, len(specs) * config.repeat + len(variants))
    tmp = str(launcher.make_temp_dir("advisor-gpt-"))  # registered: a stale one is swept by the next run
    try:
        aux = _aux_children(result, wanted, config, ms_env, tmp, cancel, progress)
        if config.parity:
            result.parity = _parity(s, aux)
        _timed_rounds(result, specs, config, ms_env, cancel, progress)
        _dynamic_variants(result, variants, config, ms_env, cancel, progress)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _judge(result)
    result.seconds = round(time.monotonic() - t_start, 2)
    return result


def _aux_children(
    result: GptResult, wanted: list[str], config: GptConfig, ms_env: dict, tmp: str, cancel: Cancel, progress: _Progress
) -> dict:
    """One preparation child per framework: the GEMM peak (with the load it was measured under), the
    parity arrays and the attention kernels."""
    aux = {}
    for fw in wanted if (config.gemm or config.parity or config.attention) else []:
        if cancel.is_set():
            break
        progress.emit(f"{fw}-aux", "start", f"{fw}: GEMM peak, parity arrays, attention kernel", counted=False)
        before, child_cpu, t0 = training.cpu_times(), training._children_cpu_s(), time.monotonic()
        out = aux[fw] = _aux(fw, config, ms_env, tmp, cancel)
        took = time.monotonic() - t0
        load = training.run_load(before, training.cpu_times(), training._children_cpu_s() - child_cpu, took, 1)
        if out.ok and out.result:
            if out.result.get("gemm"):
                result.gemm_peak[fw] = float(out.result["gemm"]["gflops"])
                result.gemm_details[fw] = {"foreign_cores": load.get("foreign_cores")}
            if out.result.get("attention") and config.attention:
                result.attention.append(AttentionKernel(**out.result["attention"]))
        else:
            result.warnings.append(f"{fw} GEMM/parity/attention child {out.status}: {out.error}")
        progress.emit(f"{fw}-aux", "done", out.status, counted=False)
    return aux


def _timed_rounds(
    result: GptResult,
    specs: list[tuple[str, str]],
    config: GptConfig,
    ms_env: dict,
    cancel: Cancel,
    progress: _Progress,
) -> None:
    """Interleaved rounds of one fresh child per (framework, mode); past the requested repeats, another
    round (at up to twice the budget while a run is not stable) only while a comparison is undecided."""
    runs: list[GptRun] = []
    ids = [run_id(fw, m) for fw, m in specs]
    budget = config.budget
    max_rounds = max(config.repeat, config.max_repeat or config.repeat)
    log: dict = {"rounds": 0, "budgets": [], "threads": [], "idle_cores": [], "max_rounds": max_rounds}
    for rnd in range(max_rounds):
        if cancel.is_set() or not specs:
            break
        if rnd >= config.repeat:
            if all(c.decidable for c in comparisons(runs, ids)):
                break
            last = [r for r in runs if r.settings.get("round") == rnd - 1 and r.status == "ok"]
            if any(r.quality != "stable" for r in last):
                budget = min(config.budget * training.BUDGET_CAP_FACTOR, budget * 2)
            progress.total += len(specs)
        idle = training.idle_cores()
        threads, why = training.round_threads(config, idle)  # duck-typed: reads .threads only
        log["rounds"] += 1
        log["budgets"].append(budget)
        log["threads"].append(threads)
        log["idle_cores"].append(idle)
        for fw, mode in specs:
            progress.index += 1
            progress.emit(run_id(fw, mode), "start", f"{fw} {mode} GPT, round {rnd + 1}")
            if cancel.is_set():
                r = GptRun(id=run_id(fw, mode), framework=fw, mode=mode, status="cancelled", error="cancelled")
            else:
                r = _timed_run(
                    fw, mode, rnd, threads, budget, config, ms_env, progress.on_event, cancel, progress.index,
                    progress.total,
                )  # fmt: skip
                r.settings["threads_reason"] = why
            runs.append(r)
            progress.emit(r.id, "done", r.status, tokens_per_second=r.tokens_per_second, run=r)
    result.adaptation = log
    result.runs = merge_rounds(runs)
    result.weights_checksum = next(
        (r.settings["weights_checksum"] for r in runs if "weights_checksum" in r.settings), None
    )
    result.comparisons = comparisons(runs, ids)


def _dynamic_variants(
    result: GptResult, variants: list[str], config: GptConfig, ms_env: dict, cancel: Cancel, progress: _Progress
) -> None:
    """One child per dynamic-shape variant, one after another."""
    for variant in variants:
        if cancel.is_set():
            break
        progress.index += 1
        rid = f"{VARIANTS[variant][0]}-{variant}-dynamic"
        progress.emit(rid, "start", f"dynamic shapes: {VARIANTS[variant][2]}")
        d = _dynamic(variant, config, ms_env, cancel, progress.on_event, progress.index, progress.total)
        result.dynamic.append(d)
        progress.emit(rid, "done", d.status, run=d)


def _judge(result: GptResult) -> None:
    """Efficiency, the cross-checks and the verdicts, from what the children measured."""
    efficiency(result)
    _cross_checks(result)
    if result.dynamic:
        result.warnings.append(
            "the dynamic-shape ways ran once each, one after another (not interleaved, not graded): their "
            "compile counts are exact, their tokens/s move with the host's load"
        )
    result.dynamic_verdicts = [v for d in result.dynamic if d.status == "ok" for v in [dynamic_verdict(d)] if v]
    result.verdicts = headline(result) + [v.text for v in result.dynamic_verdicts] + attention_verdict(result.attention)
    if result.parity is not None:
        result.verdicts.append(
            "parity: logits, loss, gradients and the first SGD step agree within the derived fp32 bounds"
            if result.parity.ok
            else f"parity: {result.parity.status}: {result.parity.error}"
        )


def _parity(s: spec.Shape, aux: dict) -> GptParity:
    if not all(fw in aux for fw in ("pytorch", "mindspore")):
        return GptParity(
            **parity.failed("parity needs both PyTorch and MindSpore installed and requested", "unavailable")
        )
    bad = [f"{fw}: {o.error}" for fw, o in aux.items() if not o.ok]
    if bad:
        return GptParity(**parity.failed("; ".join(bad)))
    pa, pb = ((aux[fw].result or {}).get("parity_file") for fw in ("pytorch", "mindspore"))
    if not pa or not pb:
        return GptParity(**parity.failed("a worker wrote no parity arrays"))
    return GptParity(**parity.compare_files(s, pa, pb))


def _cross_checks(result: GptResult) -> None:
    """First losses equal across runs (same weights and data); the analytic FLOPs against torch's
    FlopCounterMode (protocol: within 5%)."""
    losses = [r.loss_first for r in result.runs if r.status == "ok" and r.loss_first is not None]
    if losses and max(losses) - min(losses) > 1e-3:
        result.warnings.append(
            f"first-step losses differ across runs ({min(losses):.5f}..{max(losses):.5f}): "
            "the runs did not start from the same weights and data"
        )
    for r in result.runs:
        fc = r.flop_counter or {}
        if fc.get("flops_per_step") and r.train_flops_per_token:
            counted = fc["flops_per_step"] / fc["tokens_per_step"]
            fc["analytic_over_counted"] = r.train_flops_per_token / counted
            if abs(fc["analytic_over_counted"] - 1.0) > 0.05:
                result.warnings.append(
                    f"FLOPs/token: the analytic 6N + 12LHS ({r.train_flops_per_token:,}) differs from torch's "
                    f"FlopCounterMode ({counted:,.0f}) by more than 5%"
                )
