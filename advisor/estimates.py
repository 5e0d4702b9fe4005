"""How long each step of a probe takes on this host, before it runs: the plan the progress model
(advisor.progress) counts down.

A step's time is the sum of what it really spends, each part from what was measured:
- start-up (interpreter, framework import, model build, first optimizer, shutdown) and the first step,
  with the cold `torch.compile` (an empty inductor cache folder for that model and batch) apart from a
  warm one: this host's own figures (advisor.host_timings keeps them per host, from every run's own
  breakdown), else the figures measured on this project's 2-core machine kind (below, dated);
- the timed part: warmup + measurement, from the budget and the protocol's rules (probes.training.measure:
  at least two warmup steps and five samples, stopped at three budgets);
- set-up steps (the GEMM peak / parity arrays children, the host summary) and, for the adaptive rounds,
  the extra round weighted by how often this host needed one;
- the contention now: each part slows by its weight times the other processes' busy cores per core, up
  to a cap (kind_slowdown: the defaults are quiet-host figures, the weights fitted on loaded runs), a
  training step also by the threads the run gets (the cores left idle: probes.training.runner.round_threads).

Every figure here is a measured default or an assumption, each named; the benchmark
benchmarks/probe_estimates.py prints estimate / actual per probe kind on a quiet and a loaded host.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional

if TYPE_CHECKING:
    from probes.hostfacts import RunnableSessions

# ---- the contention a step meets (Load) ---------------------------------------------------------
# How much of the others' demand a probe child feels: the scheduler shares the cores between sessions
# (each probe child runs in one of its own), not between threads, and not every runnable task keeps a
# core busy. Refitted on 2026-12-04 once the defaults below became quiet-host figures, by
# benchmarks/probe_estimates.py --replay over every recording (the 39 loaded runs of 2026-12-03 in
# tests/fixtures/eta_records and the quiet ones): the first runs on an empty cache took 2.5-3x their quiet
# time at 6-11 others on 2 cores (training --quick 94-117 s against 37 s quiet, deployment 90-116 s against
# 40 s) and 1.5x at 1.8 (quick 56 s). Replayed, weights 0.8-1.5 with caps 1.25-2.5 kept 34-38 of the 44
# openings inside and 84-88% of the mid-run ETAs; this pair the most of both (38, 88%; 91% with the weights
# below).
CONTENTION_WEIGHT = 1.2
# ... and at most this many of the others' busy cores per core (2.8x): past it the run queue grows, not a
# probe child's share of the time. The same runs: at 6-11 others on 2 cores the first quick runs took
# 94-117 s and the deployments 90-116 s whatever the count.
CONTENTION_MAX_PER_CORE = 1.5
# An accuracy run's children each take the cores found idle before them (probes.accuracy.runner, as a
# training round does): one thread beside a busy session, which then gets a core of its own until the others
# outnumber the cores less one. So its parts slow only by the others past that (ACCURACY_KNEE_CORES), by this
# weight per core, to the same cap. Fitted on twelve runs of 2026-12-04 (benchmarks/probe_estimates.py
# --record, LeNet-5 on the digits, two epochs; tests/fixtures/eta_records/idle-threads.json): quiet 20-24 s,
# beside one busy session 24-26 s (one of six spinners or one burner), two 44-49 s, three 48-51 s, four 73-85
# s. On every core (before) the same run took 105-117 s beside three and 25-53 s beside one.
ACCURACY_WEIGHT = 2.2
ACCURACY_KNEE_CORES = 1.0  # the core a one-thread child keeps while the others leave it one
# A training suite's GEMM peak / parity children feel the others less, its runs' start-ups (interpreter,
# framework import, model build, first step) more than CONTENTION_WEIGHT. Measured on the nine loaded
# quick runs of 2026-12-03 (4.1-11 others on 2 cores, tests/fixtures/eta_records) against `quiet-s4`:
# the children took 1.7-2.2x their quiet time (PyTorch's 11.7-19.9 s against 6.8 s, MindSpore's 8.4-11.2 s
# against 5.9 s: 1.9x, 0.6 at the cap), the runs' start-ups 3-5.5x (PyTorch eager's 10.5-16 s against 3.6 s,
# MindSpore graph's 7-12 s against 2.6 s: 3.5x, 1.65). Planned alike at 2.8x, the children finished early
# and the ETA of the runs after them read 0.55-0.7x the time left; replayed over every recording the ETAs
# inside went from 88.1% to 90.1%.
AUX_WEIGHT = 0.6
RUN_WEIGHT = 1.65
# The contention model of the figures' file version 1 (advisor.host_timings, before 2026-12-04): weight 0.4,
# at most 2.5 others per core (2.0x). Figures planned back through it (a loaded run's time over its
# slowdown) are read in today's units by from_v1.
V1_CONTENTION = (0.4, 2.5)


def saturated_v1(figures: dict) -> dict:
    """Defaults measured on a saturated 2-core host and planned back by version 1's capped slowdown (every
    one at 4.7 or more others on 2 cores, where both models are at or near their cap), in today's units:
    no quiet host has measured them yet."""
    factor = (1.0 + V1_CONTENTION[0] * V1_CONTENTION[1]) / (1.0 + CONTENTION_WEIGHT * CONTENTION_MAX_PER_CORE)
    return {k: tuple(x * factor for x in v) if isinstance(v, tuple) else v * factor for k, v in figures.items()}


# Hosts of this kind differ: the probes that are mostly process start-ups (imports, exports, graph
# compiles) ran 1.6-1.9x faster on a second 2-core host (2026-12-04 19:00) than on the first, whose quiet
# runs the figures below are. A kind's first-run figures are planned at the geometric middle of what its
# first runs on both hosts gave (the lowest and highest opening, quiet or loaded), so either host opens
# inside 0.67-1.5x: deployments 0.93-1.88x (x 0.76: 0.70-1.42x), accuracy runs 0.76-1.61x (x 0.90:
# 0.69-1.46x). In the training probe PyTorch's children differ most (quiet first runs: its GEMM / parity
# child 4.7-7.3 s on the first host, 3.4-4.5 s on the second; a LeNet-5 round 4.8-7.1 s against 2.9-4.9 s)
# and MindSpore's less (its rounds 3.9-5.0 s against 3.6-3.7 s): PyTorch's start-ups there are planned
# x 0.75 (a first quick run with PyTorch alone on the second host opened 1.89-2.15x, now 1.30-1.47x; with
# both frameworks the first quick runs open 0.78-1.09x on either host, 0.88-1.20x before).
HOST_MIDDLE = {"deploy": 0.76, "accuracy": 0.90, "pytorch-training": 0.75}


# ---- figures measured here (2-vCPU AMD EPYC under KVM, torch 2.13.0, mindspore 2.10.0, 2026-12-03,
# quiet host; benchmarks/probe_estimates.py) -------------------------------------------------------
# Training probe, per (framework, mode, model) at batch 32: start-up s, first step warm s, first step
# cold s (torch.compile with an empty inductor cache; MindSpore graph compiles every time), step s on
# both cores.
TRAINING_S: dict[tuple[str, str, str], tuple[float, float, float, float]] = {
    # quiet-host figures (below the table), its start-up at the middle of two hosts (HOST_MIDDLE)
    ("pytorch", "eager", "lenet"): (3.6 * HOST_MIDDLE["pytorch-training"], 0.015, 0.015, 0.004),
    ("pytorch", "compile", "lenet"): (8.5, 1.9, 30.0, 0.004),
    ("mindspore", "graph", "lenet"): (2.0, 0.6, 0.6, 0.0095),  # quiet-host figures: below the table
    ("mindspore", "pynative", "lenet"): (3.5, 0.3, 0.3, 0.014),
    ("pytorch", "eager", "resnet18"): (6.5, 1.0, 1.0, 0.45),
    ("pytorch", "compile", "resnet18"): (8.5, 3.0, 45.0, 0.4),
    ("mindspore", "graph", "resnet18"): (4.5, 3.5, 3.5, 0.7),
    ("mindspore", "pynative", "resnet18"): (5.0, 2.5, 2.5, 0.9),
    ("pytorch", "eager", "resnet50"): (7.0, 2.5, 2.5, 1.4),
    ("pytorch", "compile", "resnet50"): (9.0, 6.0, 70.0, 0.9),
    ("mindspore", "graph", "resnet50"): (5.0, 8.0, 8.0, 1.6),
    ("mindspore", "pynative", "resnet50"): (5.5, 5.0, 5.0, 2.0),
}
TRAINING_UNKNOWN_S = (7.0, 2.0, 30.0, 0.5)  # a (framework, mode, model) not above: the slowest-like row
# The two LeNet-5 rows the quick profile runs, and the GEMM / parity children below, are the
# means of what two quiet first runs taught this host (benchmarks/probe_estimates.py, run queue 0.0, an
# empty cache: `quiet-s4` 2026-12-03 23:46 and `quiet-s5`'s first pass 2026-12-04 02:28): PyTorch eager
# start-up 4.0 and 3.3 s (its step 3.5 and 4.2 ms), MindSpore graph 2.2 and 1.8 s, its first step 0.70 and
# 0.54 s (its step 10.4 and 8.7 ms). The figures before (6.5 s and 4.5 s) came from loaded runs planned
# back through the capped slowdown: a quiet first quick probe opened 1.63x. The other rows: no quiet run has
# measured them (kept as they were).
# The GEMM peak + parity arrays child, per framework: its start-up and its work per model. Quiet, the same
# two runs: PyTorch's 7.3 and 6.4 s, MindSpore's 6.1 and 5.6 s for one model (the split between start-up
# and model kept from the figures before, 6 + 2 and 6 + 3 s, scaled to the mean).
AUX_S = {
    "pytorch": (5.1 * HOST_MIDDLE["pytorch-training"], 1.7 * HOST_MIDDLE["pytorch-training"]),
    "mindspore": (3.9, 2.0),
}
# A PyTorch child on a CUDA build of torch starts later than the defaults here (a CPU build's) say: its
# import loads the CUDA libraries (5.2-5.6 s on an H200 host with 16 cores, 1.4-1.5 s for the CPU build
# here) and a child on the GPU opens its context. Two quick probes there (2026-12-04, torch 2.11 with CUDA
# 13, benchmarks/probe_estimates.py): LeNet-5 eager's start-up 11.1 s against 3.6 s planned, the GEMM /
# parity child 14.2-15.2 s against 6.8 s. Added to every PyTorch default start-up (a host's own figures
# have it in them).
CUDA_BUILD_STARTUP_S = 7.4
# What the plan counts before the first child (x the load's slowdown). Fitted, not the host summary's own time:
# probes.check.host.collect_host took 0.00-0.08 s in the 40 training and GPT recordings of three hosts, but
# the loaded quick runs' openings were fitted with this second (at 0.05 s the run beside four burners opened
# 0.65x, a PyTorch-only quiet run 1.39x instead of 1.47x: tests/fixtures/eta_records, 2026-12-04).
HOST_SUMMARY_S = 1.0
IDLE_WINDOW_S = 0.5  # probes.training.runner.IDLE_WINDOW_S: the idle-core sample before each round
# The transformer probe, default shape (4 layers, hidden 256, seq 128, vocab 8192, batch 8), per
# (framework, mode): start-up, first warm, first cold, step s; the mean of two runs here on 2026-12-03
# (loaded hosts: each divided by the slowdown it measured for itself; the second at a load of 4.7 busy
# cores on 2, its cold torch.compile first step 158 s). Another shape scales the steps by its FLOPs.
# In version 1's units (planned back through its capped slowdown): saturated_v1 reads them in today's.
GPT_S: dict[tuple[str, str], tuple[float, float, float, float]] = saturated_v1(
    {
        ("pytorch", "eager"): (11.5, 1.05, 1.05, 0.73),
        ("pytorch", "compile"): (12.6, 5.0, 81.5, 0.73),
        ("mindspore", "graph"): (10.3, 20.4, 20.4, 1.5),
        ("mindspore", "pynative"): (6.0, 6.2, 6.2, 1.87),
    }
)
# The GEMM peak / parity arrays child, per (framework, whether it times the attention kernels): PyTorch
# trains SDPA against written-out attention for a second and at least three pairs of steps; MindSpore
# only looks its fused kernel up. Measured here on 2026-12-03 (with attention; quiet-equivalent: 44.8 s
# and 8.1 s at a load of 4.7 busy cores on 2); without it, the steps' share taken off (assumption).
GPT_AUX_S = saturated_v1(  # in version 1's units, as GPT_S
    {("pytorch", True): 45.0, ("pytorch", False): 20.0, ("mindspore", True): 8.0, ("mindspore", False): 8.0}
)
# One dynamic-shape variant's child (probes.transformer.worker_common.drive_ways), per variant: start-up
# s (interpreter, import, a model built per way), seconds per new shape (a graph compile with a cold
# inductor cache; an eager framework's first-shape stall), the same with a warm cache, and microseconds
# per computed token (padding included) at the default shape. Quiet-equivalent (each divided by the
# slowdown of its moment), measured here on 2026-12-03 with the default schedule: graph (7.4 s, 10.0 s
# a shape, 1,214 us a token at a load of 8.3 busy cores on 2), eager (7.2 s, 0.18 s, 1,317 us at a load
# of 11.0: 2.7x the timed runs' step, two threads among that many others), graph-dynamic (6.2 s, 11.4 s,
# 1,643 us at a load of 11.0), compile-dynamic with a cold inductor cache (9.9 s, 45.1 s, 1,242 us at a
# load of 11.5). Assumptions until this host measures them (benchmarks/probe_estimates.py): a warm
# inductor cache's shape, torch.compile's default variant (from compile-dynamic's), PyNative's (its
# timed runs' start-up, first step and step of 8 x 128 tokens).
GPT_DYNAMIC_S: dict[str, tuple[float, float, float, float]] = saturated_v1(  # in version 1's units, as GPT_S
    {
        "eager": (7.2, 0.18, 0.18, 1317.0),
        "compile": (9.9, 41.0, 5.0, 1242.0),
        "compile-dynamic": (9.9, 45.1, 6.0, 1242.0),
        "graph": (7.4, 10.0, 10.0, 1214.0),
        "graph-dynamic": (6.2, 11.4, 11.4, 1643.0),
        "pynative": (4.5, 3.7, 3.7, 1465.0),
    }
)
DYNAMIC_PARTS = ("startup", "shape_cold", "shape_warm", "token_us")
GPT_DEFAULT_STEP = (8, 128)  # (batch, seq) the figures above were measured at, with the default shape
# The cores the figures above computed on. The transformer's compute runs on every core, so a host with more
# computes its default steps and tokens faster by their ratio (assumption, one host: an H200 host's 16
# cores took 106 us a token where 940 us was planned from 2, 8.9x for 8x); start-ups and compiles do not.
REFERENCE_CORES = 2
# The data probes and the launchers: one step each.
# A deployment step (an export, a baseline or a serve of one artefact), per model: LeNet-5 measured on a
# quiet host (`quiet-s4`, 2026-12-03 23:49, run queue 0.0, benchmarks/probe_estimates.py --record): the
# mean of its seven full steps after the first, 4.1 s (2.2-6.1 s); the figure before, 6.3 s, was a loaded
# run's 18 s planned back through the capped slowdown. ResNet-18's a larger graph to export and run
# (assumption: twice LeNet-5's). A second host of this kind, quiet (2026-12-04 19:00, run queue 0.0), ran
# the same deployment in 21 s with the frameworks' libraries in its page cache and 26 s with the cache
# dropped, where the first host's quiet runs took 33-40 s: these are the first host's figures times
# HOST_MIDDLE["deploy"], the geometric middle of what the first runs on both hosts opened at (0.93-1.88x).
DEPLOY_STEP_S = {model: s * HOST_MIDDLE["deploy"] for model, s in {"lenet": 4.1, "resnet18": 8.2}.items()}
# The first step's one-off cost on top (the first export brings in the exporter): the same quiet run's first
# export 7.6 s against the 4.1 s of a full step (loaded, 2026-12-03: 3.7 s and 8.5 s by the capped slowdown).
DEPLOY_FIRST_EXTRA_S = 3.5 * HOST_MIDDLE["deploy"]
# An accuracy run per framework: its start-up (interpreter, import, data, model; the child's wall time
# less its epochs) and one epoch (training and the test pass) on a quiet host: the means of the two quiet
# runs (`quiet-s4` 2026-12-03 23:48 and `quiet-s5`'s first pass 2026-12-04 02:29, run queue 0.0,
# benchmarks/probe_estimates.py, LeNet-5 on the digits, two epochs): PyTorch eager 3.7 s start-up and
# 0.19 s an epoch, MindSpore graph 3.7 s and 3.8 s. The figures before (5.6 + 5.6 and 7.0 + 8.7 s: loaded
# runs planned back through the capped slowdown) opened a quiet first run 2.36x and 2.66x. The second host
# (as DEPLOY_STEP_S) ran it in 12.5 s warm and 15.5 s with the page cache dropped, against 20-24 s on the
# first: planned times HOST_MIDDLE["accuracy"] (its data step and Normalize check alike), the middle of what
# the first runs on both hosts opened at (0.76-1.61x).
ACCURACY_RUN_S = {  # (start-up s, epoch s)
    fw: (startup * HOST_MIDDLE["accuracy"], epoch * HOST_MIDDLE["accuracy"])
    for fw, (startup, epoch) in {"pytorch": (3.7, 0.19), "mindspore": (3.7, 3.8)}.items()
}
ACCURACY_UNKNOWN_S = ACCURACY_RUN_S["mindspore"]  # a framework not above: the slower row
# The data prepared before the first child (the digits loaded with scikit-learn, upsampled, normalised): 1.0 s
# quiet in a fresh process, 1.1-3.4 s loaded, 0.1-0.2 s where the process had loaded them before (the
# benchmark's second pass; the TUI's second run). No event names it: it counts by the clock.
ACCURACY_DATA_S = 1.0 * HOST_MIDDLE["accuracy"]
ACCURACY_PARTS = ("startup", "epoch")
# The normalisation check (MindSpore's Normalize on 0-1 and 0-255 data): 3.8 s and 3.6 s in the same two
# quiet runs (7.8 s before, from a loaded run).
NORMALIZE_CHECK_S = 3.7 * HOST_MIDDLE["accuracy"]
# An input-pipeline child per variant. No comment said where these came from; the two pipeline runs recorded
# here (2026-12-03, 6-9 others on 2 cores) opened 0.86x and 0.96x with them under version 1's capped
# slowdown, so they are read as loaded-host figures in its units (saturated_v1).
PIPELINE_RUN_S = saturated_v1({"dataloader": 12.0, "generator": 13.0, "vision": 13.0, "generator-mp": 18.0})
# An ONNX Runtime serve of an artefact imports no framework: 3.1 s against 12.5 s for the other steps (the
# exports, the source baselines, the other serves), both at 6.2 other cores busy on 2, measured here on
# 2026-12-03 (benchmarks/probe_estimates.py --record). Planned at the mean, the last steps (two ORT serves)
# kept the ETA 1.6-1.8x high; DEPLOY_STEP_S is a full step's.
DEPLOY_ORT_SERVE_SHARE = 0.25
# One launch of one rank, per launcher, quiet-equivalent: 9.8 s torchrun and 13.7 s msrun here on
# 2026-12-03 at 7.4 other cores busy on 2 (benchmarks/probe_estimates.py --record), with the earlier
# runs' (12 s and 18 s, the mean over 1 and 2 ranks) taken back to one rank: about 10 s and 15 s.
SCALING_LAUNCH_S = saturated_v1({"torchrun": 10.0, "msrun": 15.0})  # in version 1's units, as GPT_S
# Each rank past the first adds this share of a one-rank launch (the ranks share 2 cores): the 2-rank
# launches took 1.24x (torchrun) and 1.55x (msrun) the 1-rank ones in the same run. Planned alike, the
# last launch (msrun, 2 ranks) kept the ETA at a third to a half of the time left.
SCALING_RANK_EXTRA = 0.4
# A launch's teardown after its last step (the launcher waits for its ranks, which leave the process group
# and exit), quiet-equivalent, per launcher: part of SCALING_LAUNCH_S, but no step reports it, so a launch
# counted by the clock read 0.5-0.65x of its last 20 s. Measured here on 2026-12-03 (benchmarks/
# probe_estimates.py --record, two scaling runs of four launches, the last step's progress event to the
# launch's end, both planned at the capped slowdown 2.0): torchrun 6.3, 6.5, 5.2 and 12.3 s, msrun 9.3,
# 11.1, 6.0 and 8.1 s; the means halved. No rank count apart: 2 ranks tore down as fast as 1 in one run.
SCALING_TEARDOWN_S = saturated_v1({"torchrun": 3.8, "msrun": 4.3})  # in version 1's units
# ... and its steps before it (first step, warmup, the timed steps: the span its progress events cover),
# per rank, quiet-equivalent: the ranks share the cores, so 2 ranks took about twice 1 rank's span (the
# same runs: torchrun 1.0 and 2.0 s, 1.5 and 3.5 s; msrun 10.4 and 20.1 s, 5.6 and 13.1 s; the means per
# rank halved). Counted by the launch's reported fraction.
SCALING_STEPS_S = saturated_v1({"torchrun": 0.65, "msrun": 4.1})  # in version 1's units


def step_share(kind: str, step_id: str) -> float:
    """An announced step's share of its kind's full step: a deploy serve through ONNX Runtime, a scaling
    launch by its ranks (the id's -r<N>-); 1 for any other (host_timings divides by it when it learns)."""
    import re

    if kind == "deploy" and "@onnxruntime" in step_id:
        return DEPLOY_ORT_SERVE_SHARE
    ranks = re.search(r"-r(\d+)-rep\d+$", step_id) if kind == "scaling" else None
    return rank_share(int(ranks.group(1))) if ranks else 1.0


def rank_share(ranks: int) -> float:
    """A scaling launch of `ranks` ranks against one of one rank."""
    return 1.0 + SCALING_RANK_EXTRA * max(0, ranks - 1)


# ---- the protocol's own rules (probes.training.measure) -----------------------------------------
MIN_WARMUP_STEPS = 2  # warmup stops at 25% of the budget once it has two steps
MIN_SAMPLES = 5  # kept past the budget ...
BUDGET_CAP = 3.0  # ... until three budgets have passed
# The chance a model needs the adaptive extra round, until this host has said (assumption: half).
EXTRA_ROUND_SHARE = 0.5
# ... and how many runs that default counts as beside the host's own (assumption): one run's round, or none,
# does not make the next plan count the round as certain, or leave it out (after a first quick probe whose
# round ran, the next planned it certain, "about 36 s", and took 21 s without it: 1.69x, 2026-12-04).
EXTRA_ROUND_PRIOR_RUNS = 2

# A plan with figures this host has not measured yet is stated as a range, not one figure: hosts of this kind
# start the frameworks 1.6-1.9x apart, and whether the extra round comes is a chance, so no single figure held
# (a first quick probe on the second host planned at 39 s took 20 s without the round and 30-37 s with it; on
# the first host 38-42 s). Of 43 first runs recorded (tests/fixtures/eta_records, two hosts of this kind and an
# H200 host, quiet and beside burners) the fastest took 0.63 of its plan without extra rounds (that quick probe,
# 2026-12-04 21:30) and the slowest 1.46 of its plan with all of them (an accuracy probe beside four burners):
# the range is the plan without them times FIRST_RUN_LOW to the plan with them times FIRST_RUN_HIGH, each
# rounded outward (assumption); four first runs recorded after held theirs (the GPT probe by its own low end).
# Once the host has run the plan's steps, it has its own figures: one figure.
FIRST_RUN_LOW = 0.6
FIRST_RUN_HIGH = 1.5
# The GPT probe's defaults are quiet-equivalents of runs at 4.7-11 others on 2 cores (GPT_S); no quiet host had
# run it until its first quiet run on the second host took 0.39 of that plan (70 s against 178 s, 2026-12-04
# 21:45), while the loaded first host's took 0.76-0.83 of theirs: its range starts lower (rounded outward).
FIRST_RUN_LOW_OF = {"gpt": 0.35}


# The steps no runner names in its events (the host summary, the idle-core sample before a round, the accuracy
# probe's data): each counts by the clock from the end of the one before it, and teaches no figure.
SILENT_STEPS = ("host-summary", "round-", "prepare-")


@dataclass(frozen=True)
class Step:
    """One planned child of a probe: its id as the runner names it, and its estimate in two parts."""

    id: str
    fixed_s: float  # start-up and first step: counted down by the clock until the run reports a fraction
    timed_s: float = 0.0  # warmup + measurement: moved by the run's own fraction
    setup: bool = False  # preparation (GEMM peak, parity arrays): not one of the runs counted
    chance: float = 1.0  # below 1: an extra round that may not run; its share counts until it starts
    group: str = ""  # the model of an extra round: dropped once the runner moves past that model
    per_fraction_s: Optional[float] = None  # the seconds a reported fraction of 1 stands for (a run's budget)
    silent: bool = False  # the runner announces no start for it: it starts when the step before it ends
    # its reported fraction covers a small part of it (a scaling launch's timed steps: ~2 s of ~20 s of
    # start-up and teardown): counted by the clock
    by_clock: bool = False
    tail_s: float = 0.0  # of its seconds, what follows its last reported step (a launch's teardown)
    steps_s: float = 0.0  # of its seconds, what its reported fraction covers (a launch's steps)
    one_off_s: float = 0.0  # of its seconds, a one-off cost that may not come (the first export's imports)

    @property
    def seconds(self) -> float:
        return self.fixed_s + self.timed_s


@dataclass
class Plan:
    """What a kind plans before it starts: named steps, or a count of steps its runner announces as it
    goes (`named` False), each estimated at `each` seconds."""

    steps: list[Step] = field(default_factory=list)
    named: bool = True
    announced: int = 0
    each: Optional[float] = None
    cold: list[str] = field(default_factory=list)  # the runs whose torch.compile starts from an empty cache
    by_clock: bool = False  # its announced steps are counted by the clock (Step.by_clock)
    each_of: dict[str, float] = field(default_factory=dict)  # an announced step's estimate by its id's start
    first_extra_s: float = 0.0  # the first announced step's one-off cost on top of `each`
    kind: str = ""  # the probe kind: an announced step's share of a full step (step_share) by its id
    tail_of: dict[str, float] = field(default_factory=dict)  # an announced step's tail_s by its id's start
    steps_of: dict[str, float] = field(default_factory=dict)  # its steps_s (per rank: times its ranks)
    unmeasured: tuple[str, ...] = ()  # the figures planned from the defaults: this host has not run them yet

    def each_for(self, step_id: str) -> Optional[float]:
        """The estimate of an announced step: by the start of its id (a scaling launch by its framework's
        launcher) or `each`, times its share (step_share); None when the plan has neither."""
        base = next((s for start, s in self.each_of.items() if step_id.startswith(start)), self.each)
        return None if base is None else base * step_share(self.kind, step_id)

    def tail_for(self, step_id: str) -> tuple[float, float]:
        """(Step.tail_s, Step.steps_s) of an announced step, by the start of its id: what follows its last
        reported step and what its reported fraction covers (times its ranks, a scaling launch's)."""
        import re

        tail = next((s for start, s in self.tail_of.items() if step_id.startswith(start)), 0.0)
        steps = next((s for start, s in self.steps_of.items() if step_id.startswith(start)), 0.0)
        ranks = re.search(r"-r(\d+)-rep\d+$", step_id)
        return tail, steps * (int(ranks.group(1)) if ranks else 1)

    @property
    def runs(self) -> list[Step]:
        """The counted runs: neither preparation nor a round that may not happen."""
        return [s for s in self.steps if not s.setup and s.chance >= 1.0]

    @property
    def seconds(self) -> float:
        """The estimate of the whole plan: the expected extra rounds by their share."""
        total = sum(s.seconds * min(1.0, s.chance) for s in self.steps)
        return total + self.announced * (self.each or 0.0)


def v1_slowdown(load: "Load") -> float:
    """The single-threaded slowdown version 1 planned `load` at."""
    weight, most = V1_CONTENTION
    return 1.0 + weight * min(most, max(0.0, load.foreign) / load.cores)


def from_v1(seconds: float, load: "Load", kind: str = "", key: str = "", part: str = "") -> float:
    """A figure (`kind`, `key`, `part` as kind_slowdown) planned back to a quiet host by version 1's slowdown
    at `load`, in today's units (a training step's cores-it-did-not-get factor is the same in both)."""
    return seconds * v1_slowdown(load) / kind_slowdown(kind, load, key, part)


def kind_slowdown(kind: str, load: "Load", key: str = "", part: str = "") -> float:
    """What the plan multiplies a quiet figure by under `load` (advisor.host_timings divides by the same): an
    accuracy run's parts by ACCURACY_WEIGHT past the cores its one-thread children keep, a training suite's GEMM /
    parity child (its figure `aux-...`) by AUX_WEIGHT and its runs' start-up and first step by RUN_WEIGHT,
    the rest by Load.slowdown (a timed step's own cores factor on top: Load.step_slowdown)."""
    if kind == "accuracy":  # every child alike: the others past the cores it leaves them (ACCURACY_KNEE_CORES)
        past = max(0.0, load.foreign - (load.cores - ACCURACY_KNEE_CORES))
        return Load(load.cores, past).slowdown_at(ACCURACY_WEIGHT)
    if kind == "training" and key.startswith("aux-"):
        return load.slowdown_at(AUX_WEIGHT)
    if kind == "training" and part in ("startup", "first_warm", "first_cold"):
        return load.slowdown_at(RUN_WEIGHT)
    return load.slowdown


@dataclass(frozen=True)
class Load:
    """The contention a plan is made under: other processes' demand in cores, out of the host's; with
    the readings it was judged from, when a plan measured them (kept so a recorded plan can be judged
    again by another rule: benchmarks/probe_estimates.py --replay)."""

    cores: int
    foreign: float = 0.0
    reading: Optional["LoadReading"] = field(default=None, compare=False)

    @property
    def slowdown(self) -> float:
        """A single-threaded part: slower by the share of the others' demand it feels (at least 1x)."""
        return self.slowdown_at(CONTENTION_WEIGHT)

    def slowdown_at(self, weight: float) -> float:
        """A part that feels the others' demand by `weight` (CONTENTION_WEIGHT, or kind_slowdown's)."""
        return 1.0 + weight * min(CONTENTION_MAX_PER_CORE, max(0.0, self.foreign) / self.cores)

    @property
    def threads(self) -> int:
        """The threads a run gets: the cores left idle (probes.training.runner.round_threads)."""
        return max(1, min(self.cores, int(self.cores - self.foreign + 0.5)))

    @property
    def step_slowdown(self) -> float:
        """A training step: the single-threaded slowdown and the cores it does not get."""
        return self.slowdown * self.cores / self.threads

    def text(self) -> str:
        sessions = self.reading.sessions if self.reading is not None else None
        if sessions is not None and sessions >= 0.5:  # counted as the kernel shares the cores: by session
            n = round(sessions)
            return f"{n} other session{'s' if n != 1 else ''} computing on {self.cores} cores"
        if self.foreign < 0.25:
            return "quiet host"
        return f"{self.foreign:.1f} of {self.cores} cores busy with other work"


# Who shares the cores: where the kernel groups each session's tasks (autogroup, on in most distributions'
# kernels and on this machine kind), the scheduler shares the cores between sessions, not tasks. Measured
# here on 2026-12-04, a thread spinning for 1 s beside the load: one other session of six spinning processes
# left it 0.94 of a core while the run queue read six others; six sessions of one spinner each, 0.29 (2 cores'
# shares among 7). A probe's children each run in a session of their own (probes.launcher), so on a host
# with no idle core the others a step competes with are the other sessions, and the plan counts them where
# it counted the runnable tasks (at most as many: LoadReading.load). Beside one session of six or eight
# spinners, training --quick, a deployment and an accuracy run took 1.0-1.3x, 1.2-1.3x and 2.4-3.0x their
# quiet time; planned from the figures a quiet run taught (benchmarks/probe_estimates.py --record, 18 runs:
# tests/fixtures/eta_records/sessions.json), counting tasks opened them 1.40-1.91x, 2.10-2.38x and
# 1.25-1.55x, counting sessions 0.91-1.30x, 1.20-1.36x and 0.63-0.78x (an accuracy run's children computed
# on every core then: beside a session that keeps both busy they waited for it; they take the idle cores since).
SESSION_TICK_S = 0.1  # a look through /proc in the plan's window (5 in the CLI's 0.5 s; 4-12 ms each here)
# A look that takes longer than this (a host of thousands of processes) is not taken again for a while: the
# TUI's timer and a run's events look on the way, and the run queue's count stands in (assumption: a few
# frames' time; this machine kind's looks take 4-12 ms).
LOOK_MAX_S = 0.05
LOOK_PAUSE_S = 300.0
_slow_look_until = [0.0]


def competing(sample: RunnableSessions, running: Optional[int]) -> float:
    """The others a step competes with from one look: the other sessions with a runnable task, and each
    runnable task the look could not see (another container's: /proc/stat's procs_running counts it) as one."""
    unseen = max(0, running - sample.ours - sample.tasks) if running is not None else 0
    return float(sample.sessions + unseen)


def mean_sessions(looks: list[Optional[float]]) -> Optional[float]:
    """The mean of looks at the sessions (competing_sessions()); None where none was taken or one could not
    tell (the kernel shares the cores between tasks, /proc unreadable, a look too slow)."""
    if not looks or None in looks:
        return None
    return sum(looks) / len(looks)  # type: ignore[arg-type]


def competing_sessions() -> Optional[float]:
    """competing() now, or None where the kernel shares the cores between tasks, /proc cannot be read, or a
    look took longer than LOOK_MAX_S within the last LOOK_PAUSE_S."""
    from probes import hostfacts

    started = time.monotonic()
    if started < _slow_look_until[0] or not hostfacts.sessions_share_the_cores():
        return None
    sample = hostfacts.runnable_sessions()
    if time.monotonic() - started > LOOK_MAX_S:  # too slow to repeat on the way: the run queue stands in
        _slow_look_until[0] = time.monotonic() + LOOK_PAUSE_S
    return competing(sample, procs_running()) if sample is not None else None


# A measurement's own load is judged over at least this many seconds (assumption: shorter windows are
# a scheduler's tick or two, and a test's stand-in clock).
MIN_LOAD_WINDOW_S = 5.0
MIN_PLAN_WINDOW_S = 1.0  # a plan's window since an earlier mark: at least this (assumption: a few ticks)


# The cpu_mark()s of the last LOAD_WINDOW_MAX_S seconds (a plan, a measurement's start and end): a plan
# that cannot wait (the TUI's) measures the load since the oldest of them instead of reading the 1-minute
# average, which counts the probe that just ended as other work for a minute.
LOAD_WINDOW_MAX_S = 120.0
_marks: list[tuple[float, float, float]] = []


def cpu_mark() -> Optional[tuple[float, float, float]]:
    """(the host's busy CPU seconds, this process's own and its waited-for children's CPU seconds, wall
    seconds) now: two of them give the other processes' busy cores in between (measured_load)."""
    import resource

    from probes import hostfacts

    times = hostfacts.cpu_times()
    if not times:
        return None
    hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    mark = (times["busy"] / hz, cpu, time.monotonic())
    _marks[:] = [m for m in _marks if mark[2] - m[2] <= LOAD_WINDOW_MAX_S][-7:] + [mark]
    return mark


def _foreign(start: tuple[float, float, float], end: tuple[float, float, float]) -> tuple[float, float, float]:
    """(other processes' busy cores, this process's own, the host's busy) per second between two marks."""
    wall = end[2] - start[2]
    busy, own = (end[0] - start[0]) / wall, (end[1] - start[1]) / wall
    return max(0.0, busy - own), own, busy


def measured_load(
    start: Optional[tuple[float, float, float]],
    end: Optional[tuple[float, float, float]],
    demand: Optional[float] = None,
    sessions: Optional[float] = None,
) -> Optional[Load]:
    """The other processes' demand between two cpu_mark()s: all busy CPU less this process's and its
    children's (the probe's own), per second; None over less than MIN_LOAD_WINDOW_S or unreadable. A host
    whose every core was busy also counts its runnable demand (`demand`, the 1-minute load average at the
    end, less the probe's own), as load_now does for the plan: a figure divided by the busy CPU alone (1.6
    other cores at most) and planned again at the run queue's load (5-9) read 1.5-2.7x high here. Where the
    kernel shares the cores between sessions, that demand is at most the `sessions` seen while it ran, as
    LoadReading.load plans."""
    if start is None or end is None or end[2] - start[2] < MIN_LOAD_WINDOW_S:
        return None
    from probes import hostfacts

    foreign, own, busy = _foreign(start, end)
    cpus = os.cpu_count() or hostfacts.usable_cores()
    if demand is not None and cpus - 0.5 <= busy <= cpus + 0.5:  # saturated (and a real reading, not past it)
        foreign = max(foreign, demand - own)
        if sessions is not None:
            foreign = min(foreign, sessions)
    return Load(hostfacts.usable_cores(), foreign)


# The plan's short look at the run queue: /proc/stat's procs_running (the runnable tasks now, the reader
# itself among them), read every RUN_QUEUE_TICK_S through the plan's window (the CLI's 0.5 s), against the
# 1-minute load average, which lags: a second run after a slower first opened 1.54x (accuracy) and 1.41x
# (deployment) high here on 2026-12-03 when the host had turned quieter under the same average.
RUN_QUEUE_TICK_S = 0.02  # 25 readings in the CLI's window (assumption: a tick of the scheduler or two)
# A saturated host's demand: the run queue's share against the 1-minute average's (the named rule,
# RUN_QUEUE_WEIGHT * queue + (1 - it) * average). Measured here on 2026-12-03 (benchmarks/probe_estimates.py
# --record, nine runs of six kinds planned with both, replayed by each rule): the average read 5.8-8.7
# other tasks whatever the runs then met, the queue 3.5-7.6, lowest where the runs went fastest (the load
# that fits each run's time: 1.5-3.4 cores where the queue read 3.5-5.1, 5 and more where it read 6.2-7.6).
# The openings: 0.92-1.55x by the average alone, 0.92-1.49x by an even mean, 0.92-1.31x by the queue alone.
RUN_QUEUE_WEIGHT = 1.0


def procs_running(text: Optional[str] = None) -> Optional[int]:
    """The runnable tasks now (/proc/stat's procs_running, the reader itself counted), or None."""
    try:
        text = text if text is not None else Path("/proc/stat").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("procs_running "):
            try:
                return int(line.split()[1])
            except (IndexError, ValueError):
                return None
    return None


def run_queue(window: float) -> tuple[Optional[float], Optional[float]]:
    """(the others' runnable tasks, the sessions a step competes with) over `window` seconds (it waits that
    long): the mean of procs_running read every RUN_QUEUE_TICK_S, less the reader, and of competing_sessions()
    every SESSION_TICK_S (None where the kernel shares the cores between tasks); None where unreadable."""
    end = time.monotonic() + window
    seen: list[int] = []
    looks: list[Optional[float]] = []
    next_look = 0.0
    while True:
        got = procs_running()
        if got is None:
            return None, None
        seen.append(got)
        if time.monotonic() >= next_look:
            looks.append(competing_sessions())
            next_look = time.monotonic() + SESSION_TICK_S
        left = end - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(RUN_QUEUE_TICK_S, left))
    return _others_runnable(seen), mean_sessions(looks)


