"""Command-line face of the deployment probe: `advisor probe --deploy [--models lenet,resnet18]
[--frameworks ...] [--batch-sizes 1,32] [--budget S]`.

Hooks for advisor/commands/probe.py: `add_arguments(p)` in register() adds only --deploy and
--batch-sizes (the rest are the probe's own options); `config_from_args(args)` raises
DeployUsageError (the command turns it into its usage error); `render_table(result)` is the text.
"""

from __future__ import annotations

import sys
import textwrap
from typing import Optional

from probes.deploy.models import DeployConfig, DeployEvent, DeployResult

FRAMEWORKS = ("pytorch", "mindspore")
MODELS = ("lenet", "resnet18", "resnet50")
ALIASES = {
    "torch": "pytorch",
    "ms": "mindspore",
    "lenet5": "lenet",
    "lenet-5": "lenet",
    "resnet-18": "resnet18",
    "resnet-50": "resnet50",
}
MAX_BATCH = 4096
# Training-probe options the deployment probe has no use for: refused rather than ignored.
TRAINING_ONLY = ("modes", "data", "no_parity", "max_steps")


class DeployUsageError(ValueError):
    """A bad option; the message names the flag and what is expected."""


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


def _list(value: Optional[str], allowed: tuple, flag: str) -> list[str]:
    items = [ALIASES.get(v.strip().lower(), v.strip().lower()) for v in (value or "").split(",") if v.strip()]
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise DeployUsageError(
            f"{flag}: {'unknown ' + ', '.join(bad) if bad else 'empty'}; expected a comma list of {','.join(allowed)}"
        )
    return list(dict.fromkeys(items))


def parse_batch_sizes(value: Optional[str]) -> list[int]:
    if value is None:
        return [1, 32]
    try:
        sizes = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        sizes = []
    if not sizes or any(not 1 <= b <= MAX_BATCH for b in sizes):
        raise DeployUsageError(f"--batch-sizes: expected a comma list of integers 1 to {MAX_BATCH}, e.g. 1,32")
    return sorted(set(sizes))


def config_from_args(args) -> DeployConfig:
    if getattr(args, "scaling", False):
        raise DeployUsageError("--deploy: cannot be combined with --scaling (run them one at a time)")
    defaults = getattr(args, "_training_defaults", {})
    for name in TRAINING_ONLY:
        if name in defaults and getattr(args, name, defaults[name]) != defaults[name]:
            flag = "--" + name.replace("_", "-")
            raise DeployUsageError(f"{flag}: a training-probe option; the deployment probe (--deploy) does not use it")
    from probes.training.models import ProbeConfig

    if getattr(args, "repeat", None) not in (None, ProbeConfig.model_fields["repeat"].default):
        raise DeployUsageError(
            "--repeat: the deployment probe runs each step once (its stop rule sizes the "
            "measurement); leave --repeat out"
        )
    if getattr(args, "device", "auto") not in ("auto", "cpu"):
        raise DeployUsageError(
            "--device: the deployment probe serves on every engine and execution provider it finds; leave --device out"
        )
    if args.frameworks:
        frameworks = _list(args.frameworks, FRAMEWORKS, "--frameworks")
    else:
        from probes.training.runner import installed_frameworks

        frameworks = [fw for fw, info in installed_frameworks().items() if info["installed"]]
        if not frameworks:
            raise DeployUsageError("--frameworks: neither PyTorch nor MindSpore is installed for " + sys.executable)
    models = _list(args.models, MODELS, "--models")
    budget = args.budget
    if budget == defaults.get("budget"):  # the training default: the deploy default applies
        budget = DeployConfig.model_fields["budget"].default
    if not 0 < budget <= 3600:
        raise DeployUsageError("--budget: expected seconds per batch size per serve step, more than 0 and at most 3600")
    if args.threads is not None and args.threads < 1:
        raise DeployUsageError("--threads: expected a positive integer")
    return DeployConfig(
        frameworks=frameworks,
        models=models,
        batch_sizes=parse_batch_sizes(args.batch_sizes),
        budget=budget,
        threads=args.threads,
        tune=not getattr(args, "no_tune", False),
    )


