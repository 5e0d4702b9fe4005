"""NVIDIA GPUs: NVML first (nvidia-ml-py's `pynvml`), `nvidia-smi` CSV queries when NVML cannot be
loaded. Never raises: no driver is status "absent", a broken one is "failed" with the reason.

The CSV parsers are pure functions of nvidia-smi's output, tested on fixture files.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

from probes.check.models import Accelerator, DeviceProcess, NvidiaInfo

GPU_FIELDS = (
    "index",
    "name",
    "uuid",
    "pci.bus_id",
    "memory.total",
    "memory.used",
    "utilization.gpu",
    "temperature.gpu",
    "power.draw",
    "driver_version",
    "compute_cap",
)
APP_FIELDS = ("gpu_uuid", "pid", "process_name", "used_memory")
SMI_TIMEOUT = 15.0


def _cell(value: str) -> Optional[str]:
    value = value.strip()
    if not value or value.startswith("[") or value in ("N/A", "Not Supported"):  # [N/A], [Not Supported]
        return None
    return value


def _num(value: Optional[str]) -> Optional[float]:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def parse_query_gpu(text: str, fields: tuple = GPU_FIELDS) -> tuple[list[Accelerator], Optional[str]]:
    """Rows of `nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits` -> (GPUs, driver)."""
    gpus, driver = [], None
    for line in text.splitlines():
        if not line.strip():
            continue
        cells = [c for c in line.split(",")]
        if len(cells) < len(fields):
            continue
        # A GPU name never holds a comma, but be safe: extra cells belong to the name.
        extra = len(cells) - len(fields)
        if extra:
            name_at = fields.index("name")
            cells[name_at : name_at + extra + 1] = [",".join(cells[name_at : name_at + extra + 1])]
        row = {f: _cell(c) for f, c in zip(fields, cells)}
        index = _num(row.get("index"))
        if index is None:
            continue
        driver = driver or row.get("driver_version")
        gpus.append(
            Accelerator(
                vendor="nvidia",
                index=int(index),
                name=row.get("name") or "NVIDIA GPU",
                source="nvidia-smi",
                memory_total_mb=_num(row.get("memory.total")),
                memory_used_mb=_num(row.get("memory.used")),
                uuid=row.get("uuid"),
                bus_id=row.get("pci.bus_id"),
                utilization_pct=_num(row.get("utilization.gpu")),
                temperature_c=_num(row.get("temperature.gpu")),
                power_w=_num(row.get("power.draw")),
                compute_capability=row.get("compute_cap"),
            )
        )
    return gpus, driver


def parse_compute_apps(text: str) -> dict[str, list[DeviceProcess]]:
    """Rows of `nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory ...` by GPU uuid."""
    by_uuid: dict[str, list[DeviceProcess]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) < 4 or not cells[0].startswith("GPU-"):
            continue
        uuid, pid, memory = cells[0], cells[1], cells[-1]
        name = ",".join(cells[2:-1])
        by_uuid.setdefault(uuid, []).append(
            DeviceProcess(pid=int(pid) if pid.isdigit() else None, name=_cell(name), memory_mb=_num(_cell(memory)))
        )
    return by_uuid


def parse_cuda_version(text: str) -> Optional[str]:
    """'CUDA Version: 12.4' from the header of plain `nvidia-smi`."""
    match = re.search(r"CUDA Version:\s*([0-9.]+)", text)
    return match.group(1) if match else None


def _run(args: list[str]) -> tuple[int, str]:
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=SMI_TIMEOUT, stdin=subprocess.DEVNULL)
        return proc.returncode, proc.stdout + ("\n" + proc.stderr if proc.returncode else "")
    except subprocess.TimeoutExpired:
        return -1, f"{args[0]} did not answer within {SMI_TIMEOUT:.0f} s"
    except OSError as exc:
        return -1, str(exc)


def _from_smi(smi: str, nvml_reason: Optional[str]) -> tuple[NvidiaInfo, list[Accelerator]]:
    gpu_query = [smi, f"--query-gpu={','.join(GPU_FIELDS)}", "--format=csv,noheader,nounits"]
    app_query = [smi, f"--query-compute-apps={','.join(APP_FIELDS)}", "--format=csv,noheader,nounits"]
    with ThreadPoolExecutor(max_workers=3) as pool:  # three independent calls: pay for one
        gpu_f, app_f, plain_f = pool.submit(_run, gpu_query), pool.submit(_run, app_query), pool.submit(_run, [smi])
        rc, out = gpu_f.result()
        fields = GPU_FIELDS
        if rc != 0 and "compute_cap" in out:  # drivers before ~510 lack this field
            fields = GPU_FIELDS[:-1]
            rc, out = _run([smi, f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"])
        app_rc, app_out = app_f.result()
        _, plain = plain_f.result()
    notes = [f"NVML unavailable ({nvml_reason}); used nvidia-smi"] if nvml_reason else []
    if rc != 0:
        reason = out.strip().splitlines()[-1] if out.strip() else f"exit code {rc}"
        if "couldn't communicate with the nvidia driver" in out.lower() or "no devices were found" in out.lower():
            return NvidiaInfo(status="absent", source="nvidia-smi", reason=reason, notes=notes), []
        return NvidiaInfo(status="failed", source="nvidia-smi", reason=f"nvidia-smi: {reason}", notes=notes), []
    gpus, driver = parse_query_gpu(out, fields)
    if app_rc == 0:
        apps = parse_compute_apps(app_out)
        for gpu in gpus:
            gpu.processes = apps.get(gpu.uuid or "", [])
    else:
        notes.append("nvidia-smi compute-apps query failed: processes unknown")
    info = NvidiaInfo(
        status="ok" if gpus else "absent",
        source="nvidia-smi",
        driver_version=driver,
        cuda_driver_version=parse_cuda_version(plain),
        gpu_count=len(gpus),
        notes=notes,
        reason=None if gpus else "nvidia-smi lists no GPU",
    )
    return info, gpus


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _from_nvml(pynvml) -> tuple[NvidiaInfo, list[Accelerator]]:
    """Query every GPU; each attribute on its own so one unsupported call loses only that value."""

    def attempt(fn, *args):
        try:
            return fn(*args)
        except pynvml.NVMLError:  # NVMLError_NotSupported and friends: that value stays unknown
            return None

    driver = attempt(pynvml.nvmlSystemGetDriverVersion)
    cuda = attempt(pynvml.nvmlSystemGetCudaDriverVersion)
    count = pynvml.nvmlDeviceGetCount()
    gpus = []
    for i in range(count):
        h = pynvml.nvmlDeviceGetHandleByIndex(i)
        mem = attempt(pynvml.nvmlDeviceGetMemoryInfo, h)
        cc = attempt(pynvml.nvmlDeviceGetCudaComputeCapability, h)
        pci = attempt(pynvml.nvmlDeviceGetPciInfo, h)
        util = attempt(pynvml.nvmlDeviceGetUtilizationRates, h)
        temp = attempt(pynvml.nvmlDeviceGetTemperature, h, pynvml.NVML_TEMPERATURE_GPU)
        power = attempt(pynvml.nvmlDeviceGetPowerUsage, h)
        procs = []
        for p in attempt(pynvml.nvmlDeviceGetComputeRunningProcesses, h) or []:
            used = getattr(p, "usedGpuMemory", None)
            name = attempt(pynvml.nvmlSystemGetProcessName, p.pid)
            procs.append(
                DeviceProcess(
                    pid=p.pid,
                    name=_text(name) if name else None,
                    memory_mb=used / 2**20 if isinstance(used, int) else None,
                )
            )
        gpus.append(
            Accelerator(
                vendor="nvidia",
                index=i,
                name=_text(attempt(pynvml.nvmlDeviceGetName, h) or "NVIDIA GPU"),
                source="nvml",
                memory_total_mb=mem.total / 2**20 if mem else None,
                memory_used_mb=mem.used / 2**20 if mem else None,
                uuid=_text(u) if (u := attempt(pynvml.nvmlDeviceGetUUID, h)) else None,
                bus_id=_text(pci.busId) if pci else None,
                compute_capability=f"{cc[0]}.{cc[1]}" if cc else None,
                utilization_pct=float(util.gpu) if util else None,
                temperature_c=float(temp) if temp is not None else None,
                power_w=power / 1000.0 if power is not None else None,
                processes=procs,
            )
        )
    info = NvidiaInfo(
        status="ok" if gpus else "absent",
        source="nvml",
        driver_version=_text(driver) if driver else None,
        cuda_driver_version=f"{cuda // 1000}.{cuda % 1000 // 10}" if cuda else None,
        gpu_count=len(gpus),
        reason=None if gpus else "NVML lists no GPU",
    )
    return info, gpus


def _load_nvml():
    """The pynvml module, initialised; or (None, reason)."""
    try:
        import pynvml
    except ImportError as exc:
        return None, f"nvidia-ml-py not installed ({exc})"
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:  # NVMLError_LibraryNotFound on hosts without the driver
        return None, str(exc) or type(exc).__name__
    return pynvml, None


def collect_nvidia(use_nvml: bool = True) -> tuple[NvidiaInfo, list[Accelerator]]:
    """(summary, GPUs). Never raises."""
    try:
        nvml, reason = _load_nvml() if use_nvml else (None, "NVML disabled")
        if nvml is not None:
            try:
                return _from_nvml(nvml)
            except Exception as exc:  # any failed NVML query falls back to nvidia-smi, with the reason
                reason = f"NVML query failed: {exc}"
            finally:
                try:
                    nvml.nvmlShutdown()
                except nvml.NVMLError:  # already shut down or never fully up: nothing to release
                    pass
        smi = shutil.which("nvidia-smi")
        if smi is None:
            return NvidiaInfo(
                status="absent", reason=f"no NVIDIA driver: NVML unavailable ({reason}) and nvidia-smi not on PATH"
            ), []
        return _from_smi(smi, reason)
    except Exception as exc:  # last line of defence: a probe never raises
        return NvidiaInfo(status="failed", reason=f"{type(exc).__name__}: {exc}"), []
