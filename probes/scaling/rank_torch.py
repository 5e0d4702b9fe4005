"""One rank of the PyTorch scaling probe, started by torchrun (DDP; gloo on CPU, NCCL on GPU).

Imports the standard library, NumPy, probes.scaling.rank_common, the shared training modules and
torch only. Synced steps (DDP allreduce) alternate with the no-sync control (`model.no_sync()`: each rank
keeps its own gradients) as rank_common.run_phases times them; then every rank writes its timings
and parameters and rank 0 writes result.json (see rank_common).
"""

from __future__ import annotations

import time

_START_WALL = time.time()

import gc  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from contextlib import nullcontext  # noqa: E402
from datetime import timedelta  # noqa: E402

from probes.scaling import rank_common as rc  # noqa: E402
from probes.scaling import rank_gather  # noqa: E402


def _flat_params(model):
    import torch

    with torch.no_grad():
        return torch.cat([p.detach().reshape(-1).float().cpu() for p in model.parameters()]).numpy()


def _all_reduce(array, device):
    import torch
    import torch.distributed as dist

    t = torch.from_numpy(array).to(device)
    dist.all_reduce(t)
    return t.cpu().numpy()


def main(argv=None) -> int:
    args = rc.parse_args(argv)
    doc = {"launcher_seconds": rc.launcher_seconds(_START_WALL)}
    t = rc.Timer()
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    doc["import_seconds"] = t.lap()
    torch.set_num_threads(max(1, args.threads))
    cuda = args.device.startswith("cuda")
    backend = "nccl" if cuda else "gloo"
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if cuda:
        torch.cuda.set_device(local_rank)
    dist.init_process_group(backend, timeout=timedelta(seconds=max(30.0, args.wait)))
    rank, world = dist.get_rank(), dist.get_world_size()
    doc.update(rank=rank, world_size=world, backend=backend, init_seconds=t.lap())
    rc.maybe_fault(rank)

    device = torch.device(f"cuda:{local_rank}" if cuda else "cpu")
    from probes.training import data, torch_nets, weights

    net = torch_nets.build(args.model).to(device)
    checksum = weights.canonical_checksum(args.model)
    # Every rank loads the same canonical weights, so no broadcast is needed to start equal
    # (DDP broadcasts rank 0's anyway; MindSpore does not, and both must start from the same point).
    model = DDP(net, device_ids=[local_rank] if cuda else None)
    opt = torch_nets.make_optimizer(net)
    loss_fn = torch.nn.CrossEntropyLoss()
    shard = rc.rank_shard(data.synthetic(args.model, args.batch_size, rc.n_batches(world)), rank, world)
    batches = [(torch.from_numpy(x).to(device), torch.from_numpy(y).long().to(device)) for x, y in shard]
    counter = [0]
    doc["build_seconds"] = t.lap()

    def step(sync: bool) -> float:
        x, y = batches[counter[0] % len(batches)]
        counter[0] += 1
        opt.zero_grad(set_to_none=True)
        with nullcontext() if sync else model.no_sync():
            loss = loss_fn(model(x), y)
            loss.backward()
        opt.step()
        if cuda:
            torch.cuda.synchronize()
        return float(loss.detach())

    params_sync, params_end = rc.run_phases(step, lambda: _flat_params(model), args, doc, rank)
    doc.update(threads=torch.get_num_threads(), framework_version=torch.__version__, weights_checksum=checksum)
    rc.write_rank(args.result_dir, rank, doc, params_sync, params_end)
    if rank_gather.spans_hosts():  # across hosts: the files travel to node 0 over gloo/NCCL
        rank_gather.exchange(args.result_dir, rank, world, lambda a: _all_reduce(a, device))
    if rank_gather.is_collector(rank, local_rank):
        rc.collect(
            args.result_dir,
            world,
            {
                "framework": "pytorch",
                "launcher": "torchrun",
                "world_size": world,
                "backend": backend,
                "model": args.model,
                "batch_size": args.batch_size,
            },
            args.wait,
        )
    # The teardown-abort fix measured here: without it ~18% of 2-rank runs died at exit with
    # "terminate called without an active exception".
    dist.barrier()
    model = opt = net = None  # drop the references (a del here reads as undefined in step())
    gc.collect()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
