"""Argument parsing and wiring only. `advisor` with no arguments starts the TUI.

Also here, because they concern every subcommand: examples at the end of each --help, "did you mean"
for mistyped commands and flags (with the subcommand's usage), the config file's defaults
(advisor.config) and `advisor completion bash|zsh`.
"""

from __future__ import annotations

import argparse
import difflib
import errno
import importlib
import os
import re
import sys

from advisor import __version__
from advisor.commands import COMMAND_MODULES
from advisor.errors import UsageError

# Shown under "examples:" at the end of each command's --help (the commands' own modules keep the
# options; the examples of every command are here, in one place, to keep them consistent).
EXAMPLES = {
    None: [
        "advisor                                   # the interactive advisor",
        "advisor report examples/prototype-then-ascend.yaml --markdown",
        "advisor check && advisor probe --models lenet --budget 2",
    ],
    "check": ["advisor check", "advisor check --json -o host.json", "advisor check --no-smoke --strict"],
    "probe": [
        "advisor probe --models lenet --budget 2",
        "advisor probe --frameworks pytorch --modes eager,compile --json -o probes.json",
        "advisor probe --scaling --ranks 2",
        "advisor probe --models gpt --gpt-layers 2 --dynamic graph,graph-dynamic",
    ],
    "report": [
        "advisor report examples/prototype-then-ascend.yaml",
        "advisor report team.yaml --markdown -o report.md",
        "advisor report team.yaml --probes gpu-host.json --kb ~/team-kb",
    ],
    "compare": ["advisor compare old.json new.json"],
    "scan": ["advisor scan path/to/project", "advisor scan . --json -o scan.json"],
    "kb": ["advisor kb list", "advisor kb validate --kb ~/team-kb"],
    "tui": ["advisor tui --requirements examples/prototype-then-ascend.yaml"],
    "config": ["advisor config", "advisor config --path"],
    "completion": [
        "advisor completion bash > ~/.local/share/bash-completion/completions/advisor",
        'advisor completion zsh > "${fpath[1]}/_advisor"',
    ],
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: one line (+ a hint), exit 2
        raise UsageError(f"{self.prog}: {message}{_hint(self, message)}")

    def _print_message(self, message: str, file=None) -> None:
        """--help and --version: argparse drops a failed write (stdout on /dev/full, unbuffered:
        exit 0 with nothing written); here it is the same error line as any other output's."""
        if not message:
            return
        stream = file if file is not None else sys.stdout
        if stream is None:
            raise UsageError("stdout: closed: nothing to print the help or the version on")
        try:
            stream.write(message)
        except OSError as exc:
            raise UsageError(f"stdout: cannot write: {exc.strerror or exc}") from None


def _hint(parser: argparse.ArgumentParser, message: str) -> str:
    """'did you mean ...?' for an unknown command or flag; for an unknown flag also the usage of the
    command at fault (argparse names the top parser, whose usage does not help)."""
    hint = ""
    choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if choice:
        options = re.findall(r"'?([\w-]+)'?", choice.group(2))
        close = difflib.get_close_matches(choice.group(1), options, n=1, cutoff=0.5)
        if close:
            hint = f" (did you mean `{close[0]}`?)"
    unknown = re.search(r"unrecognized arguments: (.*)", message)
    if unknown:
        flags = [o for a in parser._actions for o in a.option_strings]
        guesses = []
        for word in unknown.group(1).split():
            close = difflib.get_close_matches(word.split("=")[0], flags, n=1, cutoff=0.6)
            if word.startswith("-") and close:
                guesses.append(f"`{close[0]}` for `{word}`")
        if guesses:
            hint = f" (did you mean {', '.join(guesses)}?)"
        # The one line says what is wrong; the command's usage under it says what it takes.
        hint += "\n" + parser.format_usage().rstrip()
    return hint


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _examples(name: str | None) -> str | None:
    lines = EXAMPLES.get(name)
    return ("examples:\n" + "\n".join(f"  {line}" for line in lines)) if lines else None


def command_word(argv: list[str]) -> str | None:
    """The command argv runs, when it can be told without a parser (the top level's flags take no
    value); None when argv asks for the top level's help or version, or names no command."""
    for word in argv:
        if word in ("-h", "--help", "-V", "--version"):
            return None
        if not word.startswith("-"):
            return word
    return None


def build_parser(settings: dict | None = None, command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `command` (one of COMMAND_MODULES) only that command's options are
    built and the others are bare names: `advisor check` does not pay for building the probe
    command's options (~0.3-0.8 s of pydantic models here) before its smoke children start."""
    parser = _Parser(
        prog="advisor",
        description="Measured advice on PyTorch, MindSpore or a hybrid workflow. "
        "With no command, starts the interactive advisor.",
        epilog=_examples(None),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        if command in COMMAND_MODULES and name != command:
            sub.add_parser(name)  # its name keeps `advisor --debug NAME` and "did you mean" working
        else:
            importlib.import_module(f"advisor.commands.{name}").register(sub)
    completion = sub.add_parser(
        "completion",
        help="print a shell completion script (bash or zsh)",
        description="Print a completion script for bash or zsh, built from the commands and options of this version.",
    )
    completion.add_argument("shell", choices=("bash", "zsh"))
    completion.set_defaults(func=_completion)
    for name, subparser in _subparsers(parser).items():
        if subparser.epilog is None and _examples(name):
            subparser.epilog = _examples(name)
            if subparser.formatter_class is argparse.HelpFormatter:
                subparser.formatter_class = argparse.RawDescriptionHelpFormatter
    if settings:
        from advisor import config

        config.apply_defaults(_subparsers(parser), settings)
    return parser


# ---- shell completion ----------------------------------------------------------------------------


def _tree(parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    """Command -> its option strings and choices ('' is the top level)."""
    tree = {"": [o for a in parser._actions for o in a.option_strings]}
    for name, subparser in _subparsers(parser).items():
        words = []
        for action in subparser._actions:
            if action.help == argparse.SUPPRESS:
                continue  # hidden options stay hidden
            words += action.option_strings
            if not action.option_strings and action.choices and not isinstance(action, argparse._SubParsersAction):
                words += [str(c) for c in action.choices]
            if isinstance(action, argparse._SubParsersAction):
                words += list(action.choices)
        tree[name] = words
    return tree


def completion_script(shell: str, parser: argparse.ArgumentParser | None = None) -> str:
    parser = parser or build_parser()
    tree = _tree(parser)
    commands = " ".join(k for k in tree if k)
    if shell == "bash":
        cases = "\n".join(f'        {name}) opts="{" ".join(words)}" ;;' for name, words in tree.items() if name)
        return f"""# bash completion for advisor (advisor completion bash)
_advisor() {{
    local cur cmd opts
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    cmd=""
    for w in "${{COMP_WORDS[@]:1:COMP_CWORD-1}}"; do
        case "$w" in -*) ;; *) cmd="$w"; break ;; esac
    done
    case "$cmd" in
        "") opts="{commands} {" ".join(tree[""])}" ;;
{cases}
        *) opts="" ;;
    esac
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    [ ${{#COMPREPLY[@]}} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))
    return 0
}}
complete -o filenames -F _advisor advisor
"""
    cases = "\n".join(f"      {name}) opts=({' '.join(words)}) ;;" for name, words in tree.items() if name)
    return f"""#compdef advisor
# zsh completion for advisor (advisor completion zsh): put it on $fpath as _advisor, or source it
_advisor() {{
  local -a opts
  if (( CURRENT == 2 )); then
    opts=({commands} {" ".join(tree[""])})
  else
    case $words[2] in
{cases}
      *) opts=() ;;
    esac
  fi
  compadd -a opts
  _files
}}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _advisor "$@"; else compdef _advisor advisor; fi
"""


def _completion(args) -> int:
    from advisor.commands.completion import MISSING, script
    from advisor.output import emit

    text = script(args.shell, build_parser())  # values and files, from shtab
    if text is None:  # shtab not installed: the flags alone, and how to get the values
        _error_line(MISSING)
        text = completion_script(args.shell)
    emit(text, None)  # a closed stdout: one error line, not exit 0 and nothing
    return 0


# ---- main ----------------------------------------------------------------------------------------


def _is_knowledge_error(exc: BaseException) -> bool:
    loader = sys.modules.get("knowledge.loader")  # only loaded if the command used the KB
    return loader is not None and isinstance(exc, loader.KnowledgeError)


def _error_line(text: str) -> None:
    """The one way an error reaches stderr: terminal escapes, NUL and lone surrogates from YAML or
    TOML keys, section names, entry ids and file names are removed (advisor.sanitize.for_terminal),
    and a closed stderr (`2>&-`) is not a second error."""
    from advisor.sanitize import for_terminal

    try:
        print(for_terminal(text), file=sys.stderr)
    except (AttributeError, OSError, ValueError):
        pass


def missing_extra(exc: BaseException) -> str | None:
    from advisor.extras import explain_missing

    return explain_missing(exc)


def _fill_closed_descriptors() -> None:
    """Started with `2>&-` (or 0/1 closed), the next file opened would get that descriptor, and a
    framework's or a library's note written to "stderr" would land in it (inside --json on stdout,
    or the -o file). /dev/null holds the place; sys.stdout stays None, so emit() still says that
    stdout is closed."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                got = os.open(os.devnull, os.O_RDWR)
            except OSError:
                return
            if got != fd:  # a lower one was free after all: give it back
                os.close(got)


# Commands that handle terminating signals themselves: the TUI restores the terminal and stops its
# probes on its own (a SIGTERM raised inside its event loop would leave the terminal raw).
OWN_SIGNALS = frozenset({"tui"})


def _run_command(args: argparse.Namespace) -> int:
    """The one signal-handling wrapper for every command: SIGTERM and SIGHUP like Ctrl-C, every child
    a command started is killed and every temporary folder removed (probes.launcher), exit 143 / 129
    (130 for Ctrl-C), a second signal while that runs ignored."""
    if getattr(args, "command", None) in OWN_SIGNALS:
        return int(args.func(args) or 0)
    from probes.launcher import terminating_signals

    with terminating_signals(exiting=True):
        return int(args.func(args) or 0)


def _flush_stdout() -> bool:
    """Flush stdout; on failure (/dev/full, a closed pipe) point descriptor 1 at /dev/null, so the
    interpreter's own flush at exit has nothing left to fail on ("Exception ignored", exit 120)."""
    stream = sys.stdout
    if stream is None:
        return True
    try:
        stream.flush()
        return True
    except (OSError, ValueError) as exc:
        broken_pipe = isinstance(exc, BrokenPipeError)  # the reader went away: not an error of ours
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, stream.fileno())
            os.close(null)
            stream.flush()
        except (OSError, ValueError):
            pass
        return broken_pipe


def _help_or_version(argv: list[str]) -> bool:
    """argv asks for help or the version (`advisor report --help` included): a broken config file
    must not hide them."""
    words = argv[: argv.index("--")] if "--" in argv else argv
    return any(w in ("-h", "--help", "-V", "--version") for w in words)


def main(argv: list[str] | None = None) -> int:
    _fill_closed_descriptors()
    process = argv is None  # the `advisor` process itself, not a caller in Python
    argv = sys.argv[1:] if argv is None else argv
    debug = "--debug" in argv
    try:
        code = _main(argv, debug)
    except SystemExit as exc:  # --help and --version exit through argparse: their text must have been written
        if not _flush_stdout():
            _error_line("advisor: error: stdout: cannot write the help or the version")
            return UsageError.exit_code
        if process:
            _exit_if_stopped(exc.code if isinstance(exc.code, int) else 1)
        raise
    if not _flush_stdout() and code == 0:
        _error_line("advisor: error: stdout: cannot write")
        return UsageError.exit_code
    if process:
        _exit_if_stopped(code)
    return code


def _exit_if_stopped(code: int) -> None:
    """After a terminating signal, end the process now: the interpreter's own shutdown puts the
    default handlers back, and the next signal of a burst (a terminal closing sends several) would
    kill it half-way with no exit status of ours. Children and temp folders are already gone."""
    stopped = sys.modules.get("probes.launcher")
    if stopped is None or stopped.stopping() is None:
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _main(argv: list[str], debug: bool) -> int:
    try:
        from advisor import config

        try:
            settings = config.load()
        except UsageError:
            if _help_or_version(argv):
                settings = {}
            else:
                raise
        argv = argv or ["tui"]
        parser = build_parser(settings, command_word(argv))
        args, extra = parser.parse_known_args(argv)
        if extra:  # argparse names the top parser; the command whose flag it is helps more
            sub = _subparsers(parser).get(getattr(args, "command", None) or "", parser)
            sub.error(f"unrecognized arguments: {' '.join(extra)}")
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        config.apply_format(args, settings)
        return _run_command(args)
    except UsageError as exc:
        if debug:  # the traceback too, and still the exit status of bad input
            import traceback

            traceback.print_exc(file=sys.stderr)
        _error_line(f"advisor: error: {exc}")
        return UsageError.exit_code
    except BrokenPipeError:  # the reader went away (`advisor config | head -1`): not an error
        _flush_stdout()
        return 0
    except Exception as exc:  # broad on purpose: any failure becomes one line and an exit code
        if debug:
            raise
        if _is_knowledge_error(exc):  # a bad knowledge-base file is bad input too
            _error_line(f"advisor: error: {exc}")
            return UsageError.exit_code
        if isinstance(exc, OSError) and exc.errno in (errno.ENAMETOOLONG, errno.ELOOP) and exc.filename:
            # a path the user gave that no file system takes: bad input, wherever it was first used
            _error_line(f"advisor: error: {exc.filename}: {exc.strerror}")
            return UsageError.exit_code
        extra = missing_extra(exc)
        if extra is not None:  # an optional dependency not installed: bad setup, not a bug
            _error_line(f"advisor: error: {extra}")
            return UsageError.exit_code
        _error_line(f"advisor: internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)")
        return 1
    except KeyboardInterrupt:
        _error_line("advisor: interrupted")
        return 130
