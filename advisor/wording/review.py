"""The review layer's words (advisor.review): the review document's first page, sign-off and
evidence notes, the risk register, the stack to install and the sensitivity over the knowledge base's
own figures, keyed by code like the decision model's findings and merged into the one catalogue
(advisor.wording.catalogue). Scores, totals and margins arrive already rounded by the review's one
rounding helper (advisor.review.document.points, pct), so every format reads the same figure; other
numbers are formatted here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Entry = Callable[[Any], str]


# --- the sensitivity over the knowledge base's figures (advisor.review.kb_sensitivity) -----------

_KB_UNITS = {
    "score": "/5",
    "usd": " USD",
    "images_per_second": " img/s",
    "mfu": " MFU (middle of its range)",
    "tokens_per_second_per_device": " tokens/s per device",
}

KB_SENSITIVITY: dict[str, Entry] = {
    "kbsens.ranges": lambda p: (
        f"ratings +-{p.rating:g} point (0-5), prices +-{p.price:.0%}, throughput and MFU references +-{p.reference:.0%}"
    ),
    # a figure by its reader's name (the first page) or by its knowledge-base id and field
    "kbsens.move": lambda p: (
        f"{p.name or f'{p.entry} {p.field}'} {p.before:g}{_KB_UNITS.get(p.field, '')} -> "
        f"{p.after:g}{_KB_UNITS.get(p.field, '')}"
    ),
    "kbsens.name.rating": lambda p: (
        f"the {p.framework} {p.aspect} rating" + (f" (as of {p.dated:%Y-%m})" if p.dated else "")
    ),
    "kbsens.name.price": lambda p: f"the {p.accelerator} price per device-hour" + (f" ({p.where})" if p.where else ""),
    "kbsens.name.mfu_reference": lambda p: f"the {p.system} {p.model} MFU reference on {p.devices} x {p.accelerator}",
    "kbsens.name.reference": lambda p: f"the {p.framework} {p.model} reference on {p.devices} x {p.accelerator}",
}


# --- the risk register (advisor.review.risks) ----------------------------------------------------

RISKS: dict[str, Entry] = {
    "risks.default_owner": lambda p: "ML engineer",
    "risks.minimum_slice": lambda p: f"minimum slice ({p.least} devices)",
    "risks.why.always": lambda p: "applies to every project on this workflow",
    "risks.why.accuracy": lambda p: f"measured by the accuracy probe ({p.data}): {p.line}",
    "risks.why.transformer": lambda p: f"measured by the transformer probe ({p.model}, on {p.host}): {p.line}",
    "risks.why.pipeline": lambda p: f"measured by the pipeline probe: {p.detail}",
    "risks.scan.found": lambda p: f"`advisor scan` found {p.count} place(s) ({p.kind}) in {p.path or 'the code'}",
    "risks.scan.fix": lambda p: "see `advisor scan` for each place",
}


REVIEW_CATALOGUE: dict[str, Entry] = {
    **KB_SENSITIVITY,
    **RISKS,
}
