"""Which device a run uses: a pure function of the request and what the framework reports, so
the CUDA / Ascend paths are tested on machines that have neither."""

from __future__ import annotations

from typing import Optional

REQUESTS = ("auto", "cpu", "cuda", "npu")

# The device names each framework uses for cpu / cuda / npu.
_NATIVE = {
    "pytorch": {"cpu": "cpu", "cuda": "cuda", "npu": "npu"},
    "mindspore": {"cpu": "CPU", "cuda": "GPU", "npu": "Ascend"},
}
# Preference for --device auto: the accelerator this framework is built for first.
_AUTO_ORDER = {"pytorch": ("cuda", "npu", "cpu"), "mindspore": ("npu", "cuda", "cpu")}
_LABEL = {"cuda": "an NVIDIA GPU (CUDA)", "npu": "an Ascend NPU", "cpu": "the CPU"}


def choose(requested: str, framework: str, available: dict) -> tuple[Optional[str], str, str]:
    """(generic device cpu|cuda|npu or None, framework-native name or '', reason).

    `available` maps cuda/npu to whether this framework can use one now (cpu is always there).
    None means the requested device is unavailable: the run is reported 'unavailable'."""
    if requested not in REQUESTS:
        return None, "", f"unknown device {requested!r}; expected one of {', '.join(REQUESTS)}"
    if framework not in _NATIVE:
        return None, "", f"unknown framework {framework!r}"
    have = {"cpu": True, **{k: bool(v) for k, v in available.items()}}
    if requested == "auto":
        for dev in _AUTO_ORDER[framework]:
            if have.get(dev):
                return dev, _NATIVE[framework][dev], f"auto: {_LABEL[dev]}"
    if have.get(requested):
        return requested, _NATIVE[framework][requested], f"requested {requested}"
    return None, "", f"{framework} cannot use {_LABEL[requested]} on this host"


def torch_available(torch) -> dict:
    """What a PyTorch install can use (torch_npu is imported only if installed)."""
    out = {"cuda": False, "npu": False}
    try:
        out["cuda"] = bool(torch.cuda.is_available())
    except Exception:  # a broken CUDA install reports no CUDA, never a crash
        pass
    import importlib.util

    if importlib.util.find_spec("torch_npu") is not None:
        try:
            import torch_npu  # noqa: F401  (registers torch.npu)

            out["npu"] = bool(torch.npu.is_available())
        except Exception:  # torch_npu raises many types without CANN: no NPU
            pass
    return out


def mindspore_available(ms) -> dict:
    out = {"cuda": False, "npu": False}
    for dev, target in (("cuda", "GPU"), ("npu", "Ascend")):
        try:
            out[dev] = bool(ms.hal.is_available(target))
        except Exception:  # MindSpore raises RuntimeError/ValueError per backend: not available
            pass
    return out
