"""PyTorch GPT worker: one timed run (eager|compile), the aux job (GEMM peak, parity arrays, the
attention kernel), or the dynamic-shape ways. Run only as a child through probes.launcher:
`python -m probes.transformer.worker_torch run ...`. Imports the standard library, numpy, torch and
the probes' framework-free helpers; talks back through probes.channel only.
"""

from __future__ import annotations

import time

_T_START = time.perf_counter()

import os  # noqa: E402
import sys  # noqa: E402

from probes import channel  # noqa: E402
from probes.training import common  # noqa: E402
from probes.transformer import worker_common  # noqa: E402

MODES = ("eager", "compile")


def _setup(args):
    import numpy as np
    import torch

    import_s = time.perf_counter() - _T_START
    if args.threads:
        torch.set_num_threads(args.threads)
    return np, torch, import_s


def _tensors(torch, b):
    return (
        torch.from_numpy(b.tokens.astype("int64")),
        torch.from_numpy(b.targets.astype("int64")),
        torch.from_numpy(b.weights),
    )


def _graphs(torch) -> int:
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


def cmd_run(args) -> int:
    if args.mode not in MODES:
        channel.result(status="unavailable", error=f"PyTorch has no mode {args.mode!r} (eager|compile)")
        return 0
    np, torch, import_s = _setup(args)
    rss_import = common.read_status_mb("VmRSS")
    settings = {
        "threads": torch.get_num_threads(),
        "torch_version": torch.__version__,
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
        "attention": "F.scaled_dot_product_attention(is_causal=True)",
    }
    if args.mode == "compile":
        if common.cxx_compiler() is None:
            channel.result(status="unavailable", settings=settings, error="torch.compile needs a C++ compiler on PATH")
            return 0
        cache_dir = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
        files = common.count_files(cache_dir) if cache_dir else 0
        settings.update(compile_cache="warm" if files else "cold", inductor_cache_files_before=files)
    from probes.training import measure
    from probes.transformer import batches, flops, spec, torch_gpt, weights

    s = worker_common.shape_of(args)
    t = time.perf_counter()
    init = weights.canonical(s)
    settings.update(weights_checksum=weights.checksum(init), param_count=spec.param_count(s))
    net = torch_gpt.build(s, init=init)
    del init  # loaded: the parameters hold their own copy
    opt = torch_gpt.optimizer(net)
    build_s = time.perf_counter() - t
    data = [_tensors(torch, b) for b in batches.fixed(s.vocab, args.batch_size, s.seq)]
    fn = torch.compile(net) if args.mode == "compile" else net
    n = len(data)

    def step(i):
        x, y, w = data[i % n]
        opt.zero_grad(set_to_none=True)
        loss = torch_gpt.loss(fn(x), y, w)
        loss.backward()
        opt.step()
        return loss

    plan = measure.Plan(
        budget_s=args.budget,
        batch_size=args.batch_size * s.seq,  # the unit is tokens: tokens per step
        t_crit=args.t_crit,
        max_steps=args.max_steps,
        snapshot=common.cpu_snapshot,
    )
    res = measure.run(step, lambda loss: float(loss.detach()), plan, on_progress=lambda p: channel.progress(**p))
    out = dict(res)
    med = res["step_time_ms"].get("median")
    if args.mode == "compile" and med is not None:
        out["compile_seconds"] = max(0.0, res["first_step_seconds"] - med / 1e3)
        out["graph_compiles"] = _graphs(torch)
    out.update(
        status="ok",
        device="cpu",
        import_seconds=import_s,
        build_seconds=build_s,
        rss_after_import_mb=rss_import,
        peak_memory_mb=common.read_status_mb("VmHWM"),
        memory_source="VmHWM (process RSS high-water mark)",
        train_flops_per_token=flops.train_flops_per_token(s),
        flop_counter=_flop_counter(torch, s, data[0]) if args.mode == "eager" else None,
        settings=settings,
    )
    channel.result(**out)
    return 0


def _flop_counter(torch, s, batch) -> dict | None:
    """torch.utils.flop_counter over one training step of the written-out-attention model (the
    counter has no formula for the CPU flash SDPA op, so the SDPA model would miss 12LHS): the
    analytic count's cross-check."""
    try:
        from torch.utils.flop_counter import FlopCounterMode

        from probes.transformer import torch_gpt

        net = torch_gpt.build(s, attention="manual")
        x, y, w = batch
        with FlopCounterMode(display=False) as fc:
            torch_gpt.loss(net(x), y, w).backward()
        return {
            "flops_per_step": int(fc.get_total_flops()),
            "tokens_per_step": int(x.numel()),
            "model": "written-out attention (FlopCounterMode does not count the CPU flash SDPA op)",
        }
    except Exception as exc:  # a cross-check only: its failure is recorded, not fatal
        return {"error": f"{type(exc).__name__}: {exc}"[:200]}


def parity_arrays(np, torch, s, batch: int) -> dict:
    from probes.transformer import batches, torch_gpt

    net = torch_gpt.build(s)
    opt = torch_gpt.optimizer(net)
    x, y, w = _tensors(torch, batches.fixed(s.vocab, batch, s.seq, n=1)[0])
    logits = net(x)
    loss = torch_gpt.loss(logits, y, w)
    opt.zero_grad()
    loss.backward()
    out = {"logits": logits.detach().numpy(), "loss": np.array([loss.item()], dtype=np.float32)}
    for name, p in net.named_parameters():
        out["grad/" + name] = p.grad.detach().numpy().copy()
    opt.step()
    for name, arr in torch_gpt.export(net).items():
        out["after/" + name] = arr
    return out


