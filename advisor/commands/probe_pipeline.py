"""`advisor probe --pipeline`: the input pipeline alone, feeding a training step, and the step alone,
in torch.utils.data.DataLoader and mindspore.dataset, with the same augmentation; whether the step
is starved here, and what share of N target accelerators one host's pipeline would feed."""

from __future__ import annotations

import math

import argparse

from advisor.commands.probe_common import (
    check_data,
    emit_result,
    progress,
    refuse_training_options,
    selected_frameworks,
)
from advisor.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("input pipeline (--pipeline)")
    g.add_argument(
        "--pipeline",
        action="store_true",
        help="time the data pipeline (random crop + flip + normalize + HWC->CHW) in DataLoader and "
        "mindspore.dataset, alone and feeding a LeNet-5 step; --repeat N sets its interleaved passes (default 3)",
    )
    g.add_argument("--loader-workers", type=int, help="loader workers (default: usable cores, at most 4)")
    g.add_argument(
        "--feed",
        metavar="SAMPLES_PER_S[xN]",
        help="a target's step rate per device (and device count), e.g. 2400x8: prints the share of "
        "the devices one host's pipeline keeps busy",
    )


KIND = "pipeline"  # the registry's kind (probes.base.KINDS) whose front this is (advisor/commands/probe.py)
PROBE_FLAG = "--pipeline"


def wanted(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "pipeline", False))


def refuse_unused(args: argparse.Namespace) -> None:
    if any(getattr(args, n, None) is not None for n in ("loader_workers", "feed")):
        raise UsageError("--loader-workers/--feed: input-pipeline options; add --pipeline")


def _feed(text: str | None) -> tuple[float, int] | None:
    if not text:
        return None
    rate, _, count = text.lower().partition("x")
    try:
        value, devices = float(rate), int(count or 1)
    except ValueError:
        raise UsageError(f"--feed: {text!r}: expected SAMPLES_PER_S or SAMPLES_PER_SxDEVICES, e.g. 2400x8") from None
    if not (math.isfinite(value) and value > 0) or devices < 1:  # infx2 is no rate
        raise UsageError(f"--feed: {text!r}: expected a positive rate and at least one device")
    return value, devices


def _config(args):
    from pydantic import ValidationError

    from probes.pipeline.models import PipelineConfig

    refuse_training_options(args, "--pipeline", reads=("repeat",))
    fields = {"batch_size": args.batch_size, "frameworks": selected_frameworks(args)}
    defaults = getattr(args, "_training_defaults", {})
    if "repeat" in defaults and args.repeat != defaults["repeat"]:  # the same protocol: interleaved rounds
        fields["passes"] = args.repeat
    for name, field in (("loader_workers", "workers"), ("threads", "threads"), ("data", "data")):
        if getattr(args, name, None) is not None:
            fields[field] = getattr(args, name)
    try:
        return PipelineConfig(**fields)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        flag = {"workers": "loader-workers", "passes": "repeat"}.get(
            str(err["loc"][0]), str(err["loc"][0]).replace("_", "-")
        )
        raise UsageError(f"--{flag}: {err['msg']} (got {err.get('input')!r})") from None


def run_from_args(args) -> int:
    config = _config(args)
    check_data(config.data, limit=4096)  # the same bounded readers the workers use
    feed = _feed(args.feed)
    from probes.pipeline.runner import run_suite

    with progress("pipeline", config, args) as on_event:
        suite = run_suite(config, on_event=on_event)
    emit_result("pipeline", suite, args, feed=feed)
    return 1 if any(r.status in ("failed", "timeout") for r in suite.runs) else 0
