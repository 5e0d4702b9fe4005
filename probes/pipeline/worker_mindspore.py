"""MindSpore input-pipeline worker: mindspore.dataset with (a) a GeneratorDataset running the same
NumPy augmentation as the PyTorch worker, on --workers parallel workers (python_multiprocessing for
the 'generator-mp' variant, threads otherwise), or (b) NumpySlicesDataset + the built-in
dataset.vision ops (RandomCrop(32, padding 4), RandomHorizontalFlip, Normalize, HWC2CHW); timed alone
and with a LeNet-5 training step. Child only: `python -m probes.pipeline.worker_mindspore`."""

from __future__ import annotations

import sys

from probes import channel
from probes.pipeline import worker_common as wc

VARIANTS = ("generator", "generator-mp", "vision")


def run(args) -> dict:
    import numpy as np
    import mindspore as ms
    import mindspore.dataset as ds
    from mindspore import nn
    from mindspore.dataset import vision

    from probes.pipeline.augment import MEAN, PAD, STD, augment
    from probes.training import ms_nets

    if args.variant not in VARIANTS:
        return {"status": "unavailable", "error": f"no variant {args.variant!r} ({', '.join(VARIANTS)})"}
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_device("CPU")
    if args.threads:
        ms.device_context.cpu.op_tuning.threads_num(args.threads)
    with np.load(args.npz) as z:
        images, labels = z["images"], z["labels"].astype(np.int32)
    workers = max(1, args.workers)

    class Augmented:
        def __len__(self):
            return len(images)

        def __getitem__(self, i):
            return augment(images[i], np.random.default_rng(int(i))), labels[i]

    def pipeline():
        if args.variant == "vision":
            data = ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=True)
            ops = [
                vision.RandomCrop(32, padding=PAD),
                vision.RandomHorizontalFlip(0.5),
                vision.Normalize(mean=[MEAN] * images.shape[-1], std=[STD] * images.shape[-1]),
                vision.HWC2CHW(),
            ]
            data = data.map(ops, input_columns="image", num_parallel_workers=workers)
        else:
            data = ds.GeneratorDataset(
                Augmented(),
                column_names=["image", "label"],
                shuffle=True,
                num_parallel_workers=workers,
                python_multiprocessing=args.variant == "generator-mp",
            )
        return data.batch(args.batch_size, drop_remainder=True)

    def batches():
        while True:
            for row in pipeline().create_tuple_iterator(num_epochs=1, output_numpy=True):
                yield row[0], row[1]

    alone = wc.timed(batches(), args.batches, args.warmup)
    net = ms_nets.build("lenet")
    train = nn.TrainOneStepCell(nn.WithLossCell(net, ms_nets.loss_fn()), ms_nets.make_optimizer(net))
    train.set_train(True)

    def step(batch):
        train(ms.Tensor(batch[0].astype(np.float32)), ms.Tensor(batch[1])).asnumpy()

    together = wc.timed(batches(), args.batches, args.warmup, step)
    first = next(batches())
    step_only = wc.timed(iter(lambda: first, None), args.batches, args.warmup, step)
    return {
        "status": "ok",
        "alone": alone,
        "with_step": together,
        "step_only": step_only,
        "settings": {
            "mindspore_version": ms.__version__,
            "num_parallel_workers": workers,
            "python_multiprocessing": args.variant == "generator-mp",
            "loader": "NumpySlicesDataset + dataset.vision"
            if args.variant == "vision"
            else "GeneratorDataset(shuffle)",
        },
    }


def main(argv=None) -> int:
    return channel.guarded(lambda args: channel.result(**run(args)), wc.parser("mindspore").parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
