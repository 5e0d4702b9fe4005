"""What the distributed launchers need on this host, as facts (gathering only; advisor/
check_scaling.py judges them into `advisor check` findings).

Fast and framework-free: files, PATH and environment only (never imports torch or mindspore).
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
from pathlib import Path
from typing import Optional

from probes import hostfacts

ASCEND_ROOTS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH")
HCCL_SETTINGS = ("HCCL_CONNECT_TIMEOUT", "HCCL_EXEC_TIMEOUT", "HCCL_IF_IP", "HCCL_SOCKET_IFNAME", "HCCL_BUFFSIZE")


def _launcher(bindir: Path, name: str) -> Optional[str]:
    exe = bindir / name
    if exe.is_file() and os.access(exe, os.X_OK):
        return str(exe)
    return shutil.which(name)


def _nccl_visible() -> Optional[str]:
    if hostfacts.installed("nvidia.nccl"):
        return "the nvidia-nccl wheel"
    for pattern in (
        "/usr/lib/x86_64-linux-gnu/libnccl.so*",
        "/usr/lib64/libnccl.so*",
        "/usr/local/cuda*/lib64/libnccl.so*",
        "/usr/lib/aarch64-linux-gnu/libnccl.so*",
    ):
        hits = glob.glob(pattern)
        if hits:
            return hits[0]
    return None


def _hccl_visible() -> Optional[str]:
    roots = [os.environ[k] for k in ASCEND_ROOTS if os.environ.get(k)]
    roots += ["/usr/local/Ascend/ascend-toolkit/latest", "/usr/local/Ascend/latest"]
    for root in roots:
        for sub in ("lib64/libhccl.so", "aarch64-linux/lib64/libhccl.so", "x86_64-linux/lib64/libhccl.so"):
            p = Path(root).parent / sub if root.endswith("opp") else Path(root) / sub
            if p.is_file():
                return str(p)
    return None


def launcher_facts(python: Optional[str] = None) -> dict:
    """Everything advisor/check_scaling.py needs to judge torchrun's and msrun's readiness."""
    python = python or sys.executable
    bindir = Path(python).parent
    torch_ok, ms_ok = hostfacts.installed("torch"), hostfacts.installed("mindspore")
    gpus, npus = hostfacts.nvidia_gpu_count(), hostfacts.ascend_npu_count()
    table = os.environ.get("RANK_TABLE_FILE")
    return {
        "bindir": str(bindir),
        "bindir_has_python": (bindir / "python").exists(),
        "torch": torch_ok,
        "mindspore": ms_ok,
        "torchrun": _launcher(bindir, "torchrun") if torch_ok else None,
        "msrun": _launcher(bindir, "msrun") if ms_ok else None,
        "nvidia_gpus": gpus,
        "ascend_npus": npus,
        "usable_cores": hostfacts.usable_cores(),
        "nccl": _nccl_visible() if torch_ok and gpus else None,
        "hccl": _hccl_visible() if ms_ok and npus else None,
        "rank_table_file": table,
        "rank_table_exists": bool(table) and Path(table).is_file(),
        "hccl_env": {k: os.environ[k] for k in HCCL_SETTINGS if k in os.environ},
        "loopback": Path("/sys/class/net/lo").exists(),
    }
