"""Which export tools and inference engines are installed, from package metadata (no framework
import; onnxruntime is imported, guarded, only to list its execution providers)."""

from __future__ import annotations

import importlib.metadata
import os
from typing import Optional

from probes.deploy.common import have, hidden

# (name, import module, distributions that provide it, role)
_ENGINES = (
    ("onnx", "onnx", ("onnx",), "ONNX model format (torch's exporter needs it)"),
    ("onnxscript", "onnxscript", ("onnxscript",), "torch's dynamo ONNX exporter"),
    (
        "onnxruntime",
        "onnxruntime",
        ("onnxruntime", "onnxruntime-gpu", "onnxruntime-openvino", "onnxruntime-directml"),
        "ONNX Runtime inference engine",
    ),
    ("mindspore-lite", "mindspore_lite", ("mindspore-lite", "mindspore_lite"), "MindSpore Lite (MindIR)"),
    ("tensorrt", "tensorrt", ("tensorrt", "tensorrt-cu12", "tensorrt-cu11"), "NVIDIA TensorRT"),
)

ORT_ACCELERATOR_PROVIDERS = ("CUDAExecutionProvider", "TensorrtExecutionProvider", "CANNExecutionProvider")

NOT_INSTALLED = {
    "mindspore-lite": "MindSpore Lite is not installed (a separate project since MindSpore 2.7; "
    "the PyPI index has only 2.0.0): MindIR is served with mindspore.load + nn.GraphCell",
}


def _version(dists: tuple) -> tuple[str | None, str | None]:
    for d in dists:
        try:
            return d, importlib.metadata.version(d)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None, None


def ort_providers() -> list[str]:
    if not have("onnxruntime"):
        return []
    # ORT's telemetry writes a device id under the user's cache at import; where it cannot (HOME a
    # file, a read-only home) it prints a coloured warning on our stderr. The tool sends no telemetry.
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    try:
        import onnxruntime

        return list(onnxruntime.get_available_providers())
    except Exception:  # a broken install lists nothing rather than failing the caller
        return []


def cached_ort_providers(version: Optional[str]) -> list[str]:
    """ort_providers(), kept per installed onnxruntime (its version and package folder's mtime): the list
    is a property of the wheel, and importing onnxruntime costs `advisor check` ~0.5 s of CPU beside its
    smoke children on every run. Any trouble with the cache falls back to asking onnxruntime."""
    import json

    from probes.bounded import read_json
    from probes.hostfacts import cache_dir, install_stamp

    where = install_stamp("onnxruntime")
    if where is None:
        return ort_providers()
    stamp = f"{version}-{where}"
    path = cache_dir() / "ort-providers.json"
    try:
        kept = read_json(path, 1 << 20)  # a regular file of at most 1 MB: a FIFO or /dev/zero is no cache
        if kept.get("stamp") == stamp and isinstance(kept.get("providers"), list):
            return [str(p) for p in kept["providers"]]
    except (OSError, ValueError, AttributeError):
        pass
    providers = ort_providers()
    if providers:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps({"stamp": stamp, "providers": providers}), encoding="utf-8")
            os.replace(tmp, path)
        except OSError:  # a read-only or full cache: the answer is still right, only not kept
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
    return providers


def installed_engines() -> list[dict]:
    """[{name, installed, version, distribution, providers, role, reason}] for `advisor check`."""
    out = []
    for name, module, dists, role in _ENGINES:
        installed = have(module)
        dist, version = _version(dists) if installed else (None, None)
        row = {
            "name": name,
            "installed": installed,
            "version": version,
            "distribution": dist,
            "providers": [],
            "role": role,
            "reason": None,
        }
        if name == "onnxruntime" and installed:
            row["providers"] = cached_ort_providers(version)
        if not installed:
            row["reason"] = (
                "hidden by " + "ADVISOR_DEPLOY_HIDE"
                if module in hidden()
                else NOT_INSTALLED.get(name, f"{name} is not installed")
            )
        out.append(row)
    return out
