"""Checks of a requirements file against the knowledge base: the one path the CLI and the TUI share.

`advisor.requirements` checks a file on its own (types, ranges, unknown keys); what needs the
knowledge base (is the accelerator known, does it match the training target, can it train at all)
lives here, so `advisor report` and the TUI's Requirements form accept and reject the same files.
"""

from __future__ import annotations

from typing import Any

from advisor.decision.workflows import VENDOR_OF_TARGET, training_capable

_KIND = {"nvidia": "an NVIDIA", "huawei": "a Huawei Ascend", "generic": "a CPU"}


def kb_problems(req: Any, kb: Any) -> list[str]:
    """Every problem of `req` that the knowledge base reveals, each 'field: what is expected'."""
    if kb is None:
        return []
    problems: list[str] = []
    inference = req.workload is not None and req.workload.kind == "inference"
    for i, fleet in enumerate(req.hardware.accelerators or []):
        acc = kb.find_accelerator(fleet.kind)
        if acc is None:
            known = ", ".join(sorted(a.id for a in kb.accelerators))
            problems.append(
                f"hardware.accelerators[{i}].kind: {fleet.kind!r} is not in the knowledge base: expected one of {known}"
            )
        elif not training_capable(acc) and not inference:
            problems.append(
                f"hardware.accelerators[{i}].kind: {fleet.kind!r} ({acc.name}) is an inference-only accelerator: "
                "expected a training accelerator, or workload.kind: inference for an inference-only product"
            )
    name = req.hardware.accelerator
    if name:
        acc = kb.find_accelerator(name)
        if acc is None:
            known = ", ".join(sorted(a.id for a in kb.accelerators))
            problems.append(f"hardware.accelerator: {name!r} is not in the knowledge base: expected one of {known}")
        elif not training_capable(acc) and inference:
            pass  # an inference-only product serves on it (issue 25, part 5)
        elif not training_capable(acc):
            # An inference chip cannot be the training hardware (seed "Chips and framework released
            # together" §2.1: training and inference chips are designed apart); deployment targets are
            # judged on their own.
            fits = ", ".join(sorted(a.id for a in kb.accelerators if a.vendor == acc.vendor and training_capable(a)))
            problems.append(
                f"hardware.accelerator: {name!r} ({acc.name}) is an inference-only accelerator: "
                f"expected a training accelerator ({fits}); put inference chips under deployment.targets, "
                "or set workload.kind: inference for an inference-only product"
            )
        else:
            problems.extend(_target_mismatch(req, acc, kb))
    return problems


def _target_mismatch(req: Any, acc: Any, kb: Any) -> list[str]:
    # A named accelerator of another kind than the training target would be silently replaced by an
    # assumed one in the projections: the file contradicts itself, so say which two fields disagree.
    target = req.hardware.training_target
    vendor = VENDOR_OF_TARGET.get(target)
    if vendor is None or acc.vendor == vendor:
        return []
    fits = ", ".join(sorted(a.id for a in kb.accelerators if a.vendor == vendor and training_capable(a)))
    kind = _KIND.get(acc.vendor, f"a {acc.vendor}")
    return [
        f"hardware.accelerator: {req.hardware.accelerator!r} is {kind} accelerator but "
        f"hardware.training_target is {target}: expected one of {fits} (or change training_target)"
    ]