def _others_runnable(readings: list[int]) -> float:
    """The mean of procs_running readings less the reader itself, which each one counts."""
    return max(0.0, sum(readings) / len(readings) - 1.0)


# A plan that cannot wait (the TUI's) reads the run queue from readings taken while the user worked:
# queue_tick() every QUEUE_TICK_S (the app's timer; one read of /proc/stat), their mean over the last
# QUEUE_SPAN_S standing in for the CLI's 0.5 s window, once at least QUEUE_MIN_READINGS were taken
# (assumption: a mean over seconds follows the demand the runs then meet at least as well as a 0.5 s
# sample; fewer readings than that are a moment, and the plan reads the average as before).
QUEUE_TICK_S = 1.0
QUEUE_SPAN_S = 15.0
QUEUE_MIN_READINGS = 5
_queue_seen: list[tuple[float, int, Optional[float]]] = []


def queue_tick(now: Optional[float] = None, text: Optional[str] = None) -> None:
    """Keep one reading of the run queue and, while the others' tasks could fill the cores, of the sessions
    a step competes with (a look through /proc only then: the TUI's timer calls this every second; below the
    cores the tasks stand in, at least the sessions they are in). `now` and `text` stand in for the clock and
    /proc/stat in tests."""
    got = procs_running(text)
    if got is None:
        return
    at = time.monotonic() if now is None else now
    from probes import hostfacts

    sessions: Optional[float] = None  # the kernel shares the cores between tasks: nothing to count by session
    if got - 1 >= (os.cpu_count() or 1):
        sessions = competing_sessions()
    elif hostfacts.sessions_share_the_cores():
        sessions = float(max(0, got - 1))
    _queue_seen[:] = [q for q in _queue_seen if at - q[0] <= QUEUE_SPAN_S] + [(at, got, sessions)]


