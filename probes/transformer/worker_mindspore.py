"""MindSpore GPT worker: one timed run (graph|pynative), the aux job (GEMM peak, parity arrays,
the attention kernel), or the dynamic-shape ways. Run only as a child through probes.launcher.
Graph mode = GRAPH_MODE + nn.TrainOneStepCell; PyNative with mindspore.runtime.launch_blocking()
(background threads starve each other on few cores). Compiles are read from the cell's
`compile_cache` (the set of graph phases MindSpore compiled for it).
"""

from __future__ import annotations

import time

_T_START = time.perf_counter()

import os  # noqa: E402
import sys  # noqa: E402

from probes import channel  # noqa: E402
from probes.training import common  # noqa: E402
from probes.transformer import worker_common  # noqa: E402

MODES = ("graph", "pynative")


def _setup(args, mode: str):
    import mindspore as ms
    import numpy as np

    import_s = time.perf_counter() - _T_START
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    settings = {
        "mindspore_version": ms.__version__,
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
        "ONEDNN_MAX_CPU_ISA": os.environ.get("ONEDNN_MAX_CPU_ISA"),
        "attention": "written out (matmul, masked_fill -inf, softmax, matmul): no fused CPU kernel",
    }
    if args.threads:
        try:
            ms.device_context.cpu.op_tuning.threads_num(args.threads)
            settings["threads"] = args.threads
        except Exception as exc:  # recorded, not fatal: the env var still applies
            settings["threads_error"] = str(exc)[:200]
    if mode == "pynative":
        ms.runtime.launch_blocking()
        settings["launch_blocking"] = True
    return np, ms, import_s, settings


def _train_cell(ms, s, init=None, dynamic: bool = False):
    from mindspore import nn

    from probes.transformer import ms_gpt

    net = ms_gpt.build(s, init=init)
    train = nn.TrainOneStepCell(ms_gpt.WithLoss(net), ms_gpt.optimizer(net))
    train.set_train(True)
    if dynamic:  # batch and sequence length declared dynamic: one graph for every length
        i32, f32 = ms.int32, ms.float32
        train.set_inputs(
            ms.Tensor(shape=[None, None], dtype=i32),
            ms.Tensor(shape=[None, None], dtype=i32),
            ms.Tensor(shape=[None, None], dtype=f32),
            ms.Tensor(shape=[None], dtype=i32),
        )
    return net, train


def _tensors(ms, b):
    return ms.Tensor(b.tokens), ms.Tensor(b.targets), ms.Tensor(b.weights), ms.Tensor(b.positions)


def cmd_run(args) -> int:
    if args.mode not in MODES:
        channel.result(status="unavailable", error=f"MindSpore has no mode {args.mode!r} (graph|pynative)")
        return 0
    np, ms, import_s, settings = _setup(args, args.mode)
    rss_import = common.read_status_mb("VmRSS")
    from probes.training import measure
    from probes.transformer import batches, flops, spec, weights

    s = worker_common.shape_of(args)
    t = time.perf_counter()
    init = weights.canonical(s)
    checksum = weights.checksum(init)
    net, train = _train_cell(ms, s, init)
    del init  # loaded: set_data copied it into the parameters
    build_s = time.perf_counter() - t
    data = [_tensors(ms, b) for b in batches.fixed(s.vocab, args.batch_size, s.seq)]
    n = len(data)

    def step(i):
        return train(*data[i % n])

    plan = measure.Plan(
        budget_s=args.budget,
        batch_size=args.batch_size * s.seq,  # tokens per step
        t_crit=args.t_crit,
        max_steps=args.max_steps,
        snapshot=common.cpu_snapshot,
    )
    res = measure.run(step, lambda loss: float(loss.asnumpy()), plan, on_progress=lambda p: channel.progress(**p))
    out = dict(res)
    med = res["step_time_ms"].get("median")
    if args.mode == "graph" and med is not None:
        out["compile_seconds"] = max(0.0, res["first_step_seconds"] - med / 1e3)
        out["graph_compiles"] = len(train.compile_cache)
    settings.update(
        weights_checksum=checksum,
        param_count=spec.param_count(s),
        tuned=args.tuned or None,
        train_cell="nn.TrainOneStepCell(WithLoss)",
    )
    out.update(
        status="ok",
        device="cpu",
        import_seconds=import_s,
        build_seconds=build_s,
        rss_after_import_mb=rss_import,
        peak_memory_mb=common.read_status_mb("VmHWM"),
        memory_source="VmHWM (process RSS high-water mark; MindSpore's max_memory_allocated is 0 on CPU)",
        train_flops_per_token=flops.train_flops_per_token(s),
        settings=settings,
    )
    channel.result(**out)
    return 0


