"""The host: OS, CPU, memory, disk and container limits. Fast (files under /proc and /sys only, no
subprocess, no framework) and fail-soft: whatever cannot be read is left empty and named in
`HostInfo.errors`.

CPU and memory are what this process may use: a container limited to 2 CPUs by its cgroup quota
reports 2 logical cores, not the 64 of the machine (the machine's counts are kept as host_*).
"""

from __future__ import annotations

import math
import os
import platform
import shutil
import sys
from pathlib import Path
from typing import Optional

from probes.check_models import (
    CgroupLimits, ContainerInfo, CpuInfo, DiskInfo, HostInfo, MemoryInfo,
)

# Flags that decide which kernels ML frameworks pick. cpuinfo names on x86, "Features" on Arm.
RELEVANT_FLAGS = (
    "sse4_2", "avx", "avx2", "fma", "f16c", "avx_vnni",
    "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd", "avx512_vnni", "avx512_bf16",
    "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8", "amx_fp16",
    "neon", "asimd", "asimddp", "sve", "sve2", "bf16", "i8mm", "fphp", "asimdhp",
)

# cgroup v1 writes "no limit" as a huge page-aligned number (e.g. 9223372036854771712).
_NO_LIMIT_BYTES = 1 << 60


# --- pure parsers (tested on fixture files) --------------------------------------------------

def parse_cpuinfo(text: str) -> dict:
    """Model, vendor, flags and physical core count from /proc/cpuinfo (x86 and Arm layouts)."""
    model = vendor = None
    flags: set[str] = set()
    cores: set[tuple[str, str]] = set()
    processors = 0
    mhz: list[float] = []
    physical_id = "0"
    for line in text.splitlines():
        if ":" not in line:
            continue
        key, _, value = line.partition(":")
        key, value = key.strip().lower(), value.strip()
        if key == "processor":
            processors += 1
        elif key in ("model name", "hardware", "cpu model") and not model and value:
            model = value
        elif key == "vendor_id" and not vendor:
            vendor = value
        elif key == "cpu implementer" and not vendor:
            vendor = _ARM_IMPLEMENTERS.get(value.lower(), f"arm implementer {value}")
        elif key in ("flags", "features"):
            flags.update(value.split())
        elif key == "physical id":
            physical_id = value
        elif key == "core id":
            cores.add((physical_id, value))
        elif key == "cpu mhz":
            try:
                mhz.append(float(value))
            except ValueError:
                pass
    relevant = [f for f in RELEVANT_FLAGS if f in flags]
    if "asimd" in flags and "neon" not in relevant:  # aarch64 calls NEON "asimd"
        relevant.append("neon")
    return {
        "model": model,
        "vendor": vendor,
        "flags": relevant,
        "physical_cores": len(cores) or None,
        "logical_cores": processors or None,
        "frequency_mhz": max(mhz) if mhz else None,
    }


_ARM_IMPLEMENTERS = {"0x41": "ARM", "0x48": "HiSilicon", "0x51": "Qualcomm", "0x61": "Apple",
                     "0xc0": "Ampere", "0x4e": "NVIDIA"}


def parse_cpu_list(text: str) -> Optional[int]:
    """Count CPUs in a list like '0-3,8,10-11'."""
    count = 0
    for part in text.strip().split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if "-" in part:
                lo, hi = part.split("-", 1)
                count += int(hi) - int(lo) + 1
            else:
                int(part)
                count += 1
        except ValueError:
            return None
    return count or None


def parse_meminfo(text: str) -> dict:
    values = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[key.strip()] = int(parts[0]) // 1024  # kB -> MB
    return {"total_mb": values.get("MemTotal"), "available_mb": values.get("MemAvailable", values.get("MemFree"))}


def _read(path: Path) -> Optional[str]:
    try:
        return path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None


def _cgroup_paths(proc_cgroup_text: str) -> dict[str, str]:
    """controller -> path from /proc/self/cgroup; the v2 line '0::/path' is stored under ''."""
    paths = {}
    for line in proc_cgroup_text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":
            paths[""] = path
        for c in controllers.split(","):
            if c:
                paths[c] = path
    return paths


def _chain(mount: Path, rel: str) -> list[Path]:
    """The cgroup's directory and its ancestors up to the mount; the mount alone when the path is
    not visible (a container sees its own cgroup as the root)."""
    dirs = []
    rel = rel.strip("/")
    if rel:
        d = mount / rel
        while True:
            if d.is_dir():
                dirs.append(d)
            if d == mount:
                break
            d = d.parent
    if mount not in dirs and mount.is_dir():
        dirs.append(mount)
    return dirs


def _min(values: list) -> Optional[float]:
    values = [v for v in values if v is not None]
    return min(values) if values else None


