"""Calibration: the tool's figure for each published anchor's exact configuration over the published one.

Every anchor that sits in the knowledge base is held out: the tool projects it from a copy of the
knowledge base without that entry (else it would read its own answer back). A ratio of 1 is the
published figure; the goal is 0.8-1.25; every row is printed, the ones outside included, and the
anchors that cannot be reproduced here say why.

    .venv/bin/python benchmarks/calibration.py [--markdown]

Training rows compare tokens/s per device (the projection's range and its middle); serving rows the
output tokens/s per device of the capacity arithmetic (advisor.decision.serving_capacity) at the
anchor's batch-filling load, prefills included (what a decoder is rated by, with or without a stated
load), and the rescaled reference rows shown beside it as evidence (by bandwidth, size and
bytes per weight) with the anchor's own row held out.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import knowledge  # noqa: E402
from advisor.decision.constants import DEFAULT  # noqa: E402
from advisor.decision.projections import project  # noqa: E402
from advisor.decision.serving import rescaled_rate  # noqa: E402
from advisor.requirements import parse_requirements  # noqa: E402

GOAL = (0.8, 1.25)


@dataclass
class Row:
    anchor: str
    source: str
    config: str
    published: Optional[float]
    unit: str
    tool: Optional[tuple[float, float]] = None
    why_not: str = ""
    evidence_only: bool = False
    """a path the tool shows beside its figure, not the figure: printed, not counted"""

    def ratio(self) -> Optional[tuple[float, float, float]]:
        if self.tool is None or not self.published:
            return None
        low, high = self.tool
        return low / self.published, high / self.published, (low + high) / 2 / self.published


def _held_out(kb, section: str, ids: set[str]):
    return kb.model_copy(update={section: [e for e in getattr(kb, section) if e.id not in ids]})


def _training(
    kb,
    accelerator: str,
    target: str,
    devices: int,
    params_m: float,
    shape: dict,
    workflow: str,
    precision: str = "bf16",
    global_batch: Optional[int] = None,
    network_gbs: Optional[float] = None,
    **model,
) -> Optional[tuple[float, float]]:
    """tokens/s per device the tool projects for this exact configuration; `network_gbs`: the anchor's
    published link between hosts per device (the NETWORK_ROCE_IB_GBS the tool assumes otherwise)."""
    data = {
        "name": "calibration",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "expert", "size": 8},
        "hardware": {
            "available": [target],
            "training_target": target,
            "accelerator": accelerator,
            "devices": devices,
            "network": "roce-ib",
        },
        "deployment": {"targets": [f"{target}-server"]},
        "model": {
            "family": "transformer",
            "parameters_millions": params_m,
            "source": "pytorch-code",
            "precision": precision,
            **shape,
            **model,
        },
        "needs": {"distributed_training": devices > 1},
        "workload": {
            "model": "transformer",
            "tokens": 1e12,
            **({"global_batch": global_batch} if global_batch else {}),
        },
    }
    k = DEFAULT.moved("NETWORK_ROCE_IB_GBS", network_gbs) if network_gbs else DEFAULT
    p = project(workflow, parse_requirements(data), kb, [], k=k)
    if p.tokens_per_second is None:
        return None
    return p.tokens_per_second.low / devices, p.tokens_per_second.high / devices


def _serving(
    kb,
    accelerator: str,
    devices: int,
    params_m: float,
    shape: dict,
    quantization: str,
    prompt: int,
    output: int,
    which: str,
    kv_heads: int,
):
    """Decode tokens/s per device: the capacity arithmetic at a batch-filling load, or the reference path.
    `kv_heads`: the anchor model's key/value heads (the SERVING_KV_HEADS the tool assumes otherwise)."""
    data = {
        "name": "calibration",
        "stage": "production",
        "team": {"pytorch": "expert", "mindspore": "basic", "size": 8},
        "hardware": {
            "available": ["nvidia"],
            "training_target": "nvidia",
            "accelerator": accelerator,
            "devices": devices,
        },
        "deployment": {"targets": ["nvidia-server"]},
        "model": {"family": "transformer", "parameters_millions": params_m, "source": "pytorch-code", **shape},
        "workload": {"model": "transformer", "kind": "inference"},
        "serving": {
            "concurrency": 1_000_000,  # offline: as many requests as memory holds
            "prompt_tokens": prompt,
            "output_tokens": output,
            "quantization": quantization,
        },
    }
    if which == "references":
        return rescaled_rate(kb, kb.find_accelerator(accelerator), "transformer-decoder", params_m / 1000, 1.0)
    k = DEFAULT.moved("SERVING_KV_HEADS", kv_heads)
    p = project("pytorch", parse_requirements(data), kb, [], k=k)
    c = p.serving.capacity if p.serving is not None else None
    return (c.output_tokens_per_second.low / devices, c.output_tokens_per_second.high / devices) if c else None


