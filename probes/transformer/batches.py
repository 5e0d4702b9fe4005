"""The token batches both frameworks train on, and the variable-length schedules (NumPy only).

Tokens follow a seeded first-order Markov chain (each token's successor drawn from 8 likely ones),
so the loss has something to learn and falls within a few steps. A batch holds `seq + 1` tokens
per row: inputs are the first `seq`, targets the last `seq`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DATA_SEED = 7
N_BATCHES = 8  # cycled during a run: the same data in every framework and mode
SUCCESSORS = 8


@dataclass
class Batch:
    tokens: np.ndarray  # int32 (batch, length)
    targets: np.ndarray  # int32 (batch, length)
    weights: np.ndarray  # float32 (batch, length): 1 for real tokens, 0 for padding
    positions: np.ndarray  # int32 (length,)

    @property
    def real_tokens(self) -> int:
        return int(self.weights.sum())


def _chain(vocab: int, rows: int, length: int, rng: np.random.Generator) -> np.ndarray:
    succ = rng.integers(0, vocab, size=(vocab, SUCCESSORS))
    seq = np.empty((rows, length), dtype=np.int64)
    seq[:, 0] = rng.integers(0, vocab, size=rows)
    for j in range(1, length):
        seq[:, j] = succ[seq[:, j - 1], rng.integers(0, SUCCESSORS, size=rows)]
    return seq


def fixed(vocab: int, batch: int, seq: int, n: int = N_BATCHES, seed: int = DATA_SEED) -> list[Batch]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        s = _chain(vocab, batch, seq + 1, rng)
        out.append(
            Batch(
                s[:, :-1].astype(np.int32),
                s[:, 1:].astype(np.int32),
                np.ones((batch, seq), np.float32),
                np.arange(seq, dtype=np.int32),
            )
        )
    return out


def lengths(seq: int, n: int, distinct: int, seed: int = DATA_SEED) -> list[int]:
    """`n` batch lengths drawn from `distinct` values spread over [seq/4, seq], each value used."""
    lo = max(2, seq // 4)
    values = sorted({int(round(v)) for v in np.linspace(lo, seq, distinct)})
    rng = np.random.default_rng(seed + 1)
    out = list(values) + [int(v) for v in rng.choice(values, size=max(0, n - len(values)))]
    rng.shuffle(out)
    return out[:n] if n >= len(values) else out


def buckets(seq: int, count: int = 4) -> list[int]:
    """`count` bucket lengths, evenly up to seq (e.g. 32, 64, 96, 128)."""
    return sorted({max(1, int(round(seq * (i + 1) / count))) for i in range(count)})


def padded_length(length: int, way: str, seq: int, bucket_lengths: list[int]) -> int:
    if way == "padded":
        return seq
    if way == "bucketed":
        return next(b for b in bucket_lengths if b >= length)
    if way == "variable":
        return length
    raise ValueError(f"unknown way {way!r}: padded | bucketed | variable")


def schedule(vocab: int, batch: int, seq: int, lens: list[int], way: str, seed: int = DATA_SEED) -> list[Batch]:
    """One batch per length in `lens`, padded as `way` says (pad token 0, weight 0)."""
    rng = np.random.default_rng(seed + 2)
    bl = buckets(seq)
    out = []
    for n in lens:
        s = _chain(vocab, batch, n + 1, rng)
        width = padded_length(n, way, seq, bl)
        tok = np.zeros((batch, width), np.int32)
        tgt = np.zeros((batch, width), np.int32)
        w = np.zeros((batch, width), np.float32)
        tok[:, :n], tgt[:, :n], w[:, :n] = s[:, :-1], s[:, 1:], 1.0
        out.append(Batch(tok, tgt, w, np.arange(width, dtype=np.int32)))
    return out
