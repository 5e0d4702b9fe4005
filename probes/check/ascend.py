"""Huawei Ascend NPUs: `npu-smi info`, /dev/davinci* nodes, CANN and driver versions. Never raises.

`parse_npu_smi_info` handles every layout seen in public outputs (shared/reference/facts.md):
- 910B: second header row `Chip | Bus-Id | AICore(%) Memory-Usage(MB) HBM-Usage(MB)`;
- older tools / 310P: `Chip Device` and only `Memory-Usage(MB)`; the device cell may be `NA`;
- Atlas A3 / 910C: `Chip Phy-ID`, two chip blocks per NPU split by a `+-----` line, power `-`;
- numbers without a space before the slash (`41697/ 65536`); NPU ids that do not start at 0;
- the process table: rows of processes or `No running processes found in NPU N`;
- newer tools (950 series): `NPU ID` in a column of its own, the chip row has no id cells.
It keys on the rows themselves (an NPU row, then its chip row) rather than on column positions.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from pathlib import Path
from typing import Optional

from probes import hostfacts
from probes.check.models import Accelerator, AscendInfo, CannInfo, DeviceProcess

SMI_TIMEOUT = 20.0
_PAIR = re.compile(r"(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)")
_VERSION = re.compile(r"npu-smi\s+(\S+)\s+Version:\s*(\S+)")
_NO_PROCS = re.compile(r"No running processes found in NPU\s+(\d+)")


def _int(token: str) -> Optional[int]:
    return int(token) if token.isdigit() else None


def _float(token: Optional[str]) -> Optional[float]:
    try:
        return float(token) if token is not None else None
    except ValueError:
        return None  # "-", "NA"


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_npu_smi_info(text: str) -> dict:
    """Parse `npu-smi info` into {'smi_version', 'version', 'chips': [dict], 'unassigned_processes'}.

    One dict per chip: npu_id, chip_id, device_id (the `Device`/`Phy-ID` column when there is one),
    name, health, power_w, temperature_c, bus_id, aicore_pct, memory_used_mb, memory_total_mb,
    processes. Pure function of the text."""
    out: dict = {"smi_version": None, "version": None, "chips": [], "unassigned_processes": []}
    mode = None  # "devices" or "processes"
    split = False  # the "NPU ID | Name" layout: ids and names in columns of their own
    has_hbm = False
    pending: Optional[dict] = None  # the NPU row waiting for its chip row
    by_key: dict[tuple, dict] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("|"):
            continue  # border lines (+----, +====) carry nothing
        match = _VERSION.search(stripped)
        if match:
            out["smi_version"], out["version"] = match.group(1), match.group(2)
            continue
        cells = _cells(stripped)
        first = cells[0]
        words = first.split()
        if words[:2] == ["NPU", "Name"] or (words == ["NPU", "ID"] and len(cells) > 1 and cells[1] == "Name"):
            mode, pending, split = "devices", None, words == ["NPU", "ID"]
            continue
        if "Bus-Id" in stripped and "Process" not in stripped:  # the second header row
            has_hbm = "HBM-Usage" in stripped
            continue
        if words[:2] == ["NPU", "Chip"]:
            mode = "processes"
            continue
        no_procs = _NO_PROCS.search(stripped)
        if no_procs:
            continue
        if mode == "devices" and len(cells) >= (4 if split else 3):
            if split:  # [id, name, health, metrics] then ["", "", bus, metrics]
                words = [cells[0], cells[1]] if cells[0] else []
                cells = [" ".join(words), *cells[2:]]
            if pending is None:
                if len(words) < 2 or _int(words[0]) is None:
                    continue
                rest = _PAIR.sub(" ", cells[2]).split()
                pending = {
                    "npu_id": int(words[0]),
                    "name": " ".join(words[1:]),
                    "health": cells[1] or None,
                    "power_w": _float(rest[0]) if rest else None,
                    "temperature_c": _float(rest[1]) if len(rest) > 1 else None,
                }
                continue
            chip_id = _int(words[0]) if words else None
            device_id = _int(words[1]) if len(words) > 1 else None
            if split:
                chip_id = device_id = None
            pairs = _PAIR.findall(cells[2])
            rest = _PAIR.sub(" ", cells[2]).split()
            # With an HBM column the HBM pair comes last; without one the only pair is Memory-Usage.
            used, total = pairs[-1] if pairs else (None, None)
            chip = {
                **pending,
                "chip_id": chip_id,
                "device_id": device_id,
                "bus_id": cells[1] if cells[1] and cells[1] != "NA" else None,
                "aicore_pct": _float(rest[0]) if rest else None,
                "memory_used_mb": _float(used),
                "memory_total_mb": _float(total),
                "memory_kind": "HBM" if has_hbm and len(pairs) >= 2 else "Memory-Usage",
                "processes": [],
            }
            out["chips"].append(chip)
            by_key[(chip["npu_id"], chip_id)] = chip
            pending = None
        elif mode == "processes" and len(cells) >= 4:
            if len(words) < 2 or _int(words[0]) is None or _int(cells[1]) is None:
                continue
            proc = {
                "pid": int(cells[1]),
                "name": cells[2] or None,
                "memory_mb": _float(cells[3].split()[0] if cells[3] else None),
            }
            target = by_key.get((int(words[0]), _int(words[1])))
            if target is not None:
                target["processes"].append(proc)
            else:
                out["unassigned_processes"].append({"npu_id": int(words[0]), **proc})
    return out


def chips_to_accelerators(chips: list[dict]) -> list[Accelerator]:
    """One Accelerator per chip. index = the logical device id (Device / Phy-ID column) when every
    chip has a distinct one, else the chip's position on the host."""
    ids = [c.get("device_id") for c in chips]
    use_ids = all(i is not None for i in ids) and len(set(ids)) == len(ids)
    accs = []
    for pos, c in enumerate(chips):
        accs.append(
            Accelerator(
                vendor="huawei",
                index=ids[pos] if use_ids else pos,
                name=c["name"],
                source="npu-smi",
                memory_total_mb=c["memory_total_mb"],
                memory_used_mb=c["memory_used_mb"],
                bus_id=c["bus_id"],
                npu_id=c["npu_id"],
                chip_id=c["chip_id"],
                phy_id=c.get("device_id"),
                health=c["health"],
                utilization_pct=c["aicore_pct"],
                temperature_c=c["temperature_c"],
                power_w=c["power_w"],
                processes=[DeviceProcess(**p) for p in c["processes"]],
            )
        )
    return accs


