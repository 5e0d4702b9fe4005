"""The scaling probe on the real engines: torchrun (DDP, gloo) and msrun (mccl), 2 ranks, LeNet.

Gated on function only (this 2-core CI host is shared): launcher exit 0, world size 2, parameters
identical across ranks after synced steps, the no-sync control diverging, JSON produced. Performance
is reported by the probe but not gated. A crashing or hanging rank must come back as a failed run
within a bounded time, with no process of the launch left behind.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from probes import launcher
from probes.scaling import launch
from probes.scaling.models import ScalingConfig, ScalingResult
from probes.scaling.runner import run_scaling

pytestmark = pytest.mark.slow

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch not installed")
needs_ms = pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="mindspore not installed")


def _function_check(framework: str) -> None:
    cfg = ScalingConfig(frameworks=[framework], ranks=[2], repeat=1, steps=10, warmup=2, timeout=150)
    result = run_scaling(cfg)
    doc = json.loads(result.model_dump_json())  # the JSON document round-trips through the model
    ScalingResult.model_validate(doc)
    assert len(result.runs) == 1
    run = result.runs[0]
    assert run.status == "ok", f"{run.error}\n{run.output_tail}"
    assert run.world_size == 2
    assert run.gate is not None
    assert run.gate.sync_max_abs_diff <= 1e-6, run.gate  # gradients really averaged
    assert run.gate.nosync_max_abs_diff > 1e-4, run.gate  # the control can tell
    assert run.gate.param_count == 61_706
    assert run.images_per_second and run.images_per_second > 0
    # a share, or (when the synced/no-sync difference is inside the control's noise, as on a loaded
    # host) no share and a note saying so: never a negative fraction
    assert (run.allreduce_share is not None and run.allreduce_share >= 0) or run.allreduce_share_note, run
    assert run.startup.init_seconds is not None
    # the engine's own launcher ran it, and a CPU-only host is labelled as contention, not scaling
    assert run.launcher == {"pytorch": "torchrun", "mindspore": "msrun"}[framework]
    if run.device == "cpu":
        assert result.label == "cpu-contention" and "CPU-only" in result.label_text
    else:  # an accelerator host (the GPU CI machine): one rank per device
        assert result.label == "device-scaling"
    fw = result.frameworks[0]
    assert fw.status == "ok" and fw.rank_counts[0].gate_ok is True


@needs_torch
@pytest.mark.timeout(200)
def test_torchrun_two_ranks_really_sync():
    _function_check("pytorch")


@needs_ms
@pytest.mark.timeout(200)
def test_msrun_two_ranks_really_sync():
    _function_check("mindspore")


@needs_torch
@pytest.mark.timeout(120)
def test_torchrun_crashing_rank_is_a_failed_run():
    spec = launch.LaunchSpec(
        "pytorch", 2, steps=5, warmup=1, timeout=90, extra_env=(("ADVISOR_SCALING_FAULT", "crash@1"),)
    )
    out = launch.run_launch(spec)
    assert out.status == "failed"  # the crash ended it, not the 90 s timeout (that would read "timeout")
    assert "rank 1" in out.error and "17" in out.error, out.error
    assert launcher.marked_pids(out.marker) == []


@needs_torch
@pytest.mark.timeout(120)
def test_torchrun_hanging_rank_is_killed_at_the_timeout():
    # The rank hangs after init, so rank 0 blocks in its first allreduce; gloo's own timeout
    # (>= 30 s) is longer than the launch's 12 s (two ranks start in ~5 s here), so the parent's kill
    # must end it.
    spec = launch.LaunchSpec(
        "pytorch", 2, steps=5, warmup=1, timeout=12, extra_env=(("ADVISOR_SCALING_FAULT", "hang@1"),)
    )
    out = launch.run_launch(spec)
    assert out.status == "timeout"
    assert out.seconds >= 12  # killed at the launch's timeout, not before it
    assert "hung" in out.error
    assert launcher.marked_pids(out.marker) == []  # ranks live in their own sessions: all gone


@needs_ms
@pytest.mark.timeout(150)
def test_msrun_raising_rank_is_a_failed_run_with_its_error():
    spec = launch.LaunchSpec(
        "mindspore", 2, steps=5, warmup=1, timeout=120, extra_env=(("ADVISOR_SCALING_FAULT", "raise@1"),)
    )
    out = launch.run_launch(spec)
    assert out.status == "failed"
    # Our worker watch stops msrun instead of waiting ~40 s for its scheduler's heartbeat timeout,
    # and the rank's own exception comes from its worker log (msrun's own timeout would name no rank).
    assert "rank 1" in out.error and "injected fault in rank 1" in out.error, out.error
    assert launcher.marked_pids(out.marker) == []


@needs_ms
@pytest.mark.timeout(120)
def test_msrun_hanging_rank_is_killed_at_the_timeout():
    # msrun's workers and scheduler run in sessions of their own (os.setsid): all must go.
    spec = launch.LaunchSpec(
        "mindspore", 2, steps=5, warmup=1, timeout=18, extra_env=(("ADVISOR_SCALING_FAULT", "hang@1"),)
    )
    out = launch.run_launch(spec)
    assert out.status == "timeout"
    assert out.seconds >= 18  # killed at the launch's timeout, not before it
    assert launcher.marked_pids(out.marker) == []
