"""Multi-node only: bring every rank's result files to the collector on node 0, over the framework's
own allreduce (the ranks' files live on their own hosts; no shared disk, no extra port).

Standard library and NumPy only; the rank script passes `allreduce(float32 array) -> summed array`
(torch.distributed.all_reduce / MindSpore's AllReduce). Every rank fills its own row of a zero
(world, L) matrix: rank bytes (its rank<r>.json, as 0-255 values) then its two parameter vectors; the
sum is every row, exactly (x + 0 == x in float32). The parent sets the two variables below.
"""

from __future__ import annotations

import os
from pathlib import Path

NNODES_ENV = "ADVISOR_SCALING_NNODES"
NODE_RANK_ENV = "ADVISOR_SCALING_NODE_RANK"
_SPLIT = 4096.0  # lengths as (hi, lo) so both stay exact in float32 (up to 2^36 elements)


def spans_hosts() -> bool:
    try:
        return int(os.environ.get(NNODES_ENV, "1")) > 1
    except ValueError:
        return False


def is_collector(rank: int, local_rank: int) -> bool:
    """The rank that writes result.json: rank 0 on one host; across hosts the first local rank of
    node 0 (torchrun's c10d rendezvous numbers the nodes itself, ignoring --node-rank)."""
    if not spans_hosts():
        return rank == 0
    return os.environ.get(NODE_RANK_ENV) == "0" and local_rank == 0


def exchange(result_dir: str, rank: int, world: int, allreduce) -> None:
    import numpy as np

    d = Path(result_dir)
    doc = np.frombuffer((d / f"rank{rank}.json").read_bytes(), dtype=np.uint8).astype(np.float32)
    sync = np.load(d / f"params-sync-rank{rank}.npy").astype(np.float32).ravel()
    nosync = np.load(d / f"params-nosync-rank{rank}.npy").astype(np.float32).ravel()
    sizes = np.zeros((world, 6), dtype=np.float32)
    sizes[rank] = [v for n in (doc.size, sync.size, nosync.size) for v in divmod(n, _SPLIT)]
    sizes = np.asarray(allreduce(sizes))
    lengths = [[int(row[i]) * int(_SPLIT) + int(row[i + 1]) for i in (0, 2, 4)] for row in sizes]
    width = max(sum(n) for n in lengths)
    rows = np.zeros((world, width), dtype=np.float32)
    rows[rank, : doc.size + sync.size + nosync.size] = np.concatenate([doc, sync, nosync])
    rows = np.asarray(allreduce(rows))
    for r in range(world):
        if r == rank or (d / f"rank{r}.json").exists():
            continue
        n_doc, n_sync, n_nosync = lengths[r]
        row = rows[r]
        for name, part in (
            ("sync", row[n_doc : n_doc + n_sync]),
            ("nosync", row[n_doc + n_sync : n_doc + n_sync + n_nosync]),
        ):
            tmp = d / f"params-{name}-rank{r}.npy.tmp"
            with open(tmp, "wb") as fh:
                np.save(fh, part)
            os.replace(tmp, d / f"params-{name}-rank{r}.npy")
        tmp = d / f"rank{r}.json.tmp"
        tmp.write_bytes(row[:n_doc].astype(np.uint8).tobytes())
        os.replace(tmp, d / f"rank{r}.json")  # last: its presence means the rank is done
