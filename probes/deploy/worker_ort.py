"""ONNX Runtime deploy worker: serve one ONNX file on one execution provider, time it, and report
which nodes ran on which provider (a short profiled session apart from the timed one, because
profiling slows every node down).

Run only as a child through probes.launcher: `python -m probes.deploy.worker_ort serve ...`.
Imports the standard library, numpy and onnxruntime.
"""

from __future__ import annotations

import time

_T_START = time.perf_counter()

import json  # noqa: E402
import os  # noqa: E402

from probes import channel  # noqa: E402
from probes.deploy import common  # noqa: E402
from probes.training import common as tcommon  # noqa: E402

ENGINE_OF = common.ENGINE_OF_PROVIDER


def cmd_export(args) -> int:
    channel.result(status="unavailable", error="ONNX Runtime serves artefacts; it does not export")
    return 0


def _options(ort, threads: int):
    so = ort.SessionOptions()
    if threads:
        so.intra_op_num_threads = threads
    so.log_severity_level = 3  # errors only: a shape warning per call would be timed too
    return so


def cmd_serve(args) -> int:
    if not common.have("onnxruntime"):
        channel.result(status="unavailable", error="onnxruntime is not installed (pip install -e '.[deploy]')")
        return 0
    import numpy as np
    import onnxruntime as ort

    import_s = time.perf_counter() - _T_START
    from probes.deploy import placement, timing

    available = ort.get_available_providers()
    if args.provider not in available:
        channel.result(
            status="unavailable",
            error=f"{args.provider} is not among this onnxruntime's providers ({', '.join(available)})",
        )
        return 0
    providers = [args.provider] + (["CPUExecutionProvider"] if args.provider != "CPUExecutionProvider" else [])
    rss_import = tcommon.read_status_mb("VmRSS")
    t = time.perf_counter()
    sess = ort.InferenceSession(args.path, _options(ort, args.threads), providers=providers)
    load_s = time.perf_counter() - t
    inp, out = sess.get_inputs()[0], sess.get_outputs()[0]
    warnings = []
    if isinstance(inp.shape[0], str) and isinstance(out.shape[0], int):
        warnings.append(
            f"the ONNX file declares a dynamic input batch ({inp.shape}) but a fixed output "
            f"shape ({out.shape}): engines that trust the declared shapes may misbehave"
        )
    sizes = common.batch_sizes(args.batch_sizes)

    def make_call(b):
        feed = {inp.name: common.example_input(args.model, b) + 0.5}
        return lambda: sess.run(None, feed)[0]

    timings = timing.serve_all(make_call, sizes, args.budget, args.max_calls)
    logits = sess.run(None, {inp.name: common.parity_input(args.model, max(sizes))})[0]
    common.save_outputs(args.out, args.id, logits)
    peak = tcommon.read_status_mb("VmHWM")
    # Placement: one profiled call in a separate session (same providers, same optimisations).
    so = _options(ort, args.threads)
    so.enable_profiling = True
    so.profile_file_prefix = os.path.join(os.getcwd(), "ort-profile")
    psess = ort.InferenceSession(args.path, so, providers=providers)
    psess.run(None, {inp.name: common.example_input(args.model, sizes[0])})
    with open(psess.end_profiling(), encoding="utf-8") as fh:
        where = placement.node_placement(json.load(fh), args.provider)
    if where["fallback"]:
        warnings.append(
            f"{len(where['fallback'])} of {where['nodes']} nodes did not run on {args.provider} "
            f"({', '.join(where['fallback_ops'])}): silent fallback"
        )
    return common.serve_result(
        ENGINE_OF.get(args.provider, args.provider),
        import_s,
        load_s,
        timings,
        rss_import,
        peak_mb=peak,
        provider=args.provider,
        placement=where,
        warnings=warnings,
        settings={
            "onnxruntime_version": ort.__version__,
            "session_providers": sess.get_providers(),
            "graph_optimization_level": "ORT_ENABLE_ALL (default)",
            "intra_op_threads": args.threads or None,
            "numpy": np.__version__,
            "input_shape": inp.shape,
            "output_shape": out.shape,
        },
    )


if __name__ == "__main__":
    common.run_main("onnxruntime", cmd_export, cmd_serve)
