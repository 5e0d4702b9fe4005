"""The transformer probe (kind "gpt"): FLOPs accounting, config validation, tolerance derivation,
parity and the dynamic-shape arithmetic by hand; real runs of a tiny GPT in all four modes (slow)."""

from __future__ import annotations

import argparse
import math

import numpy as np
import pytest
from pydantic import ValidationError

from advisor.errors import UsageError
from probes.transformer import batches, flops, parity, spec, weights, worker_common
from probes.transformer.models import DynamicRun, GptConfig, GptResult

TINY = spec.Shape(layers=2, hidden=64, heads=4, seq=32, vocab=512)
U = 2.0**-24


# ------------------------------------------------------------------ FLOPs and parameters by hand


def test_flops_per_token_default_shape_by_hand():
    # N = 4 layers x 12 x 256^2 + 256 x 8192 (tied head) = 3,145,728 + 2,097,152 = 5,242,880
    # 6N = 31,457,280; 12 L H S = 12 x 4 x 256 x 128 = 1,572,864
    s = spec.Shape()
    assert flops.matmul_params(s) == 5_242_880
    assert flops.train_flops_per_token(s) == 31_457_280 + 1_572_864


def test_flops_per_token_tiny_and_shorter_length():
    # N = 2 x 12 x 64^2 + 64 x 512 = 98,304 + 32,768 = 131,072; 6N = 786,432; 12 x 2 x 64 x 32 = 49,152
    assert flops.train_flops_per_token(TINY) == 835_584
    # a batch of length 8 pays only its own attention square: 12 x 2 x 64 x 8 = 12,288
    assert flops.train_flops_per_token(TINY, 8) == 786_432 + 12_288


def test_param_count_by_hand():
    # embeddings 512x64 + 32x64; per block: 2 LN (2x128) + qkv 12,288+192 + proj 4,096+64
    # + fc 16,384+256 + proj 16,384+64 = 49,984; final LN 128
    assert spec.param_count(TINY) == 32_768 + 2_048 + 2 * 49_984 + 128 == 134_912


def test_mindspore_names():
    assert spec.mindspore_name("tok_emb.weight") == "tok_emb.embedding_table"
    assert spec.mindspore_name("blocks.0.ln1.weight") == "blocks.0.ln1.gamma"
    assert spec.mindspore_name("ln_f.bias") == "ln_f.beta"
    assert spec.mindspore_name("blocks.1.mlp.fc.weight") == "blocks.1.mlp.fc.weight"


def test_weights_deterministic_and_scaled():
    a, b = weights.canonical(TINY), weights.canonical(TINY)
    assert weights.checksum(a) == weights.checksum(b)
    assert abs(float(a["tok_emb.weight"].std()) - 0.02) < 0.001
    # residual projections: 0.02 / sqrt(2 layers) = 0.01
    assert abs(float(a["blocks.0.mlp.proj.weight"].std()) - 0.01) < 0.001
    assert np.all(a["blocks.0.ln1.weight"] == 1) and np.all(a["blocks.0.attn.qkv.bias"] == 0)


# ------------------------------------------------------------------ config validation


def test_config_rejects_heads_not_dividing_hidden():
    with pytest.raises(ValidationError, match="multiple of heads"):
        GptConfig(hidden=256, heads=3)


def test_config_rejects_unknown_field_and_bad_values():
    with pytest.raises(ValidationError):
        GptConfig(hiden=64)
    with pytest.raises(ValidationError):
        GptConfig(layers=0)
    with pytest.raises(ValidationError):
        GptConfig(dynamic_variants=["graph", "jit"])
    with pytest.raises(ValidationError, match="dynamic_distinct"):
        GptConfig(seq=8, dynamic_distinct=8)  # lengths 2..8 offer only 7 values


def test_config_defaults_fit_the_issue():
    c = GptConfig()
    assert (c.layers, c.hidden, c.heads, c.seq, c.vocab) == (4, 256, 4, 128, 8192)
    assert c.modes == ["eager", "compile", "graph", "pynative"]


# ------------------------------------------------------------------ tolerances and parity


def test_tolerances_by_hand():
    t = parity.tolerances(TINY, batch=2)
    # K = max(hidden 64, 4 hidden 256, seq 32, vocab 512) = 512; D = 6 x 2 + 1 = 13
    assert t["derivation"]["reduction_length"] == 512 and t["derivation"]["matmuls_on_path"] == 13
    assert t["forward"] == pytest.approx(4 * U * math.sqrt(512) * math.sqrt(13))
    # backward: max(512, batch 2 x seq 32 = 64) = 512 over 2D = 26 matmuls
    assert t["gradient"] == pytest.approx(4 * U * math.sqrt(512) * math.sqrt(26))
    big = parity.tolerances(TINY, batch=64)  # 64 x 32 = 2,048 tokens summed in a weight gradient
    assert big["derivation"]["backward_reduction_length"] == 2048
    assert t["step"] == pytest.approx(3 * U)


