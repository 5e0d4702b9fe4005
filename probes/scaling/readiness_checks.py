"""What each distributed launcher needs on this host, as findings `advisor check` can include.

Fast and framework-free: files, PATH and environment only (never imports torch or mindspore).
Each finding is {severity: info|warning|error, code, message, fix} (the check report's severities).
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import sys
from pathlib import Path
from typing import Optional

ASCEND_ROOTS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH")
HCCL_SETTINGS = ("HCCL_CONNECT_TIMEOUT", "HCCL_EXEC_TIMEOUT", "HCCL_IF_IP", "HCCL_SOCKET_IFNAME",
                 "HCCL_BUFFSIZE")


def _finding(severity: str, code: str, message: str, fix: Optional[str] = None) -> dict:
    return {"severity": severity, "code": code, "message": message, "fix": fix}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _launcher(bindir: Path, name: str) -> Optional[str]:
    exe = bindir / name
    if exe.is_file() and os.access(exe, os.X_OK):
        return str(exe)
    return shutil.which(name)


def _nccl_visible() -> Optional[str]:
    if _installed("nvidia.nccl"):
        return "the nvidia-nccl wheel"
    for pattern in ("/usr/lib/x86_64-linux-gnu/libnccl.so*", "/usr/lib64/libnccl.so*",
                    "/usr/local/cuda*/lib64/libnccl.so*", "/usr/lib/aarch64-linux-gnu/libnccl.so*"):
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


def readiness(python: Optional[str] = None) -> list[dict]:
    """Findings for the scaling probe's launchers (torchrun, msrun) and their backends."""
    from probes.scaling.runner import ascend_npu_count, nvidia_gpu_count, usable_cores

    python = python or sys.executable
    bindir = Path(python).parent
    out: list[dict] = []
    torch_ok, ms_ok = _installed("torch"), _installed("mindspore")
    gpus, npus, cores = nvidia_gpu_count(), ascend_npu_count(), usable_cores()

    if torch_ok:
        exe = _launcher(bindir, "torchrun")
        if exe:
            out.append(_finding("info", "scaling.torchrun", f"torchrun present: {exe}"))
        else:
            out.append(_finding("warning", "scaling.torchrun_missing",
                                "torchrun is not on PATH; the scaling probe runs `python -m torch.distributed.run`",
                                "reinstall torch in this environment to get the torchrun console script"))
        if gpus:
            nccl = _nccl_visible()
            out.append(_finding("info", "scaling.nccl", f"NCCL visible ({nccl}); torchrun ranks use NCCL on "
                                f"{gpus} GPU(s)") if nccl else
                       _finding("warning", "scaling.nccl_missing",
                                f"{gpus} NVIDIA GPU(s) but no NCCL library found: DDP on GPUs needs NCCL",
                                "install a CUDA build of torch (it bundles NCCL via nvidia-nccl-cu*)"))
        else:
            out.append(_finding("info", "scaling.gloo",
                                "no NVIDIA GPU: torchrun ranks use gloo on CPU over loopback "
                                "(GLOO_SOCKET_IFNAME=lo is set by the probe)"))
    else:
        out.append(_finding("info", "scaling.torch_absent", "PyTorch not installed: no torchrun scaling probe",
                            "pip install -e '.[pytorch]'"))

    if ms_ok:
        exe = _launcher(bindir, "msrun")
        if exe:
            out.append(_finding("info", "scaling.msrun", f"msrun present: {exe}"))
        else:
            out.append(_finding("warning", "scaling.msrun_missing",
                                "msrun is not on PATH; the scaling probe runs mindspore.parallel.cluster.run",
                                "reinstall mindspore in this environment to get the msrun console script"))
        if not (bindir / "python").exists():
            out.append(_finding("warning", "scaling.msrun_python",
                                f"msrun starts `python` from PATH, and {bindir} has no `python`: its workers "
                                "may run another interpreter without MindSpore",
                                "run the advisor from a virtual environment (it provides bin/python)"))
        if npus:
            hccl = _hccl_visible()
            out.append(_finding("info", "scaling.hccl", f"HCCL visible ({hccl}); msrun ranks use HCCL on "
                                f"{npus} NPU(s)") if hccl else
                       _finding("error", "scaling.hccl_missing",
                                f"{npus} Ascend NPU(s) but libhccl.so not found: msrun cannot start HCCL",
                                "source /usr/local/Ascend/ascend-toolkit/set_env.sh (sets ASCEND_HOME_PATH)"))
            table = os.environ.get("RANK_TABLE_FILE")
            if table and not Path(table).is_file():
                out.append(_finding("error", "scaling.rank_table_missing",
                                    f"RANK_TABLE_FILE={table} does not exist",
                                    "unset it (msrun networks dynamically) or point it at the hccl_*.json"))
            elif table:
                out.append(_finding("info", "scaling.rank_table", f"RANK_TABLE_FILE={table} (static networking)"))
            else:
                out.append(_finding("info", "scaling.rank_table",
                                    "RANK_TABLE_FILE not set: msrun uses dynamic networking (fine on one host)"))
            hccl_env = {k: os.environ[k] for k in HCCL_SETTINGS if k in os.environ}
            out.append(_finding("info", "scaling.hccl_env",
                                "HCCL settings: " + (", ".join(f"{k}={v}" for k, v in hccl_env.items())
                                                     if hccl_env else "defaults (none of " +
                                                     ", ".join(HCCL_SETTINGS) + " set)")))
        else:
            out.append(_finding("info", "scaling.mccl",
                                "no Ascend NPU: msrun ranks use MindSpore's mccl on CPU over loopback"))
    else:
        out.append(_finding("info", "scaling.mindspore_absent", "MindSpore not installed: no msrun scaling probe",
                            "pip install -e '.[mindspore]'"))

    if not Path("/sys/class/net/lo").exists() and (torch_ok or ms_ok) and not (gpus or npus):
        out.append(_finding("warning", "scaling.no_loopback", "no loopback interface: CPU ranks cannot connect"))
    if not gpus and not npus and cores < 2:
        out.append(_finding("warning", "scaling.one_core",
                            "1 usable core: 2 CPU ranks time-slice it; scaling figures measure little more "
                            "than that", "run on a host with more cores or accelerators"))
    elif gpus == 1 or npus == 1:
        out.append(_finding("info", "scaling.one_device",
                            "one accelerator: the scaling probe can run 1 rank on it; multi-rank figures "
                            "need 2 or more"))
    return out
