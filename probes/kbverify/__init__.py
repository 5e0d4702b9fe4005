"""Live verification of the knowledge base's API mapping table (`advisor kb verify`): every mapped
MindSpore API looked up, and the ones with a spec run once on tiny tensors in a MindSpore worker, the
PyTorch side in a separate torch worker; the runner compares them. Gathers only: advisor judges."""
