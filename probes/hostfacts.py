"""Host facts in one place: what the probes' parents (check, the training and the scaling probe)
need to know about this machine, read from /proc, /sys and /dev without a subprocess and without
importing a framework. Pure parsers are tested on fixture text; readers never raise.

usable_cores() is what this process may use (affinity, cgroup cpuset and quota), the number the
frameworks' thread counts and the noise warnings use; fingerprint() identifies the host for the
result cache from cheap facts, without probes.check.host's full collection.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import math
import os
import platform
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Optional

if TYPE_CHECKING:  # built where needed: `advisor check` starts its smoke children before pydantic loads
    from probes.check.models import CgroupLimits

APP = "framework-advisor"
FRAMEWORK_MODULES = {"pytorch": ("torch", "torch"), "mindspore": ("mindspore", "mindspore")}  # (module, dist)

# Flags that decide which kernels ML frameworks pick. cpuinfo names on x86, "Features" on Arm.
RELEVANT_FLAGS = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx_vnni",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512dq",
    "avx512cd",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
    "amx_fp16",
    "neon",
    "asimd",
    "asimddp",
    "sve",
    "sve2",
    "bf16",
    "i8mm",
    "fphp",
    "asimdhp",
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


_ARM_IMPLEMENTERS = {
    "0x41": "ARM",
    "0x48": "HiSilicon",
    "0x51": "Qualcomm",
    "0x61": "Apple",
    "0xc0": "Ampere",
    "0x4e": "NVIDIA",
}


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


def read_cgroup_limits(
    root: str | Path = "/sys/fs/cgroup", proc_cgroup: str | Path = "/proc/self/cgroup"
) -> CgroupLimits:
    """CPU quota, cpuset size and memory limit of this process's cgroup (v2, else v1).

    The effective limit is the smallest along the cgroup's ancestors, as the kernel applies it."""
    from probes.check.models import CgroupLimits

    root = Path(root)
    paths = _cgroup_paths(_read(Path(proc_cgroup)) or "")
    if (root / "cgroup.controllers").exists():
        chain = _chain(root, paths.get("", "/"))
        usage = _bytes_limit(_read(chain[0] / "memory.current")) if chain else None
        cpusets = [
            parse_cpu_list(t) for d in chain if (t := _read(d / "cpuset.cpus.effective") or _read(d / "cpuset.cpus"))
        ]
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


def cpu_limit(
    host_logical: Optional[int], affinity: Optional[int], cgroup: CgroupLimits
) -> tuple[Optional[int], Optional[str]]:
    """(usable cores, what limits them): the smallest of the machine's logical cores, the
    affinity mask, the cgroup cpuset and the cgroup CPU quota (rounded up)."""
    usable, limited_by = host_logical, None
    if affinity and (not host_logical or affinity < host_logical):
        usable, limited_by = affinity, "cpu affinity / cpuset" if host_logical else None
    if cgroup.cpuset_cpus and usable and cgroup.cpuset_cpus < usable:
        usable, limited_by = cgroup.cpuset_cpus, "cgroup cpuset"
    if cgroup.cpu_quota and usable and math.ceil(cgroup.cpu_quota) < usable:
        usable, limited_by = max(1, math.ceil(cgroup.cpu_quota)), f"cgroup CPU quota {cgroup.cpu_quota:g}"
    return usable, limited_by


def affinity_cores() -> Optional[int]:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def cgroup_limits() -> CgroupLimits:
    """read_cgroup_limits(), or no limits where /sys is laid out unexpectedly."""
    from probes.check.models import CgroupLimits

    try:
        return read_cgroup_limits()
    except (OSError, ValueError):
        return CgroupLimits()


def usable_cores() -> int:
    """Cores this process may use (cgroup-aware; at least 1)."""
    usable, _ = cpu_limit(os.cpu_count(), affinity_cores(), cgroup_limits())
    return max(1, usable or 1)


def memory_total_mb() -> Optional[int]:
    """The machine's memory, or the cgroup's limit when that is smaller."""
    total = parse_meminfo(_read(Path("/proc/meminfo")) or "").get("total_mb")
    limit = cgroup_limits().memory_limit_mb
    return limit if limit and total and limit < total else total


