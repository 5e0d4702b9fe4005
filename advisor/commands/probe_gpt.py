"""`advisor probe --models gpt`: the transformer probe: the same small decoder-only GPT trained in
PyTorch eager / torch.compile and MindSpore graph / PyNative with the same weights, batches and
optimizer; tokens/s with CI, MFU, parity, the attention kernels, and what variable sequence lengths
cost each mode (padded, bucketed, truly variable; compiles counted)."""

from __future__ import annotations

import argparse
import sys

from advisor.errors import UsageError

# GPT options -> GptConfig fields (the flag is named in every error)
SIZES = {"gpt_layers": "layers", "gpt_hidden": "hidden", "gpt_heads": "heads", "gpt_seq": "seq",
         "gpt_vocab": "vocab", "gpt_batch": "batch_size", "dynamic_steps": "dynamic_steps",
         "dynamic_distinct": "dynamic_distinct", "dynamic_passes": "dynamic_passes"}  # fmt: skip
FLAG = {field: "--" + name.replace("_", "-") for name, field in SIZES.items()}
FLAG.update(budget="--budget", threads="--threads", repeat="--repeat", max_repeat="--max-repeat",
            max_steps="--max-steps", dynamic_variants="--dynamic", dynamic_ways="--dynamic-ways")  # fmt: skip
GPT_ONLY = (*SIZES, "dynamic", "dynamic_ways")


def add_arguments(p: argparse.ArgumentParser) -> None:
    from probes.transformer.models import DEFAULT_VARIANTS, GptConfig  # pydantic only: the defaults' one home

    d = GptConfig()
    g = p.add_argument_group("transformer probe (--models gpt)")
    g.add_argument("--gpt-layers", type=int, help="decoder blocks (default 4)")
    g.add_argument("--gpt-hidden", type=int, help="hidden size (default 256)")
    g.add_argument("--gpt-heads", type=int, help="attention heads, dividing --gpt-hidden (default 4)")
    g.add_argument("--gpt-seq", type=int, help="maximum sequence length (default 128)")
    g.add_argument("--gpt-vocab", type=int, help="vocabulary size (default 8192)")
    g.add_argument("--gpt-batch", type=int, help="sequences per step (default 8)")
    g.add_argument(
        "--dynamic",
        metavar="VARIANTS",
        help="dynamic-shape variants to measure: all, none, or a comma list of "
        f"eager,compile,compile-dynamic,graph,graph-dynamic,pynative (default {','.join(DEFAULT_VARIANTS)})",
    )
    g.add_argument("--dynamic-ways", metavar="WAYS", help="comma list of padded,bucketed,variable (default all)")
    g.add_argument(
        "--dynamic-steps", type=int, help=f"batches in the variable-length schedule (default {d.dynamic_steps})"
    )
    g.add_argument("--dynamic-distinct", type=int, help=f"distinct lengths in it (default {d.dynamic_distinct})")
    g.add_argument(
        "--dynamic-passes", type=int, help=f"passes over the schedule; the last is steady (default {d.dynamic_passes})"
    )


KIND = "gpt"  # the registry's kind (probes.base.KINDS) whose front this is (advisor/commands/probe.py)
PROBE_FLAG = "--models gpt"


def wanted(args: argparse.Namespace) -> bool:
    return "gpt" in [m.strip().lower() for m in (getattr(args, "models", None) or "").split(",")]


def refuse_without_gpt(args: argparse.Namespace) -> None:
    """A GPT option without --models gpt is refused, not silently ignored."""
    for name in GPT_ONLY:
        if getattr(args, name, None) is not None:
            flag = "--" + name.replace("_", "-")
            raise UsageError(f"{flag}: a transformer-probe option; add --models gpt")


refuse_unused = refuse_without_gpt  # the probe command's name for it (advisor/commands/probe.py front)


def _items(value: str, allowed, flag: str) -> list[str]:
    items = [v.strip().lower() for v in value.split(",") if v.strip()]
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise UsageError(
            f"{flag}: unknown {', '.join(bad) or 'empty list'}; expected a comma list of {','.join(allowed)}"
        )
    return list(dict.fromkeys(items))


# GPT_QUICK's fields -> the option that sets each; a field with no option of its own is always the profile's
QUICK_FLAGS = {"modes": "modes", "budget": "budget", "repeat": "repeat", "max_repeat": "max_repeat",
               "dynamic_variants": "dynamic", "dynamic_ways": "dynamic_ways", "dynamic_steps": "dynamic_steps",
               "dynamic_distinct": "dynamic_distinct", "dynamic_passes": "dynamic_passes"}  # fmt: skip


