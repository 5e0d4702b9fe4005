"""PyTorch training-probe worker: one (mode, model) run, or the aux job (GEMM peak + parity arrays).

Run only as a child through probes.launcher: `python -m probes.training.worker_torch run ...`.
Imports the standard library, numpy, torch and the probe's pure-python helpers; talks back
through probes.channel only.
"""

from __future__ import annotations

import time

_T_START = time.perf_counter()  # before any heavy import: import time is measured from here

import os  # noqa: E402
import sys  # noqa: E402

from probes import channel  # noqa: E402
from probes.training import common  # noqa: E402

MODES = ("eager", "compile")


def _import_torch():
    import numpy as np
    import torch

    return np, torch


def _sync_fn(torch, device: str):
    if device == "cuda":
        return torch.cuda.synchronize
    if device == "npu":
        return torch.npu.synchronize
    return lambda: None


def _setup(args):
    np, torch = _import_torch()
    import_s = time.perf_counter() - _T_START
    if args.threads:
        torch.set_num_threads(args.threads)
    from probes.training import devices

    dev, native, reason = devices.choose(args.device, "pytorch", devices.torch_available(torch))
    return np, torch, import_s, dev, native, reason


def cmd_run(args) -> int:
    if args.mode not in MODES:
        channel.result(status="unavailable", error=f"PyTorch has no mode {args.mode!r} (eager|compile)")
        return 0
    np, torch, import_s, dev, native, reason = _setup(args)
    rss_import = common.read_status_mb("VmRSS")
    settings = {
        "threads": torch.get_num_threads(),
        "interop_threads": torch.get_num_interop_threads(),
        "device_choice": reason,
        "torch_version": torch.__version__,
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
        "ONEDNN_MAX_CPU_ISA": os.environ.get("ONEDNN_MAX_CPU_ISA"),
    }
    if dev is None:
        channel.result(status="unavailable", error=reason, settings=settings)
        return 0
    compile_cache = None
    if args.mode == "compile":
        if dev == "cpu" and common.cxx_compiler() is None:
            channel.result(
                status="unavailable",
                settings=settings,
                error="torch.compile needs a C++ compiler on PATH (g++/clang++); none found",
            )
            return 0
        cache_dir = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
        files = common.count_files(cache_dir) if cache_dir else 0
        # "warm" = this workload's cache folder (the runner gives each model/batch/device its own)
        # held kernels before this run.
        compile_cache = "warm" if files else "cold"
        settings.update(
            compile_cache=compile_cache,
            inductor_cache_dir=cache_dir,
            inductor_cache_files_before=files,
            cxx=common.cxx_compiler(),
        )

    from probes.training import data, flops, measure, torch_nets, weights

    sync_dev = _sync_fn(torch, dev)
    if dev == "cuda":  # strict fp32, as the protocol and the seeds' V100 tables (no TF32 there)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        settings["tf32"] = False
        settings["cudnn_benchmark"] = bool(torch.backends.cudnn.benchmark)
    t = time.perf_counter()
    net = torch_nets.build(args.model).to(native)
    opt = torch_nets.make_optimizer(net)
    build_s = time.perf_counter() - t
    b = data.batches(args.model, args.batch_size, args.data)
    xs = [torch.from_numpy(b.images[j]).to(native) for j in range(len(b))]
    ys = [torch.from_numpy(b.labels[j].astype(np.int64)).to(native) for j in range(len(b))]
    model_fn = torch.compile(net) if args.mode == "compile" else net
    loss_fn = torch.nn.CrossEntropyLoss()
    n = len(xs)

    def step(i):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model_fn(xs[i % n]), ys[i % n])
        loss.backward()
        opt.step()
        return loss

    def sync(loss) -> float:
        sync_dev()
        return float(loss.detach())

    if dev == "cuda":
        torch.cuda.reset_peak_memory_stats()
    elif dev == "npu":
        torch.npu.reset_peak_memory_stats()

    def progress(p):
        channel.progress(**p)

    plan = measure.Plan(
        budget_s=args.budget,
        batch_size=args.batch_size,
        t_crit=args.t_crit,
        max_steps=args.max_steps,
        snapshot=common.cpu_snapshot,
    )
    res = measure.run(step, sync, plan, on_progress=progress)
    out = dict(res)
    med = res["step_time_ms"].get("median")
    if args.mode == "compile" and med is not None:
        out["compile_seconds"] = max(0.0, res["first_step_seconds"] - med / 1e3)
    mem_source = "VmHWM (process RSS high-water mark)"
    peak = common.read_status_mb("VmHWM")
    if dev == "cuda":
        out["host_peak_rss_mb"] = peak
        peak = torch.cuda.max_memory_allocated() / 2**20
        out["device_reserved_mb"] = torch.cuda.max_memory_reserved() / 2**20
        mem_source = "torch.cuda.max_memory_allocated"
        settings["device_name"] = torch.cuda.get_device_name()
    elif dev == "npu":
        out["host_peak_rss_mb"] = peak
        peak = torch.npu.max_memory_allocated() / 2**20
        mem_source = "torch.npu.max_memory_allocated"
        try:
            settings["device_name"] = torch.npu.get_device_name()
        except Exception:  # the device name is a label; its absence is not a failure
            pass
    settings.update(
        data=b.source, weights_checksum=weights.canonical_checksum(args.model), param_count=torch_nets.param_count(net)
    )
    out.update(
        status="ok",
        framework="pytorch",
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


def gemm_peak(torch, native: str, sync_dev, seconds: float) -> dict:
    """Best fp32 matmul rate over a few square sizes (GFLOP/s)."""
    best, per = 0.0, {}
    sizes = common.GEMM_SIZES + (common.GEMM_SIZES_ACCEL if native != "cpu" else ())
    for n in sizes:
        a = torch.randn(n, n, device=native)
        b = torch.randn(n, n, device=native)
        torch.mm(a, b)
        sync_dev()
        reps, t0 = 0, time.perf_counter()
        while True:
            torch.mm(a, b)
            reps += 1
            if reps % 2 == 0:
                sync_dev()
                if time.perf_counter() - t0 >= seconds:
                    break
        dt = time.perf_counter() - t0
        per[str(n)] = 2.0 * n**3 * reps / dt / 1e9
        best = max(best, per[str(n)])
    return {"gflops": best, "by_size": per, "method": "torch.mm fp32, best of sizes"}


def parity_arrays(np, torch, model: str, native: str, batch: int) -> dict:
    """Logits (eval and train), loss, gradients and state after one SGD step, canonical names."""
    from probes.training import data, torch_nets

    net = torch_nets.build(model).to(native)
    opt = torch_nets.make_optimizer(net)
    b = data.synthetic(model, batch, n_batches=1)
    x = torch.from_numpy(b.images[0]).to(native)
    y = torch.from_numpy(b.labels[0].astype(np.int64)).to(native)
    out = {}
    net.eval()
    with torch.no_grad():
        out["logits_eval"] = net(x).cpu().numpy()
    net.train()
    opt.zero_grad()
    logits = net(x)
    loss = torch.nn.functional.cross_entropy(logits, y)
    loss.backward()
    out["logits_train"] = logits.detach().cpu().numpy()
    out["loss"] = np.array([loss.item()], dtype=np.float32)
    for name, p in net.named_parameters():
        out["grad/" + name] = p.grad.detach().cpu().numpy()
    opt.step()
    for name, arr in torch_nets.export_state(net).items():
        out["after/" + name] = arr
    return out


def cmd_aux(args) -> int:
    np, torch, import_s, dev, native, reason = _setup(args)
    if dev is None:
        channel.result(status="unavailable", error=reason)
        return 0
    if dev == "cuda":  # parity is an fp32 comparison: no TF32 shortcuts
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    result = {
        "status": "ok",
        "framework": "pytorch",
        "version": torch.__version__,
        "device": dev,
        "threads": torch.get_num_threads(),
        "import_seconds": import_s,
        "parity_files": {},
    }
    for model in [m for m in args.models.split(",") if m]:
        channel.progress(phase="parity", model=model)
        arrays = parity_arrays(np, torch, model, native, args.parity_batch)
        path = os.path.join(args.out, f"pytorch-{model}.npz")
        np.savez(path, **arrays)
        result["parity_files"][model] = path
    if not args.no_gemm:
        channel.progress(phase="gemm")
        result["gemm"] = gemm_peak(torch, native, _sync_fn(torch, dev), args.gemm_seconds)
        if dev == "cuda":
            result["gemm"]["device_name"] = torch.cuda.get_device_name()
    channel.result(**result)
    return 0


def main(argv=None) -> int:
    return common.worker_main("torch", cmd_run, cmd_aux, argv)


if __name__ == "__main__":
    sys.exit(main())
