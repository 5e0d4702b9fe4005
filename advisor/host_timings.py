"""What this host's probe steps took, kept per host in the cache folder, so the next plan
(advisor.estimates) starts from this host's own figures instead of the machine kind's defaults.

    probes-timings-<fingerprint>.json   {"version": 2, "<kind>": {"<key>": {figures, "n": count}}}

A timed run (training, transformer) is kept in parts, from its own breakdown: start-up (child wall time
less its first step and its timed part), the first step apart for a cold and a warm torch.compile cache,
and the steady step; each divided by the slowdown the run measured for itself (its other processes' busy
cores during the timed part), so the figure is this host's when quiet and the plan multiplies back the
contention of its own moment. A step without such a breakdown (a GEMM / parity child, a deploy step, an
accuracy or pipeline run, a launch) is kept as its wall time, divided by the slowdown of the load measured
over the measurement itself (the host's busy CPU less the probe's own: advisor.estimates.measured_load),
not the load read when its plan was made, which lags. Each entry says the load it was measured under
(`foreign_cores`, other processes' busy cores, and the host's `cores`). Each figure is the mean of the
last KEEP observations. A version-1 file (figures divided by the contention model before the quiet-host
refit) is read in today's units (migrated). `advisor probe --clear-cache` removes the file with the cached
results (it matches probes-*.json).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional

from advisor.estimates import (
    DEPLOY_FIRST_EXTRA_S,
    SILENT_STEPS,
    Figures,
    Load,
    deploy_key,
    from_v1,
    gpt_aux_key,
    kind_slowdown,
    launch_key,
    step_share,
)
from probes.bounded import read_json

VERSION = 2
# Version 1 divided every figure by the contention model before the quiet-host refit (advisor.estimates.
# V1_CONTENTION); its files are read in today's units (migrated).
KEEP = 3  # observations a figure averages (assumption: the latest few, so a changed host shows soon)
MAX_BYTES = 512 * 1024  # a few hundred keys; anything larger is not this file
RUN_PARTS = ("startup", "first_warm", "first_cold", "step")

_memo: dict[str, Figures] = {}


def path() -> Path:
    from advisor.cache import cache_dir, host_fingerprint

    return cache_dir() / f"probes-timings-{host_fingerprint()}.json"


def _read(where: Path) -> dict:
    """The file's figures, or {} when it is missing, not a regular file, too large or not this format
    (it is only a head start: a bad file is ignored and rewritten at the next learn)."""
    try:
        data = read_json(where, MAX_BYTES)  # the one bounded reader: regular files only, size and depth budgets
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") not in (1, VERSION):
        return {}
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    return migrated(tables) if data.get("version") == 1 else tables


def migrated(tables: Mapping[str, Mapping]) -> dict:
    """Version-1 figures in today's units: each entry's figures times the slowdown version 1 divided them by
    over today's (advisor.estimates.Load.slowdown; a timed step's cores-it-did-not-get factor is the same in
    both) at the load the entry says it was measured under; an entry that names none (the extra rounds'
    share) as it was."""
    out: dict = {}
    for kind, table in tables.items():
        out[kind] = {}
        for key, entry in table.items():
            if not isinstance(entry, Mapping):
                continue
            foreign, cores = entry.get("foreign_cores"), entry.get("cores")
            if not isinstance(foreign, (int, float)) or not isinstance(cores, int) or cores < 1:
                out[kind][key] = dict(entry)
                continue
            load = Load(cores, float(foreign))
            out[kind][key] = {
                name: round(from_v1(value, load, kind, key, name), 4)
                if isinstance(value, (int, float)) and name not in ("foreign_cores", "cores", "share")
                else value
                for name, value in entry.items()
            }
    return out


def figures() -> Figures:
    """This host's figures (read once per process; learn() refreshes them)."""
    try:
        where = path()
    except Exception:  # noqa: BLE001 - no cache folder to name: the defaults
        return Figures()
    key = str(where)
    if key not in _memo:
        _memo[key] = Figures(_read(where))
    return _memo[key]


