"""Projections: the basis ladder (measured > reference > peak x derating), FLOPs and device scaling,
adapter paths, unsupported paths, and the like-with-like comparison basis."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.commands.report import load_probe_file
from advisor.decision.projections import BASIS_RANK, common_basis, project, project_all
from advisor.requirements import parse_requirements
from advisor.decision.scoring import score

FIX = Path(__file__).resolve().parent / "fixtures" / "report"


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


def req(target="ascend", accelerator="Ascend 910B", devices=1, model="resnet50", **extra):
    data = {
        "name": "p",
        "team": {"pytorch": "basic", "mindspore": "basic"},
        "hardware": {"available": [target], "training_target": target, "devices": devices},
        "deployment": {"targets": ["cpu-server"]},
        "workload": {"model": model, "dataset_samples": 1_281_167, "epochs": 1},
    }
    if accelerator:
        data["hardware"]["accelerator"] = accelerator
    data.update(extra)
    return parse_requirements(data)


def test_nvidia_reference_basis_and_time_cost(kb):
    p = project("pytorch", req("nvidia", "A100 80GB"), kb, [])
    assert p.basis == "reference" and p.path == "pytorch-cuda" and p.native
    assert p.images_per_second.low <= p.images_per_second.high
    # The knowledge base's 1x A100 ResNet-50 runs (TF32 and AMP) bound the single-device projection.
    refs = [
        r.images_per_second.value
        for r in kb.references
        if r.accelerator == p.accelerator
        and r.devices == 1
        and r.framework == "pytorch"
        and "imagenet" in r.dataset.lower()
    ]
    assert (
        refs
        and p.images_per_second.low == pytest.approx(min(refs))
        and p.images_per_second.high == pytest.approx(max(refs))
    )
    hours = p.time_to_train_hours
    assert hours.low == pytest.approx(1_281_167 / p.images_per_second.high / 3600, rel=1e-3)
    assert p.compute_cost_usd is not None and p.compute_cost_usd.low > 0
    assert any(e.kind == "knowledge" and e.source for e in p.evidence)


def test_more_devices_more_throughput_less_than_linear(kb):
    one = project("mindspore", req(devices=1), kb, [])
    eight = project("mindspore", req(devices=8), kb, [])
    assert eight.images_per_second.high <= 8 * one.images_per_second.high + 1e-6
    assert eight.images_per_second.low > one.images_per_second.low
    assert eight.time_to_train_hours.high < one.time_to_train_hours.high


def test_adapter_path_projects_below_first_party(kb):
    r = req()
    native, adapter = project("mindspore", r, kb, []), project("pytorch", r, kb, [])
    assert native.native and not adapter.native and adapter.path == "pytorch-npu"
    assert adapter.images_per_second.high <= native.images_per_second.high
    assert adapter.images_per_second.low < native.images_per_second.low


def test_smaller_workload_is_faster(kb):
    big, small = (
        project("mindspore", req(model="resnet50"), kb, []),
        project("mindspore", req(model="resnet18"), kb, []),
    )
    ratio = small.images_per_second.low / big.images_per_second.low
    assert ratio == pytest.approx(24.5 / 10.9, rel=1e-6)


def test_measured_beats_reference_and_cap_forces_weaker_basis(kb):
    suites = [load_probe_file(str(FIX / "probes-ascend.json"))]
    r = req(model="resnet18")
    p = project("mindspore", r, kb, suites)
    assert p.basis == "measured" and p.evidence[0].kind == "measured" and p.evidence[0].ci95
    # probe run on CIFAR-size ResNet-18 (3.3 GFLOPs) scaled to the 224x224 workload (10.9)
    assert p.images_per_second.low == pytest.approx(1650 * 3.3 / 10.9, rel=1e-3)
    capped = project("mindspore", r, kb, suites, basis_cap="reference")
    assert capped.basis == "reference"


def test_common_basis_is_the_weakest_shared(kb):
    suites = [load_probe_file(str(FIX / "probes-cpu.json"))]
    r = parse_requirements(
        {
            "name": "c",
            "hardware": {"available": ["cpu"], "training_target": "cpu"},
            "deployment": {"targets": ["cpu-server"]},
            "workload": {"model": "resnet18", "gflops_per_sample": 3.3, "dataset_samples": 50000, "epochs": 1},
        }
    )
    projections = project_all(r, kb, suites)
    assert {p.basis for p in projections.values()} == {"measured"} and common_basis(projections) == "measured"
    no_probes = project_all(r, kb, [])
    assert common_basis(no_probes) == "none"
    assert all("advisor probe" in p.basis_detail for p in no_probes.values())
    assert BASIS_RANK["measured"] > BASIS_RANK["reference"] > BASIS_RANK["peak"] > BASIS_RANK["none"]


def test_mindspore_on_cuda_is_unsupported_with_kb_evidence(kb):
    p = project("mindspore", req("nvidia", "A100 80GB"), kb, [])
    assert not p.supported and p.path == "mindspore-gpu" and p.images_per_second is None
    assert p.evidence and p.evidence[0].ref == "mindspore"


def test_budget_is_a_hard_constraint(kb):
    r = req(devices=8, constraints={"budget_usd": 0.01})
    card = score(r, None, None, kb)
    assert all(not s.eligible and any("budget_usd" in b for b in s.blocked_by) for s in card.scores)
    generous = score(req(devices=8, constraints={"budget_usd": 1e9}), None, None, kb)
    assert all(not any("budget_usd" in b for b in s.blocked_by) for s in generous.scores)