def _arrays(rng, shift=0.0):
    names = ["a.weight", "b.bias"]
    p0 = {n: rng.standard_normal(4).astype(np.float32) for n in names}
    g = {n: rng.standard_normal(4).astype(np.float32) for n in names}
    out = {"logits": rng.standard_normal((2, 32, 512)).astype(np.float32), "loss": np.array([6.2], np.float32)}
    for n in names:
        out["grad/" + n] = g[n]
        out["after/" + n] = (p0[n] - spec.LR * g[n] + shift).astype(np.float32)
    return out


def test_parity_passes_identical_and_fails_beyond_the_bound():
    ref = _arrays(np.random.default_rng(0))
    assert parity.compare(TINY, ref, {k: v.copy() for k, v in ref.items()})["ok"]
    other = {k: v.copy() for k, v in ref.items()}
    bound = parity.tolerances(TINY, 2)["forward"] * float(np.max(np.abs(ref["logits"])))
    other["logits"][0, 0, 0] += 10 * bound
    res = parity.compare(TINY, ref, other)
    assert not res["ok"] and res["error"] == "mismatch in logits" and "epsilon" in res["likely_cause"]


def test_parity_step_check_explains_gradient_differences_but_not_an_optimizer_change():
    rng = np.random.default_rng(1)
    ref = _arrays(rng)
    other = {k: v.copy() for k, v in ref.items()}
    # a gradient 1e-6 off moves p1 by lr x 1e-6: explained by the gradient, the step check passes
    other["grad/a.weight"] = ref["grad/a.weight"] + np.float32(1e-6)
    other["after/a.weight"] = (ref["after/a.weight"] - np.float32(spec.LR * 1e-6)).astype(np.float32)
    checks = {c["name"]: c for c in parity.compare(TINY, ref, other)["checks"]}
    assert checks["params_after_step"]["ok"]
    # a weight decay of 1e-2 applied in one framework only: 1e-4 x |p| is far above 3u
    other = {k: v.copy() for k, v in ref.items()}
    other["after/b.bias"] = ref["after/b.bias"] * np.float32(1 - spec.LR * 1e-2)
    checks = {c["name"]: c for c in parity.compare(TINY, ref, other)["checks"]}
    assert not checks["params_after_step"]["ok"]


def test_parity_names_the_conventions():
    res = parity.compare(TINY, _arrays(np.random.default_rng(2)), _arrays(np.random.default_rng(2)))
    text = " ".join(res["conventions"])
    for word in ("epsilon", "GELU", "mask", "tying", "initialisation"):
        assert word in text


# ------------------------------------------------------------------ batches and the dynamic arithmetic


def test_lengths_use_every_distinct_value():
    lens = batches.lengths(128, 16, 8)
    assert len(lens) == 16 and len(set(lens)) == 8 and min(lens) == 32 and max(lens) == 128


def test_padding_ways():
    assert batches.buckets(128) == [32, 64, 96, 128]
    lens = [10, 33, 128]
    sched = batches.schedule(512, 2, 128, lens, "bucketed")
    assert [b.tokens.shape[1] for b in sched] == [32, 64, 128]
    assert [b.real_tokens for b in sched] == [20, 66, 256]
    sched = batches.schedule(512, 2, 128, lens, "variable")
    assert [b.tokens.shape[1] for b in sched] == lens
    padded = batches.schedule(512, 2, 128, lens, "padded")
    assert all(b.tokens.shape == (2, 128) for b in padded)
    assert np.array_equal(padded[0].tokens[:, :10], sched[0].tokens)  # same real tokens every way


def test_fixed_batches_shift_targets():
    b = batches.fixed(512, 2, 32, n=1)[0]
    assert b.tokens.shape == (2, 32) and b.tokens.dtype == np.int32
    assert np.array_equal(b.tokens[:, 1:], b.targets[:, :-1])


def _steps(times, lengths, compiles, passes=2):
    out = []
    for p in range(passes):
        for i, (t, n) in enumerate(zip(times[p], lengths)):
            out.append(
                {"pass": p, "length": n, "real_tokens": n, "all_tokens": n, "seconds": t,
                 "compiles": None if compiles is None else compiles[p][i], "loss": 1.0}
            )  # fmt: skip
    return out