def recent_queue(now: Optional[float] = None) -> Optional[float]:
    """The others' runnable tasks over the last QUEUE_SPAN_S from queue_tick()'s readings, less the reader;
    None with fewer than QUEUE_MIN_READINGS."""
    at = time.monotonic() if now is None else now
    seen = [n for t, n, _ in _queue_seen if at - t <= QUEUE_SPAN_S]
    if len(seen) < QUEUE_MIN_READINGS:
        return None
    return _others_runnable(seen)


def recent_sessions(now: Optional[float] = None) -> Optional[float]:
    """The sessions a step competes with over the last QUEUE_SPAN_S from queue_tick()'s readings; None with
    fewer than QUEUE_MIN_READINGS or where a reading could not tell (the kernel shares between tasks)."""
    at = time.monotonic() if now is None else now
    seen = [s for t, _, s in _queue_seen if at - t <= QUEUE_SPAN_S]
    return mean_sessions(seen) if len(seen) >= QUEUE_MIN_READINGS else None


@dataclass(frozen=True)
class LoadReading:
    """What a plan read of the host: its cores (usable, and the machine's), the busy cores over its
    window (all, and this process's own with its children's), the 1-minute load average (less this
    process's own probes of late), the run queue sampled over the window (None: not sampled) and the other
    sessions with a runnable task (None: not looked at, or the kernel shares the cores between tasks)."""

    cores: int
    cpus: int
    busy: float
    own: float
    average: float  # the 1-minute load average less this process's own probes of late
    queue: Optional[float] = None
    sessions: Optional[float] = None  # the sessions a step competes with (None: the kernel shares by task)

    def load(self) -> Load:
        """The contention by the named rule: the others' busy cores over the window; a saturated host
        (no idle core: busy CPU cannot show what waits for it) its runnable demand, the 1-minute average
        and the run queue weighed by RUN_QUEUE_WEIGHT (the average alone where no queue was sampled), and at
        most the sessions with a runnable task where the kernel shares the cores between sessions."""
        foreign = max(0.0, self.busy - self.own)
        if self.cpus - self.busy < 0.5:
            demand = self.average
            if self.queue is not None:
                demand = RUN_QUEUE_WEIGHT * (self.queue - self.own) + (1.0 - RUN_QUEUE_WEIGHT) * self.average
            foreign = max(foreign, demand)
            if self.sessions is not None:  # the kernel shares the cores between sessions: they are the others
                foreign = min(foreign, self.sessions)
        return Load(self.cores, foreign, self)


