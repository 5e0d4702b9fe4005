"""Frameworks: what is installed (package metadata and files only: no framework is imported in this
process), and the live smoke tests, one child process per framework, all in parallel.

A smoke test that hangs is killed at the timeout, one that crashes is reported with its reason:
both become a failed SmokeResult, never an exception here.
"""

from __future__ import annotations

import importlib.metadata as metadata
import importlib.util
import os
import re
import threading
import time
from pathlib import Path
from typing import Callable, Optional

from probes import hostfacts
from probes.check.models import Accelerator, ConvCheck, DeviceSmoke, FrameworkInfo, SmokeResult

# name -> (module, distribution names in the order they are tried)
FRAMEWORKS: dict[str, tuple[str, tuple[str, ...]]] = {
    "pytorch": ("torch", ("torch",)),
    "mindspore": ("mindspore", ("mindspore", "mindspore-ascend", "mindspore-gpu", "mindspore-cpu")),
    "torch_npu": ("torch_npu", ("torch-npu", "torch_npu")),
}
# Environment for the rerun that confirms the oneDNN fix: MindSpore's process only, never torch's.
ONEDNN_CAP = {"ONEDNN_MAX_CPU_ISA": "AVX2", "GLOG_v": "3"}
# Per-framework environment: MindSpore's C++ logging is silenced only if set before its import.
CHILD_ENV = {"mindspore": {"GLOG_v": "3"}}


package_version = hostfacts.package_version  # one home; re-exported for advisor.check.host


def _package_dir(module: str) -> Optional[Path]:
    try:
        spec = importlib.util.find_spec(module)  # top-level: locates, does not import
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def parse_torch_version_py(text: str) -> dict:
    """`cuda: Optional[str] = '12.1'` / `hip = None` lines of torch/version.py."""
    values = {}
    for key in ("__version__", "cuda", "hip", "git_version"):
        match = re.search(rf"^{re.escape(key)}\s*(?::[^=]*)?=\s*(.+)$", text, re.M)
        if match:
            raw = match.group(1).strip()
            values[key] = None if raw == "None" else raw.strip("'\"")
    return values


def _torch_build(pkg: Path) -> tuple[Optional[str], dict]:
    try:
        values = parse_torch_version_py((pkg / "version.py").read_text())
    except OSError:
        return None, {}
    if values.get("cuda"):
        return f"cuda {values['cuda']}", {"cuda_build": values["cuda"]}
    if values.get("hip"):
        return f"rocm {values['hip']}", {"hip_build": values["hip"]}
    return "cpu", {}


def _mindspore_build(pkg: Path, version: str) -> tuple[Optional[str], dict]:
    plugin = pkg / "lib" / "plugin"
    try:
        names = sorted(p.name for p in plugin.iterdir() if p.is_dir())
    except OSError:
        return None, {}
    backends = [n for n in ("cpu", "ascend") if n in names]
    gpu = [n for n in names if n.startswith("gpu")]
    details = {"plugins": ",".join(names)}
    # Later wheels still ship gpu plugin files, but CUDA is unsupported after 2.2: do not offer it.
    gpu_usable = bool(gpu) and _version_tuple(version) <= (2, 2)
    return "+".join(backends + (["gpu"] if gpu_usable else [])) or None, details


def detect_framework(name: str) -> FrameworkInfo:
    module, dists = FRAMEWORKS[name]
    for dist in dists:
        version = package_version(dist)
        if version:
            break
    else:
        return FrameworkInfo(name=name, installed=False)
    pkg = _package_dir(module)
    build, details = None, {}
    if pkg is not None:
        if name == "pytorch":
            build, details = _torch_build(pkg)
        elif name == "mindspore":
            build, details = _mindspore_build(pkg, version)
        else:
            build = "ascend"
    if name == "torch_npu":
        details["requires_torch"] = next((r for r in (metadata.requires(dist) or []) if r.startswith("torch")), None)
    return FrameworkInfo(
        name=name,
        installed=True,
        version=version,
        distribution=dist,
        build=build,
        location=str(pkg) if pkg else None,
        details=details,
    )


def detect_frameworks() -> list[FrameworkInfo]:
    out = []
    for name in FRAMEWORKS:
        try:
            out.append(detect_framework(name))
        except Exception as exc:  # one framework's odd install is data, the others still report
            out.append(FrameworkInfo(name=name, installed=False, details={"error": str(exc)}))
    return out