def _mean(old: object, value: float, n: int) -> tuple[float, int]:
    """The running mean over the last KEEP observations (an exponential window of KEEP)."""
    if not isinstance(old, (int, float)) or n <= 0:
        return value, 1
    n = min(n, KEEP - 1)
    return (float(old) * n + value) / (n + 1), n + 1


def _put(table: dict, key: str, values: Mapping[str, float], load: Optional[Load] = None) -> None:
    """Fold quiet-equivalent figures into the entry, with the load they were measured under (its
    `foreign_cores`, averaged as they are, and the host's `cores`): the file says what it divided by."""
    entry = table.setdefault(key, {})
    if not isinstance(entry, dict):
        entry = table[key] = {}
    if load is not None:
        values = {**values, "foreign_cores": load.foreign}
        entry["cores"] = load.cores
    for name, value in values.items():
        if value is None or not value >= 0:  # NaN and negatives are not figures
            continue
        counts = entry.setdefault("n", {})
        if not isinstance(counts, dict):
            counts = entry["n"] = {}
        mean, n = _mean(entry.get(name), float(value), int(counts.get(name, 0) or 0))
        entry[name], counts[name] = round(mean, 4), n


def _field(run: object, name: str) -> object:
    """A field of a finished run as its done event carried it: the run's model, or (through the probe
    registry's adapter, as the TUI and the benchmark receive it) the model's dict."""
    return run.get(name) if isinstance(run, Mapping) else getattr(run, name, None)


def own_load(run: object, cores: int) -> Optional[Load]:
    """The load a timed run measured for itself (its settings' foreign_cores), or None."""
    foreign = (_field(run, "settings") or {}).get("foreign_cores")
    return Load(cores, float(foreign)) if isinstance(foreign, (int, float)) else None


def _heavier(own: Optional[Load], measured: Load) -> Load:
    """A timed run's own load, unless the whole measurement's (its saturated host's runnable demand
    counted, as the plan counts it) was heavier: a figure is divided by the load the plan would multiply."""
    return measured if own is None or measured.foreign > own.foreign else own


def run_parts(run: object, cores: int, whole: Optional[Load] = None, kind: str = "") -> Optional[dict[str, float]]:
    """A finished timed run's parts, quiet-equivalent (None when it did not measure); `whole`: the load
    over the whole measurement (_heavier); `kind`: its probe kind (advisor.estimates.kind_slowdown)."""
    if _field(run, "status") != "ok":
        return None
    seconds, first = _field(run, "seconds"), _field(run, "first_step_seconds")
    warmup, measured = _field(run, "warmup_seconds"), _field(run, "measured_seconds")
    median = _field(_field(run, "step_time_ms"), "median")
    if None in (seconds, first, warmup, measured, median):
        return None
    settings = _field(run, "settings") or {}
    threads = settings.get("threads")
    load = _heavier(own_load(run, cores), whole or Load(cores))
    step_slow = load.slowdown * cores / threads if isinstance(threads, int) and threads > 0 else load.step_slowdown
    start_slow = kind_slowdown(kind, load, part="startup")  # its start-up and first step, as the plan's
    parts = {
        "startup": max(0.0, seconds - first - warmup - measured) / start_slow,
        "step": median / 1e3 / step_slow,
    }
    first_q = first / start_slow
    cache = settings.get("compile_cache")
    if _field(run, "mode") == "compile":
        parts["first_cold" if cache == "cold" else "first_warm"] = first_q
    else:  # eager, PyNative; MindSpore graph compiles every time: one first step
        parts["first_cold"] = parts["first_warm"] = first_q
    return parts


