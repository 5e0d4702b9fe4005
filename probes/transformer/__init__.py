"""The transformer probe: the same small decoder-only GPT trained in PyTorch and MindSpore, with the
dynamic-shape cost (padded, bucketed, truly variable lengths) measured live. Kind "gpt" in probes.base."""
