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
import sys
from dataclasses import dataclass
from pathlib import Path
import argparse
from typing import Callable, Optional, Union

from advisor.errors import UsageError
from advisor.sanitize import one_line

# Python 3.11 ships tomllib; 3.9 and 3.10 (common on Ascend hosts) need tomli, the same parser.
if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None  # only a config file needs it: load() says what to install

# At most this many lines about a bad config file (the last says how many more there are).
MAX_PROBLEM_LINES = 10
# A config file is a dozen lines; 1 MiB refuses a zero device or a mistaken huge file before reading.
MAX_CONFIG_BYTES = 1024 * 1024

APP = "framework-advisor"

# What a TOML file can give a setting before it is checked (a table below the depth limit included).
Value = Union[str, int, float, bool, list, dict, None]
Check = Callable[[Value], Optional[str]]  # None when fine, else what is expected


@dataclass(frozen=True)
class Setting:
    key: str  # "section.name" in the file
    help: str
    default: Value
    check: Check
    command: Optional[str] = None  # the subcommand whose option it sets
    dest: Optional[str] = None  # that option's argparse dest


def _shown(value: Value) -> str:
    """A value quoted in an error line: printable, at most 60 characters (a 5,000-digit integer is
    not repeated whole; Python refuses to print one past 4,300 digits anyway)."""
    try:
        text = repr(value)
    except ValueError:  # int too large to convert to a string
        return "a number too long to show"
    text = one_line(text)
    return text if len(text) <= 60 else text[:59] + "…"


def _number(low: float, high: float, whole: bool = False) -> Check:
    def check(value: Value) -> Optional[str]:
        kinds = (int,) if whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
            return f"expected a {'whole ' if whole else ''}number from {low:g} to {high:g} (got {_shown(value)})"
        return None

    return check


def _choice(*choices: str) -> Check:
    def check(value: Value) -> Optional[str]:
        return None if value in choices else f"expected one of {', '.join(choices)} (got {_shown(value)})"

    return check


def _folders(value: Value) -> Optional[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return f'expected a list of folder paths, e.g. ["~/team-kb"] (got {_shown(value)})'
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
        # os.path.expanduser leaves `~nosuchuser/...` as it is (Path.expanduser raises RuntimeError)
        return Path(os.path.expanduser(explicit))
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / APP / "config.toml"


def _flatten(data: dict, prefix: str = "", depth: int = 0, twice: Optional[list] = None) -> dict[str, Value]:
    """{'probe': {'budget': 1}} -> {'probe.budget': 1}. Below 8 levels a table is kept as a value
    (an unknown key then), so a file nested 500 deep is one line, not a RecursionError. A key the
    file sets twice (`"probe.budget" = 1` beside `[probe] budget = 2`) is added to `twice`."""
    out: dict[str, Value] = {}
    twice = [] if twice is None else twice
    for key, value in data.items():
        name = f"{prefix}{key}"
        inner = (
            _flatten(value, name + ".", depth + 1, twice) if isinstance(value, dict) and depth < 8 else {name: value}
        )
        for k, v in inner.items():
            if k in out:
                twice.append(k)
            out[k] = v
    return out


def _read(path: Path) -> Optional[bytes]:
    """The file's bytes (regular file, at most MAX_CONFIG_BYTES), or None when there is none.

    A FIFO would block every command (`advisor -V` included) and a zero device would fill memory:
    both are refused without blocking (probes.bounded). A HOME that is a regular file means no
    config folder: no config, not an error (`-V` and `--help` must work there)."""
    from probes.bounded import Refused, read_regular

    try:
        return read_regular(path, MAX_CONFIG_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except Refused as exc:
        raise UsageError(f"{path}: {exc}: expected a TOML config file of at most {MAX_CONFIG_BYTES:,} bytes") from None
    except OSError as exc:  # a 300-character component, a loop of links, no permission
        raise UsageError(f"{path}: cannot read the config file: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL byte in ADVISOR_CONFIG
        raise UsageError(f"{one_line(repr(str(path)))}: cannot read the config file: {exc}") from None


def load(path: Optional[Path] = None) -> dict[str, Value]:
    """The settings the file sets, by key ('probe.budget': 10.0); {} without a file. Every problem
    of the file is listed (one per line) in one UsageError."""
    path = path or config_path()
    raw = _read(path)
    if raw is None:
        return {}
    if tomllib is None:
        raise UsageError(
            f"{path}: reading a config file on Python {sys.version_info[0]}.{sys.version_info[1]} needs tomli: "
            "pip install 'tomli>=1.1'"
        )
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text: expected a TOML config file") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {one_line(str(exc))}") from None
    except RecursionError:
        raise UsageError(f"{path}: nested too deeply: expected a flat TOML config file") from None
    except ValueError as exc:  # an integer longer than Python converts
        raise UsageError(f"{path}: invalid value: {one_line(str(exc))[:120]}") from None
    twice: list[str] = []
    values = _flatten(data, twice=twice)
    problems = [f"{path}: {one_line(key)[:80]}: set twice: expected each setting once" for key in twice]
    for key, value in values.items():
        setting = BY_KEY.get(key)
        if setting is None:
            shown = one_line(key)[:80]
            problems.append(f"{path}: {shown}: unknown setting; expected one of {', '.join(BY_KEY)}")
            continue
        problem = setting.check(value)
        if problem:
            problems.append(f"{path}: {key}: {problem}")
    if len(problems) > MAX_PROBLEM_LINES:  # a file of 5,000 bad keys: the first few say enough
        rest = len(problems) - MAX_PROBLEM_LINES + 1
        problems = [*problems[: MAX_PROBLEM_LINES - 1], f"{path}: and {rest:,} more problems"]
    if problems:
        raise UsageError("\n".join(problems))
    if "report.kb" in values:
        values["report.kb"] = [os.path.expanduser(v) for v in values["report.kb"]]
    return values


def value(key: str, settings: Optional[dict] = None) -> Value:
    """A setting's value: the file's, else the built-in default."""
    settings = load() if settings is None else settings
    return settings.get(key, BY_KEY[key].default)


def apply_defaults(subparsers: dict[str, argparse.ArgumentParser], settings: dict[str, Value]) -> None:
    """Make the file's settings the defaults of the options they name (a flag given still wins)."""
    for key, val in settings.items():
        setting = BY_KEY[key]
        parser = subparsers.get(setting.command or "")
        dest = setting.dest or ("format" if key == "report.format" else None)
        if parser is not None and dest and any(a.dest == dest for a in parser._actions):
            parser.set_defaults(**{dest: list(val) if isinstance(val, list) else val})


def apply_format(args: argparse.Namespace, settings: dict[str, Value]) -> None:
    """report.format: only when the command line chose no format (--json/--markdown/--table win)."""
    fmt = settings.get("report.format")
    if fmt is None or getattr(args, "command", None) != "report":
        return
    flags = ("json", "markdown", "table")
    if hasattr(args, "format"):
        return  # a --format option: apply_defaults made the setting its default
    if all(hasattr(args, f) for f in flags) and not any(getattr(args, f) for f in flags):
        setattr(args, fmt, True)


def describe(settings: Optional[dict] = None) -> list[tuple[str, Value, str, str]]:
    """(key, value, source, help) for every setting; source is 'config file' or 'default'."""
    settings = load() if settings is None else settings
    return [
        (s.key, settings.get(s.key, s.default), "config file" if s.key in settings else "default", s.help)
        for s in SETTINGS
    ]
