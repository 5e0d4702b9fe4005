"""Smoke-test worker: `python -m probes.check.smoke_worker <pytorch|mindspore|torch_npu> [--conv-only] [--conv-once]
[--hints FILE]`.

Runs in its own process (started by probes.launcher). Imports only the standard library,
probes.channel and its ONE framework. On every device the framework can use: a small matmul and one
backward pass, timed (first call, synchronised) and checked (finite gradients, the same values as on
the CPU). Progress per device goes out as it happens, so a hang on device 3 still tells the parent
that devices 0-2 passed.

MindSpore on CPU also times one convolution against a GEMM of the same FLOPs: on AVX-512 hosts
MindSpore's bundled oneDNN falls back to reference kernels for plain NCHW convolutions (10-60x
slower); `--conv-only` runs just that measurement (the parent reruns it with ONEDNN_MAX_CPU_ISA=AVX2
to show the fix works); `--conv-once` times a slow convolution once, not twice (the parent knows
from an earlier check on this host and MindSpore version that it is slow). `--hints FILE`: the same
answer, written into FILE by the parent after it started this child ("conv-once"), or "conv-skip" (an
earlier check timed and confirmed the slow convolution on this host and install: the parent reports
that timing, dated); read when the convolution is reached, after the import. No file yet: a slow
convolution is timed twice.

ADVISOR_TEST_SMOKE_FAULT=<framework>:<hang|crash|raise> makes the worker misbehave on purpose before
importing anything heavy; the test suite uses it to check that hangs and crashes become data.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Optional

from probes import channel

SIZE = 128
# The convolution of the oneDNN check: 64->64 channels, 3x3, one 32x32 image (75 MFLOP), and the
# GEMM with the same FLOPs (the im2col shape: 1024 x 576 @ 576 x 64).
CONV_SHAPE = "1x64x32x32, 64->64 3x3 pad 1"
SLOW_RATIO = 10.0  # healthy kernels: conv within ~4x of the same-FLOP GEMM; reference: 25-200x
SLOW_MIN_MS = 3.0  # below this, timer noise dominates: never call it slow


def _fault(framework: str) -> None:
    spec = os.environ.get("ADVISOR_TEST_SMOKE_FAULT", "")
    for item in filter(None, spec.split(",")):
        name, _, fault = item.partition(":")
        if name != framework:
            continue
        if fault == "hang":
            time.sleep(3600)
        elif fault == "crash":
            os.abort()  # dies from SIGABRT, like a segfaulting native library would
        elif fault == "raise":
            raise RuntimeError("simulated failure inside the framework")


def _device_done(record: dict, devices: list) -> None:
    devices.append(record)
    channel.progress(stage="device-done", **record)


def _run_devices(names: list, smoke) -> list:
    devices: list = []
    for name in names:
        channel.progress(stage="device-start", device=name)
        start = time.perf_counter()
        try:
            error = smoke(name)
            record = {
                "device": name,
                "ok": error is None,
                "seconds": round(time.perf_counter() - start, 4),
                "error": error,
            }
        except Exception as exc:  # one broken device must not hide the others
            record = {
                "device": name,
                "ok": False,
                "seconds": round(time.perf_counter() - start, 4),
                "error": f"{type(exc).__name__}: {exc}"[:400],
            }
        _device_done(record, devices)
    return devices


# --- PyTorch and torch_npu -----------------------------------------------------------------------


def _torch_smoke_fn(torch, sync):
    gen = torch.Generator().manual_seed(0)
    x_cpu = torch.randn(SIZE, SIZE, generator=gen)
    w_cpu = torch.randn(SIZE, SIZE, generator=gen)
    ref = x_cpu.t() @ (2 * (x_cpu @ w_cpu) / (SIZE * SIZE))  # d mean((xw)^2) / dw

    def smoke(device: str):
        x = x_cpu.to(device)
        # A fresh leaf per device: without the copy, "cpu" hands back w_cpu itself, which then
        # requires grad, and every later device gets a non-leaf whose .grad stays None.
        w = w_cpu.to(device, copy=True).requires_grad_(True)
        loss = (x @ w).square().mean()
        loss.backward()
        sync(device)
        grad = w.grad.detach().cpu()
        if not bool(torch.isfinite(grad).all()):
            return "gradient has NaN/Inf"
        err = float((grad - ref).abs().max() / (ref.abs().max() + 1e-12))
        # TF32 / reduced precision matmuls on GPUs differ by ~1e-3 relative
        if err > 2e-2:
            return f"gradient differs from the CPU reference by {err:.2e} (relative)"
        return None

    return smoke


def run_pytorch() -> dict:
    start = time.perf_counter()
    import torch

    import_seconds = time.perf_counter() - start
    names = ["cpu"]
    details = {"cuda_build": torch.version.cuda, "hip_build": getattr(torch.version, "hip", None)}
    try:
        available = torch.cuda.is_available()
        details["cuda_available"] = str(available)
        if available:
            names += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
            details["cudnn"] = str(torch.backends.cudnn.version())
    except Exception as exc:  # a broken CUDA runtime is reported, the CPU smoke still runs
        details["cuda_error"] = f"{type(exc).__name__}: {exc}"[:300]

    def sync(device):
        if device.startswith("cuda"):
            torch.cuda.synchronize(device)

    devices = _run_devices(names, _torch_smoke_fn(torch, sync))
    return {"version": torch.__version__, "import_seconds": import_seconds, "devices": devices, "details": details}


def run_torch_npu() -> dict:
    start = time.perf_counter()
    import torch
    import torch_npu  # noqa: F401  (registers the npu device)

    import_seconds = time.perf_counter() - start
    names = ["cpu"]
    details = {"torch": torch.__version__}
    try:
        count = torch.npu.device_count()
        details["npu_count"] = str(count)
        names += [f"npu:{i}" for i in range(count)]
    except Exception as exc:  # torch_npu without a working CANN: reported, not fatal
        details["npu_error"] = f"{type(exc).__name__}: {exc}"[:300]

    def sync(device):
        if device.startswith("npu"):
            torch.npu.synchronize(device)

    devices = _run_devices(names, _torch_smoke_fn(torch, sync))
    return {"version": torch_npu.__version__, "import_seconds": import_seconds, "devices": devices, "details": details}


# --- MindSpore -----------------------------------------------------------------------------------


def _ms_counts(ms) -> dict:
    counts = {}
    try:
        from mindspore import device_context
    except ImportError:  # before 2.5
        return counts
    for target in ("cpu", "gpu", "ascend"):
        mod = getattr(device_context, target, None)
        try:
            counts[target] = int(mod.device_count()) if mod is not None and mod.is_available() else 0
        except Exception:  # a backend that cannot be queried has no devices
            counts[target] = 0
    return counts


def _ms_conv_check(ms, second_call: bool = True) -> dict:
    import numpy as np  # a MindSpore dependency
    from mindspore import Tensor, ops

    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((1, 64, 32, 32), dtype=np.float32))
    w = Tensor(rng.standard_normal((64, 64, 3, 3), dtype=np.float32))
    a = Tensor(rng.standard_normal((1024, 576), dtype=np.float32))
    b = Tensor(rng.standard_normal((576, 64), dtype=np.float32))
    tiny = Tensor(rng.standard_normal((1, 64, 4, 4), dtype=np.float32))

    def timed(fn) -> float:
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1000.0

    def conv(inp=x):
        ops.conv2d(inp, w, pad_mode="pad", padding=1).asnumpy()  # asnumpy waits for the result

    def gemm():
        ops.matmul(a, b).asnumpy()

    conv(tiny)  # PyNative's one-off start-up cost, at a size that is cheap even on reference code
    gemm()
    gemm_ms = min(timed(gemm) for _ in range(3))
    conv_ms = timed(conv)  # includes creating the primitive: it only errs towards "slow"...
    if second_call and conv_ms >= SLOW_MIN_MS and conv_ms / gemm_ms >= SLOW_RATIO:
        # ...and so can a preempted call on a busy machine: a slow verdict needs a second call, unless
        # an earlier check on this host and version confirmed it (--conv-once: it costs 0.3-1 s here)
        conv_ms = min(conv_ms, timed(conv))
    ratio = conv_ms / gemm_ms
    return {
        "shape": CONV_SHAPE,
        "conv_ms": round(conv_ms, 3),
        "gemm_ms": round(gemm_ms, 3),
        "ratio": round(ratio, 2),
        "slow": bool(conv_ms >= SLOW_MIN_MS and ratio >= SLOW_RATIO),
    }


def _hint(path: Optional[str]) -> str:
    """The parent's hint (SmokeRun.plan), or "" while it has not written one."""
    if not path:
        return ""
    try:
        with open(path, encoding="ascii") as fh:
            return fh.read().strip()
    except (OSError, ValueError):
        return ""


