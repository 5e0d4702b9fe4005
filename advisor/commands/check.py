"""`advisor check`: is this box ready for PyTorch / MindSpore training, and what is wrong with it?"""

from __future__ import annotations

import argparse
import sys

from advisor.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check",
        help="check this host: CPU, GPUs/NPUs, frameworks (live smoke tests) and known traps",
        description=(
            "Gather the host, NVIDIA GPUs, Ascend NPUs and the installed frameworks, run a small live "
            "smoke test per framework (each in its own process, in parallel), and list findings with "
            "fixes. Exit 0 on pass or warn, 1 on fail (--strict: warnings fail too), 2 on bad usage."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document (nothing else on stdout)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE (atomically)")
    parser.add_argument("--strict", action="store_true", help="warnings fail the check (exit 1)")
    parser.add_argument("--no-smoke", action="store_true", help="skip the live framework smoke tests (fast)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="kill a smoke test that takes longer (default 60)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.output is not None:
        from advisor.output import check_output

        check_output(args.output)  # before the smoke tests, not after them
    if not 0 < args.timeout <= 3600:  # also refuses nan, which every comparison passes
        raise UsageError(f"--timeout: expected a positive number of seconds up to 3600, got {args.timeout:g}")
    progress = None if args.json else (lambda text: print(f"  {text}", file=sys.stderr, flush=True))
    started = None
    if not args.no_smoke:
        # The smoke children first, so that the frameworks' slow imports overlap this process's: they import their frameworks while this process
        # imports the check's models and gathers the rest.
        from probes.check.frameworks import start_smoke

        started = start_smoke(args.timeout, progress)
    try:
        from advisor.check.host import run_check
        from advisor.output import emit
        from advisor.render import renderer
    except BaseException:
        if started is not None:
            started.abort()  # no child outlives a check that could not go on
        raise
    if not args.json:
        print(
            "advisor check: gathering host, accelerators"
            + ("" if args.no_smoke else " and framework smoke tests")
            + "...",
            file=sys.stderr,
        )
    report = run_check(smoke=not args.no_smoke, timeout=args.timeout, progress=progress, started=started)
    emit(renderer("check", "json" if args.json else "table").format(report), args.output)
    if report.verdict == "fail" or (args.strict and report.verdict == "warn"):
        return 1
    return 0