# --- CANN and driver versions ----------------------------------------------------------------


def _read(path: Path) -> Optional[str]:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return None


def parse_version_file(text: str) -> Optional[str]:
    """`version=8.0.RC3` (install.info), `Version=23.0.1` (driver version.info) or
    `runtime_running_version=[7.3.0.1.231:8.0.RC2]` (version.cfg; the part after ':' is CANN's)."""
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        key, value = key.strip().lower(), value.strip().strip('"')
        if not sep or not value:
            continue
        if key.endswith("running_version"):
            inner = value.strip("[]")
            return inner.split(":")[-1] or None
        if key in ("version", "package_version"):
            return value
    return None


def default_cann_roots() -> list[str]:
    home = os.path.expanduser("~")
    return [
        "/usr/local/Ascend/cann",
        "/usr/local/Ascend/ascend-toolkit/latest",
        f"{home}/Ascend/cann",
        f"{home}/Ascend/ascend-toolkit/latest",
    ]


def find_cann(environ: Optional[dict] = None, default_roots: Optional[list[str]] = None) -> CannInfo:
    """CANN version from the toolkit's install-info/version files. ASCEND_TOOLKIT_HOME first, then
    ASCEND_HOME_PATH (both layouts: ascend-toolkit/latest and 8.5+'s cann/), then default places."""
    env = os.environ if environ is None else environ
    env_home = env.get("ASCEND_TOOLKIT_HOME") or env.get("ASCEND_HOME_PATH")
    roots = [r for r in (env.get("ASCEND_TOOLKIT_HOME"), env.get("ASCEND_HOME_PATH")) if r]
    roots += default_roots if default_roots is not None else default_cann_roots()
    arch = platform.machine() or "x86_64"
    info = CannInfo(env_home=env_home)
    for root in dict.fromkeys(roots):  # ordered, no duplicates
        base = Path(root)
        candidates = [base / "ascend_toolkit_install.info", base / f"{arch}-linux" / "ascend_toolkit_install.info"]
        candidates += sorted(base.glob("*-linux/ascend_toolkit_install.info"))
        candidates += [base / "version.cfg", base / "runtime" / "version.info", base / "compiler" / "version.info"]
        for path in candidates:
            text = _read(path)
            version = parse_version_file(text) if text else None
            if version:
                info.version, info.path, info.version_file = version, str(base), str(path)
                info.lib_on_ld_path = _lib_on_path(base, env.get("LD_LIBRARY_PATH", ""))
                return info
    return info