LLAMA2_7B = {"layers": 32, "hidden_size": 4096, "attention_heads": 32, "sequence_length": 4096, "vocabulary": 32000}
LLAMA2_13B = {"layers": 40, "hidden_size": 5120, "attention_heads": 40, "sequence_length": 4096, "vocabulary": 32000}
LLAMA2_70B = {"layers": 80, "hidden_size": 8192, "attention_heads": 64, "sequence_length": 4096, "vocabulary": 32000}
LLAMA3_8B = {"layers": 32, "hidden_size": 4096, "attention_heads": 32, "sequence_length": 8192, "vocabulary": 128256}
LLAMA3_405B = {
    "layers": 126,
    "hidden_size": 16384,
    "attention_heads": 128,
    "sequence_length": 8192,
    "vocabulary": 128256,
}
GPT_530B = {"layers": 105, "hidden_size": 20480, "attention_heads": 128, "sequence_length": 2048, "vocabulary": 51200}
DEEPSEEK_V3 = {"layers": 61, "hidden_size": 7168, "attention_heads": 128, "sequence_length": 4096, "vocabulary": 129280}
GPTJ = {"layers": 28, "hidden_size": 4096, "attention_heads": 16, "sequence_length": 2048, "vocabulary": 50400}


def rows(kb) -> list[Row]:
    def mfu_row(
        ref_id: str, run: Callable[[object], Optional[tuple[float, float]]], config: str, published: float
    ) -> Row:
        ref = next(r for r in kb.mfu_references if r.id == ref_id)
        tool = run(_held_out(kb, "mfu_references", {ref_id}))
        return Row(ref_id, ref.source, config, published, "tokens/s per device", tool)

    out = [
        mfu_row(
            "mindformers-llama2-7b-910b",
            lambda k: _training(k, "ascend-910b", "ascend", 8, 6740, LLAMA2_7B, "mindspore", "mixed"),
            "MindSpore Transformers, Llama 2 7B, seq 4096, 8 x 910B, fp16",
            4160,
        ),
        mfu_row(
            "mindformers-llama2-13b-910b",
            lambda k: _training(k, "ascend-910b", "ascend", 8, 13000, LLAMA2_13B, "mindspore", "mixed"),
            "MindSpore Transformers, Llama 2 13B, seq 4096, 8 x 910B, fp16",
            1691,
        ),
        mfu_row(
            "mindformers-llama2-70b-910b",
            lambda k: _training(k, "ascend-910b", "ascend", 64, 69000, LLAMA2_70B, "mindspore", "mixed"),
            "MindSpore Transformers, Llama 2 70B, seq 4096, 64 x 910B (count assumed), fp16",
            337,
        ),
        mfu_row(
            "mindformers-llama3-8b-910b",
            lambda k: _training(k, "ascend-910b", "ascend", 8, 8030, LLAMA3_8B, "mindspore", "bf16"),
            "MindSpore Transformers, Llama 3 8B, seq 8192, 8 x 910B, bf16",
            2581,
        ),
        mfu_row(
            "mindspeed-llm-llama2-7b-910b",
            lambda k: _training(k, "ascend-910b", "ascend", 8, 6740, LLAMA2_7B, "pytorch", "bf16"),
            "ModelLink / MindSpeed-LLM on torch_npu, Llama 2 7B, seq 4096, 8 x 910B",
            2730,
        ),
        mfu_row(
            "llama3-405b-h100-bf16",
            lambda k: _training(
                k, "h100", "nvidia", 16384, 405000, LLAMA3_405B, "pytorch", global_batch=2048, network_gbs=50.0
            ),
            "Meta 4D parallel, Llama 3 405B, seq 8192, 16,384 x H100, bf16, global batch 2,048 sequences, "
            "400 Gb/s RoCE per GPU (arXiv:2407.21783 §3.3.1)",
            0.405 * 989.4e12 / (6 * 405e9 + 12 * 126 * 8192 * 16384),
        ),
        mfu_row(
            "megatron-530b-a100-selective",
            lambda k: _training(
                k,
                "a100-80gb",
                "nvidia",
                2240,
                530000,
                GPT_530B,
                "pytorch",
                "mixed",
                global_batch=2240,
                recompute="selective",
            ),
            "Megatron-LM, GPT 530B, seq 2048, 2,240 x A100 80GB (Selene: 8 x 200 Gb/s HDR InfiniBand per 8 GPUs, the "
            "tool's 25 GB/s), selective recompute",
            0.542 * 312e12 / (6 * 530e9 + 12 * 105 * 2048 * 20480),
        ),
        mfu_row(
            "deepseek-v3-h800-moe",
            lambda k: _training(
                k,
                "h800",
                "nvidia",
                2048,
                671000,
                DEEPSEEK_V3,
                "pytorch",
                global_batch=15360,
                network_gbs=50.0,
                experts=256,
                experts_per_token=8,
                active_parameters_millions=37000,
            ),
            "DeepSeek-V3, 671B MoE (37B active, top-8 of 256), seq 4096, 2,048 x H800, InfiniBand 50 GB/s per GPU "
            "(arXiv:2412.19437 §3.2.2), run at bf16: the tool has no FP8 training precision (held out, the MoE pool is "
            "DeepSeek-V2's bf16 run)",
            1543.2,
        ),
    ]
    # key/value heads: Llama 2 70B groups its 64 query heads over 8 (Touvron et al. 2023, GQA); GPT-J keeps
    # all 16 (multi-head attention, EleutherAI's model card: 16 heads of 256)
    for ref_id, acc, params, shape, prompt, output, published, kv_heads in (
        ("mlperf-inf-4.1-llama2-70b-h100-trtllm", "h100", 69000, LLAMA2_70B, 300, 300, 3065.6, 8),
        ("mlperf-inf-4.1-gptj-h100-trtllm", "h100", 6050, GPTJ, 800, 69, 2467.5, 16),
        ("mlperf-inf-4.0-gptj-l40s-trtllm", "l40s", 6050, GPTJ, 800, 69, 815.7, 16),
    ):
        ref = next(r for r in kb.serving_references if r.id == ref_id)
        config = (
            f"{ref.runtime}, {ref.model}, 8 x {acc}, FP8 weights, {ref.scenario}; prompt {prompt} / output {output} "
            "tokens (the prompt length an assumption"
            + ("; 69 output tokens per sample: the row's tokens over its samples)" if shape is GPTJ else ")")
            + f", {kv_heads} key/value heads"
        )
        held = _held_out(kb, "serving_references", {ref_id})
        cap = _serving(held, acc, 8, params, shape, "fp8", prompt, output, "capacity", kv_heads)
        out.append(Row(f"{ref_id} (capacity arithmetic)", ref.source, config, published, "tokens/s per device", cap))
        rescaled = _serving(held, acc, 8, params, shape, "fp8", prompt, output, "references", kv_heads)
        out.append(
            Row(
                f"{ref_id} (other rows rescaled: evidence only)",
                ref.source,
                config,
                published,
                "tokens/s per device",
                rescaled,
                evidence_only=True,
            )
        )
    out += [
        Row(
            "MLPerf Training Llama 2 70B LoRA",
            "https://github.com/mlcommons/training_results_v4.0 (NVIDIA, llama2_70b_lora)",
            "8 x H100, FP8, GovReport sequences of 8192",
            None,
            "minutes",
            why_not="the samples each run trained to reach the target loss are in the result logs, which the stored "
            "copy of the results repository does not hold; a time alone does not give a rate",
        ),
        Row(
            "MLPerf Training GPT-3 175B",
            "https://github.com/mlcommons/training_results_v4.0 (NVIDIA, gpt3)",
            "3,584-11,616 x H100",
            None,
            "minutes",
            why_not="the benchmark trains from a checkpoint to a target log-perplexity: the tokens it trained are in "
            "the result logs, not stored here",
        ),
    ]
    return out


