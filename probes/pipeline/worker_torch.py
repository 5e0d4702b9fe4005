"""PyTorch input-pipeline worker: a map-style Dataset running probes.pipeline.augment, fed through
torch.utils.data.DataLoader with --workers processes (0 = in the main process), timed alone and
with a LeNet-5 training step on each batch. Child only: `python -m probes.pipeline.worker_torch`."""

from __future__ import annotations

import sys

from probes import channel
from probes.pipeline import worker_common as wc


def run(args) -> dict:
    import numpy as np
    import torch
    from torch.utils.data import DataLoader, Dataset

    from probes.pipeline.augment import augment
    from probes.training import torch_nets

    if args.threads:
        torch.set_num_threads(args.threads)
    with np.load(args.npz) as z:
        images, labels = z["images"], z["labels"].astype(np.int64)

    class Augmented(Dataset):
        def __len__(self):
            return len(images)

        def __getitem__(self, i):
            rng = np.random.default_rng(i)
            return torch.from_numpy(augment(images[i], rng)), int(labels[i])

    def loader():
        while True:  # epochs without end: the timing loop decides how many batches
            yield from DataLoader(
                Augmented(),
                batch_size=args.batch_size,
                shuffle=True,
                drop_last=True,
                num_workers=args.workers,
                pin_memory=torch.cuda.is_available(),
                persistent_workers=False,
            )

    alone = wc.timed(loader(), args.batches, args.warmup)
    net = torch_nets.build("lenet")
    opt = torch_nets.make_optimizer(net)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(batch):
        x, y = batch
        opt.zero_grad(set_to_none=True)
        loss_fn(net(x), y).backward()
        opt.step()

    together = wc.timed(loader(), args.batches, args.warmup, step)
    x0, y0 = next(iter(loader()))
    step_only = wc.timed(iter(lambda: (x0, y0), None), args.batches, args.warmup, step)
    return {
        "status": "ok",
        "alone": alone,
        "with_step": together,
        "step_only": step_only,
        "settings": {
            "torch_version": torch.__version__,
            "num_workers": args.workers,
            "pin_memory": torch.cuda.is_available(),
            "threads": torch.get_num_threads(),
            "loader": "torch.utils.data.DataLoader(shuffle, drop_last)",
        },
    }


def main(argv=None) -> int:
    return channel.guarded(lambda args: channel.result(**run(args)), wc.parser("torch").parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