def _version_tuple(version: Optional[str]) -> tuple:
    return tuple(int(x) for x in re.findall(r"\d+", version or "")[:2]) or (0,)


def infer_devices(fw: FrameworkInfo, accelerators: list[Accelerator]) -> list[str]:
    """Devices the framework should see, from its build and the chips found (no import)."""
    if not fw.installed:
        return []
    nvidia = [a for a in accelerators if a.vendor == "nvidia"]
    huawei = [a for a in accelerators if a.vendor == "huawei"]
    if fw.name == "pytorch":
        cuda = (fw.build or "").startswith(("cuda", "rocm"))
        return ["cpu"] + ([f"cuda:{i}" for i in range(len(nvidia))] if cuda else [])
    if fw.name == "torch_npu":
        return [f"npu:{i}" for i in range(len(huawei))]
    devices = ["CPU"]
    if "ascend" in (fw.build or ""):
        devices += [f"Ascend:{i}" for i in range(len(huawei))]
    if "gpu" in (fw.build or "") and _version_tuple(fw.version) <= (2, 2):
        devices += [f"GPU:{i}" for i in range(len(nvidia))]
    return devices


# --- smoke tests -----------------------------------------------------------------------------------


def _smoke_from_outcome(outcome) -> tuple[SmokeResult, dict]:
    """Turn a launcher outcome into a SmokeResult; per-device progress survives a hang or crash."""
    payload = outcome.result or {}
    done = [m for m in outcome.messages if m.get("stage") == "device-done"]
    devices = payload.get("devices") or [{k: m.get(k) for k in ("device", "ok", "seconds", "error")} for m in done]
    started = [m.get("device") for m in outcome.messages if m.get("stage") == "device-start"]
    finished = {d["device"] for d in devices}
    hung = [d for d in started if d not in finished]
    smoke_devices = [DeviceSmoke(**d) for d in devices]
    if outcome.status != "ok":
        for d in hung:  # the device it was busy with when it hung or died
            smoke_devices.append(DeviceSmoke(device=d, ok=False, error=outcome.error))
    conv = payload.get("conv_check") or next(
        (
            {k: v for k, v in m.items() if k not in ("kind", "stage")}
            for m in outcome.messages
            if m.get("stage") == "conv"
        ),
        None,
    )
    failed_device = any(not d.ok for d in smoke_devices)
    ok = outcome.status == "ok" and bool(smoke_devices) and not failed_device
    error = outcome.error
    if outcome.status == "ok" and failed_device:
        error = "; ".join(f"{d.device}: {d.error}" for d in smoke_devices if not d.ok)
    status = {"ok": "ok" if ok else "failed", "timeout": "timeout"}.get(outcome.status, "failed")
    smoke = SmokeResult(
        status=status,
        ok=ok,
        seconds=round(outcome.seconds, 3),
        import_seconds=round(payload["import_seconds"], 3) if payload.get("import_seconds") else None,
        devices=smoke_devices,
        error=error,
        output_tail=None if ok else (outcome.output_tail or "")[-1500:] or None,
        conv_check=ConvCheck(**conv) if conv else None,
    )
    return smoke, payload


def run_smoke(
    name: str,
    timeout: float,
    env_extra: Optional[dict] = None,
    on_message: Optional[Callable[[dict], None]] = None,
    extra_args: tuple = (),
    cancel=None,
) -> tuple[SmokeResult, dict]:
    """One framework's smoke test in its own child. Never raises."""
    from probes.launcher import run_child

    try:
        outcome = run_child(
            ["-m", "probes.check.smoke_worker", name, *extra_args],
            timeout=timeout,
            env_extra=env_extra,
            on_message=on_message,
            cancel=cancel,
        )
    except Exception as exc:  # a launch failure is a failed smoke result with the reason
        return SmokeResult(status="failed", ok=False, error=f"could not run the smoke test: {exc}"), {}
    return _smoke_from_outcome(outcome)


