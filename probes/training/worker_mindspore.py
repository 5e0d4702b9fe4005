"""MindSpore training-probe worker: one (mode, model) run, or the aux job (GEMM peak + parity arrays).

Run only as a child through probes.launcher: `python -m probes.training.worker_mindspore run ...`.
The parent sets GLOG_v=3 (read at import) and, on hosts where oneDNN would pick reference conv
kernels, ONEDNN_MAX_CPU_ISA=AVX2. Graph mode = GRAPH_MODE + nn.TrainOneStepCell; PyNative runs
with mindspore.runtime.launch_blocking() (background threads starve each other on few cores).
"""

from __future__ import annotations

import time

_T_START = time.perf_counter()

import os  # noqa: E402
import sys  # noqa: E402

from probes import channel  # noqa: E402
from probes.training import common  # noqa: E402

MODES = ("graph", "pynative")


def _setup(args, mode: str):
    import numpy as np
    import mindspore as ms

    import_s = time.perf_counter() - _T_START
    from probes.training import devices

    dev, native, reason = devices.choose(args.device, "mindspore", devices.mindspore_available(ms))
    settings = {
        "device_choice": reason,
        "mindspore_version": ms.__version__,
        "numpy_version": np.__version__,
        "GLOG_v": os.environ.get("GLOG_v"),
        "ONEDNN_MAX_CPU_ISA": os.environ.get("ONEDNN_MAX_CPU_ISA"),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
    }
    if dev is None:
        return np, ms, import_s, None, None, settings
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_device(native)
    if args.threads and dev == "cpu":
        try:
            ms.device_context.cpu.op_tuning.threads_num(args.threads)
            settings["threads"] = args.threads
        except Exception as exc:  # recorded, not fatal: the env var still applies
            settings["threads_error"] = str(exc)[:200]
    if mode == "pynative":
        ms.runtime.launch_blocking()
        settings["launch_blocking"] = True
    return np, ms, import_s, dev, native, settings


def cmd_run(args) -> int:
    if args.mode not in MODES:
        channel.result(status="unavailable", error=f"MindSpore has no mode {args.mode!r} (graph|pynative)")
        return 0
    np, ms, import_s, dev, native, settings = _setup(args, args.mode)
    rss_import = common.read_status_mb("VmRSS")
    if dev is None:
        channel.result(status="unavailable", error=settings["device_choice"], settings=settings)
        return 0
    from mindspore import nn

    from probes.training import data, flops, measure, ms_nets, weights

    t = time.perf_counter()
    net = ms_nets.build(args.model)
    opt = ms_nets.make_optimizer(net)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, ms_nets.loss_fn()), opt)
    train.set_train(True)
    build_s = time.perf_counter() - t
    b = data.batches(args.model, args.batch_size, args.data)
    xs = [ms.Tensor(b.images[j]) for j in range(len(b))]
    ys = [ms.Tensor(b.labels[j]) for j in range(len(b))]
    n = len(xs)

    def step(i):
        return train(xs[i % n], ys[i % n])

    def sync(loss) -> float:
        return float(loss.asnumpy())  # waits for the step to finish

    if dev != "cpu":
        ms.runtime.reset_peak_memory_stats()
    plan = measure.Plan(
        budget_s=args.budget,
        batch_size=args.batch_size,
        t_crit=args.t_crit,
        max_steps=args.max_steps,
        snapshot=common.cpu_snapshot,
    )
    res = measure.run(step, sync, plan, on_progress=lambda p: channel.progress(**p))
    out = dict(res)
    med = res["step_time_ms"].get("median")
    if args.mode == "graph" and med is not None:
        out["compile_seconds"] = max(0.0, res["first_step_seconds"] - med / 1e3)
    peak = common.read_status_mb("VmHWM")
    mem_source = "VmHWM (process RSS high-water mark)"
    if dev != "cpu":  # on CPU max_memory_allocated() is 0
        out["host_peak_rss_mb"] = peak
        peak = ms.runtime.max_memory_allocated() / 2**20
        mem_source = "mindspore.runtime.max_memory_allocated"
    settings.update(
        data=b.source,
        weights_checksum=weights.canonical_checksum(args.model),
        param_count=ms_nets.param_count(net),
        tuned=args.tuned or None,
        train_cell="nn.TrainOneStepCell(nn.WithLossCell)",
    )
    out.update(
        status="ok",
        framework="mindspore",
        mode=args.mode,
        model=args.model,
        batch_size=args.batch_size,
        device=dev,
        import_seconds=import_s,
        build_seconds=build_s,
        rss_after_import_mb=rss_import,
        peak_memory_mb=peak,
        memory_source=mem_source,
        train_flops_per_image=flops.train_flops_per_image(args.model),
        settings=settings,
    )
    channel.result(**out)
    return 0


