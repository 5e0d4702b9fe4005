"""Argument parsing and wiring only. `advisor` with no arguments starts the TUI."""

from __future__ import annotations

import argparse
import importlib
import sys

from advisor import __version__
from advisor.commands import COMMAND_MODULES
from advisor.errors import UsageError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: one line, exit 2
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="advisor",
        description="Measured advice on PyTorch, MindSpore or a hybrid workflow. "
        "With no command, starts the interactive advisor.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"advisor.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"advisor.commands.{name}":
                continue  # not built yet
            raise
        module.register(sub)
    return parser


def _is_knowledge_error(exc: BaseException) -> bool:
    loader = sys.modules.get("knowledge.loader")  # only loaded if the command used the KB
    return loader is not None and isinstance(exc, loader.KnowledgeError)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    debug = "--debug" in argv
    try:
        parser = build_parser()
        args = parser.parse_args(argv or ["tui"])
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return int(args.func(args) or 0)
    except UsageError as exc:
        if debug:
            raise
        print(f"advisor: error: {exc}", file=sys.stderr)
        return UsageError.exit_code
    except Exception as exc:
        if debug:
            raise
        if _is_knowledge_error(exc):  # a bad knowledge-base file is bad input too
            print(f"advisor: error: {exc}", file=sys.stderr)
            return UsageError.exit_code
        print(f"advisor: internal error: {type(exc).__name__}: {exc} (run with --debug for the "
              "traceback)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("advisor: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
