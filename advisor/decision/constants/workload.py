"""The constants of the workload arithmetic: memory, scaling, energy, projections and serving, and the
sanity bounds of a projection."""

from __future__ import annotations

from advisor.decision.constants.base import SEED_ASCEND_PRACTICE, SEED_RELEASED_TOGETHER, Constant

WORKLOAD: list[Constant] = [
    # --- memory, scaling, energy ------------------------------------------------------------------
    Constant(
        "USABLE_MEMORY_NVIDIA",
        0.93,
        "share of memory_gb",
        "assumption: CUDA context, cuBLAS workspaces and allocator fragmentation take ~7%",
    ),
    Constant(
        "USABLE_MEMORY_ASCEND",
        0.9,
        "share of memory_gb",
        f"{SEED_ASCEND_PRACTICE} §5.5: npu-smi's total includes reserved memory that is not usable (its size is an "
        "assumption)",
    ),
    Constant(
        "LARGEST_LAYER_SHARE",
        0.02,
        "share of parameters",
        "assumption for DeepSpeed's ZeRO-3 estimator term 4 x largest layer (a 70B decoder's embedding is ~0.4%)",
    ),
    Constant(
        "DEVICES_PER_HOST",
        8.0,
        "devices",
        "knowledge base ascend-910b (8 cards full mesh per server); NVIDIA HGX boards also carry 8",
    ),
    Constant(
        "EFFECTIVE_PEAK_SHARE",
        0.5,
        "share of peak",
        f"{SEED_RELEASED_TOGETHER} §2.2: 'expect about 50-60% of the nominal peak' (low end)",
    ),
    Constant("PCIE_GEN4_GBS", 32.0, "GB/s", "PCIe 4.0 x16, one direction (specification); each generation doubles it"),
    Constant("NETWORK_ROCE_IB_GBS", 25.0, "GB/s", "assumption: one 200 Gb/s RoCE/InfiniBand port per host"),
    Constant("NETWORK_ETHERNET_GBS", 3.0, "GB/s", "assumption: 25 Gb/s Ethernet between hosts"),
    Constant(
        "QLORA_NF4_BITS",
        4.127,
        "bits per frozen parameter",
        "Dettmers et al. 2023, QLoRA (arXiv:2305.14314), §3: NF4 weights with double quantisation of the "
        "blocksize-64 constants: 4 + 0.127 bits per parameter",
    ),
    Constant(
        "RECOMPUTE_SELECTIVE_SHARE",
        0.1,
        "share of full recompute's overhead",
        "Korthikanti et al. 2022 (arXiv:2205.05198), abstract: selective recompute with sequence parallelism "
        "reduces the execution-time overhead of activation recomputation by over 90%",
    ),
    Constant(
        "TP_OVERHEAD_PER_DOUBLING",
        0.05,
        "share of step time",
        "assumption (ranks layouts only, never scales a time): tensor-parallel all-reduces inside one host cost "
        "a few percent per doubling of the degree (Narayanan et al. 2021, §3.2, keep TP within a node)",
    ),
    Constant(
        "ZERO3_OVERHEAD",
        0.1,
        "share of step time",
        "assumption (ranks layouts only): ZeRO-3 moves 1.5x the data of data parallelism (Rajbhandari et al. "
        "2020, §7.2.3); a tenth of a step where it does not hide behind compute",
    ),
    Constant(
        "QLORA_DEQUANT_OVERHEAD",
        0.3,
        "share of step time",
        "assumption: QLoRA dequantises every 4-bit weight to bf16 in each forward and backward pass; practitioner "
        "reports put a QLoRA step 20-40% slower than the same LoRA step (Dettmers et al. 2023 give no figure)",
    ),
    # --- failures and checkpoints of long runs -----------------------------------------------------
    Constant(
        "INTERRUPTIONS_PER_DEVICE_HOUR",
        419 / (54 * 24 * 16384),
        "interruptions per device-hour",
        "Dubey et al. 2024, The Llama 3 Herd of Models (arXiv:2407.21783), §3.3.4: 419 unexpected interruptions "
        "in a 54-day snapshot of pre-training on 16,384 H100 GPUs",
    ),
    Constant(
        "CHECKPOINT_WRITE_GBS_PER_HOST",
        2.0,
        "GB/s per host",
        "assumption: a shared parallel file system writes 1-5 GB/s per client host; the checkpoint is written by "
        "every host at once",
    ),
    Constant(
        "RESTART_HOURS",
        0.5,
        "hours",
        "assumption: after an interruption, rescheduling, reloading the last checkpoint and warming up take 15-45 "
        "minutes (Llama 3 §3.3.4 counts the interruptions, not their restart time)",
    ),
    Constant(
        "RELIABILITY_MIN_HOURS",
        72.0,
        "hours",
        "assumption: runs of a few days or more get the failure and checkpoint allowance; shorter runs are "
        "restarted by hand",
    ),
    # --- energy ----------------------------------------------------------------------------------------
    Constant(
        "SERVER_POWER_PER_CARD_POWER",
        1.8,
        "server watts per card watt",
        "derived: NVIDIA DGX H100 user guide, 10.2 kW maximum for 8 x 700 W (1.82); DGX A100 user guide, 6.5 kW "
        "for 8 x 400 W (2.03); used where the knowledge base has no server datasheet figure",
    ),
    Constant(
        "TYPICAL_DRAW_LOW",
        0.65,
        "share of the server's maximum power",
        "MLPerf Training v4.0 power results (Sustainable Metal Cloud, Llama 2 70B LoRA on one 8 x H100 node: "
        "6.74 kW average, 66% of DGX H100's 10.2 kW maximum)",
    ),
    Constant(
        "TYPICAL_DRAW_HIGH",
        0.85,
        "share of the server's maximum power",
        "https://www.supercluster.blog/p/6-ai-supercluster-nvidia-dgx-h100 (DGX H100: typical 6.5-8.5 kW against "
        "10.2 kW maximum; blog)",
    ),
    Constant(
        "POWER_REDUNDANCY",
        0.2,
        "share",
        f"{SEED_ASCEND_PRACTICE} §1.3: budget 'cards x power + 20%' for power and cooling",
    ),
    Constant(
        "INPUT_PIPELINE_PER_HOST",
        20000.0,
        "images/s per host",
        f"assumption: JPEG decode and augmentation on one host's CPUs; {SEED_ASCEND_PRACTICE} §5.3: a poor data "
        "pipeline leaves NPUs at 30% utilisation",
        "one host's input pipeline fed",
        (5000.0, 100000.0),
        projection=True,
    ),
    # --- projections and serving (moved from their modules so the sensitivity search sees them) ----
    Constant(
        "SINGLE_REFERENCE_WIDEN",
        0.25,
        "share",
        "assumption: one reference says little about the spread; +-25% is the spread of the 910B's own four "
        "MindFormers MFU rows (0.47-0.70 of peak) around their middle (knowledge base mfu-references)",
        "a single reference were widened by",
        (0.0, 0.9),
        projection=True,
    ),
    Constant(
        "LORA_TRAINABLE_SHARE",
        0.01,
        "share of parameters",
        "assumption: rank-16 LoRA on every linear layer of a 7B model trains ~0.6% of its parameters "
        "(Hu et al. 2021, LoRA, arXiv:2106.09685, trains r x (d_in + d_out) per adapted matrix); 1% rounds it up",
        "a LoRA adapter trained a share of",
        (0.001, 0.1),
        projection=True,
    ),
    Constant(
        "SERVING_ASCEND_EFFICIENCY",
        0.7,
        "share",
        f"assumption: no Ascend serving result states its set-up, so an NVIDIA serving row is carried over to "
        f"Ascend at this share of its bandwidth- or peak-scaled rate; {SEED_RELEASED_TOGETHER} §2.2 says to expect "
        "about 50-60% of the nominal peak in training, NVIDIA's serving rows reach more; 0.7 sits between",
        "Ascend serving reached a share of",
        (0.2, 1.5),
        projection=True,
    ),
    Constant(
        "SERVING_BANDWIDTH_EFFICIENCY_LOW",
        0.5,
        "share of memory bandwidth",
        "assumption, checked against MLPerf Inference llama2-70b rows in benchmarks/calibration.py: a batched "
        "decode step reads the weights and the KV cache at 50-80% of the datasheet bandwidth",
    ),
    Constant(
        "SERVING_BANDWIDTH_EFFICIENCY_HIGH",
        0.8,
        "share of memory bandwidth",
        "assumption: the high end of the decode bandwidth share (SERVING_BANDWIDTH_EFFICIENCY_LOW)",
    ),
    Constant(
        "SERVING_PREFILL_MFU_LOW",
        0.3,
        "share of peak",
        "assumption: a prompt's prefill is one large batch of GEMMs at 30-50% of the serving precision's peak "
        "(the training MFU references reach 33-70%)",
    ),
    Constant(
        "SERVING_PREFILL_MFU_HIGH",
        0.5,
        "share of peak",
        "assumption: the high end of the prefill share of peak (SERVING_PREFILL_MFU_LOW)",
    ),
    Constant(
        "SERVING_WORKSPACE_SHARE",
        0.1,
        "share of usable memory",
        "vLLM's default gpu_memory_utilization 0.9 (https://docs.vllm.ai, engine arguments): a tenth of the "
        "device's memory left to activations, graphs and the runtime",
    ),
    Constant(
        "SERVING_KV_HEADS",
        8.0,
        "key/value heads",
        "assumption: grouped-query attention with 8 key/value heads of 128, as Llama 3, Llama 2 70B, Qwen2.5 and "
        "Mistral publish in their configs (a model with fewer attention heads keeps them all)",
    ),
    # --- sanity bounds of a projection ------------------------------------------------------------
    Constant("SANITY_MIN_HOURS", 1 / 60, "hours", "assumption: a training run under a minute is a projection error"),
    Constant("SANITY_MAX_HOURS", 24 * 365.0, "hours", "assumption: a run beyond a year is not a plan"),
    Constant(
        "MEANINGFUL_MAX_HOURS",
        24 * 365.25 * 100,
        "hours",
        "assumption: a projected run beyond a century at its fast end says the inputs are wrong (a sequence length, "
        "a size, a peak), not how long a plan takes: the projection says so instead of printing a time",
    ),
]
