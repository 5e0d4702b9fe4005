"""`advisor scan PATH`: estimate the cost of migrating a PyTorch code base to MindSpore."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "scan",
        help="estimate the PyTorch -> MindSpore migration effort from your code",
        description=(
            "Read the Python files under PATH with ast (never importing or running them), list the "
            "PyTorch APIs and migration hazards with file:line, and estimate effort, risk and route."
        ),
    )
    parser.add_argument("path", metavar="PATH", help="folder of PyTorch code (or one .py file)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE (atomically)")
    parser.add_argument(
        "--by",
        choices=("file", "package"),
        help="text output: also break the effort down per file or per top-level package",
    )
    parser.add_argument(
        "--exclude",
        metavar="GLOB",
        action="append",
        default=[],
        help="leave files matching GLOB (relative path, e.g. 'legacy/**') out of the total; repeatable. "
        "tests, examples and tools are excluded by default",
    )
    parser.add_argument(
        "--no-default-excludes", action="store_true", help="count tests, examples and tools in the total too"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import knowledge
    from advisor.errors import UsageError
    from advisor.output import check_output, emit
    from advisor.render import renderer
    from advisor.scan import scan_path

    check_output(args.output, [args.path])  # a folder as -o was an internal error after the scan; -o the scanned file
    _check_path(args.path)
    try:
        result = scan_path(args.path, exclude=args.exclude, default_excludes=not args.no_default_excludes)
    except knowledge.KnowledgeError as exc:  # a broken user override: one line, exit 2
        raise UsageError(f"knowledge base: {exc}") from exc
    emit(renderer("scan", "json" if args.json else "table", by=args.by).format(result), args.output)
    return 0


def _check_path(path: str) -> None:
    """A FIFO, socket or device is neither code nor a folder of it: one line, not "0-0 h"."""
    import os
    import stat

    from advisor.errors import UsageError
    from advisor.sanitize import for_terminal

    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise UsageError(f"{for_terminal(path)}: {exc.strerror or 'cannot be read'}") from exc
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        raise UsageError(
            f"{for_terminal(path)}: not a folder or a file (expected a folder of Python code or one .py file)"
        )
