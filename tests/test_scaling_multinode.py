"""Issue 21: the scaling probe across hosts (probes/scaling/multinode.py), the allreduce share judged
against the control's noise (probes/scaling/share.py) and multi-node readiness (advisor/check_multinode.py).
Fast tests on fabricated data first; the real two-"host" runs on loopback are marked slow."""

from __future__ import annotations

import pytest

from probes.scaling import launch, runner, share


def _spec(fw="pytorch", ranks=2, **kw):
    return launch.LaunchSpec(framework=fw, ranks=ranks, **kw)


def _outcome(ranks, sync, nosync, gate=True):
    """Rank docs with per-step lists (seconds) as the rank scripts write them."""
    docs = [{"sync_step_s": list(sync), "nosync_step_s": list(nosync), "init_seconds": 0.5}
            for _ in range(ranks)]
    doc = {"world_size": ranks, "backend": "gloo", "ranks": docs}
    if gate and ranks > 1:
        doc["gate"] = {"sync_max_abs_diff": 0.0, "nosync_max_abs_diff": 0.2, "param_count": 10}
    return launch.LaunchOutcome(status="ok", command=["torchrun"], result=doc, seconds=5.0)


# ---------------------------------------------------------------- 1. the allreduce share and noise

def test_one_rank_share_is_not_applicable_even_when_the_control_is_slower():
    # The measured symptom: the no-sync control slower than the synced step at 1 rank.
    run = runner.to_run(_spec(ranks=1), 1, _outcome(1, [0.010] * 6, [0.0118] * 6))
    assert run.allreduce_share is None
    assert run.allreduce_share_note == share.NOT_APPLICABLE
    assert run.sync_nosync_difference == pytest.approx(-0.18)  # kept as the raw noise floor
    fw = runner.summarise("pytorch", "lenet", [run], [1], "cpu", 32, 1)
    one = fw.rank_counts[0]
    assert one.allreduce_share is None and "nothing to allreduce" in one.allreduce_share_note
    assert share.cell(one) == "n/a (1 rank)"
    assert fw.allreduce_share is None
    warn = runner.noise_warnings([fw], {}, 2)  # the noise-floor warning still reads the raw figure
    assert any("noise floor" in w and "-18%" in w for w in warn)


def test_a_difference_inside_the_controls_noise_is_below_the_noise_with_its_spread():
    sync = [0.0100] * 8
    nosync = [0.0090, 0.0095, 0.0100, 0.0105, 0.0110, 0.0115, 0.0085, 0.0120]  # median 0.01025
    run = runner.to_run(_spec(ranks=2), 1, _outcome(2, sync, nosync))
    assert run.status == "ok" and run.allreduce_share is None
    note = run.allreduce_share_note
    assert note.startswith("below the noise") and "25-75% spread" in note and "8 steps" in note
    # the noise is derived from the IQR: 2 x sqrt(pi/2) x IQR/1.349 / sqrt(8), over the synced step
    lo, hi = share._quartiles(sorted(nosync))
    expected = 2 * share.MEDIAN_SE_FACTOR * (hi - lo) / 1.349 / 8 ** 0.5 / 0.0100
    assert run.allreduce_noise == pytest.approx(expected)
    assert run.sync_nosync_difference == pytest.approx((0.0100 - 0.01025) / 0.0100)


def test_a_small_positive_difference_inside_the_noise_is_not_a_share():
    nosync = [0.006, 0.008, 0.010, 0.012, 0.014, 0.009, 0.011, 0.007]  # median 0.0095, wide
    run = runner.to_run(_spec(ranks=2), 1, _outcome(2, [0.0100] * 8, nosync))
    assert run.sync_nosync_difference == pytest.approx(0.05)
    assert run.allreduce_noise > 0.05 and run.allreduce_share is None


def test_a_difference_beyond_the_noise_is_the_share():
    nosync = [0.0059, 0.0060, 0.0061, 0.0060, 0.0062, 0.0058]
    run = runner.to_run(_spec(ranks=2), 1, _outcome(2, [0.0100] * 6, nosync))
    assert run.allreduce_share == pytest.approx(0.4) and run.allreduce_share_note is None
    assert run.allreduce_noise < 0.02


def test_a_control_slower_beyond_its_noise_is_never_a_negative_share():
    run = runner.to_run(_spec(ranks=2), 1, _outcome(2, [0.0100] * 6, [0.0130] * 6))
    assert run.allreduce_share is None and run.allreduce_share_note.startswith("below the noise")
    assert run.sync_nosync_difference == pytest.approx(-0.3)


def test_summary_counts_the_runs_below_the_noise():
    runs = [runner.to_run(_spec(ranks=1), 1, _outcome(1, [0.004] * 6, [0.004] * 6)),
            runner.to_run(_spec(ranks=2), 1, _outcome(2, [0.010] * 6, [0.006] * 6)),
            runner.to_run(_spec(ranks=1), 2, _outcome(1, [0.004] * 6, [0.004] * 6)),
            runner.to_run(_spec(ranks=2), 2, _outcome(2, [0.010] * 6, [0.011] * 6))]
    for i, r in enumerate(runs):
        r.repetition = i // 2 + 1
    fw = runner.summarise("pytorch", "lenet", runs, [1, 2], "cpu", 32, 1)
    two = fw.rank_counts[1]
    assert two.allreduce_share.n == 1 and two.allreduce_share.median == pytest.approx(0.4)
    assert two.allreduce_share_note.startswith("below the noise in 1 of 2 run(s)")
    assert share.cell(two) is None  # a share exists: the table prints it
    assert fw.allreduce_share == pytest.approx(0.4)
