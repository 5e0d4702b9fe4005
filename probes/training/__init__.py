"""The training probe: identical networks, shared weights and data, and the timing protocol.

Pure-python helpers (specs, weights, data, stats, flops) import only the standard library and
numpy; `torch_nets` / `ms_nets` and the workers import their one framework.
"""