def load_now(window: Optional[float] = None) -> Load:
    """The contention now, as the runs measure it for themselves (the host's busy CPU less this process's
    and its children's): over a window of `window` seconds (the CLI: 0.5 s, like the runner's own sample
    before each round; the run queue sampled through it), else since the oldest cpu_mark() of the last
    LOAD_WINDOW_MAX_S (the TUI: no wait; its run queue from the readings queue_tick() kept), else the
    1-minute load average. A host with no idle core also counts its runnable demand (LoadReading.load)."""
    from probes import hostfacts

    cores = hostfacts.usable_cores()
    avg = hostfacts.loadavg()
    demand = max(0.0, float(avg[0])) if avg else 0.0  # can exceed the cores: 9 runnable tasks on 2
    now = time.monotonic()
    earlier = next((m for m in _marks if now - m[2] >= MIN_PLAN_WINDOW_S), None)  # this process's last minutes
    start = cpu_mark() if window else earlier
    queue, sessions = run_queue(window) if window else (recent_queue(), recent_sessions())
    end = cpu_mark()
    if start is None or end is None or end[2] <= start[2]:
        return Load(cores, demand)
    _, own, busy = _foreign(start, end)
    # the runnable demand, less what this process's own probes added to the average lately
    own_lately = _foreign(earlier, end)[1] if earlier is not None and earlier[2] < start[2] else own
    average = demand - max(own, own_lately)
    return LoadReading(cores, os.cpu_count() or cores, busy, own, average, queue, sessions).load()


