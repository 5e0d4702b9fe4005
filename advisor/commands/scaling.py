"""Command-line face of the scaling probe: `advisor probe --scaling [--ranks 1,2,...]`.

Two hooks for `advisor/commands/probe.py`:
    from advisor.commands import scaling
    scaling.add_arguments(p)                       # in register(), after its own arguments
    if args.scaling: return scaling.run_from_args(args)   # in its handler
The probe command already has the options both probes share (--frameworks, --models,
--batch-size, --device, --threads, --repeat, --json, -o/--output, --no-cache), so add_arguments
adds only the scaling ones; a parser of its own (`main`, `python -m advisor.commands.scaling`)
asks for the shared ones too (shared=True).
Progress goes to stderr; the table (advisor/render/tables/scaling.py; or one JSON document with
--json) to stdout, and -o FILE always gets the JSON document.
Not a subcommand of its own (it is not in COMMAND_MODULES).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Optional

from advisor.commands.probe_common import (
    FRAMEWORKS,
    MAX_THREADS,
    MODELS,
    TRAINING_ONLY,
    comma_list,
    emit_result,
    progress,
)
from advisor.errors import UsageError
from probes.scaling import multinode

if TYPE_CHECKING:  # the pydantic models load when the probe runs, not when the parser is built
    from probes.scaling.models import ScalingConfig, ScalingResult
_DEFAULTS_KEY = "_scaling_parser_defaults"


def add_arguments(parser: argparse.ArgumentParser, shared: bool = False) -> None:
    """The scaling options; with `shared`, also the options the probe command already defines."""
    parser.add_argument(
        "--scaling",
        action="store_true",
        help="data-parallel scaling probe on torchrun (DDP) and msrun: 1 and N ranks, "
        "allreduce share, efficiency, start-up, correctness gate",
    )
    parser.add_argument(
        "--ranks",
        metavar="LIST",
        help="scaling: comma list of rank counts (default: 1 and the host's device count, or 1,2 on a CPU-only host)",
    )
    # No defaults here (None = not given, applied in config_from_args), so that the probe command
    # can tell that a scaling option was typed without --scaling.
    parser.add_argument(
        "--scaling-steps",
        type=int,
        metavar="N",
        help="scaling: timed steps per phase (synced, no-sync) per launch (default 30)",
    )
    parser.add_argument(
        "--scaling-timeout",
        type=float,
        metavar="SECONDS",
        help="scaling: limit per launch; a hanging or crashing rank fails the run (default 300)",
    )
    parser.add_argument("--scaling-repeat", type=int, metavar="N", help="scaling: interleaved repetitions (default 3)")
    if shared:
        parser.add_argument("--frameworks", help="comma list of pytorch,mindspore (default: both)")
        parser.add_argument("--models", default="lenet", help="comma list of lenet,resnet18,resnet50")
        parser.add_argument("--batch-size", type=int, default=32, help="per-rank batch")
        parser.add_argument("--device", choices=("auto", "cpu", "cuda", "npu"), default="auto")
        parser.add_argument("--threads", type=int, help="threads per rank (default: cores / largest rank count)")
        parser.add_argument("--repeat", type=int, default=3, help="interleaved repetitions (>= 3 for a spread)")
        parser.add_argument("--json", action="store_true", help="print one JSON document")
        parser.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE (atomically)")
        parser.add_argument("--no-cache", action="store_true", help="do not store the result in the per-host cache")
    multinode.add_arguments(parser)  # --nnodes --node-rank --master ... (probes/scaling/multinode.py)
    # Remember the host parser's defaults: a value equal to the probe's default means "not given",
    # so the scaling defaults (LeNet, 3 repetitions) apply instead of the probe's.
    parser.set_defaults(**{_DEFAULTS_KEY: {k: parser.get_default(k) for k in ("models", "repeat")}})


def parse_ranks(value: Optional[str]) -> Optional[list]:
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


def config_from_args(args: argparse.Namespace) -> ScalingConfig:
    from probes.scaling.models import ScalingConfig

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
    if threads is not None and not 1 <= threads <= MAX_THREADS:
        raise UsageError(f"--threads: expected 1 to {MAX_THREADS} threads per rank")
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
        frameworks=comma_list(frameworks, FRAMEWORKS, "--frameworks") if frameworks else list(FRAMEWORKS),
        models=comma_list(models, MODELS, "--models"),
        ranks=parse_ranks(getattr(args, "ranks", None)),
        batch_size=getattr(args, "batch_size", 32),
        steps=steps,
        warmup=5,
        repeat=int(repeat),
        threads_per_rank=threads,
        device="cpu" if getattr(args, "device", "auto") == "cpu" else "auto",
        timeout=timeout,
    )


def exit_code(result: ScalingResult) -> int:
    """1 when a framework produced no valid run (crash, hang) or any run failed the correctness
    gate; a partial result (some repetitions failed) is reported in the table but exits 0."""
    gate_failed = any(r.gate is not None and not r.gate.ok for r in result.runs)
    return 1 if gate_failed or any(fw.status == "failed" for fw in result.frameworks) else 0


KIND = "scaling"  # the registry's kind (probes.base.KINDS) whose front this is (advisor/commands/probe.py)
PROBE_FLAG = "--scaling"


def wanted(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "scaling", False))


def refuse_unused(args: argparse.Namespace) -> None:
    """A scaling option without --scaling: one line, not a training probe that ignores it."""
    given = [name for name in SCALING_ONLY if getattr(args, name, None) is not None]
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise UsageError(f"{flag}: a scaling-probe option; add --scaling (advisor probe --scaling {flag} ...)")


def refuse_training_options(args: argparse.Namespace) -> None:
    defaults = getattr(args, "_training_defaults", {})  # set by the probe command's parser
    given = [name for name in TRAINING_ONLY if name in defaults and getattr(args, name) != defaults[name]]
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise UsageError(f"{flag}: a training-probe option; the scaling probe (--scaling) does not use it")


def run_from_args(args: argparse.Namespace) -> int:
    from probes.scaling.runner import run_scaling

    refuse_training_options(args)

    if multinode.requested(args):  # across hosts: a multi-node option was given
        return run_multinode_from_args(args)
    config = config_from_args(args)
    with progress("scaling", config, args) as on_event:
        result = run_scaling(config, on_event=on_event)
    from advisor.cache import save_scaling

    # -o FILE (the JSON that `advisor report --scaling` reads) first, then the cache: the report and
    # the TUI reuse it, and a cache problem must not lose the measurement.
    emit_result(
        "scaling", result, args, save=None if getattr(args, "no_cache", False) or not result.runs else save_scaling
    )
    return exit_code(result)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m advisor.commands.scaling", description="data-parallel scaling probe (torchrun, msrun)"
    )
    add_arguments(parser, shared=True)
    args = parser.parse_args(argv)
    from probes.launcher import terminating_signals

    try:
        with terminating_signals():
            return run_from_args(args)
    except UsageError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())


def run_multinode_from_args(args) -> int:
    """`advisor probe --scaling --nnodes N --node-rank R --master HOST[:PORT]` (probes.scaling.multinode)."""
    from probes.scaling.multinode import (
        BadRendezvous,
        argparse_copy,
        check_ports,
        refuse_ranks,
        run_multinode,
        validate,
    )

    try:
        rdzv = validate(
            getattr(args, "nnodes", None),
            getattr(args, "node_rank", None),
            getattr(args, "master", None),
            getattr(args, "ranks_per_node", None),
            getattr(args, "rendezvous_timeout", None),
        )
        refuse_ranks(getattr(args, "ranks", None))
        config = config_from_args(args)
        check_ports(rdzv, config)
    except BadRendezvous as exc:
        raise UsageError(str(exc)) from None
    if rdzv.nnodes == 1:  # one host: the ordinary probe
        return run_from_args(argparse_copy(args))
    if rdzv.node_rank != 0:
        ok, runs = run_multinode(config, rdzv, intra_host=False)
        where = f"node 0 ({rdzv.master_addr})"
        print(
            f"node {rdzv.node_rank} of {rdzv.nnodes}: "
            + (
                f"finished; {where} gathers and writes the result"
                if ok
                else f"failed: {next((r.error for r in runs if r.status != 'ok'), 'no framework available')}"
            ),
            file=sys.stderr,
        )
        if getattr(args, "output", None):
            print(f"note: -o {args.output} is written by {where}, not here", file=sys.stderr)
        return 0 if ok and runs else 1
    with progress("scaling", config, args) as on_event:
        result = run_multinode(config, rdzv, intra_host=not getattr(args, "no_intra_host", False), on_event=on_event)
    emit_result("scaling", result, args)  # the table ends with the lines across hosts
    failed = any(r.status != "ok" for r in result.runs if r.nnodes)
    return 1 if failed or exit_code(result) else 0