def quick_fields(args) -> dict:
    """--quick --models gpt: GPT_QUICK's value of every field whose option was not given (a flag wins)."""
    from probes.transformer.models import GPT_QUICK

    from advisor.commands.probe import at_default

    out = {}
    for field, value in GPT_QUICK.items():
        name = QUICK_FLAGS.get(field)
        shared = name in getattr(args, "_quick_defaults", {})
        if name is None or (at_default(args, name) if shared else getattr(args, name, None) is None):
            out[field] = value
    if out.get("max_repeat") is not None and "repeat" not in out:
        out["max_repeat"] = max(out["max_repeat"], args.repeat)  # --repeat 3 --quick: three rounds
    return out


def build_config(args):
    from pydantic import ValidationError

    from probes.transformer.models import VARIANTS, WAYS, GptConfig

    from advisor.commands.probe_common import MODES, comma_list, selected_frameworks

    models = [m.strip().lower() for m in (args.models or "").split(",") if m.strip()]
    if models != ["gpt"]:
        raise UsageError("--models: gpt runs alone (advisor probe --models gpt); the CNN models go in a separate run")
    for name, default, why in (
        (
            "batch_size",
            32,
            "--batch-size: images per step of the CNN probe; the GPT's sequences per step are --gpt-batch",
        ),
        ("data", None, "--data: the GPT trains on its own seeded token batches"),
        ("device", "auto", "--device: the GPT probe runs on the CPU only for now"),
    ):
        if getattr(args, name, default) not in (default, "cpu" if name == "device" else default):
            raise UsageError(why)
    frameworks = selected_frameworks(args)
    if not frameworks:
        raise UsageError(f"--frameworks: neither PyTorch nor MindSpore is installed for {sys.executable}")
    fields: dict = {
        "frameworks": frameworks,
        "modes": comma_list(args.modes, MODES, "--modes"),
        "budget": args.budget,
        "threads": args.threads,
        "repeat": args.repeat,
        "max_repeat": max(args.max_repeat or args.repeat, args.repeat),
        "parity": not getattr(args, "no_parity", False),
        "tune": not getattr(args, "no_tune", False),
        "max_steps": getattr(args, "max_steps", None),
    }
    for name, field in SIZES.items():
        if getattr(args, name, None) is not None:
            fields[field] = getattr(args, name)
    dyn = getattr(args, "dynamic", None)
    if dyn is not None and dyn.strip().lower() == "none":
        fields["dynamic"] = False
    elif dyn is not None and dyn.strip().lower() == "all":
        fields["dynamic_variants"] = list(VARIANTS)
    elif dyn is not None:
        fields["dynamic_variants"] = _items(dyn, tuple(VARIANTS), "--dynamic")
    if getattr(args, "dynamic_ways", None):
        fields["dynamic_ways"] = _items(args.dynamic_ways, WAYS, "--dynamic-ways")
    if getattr(args, "quick", False):
        fields.update(quick_fields(args))
    try:
        config = GptConfig(**fields)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        field = str(err["loc"][0]) if err.get("loc") else ""
        flag = FLAG.get(field, "--gpt-hidden/--gpt-heads" if not field else "--" + field.replace("_", "-"))
        msg = err["msg"].removeprefix("Value error, ")
        raise UsageError(f"{flag}: {msg}" + (f" (got {err.get('input')!r})" if field else "")) from None
    from probes.transformer import memory
    from probes.transformer.runner import shape

    too_big = memory.refusal(shape(config), config.batch_size)
    if too_big:  # refused before any child starts or any weight is made
        raise UsageError(f"--gpt-layers/--gpt-hidden/--gpt-seq/--gpt-vocab/--gpt-batch: {too_big}")
    return config


def run_from_args(args) -> int:
    from advisor.commands.probe_common import compile_cache, emit_result, progress
    from advisor.output import check_output

    check_output(getattr(args, "output", None))
    from probes.transformer.runner import run

    no_cache = getattr(args, "no_cache", False)
    with compile_cache(build_config(args), no_cache) as config, progress("gpt", config, args) as on_event:
        result = run(config, on_event=on_event)
    emit_result("gpt", result, args)
    bad = [r for r in result.runs if r.status in ("failed", "timeout")]
    bad += [d for d in result.dynamic if d.status in ("failed", "timeout")]
    return 1 if bad or (result.parity is not None and result.parity.status == "failed") else 0
