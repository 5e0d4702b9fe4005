"""What the probe commands share (advisor/commands/probe.py and the kinds' front modules beside it, each
found by its probes.base.KINDS name: probe_<kind>.py or <kind>.py, declaring KIND; a kind with none gets
probe_generic.py's front): the probe
vocabulary, the comma-list parser, the bounded --data read, the progress display and the one way a
result is written.

The dispatcher (probe.py) imports the kind modules; they import only this module, never probe.py."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Callable, Optional

from advisor.errors import UsageError
from advisor.limits import LIMITS
from advisor.output import emit, write_fallback
from advisor.render import renderer
from advisor.sanitize import one_line

if TYPE_CHECKING:  # pydantic is imported by the kinds' models, not to build the parser
    from pydantic import BaseModel

MODELS = ("lenet", "resnet18", "resnet50")
FRAMEWORKS = ("pytorch", "mindspore")
MODES = ("eager", "compile", "graph", "pynative")
MAX_BATCH = 4096
MAX_THREADS = int(LIMITS["threads"].high)  # the one range table (advisor.limits)
# Options of the training probe that the scaling probe does not use (it trains LeNet on synthetic
# data under the frameworks' launchers): refused with --scaling rather than silently ignored.
TRAINING_ONLY = ("modes", "budget", "data", "no_parity", "no_tune", "max_steps", "max_repeat")
# Training-probe options the accuracy and pipeline probes do not read: refused, not silently ignored.
NOT_USED_BY_DATA_PROBES = ("budget", "repeat", "no_parity", "no_tune", "max_steps", "device")
ALIASES = {
    "torch": "pytorch",
    "ms": "mindspore",
    "resnet-18": "resnet18",
    "resnet-50": "resnet50",
    "lenet5": "lenet",
    "lenet-5": "lenet",
}


def comma_list(value: Optional[str], allowed: tuple, flag: str) -> list[str]:
    items = [v.strip().lower() for v in (value or "").split(",") if v.strip()]
    items = [ALIASES.get(v, v) for v in items]
    bad = [v for v in items if v not in allowed]
    if bad:
        raise UsageError(f"{flag}: unknown {', '.join(bad)}; expected a comma list of {','.join(allowed)}")
    if not items:
        raise UsageError(f"{flag}: empty; expected a comma list of {','.join(allowed)}")
    return list(dict.fromkeys(items))


def check_data(path: Optional[str], limit: Optional[int] = None) -> None:
    """--data read once in the parent (bounded, format-checked: probes.training.data) before any
    worker starts: a bad data folder is one line and exit 2, not a failed run per framework."""
    if not path:
        return
    from probes.training import data

    try:
        data.read_raw(path, limit=limit)
    except data.DataError as exc:
        raise UsageError(f"--data: {one_line(str(exc))}") from None


def selected_frameworks(args: argparse.Namespace) -> list[str]:
    """--frameworks, else every installed one."""
    if args.frameworks is not None:  # --frameworks "" is refused as empty, not "every installed one"
        return comma_list(args.frameworks, FRAMEWORKS, "--frameworks")
    from probes.hostfacts import installed_frameworks

    return [fw for fw, info in installed_frameworks().items() if info["installed"]]


def refuse_training_options(args: argparse.Namespace, probe: str, reads: tuple[str, ...] = ()) -> None:
    """Training-probe options `probe` does not read (all but `reads`) are refused, not silently ignored."""
    defaults = getattr(args, "_training_defaults", {})
    for name in NOT_USED_BY_DATA_PROBES:
        if name in reads:
            continue
        if name in defaults and getattr(args, name, None) != defaults[name]:
            raise UsageError(f"--{name.replace('_', '-')}: a training-probe option; {probe} does not use it")


@contextlib.contextmanager
def compile_cache(config: BaseModel, no_cache: bool) -> Iterator[BaseModel]:
    """The config with its torch.compile cache: the user's (advisor.cache) or, under --no-cache, a
    throw-away folder made here, just before the run, and removed after it however the run ends (made
    while the flags were still being checked, a refused flag left it behind in the temp folder)."""
    if not no_cache:
        from advisor.cache import compile_cache_dir

        yield config.model_copy(update={"compile_cache_dir": str(compile_cache_dir())})
        return
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="advisor-inductor-")
    try:
        yield config.model_copy(update={"compile_cache_dir": folder})
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def progress(kind_name: str, config: BaseModel, args: argparse.Namespace) -> Iterator[Optional[Callable[..., None]]]:
    """The one progress display (advisor.progress.probe_progress, on stderr) for every probe kind;
    None with --json, whose reader wants the document alone."""
    if getattr(args, "json", False):
        yield None
        return
    from advisor.progress import probe_progress

    with probe_progress(kind_name, config) as on_event:
        yield on_event


def emit_result(
    kind: str,
    doc: BaseModel,
    args: argparse.Namespace,
    save: Optional[Callable[[BaseModel], object]] = None,
    **options: object,
) -> None:
    """-o FILE always gets the JSON document (what `advisor report --probes` reads); stdout gets
    the `kind` table (options: its width, `feed`), or the JSON with --json when no file was named.

    `save` (the cache writer, or None) runs after -o: a measurement is never lost to a full cache
    or a failed -o. When neither took it, it goes to a named fallback file and the message says
    where; a failed -o still ends in its one error line (exit 2), naming where the result is."""
    as_json, output = getattr(args, "json", False), getattr(args, "output", None)
    text = renderer(kind, "json").format(doc)
    kept: list[str] = []
    failure: Optional[UsageError] = None
    if output:
        try:
            emit(text, output)
            kept.append(output)
        except UsageError as exc:
            failure = exc
    cache_failed = False
    if save is not None:
        try:
            kept.append(str(save(doc)))
        except (OSError, UsageError) as exc:  # ENOSPC, EROFS, a file where the cache folder goes
            cache_failed = True
            where = f"; it is in {kept[0]}" if kept else ""
            print(f"advisor: warning: the {kind} result was not cached ({one_line(str(exc))}){where}", file=sys.stderr)
    if not kept and (failure is not None or cache_failed):
        kept.append(write_fallback(kind, text))
        if failure is None:
            print(f"advisor: the {kind} result is kept in {kept[0]}", file=sys.stderr)
    try:
        if not output or not as_json:
            emit(renderer(kind, "json" if as_json else "table", **options).format(doc), None)
    finally:
        if failure is not None:
            raise UsageError(f"{failure}; the {kind} result is kept in {kept[0]}") from None
