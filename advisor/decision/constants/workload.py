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
    # --- sanity bounds of a projection ------------------------------------------------------------
    Constant("SANITY_MIN_HOURS", 1 / 60, "hours", "assumption: a training run under a minute is a projection error"),
    Constant("SANITY_MAX_HOURS", 24 * 365.0, "hours", "assumption: a run beyond a year is not a plan"),
]