def table(rs: list[Row], markdown: bool) -> str:
    head = ["anchor", "configuration", "published", "tool (low-high)", "ratio (low-high, mid)", "inside 0.8-1.25"]
    lines = []
    for r in rs:
        ratio = r.ratio()
        if ratio is None:
            cells = [r.anchor, r.config, "-", "-", "not reproduced", r.why_not or "the tool projected nothing"]
        else:
            lo, hi, mid = ratio
            inside = "yes" if GOAL[0] <= mid <= GOAL[1] else "no"
            if r.evidence_only:
                inside += " (evidence only: not counted)"
            cells = [
                r.anchor,
                r.config,
                f"{r.published:,.0f} {r.unit}",
                f"{r.tool[0]:,.0f}-{r.tool[1]:,.0f}",
                f"{lo:.2f}-{hi:.2f}, {mid:.2f}",
                inside,
            ]
        lines.append(cells)
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(c) + " |" for c in lines]
        return "\n".join(out)
    return "\n".join("  ".join(c) for c in [head, *lines])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true", help="a Markdown table (for the README)")
    args = ap.parse_args()
    kb = knowledge.load()
    rs = rows(kb)
    print(table(rs, args.markdown))
    counted = [r for r in rs if not r.evidence_only]
    inside = sum(1 for r in counted if (x := r.ratio()) is not None and GOAL[0] <= x[2] <= GOAL[1])
    done = sum(1 for r in counted if r.ratio() is not None)
    print(
        f"\n{inside} of {done} reproduced anchors inside {GOAL[0]}-{GOAL[1]}x; {len(counted) - done} not reproduced; "
        f"{len(rs) - len(counted)} evidence-only rows shown, not counted"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
