"""One renderer interface for every output (advisor/render/interface.py): `renderer(kind, fmt).format(result)`."""

from __future__ import annotations

import json

import pytest

from advisor.errors import UsageError
from advisor.output import to_json
from advisor.render import renderer
from advisor.render.interface import KINDS, TABLES, Renderer
from probes.accuracy.models import AccuracyConfig, AccuracyRun, AccuracySuite
from probes.pipeline.models import PipelineConfig, PipelineRun, PipelineSuite, Rate


def _accuracy() -> AccuracySuite:
    from probes.accuracy.runner import gap

    runs = [
        AccuracyRun(
            id=f"pytorch-eager-s{s}",
            framework="pytorch",
            mode="eager",
            seed=s,
            status="ok",
            final_accuracy=0.96,
            accuracy=[0.5, 0.8, 0.96],
            epochs_to_target=3,
            seconds_to_target=4.2,
            seconds_to_target_steady=3.9,
            compile_seconds=0.3,
        )
        for s in range(2)
    ] + [
        AccuracyRun(
            id="mindspore-graph-s0", framework="mindspore", mode="graph", seed=0, status="failed", error="boom"
        ),
        AccuracyRun(
            id="mindspore-graph-s1",
            framework="mindspore",
            mode="graph",
            seed=1,
            status="ok",
            final_accuracy=0.9,
            accuracy=[0.4, 0.7, 0.9],
        ),
    ]
    return AccuracySuite(
        config=AccuracyConfig(),
        runs=runs,
        gaps=[gap(runs[:2], runs[2:])],
        data={"source": "sklearn digits", "train_samples": 1437, "test_samples": 360},
        warnings=["a note"],
        seconds=42.0,
    )


def _pipeline() -> PipelineSuite:
    def run(rid, fw, variant, alone, step):
        return PipelineRun(
            id=rid,
            framework=fw,
            variant=variant,
            workers=2,
            status="ok",
            alone=Rate(samples=320, seconds=320 / alone, samples_per_second=alone),
            with_step=Rate(samples=320, seconds=320 / step, samples_per_second=min(alone, step)),
            step_only=Rate(samples=320, seconds=320 / step, samples_per_second=step),
        )

    return PipelineSuite(
        config=PipelineConfig(),
        runs=[
            run("pytorch-dataloader-w2", "pytorch", "dataloader", 1000, 4000),
            run("mindspore-dataset-w2", "mindspore", "dataset", 5000, 1000),
        ],
        data={"source": "sklearn digits", "samples": 1797, "shape": [32, 32, 3]},
        seconds=12.0,
    )


@pytest.mark.parametrize("kind", sorted(TABLES))
def test_every_kind_has_a_table_and_the_one_json_door(kind):
    assert isinstance(renderer(kind, "table"), Renderer) and isinstance(renderer(kind, width=80), Renderer)
    doc = {"kind": kind, "x": [1, 2]}
    assert renderer(kind, "json", width=80).format(doc) == to_json(doc)
    with pytest.raises(UsageError, match=f"unknown output format 'markdown' for {kind}: expected one of json, table"):
        renderer(kind, "markdown")


def test_the_report_formats_go_through_the_same_interface():
    from advisor import render

    assert KINDS[0] == "report" and set(render.FORMATS) == {"json", "markdown", "table", "html"}
    assert isinstance(renderer("report", "json"), Renderer)
    with pytest.raises(UsageError, match="unknown output format 'pdf': expected one of json, markdown, table, html"):
        render.format({}, "pdf")
    with pytest.raises(ValueError, match="no renderer for 'nothing'"):
        renderer("nothing")


def test_accuracy_table_shows_runs_gap_and_failures():
    suite = _accuracy()
    text = renderer("accuracy").format(suite)
    assert text.startswith("Time-to-accuracy: LeNet-5 on sklearn digits (1437 train / 360 test")
    assert "3 ep, 4.2 s (3.9 s without compile)" in text and "50 80 96" in text
    assert "mindspore-graph-s0" in text and "boom" in text and "note: a note" in text
    head = renderer("accuracy", width=60).format(suite).split("\n\n")[0]  # the table itself does not wrap
    assert len(head.splitlines()) > 2 and max(len(line) for line in head.splitlines()) <= 60
    assert json.loads(renderer("accuracy", "json").format(suite))["runs"][2]["status"] == "failed"


def test_pipeline_table_with_and_without_the_feed_share():
    suite = _pipeline()
    plain = renderer("pipeline").format(suite)
    assert "pytorch-dataloader-w2" in plain and "1,000" in plain and "4,000" in plain
    assert "would feed" not in plain
    fed = renderer("pipeline", feed=(2400.0, 8)).format(suite)
    assert fed.startswith(plain.rstrip("\n"))
    # pytorch's fastest loader: 1,000 samples/s alone against 8 devices x 2,400/s: 1000 / 19200 = 5%
    said = " ".join(fed.split())
    assert "pytorch: its fastest loader here (pytorch-dataloader-w2, 1,000 samples/s) would feed 5% of 8" in said
    assert "mindspore: its fastest loader here (mindspore-dataset-w2, 5,000 samples/s) would feed 26% of 8" in said


def test_compare_text_through_the_one_interface():
    from advisor.render import renderer

    old = {"created_at": "a", "schema_version": "1.2", "recommendation": {"workflow": "pytorch", "confidence": "low"}}
    new = {"created_at": "b", "schema_version": "1.3", "recommendation": {"workflow": "hybrid", "confidence": "medium"}}
    changes = [{"path": "recommendation.workflow", "old": "pytorch", "new": "hybrid"}]
    text = renderer("compare").format(
        {"old_path": "old.json", "new_path": "new.json", "old": old, "new": new, "changes": changes}
    )
    assert text.splitlines() == [
        "old.json (a) -> new.json (b)",
        "recommendation CHANGED: pytorch -> hybrid (confidence low -> medium)",
        "schema version 1.2 -> 1.3",
        "1 change:",
        "verdict (1):",
        "  recommendation.workflow: pytorch -> hybrid",
    ]
