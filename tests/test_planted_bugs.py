"""Bugs a review planted that the suite let through, one test each, named for what it checks.

Each is also a planted bug of benchmarks/mutation_check.py, which applies it and expects the test here
to fail by an assertion. (The network, flash-attention and atomic-cache bugs are caught in
test_workload_formulas.py and test_cache.py.)
"""

import statistics

import pytest

from advisor.render._fmt import hours
from probes.training import runner
from probes.training.models import ProbeConfig, ProbeRun


class _Span:
    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = low, high


def test_durations_over_three_days_print_as_calendar_days_of_24_hours():
    """96-240 h is 4-10 days (24 h each), not 12-30 'days' of 8 working hours."""
    assert hours(_Span(96.0, 240.0)) == "4-10 days"
    assert hours(_Span(24.0 * 7, 24.0 * 14)) == "7-14 days"


def test_durations_keep_hours_up_to_three_days_and_minutes_under_one_hour():
    assert hours(_Span(2.0, 72.0)) == "2-72 h"
    assert hours(_Span(0.25, 0.5)) == "15-30 min"


def _repeat(ips: float, half_width: float) -> ProbeRun:
    return ProbeRun(
        id="pytorch-eager-lenet-bs8",
        framework="pytorch",
        mode="eager",
        model="lenet",
        batch_size=8,
        status="ok",
        images_per_second=ips,
        ci95=[ips - half_width, ips + half_width],
        quality="stable",
    )


def test_a_merged_repeat_shows_the_median_repeats_interval_not_the_best_ones():
    """--repeat 3: the number shown is the median repeat's, so the interval beside it must be the
    median repeat's too (the best repeat's interval would sit around a number not shown)."""
    repeats = [_repeat(130.0, 1.0), _repeat(100.0, 9.0), _repeat(110.0, 4.0)]
    (merged,) = runner._merge_repeats(repeats)
    assert merged.images_per_second == statistics.median([130.0, 100.0, 110.0]) == 110.0
    assert merged.ci95 == [106.0, 114.0]
    assert merged.ci95[0] <= merged.images_per_second <= merged.ci95[1]


@pytest.fixture
def fake_workers(monkeypatch):
    fake = "tests.fixtures.probe.fake_worker"
    monkeypatch.setattr(runner, "WORKER", {"pytorch": fake, "mindspore": fake})
    monkeypatch.setenv("ADVISOR_FAKE_WORKER", "ok")


def test_the_workers_peak_memory_mb_reaches_the_probe_run(fake_workers):
    """The worker reports its peak memory (180 MB from the fake worker, which speaks the real channel);
    the run in the suite carries it and where it came from."""
    config = ProbeConfig(
        frameworks=["pytorch"], models=["lenet"], modes=["eager"], parity=False, budget=1.0, batch_size=8
    )
    (run,) = runner.run_suite(config).runs
    assert run.status == "ok"
    assert run.peak_memory_mb == 180.0
    assert run.memory_source == "VmHWM (fake worker)"


def _llm(target: str, accelerator: str, devices: int, network=None, **model) -> dict:
    hardware = {"available": [target], "training_target": target, "accelerator": accelerator, "devices": devices}
    if network:
        hardware["network"] = network
    return {
        "name": "llm",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "basic", "size": 6},
        "hardware": hardware,
        "deployment": {"targets": [f"{target}-server"]},
        "model": {"family": "transformer", "parameters_millions": 6740, "source": "pytorch-code", **model},
        "needs": {"distributed_training": True},
        "workload": {"model": "transformer", "tokens": 1e10},
    }


def _projected(data: dict, workflow: str):
    import copy

    import knowledge
    from advisor.decision.projections import project
    from advisor.decision.workflows import routes
    from advisor.requirements import parse_requirements

    kb = knowledge.load()
    req = parse_requirements(copy.deepcopy(data))
    return project(workflow, req, kb, [], route=routes(req, kb)[workflow])


def _curve_at(devices: int, network):
    comm = _projected(_llm("ascend", "Ascend 910B", devices, network), "mindspore").communication
    (point,) = [p for p in comm.curve if p.devices == devices]
    return point.low, point.high


def test_the_scaling_curve_between_hosts_follows_hardware_network():
    """64 x 910B: the knowledge base's HCCS host curve keeps 0.75-0.93 at 8 devices; between hosts the
    RoCE/InfiniBand curve keeps 0.70-0.90 at 64 and the Ethernet curve 0.25-0.40. The network the
    requirements name picks its curve; an unnamed one spans both classes."""
    roce = _curve_at(64, "roce-ib")
    ethernet = _curve_at(64, "ethernet")
    unknown = _curve_at(64, None)
    assert roce == pytest.approx((0.75 * 0.70, 0.93 * 0.90), abs=1e-4)
    assert ethernet == pytest.approx((0.75 * 0.25, 0.93 * 0.40), abs=1e-4)
    assert unknown == pytest.approx((ethernet[0], roce[1]), abs=1e-4)


def test_flash_attention_reaches_the_layout_search():
    """7B on 8 x H100 (80 GB), no recompute: with fused attention the activations (34 s b h per layer)
    fit beside sharded optimizer states without tensor parallelism; without it the 5 a s / h score term
    (160 against 34 at a = 32, s = h = 4096) multiplies them about 5.7 x and the layout search must split
    the layers over 2 devices."""
    on = _projected(_llm("nvidia", "H100", 8, recompute="none"), "pytorch").memory
    off = _projected(_llm("nvidia", "H100", 8, recompute="none", flash_attention=False), "pytorch").memory
    assert on.layout.tensor_parallel == 1 and on.strategy == "optimizer-sharding"
    assert off.layout.tensor_parallel == 2 and off.strategy == "model-parallel"
    assert on.layout.activations_gb < off.layout.activations_gb


def test_a_result_file_over_32_mb_is_refused_by_its_size_before_it_is_read(tmp_path):
    """A 1 GB (sparse) file where a result file is expected is refused from its size, naming the 32 MB
    limit; read whole it would fail only later, as invalid JSON, after a gigabyte in memory."""
    from advisor.errors import UsageError
    from advisor.output import read_json

    big = tmp_path / "result.json"
    with open(big, "wb") as fh:
        fh.truncate(1 << 30)
    with pytest.raises(UsageError, match=r"of at most 33,554,432 bytes"):
        read_json(str(big), "expected a probe result file")
