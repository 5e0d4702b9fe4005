"""The input-pipeline probe: the same NumPy augmentation in both frameworks' loaders, each variant in
its own child, and the judging of starvation and of the share of N accelerators one host feeds."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.decision.pipeline import feed_fraction, starved, verdict
from probes.pipeline.augment import augment
from probes.pipeline.models import PipelineConfig, PipelineRun, Rate
from probes.pipeline.runner import plan


def test_augment_crops_flips_normalises_and_transposes():
    image = np.full((32, 32, 1), 255, dtype=np.uint8)
    out = augment(image, np.random.default_rng(0))
    assert out.shape == (1, 32, 32) and out.dtype == np.float32
    assert out.max() == pytest.approx((255 - 127.5) / 63.75)
    # every crop keeps at least 24 of 32 rows and columns of the image; the rest is padding (zeros)
    assert (out == out.max()).sum() >= 24 * 24
    same = augment(image, np.random.default_rng(0))
    assert np.array_equal(out, same)


def test_plan_alternates_frameworks_and_honours_the_choice():
    jobs = plan(PipelineConfig(workers=2))
    assert [j[0] for j in jobs[:4]] == ["pytorch", "mindspore", "pytorch", "mindspore"]
    assert plan(PipelineConfig(frameworks=["pytorch"], workers=3)) == [
        ("pytorch", "dataloader", 0),
        ("pytorch", "dataloader", 3),
    ]


def _run(alone, step):
    return PipelineRun(
        id="x",
        framework="pytorch",
        variant="dataloader",
        workers=0,
        status="ok",
        alone=Rate(samples=320, seconds=320 / alone, samples_per_second=alone),
        step_only=Rate(samples=320, seconds=320 / step, samples_per_second=step),
    )


def test_starvation_and_feed_share():
    assert starved(_run(1000, 4000)) is True and "starved" in verdict(_run(1000, 4000))
    assert starved(_run(4000, 1000)) is False and "keeps up" in verdict(_run(4000, 1000))
    assert feed_fraction(4800, 2400, 8) == pytest.approx(0.25)
    assert feed_fraction(48000, 2400, 8) == 1.0


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["--feed", "10x2"], "--loader-workers/--feed"),
        (["--pipeline", "--feed", "fast"], "--feed"),
        (["--pipeline", "--budget", "3"], "--budget"),
        (["--pipeline", "--accuracy"], "--accuracy"),
        (["--deploy", "--accuracy"], "--deploy"),
    ],
)
def test_pipeline_options_are_checked(argv, flag, capsys):
    from advisor.cli import main

    assert main(["probe", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"advisor: error: {flag}") and err.count("\n") == 1, err


@pytest.mark.slow
def test_both_frameworks_loaders_deliver_batches_on_a_few_hundred_samples():
    pytest.importorskip("torch")
    pytest.importorskip("mindspore")
    from probes.pipeline.runner import run_suite

    suite = run_suite(PipelineConfig(batches=4, workers=2, timeout=300))
    assert {r.status for r in suite.runs} == {"ok"}, [(r.id, r.error) for r in suite.runs]
    for r in suite.runs:
        assert r.alone.samples == 4 * 32 and r.with_step.samples == 4 * 32
        assert starved(r) is not None