def dynamic_parts(run: object, config: object, load: Load) -> Optional[dict[str, float]]:
    """A finished dynamic-shape child's parts (advisor.estimates.DYNAMIC_PARTS), quiet-equivalent by the
    slowdown its plan was made under: start-up (its wall time less its steps), seconds per new shape
    (compiles and first-shape stalls over the shapes its ways were expected to cost, apart for a cold
    and a warm inductor cache) and microseconds per computed token at the default shape."""
    from advisor.estimates import new_shapes
    from probes.transformer import flops, spec
    from probes.transformer.models import DynamicRun

    if isinstance(run, Mapping):  # through the probe registry's adapter: the model's dict
        try:
            run = DynamicRun.model_validate(run)
        except ValueError:
            return None

    ways = getattr(run, "ways", None) or []
    seconds, variant = getattr(run, "seconds", None), getattr(run, "variant", None)
    if getattr(run, "status", None) != "ok" or not ways or seconds is None or variant is None:
        return None
    shape = spec.Shape(config.layers, config.hidden, config.heads, config.seq, config.vocab)
    per_token = flops.train_flops_per_token(shape) / flops.train_flops_per_token(spec.Shape())
    steps_s, tokens, work_s = 0.0, 0.0, 0.0
    shapes = {"cold": [0.0, 0], "warm": [0.0, 0]}
    for way in ways:
        extra = getattr(way, "model_extra", None) or {}
        stalls = way.compile_seconds + way.stall_seconds
        steps_s += way.total_seconds
        cache = shapes["warm" if extra.get("inductor_cache") == "warm" else "cold"]
        cache[0] += stalls
        cache[1] += new_shapes(variant, len(way.shapes))
        real = (way.end_to_end_tokens_per_second or 0.0) * way.total_seconds
        if real > 0 and way.padding_share < 1.0:
            tokens += real / (1.0 - way.padding_share)
            work_s += max(0.0, way.total_seconds - stalls)
    parts = {"startup": max(0.0, seconds - steps_s) / load.slowdown}
    for name, (spent, count) in shapes.items():
        if count:
            parts[f"shape_{name}"] = spent / count / load.slowdown
    if tokens > 0:
        parts["token_us"] = work_s / tokens * 1e6 / load.slowdown / per_token  # as planned: every core
    uncached = getattr(run, "framework", None) != "pytorch" or variant == "eager"
    if uncached and "shape_cold" in parts:
        parts["shape_warm"] = parts["shape_cold"]  # no inductor cache: every run compiles alike
    return parts


@dataclass
class _Pooled:
    """A run's steps of one figure: their quiet-equivalent seconds, the full steps they count for
    (advisor.estimates.step_share) and, for accuracy runs, the sums of their parts."""

    seconds: float = 0.0
    full_steps: float = 0.0
    parts: dict[str, float] = field(default_factory=dict)
    with_parts: int = 0


def learn(kind_name: str, config: object, progress) -> None:
    """Keep what the finished steps of a measurement took (called when it ends, however it ends);
    `progress` is its advisor.progress.ProbeProgress (not imported here: progress imports this module)."""
    if not progress.actuals():
        return
    where = path()
    data = _read(where)
    fold(data, kind_name, config, progress)
    from advisor.output import write_atomic

    where.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(where, json.dumps(data, indent=1, sort_keys=True) + "\n")
    _memo.pop(str(where), None)


