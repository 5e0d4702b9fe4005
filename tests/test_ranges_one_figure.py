"""A power or cost range whose two ends read the same prints one figure ("6,500 W", not "6,500-6,500 W"):
the catalogue writes those ranges through one helper (advisor.wording.catalogue._span)."""

from __future__ import annotations

import re

import pytest

from advisor.decision.findings import said

# a figure, a dash and the same figure again ("6,500-6,500", "$4-4", "0-0")
EQUAL_ENDS = re.compile(r"(?<![\w.,-])\$?([\d][\d.,]*)-\$?\1(?![\d.,]*\d)")
# two different figures joined by a dash
A_RANGE = re.compile(r"\d-\$?\d")

CASES = {
    "tco.power.servers": dict(
        servers=1, server_devices=8, accelerator="A100", watts_low=6500, watts_high=6500, source="s", kw_low=6.5
    ),
    "tco.power.cards": dict(
        devices=8,
        accelerator="Ascend 910C",
        watts_low=750,
        server=1.8,
        server_source="s",
        kw_low=10.8,
        redundancy=0.2,
        redundancy_source="r",
        cards_low=7.2,
    ),
    "power.cards": dict(accelerator="Ascend 910C", low=750, factor=1.8, source="s"),
    "proj.evidence.price": dict(accelerator="H100", low=2.995, as_of="2026-05-20"),
    "proj.evidence.power": dict(basis="b", low_kw=13.0),
    "tco.evidence.pue": dict(low=1.2),
    "tco.evidence.electricity": dict(low=0.12, as_of="2026-01-01"),
    "tco.energy": dict(low=518.4, owned=True),
    "tco.evidence.engineer_day": dict(low=500, as_of="2026-01-01"),
    "tco.evidence.migration": dict(low=0),
    "tco.engineering": dict(low=0, per_day=8, scanned=False, excluded=""),
    "tco.compute.owned": dict(devices=8, accelerator="H100", low=30000, years=3, why="w", per_hour_low=1.14),
}


def _ends(params: dict, scale: float) -> dict:
    """Each range's high end at `scale` x its low end (the low ends are the keys naming `low`)."""
    out = dict(params)
    for key, value in params.items():
        if "low" in key.split("_"):
            out[key.replace("low", "high")] = value * scale if value else scale - 1
    return out


@pytest.mark.parametrize("code", sorted(CASES))
def test_an_equal_ended_power_or_cost_range_prints_one_figure(code):
    text = said(code, **_ends(CASES[code], 1))
    assert not EQUAL_ENDS.search(text), text
    # the same text with the ends apart prints the range
    assert A_RANGE.search(said(code, **_ends(CASES[code], 2))), code


def test_the_pattern_finds_what_it_looks_for():
    assert EQUAL_ENDS.search("at 6,500-6,500 W") and EQUAL_ENDS.search("costs $4-4 per") and EQUAL_ENDS.search("0-0 h")
    assert not EQUAL_ENDS.search("310-400 W") and not EQUAL_ENDS.search("1-10 h") and not EQUAL_ENDS.search("6.5-6.55")


def _report(relative: str):
    """The report of a requirements file of this checkout, with no measurements."""
    from pathlib import Path

    from advisor.measurements import Measurements
    from advisor.report import build_report
    from advisor.requirements import load_requirements
    from tests.document_examples import kb

    root = Path(__file__).resolve().parents[1]
    return build_report(load_requirements(root / relative), Measurements(), kb=kb(), created_at="2026-12-01T00:00:00Z")


def test_a_budget_from_one_datasheet_figure_reads_one_figure():
    # the DGX A100's one datasheet power (6,500 W): the example's budget line prints it once
    report = _report("examples/nvidia-research-team.yaml")
    lines = [n for c in report.costs for n in c.notes if n.startswith("power budget")]
    assert lines and all("datasheet power 6,500 W (" in n for n in lines), lines


def test_the_plans_migration_phase_prints_no_equal_ended_hours():
    # a team whose code needs no migration: the document's plan said "0-0 h of work"
    from advisor.render import format as render_format
    from tests.document_examples import kb

    md = render_format(_report("tests/fixtures/report/cpu-team.yaml"), "markdown", kb=kb())
    phase = [line for line in md.splitlines() if "h of work for" in line]
    assert phase and not any(EQUAL_ENDS.search(line) for line in phase), phase
