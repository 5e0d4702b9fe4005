"""The GPT probe's weights are made in the worker, at the worker's precision (fp32), after a memory
check: a shape inside GptConfig's limits but beyond the host is refused before anything is allocated."""

from __future__ import annotations

import argparse
import tracemalloc

import numpy as np
import pytest

from advisor.errors import UsageError
from probes.transformer import memory, spec, weights, worker_common
from probes.transformer.models import GptConfig

# An embedding-heavy shape: the float64 draw of the old code doubled its largest tensor.
WIDE = spec.Shape(layers=1, hidden=256, heads=4, seq=16, vocab=32768)
HUGE = dict(gpt_vocab=262144, gpt_hidden=8192)  # inside the limits: ~2.2 billion parameters


def test_weights_are_drawn_at_float32_without_a_float64_copy():
    fp32_bytes = spec.param_count(WIDE) * 4
    tracemalloc.start()
    try:
        arrays = weights.canonical(WIDE)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert all(a.dtype == np.float32 for a in arrays.values())
    # The old draw held the 8 MiB embedding in float64 (16 MiB) beside its float32 copy: peak >= 1.5x.
    largest = 4 * WIDE.vocab * WIDE.hidden
    assert peak < fp32_bytes + largest / 2, (peak, fp32_bytes)
    assert weights.checksum(arrays) == weights.checksum(weights.canonical(WIDE))  # still seeded


def test_need_bytes_by_hand():
    s = spec.Shape(layers=2, hidden=64, heads=4, seq=32, vocab=512)
    tokens = 4 * 32
    by_hand = (
        memory.FRAMEWORK_BYTES
        + 134_912 * 16  # parameters (test_gpt_probe counts 134,912) x weights, grads, momentum, init
        + 2 * tokens * (68 * 64 + 10 * 4 * 32)  # Korthikanti's 34sbh + 5as^2b per layer, doubled for fp32
        + tokens * 512 * 4 * 3  # logits, softmax, gradient
    )
    assert memory.need_bytes(s, 4) == by_hand


def test_refusal_names_the_shape_and_both_sizes():
    s = spec.Shape(layers=4, hidden=8192, heads=64, seq=128, vocab=262144)
    text = memory.refusal(s, 8, available=16 * 2**30)
    assert text is not None
    assert "vocab 262144" in text and "16.0 GiB available" in text and "GiB per process" in text
    assert memory.refusal(spec.Shape(), 8, available=16 * 2**30) is None  # the default shape fits


def _args(**kw):
    base = dict(models="gpt", frameworks="pytorch", modes="eager", budget=6.0, threads=None, repeat=2,
                max_repeat=3, no_parity=False, no_tune=False, max_steps=None, batch_size=32, data=None,
                device="auto", gpt_layers=None, gpt_hidden=None, gpt_heads=None, gpt_seq=None, gpt_vocab=None,
                gpt_batch=None, dynamic=None, dynamic_ways=None, dynamic_steps=None, dynamic_distinct=None,
                dynamic_passes=None)  # fmt: skip
    base.update(kw)
    return argparse.Namespace(**base)


def test_cli_refuses_a_shape_the_host_cannot_hold_before_any_allocation(monkeypatch):
    from advisor.commands import probe_gpt

    monkeypatch.setattr(memory, "available_bytes", lambda: 16 * 2**30)
    made = []
    monkeypatch.setattr(weights, "canonical", lambda *a, **k: made.append(a))
    tracemalloc.start()
    try:
        with pytest.raises(UsageError, match=r"^--gpt-layers/.*needs about .* GiB per process.*16\.0 GiB available"):
            probe_gpt.build_config(_args(**HUGE))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert made == [] and peak < 64 * 2**20  # arithmetic only: nothing near the model's size


def test_runner_makes_no_weights_and_starts_no_child_for_a_shape_too_large(monkeypatch):
    from probes import launcher
    from probes.transformer import runner

    monkeypatch.setattr(memory, "available_bytes", lambda: 16 * 2**30)
    monkeypatch.setattr(weights, "canonical", lambda *a, **k: pytest.fail("the parent made the weights"))
    monkeypatch.setattr(launcher, "run_child", lambda *a, **k: pytest.fail("a child started"))
    config = GptConfig(frameworks=["pytorch"], modes=["eager"], hidden=8192, heads=64, vocab=262144)
    installed = {"installed": True, "version": "x"}
    monkeypatch.setattr(runner.training, "installed_frameworks", lambda: {"pytorch": installed, "mindspore": installed})
    result = runner.run(config)
    assert [r.status for r in result.runs] == ["failed"]
    assert "GiB available" in result.runs[0].error and result.weights_checksum is None


def test_worker_refuses_before_its_work(monkeypatch):
    from probes import channel

    sent = []
    monkeypatch.setattr(channel, "result", lambda **kw: sent.append(kw))
    monkeypatch.setattr(memory, "available_bytes", lambda: 16 * 2**30)
    work = worker_common.memory_checked(lambda args: pytest.fail("the worker built the model"))
    args = worker_common.parser("torch").parse_args(["run", "--t-crit", "2", "--hidden", "8192", "--heads", "64",
                                                      "--vocab", "262144"])  # fmt: skip
    assert work(args) == 0
    assert sent and sent[0]["status"] == "failed" and "GiB available" in sent[0]["error"]
    # a shape that fits goes through to the work
    assert (
        worker_common.memory_checked(lambda args: 7)(worker_common.parser("torch").parse_args(["run", "--t-crit", "2"]))
        == 7
    )