def attention_report(np, torch, s, batch: int, seconds: float) -> dict:
    """Which SDPA kernel torch runs here (the profiler's op names, not a guess), and a training
    step with SDPA against the same attention written out, timed in alternation."""
    from torch.profiler import ProfilerActivity, profile

    from probes.transformer import batches, torch_gpt

    q = torch.randn(batch, s.heads, s.seq, s.head_dim, requires_grad=True)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True).sum().backward()
    names = sorted({e.key for e in prof.key_averages() if "attention" in e.key or "sdpa" in e.key.lower()})
    backend = "unknown"
    if any("flash" in n for n in names):
        backend = "flash (CPU)"
    elif any("efficient" in n for n in names):
        backend = "mem-efficient"
    elif any("math" in n for n in names):
        backend = "math"
    x, y, w = _tensors(torch, batches.fixed(s.vocab, batch, s.seq, n=1)[0])
    nets = {k: torch_gpt.build(s, attention=k) for k in ("sdpa", "manual")}
    opts = {k: torch_gpt.optimizer(v) for k, v in nets.items()}
    times: dict = {"sdpa": [], "manual": []}

    def one(kind):
        opts[kind].zero_grad(set_to_none=True)
        t = time.perf_counter()
        torch_gpt.loss(nets[kind](x), y, w).backward()
        opts[kind].step()
        return time.perf_counter() - t

    for kind in times:  # first steps (allocator, lazy init) untimed
        one(kind)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds or len(times["manual"]) < 3:
        for kind in times:
            times[kind].append(one(kind))
    med = {k: float(np.median(v)) * 1e3 for k, v in times.items()}
    return {
        "framework": "pytorch",
        "fused": "F.scaled_dot_product_attention",
        "backend": backend,
        "kernel_ops": names,
        "how": "torch.profiler op names of one SDPA forward + backward",
        "step_ms": med,
        "pairs": len(times["manual"]),
        "sdpa_over_manual": med["manual"] / med["sdpa"] if med["sdpa"] > 0 else None,
    }


def cmd_aux(args) -> int:
    np, torch, import_s = _setup(args)
    from probes.training.worker_torch import gemm_peak

    s = worker_common.shape_of(args)
    result = {"status": "ok", "framework": "pytorch", "version": torch.__version__, "device": "cpu"}
    if not args.no_parity:
        channel.progress(phase="parity")
        path = os.path.join(args.out, "pytorch-gpt.npz")
        np.savez(path, **parity_arrays(np, torch, s, args.parity_batch))
        result["parity_file"] = path
    channel.progress(phase="attention")
    result["attention"] = attention_report(np, torch, s, args.batch_size, args.attention_seconds)
    if not args.no_gemm:
        channel.progress(phase="gemm")
        result["gemm"] = gemm_peak(torch, "cpu", lambda: None, args.gemm_seconds)
    result["threads"] = torch.get_num_threads()
    channel.result(**result)
    return 0


def cmd_dynamic(args) -> int:
    np, torch, import_s = _setup(args)
    if args.variant not in ("eager", "compile", "compile-dynamic"):
        channel.result(status="unavailable", error=f"PyTorch has no variant {args.variant!r}")
        return 0
    if args.variant != "eager" and common.cxx_compiler() is None:
        channel.result(status="unavailable", error="torch.compile needs a C++ compiler on PATH")
        return 0
    from probes.transformer import torch_gpt

    s = worker_common.shape_of(args)

    base_cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR")

    def make_step(way):
        torch._dynamo.reset()  # each way compiles from nothing in memory
        info = {}
        if base_cache and args.variant != "eager":
            # one inductor cache folder per (variant, way): a way never reuses another's kernels,
            # and "warm" means this very way compiled before (a repeat run)
            folder = os.path.join(base_cache, f"{args.variant}-{way}")
            files = common.count_files(folder)
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = folder
            info = {"inductor_cache": "warm" if files else "cold"}
        net = torch_gpt.build(s)
        opt = torch_gpt.optimizer(net)
        if args.variant == "eager":
            fn = net
        else:
            fn = torch.compile(net, dynamic=True if args.variant == "compile-dynamic" else None)

        def step(b):
            x, y, w = _tensors(torch, b)
            opt.zero_grad(set_to_none=True)
            loss = torch_gpt.loss(fn(x), y, w)
            loss.backward()
            opt.step()
            return float(loss.detach())

        step.info = info
        return step

    def compiles():
        return 0 if args.variant == "eager" else _graphs(torch)

    ways = worker_common.drive_ways(
        make_step, compiles, args, s, on_way=lambda w, f: channel.progress(phase=w, fraction=f)
    )
    channel.result(
        status="ok",
        framework="pytorch",
        variant=args.variant,
        how="torch.compile(net)"
        if args.variant == "compile"
        else ("torch.compile(net, dynamic=True)" if args.variant == "compile-dynamic" else "eager"),
        compiles_counter="torch._dynamo.utils.counters['stats']['unique_graphs']"
        if args.variant != "eager"
        else "none: eager execution compiles no graphs (first-shape slowness shows as stalls)",
        ways=ways,
        threads=torch.get_num_threads(),
        peak_memory_mb=common.read_status_mb("VmHWM"),
    )
    return 0


def main(argv=None) -> int:
    args = worker_common.parser("torch").parse_args(argv)
    cmd = {"run": cmd_run, "aux": cmd_aux, "dynamic": cmd_dynamic}[args.cmd]
    return channel.guarded(worker_common.memory_checked(cmd), args)


if __name__ == "__main__":
    sys.exit(main())