def timed_s(budget: float, step_s: float) -> float:
    """Warmup + measurement of one run: the budget, unless the protocol's minimum steps take longer,
    and never past three budgets (probes.training.measure)."""
    floor = (MIN_WARMUP_STEPS + MIN_SAMPLES) * step_s
    return min(BUDGET_CAP * budget + step_s, max(budget, floor))


# ---- the figures of this host -------------------------------------------------------------------


@dataclass
class Figures:
    """This host's measured figures (advisor.host_timings, quiet-equivalent seconds) over the defaults."""

    measured: Mapping[str, Mapping] = field(default_factory=dict)  # kind -> key -> figures
    # the keys a plan asked for that this host has not measured yet (planned from the defaults)
    unmeasured: set[str] = field(default_factory=set, compare=False, repr=False)

    def _got(self, kind: str, key: str) -> object:
        got = self.measured.get(kind, {}).get(key)
        if not isinstance(got, Mapping):
            self.unmeasured.add(f"{kind}:{key}")
        return got

    def run(self, kind: str, key: str, default: tuple[float, float, float, float]) -> tuple[float, ...]:
        """(start-up, first warm, first cold, step) for a timed run: this host's where measured."""
        got = self._got(kind, key)
        if not isinstance(got, Mapping):
            return default
        names = ("startup", "first_warm", "first_cold", "step")
        return tuple(
            float(got.get(n, d)) if isinstance(got.get(n), (int, float)) else d for n, d in zip(names, default)
        )

    def parts(self, kind: str, key: str, names: tuple[str, ...], default: tuple[float, ...]) -> tuple[float, ...]:
        """Named figures of a step (a dynamic-shape child's), this host's where measured."""
        got = self._got(kind, key)
        got = got if isinstance(got, Mapping) else {}
        return tuple(float(got[n]) if isinstance(got.get(n), (int, float)) else d for n, d in zip(names, default))

    def seconds(self, kind: str, key: str, default: float) -> float:
        got = self._got(kind, key)
        if isinstance(got, Mapping) and isinstance(got.get("seconds"), (int, float)):
            return float(got["seconds"])
        return default

    def share(self, kind: str, default: float) -> float:
        """How often this host's runs of `kind` needed the extra round, drawn toward `default` as if it had been
        seen EXTRA_ROUND_PRIOR_RUNS times."""
        got = self.measured.get(kind, {}).get("extra_round_share")
        if not isinstance(got, Mapping) or not isinstance(got.get("share"), (int, float)):
            return default
        counts = got.get("n") if isinstance(got.get("n"), Mapping) else {}
        n = counts["share"] if isinstance(counts.get("share"), int) else 1
        return (float(got["share"]) * n + default * EXTRA_ROUND_PRIOR_RUNS) / (n + EXTRA_ROUND_PRIOR_RUNS)


