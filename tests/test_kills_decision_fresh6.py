"""The decision arithmetic, for the real gaps of the fresh seed-2040 draw (94%: 33 killed, 2 survived, every
covering test run): a model whose states fit one device but not with one sample's activations must split,
and says so. Each expected value is worked out in its docstring."""

from __future__ import annotations

from advisor.decision.constants import DEFAULT
from advisor.decision.findings import said
from advisor.decision.memory import GB, MemoryFit, StateBytes, _per_sample_fit


def test_states_that_fit_alone_but_not_with_one_samples_activations_must_split():
    """0.5 G parameters at 16 bytes each (bf16 weights and gradients, fp32 master and Adam moments): 8 GB of
    states on a 10 GB device, 3 GB of activations per sample. Replicated, one device holds 8 + 3 = 11 GB >
    10: it must split. ZeRO stage 2 keeps the 2-byte weights whole (1 GB) and shards the other 7 GB over
    8 devices: 1 + 7 / 8 + 3 = 4.875 GB fits, so optimizer sharding is the simplest strategy that fits."""
    fit = MemoryFit(
        devices=8,
        parameters_millions=500.0,
        precision="mixed",
        optimizer="adam",
        bytes_per_parameter=16.0,
        states_gb=8.0,
        activation_gb_per_sample=3.0,
        batch_per_device=1,
        data_parallel_gb=11.0,
        strategy="data-parallel",
    )
    out = _per_sample_fit(fit, 0.5e9, StateBytes(2.0, 2.0, 12.0, 2.0), 1.0, 3 * GB, 1, 10 * GB, DEFAULT, "X")
    assert out.must_split is True and out.strategy == "optimizer-sharding"
    by = {s.strategy: s for s in out.strategies}
    assert not by["data-parallel"].fits and by["data-parallel"].min_devices is None
    assert by["optimizer-sharding"].per_device_gb == 4.875
    assert (
        said(
            "mem.must_split",
            states=8.0,
            accelerator="X",
            usable=10.0,
            strategy="optimizer-sharding",
            devices=8,
            min_devices=out.min_devices,
        )
        in out.notes
    )


def test_a_measured_shape_under_a_reference_that_carries_its_loss_says_only_that():
    """The scaling probe measured the target's own shape (its plan is the measured one, with no text for
    "measured beside"), but the projection took a multi-device reference on 8 devices, which already
    carries the loss: the communication is "in-reference" and says so, with nothing set beside it."""
    from advisor.decision.communication import Communication, CommPlan, ScalingMeasurement, settle

    m = ScalingMeasurement(
        id="scaling:pytorch-resnet18-r8",
        framework="pytorch",
        device="cuda",
        hardware="nvidia",
        model="resnet18",
        ranks=8,
        label="device-scaling",
        device_scaling=True,
    )
    plan = CommPlan(Communication(devices=8, basis="measured", basis_detail="measured", measured=m))
    out = settle(plan, applied=False, ref_devices=frozenset({8}), projected=True)
    assert out.basis == "in-reference"
    assert out.basis_detail == said("comm.detail.in_reference", counts=[8])
    assert out.measured == m and out.notes == []