class Progress:
    """One line per step on stderr."""

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stderr

    def __call__(self, ev: DeployEvent) -> None:
        if ev.kind == "start":
            self.stream.write(f"[{ev.index}] {ev.message} ...\n")
        else:
            self.stream.write(
                f"[{ev.index}] {ev.step_id}: {ev.status}" + (f" ({ev.message})" if ev.status != "ok" else "") + "\n"
            )
        self.stream.flush()


def _f(v, spec: str = ".2f") -> str:
    return "-" if v is None else format(v, spec)


def render_table(result: DeployResult, width: int = 100) -> str:
    from tabulate import tabulate

    h = result.host
    sizes = ",".join(str(b) for b in result.config.batch_sizes) if result.config else "?"
    lines = [
        textwrap.fill(
            f"Deployment probe on {h.get('cpu_model') or 'this host'} ({h.get('logical_cores')} "
            f"CPUs), {result.seconds or 0:.0f} s; fp32, canonical weights, batch sizes {sizes}",
            width,
        ),
        "",
    ]
    rows = [
        [
            e.id,
            e.status,
            e.exporter or "-",
            _f(e.opset, "d") if e.opset else "-",
            _f(e.seconds),
            _f(e.size_bytes / 1e6 if e.size_bytes else None),
            {True: "yes", False: "no"}.get(e.dynamic_batch, "-"),
            (e.error or "")[:90],
        ]
        for e in result.exports
    ]
    lines += [
        tabulate(
            rows,
            ["export", "status", "exporter", "opset", "s", "MB", "dyn batch", "error"],
            tablefmt="simple",
            disable_numparse=True,
        ),
        "",
    ]
    big = max(result.config.batch_sizes) if result.config else None
    rows = []
    for s in result.serves:
        lat = s.latency_ms or {}
        where = s.placement
        place = (
            "-"
            if not where
            else (
                f"{where['nodes']} on {where['chosen'].replace('ExecutionProvider', '')}"
                + (f", {len(where['fallback'])} elsewhere" if where["fallback"] else "")
            )
        )
        rows.append(
            [
                s.id,
                s.status,
                _f(s.first_inference_seconds),
                _f(lat.get("p50"), ".3f"),
                _f(lat.get("p95"), ".3f"),
                _f(lat.get("p99"), ".3f"),
                _f(s.throughput, ".0f"),
                _f(s.peak_memory_mb, ".0f"),
                place,
                (s.error or "")[:80],
            ]
        )
    small = min(result.config.batch_sizes) if result.config else "?"
    lines += [
        tabulate(
            rows,
            [
                "serve",
                "status",
                "first s",
                f"p50 ms@{small}",
                "p95",
                "p99",
                f"img/s@{big}",
                "peak MB",
                "placement",
                "error",
            ],
            tablefmt="simple",
            disable_numparse=True,
        ),
        "",
    ]
    if result.parity:
        lines.append("Parity (same weights and inputs; tolerance from fp32 arithmetic):")
        for p in result.parity:
            if p.status == "skipped":
                text = f"{p.id}: skipped ({p.error})"
            else:
                text = (
                    f"{p.id}: {'pass' if p.ok else 'FAIL'} max abs {_f(p.max_abs_diff, '.2e')}, "
                    f"rel {_f(p.max_rel_diff, '.2e')} (tolerance {_f(p.tolerance, '.2e')})"
                )
            lines.append(textwrap.fill(text, width, initial_indent="  ", subsequent_indent="    "))
    notes = [f"not measured: {n}" for n in result.not_measured] + list(result.warnings)
    for s in result.serves:  # one note per step: the noise warnings repeat per batch size
        if s.warnings:
            notes.append(f"{s.id}: " + "; ".join(s.warnings))
    for e in result.exports:
        notes += [f"{e.id}: {n}" for n in e.notes]
    if notes:
        lines.append("Notes:")
        lines += [textwrap.fill(n, width, initial_indent="  - ", subsequent_indent="    ") for n in notes]
    return "\n".join(lines) + "\n"


def exit_code(result: DeployResult) -> int:
    """1 when a step failed or timed out or a parity check failed (as the training probe), else 0."""
    bad = [s for s in [*result.exports, *result.serves] if s.status in ("failed", "timeout")]
    return 1 if bad or any(p.status == "failed" for p in result.parity) else 0
