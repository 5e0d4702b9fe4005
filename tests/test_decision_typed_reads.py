"""The decision model reads probe results by attribute: the scaling result as its model (its JSON
validated once), and the probes' free-form mappings (a serve step's latency and placement, the accuracy
probe's Normalize check, a probe's data source) through typed views that read an odd mapping as absent
instead of failing on a string key.

tests/fixtures/scaling/scaling-2vcpu-lenet.json is a REAL measured scaling result (2-vCPU host)."""

from __future__ import annotations

import json
from pathlib import Path

from advisor.decision import probe_fields
from advisor.decision.accuracy import normalize_verdict
from advisor.decision.communication import (
    as_scaling,
    inter_host_measurements,
    pick_measurement,
    scaling_host,
    scaling_measurements,
)
from probes.scaling.models import ScalingResult

ROOT = Path(__file__).resolve().parents[1]
SCALING = json.loads((ROOT / "tests" / "fixtures" / "scaling" / "scaling-2vcpu-lenet.json").read_text())


def test_the_scaling_json_is_validated_once_into_its_model():
    model = as_scaling(SCALING)
    assert isinstance(model, ScalingResult)
    assert as_scaling(model) is model and as_scaling(None) is None


def test_the_scaling_readers_give_the_same_from_the_model_and_its_json():
    model = ScalingResult.model_validate(SCALING)
    measured = scaling_measurements(model)
    assert measured and measured == scaling_measurements(SCALING)
    assert scaling_host(model) == scaling_host(SCALING) and scaling_host(None) is None
    for m in measured:
        entry = next(f for f in model.frameworks if f.framework == m.framework and f.model == m.model)
        top = max((rc for rc in entry.rank_counts if rc.ranks > 1 and rc.runs_ok), key=lambda rc: rc.ranks)
        assert m.ranks == top.ranks and m.id == f"scaling:{m.framework}-{m.model}-r{top.ranks}"
        assert m.efficiency.median == round(top.efficiency.median, 4)
    picked = pick_measurement(model, measured[0].framework, measured[0].model, devices=2)
    assert picked is not None and picked.framework == measured[0].framework
    assert inter_host_measurements(model) == [] and model.inter_host is None  # a one-host result


def test_a_serve_steps_mappings_read_as_typed_views():
    where = probe_fields.placement(
        {
            "chosen": "CUDAExecutionProvider",
            "nodes": 10,
            "by_provider": {"CUDAExecutionProvider": 8, "CPUExecutionProvider": 2},
            "fallback": [{"node": "n1", "op": "Gather", "provider": "CPU"}, {"node": "n2", "op": "Gather"}],
            "fallback_ops": ["Gather"],
        }
    )
    assert (where.chosen, where.nodes, len(where.fallback), where.fallback_ops) == (
        "CUDAExecutionProvider",
        10,
        2,
        ["Gather"],
    )
    assert probe_fields.placement(None).fallback == []
    assert probe_fields.latency({"n": 3, "p50": 0.25, "p95": 0.4}).p50 == 0.25
    assert probe_fields.latency(None).p50 is None


def test_an_odd_mapping_reads_as_absent_not_as_a_crash():
    assert probe_fields.latency({"p50": "fast"}).p50 is None
    odd = {"variants": {"pytorch_values_0_1": {"batch_mean": "high"}, "correct_0_255": {}}, "error": None}
    assert normalize_verdict(odd) == "Normalize check: not run"
    assert probe_fields.data_source({"source": 7}).source is None


def test_the_normalize_check_of_a_real_accuracy_result_is_worded_from_its_view():
    doc = json.loads((ROOT / "tests" / "fixtures" / "report" / "accuracy-2vcpu.json").read_text())
    line = normalize_verdict(doc["normalize_check"])
    wrong = doc["normalize_check"]["variants"]["pytorch_values_0_1"]
    assert line.startswith("Normalize trap: ") and f"{wrong['batch_mean']:.1f}" in line
    assert probe_fields.data_source(doc["data"]).source == doc["data"]["source"]


def test_host_names_vendor_peak_run_settings_and_pipeline_extras_read_as_views():
    """The host's names (hostname first, then the CPU model, then a plain name), the datasheet peak a
    suite was judged against, a device run's name and a pipeline run's passes and grade: each through its
    view, an odd value read as absent."""
    names = probe_fields.host_names({"hostname": "node-7", "cpu_model": "Xeon", "name": "n7", "other": 1})
    assert (names.hostname, names.cpu_model, names.name) == ("node-7", "Xeon", "n7")
    assert probe_fields.host_names(None) == probe_fields.HostNames()
    assert probe_fields.host_names({"hostname": ["not", "a", "name"]}).hostname is None
    peak = probe_fields.peak({"accelerator": "nvidia-a100-sxm4-80gb", "fp32_gflops": 19500.0, "source": "x"})
    assert (peak.accelerator, peak.fp32_gflops) == ("nvidia-a100-sxm4-80gb", 19500.0)
    assert probe_fields.peak(None).fp32_gflops is None
    assert probe_fields.run_settings({"device_name": "NVIDIA H100", "round": 2}).device_name == "NVIDIA H100"
    extra = probe_fields.pipeline_extra({"passes": 3, "quality": "stable"})
    assert (extra.passes, extra.quality) == (3.0, "stable")
    assert probe_fields.pipeline_extra({"passes": "many"}).passes is None


def test_a_scaling_hosts_label_prefers_its_hostname_then_its_cpu_model():
    base = ScalingResult.model_validate(SCALING)
    for host, expected in (
        ({"hostname": "h1", "cpu_model": "c", "name": "n"}, "h1"),
        ({"cpu_model": "c", "name": "n"}, "c"),
        ({"name": "n"}, "n"),
        ({}, None),
    ):
        assert scaling_host(base.model_copy(update={"host": host})) == expected
