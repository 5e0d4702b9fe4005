"""The deployment probe: export the probe networks from each framework (ONNX, torch.export, MindIR),
serve and time every artefact on the engines installed here, and check parity between them.

Each export and each serve step runs in its own child through probes.launcher; the runner
(runner.py) never imports a framework or engine; advisor/deployment.py judges the result."""