def test_summarize_way_counts_compiles_and_their_seconds():
    # 2 shapes of 100 tokens, steady 0.1 s each; the first pass compiled both: 2.1 s and 1.1 s
    steps = _steps([[2.1, 1.1], [0.1, 0.1]], [100, 100], [[1, 2], [2, 2]])
    w = worker_common.summarize_way("variable", steps, 0.0, [100, 100])
    assert w["compiles"] == 2 and w["compiles_source"] == "framework counter"
    assert w["compile_seconds"] == pytest.approx(2.0 + 1.0)
    assert w["steady_tokens_per_second"] == pytest.approx(200 / 0.2)
    assert w["end_to_end_tokens_per_second"] == pytest.approx(400 / 3.4)


def test_summarize_way_detects_compiles_without_a_counter():
    steps = _steps([[2.1, 0.1], [0.1, 0.1]], [100, 100], None)
    w = worker_common.summarize_way("padded", steps, 0.0, [100])
    assert w["compiles"] == 1 and w["compiles_source"] == "step-time detection"
    assert w["compile_seconds"] == pytest.approx(2.0)


def _dyn(variant, fw, e2e, steady, compiles):
    ways = [
        {"way": w, "steps": 8, "passes": 2, "distinct_lengths": 3, "shapes": [8, 16, 32], "compiles": c,
         "compiles_source": "framework counter", "compile_seconds": float(c), "total_seconds": 1.0,
         "steady_tokens_per_second": s, "end_to_end_tokens_per_second": e, "padding_share": 0.0}
        for w, e, s, c in zip(("padded", "bucketed", "variable"), e2e, steady, compiles)
    ]  # fmt: skip
    return DynamicRun(id=f"{fw}-{variant}-dynamic", framework=fw, variant=variant, status="ok", ways=ways)


def test_dynamic_verdict_cost_against_the_best_other_way():
    from probes.transformer import verdicts

    v = verdicts.dynamic_verdict(_dyn("graph", "mindspore", [800, 1000, 600], [900, 1100, 1200], [1, 4, 8]))
    assert v.best_way == "bucketed"
    assert v.variable_cost == pytest.approx(0.4)  # 1 - 600 / 1000
    assert v.variable_steady_cost == pytest.approx(1 - 1200 / 1100)
    assert "40% less" in v.text and "8 graph compile(s)" in v.text
    result = GptResult(dynamic=[_dyn("graph", "mindspore", [800, 1000, 600], [900, 1100, 1200], [1, 4, 8]),
                                _dyn("graph-dynamic", "mindspore", [900, 900, 900], [600, 600, 600], [1, 1, 1])])  # fmt: skip
    result.dynamic_verdicts = [verdicts.dynamic_verdict(d) for d in result.dynamic]
    head = verdicts.headline(result)[0]
    assert "cost 40% of end-to-end tokens/s in MindSpore graph mode unless bucketed" in head
    # one ungraded run each: every finding built on the ways says so in its own sentence
    assert head.startswith("On this workload, in one ungraded run, ") and "in one ungraded run:" in v.text
    assert "Cell.set_inputs: 1 compile(s), steady tokens/s 50% less" in head  # 1 - 600 / 1200


# ------------------------------------------------------------------ registry, CLI, renderer


def test_registered_kind():
    from probes.base import KINDS

    k = KINDS["gpt"]
    assert k.Config is GptConfig and k.Result is GptResult


def _args(**kw):
    base = dict(models="gpt", frameworks="pytorch", modes="eager,compile,graph,pynative", budget=6.0, threads=None,
                repeat=2, max_repeat=3, no_parity=False, no_tune=False, max_steps=None, no_cache=True, json=False,
                output=None, gpt_layers=None, gpt_hidden=None, gpt_heads=None, gpt_seq=None, gpt_vocab=None,
                gpt_batch=None, dynamic=None, dynamic_ways=None, dynamic_steps=None, dynamic_distinct=None,
                dynamic_passes=None)  # fmt: skip
    base.update(kw)
    return argparse.Namespace(**base)


