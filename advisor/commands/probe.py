"""`advisor probe`: the calibrated training probes in PyTorch and MindSpore on this host.

Progress goes to stderr (a bar per run) unless --json; results to stdout (a table, or one JSON
document with --json; -o FILE writes it atomically) and to the per-host cache."""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType

from advisor.commands.probe_common import (
    FRAMEWORKS,
    MAX_BATCH,
    MAX_THREADS,
    MODELS,
    MODES,
    TRAINING_ONLY,
    comma_list,
    compile_cache,
    emit_result,
    progress,
)
from advisor.commands.probe_generic import GenericFront
from advisor.errors import UsageError
from advisor.output import check_output
from advisor.sanitize import one_line


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "probe", help="measure training throughput in PyTorch and MindSpore on this host", description=__doc__
    )
    p.add_argument("--frameworks", help="comma list of pytorch,mindspore (default: every installed one)")
    p.add_argument(
        "--models",
        default="lenet,resnet18",
        help="comma list of lenet,resnet18,resnet50 (default lenet,resnet18; with --scaling: lenet), "
        "or gpt alone (the transformer probe)",
    )
    p.add_argument(
        "--modes",
        default=",".join(MODES),
        help="comma list of eager,compile (PyTorch) and graph,pynative (MindSpore) (default: all four)",
    )
    p.add_argument("--batch-size", type=int, default=32, help="images per step (default %(default)s)")
    p.add_argument(
        "--budget", type=float, default=6.0, help="seconds of warmup + measurement per run (default %(default)s)"
    )
    p.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda", "npu"),
        default="auto",
        help="where the runs train (default auto: the accelerator if the framework sees one, else cpu)",
    )
    p.add_argument(
        "--threads", type=int, help="threads in both frameworks (default: the cores found idle before each round)"
    )
    p.add_argument(
        "--data", metavar="PATH", help="real data: CIFAR-10 (cifar-10-batches-bin or -py) or MNIST idx folder"
    )
    from probes.training.models import ProbeConfig  # pydantic only: the defaults have one home

    defaults = ProbeConfig()
    p.add_argument(
        "--repeat",
        type=int,
        default=defaults.repeat,
        help="interleaved rounds per model (A B A B ... in fresh processes): median of medians and "
        "paired ratios between the runs (default %(default)s; with --scaling: 3)",
    )
    p.add_argument(
        "--max-repeat",
        type=int,
        default=defaults.max_repeat,
        metavar="N",
        help="cap on rounds: while a comparison is not decidable, run more rounds, each extra one at "
        "twice the budget (at most 4x --budget), up to N in all (default %(default)s; "
        "equal to --repeat: no extra rounds)",
    )
    from probes.training.models import QUICK

    p.add_argument(
        "--quick",
        action="store_true",
        help=f"the quick profile: {','.join(QUICK['models'])} in {','.join(QUICK['modes'])} (PyTorch eager against "
        f"MindSpore graph), {QUICK['repeat']} rounds (up to {QUICK['max_repeat']} while a run's grade leaves "
        f"the comparison undecided), budget {QUICK['budget']:g} s: about a minute on a 2-core "
        "host; with --models gpt the transformer probe's (the same two modes, a short dynamic-shape "
        "schedule: a few minutes); flags given with it win",
    )
    p.add_argument("--no-parity", action="store_true", help="skip the cross-framework parity check")
    p.add_argument(
        "--no-tune", action="store_true", help="measure the untuned default (no ONEDNN_MAX_CPU_ISA=AVX2 for MindSpore)"
    )
    p.add_argument(
        "--no-cache", action="store_true", help="do not store results, and compile with an empty torch.compile cache"
    )
    p.add_argument("--clear-cache", action="store_true", help="delete cached probe results and exit")
    p.add_argument("--max-steps", type=int, help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the JSON document to FILE (atomically), e.g. for `advisor report --probes`",
    )
    # "repeat" too: the data probes refuse it or (the pipeline) read it only when given
    p.set_defaults(
        func=handle,
        _training_defaults={k: p.get_default(k) for k in (*TRAINING_ONLY, "repeat")},
        _quick_defaults={k: p.get_default(k) for k in QUICK},
    )
    for front in fronts().values():
        front.add_arguments(p)


KIND = "training"  # the registry's kind (probes.base.KINDS) whose front this command is


def front(name: str) -> ModuleType | GenericFront:
    """The command-line front of the probe kind `name` (probes.base.KINDS): this module for the training
    probe, else advisor/commands/probe_<name>.py (or <name>.py: the deploy and scaling fronts' names)
    declaring KIND = name, with PROBE_FLAG, add_arguments(parser), wanted(args), refuse_unused(args) and
    run_from_args(args); a kind with no such module gets the generic front (probe_generic.py: its flag
    --<name>, its Config from the common options). A kind is found by its registry line alone: no list
    of fronts to keep, and no module to add outside the kind's package."""
    if name == KIND:
        return sys.modules[__name__]
    for module in (f"advisor.commands.probe_{name}", f"advisor.commands.{name}"):
        try:
            found = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:  # the front exists but an import inside it is broken: say that
                raise
            continue
        if getattr(found, "KIND", None) == name:
            return found
    return GenericFront(name)


def fronts() -> dict[str, ModuleType | GenericFront]:
    """Every registered kind's front but the training probe's (this command), in `advisor probe --help`
    order: the registry's, except that a front declaring HELP_AFTER = "<kind>" follows that kind's."""
    from probes.base import KINDS

    order = list(KINDS)
    found = [(name, front(name)) for name in KINDS if name != KIND]

    def place(item: tuple[str, ModuleType | GenericFront]) -> tuple[int, int]:
        after = getattr(item[1], "HELP_AFTER", None)
        return (order.index(after), 1) if after else (order.index(item[0]), 0)

    return dict(sorted(found, key=place))