def parity_arrays(np, ms, s, batch: int) -> dict:
    from probes.transformer import batches, ms_gpt

    net = ms_gpt.build(s)
    opt = ms_gpt.optimizer(net)
    loss_cell = ms_gpt.WithLoss(net)
    tok, tgt, w, pos = _tensors(ms, batches.fixed(s.vocab, batch, s.seq, n=1)[0])
    logits = net(tok, pos)
    grad_fn = ms.value_and_grad(loss_cell, None, opt.parameters)
    loss, grads = grad_fn(tok, tgt, w, pos)
    from probes.transformer import spec

    canon = {spec.mindspore_name(t.name): t.name for t in spec.tensors(s)}
    out = {"logits": logits.asnumpy(), "loss": np.array([float(loss.asnumpy())], dtype=np.float32)}
    for p, g in zip(opt.parameters, grads):
        out["grad/" + canon[p.name]] = g.asnumpy()
    opt(grads)
    for name, arr in ms_gpt.export(net, s).items():
        out["after/" + name] = arr
    return out


def attention_report(np, ms, s) -> dict:
    """MindSpore's fused attention (ops.flash_attention_score) tried on this CPU: its own error says
    whether it exists here; no guess."""
    from mindspore import ops

    out = {
        "framework": "mindspore",
        "fused": "mindspore.ops.flash_attention_score (FlashAttentionScore)",
        "documented_platforms": "Ascend",
        "used_by_probe": "written out (matmul, masked_fill, softmax, matmul)",
    }
    fn = getattr(ops, "flash_attention_score", None)
    if fn is None:
        out.update(backend="absent", available=False, error="mindspore.ops has no flash_attention_score")
        return out
    q = ms.Tensor(np.random.default_rng(0).standard_normal((1, s.heads, 16, s.head_dim)).astype(np.float16))
    try:
        fn(q, q, q, s.heads, input_layout="BNSD").asnumpy()
        out.update(backend="flash_attention_score ran on CPU", available=True)
    except Exception as exc:  # the expected answer on CPU: the kernel is not registered here
        msg = " ".join(str(exc).split("----")[0].split())  # the first sentence, not the C++ stack
        out.update(backend="not available on CPU", available=False, error=f"{type(exc).__name__}: {msg}"[:300])
    return out


def cmd_aux(args) -> int:
    np, ms, import_s, settings = _setup(args, "pynative")
    from probes.training.worker_mindspore import gemm_peak

    s = worker_common.shape_of(args)
    result = {"status": "ok", "framework": "mindspore", "version": ms.__version__, "device": "cpu"}
    if not args.no_parity:
        channel.progress(phase="parity")
        path = os.path.join(args.out, "mindspore-gpt.npz")
        np.savez(path, **parity_arrays(np, ms, s, args.parity_batch))
        result["parity_file"] = path
    channel.progress(phase="attention")
    result["attention"] = attention_report(np, ms, s)
    if not args.no_gemm:
        channel.progress(phase="gemm")
        result["gemm"] = gemm_peak(ms, np, args.gemm_seconds)
    result["settings"] = settings
    channel.result(**result)
    return 0


def cmd_dynamic(args) -> int:
    if args.variant not in ("graph", "graph-dynamic", "pynative"):
        channel.result(status="unavailable", error=f"MindSpore has no variant {args.variant!r}")
        return 0
    np, ms, import_s, settings = _setup(args, "pynative" if args.variant == "pynative" else "graph")
    s = worker_common.shape_of(args)
    cell: dict = {}

    def make_step(way):
        _, train = _train_cell(ms, s, dynamic=args.variant == "graph-dynamic")
        cell["train"] = train

        def step(b):
            return float(train(*_tensors(ms, b)).asnumpy())

        return step

    def compiles():
        if args.variant == "pynative":
            return 0
        return len(cell["train"].compile_cache) if "train" in cell else 0

    ways = worker_common.drive_ways(
        make_step, compiles, args, s, on_way=lambda w, f: channel.progress(phase=w, fraction=f)
    )
    how = {
        "graph": "GRAPH_MODE, static input shapes",
        "graph-dynamic": "GRAPH_MODE, Cell.set_inputs(Tensor(shape=[None, None]), ...)",
        "pynative": "PYNATIVE_MODE",
    }[args.variant]
    channel.result(
        status="ok",
        framework="mindspore",
        variant=args.variant,
        how=how,
        compiles_counter="len(TrainOneStepCell.compile_cache) (graph phases compiled)"
        if args.variant != "pynative"
        else "none: PyNative compiles no whole graphs (first-shape slowness shows as stalls)",
        ways=ways,
        settings=settings,
        peak_memory_mb=common.read_status_mb("VmHWM"),
    )
    return 0


def main(argv=None) -> int:
    args = worker_common.parser("mindspore").parse_args(argv)
    cmd = {"run": cmd_run, "aux": cmd_aux, "dynamic": cmd_dynamic}[args.cmd]
    return channel.guarded(worker_common.memory_checked(cmd), args)


if __name__ == "__main__":
    sys.exit(main())
