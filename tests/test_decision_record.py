"""The decision model's whole output, pinned: every section of the report (scores, projections, memory,
costs, schedules, pitfalls, sensitivity, assumptions, the review document) for a catalogue of inputs
that reaches the paths the bundled examples do not (stages, targets, fleets, serving, fine-tuning, MoE,
budgets and their scopes, owned hardware, measured evidence of every kind), compared with the digests
recorded in tests/golden/decision-record.txt.

What it checks: that the output did not change. Whether an output is right is what the named tests
check (tests/test_kills_decision_*.py and the formula tests work each figure out by hand); this one
notices any change they do not pin, a note dropped, a rounding moved, a branch no named test reaches,
and names the case and the section that changed. A change made on purpose is recorded again with

    ADVISOR_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q -p no:cacheprovider tests/test_decision_record.py

and a failing case leaves its whole report as JSON under pytest's temporary folder (the path is in the
message), to diff against the same case built on the commit before.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent))

import knowledge  # noqa: E402
from fixtures.scaling.multinode import a100_team, gate_failed_doc, gpu_scaling_doc, multinode_doc  # noqa: E402
from advisor.measurements import Measured, Measurements  # noqa: E402
from advisor.report import build_report  # noqa: E402
from advisor.requirements import parse_requirements  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "decision-record.txt"
UPDATE = os.environ.get("ADVISOR_UPDATE_GOLDEN") == "1"
REPORT_FIX = ROOT / "tests" / "fixtures" / "report"
TUI_FIX = ROOT / "tests" / "fixtures" / "tui"

# Sections that say when and with what the report was made, not what it decided.
NOT_DECIDED = ("created_at", "tool")
# Floats are compared to this many significant digits: libm's last bit may differ between machines,
# while a changed constant or formula moves a figure far more.
DIGITS = 10

# A GPU team of 16 A100s training ResNet-50, the requirements the inter-host cases judge against.
GPU16 = a100_team(16)
BASES: dict[str, Any] = {
    "ascend": ROOT / "examples" / "ascend-production.yaml",
    "nvidia": ROOT / "examples" / "nvidia-research-team.yaml",
    "hybrid": ROOT / "examples" / "prototype-then-ascend.yaml",
    "llm-cpt": REPORT_FIX / "llm-14b-cpt-910b.yaml",
    "cpu": REPORT_FIX / "cpu-team.yaml",
    "h200": REPORT_FIX / "h200-team.yaml",
    "with-code": REPORT_FIX / "with-code.yaml",
    "gpu16": GPU16,
}
BASES.update({f"team-{p.stem}": p for p in sorted((ROOT / "tests" / "fixtures" / "teams").glob("*.yaml"))})
BASES.pop("team-accepted", None)  # the bad-input catalogue's file, not a team

SCALING = ROOT / "tests" / "fixtures" / "scaling" / "scaling-2vcpu-lenet.json"
# name -> (kind, a result file or a function making its JSON); the kind "scan" is the code scan of
# model.code_path, made here
MEASURED: dict[str, tuple[str, Any]] = {
    "training-cpu": ("training", REPORT_FIX / "probes-cpu.json"),
    "training-ascend": ("training", REPORT_FIX / "probes-ascend.json"),
    "training-h200": ("training", REPORT_FIX / "probes-h200.json"),
    "accuracy": ("accuracy", REPORT_FIX / "accuracy-2vcpu.json"),
    "pipeline": ("pipeline", REPORT_FIX / "pipeline-2vcpu.json"),
    "gpt": ("gpt", REPORT_FIX / "gpt-2vcpu.json"),
    "deploy": ("deploy", TUI_FIX / "deploy-lenet.json"),
    "scaling": ("scaling", SCALING),
    "scaling-multinode": ("scaling", lambda: multinode_doc(loopback=False)),
    "scaling-multinode-loopback": ("scaling", lambda: multinode_doc(loopback=True)),
    "scaling-multinode-cpu": ("scaling", lambda: multinode_doc(loopback=False, device="cpu", model="lenet")),
    "scaling-gate-failed": ("scaling", gate_failed_doc),
    "scaling-gpu": ("scaling", gpu_scaling_doc),
    "scaling-gpu-gate-failed": ("scaling", lambda: gpu_scaling_doc(gate_ok=False)),
    "scaling-gpu-lenet": ("scaling", lambda: gpu_scaling_doc(model="lenet")),
    "scan": ("scan", REPORT_FIX / "code"),
}

# (case, base, dotted changes, measured kinds). A change's value None removes the field.
Case = tuple[str, str, dict[str, Any], tuple[str, ...]]
CASES: list[Case] = [
    *[(name, name, {}, ()) for name in BASES],
    # the examples moved along the paths their own inputs do not take
    ("ascend-prototype-stage", "ascend", {"stage": "prototype"}, ()),
    ("ascend-research-no-deadline", "ascend", {"stage": "research", "constraints.deadline_weeks": None}, ()),
    ("ascend-undecided-target", "ascend", {"hardware.training_target": "undecided"}, ()),
    ("ascend-one-device", "ascend", {"hardware.devices": 1, "needs.distributed_training": False}, ()),
    ("ascend-64-devices-ethernet", "ascend", {"hardware.devices": 64, "hardware.network": "ethernet"}, ()),
    ("ascend-tight-deadline", "ascend", {"constraints.deadline_weeks": 1}, ()),
    ("ascend-no-domestic", "ascend", {"needs.domestic_substitution": "none"}, ()),
    ("ascend-domestic-training-only", "ascend", {"needs.domestic_scope": ["training"]}, ()),
    ("ascend-mobile", "ascend", {"deployment.targets": ["mobile"]}, ()),
    ("ascend-fp32-sgd", "ascend", {"model.precision": "fp32", "model.optimizer": "sgd-momentum"}, ()),
    ("ascend-team-novices", "ascend", {"team.pytorch": "none", "team.mindspore": "none", "team.size": 1}, ()),
    ("ascend-weights", "ascend", {"weights.cost": 3, "weights.performance": 0.5}, ()),
    ("ascend-budget-compute", "ascend", {"constraints.budget_usd": 20000, "constraints.budget_scope": "compute"}, ()),
    (
        "ascend-budget-total-owned",
        "ascend",
        {
            "constraints.budget_usd": 400000,
            "constraints.budget_scope": "total",
            "constraints.compute_pricing": "owned",
            "constraints.amortisation_years": 3,
        },
        (),
    ),
    ("ascend-owned-sunk", "ascend", {"constraints.compute_pricing": "owned", "constraints.owned_capital": "sunk"}, ()),
    (
        "ascend-custom-ops",
        "ascend",
        {
            "model.source": "pytorch-code",
            "model.custom_cuda_ops": True,
            "model.custom_cuda_kernels": 6,
            "model.dynamic_control_flow": True,
            "model.dynamic_shapes": True,
        },
        (),
    ),
    ("nvidia-cpu-target", "nvidia", {"hardware.training_target": "cpu", "hardware.available": ["nvidia", "cpu"]}, ()),
    ("nvidia-edge-ascend", "nvidia", {"deployment.targets": ["edge-ascend", "nvidia-server"]}, ()),
    ("nvidia-hf-none", "nvidia", {"needs.huggingface": "none", "needs.debugging_intensity": "low"}, ()),
    (
        "nvidia-resnet18-training",
        "nvidia",
        {"workload": {"model": "resnet18", "dataset_samples": 50000, "epochs": 30}},
        (),
    ),
    ("nvidia-resnet50-inference", "nvidia", {"workload": {"model": "resnet50", "kind": "inference"}}, ()),
    (
        "nvidia-gflops-given",
        "nvidia",
        {
            "workload": {"model": "custom", "gflops_per_sample": 12.5, "dataset_samples": 2000000, "epochs": 5},
        },
        (),
    ),
    ("hybrid-mindspore-code", "hybrid", {"model.source": "mindspore-code"}, ()),
    ("hybrid-other-framework", "hybrid", {"model.source": "other-framework", "model.family": "rnn"}, ()),
    ("hybrid-no-workload", "hybrid", {"workload": None}, ()),
    (
        "hybrid-domestic-split",
        "hybrid",
        {"needs.domestic_hardware": "required", "needs.domestic_framework": "none"},
        (),
    ),
    ("llm-lora", "llm-cpt", {"model.fine_tune": "lora", "model.trainable_share": 0.01}, ()),
    ("llm-qlora-int4", "llm-cpt", {"model.fine_tune": "qlora", "model.base_weights_precision": "int4"}, ()),
    ("llm-full-recompute", "llm-cpt", {"model.recompute": "full", "model.flash_attention": False}, ()),
    ("llm-low-precision-states", "llm-cpt", {"model.optimizer_states": "low-precision", "workload.micro_batch": 2}, ()),
    (
        "llm-moe",
        "llm-cpt",
        {"model.experts": 64, "model.experts_per_token": 4, "model.active_parameters_millions": 2700},
        (),
    ),
    ("llm-encoder", "llm-cpt", {"model.architecture": "encoder", "model.upstream": "transformers"}, ()),
    (
        "llm-serving-int8",
        "llm-cpt",
        {
            "serving.requests_per_second": 20,
            "serving.prompt_tokens": 1024,
            "serving.output_tokens": 256,
            "serving.ttft_ms": 800,
            "serving.tpot_ms": 60,
            "serving.quantization": "int8",
        },
        (),
    ),
    (
        "llm-serving-w4a16-concurrency",
        "llm-cpt",
        {
            "serving.concurrency": 64,
            "serving.quantization": "w4a16",
            "deployment.targets": ["nvidia-server"],
        },
        (),
    ),
    ("llm-inference-only", "llm-cpt", {"workload.kind": "inference", "serving.requests_per_second": 5}, ()),
    # measured evidence of each kind, alone and together
    ("cpu-measured", "cpu", {}, ("training-cpu",)),
    ("cpu-everything-measured", "cpu", {}, ("training-cpu", "accuracy", "pipeline", "deploy", "scaling")),
    ("ascend-measured-ascend", "ascend", {}, ("training-ascend",)),
    ("h200-measured", "h200", {}, ("training-h200",)),
    ("hybrid-measured-all", "hybrid", {}, ("training-cpu", "accuracy", "pipeline", "deploy", "scaling")),
    ("hybrid-accuracy-only", "hybrid", {}, ("accuracy",)),
    ("llm-gpt", "llm-cpt", {}, ("gpt",)),
    ("nvidia-deploy-scaling", "nvidia", {}, ("deploy", "scaling")),
    # the paths the cases above do not reach: other chips, families, serving precisions, memory layouts,
    # budgets, the code scan, the inter-host link and a failed correctness gate
    ("gpu16-multinode", "gpu16", {}, ("scaling-multinode",)),
    ("gpu16-multinode-loopback", "gpu16", {}, ("scaling-multinode-loopback",)),
    ("gpu16-multinode-lenet-on-cpu", "gpu16", {}, ("scaling-multinode-cpu",)),
    ("gpu16-gate-failed", "gpu16", {}, ("scaling-gate-failed",)),
    ("gpu4-scaling", "gpu16", {"hardware.devices": 4}, ("scaling",)),
    ("gpu2-measured-scaling", "gpu16", {"hardware.devices": 2}, ("scaling-gpu",)),
    ("gpu2-scaling-gate-failed", "gpu16", {"hardware.devices": 2}, ("scaling-gpu-gate-failed",)),
    ("gpu2-scaling-other-model", "gpu16", {"hardware.devices": 2}, ("scaling-gpu-lenet",)),
    ("gpu16-measured-two-ranks", "gpu16", {}, ("scaling-gpu",)),
    ("ascend-gpu-scaling", "ascend", {}, ("scaling-gpu",)),
    ("ascend-910c", "ascend", {"hardware.accelerator": "Ascend 910C", "hardware.devices": 16}, ()),
    ("ascend-910b4-1", "ascend", {"hardware.accelerator": "Ascend 910B4", "hardware.devices": 1}, ()),
    ("ascend-unknown-chip", "ascend", {"hardware.accelerator": "Ascend 999X"}, ()),
    (
        "nvidia-h100",
        "nvidia",
        {"hardware.accelerator": "H100 SXM5 80GB", "hardware.devices": 8, "hardware.network": "roce-ib"},
        (),
    ),
    ("nvidia-rtx4090-1", "nvidia", {"hardware.accelerator": "RTX 4090", "hardware.devices": 1}, ()),
    (
        "gnn-custom",
        "hybrid",
        {
            "model.family": "gnn",
            "workload": {"model": "custom", "gflops_per_sample": 3.0, "dataset_samples": 100000, "epochs": 20},
        },
        (),
    ),
    ("other-family", "nvidia", {"model.family": "other"}, ()),
    ("lenet-cpu", "cpu", {"workload": {"model": "lenet", "dataset_samples": 60000, "epochs": 10}}, ()),
    (
        "llm-serving-fp8-h100",
        "llm-cpt",
        {
            "hardware.available": ["nvidia"],
            "hardware.training_target": "nvidia",
            "hardware.accelerator": "H100 SXM5 80GB",
            "deployment.targets": ["nvidia-server"],
            "serving.quantization": "fp8",
            "serving.concurrency": 32,
        },
        (),
    ),
    (
        "llm-serving-w8a8-tight",
        "llm-cpt",
        {
            "serving.quantization": "w8a8",
            "serving.ttft_ms": 50,
            "serving.tpot_ms": 5,
            "serving.requests_per_second": 500,
        },
        (),
    ),
    (
        "llm-fp32-adam",
        "llm-cpt",
        {"model.precision": "fp32", "model.optimizer": "adam", "model.optimizer_states": "fp32"},
        (),
    ),
    ("llm-selective-long", "llm-cpt", {"model.recompute": "selective", "model.sequence_length": 32768}, ()),
    (
        "llm-moe-8-experts",
        "llm-cpt",
        {"model.experts": 8, "model.experts_per_token": 2, "model.active_parameters_millions": 4000},
        (),
    ),
    (
        "llm-lora-fp32-states",
        "llm-cpt",
        {"model.fine_tune": "lora", "model.optimizer_states": "fp32", "model.base_weights_precision": "bf16"},
        (),
    ),
    (
        "llm-decoder-shape",
        "llm-cpt",
        {
            "model.layers": 48,
            "model.hidden_size": 5120,
            "model.attention_heads": 40,
            "model.vocabulary": 152064,
            "model.architecture": "decoder",
        },
        (),
    ),
    (
        "llm-budget-engineering",
        "llm-cpt",
        {"constraints.budget_usd": 50000, "constraints.budget_scope": "engineering"},
        (),
    ),
    ("llm-cloud-pricing", "llm-cpt", {"constraints.compute_pricing": "cloud"}, ()),
    ("with-code-scan", "with-code", {}, ("scan",)),
    (
        "with-code-mindspore-target-gpu",
        "with-code",
        {"hardware.training_target": "nvidia", "hardware.accelerator": "A100 SXM4 80GB"},
        ("scan",),
    ),
    ("h200-everything", "h200", {}, ("training-h200", "accuracy", "pipeline", "deploy", "scaling", "gpt")),
    ("ascend-measured-everything", "ascend", {}, ("training-ascend", "training-cpu", "accuracy", "pipeline", "deploy")),
    ("edge-only", "ascend", {"deployment.targets": ["edge-ascend"], "needs.edge_cloud": True, "stage": "research"}, ()),
    ("cpu-server-mobile", "nvidia", {"deployment.targets": ["cpu-server", "mobile"]}, ()),
    (
        "domestic-deploy-only",
        "nvidia",
        {"needs.domestic_substitution": "required", "needs.domestic_scope": ["deployment"]},
        (),
    ),
    ("team-size-large", "hybrid", {"team.size": 40, "team.pytorch": "expert", "team.mindspore": "expert"}, ()),
]


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch):
    # the document dates stale ratings against today: pinned so the record does not age; the scan
    # names its folder as given, from the checkout's root
    monkeypatch.setenv("ADVISOR_TODAY", "2026-12-01")
    monkeypatch.chdir(ROOT)


def _changed(data: dict, changes: dict[str, Any]) -> dict:
    data = copy.deepcopy(data)
    for dotted, value in changes.items():
        *parents, leaf = dotted.split(".")
        node = data
        for key in parents:
            node = node.setdefault(key, {})
        if value is None:
            node.pop(leaf, None)
        else:
            node[leaf] = value
    return data


def _measurements(kinds: tuple[str, ...], kb) -> Measurements:
    probes: dict[str, Measured] = {}
    scan = None
    for name in kinds:
        kind, where = MEASURED[name]
        if kind == "scan":
            from advisor.scan import scan_path

            scan = scan_path(str(where.relative_to(ROOT)), kb=kb)  # relative: the record names no checkout
        elif callable(where):
            probes[kind] = Measured(where(), "file", (f"{name}.json",))
        else:
            probes[kind] = Measured(json.loads(where.read_text(encoding="utf-8")), "file", (where.name,))
    return Measurements(probes=probes, scan=scan)


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.{DIGITS}g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def report_json(case: Case, kb) -> dict:
    _, base, changes, kinds = case
    given = BASES[base]
    data = _changed(given if isinstance(given, dict) else yaml.safe_load(given.read_text(encoding="utf-8")), changes)
    report = build_report(parse_requirements(data), _measurements(kinds, kb), kb=kb, created_at="2026-12-01T00:00:00Z")
    doc = report.model_dump(mode="json")
    return {k: _rounded(v) for k, v in doc.items() if k not in NOT_DECIDED}


def digests(doc: dict) -> dict[str, str]:
    return {
        section: hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]
        for section, value in sorted(doc.items())
    }


def _recorded() -> dict[str, dict[str, str]]:
    recorded: dict[str, dict[str, str]] = {}
    if GOLDEN.exists():
        for line in GOLDEN.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                case, section, digest = line.split()
                recorded.setdefault(case, {})[section] = digest
    return recorded


def _record(case: str, sections: dict[str, str]) -> None:
    recorded = _recorded()
    recorded[case] = sections
    order = [c[0] for c in CASES]
    lines = ["# case section digest: tests/test_decision_record.py (ADVISOR_UPDATE_GOLDEN=1 records again)"]
    for name in sorted(recorded, key=lambda n: order.index(n) if n in order else len(order)):
        if name in order:
            lines += [f"{name} {section} {digest}" for section, digest in sorted(recorded[name].items())]
    GOLDEN.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_every_case_is_named_once_and_its_base_exists():
    names = [c[0] for c in CASES]
    assert len(names) == len(set(names))
    assert all(c[1] in BASES for c in CASES)
    assert all(kind in MEASURED for c in CASES for kind in c[3])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_the_decision_record_is_unchanged(case, kb, tmp_path):
    doc = report_json(case, kb)
    now = digests(doc)
    if UPDATE:
        _record(case[0], now)
        # comparing what was just written would always pass: the next run (without the variable) compares
        pytest.skip(f"{case[0]} recorded: compared on the next run")
    was: Optional[dict[str, str]] = _recorded().get(case[0])
    assert was is not None, f"{case[0]} has no record: run with ADVISOR_UPDATE_GOLDEN=1 to record it"
    changed = sorted(s for s in set(now) | set(was) if now.get(s) != was.get(s))
    if changed:
        dump = tmp_path / f"{case[0]}.json"
        dump.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False), encoding="utf-8")
    assert not changed, (
        f"{case[0]}: the report's {', '.join(changed)} changed (its JSON: {tmp_path / (case[0] + '.json')}); "
        "if on purpose, record again with ADVISOR_UPDATE_GOLDEN=1"
    )
