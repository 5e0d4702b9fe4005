"""The user's defaults: $XDG_CONFIG_HOME/framework-advisor/config.toml (~/.config/... by default;
ADVISOR_CONFIG=FILE points elsewhere). Flags always win: a setting only replaces the built-in default
of its option. `advisor config` shows every setting, its value and where the value came from.

    [probe]
    budget = 10.0        # seconds of warmup + measurement per run (advisor probe --budget)
    threads = 2          # threads in both frameworks (advisor probe --threads)
    [report]
    format = "markdown"  # json | markdown | table (advisor report --json/--markdown/--table)
    kb = ["~/team-kb"]   # extra knowledge-base folders (advisor report --kb DIR, added to these)
    [tui]
    theme = "auto"       # auto (follow the terminal) | light | dark
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import tomllib

from advisor.errors import UsageError

APP = "framework-advisor"


@dataclass(frozen=True)
class Setting:
    key: str  # "section.name" in the file
    help: str
    default: Any
    check: Callable[[Any], str | None]  # None when fine, else what is expected
    command: str | None = None  # the subcommand whose option it sets
    dest: str | None = None  # that option's argparse dest


def _number(low: float, high: float, whole: bool = False) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        kinds = (int,) if whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
            return f"expected a {'whole ' if whole else ''}number from {low:g} to {high:g} (got {value!r})"
        return None

    return check


def _choice(*choices: str) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        return None if value in choices else f"expected one of {', '.join(choices)} (got {value!r})"

    return check


def _folders(value: Any) -> str | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return f'expected a list of folder paths, e.g. ["~/team-kb"] (got {value!r})'
    return None


SETTINGS = (
    Setting("probe.budget", "seconds of warmup + measurement per run", 6.0, _number(0.1, 3600), "probe", "budget"),
    Setting(
        "probe.threads",
        "threads in both frameworks (unset: the usable cores)",
        None,
        _number(1, 1024, whole=True),
        "probe",
        "threads",
    ),
    Setting(
        "report.format",
        "the report's format when no --json/--markdown/--table is given",
        "json",
        _choice("json", "markdown", "table"),
        "report",
        None,
    ),
    Setting("report.kb", "extra knowledge-base folders (--kb DIR adds to them)", [], _folders, "report", "kb"),
    Setting(
        "tui.theme", "the TUI's theme: auto follows the terminal (COLORFGBG)", "auto", _choice("auto", "light", "dark")
    ),
)
BY_KEY = {s.key: s for s in SETTINGS}


def config_path() -> Path:
    explicit = os.environ.get("ADVISOR_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / APP / "config.toml"


def _flatten(data: dict, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        else:
            out[name] = value
    return out


def load(path: Path | None = None) -> dict[str, Any]:
    """The settings the file sets, by key ('probe.budget': 10.0); {} without a file. Every problem
    of the file is listed (one per line) in one UsageError."""
    path = path or config_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    values = _flatten(data)
    problems = []
    for key, value in values.items():
        setting = BY_KEY.get(key)
        if setting is None:
            problems.append(f"{path}: {key}: unknown setting; expected one of {', '.join(BY_KEY)}")
            continue
        problem = setting.check(value)
        if problem:
            problems.append(f"{path}: {key}: {problem}")
    if problems:
        raise UsageError("\n".join(problems))
    if "report.kb" in values:
        values["report.kb"] = [str(Path(v).expanduser()) for v in values["report.kb"]]
    return values


def value(key: str, settings: dict | None = None) -> Any:
    """A setting's value: the file's, else the built-in default."""
    settings = load() if settings is None else settings
    return settings.get(key, BY_KEY[key].default)


def apply_defaults(subparsers: dict[str, Any], settings: dict[str, Any]) -> None:
    """Make the file's settings the defaults of the options they name (a flag given still wins)."""
    for key, val in settings.items():
        setting = BY_KEY[key]
        parser = subparsers.get(setting.command or "")
        dest = setting.dest or ("format" if key == "report.format" else None)
        if parser is not None and dest and any(a.dest == dest for a in parser._actions):
            parser.set_defaults(**{dest: list(val) if isinstance(val, list) else val})


def apply_format(args: Any, settings: dict[str, Any]) -> None:
    """report.format: only when the command line chose no format (--json/--markdown/--table win)."""
    fmt = settings.get("report.format")
    if fmt is None or getattr(args, "command", None) != "report":
        return
    flags = ("json", "markdown", "table")
    if hasattr(args, "format"):
        return  # a --format option: apply_defaults made the setting its default
    if all(hasattr(args, f) for f in flags) and not any(getattr(args, f) for f in flags):
        setattr(args, fmt, True)


def describe(settings: dict | None = None) -> list[tuple[str, Any, str, str]]:
    """(key, value, source, help) for every setting; source is 'config file' or 'default'."""
    settings = load() if settings is None else settings
    return [
        (s.key, settings.get(s.key, s.default), "config file" if s.key in settings else "default", s.help)
        for s in SETTINGS
    ]
