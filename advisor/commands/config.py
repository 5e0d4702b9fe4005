"""`advisor config`: the defaults from ~/.config/framework-advisor/config.toml (XDG; ADVISOR_CONFIG=FILE
points elsewhere), each with its value and where it came from. Flags on the command line always win."""

from __future__ import annotations

import argparse

from advisor import config


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "config",
        help="show the defaults from the config file and where each came from",
        description=__doc__ + "\n\n" + (config.__doc__ or "").split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--path", action="store_true", help="print only the config file's path")
    parser.set_defaults(func=run)


def run(args) -> int:
    from advisor.output import emit

    path = config.config_path()
    if args.path:
        emit(f"{path}\n", None)  # emit: a closed stdout is an error line, not exit 0 with nothing written
        return 0
    rows = config.describe(config.load(path))
    try:
        exists = path.exists()
    except (OSError, ValueError):
        exists = False
    state = "" if exists else "  (no such file: every value is the built-in default)"
    lines = [f"config file: {path}{state}"]
    width = max(len(key) for key, *_ in rows)
    for key, value, source, help_text in rows:
        shown = "unset" if value is None else repr(value)
        lines.append(f"  {key:<{width}}  {shown:<18} {source:<12} {help_text}")
    from advisor.cache import cache_dir

    lines.append(
        f"cache: {cache_dir()} (probe and scaling results per host and advisor check's oneDNN "
        "confirmation, shared by every checkout here; advisor report lists the cached runs it used, "
        "--no-cache ignores them; advisor probe --clear-cache empties it)"
    )
    emit("\n".join(lines) + "\n", None)
    return 0
