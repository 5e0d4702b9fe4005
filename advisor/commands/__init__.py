"""One module per subcommand. Each exposes `register(subparsers)` that adds its parser and sets
`func(args) -> int` as the handler. cli.py only wires them together."""

# Order is the order in `advisor --help`. A module missing here simply isn't offered.
COMMAND_MODULES = ("check", "probe", "report", "compare", "scan", "kb", "tui", "config")
