"""The decision arithmetic, for the real gaps the fresh seed-2038 draw found (88%: 29 killed, 4 survived,
the mutation tracer fixed): probe runs measured on one accelerator are measurements for that accelerator
and not for another, and a measured input pipeline that keeps up replaces the assumed loader bound. (Of
the other two, a guard no input can reach was removed and an `any` over notes that hold at most one
cannot-serve note is a reviewed equivalent: benchmarks/mutation/equivalent.py.) A finding is asserted
by its code, worded through the catalogue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from advisor.decision.findings import said
from advisor.measurements import Measured, Measurements
from advisor.report import build_report
from advisor.requirements import load_requirements, parse_requirements

FIX = Path(__file__).parent / "fixtures" / "report"
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "prototype-then-ascend.yaml"


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def _on(accelerator: str, kb) -> dict:
    """The H200 team's report with the probes measured on an H200, its target set to `accelerator`."""
    team = yaml.safe_load((FIX / "h200-team.yaml").read_text())
    team["hardware"]["accelerator"] = accelerator
    suite = json.loads((FIX / "probes-h200.json").read_text())
    report = build_report(
        parse_requirements(team), Measurements(probes={"training": Measured(suite, "file", ("p.json",))}), kb=kb
    )
    return {p.workflow: p for p in report.projections}


def test_runs_measured_on_an_h200_are_measurements_for_an_h200_and_not_for_an_a100(kb):
    """The suite's runs ran on CUDA devices its vendor peak names `h200`: for an H200 target PyTorch's
    projection is measured; for an A100 the same runs are set aside (an H200 run read as measured for
    another card overstates it) and the projection falls back to the knowledge base's reference."""
    same = _on("NVIDIA H200", kb)["pytorch"]
    assert same.basis == "measured"
    assert not any("not used as measurements" in n for n in same.notes)
    a100 = kb.find_accelerator("NVIDIA A100 80GB")
    other = _on("NVIDIA A100 80GB", kb)["pytorch"]
    assert other.basis == "reference"
    assert said("proj.runs_elsewhere", accelerators=["h200"], target=a100.id) in other.notes


def test_a_measured_pipeline_that_keeps_up_replaces_the_assumed_loader_bound(kb):
    """The bundled example on its knowledge-base figures: PyTorch's projection is capped at the assumed
    loader bound, 20,000 images/s, and says so. With the pipeline probe's loaders measured (graded, three
    passes) and fast enough, the measured feed is applied and does not cap: the assumed bound no longer
    applies, and the projection's high end is the uncapped 43,346 images/s."""
    req = load_requirements(EXAMPLE)
    plain = {p.workflow: p for p in build_report(req, Measurements(), kb=kb, created_at="x").projections}
    assert plain["pytorch"].images_per_second.high == 20000.0
    assert any(w.startswith("the data loader bounds it") for w in plain["pytorch"].warnings)
    doc = json.loads((FIX / "pipeline-2vcpu.json").read_text())
    for r in doc["runs"]:
        r["passes"], r["quality"] = 3, "stable"
    measured = Measurements(probes={"pipeline": Measured(doc, "file", ("pipeline.json",))})
    fed = {p.workflow: p for p in build_report(req, measured, kb=kb, created_at="x").projections}["pytorch"]
    assert fed.input_pipeline is not None and fed.input_pipeline.applied and not fed.input_pipeline.capped
    assert round(fed.images_per_second.high) == 43346
    assert not any(w.startswith("the data loader bounds it") for w in fed.warnings)