def _v2_cpu_max(text: Optional[str]) -> Optional[float]:
    if not text:
        return None
    parts = text.split()
    if not parts or parts[0] == "max":
        return None
    try:
        period = float(parts[1]) if len(parts) > 1 else 100000.0
        return float(parts[0]) / period
    except (ValueError, ZeroDivisionError):
        return None


def _bytes_limit(text: Optional[str]) -> Optional[int]:
    if not text or text == "max":
        return None
    try:
        value = int(text)
    except ValueError:
        return None
    return value // (1024 * 1024) if 0 < value < _NO_LIMIT_BYTES else None


def read_cgroup_limits(root: str | Path = "/sys/fs/cgroup",
                       proc_cgroup: str | Path = "/proc/self/cgroup") -> CgroupLimits:
    """CPU quota, cpuset size and memory limit of this process's cgroup (v2, else v1).

    The effective limit is the smallest along the cgroup's ancestors, as the kernel applies it."""
    root = Path(root)
    paths = _cgroup_paths(_read(Path(proc_cgroup)) or "")
    if (root / "cgroup.controllers").exists():
        chain = _chain(root, paths.get("", "/"))
        usage = _bytes_limit(_read(chain[0] / "memory.current")) if chain else None
        cpusets = [parse_cpu_list(t) for d in chain
                   if (t := _read(d / "cpuset.cpus.effective") or _read(d / "cpuset.cpus"))]
        return CgroupLimits(
            version=2,
            cpu_quota=_min([_v2_cpu_max(_read(d / "cpu.max")) for d in chain]),
            cpuset_cpus=_min(cpusets),
            memory_limit_mb=_min([_bytes_limit(_read(d / "memory.max")) for d in chain]),
            memory_usage_mb=usage,
        )
    cpu_mount = next((root / n for n in ("cpu,cpuacct", "cpu", "cpuacct,cpu") if (root / n).is_dir()), None)
    mem_mount = root / "memory"
    set_mount = root / "cpuset"
    if cpu_mount is None and not mem_mount.is_dir():
        return CgroupLimits()
    quotas = []
    if cpu_mount is not None:
        for d in _chain(cpu_mount, paths.get("cpu", "/")):
            try:
                quota = int(_read(d / "cpu.cfs_quota_us") or "-1")
                period = int(_read(d / "cpu.cfs_period_us") or "100000")
            except ValueError:
                continue
            if quota > 0 and period > 0:
                quotas.append(quota / period)
    mem_chain = _chain(mem_mount, paths.get("memory", "/")) if mem_mount.is_dir() else []
    set_chain = _chain(set_mount, paths.get("cpuset", "/")) if set_mount.is_dir() else []
    cpusets = [parse_cpu_list(t) for d in set_chain if (t := _read(d / "cpuset.cpus"))]
    return CgroupLimits(
        version=1,
        cpu_quota=_min(quotas),
        cpuset_cpus=_min(cpusets),
        memory_limit_mb=_min([_bytes_limit(_read(d / "memory.limit_in_bytes")) for d in mem_chain]),
        memory_usage_mb=_bytes_limit(_read(mem_chain[0] / "memory.usage_in_bytes")) if mem_chain else None,
    )


def detect_container(root: str | Path = "/", environ: Optional[dict] = None) -> tuple[Optional[str], list[str]]:
    """(kind, hints): a best guess from marker files, environment and pid 1's cgroup."""
    root = Path(root)
    env = os.environ if environ is None else environ
    hints, kind = [], None
    if (root / ".dockerenv").exists():
        hints.append("/.dockerenv exists")
        kind = "docker"
    if (root / "run/.containerenv").exists():
        hints.append("/run/.containerenv exists")
        kind = kind or "podman"
    if env.get("KUBERNETES_SERVICE_HOST"):
        hints.append("KUBERNETES_SERVICE_HOST is set")
        kind = "kubernetes"
    if env.get("container"):
        hints.append(f"container={env['container']} in the environment")
        kind = kind or env["container"]
    text = _read(root / "proc/1/cgroup") or ""
    for marker, name in (("kubepods", "kubernetes"), ("docker", "docker"), ("containerd", "containerd"),
                         ("libpod", "podman"), ("lxc", "lxc")):
        if marker in text:
            hints.append(f"pid 1 cgroup mentions {marker}")
            kind = kind or name
            break
    return kind, hints


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "framework-advisor"