def smoke_all(
    frameworks: list[FrameworkInfo],
    timeout: float,
    confirm_onednn: bool = True,
    confirm_early: bool = False,
    progress: Optional[Callable[[str], None]] = None,
    cancel=None,
    conv_known_slow: bool = False,
) -> dict[str, dict]:
    """Run every installed framework's smoke test in parallel (one thread + one child each).

    For MindSpore, as soon as the worker reports a slow convolution, a second child reruns just that
    convolution with ONEDNN_MAX_CPU_ISA=AVX2, overlapping the rest of the first child. With
    `confirm_early` (the caller expects the trap, e.g. on AVX-512 CPUs) the rerun starts at once,
    alongside the others; its result is used only if the first child reports a slow convolution.
    `conv_known_slow` (an earlier check on this host and MindSpore version confirmed the trap): the
    MindSpore child times the slow convolution once instead of twice.
    Returns {name: {"smoke": SmokeResult, "payload": dict}}."""
    results: dict[str, dict] = {}
    threads: list[threading.Thread] = []
    lock = threading.Lock()
    deadline = time.monotonic() + timeout
    # Set when MindSpore's own conv turned out fast (the rerun is moot) or the caller cancels. A real
    # launcher Cancel: the launcher sleeps on its wakers rather than polling is_set().
    from probes.launcher import Cancel

    not_needed = Cancel()
    if cancel is not None:
        cancel.add_waker(not_needed.set)

    def confirm(check: dict) -> None:
        remaining = max(5.0, deadline - time.monotonic())
        smoke, _ = run_smoke(
            "mindspore", remaining, env_extra=ONEDNN_CAP, extra_args=("--conv-only",), cancel=not_needed
        )
        with lock:
            results["_onednn_confirm"] = {"smoke": smoke, "payload": {}}

    wanted = (
        confirm_onednn
        and "ONEDNN_MAX_CPU_ISA" not in os.environ
        and any(fw.installed and fw.name == "mindspore" for fw in frameworks)
    )
    early = wanted and confirm_early

    def watch(message: dict) -> None:
        if message.get("stage") != "conv":
            return
        if not message.get("slow"):
            not_needed.set()
        elif wanted and not early:
            t = threading.Thread(target=confirm, args=(message,), daemon=True)
            with lock:
                threads.append(t)
            t.start()

    def one(name: str) -> None:
        smoke, payload = run_smoke(
            name,
            timeout,
            env_extra=CHILD_ENV.get(name),
            on_message=watch if name == "mindspore" else None,
            extra_args=("--conv-once",) if name == "mindspore" and conv_known_slow else (),
            cancel=cancel,
        )
        with lock:
            results[name] = {"smoke": smoke, "payload": payload}
        if name == "mindspore" and not (smoke.conv_check and smoke.conv_check.slow):
            not_needed.set()  # no slow conv (or no CPU conv at all): the early rerun is moot
        if progress is not None:
            progress(f"{name} smoke test: {smoke.status} in {smoke.seconds or 0:.1f} s")

    if early:
        t = threading.Thread(target=confirm, args=({},), daemon=True)
        threads.append(t)
        t.start()
    for fw in frameworks:
        if fw.installed:
            t = threading.Thread(target=one, args=(fw.name,), daemon=True)
            threads.append(t)
            t.start()
    # Threads may add the confirm thread while we wait: loop until none is left running.
    while True:
        with lock:
            pending = [t for t in threads if t.is_alive()]
        if not pending:
            break
        pending[0].join(timeout=0.05)
    if cancel is not None:
        cancel.remove_waker(not_needed.set)
    confirm_result = results.pop("_onednn_confirm", None)
    ms = results.get("mindspore")
    if confirm_result and ms and ms["smoke"].conv_check and ms["smoke"].conv_check.slow:
        capped = confirm_result["smoke"].conv_check
        check = ms["smoke"].conv_check
        if capped is not None:
            check.capped_conv_ms, check.capped_ratio = capped.conv_ms, capped.ratio
        else:
            check.capped_error = confirm_result["smoke"].error or "no measurement"
    return results


def apply_smoke(fw: FrameworkInfo, smoke: SmokeResult, payload: dict) -> None:
    """Fill a FrameworkInfo from its smoke test: devices it can use and details it reported."""
    fw.smoke = smoke
    if payload.get("version") and not fw.version:
        fw.version = payload["version"]
    for key, value in (payload.get("details") or {}).items():
        fw.details[key] = None if value is None else str(value)
    seen = payload.get("all_devices") or [d.device for d in smoke.devices]
    failed = {d.device for d in smoke.devices if not d.ok}
    if seen:
        fw.devices = [d for d in seen if d not in failed]
        fw.devices_source = "smoke"