def gemm_peak(ms, np, seconds: float) -> dict:
    """Best fp32 matmul rate over a few square sizes (GFLOP/s), the matmul compiled with ms.jit."""
    from mindspore import ops

    @ms.jit
    def mm(a, b):
        return ops.matmul(a, b)

    best, per = 0.0, {}
    for n in common.GEMM_SIZES:
        rng = np.random.default_rng(n)
        a = ms.Tensor(rng.standard_normal((n, n), dtype=np.float32))
        b = ms.Tensor(rng.standard_normal((n, n), dtype=np.float32))
        mm(a, b).asnumpy()
        reps, t0 = 0, time.perf_counter()
        while True:
            c = mm(a, b)
            reps += 1
            if reps % 2 == 0:
                c.asnumpy()
                if time.perf_counter() - t0 >= seconds:
                    break
        dt = time.perf_counter() - t0
        per[str(n)] = 2.0 * n**3 * reps / dt / 1e9
        best = max(best, per[str(n)])
    return {"gflops": best, "by_size": per, "method": "ms.jit(ops.matmul) fp32, best of sizes"}


def parity_arrays(np, ms, model: str, batch: int) -> dict:
    """Logits (eval and train), loss, gradients and state after one SGD step, canonical names."""
    from probes.training import data, ms_nets, weights

    net = ms_nets.build(model)
    opt = ms_nets.make_optimizer(net)
    loss_fn = ms_nets.loss_fn()
    b = data.synthetic(model, batch, n_batches=1)
    x, y = ms.Tensor(b.images[0]), ms.Tensor(b.labels[0])
    out = {}
    net.set_train(False)
    out["logits_eval"] = net(x).asnumpy()
    net.set_train(True)

    def forward(x, y):
        logits = net(x)
        return loss_fn(logits, y), logits

    grad_fn = ms.value_and_grad(forward, None, opt.parameters, has_aux=True)
    (loss, logits), grads = grad_fn(x, y)
    out["logits_train"] = logits.asnumpy()
    out["loss"] = np.array([float(loss.asnumpy())], dtype=np.float32)
    canon = {v: k for k, v in weights.mindspore_names(model).items()}
    for p, g in zip(opt.parameters, grads):
        out["grad/" + canon[p.name]] = g.asnumpy()
    opt(grads)
    for name, arr in ms_nets.export_state(net, model).items():
        out["after/" + name] = arr
    return out


def cmd_aux(args) -> int:
    np, ms, import_s, dev, native, settings = _setup(args, "pynative")
    if dev is None:
        channel.result(status="unavailable", error=settings["device_choice"])
        return 0
    result = {
        "status": "ok",
        "framework": "mindspore",
        "version": ms.__version__,
        "device": dev,
        "threads": args.threads or None,
        "import_seconds": import_s,
        "parity_files": {},
        "settings": settings,
    }
    for model in [m for m in args.models.split(",") if m]:
        channel.progress(phase="parity", model=model)
        arrays = parity_arrays(np, ms, model, args.parity_batch)
        path = os.path.join(args.out, f"mindspore-{model}.npz")
        np.savez(path, **arrays)
        result["parity_files"][model] = path
    if not args.no_gemm:
        channel.progress(phase="gemm")
        result["gemm"] = gemm_peak(ms, np, args.gemm_seconds)
    channel.result(**result)
    return 0


def main(argv=None) -> int:
    return common.worker_main("mindspore", cmd_run, cmd_aux, argv)


if __name__ == "__main__":
    sys.exit(main())
