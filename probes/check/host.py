"""The host: OS, CPU, memory, disk and container limits. Fast (files under /proc and /sys only, no
subprocess, no framework) and fail-soft: whatever cannot be read is left empty and named in
`HostInfo.errors`.

CPU and memory are what this process may use: a container limited to 2 CPUs by its cgroup quota
reports 2 logical cores, not the 64 of the machine (the machine's counts are kept as host_*).
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
from pathlib import Path
from typing import Optional

from probes.check.models import (
    CgroupLimits,
    ContainerInfo,
    CpuInfo,
    DiskInfo,
    HostInfo,
    MemoryInfo,
)
from probes.hostfacts import (  # noqa: F401 (parse_cpu_list and RELEVANT_FLAGS: probes.check.host's API)
    RELEVANT_FLAGS,
    _read,
    affinity_cores,
    cache_dir,
    cpu_limit,
    parse_cpu_list,
    parse_cpuinfo,
    parse_meminfo,
    read_cgroup_limits,
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
    for marker, name in (
        ("kubepods", "kubernetes"),
        ("docker", "docker"),
        ("containerd", "containerd"),
        ("libpod", "podman"),
        ("lxc", "lxc"),
    ):
        if marker in text:
            hints.append(f"pid 1 cgroup mentions {marker}")
            kind = kind or name
            break
    return kind, hints


def default_cache_dir() -> Path:
    return cache_dir()


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
    usable, limited_by = cpu_limit(host_logical, affinity_cores(), cgroup)
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
        except Exception as exc:  # psutil missing or failing: memory becomes an error line
            errors.append(f"memory: not readable ({exc})")
            return MemoryInfo()
    total, available = values.get("total_mb"), values.get("available_mb")
    limited_by = None
    limit = cgroup.memory_limit_mb
    if limit and total and limit < total:
        limited_by = f"cgroup memory limit {limit} MiB"
        headroom = limit - (cgroup.memory_usage_mb or 0)
        available = min(available, headroom) if available is not None else headroom
        return MemoryInfo(total_mb=limit, available_mb=max(0, available), host_total_mb=total, limited_by=limited_by)
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
    for name, fn in (
        ("cpu", lambda: _cpu(errors, cgroup)),
        ("memory", lambda: _memory(errors, cgroup)),
        ("disk", lambda: _disk(Path(cache_dir) if cache_dir else default_cache_dir())),
    ):
        try:
            parts[name] = fn()
        except Exception as exc:  # one unreadable part is an error line, not a failed check
            errors.append(f"{name}: {type(exc).__name__}: {exc}")
    try:
        kind, hints = detect_container()
    except Exception as exc:  # the container guess is a hint: its failure is one too
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
