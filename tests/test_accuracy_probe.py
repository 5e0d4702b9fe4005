"""The accuracy probe: real digits data, the same schedule in both frameworks, time-to-target from
the curve, the gap judged against a stated tolerance, and the Normalize trap measured live."""

from __future__ import annotations

import re

import numpy as np
import pytest

from probes.accuracy import data, worker_common
from probes.accuracy.models import AccuracyConfig, AccuracyGap, AccuracyRun
from probes.accuracy.runner import gap, plan, to_target


def test_digits_are_real_upsampled_and_split_the_same_way_every_time(tmp_path):
    images, labels, source = data.digits()
    assert images.shape == (1797, 1, 32, 32) and labels.shape == (1797,)
    assert np.array_equal(images[0, 0, :4, :4], np.full((4, 4), images[0, 0, 0, 0]))  # one 8x8 pixel -> 4x4
    train, test = data.split(labels)
    again_train, again_test = data.split(labels)
    assert np.array_equal(train, again_train) and len(test) == 450 and not set(train) & set(test)
    # stratified: every digit's share of the test set within one sample of its share overall
    for digit in range(10):
        expected = (labels == digit).sum() * len(test) / len(labels)
        assert abs((labels[test] == digit).sum() - expected) <= 1
    info = data.prepare(tmp_path / "a.npz", seed=1, epochs=3)
    with np.load(tmp_path / "a.npz") as z:
        assert z["orders"].shape == (3, info["train_samples"])
        assert abs(float(z["x_train"].mean())) < 1e-4 and abs(float(z["x_train"].std()) - 1) < 1e-3


def test_epoch_batches_drop_the_partial_batch():
    batches = worker_common.epoch_batches(np.arange(70), 32)
    assert [len(b) for b in batches] == [32, 32]


def test_time_to_target_from_the_curve_with_compile_apart():
    run = AccuracyRun(
        id="x",
        framework="pytorch",
        mode="compile",
        seed=0,
        status="ok",
        accuracy=[0.5, 0.9, 0.96, 0.97],
        epoch_seconds=[12.0, 2.0, 2.0, 2.0],
        first_step_seconds=10.1,
        settings={"step_seconds": [0.1, 0.1, 0.1]},
    )
    to_target(run, 0.95)
    assert run.epochs_to_target == 3 and run.seconds_to_target == 16.0
    assert run.compile_seconds == pytest.approx(10.0) and run.seconds_to_target_steady == pytest.approx(6.0)
    assert run.final_accuracy == 0.97
    never = AccuracyRun(
        id="y", framework="pytorch", mode="eager", seed=0, status="ok", accuracy=[0.5, 0.6], epoch_seconds=[1, 1]
    )
    to_target(never, 0.95)
    assert never.epochs_to_target is None and never.seconds_to_target is None


def _runs(fw, mode, finals):
    return [
        AccuracyRun(id=f"{fw}-{s}", framework=fw, mode=mode, seed=s, status="ok", final_accuracy=f)
        for s, f in enumerate(finals)
    ]


def test_the_gap_is_paired_by_seed_and_judged_against_the_tolerance():
    from advisor.decision.accuracy import gap_verdict

    same = gap(_runs("pytorch", "eager", [0.93, 0.94, 0.95]), _runs("mindspore", "graph", [0.93, 0.94, 0.951]))
    assert same.per_seed == pytest.approx([0.0, 0.0, -0.001])
    assert gap_verdict(same)[0] == "same"
    differs = gap(_runs("pytorch", "eager", [0.95, 0.96, 0.95]), _runs("mindspore", "graph", [0.90, 0.905, 0.90]))
    assert gap_verdict(differs)[0] == "differs"
    one = AccuracyGap(a="a", b="b", per_seed=[0.0], mean=0.0, ci95=[0.0, 0.0], max_abs=0.0)
    assert gap_verdict(one)[0] == "undecided"  # one seed has no spread: never "the same"


