"""PyTorch deploy worker: export one model (ONNX, torch.export) or serve one (eager, torch.export).

Run only as a child through probes.launcher: `python -m probes.deploy.worker_torch export ...`.
Imports the standard library, numpy and torch (its ONNX exporter brings onnx/onnxscript).
"""

from __future__ import annotations

import time

_T_START = time.perf_counter()

import os  # noqa: E402

from probes import channel  # noqa: E402
from probes.deploy import common  # noqa: E402
from probes.training import common as tcommon  # noqa: E402

# torch specialises a dimension whose example size is 0 or 1: export with 2, serve any batch.
EXAMPLE_BATCH = 2
MAX_BATCH = 4096


def _net(torch, model: str, inject: str):
    from probes.training import torch_nets

    net = torch_nets.build(model).eval()
    if inject == "cummax":

        class Injected(torch.nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                return torch.cummax(self.inner(x), dim=1)[0]

        net = Injected(net).eval()
    return net


def cmd_export(args) -> int:
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    net = _net(torch, args.model, args.inject_op)
    x = torch.from_numpy(common.example_input(args.model, EXAMPLE_BATCH))
    dims = {"x": {0: torch.export.Dim("batch", min=1, max=MAX_BATCH)}}
    res = {
        "status": "ok",
        "framework": "pytorch",
        "format": args.format,
        "model": args.model,
        "notes": [],
        "settings": {"torch_version": torch.__version__, "example_batch": EXAMPLE_BATCH},
    }
    if args.format == "onnx":
        missing = [m for m in ("onnx", "onnxscript") if not common.have(m)]
        if "onnx" in missing:
            channel.result(
                status="unavailable",
                error="the onnx package is not installed: torch.onnx.export needs it (pip install -e '.[deploy]')",
            )
            return 0
        path = os.path.join(args.out, f"pytorch-{args.model}.onnx")
        t = time.perf_counter()
        if "onnxscript" not in missing:
            # The current exporter (torch.export-based, the default since torch 2.9); one file.
            exporter = "torch.onnx.export(dynamo=True)"
            try:
                torch.onnx.export(
                    net,
                    (x,),
                    path,
                    dynamo=True,
                    external_data=False,
                    input_names=["input"],
                    output_names=["logits"],
                    dynamic_shapes=dims,
                )
            except Exception as exc:  # the exporter's failure is the measurement (operator named)
                return common.export_failed(res, exporter, exc, time.perf_counter() - t)
        else:
            exporter = "torch.onnx.export(dynamo=False) (TorchScript; onnxscript not installed)"
            res["notes"].append("onnxscript is not installed: the legacy TorchScript exporter ran")
            try:
                torch.onnx.export(
                    net,
                    (x,),
                    path,
                    dynamo=False,
                    input_names=["input"],
                    output_names=["logits"],
                    dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
                )
            except Exception as exc:  # the exporter's failure is the measurement (operator named)
                return common.export_failed(res, exporter, exc, time.perf_counter() - t)
        seconds = time.perf_counter() - t
        from probes.deploy import onnxmeta

        meta = onnxmeta.read_meta(path) or {}
        res.update(opset=(meta.get("opset") or {}).get("ai.onnx"), settings={**res["settings"], "onnx": meta})
    elif args.format == "torch.export":
        path = os.path.join(args.out, f"pytorch-{args.model}.pt2")
        exporter = "torch.export.export + torch.export.save"
        t = time.perf_counter()
        try:
            ep = torch.export.export(net, (x,), dynamic_shapes=dims)
            torch.export.save(ep, path)
        except Exception as exc:  # the exporter's failure is the measurement (operator named)
            return common.export_failed(res, exporter, exc, time.perf_counter() - t)
        seconds = time.perf_counter() - t
    else:
        channel.result(status="unavailable", error=f"PyTorch exports onnx or torch.export, not {args.format!r}")
        return 0
    files = common.sidecars(path)
    res.update(exporter=exporter, seconds=seconds, size_bytes=common.files_size(files), dynamic_batch=True, files=files)
    channel.result(**res)
    return 0


def cmd_serve(args) -> int:
    import numpy as np
    import torch

    import_s = time.perf_counter() - _T_START
    if args.threads:
        torch.set_num_threads(args.threads)
    from probes.deploy import timing

    rss_import = tcommon.read_status_mb("VmRSS")
    t = time.perf_counter()
    if args.artefact == "source":
        fn = _net(torch, args.model, "")
        engine = "torch-eager"
    elif args.artefact == "torch.export":
        fn = torch.export.load(args.path).module()
        engine = "torch.export"
    else:
        channel.result(
            status="unavailable", error=f"the torch worker serves source or torch.export, not {args.artefact!r}"
        )
        return 0
    load_s = time.perf_counter() - t
    sizes = common.batch_sizes(args.batch_sizes)

    def make_call(b):
        x = torch.from_numpy(common.example_input(args.model, b) + 0.5)

        def call():
            with torch.no_grad():
                return fn(x).numpy()

        return call

    timings = timing.serve_all(make_call, sizes, args.budget, args.max_calls)
    with torch.no_grad():
        logits = fn(torch.from_numpy(common.parity_input(args.model, max(sizes)))).numpy()
    common.save_outputs(args.out, args.id, logits)
    return common.serve_result(
        engine,
        import_s,
        load_s,
        timings,
        rss_import,
        settings={
            "torch_version": torch.__version__,
            "threads": torch.get_num_threads(),
            "grad_mode": "torch.no_grad",
            "numpy": np.__version__,
        },
    )


if __name__ == "__main__":
    common.run_main("torch", cmd_export, cmd_serve)