def at_default(args, name: str) -> bool:
    """Whether an option shared by the profiles (--models, --modes, --budget, --repeat, --max-repeat) is
    still at its default: the parser's, or for --budget the config file's probe.budget too."""
    defaults = [getattr(args, "_quick_defaults", {}).get(name)]
    if name == "budget":
        try:  # the config file's probe.budget is a default too: a profile wins over it, not over --budget
            from advisor import config

            defaults.append(float(config.value("probe.budget")))
        except Exception:  # noqa: BLE001 - a broken file was reported before the command ran
            pass
    return getattr(args, name, None) in defaults


def quick(args) -> None:
    """--quick: the quick profile's values for every option still at its default (a flag given wins)."""
    from probes.training.models import QUICK

    for name, value in QUICK.items():
        if at_default(args, name):
            setattr(args, name, ",".join(value) if isinstance(value, list) else value)


def build_config(args):
    from probes.training.models import MODES_OF, ProbeConfig
    from probes.training.runner import installed_frameworks

    if getattr(args, "quick", False):
        quick(args)

    if args.frameworks is not None:  # --frameworks "" is refused as empty, not "every installed one"
        frameworks = comma_list(args.frameworks, FRAMEWORKS, "--frameworks")
    else:
        frameworks = [fw for fw, info in installed_frameworks().items() if info["installed"]]
        if not frameworks:
            raise UsageError(
                "--frameworks: neither PyTorch nor MindSpore is installed "
                f"for {sys.executable}; install one (pip install -e '.[pytorch]')"
            )
    try:
        models = comma_list(args.models, MODELS, "--models")
    except UsageError as exc:  # the choices it names: the CNN models, and gpt (a run of its own)
        raise UsageError(f"{exc}, or gpt alone (the transformer probe)") from None
    modes = comma_list(args.modes, MODES, "--modes")
    if not any(m in MODES_OF[fw] for fw in frameworks for m in modes):
        raise UsageError(
            f"--modes: none of {','.join(modes)} belongs to {','.join(frameworks)} "
            "(pytorch: eager,compile; mindspore: graph,pynative)"
        )
    if not 1 <= args.batch_size <= MAX_BATCH:
        # The synthetic batches are held in memory in both frameworks: a typo must not exhaust it.
        raise UsageError(f"--batch-size: expected 1 to {MAX_BATCH} images per step")
    if not 0 < args.budget <= 3600:
        raise UsageError("--budget: expected seconds per run, more than 0 and at most 3600")
    if args.threads is not None and not 1 <= args.threads <= MAX_THREADS:
        # 100,000 threads made the worker segfault; the config file's probe.threads has the same cap
        raise UsageError(f"--threads: expected 1 to {MAX_THREADS} threads")
    if not 1 <= args.repeat <= 20:
        raise UsageError("--repeat: expected 1 to 20")
    max_repeat = args.max_repeat if args.max_repeat is not None else args.repeat
    if not 1 <= max_repeat <= 20:
        raise UsageError("--max-repeat: expected 1 to 20 rounds")
    max_repeat = max(max_repeat, args.repeat)  # a cap below --repeat means no extra rounds
    if args.data:
        from probes.training import data

        try:
            data.from_path(args.data, models[0], args.batch_size, n_batches=1)
        except data.DataError as exc:
            raise UsageError(f"--data: {one_line(str(exc))}") from None
    return ProbeConfig(
        frameworks=frameworks,
        models=models,
        modes=modes,
        batch_size=args.batch_size,
        budget=args.budget,
        device=args.device,
        threads=args.threads,
        data=args.data,
        repeat=args.repeat,
        max_repeat=max_repeat,
        parity=not args.no_parity,
        tune=not args.no_tune,
        max_steps=args.max_steps,
    )


def handle(args) -> int:  # signals: advisor.cli runs every command inside probes.launcher.terminating_signals
    check_output(getattr(args, "output", None), [getattr(args, "data", None)])  # -o naming the --data file
    from probes.base import KINDS

    kinds = fronts()
    chosen = [name for name in KINDS if name in kinds and kinds[name].wanted(args)]
    if len(chosen) > 1:
        first, second = (kinds[name].PROBE_FLAG for name in chosen[:2])
        raise UsageError(f"{first}: one probe per run; {first} and {second} go in separate runs")
    for name, front in kinds.items():
        if name not in chosen:
            front.refuse_unused(args)  # its options without its flag: refused, not silently ignored
    if chosen:
        if getattr(args, "quick", False) and not hasattr(kinds[chosen[0]], "quick_fields"):
            raise UsageError(
                f"--quick: the training and transformer probes' profile; {kinds[chosen[0]].PROBE_FLAG} "
                "has its own options"
            )
        return kinds[chosen[0]].run_from_args(args)
    if args.clear_cache:
        from advisor.cache import clear

        removed = clear()
        print(f"advisor: removed {len(removed)} cached item(s)", file=sys.stderr)
        return 0
    from probes.training.runner import run_suite

    with compile_cache(build_config(args), args.no_cache) as config, progress("training", config, args) as on_event:
        suite = run_suite(config, on_event=on_event)
    from advisor.cache import save_probes

    emit_result("probe", suite, args, save=None if args.no_cache else save_probes)
    bad = [r for r in suite.runs if r.status in ("failed", "timeout")]
    bad_parity = [p for p in suite.parity if p.status == "failed"]
    return 1 if bad or bad_parity else 0
