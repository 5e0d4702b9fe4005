"""`advisor probe --deploy [--models lenet,resnet18] [--frameworks ...] [--batch-sizes 1,32] [--budget S]`:
the deployment probe (probes/deploy gathers; its table is advisor/render/tables/deploy.py).

Hooks for advisor/commands/probe.py: `add_arguments(p)` in register() adds only --deploy and
--batch-sizes (the rest are the probe's own options); `run_from_args(args)` when --deploy is given.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Optional

from advisor.commands.probe_common import FRAMEWORKS, MAX_BATCH, MODELS, comma_list, emit_result, progress
from advisor.errors import UsageError

if TYPE_CHECKING:  # the pydantic models load when the probe runs, not when the parser is built
    from probes.deploy.models import DeployConfig, DeployResult

# Training-probe options the deployment probe has no use for: refused rather than ignored.
NOT_USED = ("modes", "data", "no_parity", "max_steps")


def add_arguments(parser) -> None:
    parser.add_argument(
        "--deploy",
        action="store_true",
        help="deployment probe: export (ONNX, torch.export, MindIR), serve and time each "
        "artefact (ONNX Runtime, GraphCell, source framework), parity, operator placement",
    )
    parser.add_argument(
        "--batch-sizes",
        metavar="LIST",
        help="deploy: comma list; latency at the smallest, throughput at the largest (default 1,32)",
    )


KIND = "deploy"  # the registry's kind (probes.base.KINDS) whose front this is (advisor/commands/probe.py)
HELP_AFTER = "pipeline"  # its flags follow the input-pipeline probe's in `advisor probe --help`
PROBE_FLAG = "--deploy"


def wanted(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "deploy", False))


def refuse_unused(args: argparse.Namespace) -> None:
    if getattr(args, "batch_sizes", None) is not None:
        raise UsageError("--batch-sizes: a deployment-probe option; add --deploy (advisor probe --deploy ...)")


def parse_batch_sizes(value: Optional[str]) -> list[int]:
    if value is None:
        return [1, 32]
    try:
        sizes = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        sizes = []
    if not sizes or any(not 1 <= b <= MAX_BATCH for b in sizes):
        raise UsageError(f"--batch-sizes: expected a comma list of integers 1 to {MAX_BATCH}, e.g. 1,32")
    return sorted(set(sizes))


def config_from_args(args: argparse.Namespace) -> DeployConfig:
    from probes.deploy.models import DeployConfig

    if getattr(args, "scaling", False):
        raise UsageError("--deploy: cannot be combined with --scaling (run them one at a time)")
    defaults = getattr(args, "_training_defaults", {})
    for name in NOT_USED:
        if name in defaults and getattr(args, name, defaults[name]) != defaults[name]:
            flag = "--" + name.replace("_", "-")
            raise UsageError(f"{flag}: a training-probe option; the deployment probe (--deploy) does not use it")
    from probes.training.models import ProbeConfig

    if getattr(args, "repeat", None) not in (None, ProbeConfig.model_fields["repeat"].default):
        raise UsageError(
            "--repeat: the deployment probe runs each step once (its stop rule sizes the "
            "measurement); leave --repeat out"
        )
    if getattr(args, "device", "auto") not in ("auto", "cpu"):
        raise UsageError(
            "--device: the deployment probe serves on every engine and execution provider it finds; leave --device out"
        )
    if args.frameworks is not None:  # --frameworks "" is refused as empty, not "every installed one"
        frameworks = comma_list(args.frameworks, FRAMEWORKS, "--frameworks")
    else:
        from probes.training.runner import installed_frameworks

        frameworks = [fw for fw, info in installed_frameworks().items() if info["installed"]]
        if not frameworks:
            raise UsageError("--frameworks: neither PyTorch nor MindSpore is installed for " + sys.executable)
    models = comma_list(args.models, MODELS, "--models")
    budget = args.budget
    if budget == defaults.get("budget"):  # the training default: the deploy default applies
        budget = DeployConfig.model_fields["budget"].default
    if not 0 < budget <= 3600:
        raise UsageError("--budget: expected seconds per batch size per serve step, more than 0 and at most 3600")
    if args.threads is not None and args.threads < 1:
        raise UsageError("--threads: expected a positive integer")
    return DeployConfig(
        frameworks=frameworks,
        models=models,
        batch_sizes=parse_batch_sizes(args.batch_sizes),
        budget=budget,
        threads=args.threads,
        tune=not getattr(args, "no_tune", False),
    )


def exit_code(result: DeployResult) -> int:
    """1 when a step failed or timed out or a parity check failed (as the training probe), else 0."""
    bad = [s for s in [*result.exports, *result.serves] if s.status in ("failed", "timeout")]
    return 1 if bad or any(p.status == "failed" for p in result.parity) else 0


def run_from_args(args) -> int:
    """The deployment probe, with the same --json / -o as the training probe."""
    from advisor import __version__
    from probes.deploy.runner import run_deploy

    config = config_from_args(args)
    with progress("deploy", config, args) as on_event:
        result = run_deploy(config, on_event=on_event)
    result.tool_version = __version__
    emit_result("deploy", result, args)
    return exit_code(result)