def compile_cache_warm(folder: Optional[str], model_dir: str) -> bool:
    """Whether torch.compile finds kernels for this workload (the runner's folder per model and batch)."""
    if not folder:
        return False
    path = Path(folder) / model_dir
    try:
        return path.is_dir() and any(True for _ in path.rglob("*") if _.is_file())
    except OSError:
        return False


def _compile_root(config: object) -> Optional[str]:
    folder = getattr(config, "compile_cache_dir", None)
    if folder:
        return str(folder)
    from probes import hostfacts

    return str(hostfacts.cache_dir() / "torchinductor")


# ---- the plans ----------------------------------------------------------------------------------


def missing_frameworks(frameworks: object) -> frozenset[str]:
    """The requested frameworks this interpreter cannot import (found, never imported). The training, accuracy
    and pipeline runners announce their runs and end them at once as unavailable, the GPT runner leaves them out:
    planned at their full time, a GPT probe on a host without MindSpore opened at 179 s and took 65 s, an
    accuracy run at 27 s took 14 s (2026-12-04)."""
    from probes import hostfacts

    return hostfacts.missing_frameworks(frameworks)


def torch_cuda_build() -> bool:
    """Whether this host's torch is a CUDA build (probes.hostfacts.torch_cuda_build: its start-ups are longer)."""
    from probes import hostfacts

    return hostfacts.torch_cuda_build()


def default_startup(framework: str, cuda_build: bool) -> float:
    """What a child of `framework` adds to the defaults' start-up on this host: CUDA_BUILD_STARTUP_S for
    PyTorch on a CUDA build of torch, else nothing."""
    return CUDA_BUILD_STARTUP_S if framework == "pytorch" and cuda_build else 0.0


def _with_startup(row: tuple[float, ...], extra: float) -> tuple[float, ...]:
    return (row[0] + extra, *row[1:])


def _timed_run(
    rid: str,
    row: tuple[float, ...],
    budget: float,
    cold: bool,
    load: Load,
    chance: float = 1.0,
    group: str = "",
    kind: str = "",
) -> Step:
    startup, warm, cold_s, step = row
    first = cold_s if cold else warm
    return Step(
        rid,
        fixed_s=(startup + first) * kind_slowdown(kind, load, rid, "startup"),
        timed_s=timed_s(budget, step * load.step_slowdown),
        chance=chance,
        group=group,
        per_fraction_s=budget,  # the workers report elapsed / budget (probes.training.measure)
    )


