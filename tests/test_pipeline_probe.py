"""The input-pipeline probe: the same NumPy augmentation in both frameworks' loaders, each variant in
its own child, and the judging of starvation and of the share of N accelerators one host feeds."""

from __future__ import annotations

import json

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

    # One pass: the loaders themselves, in fresh processes (each imports its framework: the cost of the
    # test). How passes interleave and merge is test_rounds_interleave_every_variant and the merge tests.
    suite = run_suite(PipelineConfig(batches=4, workers=1, timeout=300, passes=1))
    assert {r.status for r in suite.runs} == {"ok"}, [(r.id, r.error) for r in suite.runs]
    for r in suite.runs:
        assert r.alone.samples == 4 * 32 and r.with_step.samples == 4 * 32
        assert starved(r) is not None
        assert r.passes == 1 and len(r.repeats) == 1 and r.quality is None  # no spread to grade
        assert r.verdict.startswith("undecided: one pass") and len(r.feed_ratio) == 3


# --- the measurement protocol: passes, grading, the run's own verdict ----------------------------------


def _pass(alone, step, status="ok"):
    run = _run(alone, step)
    run.status = status
    run.seconds = 1.0
    return run


def test_passes_merge_to_the_median_and_are_graded_by_their_spread():
    from probes.pipeline.runner import merge

    run = merge([_pass(1000, 4000), _pass(1040, 4100), _pass(1020, 3900)])
    assert run.passes == 3 and run.repeats == [1000, 1040, 1020]
    assert run.alone.samples_per_second == 1020  # the median pass
    assert run.quality == "stable"  # spread 40/1020 = 3.9% <= 10%
    # where advisor.decision.pipeline reads them: a graded, repeated run may bound a projection
    assert run.model_extra["passes"] == 3 and run.model_extra["quality"] == "stable"
    assert PipelineRun.model_validate_json(run.model_dump_json()).model_extra["passes"] == 3  # through -o
    assert run.seconds == 3.0
    wide = merge([_pass(1000, 4000), _pass(1200, 4000), _pass(1300, 4000)])
    assert wide.quality == "noisy"  # 300/1200 = 25%: above 10%, at most 50%
    assert merge([_pass(1000, 4000), _pass(1300, 4000), _pass(2000, 4000)]).quality == "unusable"  # 1000/1300


def test_a_run_carries_its_own_starved_verdict_only_when_the_passes_decide_it():
    from probes.pipeline.runner import merge

    starving = merge([_pass(1000, 4000), _pass(1010, 4020), _pass(990, 3980)])
    assert starving.starved is True and starving.verdict.startswith("starved")
    low, high = starving.feed_ratio[1], starving.feed_ratio[2]
    assert high < 1 and low > 0.2  # every pass is about 0.25x
    fed = merge([_pass(4000, 1000), _pass(4100, 1000), _pass(3900, 1000)])
    assert fed.starved is False and fed.verdict.startswith("keeps up")
    close = merge([_pass(1000, 980), _pass(1000, 1030), _pass(1000, 990)])  # ratios straddle 1
    assert close.starved is None and close.verdict.startswith("undecided")
    one = merge([_pass(1000, 4000)])
    assert one.starved is None and one.quality is None and "one pass" in one.verdict


def test_failed_passes_are_left_out_and_said_so():
    from probes.pipeline.runner import merge

    run = merge([_pass(1000, 4000), _pass(1, 1, status="failed"), _pass(1010, 4010)])
    assert run.passes == 2 and any("1 of 3 passes failed" in r for r in run.quality_reasons)
    failed = merge([_pass(1, 1, status="timeout")])
    assert failed.status == "timeout" and failed.starved is None


def test_rounds_interleave_every_variant(monkeypatch, tmp_path):
    import probes.pipeline.runner as runner

    order = []

    def fake_one(fw, variant, workers, npz, config, cancel):
        order.append(f"{fw}-{variant}-w{workers}")
        return _pass(1000 + len(order), 4000)

    monkeypatch.setattr(runner, "_one", fake_one)
    monkeypatch.setattr(runner, "prepare", lambda out, data: {"source": "x", "samples": 1})
    suite = runner.run_suite(PipelineConfig(frameworks=["pytorch"], workers=2, passes=3))
    assert order == ["pytorch-dataloader-w0", "pytorch-dataloader-w2"] * 3  # A B A B A B, not A A A B B B
    assert [r.passes for r in suite.runs] == [3, 3]


# --- `--repeat N` sets the pipeline's interleaved passes (the training probe's protocol) ----------------


def test_repeat_sets_the_pipeline_passes_and_is_checked(monkeypatch, capsys, tmp_path):
    import probes.pipeline.runner as runner
    from advisor.cli import main

    seen = []

    def fake_one(fw, variant, workers, npz, config, cancel):
        seen.append(config.passes)
        return _pass(1000, 4000)

    monkeypatch.setattr(runner, "_one", fake_one)
    monkeypatch.setattr(runner, "prepare", lambda out, data: {"source": "x", "samples": 1})
    out = tmp_path / "pipe.json"
    argv = ["probe", "--pipeline", "--frameworks", "pytorch", "--loader-workers", "1", "--json", "-o", str(out)]
    assert main([*argv, "--repeat", "5"]) == 0
    assert set(seen) == {5} and len(seen) == 2 * 5  # two variants, five rounds
    assert {r["passes"] for r in json.loads(out.read_text())["runs"]} == {5}
    seen.clear()
    assert main(argv) == 0 and set(seen) == {PipelineConfig().passes}  # no --repeat: the default passes
    capsys.readouterr()
    assert main([*argv, "--repeat", "50"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("advisor: error: --repeat") and err.count("\n") == 1, err
    assert main(["probe", "--accuracy", "--repeat", "5"]) == 2  # the accuracy probe does not read it
    assert "--repeat" in capsys.readouterr().err


def test_a_framework_that_is_not_installed_is_said_unavailable_without_a_child(monkeypatch):
    """Its worker said so only after the parent had started it (and the plan counted it in full)."""
    import probes.pipeline.runner as runner
    from probes import hostfacts

    real = hostfacts.installed
    monkeypatch.setattr(hostfacts, "installed", lambda module: module != "mindspore" and real(module))
    monkeypatch.setattr(runner, "_one", lambda *a: pytest.fail("a child started"))
    monkeypatch.setattr(runner, "prepare", lambda out, data: {"source": "x", "samples": 1})
    events = []
    suite = runner.run_suite(
        PipelineConfig(frameworks=["mindspore"], workers=2, passes=2),
        on_event=lambda rid, msg: events.append((rid, msg["kind"])),
    )
    assert {r.status for r in suite.runs} == {"unavailable"} and len(suite.runs) == 3
    assert all("mindspore is not installed" in r.error for r in suite.runs)
    assert [k for _, k in events].count("pass") == 6 and [k for _, k in events].count("done") == 3
