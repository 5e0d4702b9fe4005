"""Checks of a requirements file against the knowledge base: the one path the CLI and the TUI share.

`advisor.requirements` checks a file on its own (types, ranges, unknown keys); what needs the
knowledge base (is the accelerator known, does it match the training target, can it train at all)
lives here, so `advisor report` and the TUI's Requirements form accept and reject the same files.
"""

from __future__ import annotations

import os
from typing import Any, Optional

from pydantic import ValidationError

from advisor.decision.workflows import VENDOR_OF_TARGET, training_capable
from advisor.errors import UsageError
from advisor.requirements import Requirements, field_problems, read_requirements
from advisor.sanitize import one_line
from knowledge.models import Accelerator, KnowledgeBase

_KIND = {"nvidia": "an NVIDIA", "huawei": "a Huawei Ascend", "generic": "a CPU"}


def kb_problems(req: Requirements, kb: Optional[KnowledgeBase]) -> list[str]:
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
            pass  # an inference-only product trains nothing: an inference chip is a fine place to serve
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


def _target_mismatch(req: Requirements, acc: Accelerator, kb: KnowledgeBase) -> list[str]:
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


def _unknown_accelerators(data: dict[str, Any], kb: KnowledgeBase) -> list[str]:
    """The knowledge-base check a file that fails validation can still get: are the accelerators it
    names known? (The rest needs a valid file: target kinds, inference parts.)"""
    hw = data.get("hardware")
    if not isinstance(hw, dict):
        return []
    known = ", ".join(sorted(a.id for a in kb.accelerators))
    out = []
    name = hw.get("accelerator")
    if isinstance(name, str) and name and kb.find_accelerator(name) is None:
        out.append(f"hardware.accelerator: {name!r} is not in the knowledge base: expected one of {known}")
    fleets = hw.get("accelerators")
    for i, fleet in enumerate(fleets if isinstance(fleets, list) else []):
        kind = fleet.get("kind") if isinstance(fleet, dict) else None
        if isinstance(kind, str) and kind and kb.find_accelerator(kind) is None:
            out.append(
                f"hardware.accelerators[{i}].kind: {kind!r} is not in the knowledge base: expected one of {known}"
            )
    return out


def requirements_problems(data: Any, kb: Optional[KnowledgeBase]) -> tuple[Optional[Requirements], list[str]]:
    """Every problem of a parsed requirements file, each 'field: what is expected', and the model when
    there are none: the fields pydantic refuses (all of them, not the first), the range table's
    (advisor.limits) and what the knowledge base reveals (an unknown or wrong-kind accelerator). A
    field is named once: the first check that refuses it says why."""
    from advisor.limits import problems as range_problems

    if data is None:
        return None, ["the file is empty: expected a YAML mapping with name, hardware, deployment, ..."]
    if not isinstance(data, dict):
        return None, [f"(top level): expected a YAML mapping of fields (got {type(data).__name__})"]
    found: list[tuple[str, str]] = []
    req: Optional[Requirements] = None
    try:
        req = Requirements.model_validate(data)
    except ValidationError as exc:
        found.extend(field_problems(exc))
    named = {f for f, _ in found}
    found.extend(
        (f, what) for f, what in range_problems(req.model_dump(mode="python") if req else data) if f not in named
    )
    if kb is not None:
        lines = kb_problems(req, kb) if req is not None and not found else _unknown_accelerators(data, kb)
        named = {f for f, _ in found}
        for line in lines:
            f, _, what = line.partition(": ")
            if f not in named:
                found.append((f, what))
    problems = [one_line(f"{f}: {what}") for f, what in found]
    return (req if not problems else None), problems


def load_checked(path: str | os.PathLike, kb: Optional[KnowledgeBase]) -> Requirements:
    """A requirements file read and checked in full (`advisor report`): every bad field, the knowledge
    base's findings included, on the one error line ('FILE: field: what is expected; field: ...', as
    advisor.requirements.validation_message lists pydantic's), as one UsageError (exit 2); nothing is written."""
    from advisor.requirements import MAX_LISTED_PROBLEMS

    name = str(path)
    req, problems = requirements_problems(read_requirements(path), kb)
    if problems:
        more = len(problems) - MAX_LISTED_PROBLEMS
        tail = f" (and {more} more problems)" if more > 0 else ""
        raise UsageError(f"{name}: " + "; ".join(problems[:MAX_LISTED_PROBLEMS]) + tail)
    assert req is not None
    return req
