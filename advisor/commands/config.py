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
    path = config.config_path()
    if args.path:
        print(path)
        return 0
    rows = config.describe(config.load(path))
    state = "" if path.exists() else "  (no such file: every value is the built-in default)"
    print(f"config file: {path}{state}")
    width = max(len(key) for key, *_ in rows)
    for key, value, source, help_text in rows:
        shown = "unset" if value is None else repr(value)
        print(f"  {key:<{width}}  {shown:<18} {source:<12} {help_text}")
    return 0
