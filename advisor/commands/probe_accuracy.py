"""`advisor probe --accuracy`: time-to-accuracy on real data (scikit-learn's digits, or --data) in
PyTorch and MindSpore, the cross-framework accuracy gap over seeds, and the Normalize trap live."""

from __future__ import annotations

import argparse

from advisor.commands.probe_common import (
    MODES,
    check_data,
    comma_list,
    emit_result,
    progress,
    refuse_training_options,
    selected_frameworks,
)
from advisor.errors import UsageError
from advisor.sanitize import one_line


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("time-to-accuracy (--accuracy)")
    g.add_argument(
        "--accuracy",
        action="store_true",
        help="train LeNet-5 to a target test accuracy on real data (sklearn digits, or --data) in "
        "both frameworks, interleaved over seeds; default modes eager,graph",
    )
    g.add_argument("--epochs", type=int, help="epochs per run (default 8)")
    g.add_argument("--seeds", type=int, help="data orders, interleaved (default 3)")
    g.add_argument("--target", type=float, help="test accuracy to reach, 0-1 (default 0.95)")


def _config(args):
    from pydantic import ValidationError

    from probes.accuracy.models import AccuracyConfig

    fields = {"frameworks": selected_frameworks(args)}
    defaults = getattr(args, "_training_defaults", {})
    if args.modes != defaults.get("modes"):
        fields["modes"] = comma_list(args.modes, MODES, "--modes")
    if args.models not in (None, "lenet,resnet18", "lenet"):
        raise UsageError("--models: the accuracy probe trains LeNet-5 only (it fits the 32x32 digits)")
    for flag in ("epochs", "seeds", "target", "threads", "data"):
        if getattr(args, flag, None) is not None:
            fields[flag] = getattr(args, flag)
    if args.batch_size != 32:
        fields["batch_size"] = args.batch_size
    try:
        return AccuracyConfig(**fields)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        raise UsageError(f"--{str(err['loc'][0]).replace('_', '-')}: {err['msg']} (got {err.get('input')!r})") from None


KIND = "accuracy"  # the registry's kind (probes.base.KINDS) whose front this is (advisor/commands/probe.py)
PROBE_FLAG = "--accuracy"


def wanted(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "accuracy", False))


def refuse_unused(args: argparse.Namespace) -> None:
    """An accuracy option without --accuracy: one line, not a training probe that ignores it."""
    for name in ("epochs", "seeds", "target"):
        if not getattr(args, "accuracy", False) and getattr(args, name, None) is not None:
            raise UsageError(f"--{name}: an accuracy-probe option; add --accuracy")


def run_from_args(args: argparse.Namespace) -> int:
    refuse_training_options(args, "--accuracy")
    config = _config(args)
    from advisor.extras import require

    require("accuracy")  # scikit-learn (the digits, the split): say which extra before any work
    check_data(config.data, limit=4000)  # the same bounded readers the workers use
    if config.data:  # enough records and classes for the split, checked here rather than inside scikit-learn
        from probes.accuracy.data import check_user_data
        from probes.training.data import DataError

        try:
            check_user_data(config.data, limit=4000)
        except DataError as exc:
            raise UsageError(f"--data: {one_line(str(exc))}") from None
    from probes.accuracy.runner import run  # the suite, then the Normalize check with MindSpore chosen

    with progress("accuracy", config, args) as on_event:
        suite = run(config, on_event=on_event)
    emit_result("accuracy", suite, args)
    return 1 if any(r.status in ("failed", "timeout") for r in suite.runs) else 0