def _disk(path: Path) -> DiskInfo:
    probe = path
    while not probe.exists() and probe != probe.parent:  # the cache may not exist yet
        probe = probe.parent
    try:
        usage = shutil.disk_usage(probe)
        return DiskInfo(path=str(path), free_mb=usage.free // 2**20, total_mb=usage.total // 2**20)
    except OSError as exc:
        return DiskInfo(path=str(path), error=str(exc))


def _os_release() -> Optional[str]:
    for line in (_read(Path("/etc/os-release")) or "").splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip().strip('"')
    return None


def _max_freq_mhz() -> Optional[float]:
    text = _read(Path("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"))
    try:
        return int(text) / 1000.0 if text else None
    except ValueError:
        return None


def _cpu(errors: list[str], cgroup: CgroupLimits) -> CpuInfo:
    info: dict = {}
    text = _read(Path("/proc/cpuinfo"))
    if text:
        info = parse_cpuinfo(text)
    else:
        errors.append("cpu: /proc/cpuinfo not readable")
    host_logical = os.cpu_count() or info.get("logical_cores")
    host_physical = info.get("physical_cores")
    if host_physical is None:
        try:
            import psutil

            host_physical = psutil.cpu_count(logical=False)
        except Exception as exc:  # psutil may be missing on odd platforms
            errors.append(f"cpu: physical core count unknown ({exc})")
    usable, limited_by = host_logical, None
    try:
        affinity = len(os.sched_getaffinity(0))
        if host_logical and affinity < host_logical:
            usable, limited_by = affinity, "cpu affinity / cpuset"
    except (AttributeError, OSError):
        pass
    if cgroup.cpuset_cpus and usable and cgroup.cpuset_cpus < usable:
        usable, limited_by = cgroup.cpuset_cpus, "cgroup cpuset"
    if cgroup.cpu_quota and usable and math.ceil(cgroup.cpu_quota) < usable:
        usable, limited_by = max(1, math.ceil(cgroup.cpu_quota)), f"cgroup CPU quota {cgroup.cpu_quota:g}"
    physical = min(host_physical, usable) if host_physical and usable else host_physical
    return CpuInfo(
        model=info.get("model") or platform.processor() or None,
        vendor=info.get("vendor"),
        architecture=platform.machine() or None,
        physical_cores=physical,
        logical_cores=usable,
        host_physical_cores=host_physical,
        host_logical_cores=host_logical,
        flags=info.get("flags", []),
        frequency_mhz=_max_freq_mhz() or info.get("frequency_mhz"),
        limited_by=limited_by,
    )


def _memory(errors: list[str], cgroup: CgroupLimits) -> MemoryInfo:
    text = _read(Path("/proc/meminfo"))
    values = parse_meminfo(text) if text else {}
    if not values.get("total_mb"):
        try:
            import psutil

            vm = psutil.virtual_memory()
            values = {"total_mb": vm.total // 2**20, "available_mb": vm.available // 2**20}
        except Exception as exc:
            errors.append(f"memory: not readable ({exc})")
            return MemoryInfo()
    total, available = values.get("total_mb"), values.get("available_mb")
    limited_by = None
    limit = cgroup.memory_limit_mb
    if limit and total and limit < total:
        limited_by = f"cgroup memory limit {limit} MB"
        headroom = limit - (cgroup.memory_usage_mb or 0)
        available = min(available, headroom) if available is not None else headroom
        return MemoryInfo(total_mb=limit, available_mb=max(0, available), host_total_mb=total,
                          limited_by=limited_by)
    return MemoryInfo(total_mb=total, available_mb=available, host_total_mb=total)


def collect_host(cache_dir: str | Path | None = None) -> HostInfo:
    """Everything about the machine that needs no framework. Never raises."""
    errors: list[str] = []
    try:
        cgroup = read_cgroup_limits()
    except Exception as exc:  # an odd /sys layout must not cost the whole host section
        errors.append(f"cgroup: {exc}")
        cgroup = CgroupLimits()
    parts = {}
    for name, fn in (("cpu", lambda: _cpu(errors, cgroup)), ("memory", lambda: _memory(errors, cgroup)),
                     ("disk", lambda: _disk(Path(cache_dir) if cache_dir else default_cache_dir()))):
        try:
            parts[name] = fn()
        except Exception as exc:
            errors.append(f"{name}: {type(exc).__name__}: {exc}")
    try:
        kind, hints = detect_container()
    except Exception as exc:
        kind, hints = None, [f"not checked: {exc}"]
    limited = cgroup.cpu_quota is not None or cgroup.memory_limit_mb is not None
    return HostInfo(
        hostname=platform.node() or None,
        os=platform.system() or None,
        os_release=_os_release(),
        kernel=platform.release() or None,
        python=platform.python_version(),
        python_executable=sys.executable,
        cpu=parts.get("cpu") or CpuInfo(),
        memory=parts.get("memory") or MemoryInfo(),
        disk=parts.get("disk"),
        container=ContainerInfo(detected=kind is not None or limited, kind=kind, hints=hints, cgroup=cgroup),
        errors=errors,
    )
