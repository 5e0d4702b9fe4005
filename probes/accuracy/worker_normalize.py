"""The Normalize trap, live (seed 002's data-pipeline pitfalls): MindSpore's `vision.Normalize` on
uint8 input expects mean/std in 0-255 units. PyTorch code normalises after ToTensor (0-1), so its
values (mean 0.5, std 0.5) copied across leave the batch far from zero mean, unit variance.

Runs in a MindSpore child: the same uint8 batch through `mindspore.dataset` with the copied 0-1
values and with the correct 0-255 ones, the normalised batch statistics of each, and the training
loss of LeNet-5 (canonical weights) after a few steps on each.
`python -m probes.accuracy.worker_normalize --npz F [--steps N]`."""

from __future__ import annotations

import argparse
import sys

from probes import channel

VARIANTS = {"pytorch_values_0_1": (0.5, 0.5), "correct_0_255": (127.5, 127.5)}


def run(npz: str, steps: int, batch: int) -> dict:
    import numpy as np
    import mindspore as ms
    import mindspore.dataset as ds
    from mindspore import nn
    from mindspore.dataset import vision

    from probes.training import ms_nets

    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_device("CPU")
    with np.load(npz) as z:
        images, labels = z["images"], z["labels"].astype(np.int32)
    out = {}
    for name, (mean, std) in VARIANTS.items():
        pipe = ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False)
        pipe = pipe.map([vision.Normalize(mean=[mean], std=[std]), vision.HWC2CHW()], input_columns="image")
        pipe = pipe.batch(batch, drop_remainder=True)
        net = ms_nets.build("lenet")
        train = nn.TrainOneStepCell(nn.WithLossCell(net, ms_nets.loss_fn()), ms_nets.make_optimizer(net))
        train.set_train(True)
        losses, first = [], None
        for i, row in enumerate(pipe.create_dict_iterator(num_epochs=1, output_numpy=True)):
            x = row["image"].astype(np.float32)
            if first is None:
                first = x
            if i >= steps:
                break
            losses.append(float(train(ms.Tensor(x), ms.Tensor(row["label"])).asnumpy()))
        out[name] = {
            "mean": [mean],
            "std": [std],
            "batch_mean": float(first.mean()),
            "batch_std": float(first.std()),
            "batch_min": float(first.min()),
            "batch_max": float(first.max()),
            "loss_first": losses[0] if losses else None,
            "loss_last": losses[-1] if losses else None,
            "steps": len(losses),
            "finite": bool(np.isfinite(losses).all()) if losses else None,
        }
    return {
        "status": "ok",
        "variants": out,
        "mindspore_version": ms.__version__,
        "op": "mindspore.dataset.vision.Normalize on uint8 HWC input",
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="probes.accuracy.worker_normalize")
    p.add_argument("--npz", required=True)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--batch", type=int, default=32)
    args = p.parse_args(argv)
    return channel.guarded(lambda: channel.result(**run(args.npz, args.steps, args.batch)))


if __name__ == "__main__":
    sys.exit(main())