def test_cli_config_and_bad_input():
    from advisor.commands import probe_gpt

    c = probe_gpt.build_config(_args(gpt_layers=2, gpt_hidden=64, dynamic="graph,compile", dynamic_ways="variable"))
    assert (c.layers, c.hidden, c.dynamic_variants, c.dynamic_ways) == (2, 64, ["graph", "compile"], ["variable"])
    assert probe_gpt.build_config(_args(dynamic="none")).dynamic is False
    with pytest.raises(UsageError, match="^--gpt-layers: "):
        probe_gpt.build_config(_args(gpt_layers=0))
    with pytest.raises(UsageError, match="multiple of heads"):
        probe_gpt.build_config(_args(gpt_heads=3))
    with pytest.raises(UsageError, match="^--dynamic: unknown jit"):
        probe_gpt.build_config(_args(dynamic="jit"))
    with pytest.raises(UsageError, match="^--models: gpt runs alone"):
        probe_gpt.build_config(_args(models="gpt,lenet"))
    with pytest.raises(UsageError, match="^--batch-size: .*--gpt-batch"):
        probe_gpt.build_config(_args(batch_size=64))
    with pytest.raises(UsageError, match="^--gpt-seq: a transformer-probe option"):
        probe_gpt.refuse_without_gpt(_args(models="lenet", gpt_seq=64))


def test_renderer_shows_runs_parity_and_compile_counts():
    from advisor.render.tables.gpt import GptTable

    r = GptResult(
        config=GptConfig(layers=2, hidden=64, seq=32, vocab=512),
        runs=[{"id": "pytorch-eager-gpt", "framework": "pytorch", "mode": "eager", "status": "ok",
               "tokens_per_second": 12345.0, "ci95": [12000.0, 12700.0], "mfu": 0.021}],
        dynamic=[_dyn("graph", "mindspore", [800, 1000, 600], [900, 1100, 1200], [1, 4, 8])],
        verdicts=["On this workload, truly variable lengths cost 40%"],
    )  # fmt: skip
    text = GptTable(width=200).format(r)
    assert "12,345" in text and "12,000-12,700" in text and "2.1%" in text
    assert "MindSpore GRAPH_MODE, static shapes" in text and "variable" in text
    assert "cost 40%" in text


# ------------------------------------------------------------------ real runs (slow)


@pytest.mark.slow
def test_real_tiny_gpt_all_four_modes_parity_and_compile_counts(tmp_path):
    """A tiny GPT through the whole probe: four modes, parity, and the compile counts of MindSpore
    graph with and without set_inputs and torch.compile(dynamic=True) on 3 distinct lengths."""
    from probes.transformer.runner import run

    cfg = GptConfig(
        layers=2, hidden=64, heads=4, seq=32, vocab=512, batch_size=4, budget=1.0, repeat=1, max_repeat=1,
        max_steps=24, gemm=False, dynamic_variants=["compile-dynamic", "graph", "graph-dynamic"],
        dynamic_ways=["padded", "variable"], dynamic_steps=4, dynamic_distinct=3, dynamic_passes=2,
        compile_cache_dir=str(tmp_path / "inductor"),
    )  # fmt: skip
    res = run(cfg)
    runs = {r.mode: r for r in res.runs}
    assert set(runs) == {"eager", "compile", "graph", "pynative"}
    for r in runs.values():
        assert r.status == "ok", (r.id, r.error)
        assert r.tokens_per_second > 0 and r.train_flops_per_token == 835_584
        assert r.settings["param_count"] == 134_912
        # the weights were made in each worker, the same seeded fp32 set in both frameworks
        assert r.settings["weights_checksum"] == res.weights_checksum == weights.checksum(weights.canonical(TINY))
    # same weights and data: the first losses agree (the protocol's 1e-3)
    firsts = [r.loss_first for r in runs.values()]
    assert max(firsts) - min(firsts) < 1e-3
    assert runs["graph"].graph_compiles == 1
    assert res.parity is not None and res.parity.ok, res.parity
    fc = runs["eager"].flop_counter
    assert fc and fc["analytic_over_counted"] == pytest.approx(1.0, abs=0.05)
    dyn = {d.variant: {w.way: w for w in d.ways} for d in res.dynamic}
    assert all(d.status == "ok" for d in res.dynamic), [(d.id, d.error) for d in res.dynamic]
    assert dyn["graph"]["variable"].compiles == 3  # one graph per distinct length
    assert dyn["graph-dynamic"]["variable"].compiles == 1  # set_inputs: one graph for all
    assert dyn["compile-dynamic"]["variable"].compiles == 1
    assert dyn["graph"]["padded"].compiles == 1 and dyn["graph"]["padded"].shapes == [32]
    assert dyn["graph"]["variable"].shapes == [8, 20, 32]
    kernels = {k.framework: k for k in res.attention}
    assert kernels["pytorch"].backend in ("flash (CPU)", "mem-efficient", "math")
    assert kernels["mindspore"].available is False and "FlashAttentionScore" in (kernels["mindspore"].error or "")
    assert any("MindSpore graph mode" in v for v in res.verdicts)
