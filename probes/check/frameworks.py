"""Frameworks: what is installed (package metadata and files only: no framework is imported in this
process), and the live smoke tests, one child process per framework, all in parallel.

A smoke test that hangs is killed at the timeout, one that crashes is reported with its reason:
both become a failed SmokeResult, never an exception here.

The result models (pydantic) are imported where they are built, not at the top: `advisor check`
starts the smoke children (SmokeRun) before anything heavy is imported, and the parent's imports then
overlap the children's framework imports.
"""

from __future__ import annotations

import importlib.metadata as metadata
import importlib.util
import os
import re
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from probes import hostfacts

if TYPE_CHECKING:
    from probes.check.models import Accelerator, FrameworkInfo, SmokeResult

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
# What the parent writes into the MindSpore child's hints file once it has read its cache (SmokeRun.plan).
HINT_CONV_ONCE, HINT_CONV_TWICE, HINT_CONV_SKIP = "conv-once", "conv-twice", "conv-skip"


package_version = hostfacts.package_version


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


def _distribution(name: str) -> tuple[Optional[str], Optional[str]]:
    """(distribution, version) of the first of the framework's distributions that is installed."""
    for dist in FRAMEWORKS[name][1]:
        version = package_version(dist)
        if version:
            return dist, version
    return None, None


def installed_names() -> list[str]:
    """The installed frameworks, from package metadata alone (what starting the smoke children needs)."""
    names = []
    for name in FRAMEWORKS:
        try:
            if _distribution(name)[1]:
                names.append(name)
        except Exception:  # an odd install: detect_frameworks reports it as not installed, too
            pass
    return names


def detect_framework(name: str) -> FrameworkInfo:
    from probes.check.models import FrameworkInfo

    module = FRAMEWORKS[name][0]
    dist, version = _distribution(name)
    if version is None:
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
    from probes.check.models import FrameworkInfo

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
    from probes.check.models import ConvCheck, DeviceSmoke, SmokeResult

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
        from probes.check.models import SmokeResult

        return SmokeResult(status="failed", ok=False, error=f"could not run the smoke test: {exc}"), {}
    return _smoke_from_outcome(outcome)


