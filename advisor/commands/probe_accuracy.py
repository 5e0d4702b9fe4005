"""`advisor probe --accuracy`: time-to-accuracy on real data (scikit-learn's digits, or --data) in
PyTorch and MindSpore, the cross-framework accuracy gap over seeds, and the Normalize trap live."""

from __future__ import annotations

import argparse
import sys

from advisor.commands.probe import check_data, emit_result
from advisor.errors import UsageError

# Training-probe options this probe does not read: refused rather than silently ignored.
NOT_USED = ("budget", "repeat", "no_parity", "no_tune", "max_steps", "device")


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


def selected_frameworks(args) -> list[str]:
    """--frameworks, else every installed one (shared with --pipeline)."""
    from advisor.commands.probe import FRAMEWORKS, _list

    if args.frameworks:
        return _list(args.frameworks, FRAMEWORKS, "--frameworks")
    from probes.hostfacts import installed_frameworks

    return [fw for fw, info in installed_frameworks().items() if info["installed"]]


def refuse_training_options(args, probe: str) -> None:
    """Training-probe options `probe` does not read are refused, not silently ignored."""
    defaults = getattr(args, "_training_defaults", {})
    for name in NOT_USED:
        if name in defaults and getattr(args, name, None) != defaults[name]:
            raise UsageError(f"--{name.replace('_', '-')}: a training-probe option; {probe} does not use it")


def _config(args):
    from pydantic import ValidationError

    from probes.accuracy.models import AccuracyConfig

    from advisor.commands.probe import _list

    fields = {"frameworks": selected_frameworks(args)}
    defaults = getattr(args, "_training_defaults", {})
    if args.modes != defaults.get("modes"):
        fields["modes"] = _list(args.modes, ("eager", "compile", "graph", "pynative"), "--modes")
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


def refuse_unused(args) -> None:
    refuse_training_options(args, "--accuracy")
    for name in ("epochs", "seeds", "target"):
        if not getattr(args, "accuracy", False) and getattr(args, name, None) is not None:
            raise UsageError(f"--{name}: an accuracy-probe option; add --accuracy")


def run_normalize_check(timeout: float = 300) -> dict:
    import tempfile
    from pathlib import Path

    from probes import launcher
    from probes.accuracy import data

    with tempfile.TemporaryDirectory(prefix="advisor-normalize-") as tmp:
        npz = Path(tmp) / "u8.npz"
        data.prepare_uint8(npz)
        out = launcher.run_child(["-m", "probes.accuracy.worker_normalize", "--npz", str(npz)], timeout=timeout)
    if not out.ok:
        return {"status": out.status, "error": out.error}
    res = dict(out.result)
    res.pop("kind", None)
    return res


def run_from_args(args) -> int:
    refuse_unused(args)
    config = _config(args)
    from advisor.extras import require

    require("accuracy")  # scikit-learn (the digits, the split): say which extra before any work
    check_data(config.data, limit=4000)  # the same bounded readers the workers use
    from probes.accuracy.runner import run_suite

    def progress(run_id: str, msg: dict) -> None:
        if msg.get("kind") == "progress" and "epoch" in msg:
            print(
                f"advisor: {run_id} epoch {msg['epoch']}/{msg['epochs']}: accuracy {msg['accuracy']:.1%}",
                file=sys.stderr,
            )
        elif msg.get("kind") == "done":
            run = msg["run"]
            print(f"advisor: {run_id}: {run.status}" + (f" ({run.error})" if run.error else ""), file=sys.stderr)

    suite = run_suite(config, on_event=None if args.json else progress)
    if "mindspore" in config.frameworks:
        suite.normalize_check = run_normalize_check()
    emit_result("accuracy", suite, args)
    return 1 if any(r.status in ("failed", "timeout") for r in suite.runs) else 0
