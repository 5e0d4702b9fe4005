"""The decision arithmetic, for the real gaps a fresh mutation draw (seed 2030, taken after every other kill
test was written) found: the all-reduce share as a ratio in any unit, the devices a sharded need takes
at a whole-number boundary, the master-weights finding, the rank counts a scaling probe is read at, the
knowledge-base range a device-scaling measurement leaves unused, the porting hazards a workflow that
ports PyTorch code is charged, and two paths that must not read what they do not have (the MFU of a
projection made without references, the price of a device with no accelerator or no knowledge base).
Each expected value is worked out in its docstring; a finding is asserted by its code and numbers,
worded through the catalogue, never by a sentence written here."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest

from advisor.decision.communication import communication_for, scaling_measurements
from advisor.decision.criteria.migration import charged_pitfalls
from advisor.decision.findings import said
from advisor.decision.memory import MemoryJob, _min_devices, allreduce_share, memory_fit, state_bytes
from advisor.decision.prepare import prepare
from advisor.decision.projections import project
from advisor.decision.tco import capital_per_device
from advisor.decision.workload import Shape
from advisor.requirements import parse_requirements
from kill_inputs import h100_team


@pytest.fixture(scope="module")
def kb():
    import knowledge

    return knowledge.load()


@pytest.fixture(scope="module")
def h100(kb):
    (acc,) = [a for a in kb.accelerators if a.id == "h100"]
    return acc


# ---- the all-reduce share is a ratio of times ---------------------------------------------------------
# The memory kill tests' job: 1e9 parameters, 2-byte gradients, 6.4e15 FLOPs a step, 1e14 FLOP/s a device,
# 1e11 bytes/s within a host.
_JOB = MemoryJob(
    params=1e9,
    bytes=state_bytes("bf16", "adam", False),
    trainable_share=1.0,
    shape=Shape(24, 1024, 16, 2048, 32000, []),
    micro_batch=1,
    recompute=None,
    flash_attention=False,
    largest_layer=32000 * 1024,
    max_tp=8,
    global_batch=64,
    formulas=("zero-paper",),
    tensor=False,
    pipeline=False,
    step_flops=6.4e15,
    device_flops=1e14,
    link_within=1e11,
    link_between=1e10,
)


def test_the_all_reduce_share_is_the_same_with_its_figures_counted_in_any_unit():
    """8 ranks in one host: 2 x 7/8 x 2e9 bytes / 1e11 B/s = 0.035 s of all-reduce against 6.4e15 / 8 /
    1e14 = 8 s of compute: 0.004375. Counted in larger units (1e12 parameters, 1e12 bytes/s, 1e16 FLOPs
    and FLOP/s: 0.001, 0.1, 0.64 and 0.01, all below 1) the times and the share are as they were: only a
    figure of 0 or less means there is nothing to compare. Two ranks: 2 x 1/2 x 2e9 / 1e11 = 0.02 s
    against 6.4e15 / 2 / 1e14 = 32 s: 0.000625; one rank exchanges nothing."""
    assert allreduce_share(_JOB, 1, 1, 8) == pytest.approx(0.004375)
    units = replace(_JOB, params=1e-3, link_within=0.1, link_between=0.01, step_flops=0.64, device_flops=0.01)
    assert allreduce_share(units, 1, 1, 8) == pytest.approx(0.004375)
    assert allreduce_share(_JOB, 1, 1, 2) == pytest.approx(0.000625)
    assert allreduce_share(_JOB, 1, 1, 1) == 0.0


# ---- the fewest devices of a sharded need ----------------------------------------------------------------


def test_a_sharded_need_takes_one_more_device_only_past_a_billionth_of_one():
    """Room for 1 unit a device. A need of exactly 2 units takes 2 devices, and so does one past it by
    5e-10 of a device (float noise from the GB arithmetic, within the 1e-9 tolerance); 1.5e-9 past it is a
    real excess: 3 devices. No room at all: no device count holds it."""
    assert _min_devices(0.0, 2.0, 1.0) == 2
    assert _min_devices(0.0, 2.0 + 5e-10, 1.0) == 2
    assert _min_devices(0.0, 2.0 + 1.5e-9, 1.0) == 3
    assert _min_devices(0.0, 0.5, 1.0) == 1  # never fewer than one device
    assert _min_devices(1.0, 2.0, 1.0) is None


# ---- the finding of the master weights -------------------------------------------------------------------


def _fit(precision: str, states: str = "fp32"):
    from types import SimpleNamespace

    import knowledge

    kb = knowledge.load()
    (acc,) = [a for a in kb.accelerators if a.id == "h100"]
    req = h100_team(
        name="vision",
        model={
            "family": "other",
            "parameters_millions": 100,
            "source": "pytorch-code",
            "precision": precision,
            "optimizer": "adam",
            "optimizer_states": states,
        },
        workload={"model": "custom", "gflops_per_sample": 10.0, "dataset_samples": 100000, "batch_size": 64},
    )
    return memory_fit(SimpleNamespace(accelerator=acc, training=None), req, kb)


def test_mixed_and_bf16_training_state_the_fp32_master_weights_and_their_bytes():
    """bf16 or mixed Adam keeps an fp32 master copy and two fp32 moments: 2 + 2 + 12 = 16 bytes a
    parameter, stated as the finding mem.master_weights with the precision and the 16; low-precision
    states state mem.low_precision_states instead; fp32 training states neither."""
    bf16 = _fit("bf16")
    assert bf16.bytes_per_parameter == 16.0
    assert said("mem.master_weights", precision="bf16", total=16.0) in bf16.notes
    assert said("mem.master_weights", precision="mixed", total=16.0) in _fit("mixed").notes
    low = _fit("bf16", "low-precision")
    assert said("mem.low_precision_states") in low.notes
    assert not any(n == said("mem.master_weights", precision="bf16", total=low.bytes_per_parameter) for n in low.notes)
    fp32 = _fit("fp32")
    assert said("mem.master_weights", precision="fp32", total=fp32.bytes_per_parameter) not in fp32.notes


# ---- the rank counts a scaling probe is read at ----------------------------------------------------------


@pytest.fixture
def scaling():
    path = Path(__file__).parent / "fixtures" / "scaling" / "scaling-2vcpu-lenet.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _counts(scaling, framework: str) -> list:
    (fw,) = [f for f in scaling["frameworks"] if f["framework"] == framework]
    return fw["rank_counts"]


def test_a_scaling_probe_is_read_at_its_largest_rank_count_that_ran_and_never_at_one_rank(scaling):
    """The fixture measures 1 and 2 ranks of each framework, 3 runs ok each. PyTorch's 2-rank count with
    no run ok leaves only its 1-rank count: no scaling at all, so no measurement. MindSpore with a
    4-rank count that never ran is still read at 2 ranks."""
    (two,) = [rc for rc in _counts(scaling, "pytorch") if rc["ranks"] == 2]
    two["runs_ok"] = 0
    four = copy.deepcopy(_counts(scaling, "mindspore")[-1])
    four.update(ranks=4, runs_ok=0)
    _counts(scaling, "mindspore").append(four)
    got = {m.framework: m.ranks for m in scaling_measurements(scaling)}
    assert got == {"mindspore": 2}


# ---- the knowledge-base range a device-scaling measurement leaves unused ---------------------------------


def test_a_measured_range_states_the_curves_kept_range_it_did_not_use(kb, h100, scaling):
    """One rank per GPU, 2 devices asked for: the measured efficiency is the range, and the curve's loss
    at 2 devices (2-10%) stays beside it as the finding comm.note.kb_unused_measured with what the curve
    would keep: 1 - 0.1 = 0.9 to 1 - 0.02 = 0.98."""
    gpu = copy.deepcopy(scaling)
    gpu["label"] = "device-scaling"
    for f in gpu["frameworks"]:
        f["device"] = "cuda"
    req = h100_team(
        name="lenet",
        devices=2,
        model={"family": "cnn", "parameters_millions": 0.06, "source": "pytorch-code"},
        workload={"model": "lenet", "dataset_samples": 60000},
        needs={"distributed_training": True},
    )
    plan = communication_for("pytorch", "nvidia", h100, req, kb, gpu, True)
    assert (plan.comm.basis, plan.comm.knowledge_loss) == ("measured", [0.02, 0.1])
    assert said("comm.note.kb_unused_measured", curve=True, low=1 - 0.1, high=1 - 0.02) in plan.comm.notes


# ---- the porting hazards a workflow is charged -----------------------------------------------------------
# Four pitfalls the scan can find in PyTorch code and that hold with no condition: hooks (PyNative only),
# the LR scheduler's API, the mixed-precision config and the normalisation range; the hybrid adds the
# in-place operations.
_PORTING = {"hooks-pynative-only", "lr-scheduler-api", "mixed-precision-config", "normalize-range"}


def _ctx(kb, source: str):
    req = parse_requirements(
        {
            "name": "vision",
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": 5},
            "hardware": {"available": ["ascend", "nvidia"], "training_target": "ascend", "accelerator": "910B"},
            "deployment": {"targets": ["ascend-server"]},
            "model": {"family": "cnn", "parameters_millions": 25.6, "source": source},
            "workload": {"model": "resnet50", "dataset_samples": 1281167, "epochs": 90},
        }
    )
    ctx, _ = prepare(req, None, [], kb, None, None, False)
    return ctx


def test_porting_hazards_are_charged_where_pytorch_code_is_ported_and_only_there(kb):
    """No scan: MindSpore from the team's PyTorch code ports it, so the four hazards are charged; new
    MindSpore code ports nothing, so none of them is; the hybrid always ports (all four and the in-place
    operations, whatever the code's source)."""

    def charged(wf: str, source: str) -> set[str]:
        return {p.id for p, _ in charged_pitfalls(wf, _ctx(kb, source))}

    assert _PORTING <= charged("mindspore", "pytorch-code")
    assert not _PORTING & charged("mindspore", "new")
    assert _PORTING | {"inplace-ops"} <= charged("hybrid", "new")
    assert _PORTING | {"inplace-ops"} <= charged("hybrid", "pytorch-code")


# ---- what a path must not read when it does not have it ---------------------------------------------------


def test_a_transformer_projected_from_the_peak_has_tokens_but_no_mfu(kb):
    """A 1.3 B transformer on 8 H100s capped at the peak basis: its sequences/s become tokens/s (x 2048)
    but no MFU reference was used, so the projection states no MFU."""
    req = h100_team(
        name="llm",
        model={
            "family": "transformer",
            "parameters_millions": 1300,
            "source": "pytorch-code",
            "layers": 24,
            "hidden_size": 2048,
            "attention_heads": 16,
            "sequence_length": 2048,
        },
        workload={"model": "transformer", "tokens": 1e10},
        needs={"distributed_training": True},
    )
    p = project("pytorch", req, kb, [], basis_cap="peak")
    assert p.basis == "peak" and p.mfu is None
    assert p.tokens_per_second.low == pytest.approx(p.images_per_second.low * 2048, abs=1.1)


def test_no_device_price_without_an_accelerator_or_a_knowledge_base(kb, h100):
    """An H100 is bought at $25,000-30,000 in the knowledge base; without the accelerator, or without the
    knowledge base, there is no price to read."""
    assert capital_per_device(kb, h100)[:2] == (25000.0, 30000.0)
    assert capital_per_device(kb, None) is None
    assert capital_per_device(None, h100) is None