class SmokeRun:
    """Every installed framework's smoke test in parallel (one thread + one child each), started before
    the parent knows what it knows about the oneDNN trap: `start()` first, `plan()` once the parent has
    read its cache, `wait()` for the results.

    For MindSpore, as soon as the worker reports a slow convolution, a second child reruns just that
    convolution with ONEDNN_MAX_CPU_ISA=AVX2, overlapping the rest of the first child. `plan()`:
    `confirm_early` (the caller expects the trap, e.g. on AVX-512 CPUs) starts the rerun at once, its
    result used only if the first child reports a slow convolution; `conv_known_slow` (an earlier check
    on this host and MindSpore version confirmed the trap) tells the MindSpore child, through its hints
    file, to time the slow convolution once instead of twice. The child reads the file when it reaches
    the convolution (after its ~2 s import); a plan that comes later than that only costs the second
    timing, as without a cache."""

    def __init__(
        self,
        names: list[str],
        timeout: float,
        progress: Optional[Callable[[str], None]] = None,
        cancel=None,
    ) -> None:
        # A real launcher Cancel, set when MindSpore's own conv turned out fast (the rerun is moot) or
        # the caller cancels: the launcher sleeps on its wakers rather than polling is_set().
        from probes.launcher import Cancel

        self.names, self.timeout, self.progress, self.cancel = list(names), timeout, progress, cancel
        self.results: dict[str, dict] = {}
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()
        self.deadline = time.monotonic() + timeout
        self.not_needed = Cancel()
        self.stop = Cancel()  # the caller's cancel, or abort(): kills every child
        self.planned: Optional[dict] = None  # None until plan(): a slow conv then gets the rerun
        self.confirm_started = False
        self._workdir = None
        self.hints: Optional[Path] = None

    # --- the children --------------------------------------------------------------------------------

    def start(self) -> "SmokeRun":
        if self.cancel is not None:
            self.cancel.add_waker(self.stop.set)
        self.stop.add_waker(self.not_needed.set)
        if "mindspore" in self.names:
            from probes.launcher import workdir

            self._workdir = workdir("advisor-smoke-")  # removed in wait(), and by terminating_signals()
            self.hints = self._workdir.__enter__() / "hints"
        for name in self.names:
            self._thread(self._one, name)
        return self

    def plan(
        self,
        confirm_onednn: bool = True,
        confirm_early: bool = False,
        conv_known_slow: bool = False,
        conv_cached: bool = False,
    ) -> None:
        """`conv_cached`: an earlier check timed and confirmed the slow convolution on this install; the
        child skips the timing (the caller fills in the cached one, dated)."""
        wanted = confirm_onednn and "ONEDNN_MAX_CPU_ISA" not in os.environ and "mindspore" in self.names
        with self.lock:
            self.planned = {"wanted": wanted, "early": wanted and confirm_early}
        if self.hints is not None:
            tmp = self.hints.with_suffix(".tmp")
            try:  # renamed into place: the child never reads half a file
                hint = HINT_CONV_SKIP if conv_cached else HINT_CONV_ONCE if conv_known_slow else HINT_CONV_TWICE
                tmp.write_text(hint, encoding="ascii")
                os.replace(tmp, self.hints)
            except OSError:
                pass  # no hint: the child times a slow conv twice, as without a cache
        if wanted and confirm_early and not self.not_needed.is_set():
            self._start_confirm({})

    def abort(self) -> dict[str, dict]:
        """Kill every child (the caller failed half-way) and wait for them."""
        self.stop.set()
        return self.wait()

    def wait(self) -> dict[str, dict]:
        """{name: {"smoke": SmokeResult, "payload": dict}} once every child has ended."""
        # Threads may add the confirm thread while we wait: loop until none is left running.
        while True:
            with self.lock:
                pending = [t for t in self.threads if t.is_alive()]
            if not pending:
                break
            pending[0].join(timeout=0.05)
        if self.cancel is not None:
            self.cancel.remove_waker(self.stop.set)
        if self._workdir is not None:
            self._workdir.__exit__(None, None, None)
            self._workdir = None
        results = self.results
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

    def _thread(self, target, arg) -> None:
        t = threading.Thread(target=target, args=(arg,), daemon=True)
        with self.lock:
            self.threads.append(t)
        t.start()

    def _start_confirm(self, check: dict) -> None:
        with self.lock:
            if self.confirm_started:  # a slow conv reported before plan() already started it
                return
            self.confirm_started = True
        self._thread(self._confirm, check)

    def _confirm(self, check: dict) -> None:
        remaining = max(5.0, self.deadline - time.monotonic())
        smoke, _ = run_smoke(
            "mindspore", remaining, env_extra=ONEDNN_CAP, extra_args=("--conv-only",), cancel=self.not_needed
        )
        with self.lock:
            self.results["_onednn_confirm"] = {"smoke": smoke, "payload": {}}

    def _watch(self, message: dict) -> None:
        if message.get("stage") != "conv":
            return
        if not message.get("slow"):
            self.not_needed.set()
            return
        with self.lock:
            planned = self.planned or {"wanted": "ONEDNN_MAX_CPU_ISA" not in os.environ, "early": False}
        if planned["wanted"] and not planned["early"]:
            self._start_confirm(message)

    def _one(self, name: str) -> None:
        extra = ("--hints", str(self.hints)) if name == "mindspore" and self.hints is not None else ()
        smoke, payload = run_smoke(
            name,
            self.timeout,
            env_extra=CHILD_ENV.get(name),
            on_message=self._watch if name == "mindspore" else None,
            extra_args=extra,
            cancel=self.stop,
        )
        with self.lock:
            self.results[name] = {"smoke": smoke, "payload": payload}
        if name == "mindspore" and not (smoke.conv_check and smoke.conv_check.slow):
            self.not_needed.set()  # no slow conv (or no CPU conv at all): the early rerun is moot
        if self.progress is not None:
            self.progress(f"{name} smoke test: {smoke.status} in {smoke.seconds or 0:.1f} s")


def start_smoke(timeout: float, progress: Optional[Callable[[str], None]] = None, cancel=None) -> SmokeRun:
    """Every installed framework's smoke child, started now; plan() and wait() follow."""
    return SmokeRun(installed_names(), timeout, progress, cancel).start()


def smoke_all(
    frameworks: list[FrameworkInfo],
    timeout: float,
    confirm_onednn: bool = True,
    confirm_early: bool = False,
    progress: Optional[Callable[[str], None]] = None,
    cancel=None,
    conv_known_slow: bool = False,
) -> dict[str, dict]:
    """SmokeRun with everything known up front: start, plan, wait.
    Returns {name: {"smoke": SmokeResult, "payload": dict}}."""
    run = SmokeRun([fw.name for fw in frameworks if fw.installed], timeout, progress, cancel).start()
    run.plan(confirm_onednn, confirm_early, conv_known_slow)
    return run.wait()


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