def run_mindspore(conv_only: bool = False, conv_once: bool = False, hints: Optional[str] = None) -> dict:
    start = time.perf_counter()
    import mindspore as ms

    import_seconds = time.perf_counter() - start
    counts = _ms_counts(ms)
    # One process binds one device (set_device works once): test the best one, list the rest.
    if counts.get("ascend"):
        target, names = "Ascend", [f"Ascend:{i}" for i in range(counts["ascend"])]
    elif counts.get("gpu"):
        target, names = "GPU", [f"GPU:{i}" for i in range(counts["gpu"])]
    else:
        target, names = "CPU", ["CPU"]
    if conv_only:
        ms.set_device("CPU")
        check = _ms_conv_check(ms)
        return {
            "version": ms.__version__,
            "import_seconds": import_seconds,
            "conv_check": check,
            "devices": [],
            "details": {},
        }
    if target == "CPU":
        ms.set_device("CPU")
    else:
        ms.set_device(target, 0)
    result = {
        "version": ms.__version__,
        "import_seconds": import_seconds,
        "details": {f"{k}_count": str(v) for k, v in counts.items()},
    }
    if target == "CPU":
        hint = _hint(hints)
        try:
            if hint != "conv-skip":  # skip: an earlier check timed and confirmed it on this install
                check = _ms_conv_check(ms, second_call=not (conv_once or hint == "conv-once"))
                channel.progress(stage="conv", **check)  # the parent may start the AVX2 rerun now
                result["conv_check"] = check
        except Exception as exc:  # the conv check is extra: its failure is recorded
            result["details"]["conv_check_error"] = f"{type(exc).__name__}: {exc}"[:300]

    import numpy as np
    from mindspore import Tensor, ops

    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((SIZE, SIZE), dtype=np.float32)
    w_np = rng.standard_normal((SIZE, SIZE), dtype=np.float32)
    ref = x_np.T @ (2 * (x_np @ w_np) / (SIZE * SIZE))

    def loss_fn(x, w):
        return ops.square(ops.matmul(x, w)).mean()

    grad_fn = ms.value_and_grad(loss_fn, grad_position=1)

    def smoke(device: str):
        _, grad = grad_fn(Tensor(x_np), Tensor(w_np))
        g = grad.asnumpy()
        if not np.isfinite(g).all():
            return "gradient has NaN/Inf"
        err = float(np.abs(g - ref).max() / (np.abs(ref).max() + 1e-12))
        return None if err <= 2e-2 else f"gradient differs from the NumPy reference by {err:.2e} (relative)"

    result["devices"] = _run_devices(names[:1], smoke)
    for name in names[1:]:
        result["details"][f"{name}"] = "not smoke-tested: MindSpore binds one device per process"
    result["details"]["device_target"] = target
    result["all_devices"] = names
    return result


RUNNERS = {"pytorch": run_pytorch, "mindspore": run_mindspore, "torch_npu": run_torch_npu}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in RUNNERS:
        channel.send(
            "error", message=f"usage: smoke_worker {{{'|'.join(RUNNERS)}}} [--conv-only] [--conv-once] [--hints FILE]"
        )
        return 2
    framework = argv[0]
    _fault(framework)
    try:
        if framework == "mindspore":
            hints = argv[argv.index("--hints") + 1] if "--hints" in argv[:-1] else None
            payload = run_mindspore(conv_only="--conv-only" in argv, conv_once="--conv-once" in argv, hints=hints)
        else:
            payload = RUNNERS[framework]()
    except Exception as exc:  # every failure of the smoke run becomes an error for the parent
        channel.send("error", message=f"{type(exc).__name__}: {exc}"[:500])
        return 1
    channel.result(framework=framework, **payload)
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter shutdown (MindSpore's takes ~0.4 s): the result is already sent and flushed.
    os._exit(code)
