"""PyTorch accuracy worker: LeNet-5 from the canonical weights, trained epoch by epoch on the arrays
the parent prepared, test accuracy after every epoch. Run only as a child through probes.launcher:
`python -m probes.accuracy.worker_torch --npz F --mode eager|compile ...`."""

from __future__ import annotations

import sys

from probes import channel
from probes.accuracy import worker_common as wc


def main(argv=None) -> int:
    return channel.guarded(run, wc.parser("torch").parse_args(argv))


def run(args) -> int:
    import numpy as np
    import torch

    from probes.training import common, torch_nets, weights

    if args.mode not in ("eager", "compile"):
        channel.result(status="unavailable", error=f"PyTorch has no mode {args.mode!r} (eager|compile)")
        return 0
    if args.mode == "compile" and common.cxx_compiler() is None:
        channel.result(status="unavailable", error="torch.compile needs a C++ compiler on PATH (g++/clang++)")
        return 0
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    d = wc.load(np, args.npz)
    net = torch_nets.build("lenet")
    opt = torch_nets.make_optimizer(net, lr=args.lr)
    model = torch.compile(net) if args.mode == "compile" else net
    loss_fn = torch.nn.CrossEntropyLoss()
    x_train, y_train = torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"].astype(np.int64))
    x_test, y_test = torch.from_numpy(d["x_test"]), d["y_test"]
    clock = wc.Clock()
    curve, losses = [], []
    for epoch, order in enumerate(d["orders"]):
        net.train()
        start, total, steps = clock.now(), 0.0, 0
        for idx in wc.epoch_batches(order, args.batch_size):
            t = clock.now()
            ix = torch.from_numpy(idx.astype(np.int64))
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x_train[ix]), y_train[ix])
            loss.backward()
            opt.step()
            total += float(loss.detach())
            steps += 1
            dt = clock.now() - t
            if clock.first_step_seconds is None:
                clock.first_step_seconds = dt
            else:
                clock.step_seconds.append(dt)
        clock.epoch_seconds.append(clock.now() - start)
        t = clock.now()
        net.eval()
        with torch.no_grad():
            pred = np.concatenate(
                [
                    model(x_test[i : i + args.eval_batch]).argmax(1).numpy()
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
        framework="pytorch",
        mode=args.mode,
        accuracy=curve,
        loss=losses,
        epoch_seconds=clock.epoch_seconds,
        eval_seconds=clock.eval_seconds,
        first_step_seconds=clock.first_step_seconds,
        step_seconds=clock.step_seconds,
        settings={
            "torch_version": torch.__version__,
            "threads": torch.get_num_threads(),
            "weights_checksum": weights.canonical_checksum("lenet"),
            "optimizer": "SGD(momentum 0.9, weight decay 5e-4)",
            "lr": args.lr,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
