"""The decision arithmetic, for the real gaps of the fresh seed-2041 draw (every covering test run): the
scaling probe is read at the rank count equal to the target's devices when it measured one, and a measured
input pipeline that caps a projection caps both ends of its range. Each expected value is worked out in its
docstring."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.decision.communication import pick_measurement
from advisor.decision.pipeline import pipeline_evidence
from advisor.measurements import Measured, Measurements
from advisor.report import build_report
from advisor.requirements import load_requirements

FIX = Path(__file__).parent / "fixtures"
ASCEND = Path(__file__).resolve().parents[1] / "examples" / "ascend-production.yaml"


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def test_the_scaling_probe_is_read_at_the_targets_own_rank_count_when_it_measured_one():
    """The fixture measures PyTorch at 2 ranks; a 4-rank count is added with its own efficiency. For 2
    devices the 2-rank figures are the target's own (not the largest count); for 4 devices, the 4-rank ones;
    for 8, none is the target's: the largest, 4."""
    scaling = json.loads((FIX / "scaling" / "scaling-2vcpu-lenet.json").read_text(encoding="utf-8"))
    (pt,) = [f for f in scaling["frameworks"] if f["framework"] == "pytorch"]
    four = json.loads(json.dumps(pt["rank_counts"][-1]))
    four["ranks"] = 4
    pt["rank_counts"].append(four)
    assert [pick_measurement(scaling, "pytorch", "lenet", n).ranks for n in (2, 4, 8)] == [2, 4, 4]


def test_a_measured_pipeline_that_caps_a_projection_caps_both_ends_of_its_range(kb):
    """ascend-production with loaders a hundred times slower than measured: the measured feed (hosts x the
    per-host rate) is below the plain projection's low end, so both ends of each range are the feed: the
    range collapses to it (the low end kept above the feed would claim more than the loader can give)."""
    req = load_requirements(ASCEND)
    plain = {p.workflow: p for p in build_report(req, Measurements(), kb=kb, created_at="x").projections}
    doc = json.loads((FIX / "report" / "pipeline-2vcpu.json").read_text())
    for r in doc["runs"]:
        r["passes"], r["quality"] = 3, "stable"
        r["alone"]["samples_per_second"] /= 100
    assert pipeline_evidence(doc, "p.json").runs  # the graded runs are read
    report = build_report(req, Measurements(probes={"pipeline": Measured(doc, "file", ("p.json",))}), kb=kb)
    for p in report.projections:
        feed = p.input_pipeline
        assert feed is not None and feed.capped
        cap = feed.hosts * feed.host_rate
        assert cap < plain[p.workflow].images_per_second.low
        assert p.images_per_second.low == pytest.approx(cap, rel=1e-4)
        assert p.images_per_second.high == pytest.approx(cap, rel=1e-4)