def _lib_on_path(root: Path, ld_path: str) -> bool:
    """True when some LD_LIBRARY_PATH entry lies inside the toolkit (set_env.sh puts lib64 there)."""
    try:
        real_root = os.path.realpath(root)
    except OSError:
        real_root = str(root)
    for entry in filter(None, ld_path.split(os.pathsep)):
        real = os.path.realpath(entry)
        if real.startswith(real_root) or entry.startswith(str(root)):
            return True
    return False


def find_driver_version(driver_dirs: Optional[list[str]] = None) -> Optional[str]:
    dirs = list(driver_dirs) if driver_dirs is not None else []
    if driver_dirs is None:
        install = _read(Path("/etc/ascend_install.info")) or ""
        for line in install.splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "Driver_Install_Path_Param" and value.strip():
                dirs.append(os.path.join(value.strip(), "driver"))
        dirs.append("/usr/local/Ascend/driver")
    for d in dirs:
        text = _read(Path(d) / "version.info")
        if text and (version := parse_version_file(text)):
            return version
    return None


def device_nodes(dev_root: str = "/dev") -> list[str]:
    nodes = hostfacts.davinci_nodes(dev_root)
    extras = [os.path.join(dev_root, n) for n in ("davinci_manager", "devmm_svm", "hisi_hdc")]
    return nodes + [n for n in extras if os.path.exists(n)]


def _run_smi(smi: str) -> tuple[int, str]:
    try:
        proc = subprocess.run(
            [smi, "info"], capture_output=True, text=True, timeout=SMI_TIMEOUT, stdin=subprocess.DEVNULL
        )
        return proc.returncode, proc.stdout if proc.returncode == 0 else (proc.stdout + proc.stderr)
    except subprocess.TimeoutExpired:
        return -1, f"npu-smi info did not answer within {SMI_TIMEOUT:.0f} s"
    except OSError as exc:
        return -1, str(exc)


def collect_ascend(dev_root: str = "/dev") -> tuple[AscendInfo, list[Accelerator]]:
    """(summary, chips). Never raises."""
    try:
        return _collect(dev_root)
    except Exception as exc:  # last line of defence: a probe never raises
        return AscendInfo(status="failed", reason=f"{type(exc).__name__}: {exc}"), []


def _collect(dev_root: str) -> tuple[AscendInfo, list[Accelerator]]:
    env = os.environ
    info = AscendInfo(
        device_nodes=device_nodes(dev_root),
        cann=find_cann(),
        driver_version=find_driver_version(),
        visible_devices=env.get("ASCEND_RT_VISIBLE_DEVICES") or env.get("ASCEND_DEVICE_ID"),
    )
    numbered = [n for n in info.device_nodes if re.search(r"davinci\d+$", n)]
    smi = shutil.which("npu-smi")
    accs: list[Accelerator] = []
    if smi is None:
        if numbered:
            info.status, info.reason = "ok", "npu-smi not on PATH: chips counted from /dev/davinci*"
            accs = [
                Accelerator(vendor="huawei", index=i, name="Ascend NPU (model unknown)", source="/dev")
                for i in range(len(numbered))
            ]
        else:
            info.reason = "no npu-smi on PATH and no /dev/davinci* nodes"
        info.chip_count = len(accs)
        return info, accs
    rc, out = _run_smi(smi)
    if rc != 0:
        lines = [ln for ln in out.strip().splitlines() if ln.strip()]
        info.status = "failed"
        info.reason = f"npu-smi info failed: {lines[-1] if lines else f'exit code {rc}'}"
        return info, []
    parsed = parse_npu_smi_info(out)
    info.smi_version = parsed["version"] or parsed["smi_version"]
    accs = chips_to_accelerators(parsed["chips"])
    info.chip_count = len(accs)
    if accs:
        info.status = "ok"
    else:
        info.reason = "npu-smi lists no NPU"
    if parsed["unassigned_processes"]:
        info.notes.append(f"{len(parsed['unassigned_processes'])} NPU process rows did not match a chip")
    if accs and not numbered:
        info.notes.append("npu-smi lists NPUs but no /dev/davinci* node is visible here (container without devices?)")
    return info, accs