def training_plan(config: object, figures: Figures, load: Load) -> Plan:
    """The training suite (probes.training.runner.run_suite): the host summary and one GEMM / parity
    child per framework, then per model `repeat` interleaved rounds, then the extra rounds the stop rule
    may ask for (at twice the budget, weighted by how often this host needed them)."""
    from probes.training.runner import BUDGET_CAP_FACTOR, round_specs

    budget, batch = float(config.budget), int(config.batch_size)
    device = getattr(config, "device", "auto")
    missing, cuda_build = missing_frameworks(config.frameworks), torch_cuda_build()
    steps = [Step("host-summary", HOST_SUMMARY_S * load.slowdown, setup=True)]
    if getattr(config, "gemm", True) or getattr(config, "parity", True):
        models = list(config.models) if getattr(config, "parity", True) else []
        for fw in config.frameworks:
            if fw in missing:
                continue  # the runner starts no set-up child for a framework it cannot import
            start, each = AUX_S.get(fw, (6.0, 3.0))
            default = start + default_startup(fw, cuda_build) + each * len(models)
            key = f"aux-{fw}-{'+'.join(models)}"
            steps.append(
                Step(
                    f"{fw}-aux",
                    figures.seconds("training", key, default) * kind_slowdown("training", load, key),
                    setup=True,
                )
            )
    specs = round_specs(config)
    share = figures.share("training", EXTRA_ROUND_SHARE)
    root = _compile_root(config)
    rounds = max(int(config.repeat), int(getattr(config, "max_repeat", None) or config.repeat))
    if len(specs) > 1 and len([s for s in specs if s[0] not in missing]) < 2:
        rounds = int(config.repeat)  # no comparison has both sides (probes.training.runner._undecided): none runs
    colds: list[str] = []
    for model in config.models:
        warm = compile_cache_warm(root, f"{model}-bs{batch}-{device}")
        round_budget = budget
        for rnd in range(rounds):
            extra = rnd >= int(config.repeat)
            if extra:
                round_budget = min(budget * BUDGET_CAP_FACTOR, round_budget * 2)
            chance = share ** (rnd - int(config.repeat) + 1) if extra else 1.0
            steps.append(Step(f"round-{model}-{rnd}", IDLE_WINDOW_S, setup=True, chance=chance, group=model))
            for fw, mode in specs:
                rid = f"{fw}-{mode}-{model}-bs{batch}"
                if fw in missing:  # announced, and ended at once as unavailable
                    steps.append(Step(rid, 0.0, chance=chance, group=model if extra else ""))
                    continue
                default = TRAINING_S.get((fw, mode, model), TRAINING_UNKNOWN_S)
                row = figures.run("training", rid, _with_startup(default, default_startup(fw, cuda_build)))
                cold = mode == "graph" or (mode == "compile" and not warm and rnd == 0)
                if mode == "compile" and cold:
                    colds.append(rid)
                steps.append(_timed_run(rid, row, round_budget, cold, load, chance, model if extra else "", "training"))
    return Plan(steps, cold=colds)


def gpt_plan(config: object, figures: Figures, load: Load) -> Plan:
    """The transformer probe (probes.transformer.runner.run): one aux child per framework, the rounds
    (the extra ones weighted as the training suite's), then one child per dynamic-shape variant."""
    from probes.transformer import flops, spec
    from probes.transformer.models import VARIANTS
    from probes.training.runner import BUDGET_CAP_FACTOR
    from probes.transformer.runner import _cache_root, dynamic_specs, round_specs

    budget = float(config.budget)
    shape = spec.Shape(config.layers, config.hidden, config.heads, config.seq, config.vocab)
    per_step = flops.train_flops_per_token(shape) * config.batch_size * config.seq
    default_step = flops.train_flops_per_token(spec.Shape()) * GPT_DEFAULT_STEP[0] * GPT_DEFAULT_STEP[1]
    size = per_step / default_step  # another shape's steps: by their FLOPs
    # the runner leaves out a framework it cannot import
    missing, cuda_build = missing_frameworks(config.frameworks), torch_cuda_build()
    more_cores = REFERENCE_CORES / max(REFERENCE_CORES, load.cores)  # the default compute on a bigger host
    steps = [Step("host-summary", HOST_SUMMARY_S * load.slowdown, setup=True)]
    if config.gemm or config.parity or config.attention:
        for fw in config.frameworks:
            if fw in missing:
                continue
            default = GPT_AUX_S.get((fw, config.attention), 20.0) + default_startup(fw, cuda_build)
            steps.append(
                Step(
                    f"{fw}-aux",
                    figures.seconds("gpt", gpt_aux_key(fw, config), default) * load.slowdown,
                    setup=True,
                )
            )
    warm_cache = compile_cache_warm(_cache_root(config), "timed")  # the timed runs' inductor folder
    share = figures.share("gpt", EXTRA_ROUND_SHARE)
    rounds = max(int(config.repeat), int(config.max_repeat or config.repeat))
    round_budget = budget
    colds: list[str] = []
    for rnd in range(rounds):
        extra = rnd >= int(config.repeat)
        if extra:
            round_budget = min(budget * BUDGET_CAP_FACTOR, round_budget * 2)
        chance = share ** (rnd - int(config.repeat) + 1) if extra else 1.0
        for fw, mode in round_specs(config):
            if fw in missing:
                continue
            rid = f"{fw}-{mode}-gpt"
            startup, warm_s, cold_s, step = GPT_S.get((fw, mode), (10.0, 5.0, 40.0, 1.0))
            step *= size * more_cores
            row = figures.run("gpt", rid, (startup + default_startup(fw, cuda_build), warm_s, cold_s, step))
            cold = mode == "graph" or (mode == "compile" and not warm_cache and rnd == 0)
            if mode == "compile" and cold:
                colds.append(rid)
            steps.append(_timed_run(rid, row, round_budget, cold, load, chance, "gpt" if extra else ""))
    if config.dynamic:
        per_token = flops.train_flops_per_token(shape) / flops.train_flops_per_token(spec.Shape())
        folder = os.path.join(_cache_root(config), "dynamic")
        for variant in dynamic_specs(config):
            fw = VARIANTS[variant][0]
            if fw in missing:
                continue
            rid = f"{fw}-{variant}-dynamic"
            startup, cold_s, warm_s, token_us = GPT_DYNAMIC_S[variant]
            default = (startup + default_startup(fw, cuda_build), cold_s, warm_s, token_us * more_cores)
            startup, cold_s, warm_s, token_us = figures.parts("gpt", rid, DYNAMIC_PARTS, default)
            shapes_s, tokens = 0.0, 0
            for way, widths, computed in dynamic_work(config):
                compiled = variant != "eager" and fw == "pytorch"
                warm_way = compiled and compile_cache_warm(folder, f"{variant}-{way}")
                shapes_s += new_shapes(variant, widths) * (warm_s if warm_way else cold_s)
                tokens += computed
            work = tokens * token_us * 1e-6 * per_token
            # the start-up until the child reports its first way; its steps (compiles included) after,
            # moved by the share of its steps it reports done. The child runs on every usable core
            # (probes.transformer.runner: not the idle ones a timed round gets), so its steps slow by the
            # contention alone: at step_slowdown (2x more on 2 cores) a GPT probe's two dynamic children
            # took 0.64x and 0.66x of their plan here (2026-12-03, load 8.8 on 2 cores)
            steps.append(
                Step(rid, fixed_s=startup * load.slowdown, timed_s=shapes_s * load.slowdown + work * load.slowdown)
            )
    return Plan(steps, cold=colds)


def accuracy_parts(
    figures: Figures, framework: str, mode: str, epochs: int, cuda_build: bool = False
) -> tuple[float, float]:
    """(start-up s, epoch s) of an accuracy run: this host's parts, else its whole run's figure (an older
    file kept only that) split as the defaults are, else the defaults (a CUDA build's longer start-up in)."""
    default = _with_startup(ACCURACY_RUN_S.get(framework, ACCURACY_UNKNOWN_S), default_startup(framework, cuda_build))
    startup, epoch = figures.parts("accuracy", f"{framework}-{mode}", ACCURACY_PARTS, (-1.0, -1.0))
    if startup >= 0 and epoch >= 0:
        return startup, epoch
    whole = default[0] + epochs * default[1]
    share = figures.seconds("accuracy", f"{framework}-{mode}", whole) / whole
    return default[0] * share, default[1] * share


def deploy_key(config: object) -> str:
    """The figure of a deployment step: per set of models (a ResNet-18 step is not a LeNet-5 one)."""
    return "step-" + "+".join(sorted(getattr(config, "models", None) or ["lenet"]))


def launch_key(framework: str) -> str:
    """The figure of a scaling launch: per framework (its launcher, torchrun or msrun)."""
    return f"launch-{framework}"


def gpt_aux_key(framework: str, config: object) -> str:
    """The figure of a GPT aux child: with the attention kernels timed or not (PyTorch's differ 2x)."""
    return f"aux-{framework}" + ("-attention" if getattr(config, "attention", True) else "")


def dynamic_work(config: object) -> list[tuple[str, int, int]]:
    """Per dynamic way of `config`: (way, the widths it trains at, the tokens it computes over every
    pass, padding included), from the schedule the workers draw (probes.transformer.batches)."""
    from probes.transformer import batches

    lens = batches.lengths(config.seq, config.dynamic_steps, config.dynamic_distinct)
    buckets = batches.buckets(config.seq)
    out = []
    for way in config.dynamic_ways:
        widths = [batches.padded_length(n, way, config.seq, buckets) for n in lens]
        out.append((way, len(set(widths)), config.dynamic_passes * config.batch_size * sum(widths)))
    return out


