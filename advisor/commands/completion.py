"""`advisor completion bash|zsh`: a completion script that offers values and files, not only flags:
the comma lists (`--models lenet,res<tab>` -> resnet18, resnet50; gpt too), the knowledge base's
sections for `kb list` and `--section`, YAML and JSON files where a command reads one, folders where it
takes a folder, and every `choices` option. Built with shtab from the command line's own parser, so a
new option completes without an edit here; only what an option's values are is said below.

Without shtab installed (it is in the `completion` extra) the script falls back to the flags alone and
says how to get the values.
"""

from __future__ import annotations

import argparse
import copy
from typing import Optional


# Options whose value is a comma list of known words (dest -> the words).
def _lists() -> dict[str, tuple[str, ...]]:
    from advisor.commands.probe_common import FRAMEWORKS, MODELS, MODES

    return {
        "frameworks": FRAMEWORKS,
        "models": (*MODELS, "gpt"),
        "modes": MODES,
        "dynamic": ("all", "none", "eager", "compile", "compile-dynamic", "graph", "graph-dynamic", "pynative"),
        "dynamic_ways": ("padded", "bucketed", "variable"),
    }


FILE_DESTS = ("output", "probes", "scaling", "deploy", "accuracy", "pipeline", "gpt", "requirements", "old", "new")
DIR_DESTS = ("kb", "dir", "data")
PATH_DESTS = ("path",)  # a file or a folder (`advisor scan PATH`)
SECTION_DESTS = ("section",)
YAML = "*.yaml|*.yml"
JSON = "*.json"
# Which files a file option reads (the rest: any file, e.g. -o).
PATTERN = {"requirements": YAML, "probes": JSON, "scaling": JSON, "deploy": JSON, "accuracy": JSON,
           "pipeline": JSON, "gpt": JSON, "old": JSON, "new": JSON}  # fmt: skip


def _sections() -> tuple[str, ...]:
    from knowledge.models import SECTIONS

    return tuple(SECTIONS)


def _preamble(shell: str) -> str:
    """The functions the bash script calls for values (zsh says them inline)."""
    if shell != "bash":
        return ""
    lines = [
        "# the item after the last comma of a comma list: $1 the word so far, then the choices",
        "_advisor_compgen_list() {",
        '  local head="" last="$1" w',
        '  case "$1" in *,*) head="${1%,*},"; last="${1##*,}" ;; esac',
        "  shift",
        '  for w in "$@"; do case "$w" in "$last"*) printf "%s\\n" "$head$w" ;; esac; done',
        "}",
    ]
    for dest, words in _lists().items():
        lines.append(f'_advisor_compgen_{dest}() {{ _advisor_compgen_list "$1" {" ".join(words)}; }}')
    lines.append(f'_advisor_compgen_sections() {{ compgen -W "{" ".join(_sections())}" -- "$1"; }}')
    for name, pattern in (("yaml", YAML), ("json", JSON)):  # one -X per pattern: no extglob needed
        files = " ".join(f"compgen -f -X '!{glob}' -- \"$1\";" for glob in pattern.split("|"))
        lines.append(f'_advisor_compgen_{name}() {{ compgen -d -- "$1"; {files} }}')
    lines.append('_advisor_compgen_path() { compgen -f -- "$1"; }')
    return "\n".join(lines) + "\n"


def _complete(action: argparse.Action) -> Optional[dict[str, str]]:
    """How shtab completes this action's value, or None (its choices, or nothing to say)."""
    import shtab

    dest = action.dest
    lists = _lists()
    if dest in lists:
        words = " ".join(lists[dest])
        return {"bash": f"_advisor_compgen_{dest}", "zsh": f"_sequence compadd - {words}"}
    if dest in SECTION_DESTS:
        return {"bash": "_advisor_compgen_sections", "zsh": f"({' '.join(_sections())})"}
    if dest in FILE_DESTS:
        pattern = PATTERN.get(dest)
        if pattern is None:
            return shtab.FILE
        name = "yaml" if pattern == YAML else "json"
        return {"bash": f"_advisor_compgen_{name}", "zsh": f"_files -g '({pattern})'"}
    if dest in DIR_DESTS:
        return shtab.DIRECTORY
    if dest in PATH_DESTS:
        return {"bash": "_advisor_compgen_path", "zsh": "_files"}
    return None


def _marked(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """A copy of the parser whose actions say how their values complete (the parser the commands use is
    not touched)."""
    parser = copy.deepcopy(parser)
    stack = [parser]
    while stack:
        current = stack.pop()
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
                continue
            if action.nargs == 0 or action.choices:
                continue  # a flag, or choices shtab offers itself
            complete = _complete(action)
            if complete is not None:
                action.complete = complete  # shtab's attribute
    return parser


def script(shell: str, parser: argparse.ArgumentParser) -> Optional[str]:
    """The completion script for `shell` (bash, zsh), or None without shtab (the caller then prints
    the flags-only script and says how to get values)."""
    try:
        import shtab
    except ModuleNotFoundError:
        return None
    text = shtab.complete(_marked(parser), shell=shell, preamble=_preamble(shell))
    head = f"# {shell} completion for advisor (advisor completion {shell}): commands, options and their values\n"
    return head + text


MISSING = (
    "advisor: note: this script completes commands and flags only; for values and files "
    "(--models, kb list SECTION, report FILE) install shtab: pip install -e '.[completion]'"
)
