"""Command-line face of the scaling probe: `advisor probe --scaling [--ranks 1,2,...]`.

Two hooks for `advisor/commands/probe.py`:
    from probes.scaling import cli as scaling_cli
    scaling_cli.add_arguments(p)                      # in register(), after its own arguments
    if args.scaling: return scaling_cli.run_from_args(args)   # first line of its handler
`add_arguments` adds only the options the parser lacks, so it reuses the probe's --frameworks,
--models, --batch-size, --device, --threads, --repeat, --json, -o/--output. Standalone:
`python -m probes.scaling [--ranks 1,2] [--repeat 1] [--json]`.
Progress goes to stderr; the table (or one JSON document with --json) to stdout or -o FILE.
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional

from probes.scaling import multinode, share
from probes.scaling.models import ScalingConfig, ScalingEvent, ScalingResult

FRAMEWORKS = ("pytorch", "mindspore")
MODELS = ("lenet", "resnet18", "resnet50")
ALIASES = {"torch": "pytorch", "ms": "mindspore", "lenet5": "lenet", "lenet-5": "lenet",
           "resnet-18": "resnet18", "resnet-50": "resnet50"}
_DEFAULTS_KEY = "_scaling_parser_defaults"


def _add(parser: argparse.ArgumentParser, *flags, **kwargs) -> None:
    """Add an option unless the parser already has it (the probe command defines many)."""
    if any(f in parser._option_string_actions for f in flags):
        return
    parser.add_argument(*flags, **kwargs)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    _add(parser, "--scaling", action="store_true",
         help="data-parallel scaling probe on torchrun (DDP) and msrun: 1 and N ranks, "
              "allreduce share, efficiency, start-up, correctness gate")
    _add(parser, "--ranks", metavar="LIST",
         help="scaling: comma list of rank counts (default: 1 and the host's device count, "
              "or 1,2 on a CPU-only host)")
    # No defaults here (None = not given, applied in config_from_args), so that the probe command
    # can tell that a scaling option was typed without --scaling.
    _add(parser, "--scaling-steps", type=int, metavar="N",
         help="scaling: timed steps per phase (synced, no-sync) per launch (default 30)")
    _add(parser, "--scaling-timeout", type=float, metavar="SECONDS",
         help="scaling: limit per launch; a hanging or crashing rank fails the run (default 300)")
    _add(parser, "--scaling-repeat", type=int, metavar="N",
         help="scaling: interleaved repetitions (default 3)")
    _add(parser, "--frameworks", help="comma list of pytorch,mindspore (default: both)")
    _add(parser, "--models", default="lenet", help="comma list of lenet,resnet18,resnet50")
    _add(parser, "--batch-size", type=int, default=32, help="per-rank batch")
    _add(parser, "--device", choices=("auto", "cpu", "cuda", "npu"), default="auto")
    _add(parser, "--threads", type=int, help="threads per rank (default: cores / largest rank count)")
    _add(parser, "--repeat", type=int, default=3, help="interleaved repetitions (>= 3 for a spread)")
    _add(parser, "--json", action="store_true", help="print one JSON document")
    _add(parser, "-o", "--output", metavar="FILE", help="write the output to FILE (atomically)")
    _add(parser, "--no-cache", action="store_true", help="do not store the result in the per-host cache")
    multinode.add_arguments(parser)  # --nnodes --node-rank --master ... (issue 21, probes/scaling/multinode.py)
    # Remember the host parser's defaults: a value equal to the probe's default means "not given",
    # so the scaling defaults (LeNet, 3 repetitions) apply instead of the probe's.
    parser.set_defaults(**{_DEFAULTS_KEY: {k: parser.get_default(k) for k in ("models", "repeat")}})


def _list(value: Optional[str], allowed: tuple, flag: str) -> list:
    from advisor.errors import UsageError

    items = [ALIASES.get(v.strip().lower(), v.strip().lower()) for v in (value or "").split(",") if v.strip()]
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise UsageError(f"{flag}: {'unknown ' + ', '.join(bad) if bad else 'empty'}; "
                         f"expected a comma list of {','.join(allowed)}")
    return list(dict.fromkeys(items))


def parse_ranks(value: Optional[str]) -> Optional[list]:
    from advisor.errors import UsageError

    if value is None:
        return None
    try:
        ranks = sorted({int(v) for v in value.split(",") if v.strip()})
    except ValueError:
        ranks = []
    if not ranks or ranks[0] < 1 or ranks[-1] > 64:
        raise UsageError(f"--ranks: {value!r}; expected a comma list of rank counts from 1 to 64, e.g. 1,2")
    return ranks


SCALING_ONLY = ("ranks", "scaling_steps", "scaling_timeout", "scaling_repeat")
SCALING_ONLY += multinode.OPTION_DESTS[:-1]  # the multi-node options (the store_true last one is never None)


def config_from_args(args) -> ScalingConfig:
    from advisor.errors import UsageError

    given = getattr(args, _DEFAULTS_KEY, {}) or {}
    models = getattr(args, "models", None)
    if models is None or ("models" in given and models == given["models"] and given["models"] != "lenet"):
        models = "lenet"
    repeat = getattr(args, "scaling_repeat", None)
    repeat_flag = "--scaling-repeat" if repeat is not None else "--repeat"  # name the flag the user gave
    if repeat is None:
        repeat = getattr(args, "repeat", 3)
        if "repeat" in given and repeat == given["repeat"] and given["repeat"] != 3:
            repeat = 3
    if not 1 <= int(repeat) <= 20:
        raise UsageError(f"{repeat_flag}: expected 1 to 20 repetitions, got {repeat}")
    if getattr(args, "batch_size", 32) < 1:
        raise UsageError("--batch-size: expected a positive integer")
    threads = getattr(args, "threads", None)
    if threads is not None and threads < 1:
        raise UsageError("--threads: expected a positive integer")
    steps = getattr(args, "scaling_steps", None)
    steps = 30 if steps is None else steps
    if steps < 2:
        raise UsageError("--scaling-steps: expected at least 2")
    timeout = getattr(args, "scaling_timeout", None)
    timeout = 300.0 if timeout is None else timeout
    if not 10 <= timeout <= 7200:
        raise UsageError("--scaling-timeout: expected 10 to 7200 seconds per launch")
    frameworks = getattr(args, "frameworks", None)
    return ScalingConfig(
        frameworks=_list(frameworks, FRAMEWORKS, "--frameworks") if frameworks else list(FRAMEWORKS),
        models=_list(models, MODELS, "--models"), ranks=parse_ranks(getattr(args, "ranks", None)),
        batch_size=getattr(args, "batch_size", 32), steps=steps,
        warmup=5, repeat=int(repeat), threads_per_rank=threads,
        device="cpu" if getattr(args, "device", "auto") == "cpu" else "auto", timeout=timeout)


def _fmt(spread, scale: float = 1.0, digits: int = 0, pct: bool = False) -> str:
    if spread is None:
        return "-"
    f = (lambda v: f"{v * 100:.0f}%") if pct else (lambda v: f"{v * scale:,.{digits}f}")
    if spread.n < 2:
        return f(spread.median)
    return f"{f(spread.median)} ({f(spread.min)}-{f(spread.max)})"


HEADERS = ["framework", "launcher", "model", "ranks", "img/s total", "step ms", "no-sync ms", "allreduce",
           "efficiency", "init s", "1st step s", "launch s", "gate / runs"]


def _blocks(rows: list, width: int) -> str:
    """One wrapped block per framework and rank count, for terminals narrower than the table."""
    import textwrap

    out = []
    for row in rows:
        cells = dict(zip(HEADERS, row))
        top = f"{cells['framework']} {cells['launcher']} {cells['model']}"
        if cells["ranks"] == "-":
            out.append(textwrap.fill(f"{top}: {cells['gate / runs']}", width, subsequent_indent="    "))
            continue
        gate, _, runs = cells["gate / runs"].partition("; ")
        out.append(textwrap.fill(f"{top}, {cells['ranks']} rank(s): {cells['img/s total']} img/s total; "
                                 f"runs {runs}" + ("" if gate == "-" else f", gate {gate}"), width,
                                 subsequent_indent="    "))
        rest = ", ".join(f"{name} {cells[name]}" for name in HEADERS[5:12] if cells[name] != "-")
        out.append(textwrap.fill(rest, width, initial_indent="    ", subsequent_indent="    "))
    return "\n".join(out)


def render_table(result: ScalingResult, width: Optional[int] = None) -> str:
    """The table when it fits `width` (default: the terminal's; 100 when piped), else blocks."""
    import shutil
    import textwrap

    from tabulate import tabulate

    width = width or max(60, min(shutil.get_terminal_size((100, 24)).columns, 160))
    lines = [textwrap.fill(f"Scaling probe ({result.label}): {result.label_text}.", width),
             textwrap.fill("Median (min-max) over interleaved repetitions; allreduce share = (synced - "
                           "no-sync) / synced step; efficiency = img/s(N) / (N x img/s(1)).", width,
                           break_on_hyphens=False), ""]
    rows = []
    for fw in result.frameworks:
        if fw.status == "unavailable" or not fw.rank_counts:
            rows.append([fw.framework, fw.launcher, fw.model, *["-"] * (len(HEADERS) - 4),
                         f"{fw.status}: {fw.reason}"])  # the reason under 'gate / runs
            continue
        for rc in fw.rank_counts:
            gate = "-" if rc.gate_ok is None else ("ok" if rc.gate_ok else "FAILED")
            rows.append([fw.framework, f"{fw.launcher} ({fw.backend or fw.device})", fw.model, rc.ranks,
                         _fmt(rc.images_per_second), _fmt(rc.step_ms, digits=2),
                         _fmt(rc.nosync_step_ms, digits=2), share.cell(rc) or _fmt(rc.allreduce_share, pct=True),
                         _fmt(rc.efficiency, digits=2), _fmt(rc.init_seconds, digits=1),
                         _fmt(rc.first_step_seconds, digits=2), _fmt(rc.total_seconds, digits=1),
                         f"{gate}; {rc.runs_ok}/{rc.runs_total} ok"])
    table = tabulate(rows, headers=HEADERS, disable_numparse=True)
    lines.append(table if max(len(line) for line in table.splitlines()) <= width else _blocks(rows, width))
    failed = [r for r in result.runs if r.status != "ok"]
    for r in failed[:6]:
        lines.append(textwrap.fill(f"{r.id}: {r.status}: {r.error}", width, subsequent_indent="    "))
    lines += [textwrap.fill(f"warning: {w}", width, subsequent_indent="    ") for w in result.warnings]
    return "\n".join(lines) + "\n"


def _progress(stream):
    """start/done lines; on a terminal also a live line for the steps inside a launch."""
    tty = hasattr(stream, "isatty") and stream.isatty()

    def show(ev: ScalingEvent) -> None:
        if ev.kind == "progress":
            if tty:
                stream.write(f"\r[{ev.fraction * 100:3.0f}%] {ev.message}\x1b[K")
                stream.flush()
            return
        stream.write(("\r" if tty else "") + f"[{ev.fraction * 100:3.0f}%] {ev.message}" +
                     ("\x1b[K\n" if tty else "\n"))
        stream.flush()
    return show


def exit_code(result: ScalingResult) -> int:
    """1 when a framework produced no valid run (crash, hang) or any run failed the correctness
    gate; a partial result (some repetitions failed) is reported in the table but exits 0."""
    gate_failed = any(r.gate is not None and not r.gate.ok for r in result.runs)
    return 1 if gate_failed or any(fw.status == "failed" for fw in result.frameworks) else 0


def run_from_args(args) -> int:
    from advisor.output import emit, to_json
    from probes.scaling.runner import run_scaling

    if multinode.requested(args):  # across hosts (issue 21)
        return multinode.run_from_args(args)
    config = config_from_args(args)
    result = run_scaling(config, on_event=_progress(sys.stderr))
    as_json, output = getattr(args, "json", False), getattr(args, "output", None)
    if output:  # the file always gets the JSON document (what `advisor report --scaling` reads)
        emit(to_json(result), output)
    if not output or not as_json:
        emit(to_json(result) if as_json else render_table(result), None)
    if not getattr(args, "no_cache", False) and result.runs:
        try:  # the report and the TUI reuse it; a cache problem must not fail the measurement
            from probes.scaling.store import save_scaling

            save_scaling(result)
        except Exception as exc:
            print(f"warning: scaling result not cached: {exc}", file=sys.stderr)
    return exit_code(result)


def main(argv=None) -> int:
    from advisor.errors import UsageError

    parser = argparse.ArgumentParser(prog="python -m probes.scaling",
                                     description="data-parallel scaling probe (torchrun, msrun)")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_from_args(args)
    except UsageError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