def new_shapes(variant: str, widths: int) -> int:
    """The new shapes a way costs a variant: a static graph compiles each width (an eager framework
    stalls once on each); torch.compile's default compiles the first width static and recompiles once
    as dynamic; the dynamic variants compile once."""
    if variant in ("compile-dynamic", "graph-dynamic"):
        return 1
    if variant == "compile":
        return min(widths, 2)
    return widths


def deploy_steps(config: object, missing: frozenset[str] = frozenset()) -> int:
    """The deployment probe's steps if every export succeeds with one ONNX Runtime provider: per model,
    each framework's exports, its source baseline, and one serve per artefact (probes.deploy.runner).
    A failed export serves less, a second provider more: the display re-plans when it sees more. A framework
    in `missing` (not importable) has its exports and baseline announced and ended at once, nothing served."""
    frameworks = list(getattr(config, "frameworks", []))
    exports = {fw: len(_exported(config, fw)) for fw in frameworks}
    served = sum(n for fw, n in exports.items() if fw not in missing)
    return len(list(getattr(config, "models", []))) * (sum(exports.values()) + served + len(frameworks))


def deploy_unavailable_steps(config: object, missing: frozenset[str]) -> int:
    """Of deploy_steps, those of the frameworks in `missing`: their exports and baselines, ended at once."""
    per_model = sum(1 + len(_exported(config, fw)) for fw in getattr(config, "frameworks", []) if fw in missing)
    return len(list(getattr(config, "models", []))) * per_model


def deploy_ort_serves(config: object, missing: frozenset[str] = frozenset()) -> int:
    """Of deploy_steps, the serves through ONNX Runtime: one per ONNX export (one provider)."""
    onnx = sum(1 for fw in getattr(config, "frameworks", []) if fw not in missing and "onnx" in _exported(config, fw))
    return len(list(getattr(config, "models", []))) * onnx


def _exported(config: object, framework: str) -> tuple[str, ...]:
    """The formats a deployment exports `framework` to: its own (probes.deploy.models.FORMATS), those asked for."""
    from probes.deploy.models import FORMATS

    wanted = getattr(config, "formats", None)
    return tuple(fmt for fmt in FORMATS.get(framework, ()) if not wanted or fmt in wanted)


def scaling_launches(config: object, frameworks: Optional[list[str]] = None) -> int:
    """The scaling probe's launches on a CPU-only host (probes.scaling.runner.run_scaling): per repetition,
    model and framework one per rank count (1 and 2 by default); a host with accelerators may plan other
    rank counts, which the runner's announced total re-plans. `frameworks`: those it launches (default: all)."""
    ranks = list(getattr(config, "ranks", None) or [1, 2])
    frameworks = frameworks if frameworks is not None else list(getattr(config, "frameworks", []) or [])
    per = len(list(getattr(config, "models", []) or [])) * len(frameworks)
    return int(getattr(config, "repeat", 1)) * per * len(ranks)


def plan_for(kind_name: str, config: object, figures: Optional[Figures] = None, load: Optional[Load] = None) -> Plan:
    """The plan of `config` for the kind: named steps (training, gpt, accuracy, pipeline) or counted ones
    (deploy, scaling and any other registered kind: their runners announce a `total` or start ids the
    plan cannot name)."""
    figures = Figures(figures.measured if figures is not None else {})  # its own record of what was unmeasured
    load = load or Load(os.cpu_count() or 1)
    if config is None and kind_name != "deploy":
        return Plan([], named=False)  # nothing to plan from: counted as the runner announces
    plan = _plan_of(kind_name, config, figures, load)
    plan.unmeasured = tuple(sorted(figures.unmeasured))
    return plan


def _plan_of(kind_name: str, config: object, figures: Figures, load: Load) -> Plan:
    if kind_name in ("training", "probes"):
        return training_plan(config, figures, load)
    if kind_name == "gpt":
        return gpt_plan(config, figures, load)
    if kind_name == "accuracy":
        from probes.accuracy.runner import plan

        # a run's start-up counts by the clock until its first epoch reports; its epochs move by the
        # share of them done (the workers report epoch / epochs); every part alike (kind_slowdown's accuracy rule)
        steps = [Step("prepare-data", ACCURACY_DATA_S * kind_slowdown("accuracy", load), setup=True)]
        cuda_build, missing = torch_cuda_build(), missing_frameworks(config.frameworks)
        for seed in range(int(config.seeds)):
            for fw, mode in plan(config):
                rid = f"{fw}-{mode}-seed{seed}"
                if fw in missing:  # announced and ended at once as unavailable
                    steps.append(Step(rid, 0.0))
                    continue
                startup, epoch = accuracy_parts(figures, fw, mode, int(config.epochs), cuda_build)
                slow = kind_slowdown("accuracy", load, f"{fw}-{mode}")
                epochs_s = int(config.epochs) * epoch * slow
                steps.append(Step(rid, startup * slow, epochs_s, per_fraction_s=epochs_s))
        if "mindspore" in config.frameworks and "mindspore" not in missing:
            check = figures.seconds("accuracy", "normalize-check", NORMALIZE_CHECK_S)
            steps.append(Step("normalize-check", check * kind_slowdown("accuracy", load, "normalize-check")))
        return Plan(steps)
    if kind_name == "pipeline":
        from probes.pipeline.runner import plan

        # config.passes interleaved rounds of one child per loader: a step per child, the runner's start
        # only for the first round's, a "pass" event as each child ends (probes.pipeline.runner.run)
        steps, cuda_build, missing = [], torch_cuda_build(), missing_frameworks(config.frameworks)
        for rnd in range(int(getattr(config, "passes", 1))):
            for fw, variant, workers in plan(config):
                rid = f"{fw}-{variant}-w{workers}"
                if fw in missing:  # announced and ended at once as unavailable
                    steps.append(Step(rid, 0.0, silent=rnd > 0))
                    continue
                default = PIPELINE_RUN_S.get(variant, 10.0) + default_startup(fw, cuda_build)
                seconds = figures.seconds("pipeline", rid, default) * load.slowdown
                steps.append(Step(rid, 0.0, seconds, silent=rnd > 0))
        return Plan(steps)
    if kind_name == "deploy":
        models = list(getattr(config, "models", []) or ["lenet"]) if config is not None else ["lenet"]
        each = sum(DEPLOY_STEP_S.get(m, max(DEPLOY_STEP_S.values())) for m in models) / len(models)
        each = figures.seconds("deploy", deploy_key(config), each) * load.slowdown
        missing = missing_frameworks(getattr(config, "frameworks", [])) if config is not None else frozenset()
        steps = deploy_steps(config, missing) if config is not None else 0
        serves = deploy_ort_serves(config, missing) if config is not None else 0
        gone = deploy_unavailable_steps(config, missing) if config is not None else 0  # they end at once
        mean = (steps - serves * (1.0 - DEPLOY_ORT_SERVE_SHARE) - gone) / steps if steps else 1.0
        return Plan(
            [],
            named=False,
            announced=steps,
            each=each * mean,  # an announced step not yet named: the mean over the expected serves
            # a named one: a full step, times its share; none for a framework that cannot be imported
            each_of={**{f"{fw}-": 0.0 for fw in sorted(missing)}, "": each},
            first_extra_s=DEPLOY_FIRST_EXTRA_S * load.slowdown,
            kind="deploy",
        )
    if kind_name == "scaling":
        # the runner launches none for a framework it cannot import (probes.scaling.runner.framework_available)
        wanted = list(getattr(config, "frameworks", []) or ["pytorch"])
        missing = missing_frameworks(wanted)
        launched = [fw for fw in wanted if fw not in missing]
        frameworks = launched or wanted  # the figures' mean needs one
        launcher = {"pytorch": "torchrun", "mindspore": "msrun"}
        each_of = {  # msrun's launches ran ~1.3-1.8x torchrun's here: one mean misplanned both
            f"{fw}-": figures.seconds("scaling", launch_key(fw), SCALING_LAUNCH_S[launcher.get(fw, "msrun")])
            * load.slowdown
            for fw in frameworks
        }
        ranks = list(getattr(config, "ranks", None) or [1, 2])
        mean_share = sum(rank_share(int(r)) for r in ranks) / len(ranks)
        each = sum(each_of.values()) / len(each_of) * mean_share
        return Plan(
            [],
            named=False,
            announced=scaling_launches(config, launched),
            each=each,
            by_clock=True,
            each_of=each_of,
            kind="scaling",
            tail_of={f"{fw}-": SCALING_TEARDOWN_S[launcher.get(fw, "msrun")] * load.slowdown for fw in frameworks},
            steps_of={f"{fw}-": SCALING_STEPS_S[launcher.get(fw, "msrun")] * load.slowdown for fw in frameworks},
        )
    return Plan([], named=False, each=None)  # a kind with no plan of its own: counted as announced
