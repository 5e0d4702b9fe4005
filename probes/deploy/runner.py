"""Runs the deployment probe: per model, one child per export (framework, format), then one child
per (artefact, engine) serve step, then parity from the outputs the serve steps wrote. Never
imports a framework or engine itself; validates what the workers send into probes.deploy.models.

    result = run_deploy(DeployConfig(models=["lenet"], budget=1), on_event=print)
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import shutil
import time
from typing import Callable, Optional

import numpy as np
from pydantic import ValidationError

from probes import hostfacts, launcher
from probes.deploy import engines as _engines
from probes.deploy.common import ENGINE_OF_PROVIDER
from probes.deploy.models import (
    FORMATS,
    SOURCE_ENGINE,
    DeployConfig,
    DeployEvent,
    DeployResult,
    ExportStep,
    ParityCheck,
    ServeStep,
)
from probes.launcher import Cancel
from probes.training import specs

WORKER = {
    "pytorch": "probes.deploy.worker_torch",
    "mindspore": "probes.deploy.worker_mindspore",
    "onnxruntime": "probes.deploy.worker_ort",
}

# Parity tolerance, derived from fp32 arithmetic: a dot product of K terms rounds with an error
# that grows like sqrt(K) x u (random-walk model, u = 2^-24 unit roundoff... taken as eps = 2^-23
# to cover the final rounding); errors of consecutive layers add. Engines reorder sums, fold BN
# into conv weights and pick other conv algorithms (Winograd, im2col): PARITY_SAFETY covers that.
EPS_FP32 = 2.0**-23
PARITY_SAFETY = 10.0  # assumption: headroom for reordered / fused arithmetic across engines

EventCallback = Callable[[DeployEvent], None]


def parity_rel_tolerance(model: str) -> float:
    """PARITY_SAFETY x eps x sum over conv/linear layers of sqrt(inner dimension K)."""
    total = 0.0
    for ly in specs.layers(model):
        if ly.op == "conv":
            total += math.sqrt(ly.cin * ly.k * ly.k)
        elif ly.op == "linear":
            total += math.sqrt(ly.cin)
    return PARITY_SAFETY * EPS_FP32 * total


def compare_logits(a: np.ndarray, b: np.ndarray, rel_tol: float) -> dict:
    """max abs / rel difference and the verdict; tolerance scales with max(1, max |a|)."""
    if a.shape != b.shape:
        return {"status": "failed", "ok": False, "error": f"output shapes differ: {a.shape} vs {b.shape}"}
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return {"status": "failed", "ok": False, "error": "an output is not finite"}
    diff = float(np.max(np.abs(a.astype(np.float64) - b))) if a.size else 0.0
    scale = float(np.max(np.abs(a))) if a.size else 0.0
    tol = rel_tol * max(1.0, scale)
    ok = diff <= tol
    return {
        "status": "ok" if ok else "failed",
        "ok": ok,
        "max_abs_diff": diff,
        "max_rel_diff": diff / scale if scale > 0 else diff,
        "tolerance": tol,
        "rel_tolerance": rel_tol,
        "error": None if ok else f"max abs diff {diff:.3g} above the tolerance {tol:.3g}",
    }


def export_timeout(config: DeployConfig, model: str) -> float:
    return config.timeout or (120.0 + (90.0 if model != "lenet" else 0.0))


def serve_timeout(config: DeployConfig, model: str) -> float:
    if config.timeout:
        return config.timeout
    return 90.0 + 4.0 * config.budget * len(config.batch_sizes) + (120.0 if model != "lenet" else 0.0)


def _env(worker: str, config: DeployConfig, ms_env: dict) -> dict:
    from probes import quality

    threads = str(config.threads or hostfacts.usable_cores())
    # the stop rule's t quantile, from scipy here: the workers stay dependency-light
    env = {"OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads, "ADVISOR_T_CRIT": f"{quality.stop_rule_t():.6f}"}
    if worker == "mindspore":
        env.update(ms_env)
    else:
        env["ONEDNN_MAX_CPU_ISA"] = None  # never outside MindSpore (it slows torch down)
    return env


def _outcome_fields(out: launcher.ChildOutcome) -> tuple[dict, Optional[str], Optional[str]]:
    """(the worker's result without 'kind', status, error) of a child's outcome."""
    res = dict(out.result or {})
    res.pop("kind", None)
    if out.status == "ok":
        return res, res.get("status", "failed"), res.get("error")
    status = {"timeout": "timeout", "cancelled": "cancelled"}.get(out.status, "failed")
    return res, status, out.error or res.get("error") or "no result"


def export_step(
    fw: str,
    fmt: str,
    model: str,
    config: DeployConfig,
    outdir: str,
    env: Optional[dict] = None,
    cancel: Optional[Cancel] = None,
) -> ExportStep:
    """One export in its own child (env: the worker's extra environment, default from config)."""
    env = env if env is not None else _env(fw, config, {})
    sid = f"{fw}-{fmt}-{model}"
    base = dict(id=sid, framework=fw, format=fmt, model=model)
    args = [
        "-m",
        WORKER[fw],
        "export",
        "--model",
        model,
        "--format",
        fmt,
        "--out",
        outdir,
        "--threads",
        str(config.threads or hostfacts.usable_cores()),
    ]
    if config.inject_op:
        args += ["--inject-op", config.inject_op]
    out = launcher.run_child(args, timeout=export_timeout(config, model), env_extra=env, cancel=cancel)
    res, status, error = _outcome_fields(out)
    if out.status != "ok":
        return ExportStep(**base, status=status, error=error, child_seconds=round(out.seconds, 3))
    res.update(base, status=status, error=error, child_seconds=round(out.seconds, 3))
    try:
        return ExportStep(**res)
    except ValidationError as exc:
        return ExportStep(
            **base, status="failed", error=f"the worker sent an invalid result: {str(exc).splitlines()[0]}"
        )


def serve_step(
    sid: str,
    worker: str,
    fw: str,
    artefact: str,
    model: str,
    engine: str,
    path: str,
    config: DeployConfig,
    outdir: str,
    env: Optional[dict] = None,
    cancel: Optional[Cancel] = None,
    provider: Optional[str] = None,
) -> ServeStep:
    """One serve step in its own child; its parity output goes to outdir/<sid>.npz."""
    env = env if env is not None else _env(worker, config, {})
    base = dict(id=sid, framework=fw, artefact=artefact, model=model, engine=engine, provider=provider)
    args = [
        "-m",
        WORKER[worker],
        "serve",
        "--model",
        model,
        "--artefact",
        artefact,
        "--path",
        path,
        "--id",
        sid,
        "--batch-sizes",
        ",".join(str(b) for b in config.batch_sizes),
        "--budget",
        str(config.budget),
        "--out",
        outdir,
        "--threads",
        str(config.threads or hostfacts.usable_cores()),
    ]
    if provider:
        args += ["--provider", provider]
    if config.max_calls:
        args += ["--max-calls", str(config.max_calls)]
    out = launcher.run_child(args, timeout=serve_timeout(config, model), env_extra=env, cancel=cancel)
    res, status, error = _outcome_fields(out)
    if out.status != "ok" or status != "ok":
        return ServeStep(
            **base, status=status, error=error, child_seconds=round(out.seconds, 3), settings=res.get("settings") or {}
        )
    res.update(base, status="ok", child_seconds=round(out.seconds, 3))
    res["engine"] = engine
    timings = res.get("timings") or []
    if timings:
        res["latency_ms"] = timings[0].get("latency_ms")
        res["throughput"] = timings[-1].get("images_per_second")
    try:
        step = ServeStep(**res)
    except ValidationError as exc:
        return ServeStep(
            **base, status="failed", error=f"the worker sent an invalid result: {str(exc).splitlines()[0]}"
        )
    for t in step.timings:
        step.warnings += [f"batch {t.batch_size}: {w}" for w in t.warnings]
    return step


def serve_plan(model: str, exports: list[ExportStep], config: DeployConfig, engines: dict) -> list[dict]:
    """What to serve: the source baselines, then every artefact that exported, on every engine here."""
    plan = []
    for fw in config.frameworks:
        plan.append(dict(worker=fw, fw=fw, artefact="source", engine=SOURCE_ENGINE[fw], path=""))
    providers = [p for p in engines.get("onnxruntime", {}).get("providers", []) if p in ENGINE_OF_PROVIDER]
    for ex in exports:
        if ex.status != "ok" or not ex.files:
            continue
        if ex.format == "onnx":
            if not providers:  # the step is listed, so the table says why ONNX went unserved
                ort = engines.get("onnxruntime", {})
                plan.append(
                    dict(
                        worker="onnxruntime",
                        fw=ex.framework,
                        artefact="onnx",
                        path=ex.files[0],
                        engine="onnxruntime-cpu",
                        provider="CPUExecutionProvider",
                        unavailable=ort.get("reason") or "onnxruntime lists no usable provider",
                    )
                )
            for p in providers:
                plan.append(
                    dict(
                        worker="onnxruntime",
                        fw=ex.framework,
                        artefact="onnx",
                        path=ex.files[0],
                        engine=ENGINE_OF_PROVIDER[p],
                        provider=p,
                    )
                )
        elif ex.format == "torch.export":
            plan.append(
                dict(worker="pytorch", fw="pytorch", artefact="torch.export", engine="torch.export", path=ex.files[0])
            )
        elif ex.format == "mindir":
            plan.append(
                dict(
                    worker="mindspore",
                    fw="mindspore",
                    artefact="mindir",
                    engine="mindspore-graphcell",
                    path=ex.files[0],
                )
            )
    for p in plan:
        p["id"] = f"{p['fw']}-{p['artefact']}-{model}@{p['engine']}"
    return plan


def _parity(model: str, serves: list[ServeStep], outdir: str, batch: int) -> list[ParityCheck]:
    rel = parity_rel_tolerance(model)
    by_id = {s.id: s for s in serves if s.model == model}
    pairs = []
    for s in by_id.values():
        if s.artefact != "source":
            pairs.append(("export", f"{s.framework}-source-{model}@{SOURCE_ENGINE[s.framework]}", s.id))
    ort_t = f"pytorch-onnx-{model}@onnxruntime-cpu"
    ort_m = f"mindspore-onnx-{model}@onnxruntime-cpu"
    if ort_t in by_id or ort_m in by_id:
        pairs.append(("cross", ort_t, ort_m))
    src_t, src_m = (f"{fw}-source-{model}@{SOURCE_ENGINE[fw]}" for fw in ("pytorch", "mindspore"))
    if src_t in by_id and src_m in by_id:
        pairs.append(("cross", src_t, src_m))
    out = []
    for kind, a, b in pairs:
        base = dict(id=f"{a} vs {b}", model=model, kind=kind, a=a, b=b, batch_size=batch, rel_tolerance=rel)
        missing = [x for x in (a, b) if x not in by_id or by_id[x].status != "ok"]
        if missing:
            why = "; ".join(f"{x}: {by_id[x].status}" if x in by_id else f"{x}: not run" for x in missing)
            out.append(ParityCheck(**base, status="skipped", error=why))
            continue
        try:
            with np.load(os.path.join(outdir, f"{a}.npz")) as fa, np.load(os.path.join(outdir, f"{b}.npz")) as fb:
                res = compare_logits(fa["logits"], fb["logits"], rel)
        except (OSError, ValueError, KeyError) as exc:
            res = {"status": "failed", "ok": False, "error": f"could not read the outputs: {exc}"}
        res.pop("rel_tolerance", None)
        out.append(ParityCheck(**base, **res))
    return out


def _not_measured(engines: dict, config: DeployConfig) -> list[str]:
    out = []
    ort = engines.get("onnxruntime", {})
    if not ort.get("installed"):
        out.append(f"ONNX Runtime: {ort.get('reason') or 'not installed'}; no ONNX artefact was served")
    else:
        for p in ("CUDAExecutionProvider", "TensorrtExecutionProvider"):
            if p not in ort.get("providers", []):
                out.append(
                    f"ONNX Runtime {p}: not among this onnxruntime's providers ({', '.join(ort.get('providers', []))})"
                )
    if "mindspore" in config.frameworks:
        lite = engines.get("mindspore-lite", {})
        out.append(
            lite.get("reason")
            or "MindSpore Lite: installed, but this probe has no Lite worker yet: "
            "MindIR served with mindspore.load + nn.GraphCell"
        )
    return out


def _busy_host_warning(result: DeployResult) -> None:
    """The training probe's rule: a 1-min load average above 0.75 x the cores makes numbers noisy."""
    try:
        after = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return
    result.host["loadavg_after"] = after
    cores = result.host.get("logical_cores") or hostfacts.usable_cores()
    before = result.host.get("loadavg_before") or [0.0]
    worst = max(before[0], after[0])
    if worst > 0.75 * cores:
        result.warnings.append(
            f"the host was busy (1-min load average up to {worst} on {cores} CPUs): "
            "latencies are noisy and their tails (P95/P99) longer than on a quiet host"
        )


def run_deploy(
    config: DeployConfig, on_event: Optional[EventCallback] = None, cancel: Optional[Cancel] = None
) -> DeployResult:
    """Export, serve and compare every requested model; never raises for a failing step."""
    from probes.training import runner as training_runner  # host facts and the MindSpore tuning, shared

    t0 = time.monotonic()
    cancel = cancel or Cancel()
    host = training_runner.host_summary()
    fws = training_runner.installed_frameworks()
    engine_rows = _engines.installed_engines()
    engines = {e["name"]: e for e in engine_rows}
    result = DeployResult(
        created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        host=host.model_dump(),
        config=config,
        engines=engine_rows,
    )
    ms_env, notes = training_runner.mindspore_env(host.avx512, config.tune, "cpu")
    if "mindspore" in config.frameworks:
        result.warnings += notes
    envs = {w: _env(w, config, ms_env) for w in WORKER}
    result.not_measured = _not_measured(engines, config)
    workdir = config.keep_dir or str(launcher.make_temp_dir("advisor-deploy-"))  # swept if this process dies
    os.makedirs(workdir, exist_ok=True)
    outdir = os.path.join(workdir, "outputs")
    os.makedirs(outdir, exist_ok=True)
    index = 0

    def event(sid: str, kind: str, message: str, status: Optional[str] = None, total: Optional[int] = None):
        if on_event is not None:
            on_event(DeployEvent(step_id=sid, kind=kind, message=message, status=status, index=index, total=total))

    try:
        for model in config.models:
            adir = os.path.join(workdir, model)
            os.makedirs(adir, exist_ok=True)
            exports: list[ExportStep] = []
            for fw in config.frameworks:
                for fmt in FORMATS[fw]:
                    if config.formats and fmt not in config.formats:
                        continue
                    sid = f"{fw}-{fmt}-{model}"
                    index += 1
                    event(sid, "start", f"export {model} from {fw} to {fmt}")
                    if not fws[fw]["installed"]:
                        step = ExportStep(
                            id=sid,
                            framework=fw,
                            format=fmt,
                            model=model,
                            status="unavailable",
                            error=f"{fw} is not installed",
                        )
                    elif cancel.is_set():
                        step = ExportStep(
                            id=sid,
                            framework=fw,
                            format=fmt,
                            model=model,
                            status="cancelled",
                            error="cancelled by the user",
                        )
                    else:
                        step = export_step(fw, fmt, model, config, adir, envs[fw], cancel)
                    exports.append(step)
                    event(sid, "done", step.error or "ok", step.status)
            result.exports += exports
            for p in serve_plan(model, exports, config, engines):
                index += 1
                event(p["id"], "start", f"serve {p['id']}")
                base = dict(
                    id=p["id"],
                    framework=p["fw"],
                    artefact=p["artefact"],
                    model=model,
                    engine=p["engine"],
                    provider=p.get("provider"),
                )
                if p.get("unavailable"):
                    step = ServeStep(**base, status="unavailable", error=p["unavailable"])
                elif p["worker"] in fws and not fws[p["worker"]]["installed"]:
                    step = ServeStep(**base, status="unavailable", error=f"{p['worker']} is not installed")
                elif cancel.is_set():
                    step = ServeStep(**base, status="cancelled", error="cancelled by the user")
                else:
                    step = serve_step(
                        p["id"],
                        p["worker"],
                        p["fw"],
                        p["artefact"],
                        model,
                        p["engine"],
                        p["path"],
                        config,
                        outdir,
                        envs[p["worker"]],
                        cancel,
                        p.get("provider"),
                    )
                result.serves.append(step)
                event(p["id"], "done", step.error or "ok", step.status)
            result.parity += _parity(model, result.serves, outdir, max(config.batch_sizes))
            for ex in exports:  # names, not temp paths, in the result
                ex.files = [os.path.basename(f) for f in ex.files]
    finally:
        if not config.keep_dir:
            shutil.rmtree(workdir, ignore_errors=True)
    for s in result.serves:
        s.settings.pop("numpy", None)
    _busy_host_warning(result)
    result.seconds = round(time.monotonic() - t0, 2)
    return result