def test_default_plan_is_eager_and_graph():
    assert plan(AccuracyConfig()) == [("pytorch", "eager"), ("mindspore", "graph")]
    assert plan(AccuracyConfig(frameworks=["mindspore"], modes=["graph", "pynative"])) == [
        ("mindspore", "graph"),
        ("mindspore", "pynative"),
    ]


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["--epochs", "3"], "--epochs"),
        (["--accuracy", "--budget", "3"], "--budget"),
        (["--accuracy", "--models", "resnet18"], "--models"),
        (["--accuracy", "--target", "1.5"], "--target"),
    ],
)
def test_accuracy_options_are_checked(argv, flag, capsys):
    from advisor.cli import main

    assert main(["probe", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"advisor: error: {flag}") and err.count("\n") == 1, err


@pytest.mark.slow
def test_digits_reach_a_modest_target_in_both_frameworks_with_the_same_accuracy():
    pytest.importorskip("torch")
    pytest.importorskip("mindspore")
    from advisor.decision.accuracy import ACCURACY_TOLERANCE
    from probes.accuracy.runner import run_suite

    suite = run_suite(AccuracyConfig(epochs=3, seeds=1, target=0.80, threads=2, timeout=600))
    assert [r.status for r in suite.runs] == ["ok", "ok"], [r.error for r in suite.runs]
    for r in suite.runs:
        assert len(r.accuracy) == 3 and r.final_accuracy >= 0.80 and r.epochs_to_target is not None
        assert r.settings["weights_checksum"]
    (g,) = suite.gaps
    assert abs(g.mean) <= ACCURACY_TOLERANCE  # same weights, data and order: the same accuracy


@pytest.mark.slow
def test_the_normalize_trap_leaves_the_batch_far_from_zero_mean():
    pytest.importorskip("mindspore")
    from probes.accuracy.runner import run_normalize_check  # the accuracy kind's own

    check = run_normalize_check(timeout=300)
    assert check["status"] == "ok", check
    wrong, right = check["variants"]["pytorch_values_0_1"], check["variants"]["correct_0_255"]
    # uint8 digits average ~78 of 255: (x - 0.5) / 0.5 ~ 150, while (x - 127.5) / 127.5 stays in [-1, 1]
    assert wrong["batch_mean"] > 50 and wrong["batch_max"] > 100
    assert abs(right["batch_mean"]) < 1 and right["batch_max"] <= 1.0
    assert wrong["loss_first"] > 2 * right["loss_first"]


@pytest.mark.parametrize(
    "labels, needle",
    [(bytes([3]), "1 sample(s)"), (bytes([0, 0, 0, 0, 1, 1, 1, 2]), "class(es) 2 with fewer than 2")],
    ids=["one-record", "a-class-of-one"],
)
def test_data_the_stratified_split_cannot_use_is_a_data_error_naming_the_file(tmp_path, labels, needle):
    from probes.accuracy.data import check_user_data
    from probes.training.data import DataError

    path = tmp_path / "data_batch_1.bin"
    path.write_bytes(b"".join(bytes([label]) + bytes(3072) for label in labels))  # CIFAR-10 binary records
    with pytest.raises(DataError, match=re.escape(needle)) as got:
        check_user_data(str(path))
    assert "data_batch_1.bin" in str(got.value)
    path.write_bytes(b"".join(bytes([label]) + bytes(3072) for label in [0, 1] * 4))
    check_user_data(str(path))  # 8 samples, 4 of each class: the split works


@pytest.mark.parametrize(
    "asked, idle, threads, why",
    [
        (None, 0.4, 1, "idle cores: 0.4 of"),  # beside a busy session: one thread, not every core
        (None, 2.0, 2, "idle cores: 2.0 of"),
        (3, None, 3, "--threads"),  # as asked, and the idle cores not sampled
    ],
)
def test_each_child_takes_the_threads_found_idle_before_it(monkeypatch, asked, idle, threads, why):
    """As a training round does: on every core beside a busy session the child's threads waited for one
    another at each step (113-117 s beside three busy sessions on 2 cores, 44-58 s on one thread)."""
    from probes import launcher
    from probes.accuracy import runner

    sampled, seen = [], []

    def fake_idle():
        sampled.append(1)
        return idle

    def fake_child(args, timeout, env_extra, cancel, on_message):
        seen.append((args[args.index("--threads") + 1], env_extra["OMP_NUM_THREADS"]))
        result = {"status": "ok", "accuracy": [0.5], "epoch_seconds": [0.1], "settings": {}}
        return launcher.ChildOutcome(status="ok", result=result, seconds=1.0)

    monkeypatch.setattr(runner, "idle_cores", fake_idle)
    monkeypatch.setattr(runner.launcher, "run_child", fake_child)
    monkeypatch.setattr("probes.training.runner.usable_cores", lambda: 2)
    config = AccuracyConfig(frameworks=["pytorch"], modes=["eager"], epochs=1, seeds=1, threads=asked)
    run = runner._run_one("pytorch", "eager", 0, "x.npz", config, None, None)
    assert seen == [(str(threads), str(threads))]
    assert run.settings["threads_why"].startswith(why) and run.settings["threads"] == threads
    assert len(sampled) == (0 if asked else 1)


def test_the_table_says_how_many_threads_each_run_took():
    from advisor.render.tables.accuracy import AccuracyTable
    from probes.accuracy.models import AccuracySuite

    def run(rid: str, n: int) -> AccuracyRun:
        fw, mode = rid.split("-")[:2]
        settings = {"threads": n, "threads_why": "idle cores: 0.4 of 2 were idle before this round"}
        return AccuracyRun(id=rid, framework=fw, mode=mode, seed=0, status="ok", settings=settings)

    suite = AccuracySuite(
        config=AccuracyConfig(seeds=1), runs=[run("pytorch-eager-seed0", 1), run("mindspore-graph-seed0", 2)]
    )
    text = " ".join(AccuracyTable(width=200).format(suite).split())
    assert (
        "Threads: the cores found idle just before each run (pytorch-eager-seed0 1, mindspore-graph-seed0 2)." in text
    )


def test_a_framework_that_is_not_installed_is_said_unavailable_without_a_child(monkeypatch):
    """On a host without MindSpore its child failed at its first import ("failed", 0.8 s) and so did the
    Normalize check; the training probe says "unavailable" and starts nothing."""
    from probes import hostfacts, launcher
    from probes.accuracy import runner

    real = hostfacts.installed
    monkeypatch.setattr(hostfacts, "installed", lambda module: module != "mindspore" and real(module))
    started = []
    monkeypatch.setattr(launcher, "run_child", lambda *a, **k: started.append(a) or pytest.fail("a child started"))
    events = []
    suite = runner.run(
        AccuracyConfig(frameworks=["mindspore"], epochs=1, seeds=2),
        on_event=lambda rid, msg: events.append((rid, msg["kind"])),
    )
    assert [(r.id, r.status) for r in suite.runs] == [("mindspore-graph-seed0", "unavailable"),
                                                      ("mindspore-graph-seed1", "unavailable")]  # fmt: skip
    assert "mindspore is not installed" in suite.runs[0].error and suite.normalize_check is None
    assert events == [(r, k) for r in ("mindspore-graph-seed0", "mindspore-graph-seed1") for k in ("start", "done")]
    assert not started