def cpu_model() -> Optional[str]:
    return parse_cpuinfo(_read(Path("/proc/cpuinfo")) or "").get("model") or platform.processor() or None


def cpu_flags() -> list[str]:
    return parse_cpuinfo(_read(Path("/proc/cpuinfo")) or "").get("flags", [])


# --- what is installed (located, never imported) ---------------------------------------------


def installed(module: str) -> bool:
    """Whether a top-level module can be found (importlib.util.find_spec locates, never imports)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken package or an odd name: not usable
        return False


def install_stamp(module: str) -> Optional[str]:
    """ "<package folder>:<its mtime>" of an installed package, found without importing it, or None: what a
    cached fact about the install (a providers list, a kernel timing) is kept against; a reinstall or an
    upgrade changes it."""
    try:
        spec = importlib.util.find_spec(module)
        where = list(spec.submodule_search_locations or [])[0] if spec else None
        return f"{where}:{int(os.stat(where).st_mtime)}" if where else None
    except (ImportError, OSError, ValueError, IndexError):
        return None


def missing_frameworks(frameworks: object) -> frozenset[str]:
    """The named frameworks (FRAMEWORK_MODULES' names) this interpreter cannot import, found, never imported."""
    return frozenset(
        fw for fw in list(frameworks or []) if fw in FRAMEWORK_MODULES and not installed(FRAMEWORK_MODULES[fw][0])
    )


def not_installed_reason(framework: str) -> str:
    """Why a run of `framework` did not start: the sentence every runner gives a framework it cannot import."""
    return f"{framework} is not installed in {os.path.basename(sys.executable)}'s environment"


def torch_cuda_build() -> bool:
    """Whether the installed torch is a CUDA build: its libtorch_cuda library beside libtorch_cpu, found
    without importing it (the version need not say: an H200 host's torch 2.11 with CUDA 13 read "2.11.0")."""
    try:
        spec = importlib.util.find_spec("torch")
        where = list(spec.submodule_search_locations or [])[0] if spec else None
        return bool(where) and any(Path(where, "lib").glob("libtorch_cuda*"))
    except (ImportError, OSError, ValueError, IndexError):
        return False


def package_version(dist: str) -> Optional[str]:
    """Installed version of a distribution, or None (a .dist-info without METADATA gives None too)."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def installed_frameworks() -> dict[str, dict]:
    """{framework: {installed, version}} from package metadata, without importing them."""
    out = {}
    for fw, (module, dist) in FRAMEWORK_MODULES.items():
        ok = installed(module)
        out[fw] = {"installed": ok, "version": package_version(dist) if ok else None}
    return out


# --- load and CPU time -------------------------------------------------------------------------


def loadavg() -> Optional[list[float]]:
    """1, 5 and 15-minute load averages (None where the OS has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def cpu_times(text: Optional[str] = None) -> Optional[dict]:
    """Aggregate CPU jiffies from /proc/stat: {busy, idle, steal, total} (None if unreadable)."""
    try:
        text = text if text is not None else Path("/proc/stat").read_text()
        head = text.splitlines()[0].split()
        fields = [int(x) for x in head[1:]]
    except (OSError, ValueError, IndexError):
        return None
    if head[0] != "cpu" or len(fields) < 4:
        return None
    names = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]
    v = dict(zip(names, fields + [0] * (len(names) - len(fields))))
    total = sum(fields[:8])
    return {
        "idle": v["idle"] + v["iowait"],
        "steal": v["steal"],
        "total": total,
        "busy": total - v["idle"] - v["iowait"] - v["steal"],
    }


AUTOGROUP = Path("/proc/sys/kernel/sched_autogroup_enabled")


def sessions_share_the_cores(path: Path = AUTOGROUP) -> bool:
    """Whether the kernel shares the cores between sessions (autogroup: each session's tasks are one
    group, which gets one share however many tasks it runs) rather than between tasks."""
    try:
        return path.read_text().strip() == "1"
    except OSError:
        return False


class RunnableSessions(NamedTuple):
    """What was runnable at one look through /proc: the other sessions with a runnable task, their runnable
    tasks, and this process's own (itself, the reader, among them, and its descendants)."""

    sessions: int
    tasks: int
    ours: int


def _state_ppid_session(stat: Path) -> Optional[tuple[str, int, int]]:
    """(state, parent pid, session) from a /proc/<pid>/stat or task stat file, or None (gone, unreadable)."""
    try:
        text = stat.read_text()
        rest = text[text.rindex(")") + 2 :].split()  # the command name in brackets may hold spaces
        return rest[0], int(rest[1]), int(rest[3])
    except (OSError, ValueError, IndexError):
        return None


def _runnable_tasks(proc: Path, pid: int) -> int:
    """The runnable threads of process `pid` (a process's own state is its main thread's alone)."""
    try:
        tasks = list((proc / str(pid) / "task").iterdir())
    except OSError:
        return 0
    return sum(1 for t in tasks if (_state_ppid_session(t / "stat") or ("",))[0] == "R")


def runnable_sessions(proc: Path = Path("/proc"), me: Optional[int] = None) -> Optional[RunnableSessions]:
    """The runnable tasks now by session: this process's and its descendants' (a probe's children each start
    a session of their own) counted as ours, every other session once (this process's own among them: a
    job beside it in the same terminal competes with its children's sessions); None where /proc cannot be
    read or does not show this process."""
    me = os.getpid() if me is None else me
    try:
        pids = [int(e.name) for e in proc.iterdir() if e.name.isdigit()]
    except OSError:
        return None
    procs = {pid: got for pid in pids if (got := _state_ppid_session(proc / str(pid) / "stat")) is not None}
    if me not in procs:
        return None
    children: dict[int, list[int]] = {}
    for pid, (_, ppid, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    ours, stack = set(), [me]
    while stack:
        pid = stack.pop()
        if pid not in ours:
            ours.add(pid)
            stack.extend(children.get(pid, []))
    sessions: set[int] = set()
    tasks = mine = 0
    for pid, (_, _, session) in procs.items():
        running = _runnable_tasks(proc, pid)
        if pid in ours:
            mine += running
        elif running:
            tasks += running
            sessions.add(session)
    return RunnableSessions(len(sessions), tasks, mine)


def steal_fraction(before: Optional[dict], after: Optional[dict]) -> Optional[float]:
    """Share of CPU time the hypervisor gave to other guests between two cpu_times() readings."""
    if not before or not after or after["total"] <= before["total"]:
        return None
    return (after["steal"] - before["steal"]) / (after["total"] - before["total"])


# --- accelerators, counted from the driver's files ---------------------------------------------


def nvidia_gpu_count() -> int:
    """GPUs the NVIDIA driver exposes (its /proc entries; no nvidia-smi call, no framework)."""
    try:
        return len(os.listdir("/proc/driver/nvidia/gpus"))
    except OSError:
        return 0


def davinci_nodes(dev_root: str = "/dev") -> list[str]:
    """The numbered Ascend device nodes (/dev/davinci0, 1, ...), sorted by number."""
    try:
        names = os.listdir(dev_root)
    except OSError:
        return []
    numbered = [n for n in names if n.startswith("davinci") and n[len("davinci") :].isdigit()]
    return [os.path.join(dev_root, n) for n in sorted(numbered, key=lambda n: int(n[len("davinci") :]))]


def ascend_npu_count() -> int:
    return len(davinci_nodes())


# --- where results are kept ----------------------------------------------------------------------


def cache_dir() -> Path:
    """$XDG_CACHE_HOME/framework-advisor (default ~/.cache/framework-advisor); not created here."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / APP


# --- the cache key -----------------------------------------------------------------------------


def fingerprint(
    cpu: Optional[str] = None,
    cores: Optional[int] = None,
    memory_mb: Optional[int] = None,
    frameworks: Optional[dict] = None,
) -> str:
    """Stable id of what the measurements depend on: CPU, usable cores, memory (GB), OS, kernel,
    Python and the framework versions. Each fact not given is read here (cheap files only)."""
    fw = frameworks if frameworks is not None else installed_frameworks()
    parts = [
        cpu if cpu is not None else cpu_model(),
        cores if cores is not None else usable_cores(),
        (memory_mb if memory_mb is not None else memory_total_mb() or 0) // 1024,
        platform.system(),
        platform.release(),
        platform.python_version(),
        fw["pytorch"]["version"],
        fw["mindspore"]["version"],
    ]
    return hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()[:16]
