"""How much memory one GPT worker needs, checked before any weight is made (standard library only).

The shape limits of GptConfig allow models far larger than a host (vocabulary 262,144 x hidden 8,192 is
2.1 billion embedding parameters: 8 GiB in fp32 before a gradient exists), so the parent checks the
arithmetic before it starts a child and every worker checks it again before it allocates: a shape that
cannot fit is one line naming what it needs, never an out-of-memory host.

Per process, fp32 (the probe trains in fp32 in both frameworks):
- parameters: weights, gradients and SGD momentum, 4 bytes each (arithmetic), plus the NumPy initial
  weights the framework copies them from (4 bytes: MindSpore's set_data copies; torch's load copies too);
- activations per layer: Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer
  Models", section 4.1): 34·s·b·h + 5·a·s²·b bytes with 16-bit activations and no recompute, doubled
  for fp32;
- the output head: logits, their softmax and its gradient, 4 bytes each per token per vocabulary entry
  (three copies: assumption, the cross-entropy's own buffers);
- the framework itself (MindSpore's RSS after import is ~400 MB here, torch's ~220 MB: the larger,
  rounded up; assumption).
"""

from __future__ import annotations

from probes.transformer import spec

PARAM_BYTES = 4 * 4  # weights + gradients + momentum + the NumPy initial copy, fp32 (arithmetic)
ACTIVATION_BYTES_PER_TOKEN_HIDDEN = 34 * 2  # Korthikanti et al. 2022: 34·s·b·h per layer at 16 bits; fp32 doubles
ATTENTION_BYTES_PER_TOKEN_HEAD_POSITION = 5 * 2  # the same paper's 5·a·s²·b per layer, fp32
LOGIT_COPIES = 3  # logits, softmax, gradient (assumption)
FRAMEWORK_BYTES = 512 * 2**20  # the framework's own memory after import (assumption, measured ~400 MB)
HEADROOM = 0.9  # at most this share of the memory available now (assumption: the page cache and the parent)


def need_bytes(s: spec.Shape, batch_size: int) -> int:
    """Peak bytes one worker process needs to train `s` at `batch_size` sequences per step."""
    tokens = batch_size * s.seq
    params = spec.param_count(s) * PARAM_BYTES
    activations = (
        s.layers
        * tokens
        * (ACTIVATION_BYTES_PER_TOKEN_HIDDEN * s.hidden + ATTENTION_BYTES_PER_TOKEN_HEAD_POSITION * s.heads * s.seq)
    )
    logits = tokens * s.vocab * 4 * LOGIT_COPIES
    return FRAMEWORK_BYTES + params + activations + logits


def available_bytes() -> int | None:
    """MemAvailable from /proc/meminfo (None where it cannot be read: the check is then skipped)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB"


def refusal(s: spec.Shape, batch_size: int, available: int | None = None) -> str | None:
    """Why this shape cannot run here (None when it fits, or when the memory cannot be read)."""
    available = available_bytes() if available is None else available
    if available is None:
        return None
    need = need_bytes(s, batch_size)
    if need <= HEADROOM * available:
        return None
    return (
        f"the GPT (layers {s.layers}, hidden {s.hidden}, heads {s.heads}, seq {s.seq}, vocab {s.vocab}, "
        f"batch {batch_size}: {spec.param_count(s):,} parameters) needs about {gib(need)} per process in fp32, "
        f"and this host has {gib(available)} available; choose a smaller shape"
    )