def fold(data: dict, kind_name: str, config: object, progress, load: Optional[Load] = None) -> None:
    """Fold a measurement's finished steps into the figures' file contents `data` (learn's arithmetic, kept
    apart from the file so that a recorded run can be learned from again, at the `load` its learning
    measured: tests/test_estimates_replayed.py)."""
    actuals = progress.actuals()
    table = data.setdefault(kind_name, {})
    # the load the steps met, measured over the measurement itself: the plan's, read before it started (the
    # TUI's from the 1-minute average, which lags a change by a minute), taught figures 2x off when it moved
    load = load or progress.measured_load() or progress.load or Load(os.cpu_count() or 1)
    models = list(getattr(config, "models", []) or [])
    pooled: dict[str, _Pooled] = {}
    for step, taken, run in actuals:
        if step.id.startswith(SILENT_STEPS):
            continue  # silent steps: their time is the neighbours'
        parts = run_parts(run, load.cores, load, kind_name) if kind_name in ("training", "gpt") else None
        if kind_name == "gpt" and step.id.endswith("-dynamic"):
            parts = dynamic_parts(run, config, load)
            if parts is not None:
                _put(table, step.id, parts, load)
            continue  # a dynamic child that did not measure says nothing of the next one
        if parts is not None:
            _put(table, step.id, parts, _heavier(own_load(run, load.cores), load))
        elif step.id.endswith("-aux"):
            fw = step.id.removesuffix("-aux")
            key = f"aux-{fw}-{'+'.join(models)}" if kind_name == "training" else gpt_aux_key(fw, config)
            _put(table, key, {"seconds": taken / kind_slowdown(kind_name, load, key)}, load)
        elif kind_name in ("training", "gpt"):
            continue  # a timed run that did not measure: its time says nothing of the next one
        else:
            key = deploy_key(config) if kind_name == "deploy" else _step_key(kind_name, step.id)
            # a full step's figure: a short ONNX Runtime serve or a launch of more ranks by its share
            slow = kind_slowdown(kind_name, load, key)  # as the plan multiplies it back
            pool = pooled.setdefault(key, _Pooled())
            pool.seconds += taken / slow
            pool.full_steps += step_share(kind_name, step.id)
            parts = accuracy_parts(run, taken) if kind_name == "accuracy" else None
            if parts:
                pool.with_parts += 1
                for name, value in parts.items():
                    pool.parts[name] = pool.parts.get(name, 0.0) + value / slow
    # one figure per key and run: the time its steps took over the full steps they count for, which is what
    # the plan multiplies back (a mean of each step's own quotient, folded in one by one, let the last few
    # steps decide: a deployment's two short ONNX Runtime serves came last and taught a full step 1.7x its time)
    for key, pool in pooled.items():
        seconds = pool.seconds
        if kind_name == "deploy":  # the first step's one-off cost is planned on its own (DEPLOY_FIRST_EXTRA_S),
            seconds = max(seconds / 2.0, seconds - DEPLOY_FIRST_EXTRA_S)  # at most half a short run's time
        values = {"seconds": seconds / pool.full_steps} if pool.full_steps > 0 else {}
        values.update({name: total / pool.with_parts for name, total in pool.parts.items()})
        _put(table, key, values, load)
    # every run planned as an extra round: one the runner announced was made certain, and counting only the
    # rounds still uncertain at the end never counted a round that ran (the share could only be learned as 0)
    extras = [s for s in progress.order if not s.step.setup and s.extra]
    complete = all(s.done for s in progress.order if s.step.chance >= 1.0 and not s.step.setup)
    if extras and complete:  # a cancelled measurement says nothing of how often another round is needed
        ran = sum(1 for s in extras if s.began is not None)
        _put(table, "extra_round_share", {"share": ran / len(extras)})
    data["version"] = VERSION


def accuracy_parts(run: object, taken: float) -> Optional[dict[str, float]]:
    """An accuracy run's start-up (its wall time less its epochs) and mean epoch, in seconds as measured
    (advisor.estimates.ACCURACY_PARTS); None when it reported no epochs."""
    epochs = _field(run, "epoch_seconds")
    if not isinstance(epochs, list) or not epochs or not all(isinstance(e, (int, float)) for e in epochs):
        return None
    return {"startup": max(0.0, taken - sum(epochs)), "epoch": sum(epochs) / len(epochs)}


def _step_key(kind_name: str, step_id: str) -> str:
    """The figure a step's time teaches: the run without its seed (accuracy), every launch alike (scaling:
    per framework: its ids name ranks the plan counts by number), else the step itself (deploy: advisor.estimates.deploy_key)."""
    if kind_name == "accuracy" and "-seed" in step_id:
        return step_id.rsplit("-seed", 1)[0]
    if kind_name == "scaling":
        return launch_key(step_id.split("-", 1)[0])
    return step_id
