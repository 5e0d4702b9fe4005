"""`advisor probe --<kind>` for a registered probe kind with no front module of its own (probes.base.KINDS;
adding a kind touches its own package plus one registry line). Its flag (help: the registry
line's summary) runs the kind's `run` with a Config built from the common `advisor probe` options its
Config declares; a common option the user set that its Config does not take is refused, not ignored.
The result goes out as every probe's does: -o FILE gets the JSON; stdout a table (the generic one,
advisor/render/tables/generic.py, unless the kind has its own) or the JSON with --json."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any, Callable

from advisor.commands.probe_common import MODES, comma_list, compile_cache, emit_result, progress, selected_frameworks
from advisor.errors import UsageError
from advisor.sanitize import one_line


def _items(value: str) -> list[str]:
    return [v.strip().lower() for v in (value or "").split(",") if v.strip()]


# The common `advisor probe` options (argparse dest) -> (the Config field they set, how its value is read)
COMMON: dict[str, tuple[str, Callable[[argparse.Namespace, Any], Any]]] = {
    "frameworks": ("frameworks", lambda args, value: selected_frameworks(args)),
    "models": ("models", lambda args, value: _items(value)),
    "modes": ("modes", lambda args, value: comma_list(value, MODES, "--modes")),
    "batch_size": ("batch_size", lambda args, value: value),
    "budget": ("budget", lambda args, value: value),
    "device": ("device", lambda args, value: value),
    "threads": ("threads", lambda args, value: value),
    "data": ("data", lambda args, value: value),
    "repeat": ("repeat", lambda args, value: value),
    "max_repeat": ("max_repeat", lambda args, value: value),
    "no_parity": ("parity", lambda args, value: not value),
    "no_tune": ("tune", lambda args, value: not value),
    "max_steps": ("max_steps", lambda args, value: value),
}
DEFAULTS = "_generic_defaults"  # the parser's defaults of COMMON: what the user did not set


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


class GenericFront:
    """The command-line front of the registered kind `kind` (advisor/commands/probe.py `front`): the
    interface of the fronts' modules (KIND, PROBE_FLAG, add_arguments, wanted, refuse_unused,
    run_from_args)."""

    def __init__(self, kind: str) -> None:
        self.KIND = kind
        self.PROBE_FLAG = f"--{kind}"
        self.dest = f"probe_kind_{kind}"

    @property
    def line(self):
        from probes.base import KINDS

        return KINDS[self.KIND]

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        line = self.line
        g = p.add_argument_group(f"{line.label} ({self.PROBE_FLAG})")
        g.add_argument(self.PROBE_FLAG, dest=self.dest, action="store_true", help=line.summary)
        p.set_defaults(**{DEFAULTS: {dest: p.get_default(dest) for dest in COMMON}})

    def wanted(self, args: argparse.Namespace) -> bool:
        return bool(getattr(args, self.dest, False))

    def refuse_unused(self, args: argparse.Namespace) -> None:
        """Nothing to refuse: the flag is its only option."""

    def build_config(self, args: argparse.Namespace):
        from pydantic import ValidationError

        Config = self.line.Config  # noqa: N806 (a class)
        declared = Config.model_fields
        defaults = getattr(args, DEFAULTS, {})
        fields: dict[str, Any] = {}
        for dest, (field, read) in COMMON.items():
            value = getattr(args, dest, None)
            given = dest in defaults and value != defaults[dest]
            if given and field not in declared:
                takes = [_flag(d) for d, (f, _) in COMMON.items() if f in declared]
                raise UsageError(
                    f"{_flag(dest)}: {self.PROBE_FLAG} does not use it "
                    f"(its options: {', '.join(takes) or 'none but the flag'})"
                )
            if field in declared and (given or dest == "frameworks"):  # frameworks: every installed one
                fields[field] = read(args, value)
        if "frameworks" in fields and not fields["frameworks"]:
            raise UsageError(f"--frameworks: neither PyTorch nor MindSpore is installed for {sys.executable}")
        try:
            return Config(**fields)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            field = str(err["loc"][0]) if err.get("loc") else ""
            flag = next((_flag(d) for d, (f, _) in COMMON.items() if f == field), None)
            where = flag or (f"{self.PROBE_FLAG}: {field}" if field else self.PROBE_FLAG)
            got = f" (got {err.get('input')!r})" if flag else ""
            raise UsageError(f"{where}: {one_line(err['msg'].removeprefix('Value error, '))}{got}") from None

    def run_from_args(self, args: argparse.Namespace) -> int:
        kind = self.line
        config = self.build_config(args)
        cache = (  # a kind that compiles gets the probes' compile cache (--no-cache: a throw-away one)
            compile_cache(config, getattr(args, "no_cache", False))
            if "compile_cache_dir" in type(config).model_fields
            else contextlib.nullcontext(config)
        )
        with cache as config, progress(self.KIND, config, args) as on_event:
            result = kind.run(config, on_event, cancel=None)
        emit_result(self.KIND, result, args)
        return 1 if failed(result) else 0


def failed(result: object) -> bool:
    """Whether any of the Result's runs (models or mappings) failed or timed out."""
    from advisor.render.tables.generic import fields, result_runs

    return any(fields(r).get("status") in ("failed", "timeout") for r in result_runs(result))
