"""`advisor tui [--requirements FILE]`: the interactive advisor (also what bare `advisor` runs).
Textual is imported only here, on the interactive path."""

from __future__ import annotations

import sys

from advisor.errors import UsageError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "tui",
        help="the interactive advisor (default command)",
        description="The interactive advisor: host check, requirements form, training probes and "
        "the recommendation, in one terminal app (F1-F4 switch screens, ? help, "
        "ctrl+q quits).",
    )
    parser.add_argument("--requirements", metavar="FILE", help="start with this requirements YAML file loaded")
    parser.set_defaults(func=run)


def _interactive() -> bool:
    """A terminal on both ends: without one, Textual has nothing to draw on or read keys from."""
    try:  # a closed stdin or stdout (`advisor tui <&-`) is None, or a closed file object
        return bool(sys.stdin and sys.stdout and sys.stdin.isatty() and sys.stdout.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def run(args) -> int:
    if not _interactive():
        raise UsageError(
            "the interactive advisor needs a terminal (stdin and stdout); for headless "
            "output use `advisor report REQUIREMENTS.yaml` or `advisor check`"
        )
    if args.requirements:
        # A bad file is bad usage: one line and exit 2 before the screen is taken over.
        from advisor.requirements import load_requirements

        load_requirements(args.requirements)
    from tui.app import make_app

    make_app(requirements_path=args.requirements).run()
    return 0
