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
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import knowledge

    from advisor.errors import UsageError
    from advisor.output import emit, to_json
    from advisor.scan import scan_path
    from advisor.scan.render import render_text
    from advisor.output import check_output

    check_output(args.output)  # a folder as -o was an internal error after the scan
    try:
        result = scan_path(args.path)
    except knowledge.KnowledgeError as exc:  # a broken user override: one line, exit 2
        raise UsageError(f"knowledge base: {exc}") from exc
    emit(to_json(result) if args.json else render_text(result), args.output)
    return 0
