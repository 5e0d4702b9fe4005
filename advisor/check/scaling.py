"""Judging the distributed launchers' readiness for `advisor check`: the facts
probes/scaling/facts.py gathered, turned into findings (a pure function, tested table-driven)."""

from __future__ import annotations

from typing import Optional

from advisor.extras import install_hint
from probes.check.models import Finding
from probes.scaling.facts import HCCL_SETTINGS, launcher_facts

EVIDENCE = "launcher readiness"


def _f(severity: str, code: str, message: str, fix: Optional[str] = None) -> Finding:
    return Finding(severity=severity, code=code, message=message, fix=fix, evidence=EVIDENCE)


def _torch(f: dict) -> list[Finding]:
    if not f["torch"]:
        return [
            _f(
                "info",
                "scaling.torch_absent",
                "PyTorch not installed: no torchrun scaling probe",
                "pip install -e '.[pytorch]'",
            )
        ]
    out = [
        _f("info", "scaling.torchrun", f"torchrun present: {f['torchrun']}")
        if f["torchrun"]
        else _f(
            "warning",
            "scaling.torchrun_missing",
            "torchrun is not on PATH; the scaling probe runs `python -m torch.distributed.run`",
            "reinstall torch in this environment to get the torchrun console script",
        )
    ]
    gpus = f["nvidia_gpus"]
    if gpus:
        out.append(
            _f("info", "scaling.nccl", f"NCCL visible ({f['nccl']}); torchrun ranks use NCCL on {gpus} GPU(s)")
            if f["nccl"]
            else _f(
                "warning",
                "scaling.nccl_missing",
                f"{gpus} NVIDIA GPU(s) but no NCCL library found: DDP on GPUs needs NCCL",
                "install a CUDA build of torch (it bundles NCCL via nvidia-nccl-cu*)",
            )
        )
    else:
        out.append(
            _f(
                "info",
                "scaling.gloo",
                "no NVIDIA GPU: torchrun ranks use gloo on CPU over loopback "
                "(GLOO_SOCKET_IFNAME=lo is set by the probe)",
            )
        )
    return out


def _mindspore(f: dict) -> list[Finding]:
    if not f["mindspore"]:
        return [
            _f(
                "info",
                "scaling.mindspore_absent",
                "MindSpore not installed: no msrun scaling probe",
                install_hint("mindspore"),
            )
        ]
    out = [
        _f("info", "scaling.msrun", f"msrun present: {f['msrun']}")
        if f["msrun"]
        else _f(
            "warning",
            "scaling.msrun_missing",
            "msrun is not on PATH; the scaling probe runs mindspore.parallel.cluster.run",
            "reinstall mindspore in this environment to get the msrun console script",
        )
    ]
    if not f["bindir_has_python"]:
        out.append(
            _f(
                "warning",
                "scaling.msrun_python",
                f"msrun starts `python` from PATH, and {f['bindir']} has no `python`: its workers "
                "may run another interpreter without MindSpore",
                "run the advisor from a virtual environment (it provides bin/python)",
            )
        )
    npus = f["ascend_npus"]
    if not npus:
        return out + [
            _f("info", "scaling.mccl", "no Ascend NPU: msrun ranks use MindSpore's mccl on CPU over loopback")
        ]
    out.append(
        _f("info", "scaling.hccl", f"HCCL visible ({f['hccl']}); msrun ranks use HCCL on {npus} NPU(s)")
        if f["hccl"]
        else _f(
            "error",
            "scaling.hccl_missing",
            f"{npus} Ascend NPU(s) but libhccl.so not found: msrun cannot start HCCL",
            "source /usr/local/Ascend/ascend-toolkit/set_env.sh (sets ASCEND_HOME_PATH)",
        )
    )
    table = f["rank_table_file"]
    if table and not f["rank_table_exists"]:
        out.append(
            _f(
                "error",
                "scaling.rank_table_missing",
                f"RANK_TABLE_FILE={table} does not exist",
                "unset it (msrun networks dynamically) or point it at the hccl_*.json",
            )
        )
    elif table:
        out.append(_f("info", "scaling.rank_table", f"RANK_TABLE_FILE={table} (static networking)"))
    else:
        out.append(
            _f(
                "info",
                "scaling.rank_table",
                "RANK_TABLE_FILE not set: msrun uses dynamic networking (fine on one host)",
            )
        )
    env = f["hccl_env"]
    out.append(
        _f(
            "info",
            "scaling.hccl_env",
            "HCCL settings: "
            + (
                ", ".join(f"{k}={v}" for k, v in env.items())
                if env
                else "defaults (none of " + ", ".join(HCCL_SETTINGS) + " set)"
            ),
        )
    )
    return out


def findings(f: dict) -> list[Finding]:
    """Findings for the scaling probe's launchers (torchrun, msrun) and their backends."""
    out = _torch(f) + _mindspore(f)
    gpus, npus = f["nvidia_gpus"], f["ascend_npus"]
    if not f["loopback"] and (f["torch"] or f["mindspore"]) and not (gpus or npus):
        out.append(_f("warning", "scaling.no_loopback", "no loopback interface: CPU ranks cannot connect"))
    if not gpus and not npus and f["usable_cores"] < 2:
        out.append(
            _f(
                "warning",
                "scaling.one_core",
                "1 usable core: 2 CPU ranks time-slice it; scaling figures measure little more than that",
                "run on a host with more cores or accelerators",
            )
        )
    elif gpus == 1 or npus == 1:
        out.append(
            _f(
                "info",
                "scaling.one_device",
                "one accelerator: the scaling probe can run 1 rank on it; multi-rank figures need 2 or more",
            )
        )
    return out


def launcher_findings(python: Optional[str] = None) -> list[Finding]:
    return findings(launcher_facts(python))
