"""One rank of the MindSpore scaling probe, started by msrun (data parallel; mccl on CPU, HCCL on
Ascend, NCCL on GPU).

Imports the standard library, NumPy, probes.scaling.rank_common, the shared training modules and
mindspore only. msrun also runs this script as its scheduler process: everything with a side effect
comes after `init()`, which the scheduler never returns from usefully. GRAPH_MODE with
`nn.TrainOneStepCell`; the no-sync control is a second TrainOneStepCell over the same network and
optimizer whose gradient reducer is replaced by identity. Data parallel does not broadcast initial
parameters: every rank loads the same canonical weights.
"""

from __future__ import annotations

import time

_START_WALL = time.time()

import os  # noqa: E402
import sys  # noqa: E402

from probes.scaling import rank_common as rc  # noqa: E402
from probes.scaling import rank_gather  # noqa: E402


def _flat_params(net):
    import numpy as np

    return np.concatenate([p.asnumpy().reshape(-1) for p in net.trainable_params()])


def _all_reduce(array):
    import mindspore as ms
    from mindspore import nn, ops

    class _Sum(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = ops.AllReduce()

        def construct(self, x):
            return self.op(x)

    return _Sum()(ms.Tensor(array)).asnumpy()


def main(argv=None) -> int:
    args = rc.parse_args(argv)
    doc = {"launcher_seconds": rc.launcher_seconds(_START_WALL)}
    t = rc.Timer()
    import mindspore as ms
    from mindspore import nn
    from mindspore.communication import get_group_size, get_rank, init

    doc["import_seconds"] = t.lap()
    target = {"cpu": "CPU", "gpu": "GPU", "cuda": "GPU", "ascend": "Ascend", "npu": "Ascend"}.get(
        args.device.lower(), args.device
    )
    ms.set_context(mode=ms.GRAPH_MODE, device_target=target)
    init()
    if os.environ.get("MS_ROLE") == "MS_SCHED":  # the scheduler process: nothing to train
        return 0
    rank, world = get_rank(), get_group_size()
    backend = {"CPU": "mccl", "GPU": "nccl", "Ascend": "hccl"}.get(target, target)
    doc.update(rank=rank, world_size=world, backend=backend, init_seconds=t.lap())
    rc.maybe_fault(rank)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)

    from probes.training import data, ms_nets, weights

    net = ms_nets.build(args.model)
    checksum = weights.canonical_checksum(args.model)
    opt = ms_nets.make_optimizer(net)
    with_loss = nn.WithLossCell(net, ms_nets.loss_fn())
    synced = nn.TrainOneStepCell(with_loss, opt)
    nosync = nn.TrainOneStepCell(with_loss, opt)
    nosync.grad_reducer = nn.Identity()  # the control: no AllReduce, each rank its own gradients
    synced.set_train()
    nosync.set_train()
    shard = rc.rank_shard(data.synthetic(args.model, args.batch_size, rc.n_batches(world)), rank, world)
    batches = [(ms.Tensor(x), ms.Tensor(y.astype("int32"))) for x, y in shard]
    counter = [0]

    def run(cell) -> float:
        x, y = batches[counter[0] % len(batches)]
        counter[0] += 1
        return float(cell(x, y).asnumpy())  # asnumpy: wait for the step to finish

    doc["build_seconds"] = t.lap()

    params_sync, params_end = rc.run_phases(
        lambda sync: run(synced if sync else nosync), lambda: _flat_params(net), args, doc, rank
    )
    doc.update(threads=args.threads, framework_version=ms.__version__, weights_checksum=checksum)
    rc.write_rank(args.result_dir, rank, doc, params_sync, params_end)
    if rank_gather.spans_hosts():  # across hosts: the files travel to node 0 over mccl/HCCL
        rank_gather.exchange(args.result_dir, rank, world, _all_reduce)
    if rank_gather.is_collector(rank, rank):  # with --node_rank, global rank 0 is node 0's first
        rc.collect(
            args.result_dir,
            world,
            {
                "framework": "mindspore",
                "launcher": "msrun",
                "world_size": world,
                "backend": backend,
                "model": args.model,
                "batch_size": args.batch_size,
            },
            args.wait,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
