"""Worker-side helpers shared by the deploy workers: standard library and numpy only.

Test hooks (environment, passed to children through the launcher's ADVISOR_ allow-list):
- ADVISOR_DEPLOY_HIDE=onnx,onnxruntime: the workers and installed_engines() treat these modules as
  absent, so the "works without onnx/onnxruntime" path runs on a host that has them;
- ADVISOR_DEPLOY_TEST_HANG=<worker>: that worker (torch, mindspore, onnxruntime) sleeps instead of
  working, so the runner's timeout and kill are exercised without a real hang.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
import time

HIDE_ENV = "ADVISOR_DEPLOY_HIDE"
ENGINE_OF_PROVIDER = {
    "CPUExecutionProvider": "onnxruntime-cpu",
    "CUDAExecutionProvider": "onnxruntime-cuda",
    "TensorrtExecutionProvider": "onnxruntime-tensorrt",
    "CANNExecutionProvider": "onnxruntime-cann",
}
HANG_ENV = "ADVISOR_DEPLOY_TEST_HANG"

# Operators the tests append to the network on purpose: both exporters reject them
# (torch: no ONNX translation for aten::cummax; MindSpore: "Can not find key Cummax in convert map").
INJECT_OPS = ("cummax",)

# How exporters name an operator they cannot convert, most specific first.
_OPERATOR_PATTERNS = (
    r"Exporting the operator '([\w:.]+)'",  # torch TorchScript exporter
    r"Can not find key (\w+) in convert map",  # MindSpore ONNX exporter
    r"Exporting (\w+) operator is not yet supported",  # MindSpore ONNX exporter
    r"\b(aten\.\w+(?:\.\w+)?)\b",  # torch dynamo exporter (aten.cummax.default)
    r"\b(aten::\w+)\b",
    r"[Uu]nsupported (?:operator|op|primitive)[^'\"]*['\"]([\w:.]+)['\"]",
)


def operator_from_error(text: str) -> str | None:
    """The operator an export error names, or None (pure; tested on the exporters' real messages)."""
    for pat in _OPERATOR_PATTERNS:
        m = re.search(pat, text or "")
        if m:
            return m.group(1)
    return None


def hidden() -> set[str]:
    return {m.strip() for m in os.environ.get(HIDE_ENV, "").split(",") if m.strip()}


def have(module: str) -> bool:
    """Whether `module` can be imported here (without importing it), honouring the hide hook."""
    if module in hidden() or module.split(".")[0] in hidden():
        return False
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def maybe_hang(worker: str) -> None:
    if os.environ.get(HANG_ENV) == worker:
        while True:  # the runner must kill this at its timeout
            time.sleep(3600)


def files_size(paths: list[str]) -> int:
    return sum(os.path.getsize(p) for p in paths if os.path.isfile(p))


def sidecars(path: str) -> list[str]:
    """The artefact and the files an exporter wrote next to it (ONNX external data)."""
    out = [path]
    data = path + ".data"
    if os.path.isfile(data):
        out.append(data)
    return out


def parity_input(model: str, batch: int):
    """The fixed images every serve step feeds for parity: seeded, identical in every child."""
    from probes.training import data

    return data.synthetic(model, batch, n_batches=1, seed=data.DATA_SEED + 1).images[0]


def example_input(model: str, batch: int):
    import numpy as np

    from probes.training import specs

    return np.zeros((batch, specs.input_channels(model), specs.IMAGE_SIZE, specs.IMAGE_SIZE), np.float32)


def save_outputs(out_dir: str, step_id: str, logits) -> str:
    import numpy as np

    path = os.path.join(out_dir, f"{step_id}.npz")
    np.savez(path, logits=np.asarray(logits, dtype=np.float32))
    return path


def parser(worker: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"probes.deploy.worker_{worker}")
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="export one model to one format")
    e.add_argument("--model", required=True)
    e.add_argument("--format", required=True)
    e.add_argument("--out", required=True, help="folder for the artefact")
    e.add_argument("--inject-op", default="", help="test hook: append an operator the exporters reject")
    e.add_argument("--threads", type=int, default=0)
    s = sub.add_parser("serve", help="load one artefact (or build the source network) and time it")
    s.add_argument("--model", required=True)
    s.add_argument("--artefact", required=True, help="source | a format name")
    s.add_argument("--path", default="", help="the artefact file (none for source)")
    s.add_argument("--id", required=True, help="the step id (names the parity output file)")
    s.add_argument("--batch-sizes", default="1,32")
    s.add_argument("--budget", type=float, default=2.0, help="seconds per batch size")
    s.add_argument("--out", required=True, help="folder for the parity outputs")
    s.add_argument("--provider", default="CPUExecutionProvider")
    s.add_argument("--threads", type=int, default=0)
    s.add_argument("--max-calls", type=int, default=None)
    return p


def batch_sizes(text: str) -> list[int]:
    return [int(b) for b in text.split(",") if b.strip()]


def export_failed(res: dict, exporter: str, exc: Exception, seconds: float) -> int:
    """Send a failed export as the step's result, naming the operator the exporter rejected."""
    from probes import channel

    op = operator_from_error(f"{type(exc).__name__}: {exc}")
    first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)
    error = f"{exporter} failed" + (f" on operator {op}" if op else "") + f": {type(exc).__name__}: {first}"
    res.update(status="failed", exporter=exporter, operator=op, seconds=seconds, error=error[:500])
    channel.result(**res)
    return 0


def serve_result(
    engine: str,
    import_s: float,
    load_s: float,
    timings: list[dict],
    rss_import: float | None,
    peak_mb: float | None = None,
    **extra,
) -> int:
    """Send a served step's result: first inference = load + the first call; peak memory is VmHWM
    now unless the worker read it earlier (ONNX Runtime reads it before its profiling session)."""
    from probes import channel
    from probes.training.common import read_status_mb

    channel.result(
        status="ok",
        engine=engine,
        import_seconds=import_s,
        load_seconds=load_s,
        first_inference_seconds=load_s + timings[0]["first_call_seconds"],
        timings=timings,
        peak_memory_mb=read_status_mb("VmHWM") if peak_mb is None else peak_mb,
        rss_after_import_mb=rss_import,
        **extra,
    )
    return 0


def worker_main(worker: str, cmd_export, cmd_serve, argv=None) -> int:
    """A worker's entry point: any exception goes back as an 'error' message (a result, not a crash)."""
    import traceback

    from probes import channel

    args = parser(worker).parse_args(argv)
    maybe_hang(worker)
    try:
        return cmd_export(args) if args.cmd == "export" else cmd_serve(args)
    except Exception as exc:  # every failure of a worker becomes an error message for the parent
        tb = traceback.format_exc(limit=4)
        channel.send("error", message=f"{type(exc).__name__}: {exc}"[:500], traceback=tb[-2000:])
        return 1


def run_main(worker: str, cmd_export, cmd_serve) -> None:
    sys.exit(worker_main(worker, cmd_export, cmd_serve))
