"""Two readings a reviewer of the LLM document tripped over: the serving verdict's instance shape beside the
fleet's (the fewest devices that meet the load can be a different shape from the one the team's fleet runs),
and the memory table's model-states count beside the per-device columns' route formula (Megatron's
distributed optimizer counts 18 bytes/parameter unsharded where the states column counts 16). Bundled
knowledge base; the 14B continued-pretraining fixture on 64 x 910B."""

from __future__ import annotations

from pathlib import Path

import pytest

import knowledge
from advisor.measurements import Measurements
from advisor.render import format as render
from advisor.report import build_report
from advisor.requirements import load_requirements

ROOT = Path(__file__).resolve().parents[1]
LLM = ROOT / "tests" / "fixtures" / "report" / "llm-14b-cpt-910b.yaml"


@pytest.fixture(scope="module")
def report():
    return build_report(load_requirements(LLM), Measurements(), kb=knowledge.load(), created_at="2026-12-01T00:00:00Z")


def test_the_serving_verdict_names_the_fleet_shape_when_it_differs_from_the_fewest(report):
    p = next(p for p in report.projections if p.workflow == report.recommendation.workflow)
    cap = p.serving.capacity
    md = render(report, "markdown")
    assert f"{cap.instances} x {cap.instance_devices}" in md  # the fleet's shape in the table
    verdict = next(line for line in md.splitlines() if "are the fewest that meet it" in line)
    assert f"the team's 64 run as {cap.instances} instance(s) of {cap.instance_devices}" in verdict


def test_the_memory_table_says_which_count_each_column_is(report):
    md = render(report, "markdown")
    fit = report.memory[0]
    assert fit.formula and "Megatron" in fit.formula
    line = next(line for line in md.splitlines() if "the Model states column counts" in line)
    assert f"counts {fit.bytes_per_parameter:g} bytes/parameter" in line and "Megatron" in line
