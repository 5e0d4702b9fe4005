"""Input-pipeline probe: the same augmentation (random crop with 4-pixel padding, horizontal flip,
normalise, HWC->CHW) in torch.utils.data.DataLoader and in mindspore.dataset, measured as samples/s
the pipeline delivers alone and together with a LeNet-5 training step, each variant in its own child."""
