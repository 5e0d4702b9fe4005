"""MindSpore accuracy worker: the same LeNet-5, weights, arrays, order and schedule as the PyTorch
worker, in GRAPH_MODE (nn.TrainOneStepCell) or PyNative. Run only as a child through probes.launcher:
`python -m probes.accuracy.worker_mindspore --npz F --mode graph|pynative ...`."""

from __future__ import annotations

import sys

from probes import channel
from probes.accuracy import worker_common as wc


def main(argv=None) -> int:
    return channel.guarded(run, wc.parser("mindspore").parse_args(argv))


def run(args) -> int:
    import numpy as np
    import mindspore as ms
    from mindspore import nn

    from probes.training import ms_nets, weights

    if args.mode not in ("graph", "pynative"):
        channel.result(status="unavailable", error=f"MindSpore has no mode {args.mode!r} (graph|pynative)")
        return 0
    ms.set_context(mode=ms.GRAPH_MODE if args.mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    if args.threads:
        ms.device_context.cpu.op_tuning.threads_num(args.threads)
    if args.mode == "pynative":
        ms.runtime.launch_blocking()  # background threads starve each other on few cores
    d = wc.load(np, args.npz)
    net = ms_nets.build("lenet")
    opt = ms_nets.make_optimizer(net, lr=args.lr)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, ms_nets.loss_fn()), opt)
    x_train, y_train = d["x_train"], d["y_train"].astype(np.int32)
    x_test, y_test = d["x_test"], d["y_test"]
    clock = wc.Clock()
    curve, losses = [], []
    for epoch, order in enumerate(d["orders"]):
        train.set_train(True)
        start, total, steps = clock.now(), 0.0, 0
        for idx in wc.epoch_batches(order, args.batch_size):
            t = clock.now()
            loss = train(ms.Tensor(x_train[idx]), ms.Tensor(y_train[idx]))
            total += float(loss.asnumpy())  # waits for the step
            steps += 1
            dt = clock.now() - t
            if clock.first_step_seconds is None:
                clock.first_step_seconds = dt
            else:
                clock.step_seconds.append(dt)
        clock.epoch_seconds.append(clock.now() - start)
        t = clock.now()
        net.set_train(False)
        pred = np.concatenate(
            [
                net(ms.Tensor(x_test[i : i + args.eval_batch])).asnumpy().argmax(1)
                for i in range(0, len(y_test), args.eval_batch)
            ]
        )
        clock.eval_seconds.append(clock.now() - t)
        curve.append(float((pred == y_test).mean()))
        losses.append(total / max(1, steps))
        channel.progress(epoch=epoch + 1, epochs=len(d["orders"]), accuracy=curve[-1], loss=losses[-1])
        if args.stop_at_target and curve[-1] >= args.target:
            break
    channel.result(
        status="ok",
        framework="mindspore",
        mode=args.mode,
        accuracy=curve,
        loss=losses,
        epoch_seconds=clock.epoch_seconds,
        eval_seconds=clock.eval_seconds,
        first_step_seconds=clock.first_step_seconds,
        step_seconds=clock.step_seconds,
        settings={
            "mindspore_version": ms.__version__,
            "weights_checksum": weights.canonical_checksum("lenet"),
            "optimizer": "nn.Momentum(momentum 0.9, weight decay 5e-4, one group)",
            "lr": args.lr,
            "train_cell": "nn.TrainOneStepCell(nn.WithLossCell)",
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
