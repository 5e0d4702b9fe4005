"""MindSpore deploy worker: export one model (MindIR, ONNX) or serve one (the network in graph mode,
or a MindIR through mindspore.load + nn.GraphCell).

Run only as a child through probes.launcher: `python -m probes.deploy.worker_mindspore export ...`.
Imports the standard library, numpy and mindspore. The parent sets GLOG_v=3 (read at import) and,
on AVX-512 hosts, ONEDNN_MAX_CPU_ISA=AVX2 as for training.
"""

from __future__ import annotations

import time

_T_START = time.perf_counter()

import os  # noqa: E402

from probes import channel  # noqa: E402
from probes.deploy import common  # noqa: E402
from probes.training import common as tcommon  # noqa: E402

EXAMPLE_BATCH = 2


def _setup(threads: int):
    import mindspore as ms

    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_device("CPU")
    if threads:
        try:
            ms.device_context.cpu.op_tuning.threads_num(threads)
        except Exception:  # recorded by the env var OMP_NUM_THREADS anyway
            pass
    return ms


def _net(ms, model: str, inject: str):
    from mindspore import nn, ops

    from probes.training import ms_nets

    net = ms_nets.build(model)
    if inject == "cummax":

        class Injected(nn.Cell):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def construct(self, x):
                return ops.cummax(self.inner(x), 1)[0]

        net = Injected(net)
    net.set_train(False)
    return net


def cmd_export(args) -> int:
    import numpy as np

    ms = _setup(args.threads)
    net = _net(ms, args.model, args.inject_op)
    res = {
        "status": "ok",
        "framework": "mindspore",
        "format": args.format,
        "model": args.model,
        "notes": [],
        "settings": {"mindspore_version": ms.__version__, "ONEDNN_MAX_CPU_ISA": os.environ.get("ONEDNN_MAX_CPU_ISA")},
    }
    x = ms.Tensor(common.example_input(args.model, EXAMPLE_BATCH))
    base = os.path.join(args.out, f"mindspore-{args.model}")
    t = time.perf_counter()
    if args.format == "mindir":
        exporter = "mindspore.export(file_format='MINDIR')"
        shape = list(x.shape)
        shape[0] = None  # dynamic batch
        try:
            ms.export(net, ms.Tensor(shape=shape, dtype=ms.float32), file_name=base, file_format="MINDIR")
        except Exception as exc:  # the exporter's failure is the measurement (operator named)
            return common.export_failed(res, exporter, exc, time.perf_counter() - t)
        path = base + ".mindir"
    elif args.format == "onnx":
        path = base + ".onnx"
        try:
            from mindspore import onnx as ms_onnx

            exporter = "mindspore.onnx.export"

            def export():
                ms_onnx.export(
                    net,
                    x,
                    file_name=path,
                    input_names=["input"],
                    output_names=["logits"],
                    dynamic_axes={"input": {0: "batch"}},
                )
        except ImportError:  # before the mindspore.onnx module existed
            exporter = "mindspore.export(file_format='ONNX')"

            def export():
                ms.export(net, ms.Tensor(np.zeros(x.shape, np.float32)), file_name=base, file_format="ONNX")

        try:
            export()
        except Exception as exc:  # the exporter's failure is the measurement (operator named)
            return common.export_failed(res, exporter, exc, time.perf_counter() - t)
        from probes.deploy import onnxmeta

        meta = onnxmeta.read_meta(path) or {}
        res.update(opset=(meta.get("opset") or {}).get("ai.onnx"), settings={**res["settings"], "onnx": meta})
    else:
        channel.result(status="unavailable", error=f"MindSpore exports mindir or onnx, not {args.format!r}")
        return 0
    seconds = time.perf_counter() - t
    files = common.sidecars(path)
    res.update(
        exporter=exporter,
        seconds=seconds,
        size_bytes=common.files_size(files),
        dynamic_batch=exporter != "mindspore.export(file_format='ONNX')",
        files=files,
    )
    channel.result(**res)
    return 0


def cmd_serve(args) -> int:
    import numpy as np

    ms = _setup(args.threads)
    import_s = time.perf_counter() - _T_START
    from mindspore import nn

    from probes.deploy import timing

    rss_import = tcommon.read_status_mb("VmRSS")
    t = time.perf_counter()
    if args.artefact == "source":
        fn = _net(ms, args.model, "")
        engine = "mindspore-graph"
    elif args.artefact == "mindir":
        fn = nn.GraphCell(ms.load(args.path))
        engine = "mindspore-graphcell"
    else:
        channel.result(
            status="unavailable", error=f"the MindSpore worker serves source or mindir, not {args.artefact!r}"
        )
        return 0
    load_s = time.perf_counter() - t
    sizes = common.batch_sizes(args.batch_sizes)

    def make_call(b):
        x = ms.Tensor(common.example_input(args.model, b) + 0.5)
        return lambda: fn(x).asnumpy()

    timings = timing.serve_all(make_call, sizes, args.budget, args.max_calls)
    logits = fn(ms.Tensor(common.parity_input(args.model, max(sizes)))).asnumpy()
    common.save_outputs(args.out, args.id, logits)
    return common.serve_result(
        engine,
        import_s,
        load_s,
        timings,
        rss_import,
        settings={
            "mindspore_version": ms.__version__,
            "mode": "GRAPH_MODE",
            "numpy": np.__version__,
            "ONEDNN_MAX_CPU_ISA": os.environ.get("ONEDNN_MAX_CPU_ISA"),
        },
    )


if __name__ == "__main__":
    common.run_main("mindspore", cmd_export, cmd_serve)
