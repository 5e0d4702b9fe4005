"""Multi-node readiness findings for `advisor check`: what this host shows about running the
scaling probe (or training) across hosts. Pure functions over an injected /sys/class/net root and
environment, so the tests run on fixture trees; `multinode_findings()` reads the real ones.

Each finding is {severity: info|warning|error, code, message, fix}, as probes/scaling/readiness_checks.py.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Callable, Optional

SYS_NET = "/sys/class/net"
DEFAULT_PORT = 29500  # the one `advisor probe --scaling --master HOST` uses without :PORT
# What decides which interface and how long the engines' collectives wait (read, never set here).
SETTINGS = (
    "GLOO_SOCKET_IFNAME",
    "NCCL_SOCKET_IFNAME",
    "HCCL_IF_IP",
    "HCCL_SOCKET_IFNAME",
    "HCCL_CONNECT_TIMEOUT",
    "MASTER_ADDR",
    "MASTER_PORT",
)
IFNAME_SETTINGS = ("GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME", "HCCL_SOCKET_IFNAME")
# assumption: below 10 Gb/s the gradient allreduce of a ResNet-50-sized model dominates a multi-node
# step (25.6 M params x 4 B x 2 (ring) / 1.25 GB/s ~ 0.16 s per step).
SLOW_LINK_MBPS = 10_000


def _finding(severity: str, code: str, message: str, fix: Optional[str] = None) -> dict:
    return {"severity": severity, "code": code, "message": message, "fix": fix}


def interfaces(sys_net: str = SYS_NET) -> list:
    """[{name, operstate, speed_mbps, loopback}] from /sys/class/net (speed None where unreadable)."""
    root = Path(sys_net)
    out = []
    try:
        names = sorted(p.name for p in root.iterdir())
    except OSError:
        return out
    for name in names:
        d = root / name

        def read(leaf: str, d=d) -> Optional[str]:
            try:
                return (d / leaf).read_text().strip()
            except OSError:
                return None

        speed = read("speed")
        try:
            mbps = int(speed) if speed is not None and int(speed) > 0 else None
        except ValueError:
            mbps = None
        out.append(
            {
                "name": name,
                "operstate": read("operstate") or "unknown",
                "speed_mbps": mbps,
                "loopback": name == "lo" or read("type") == "772",
            }
        )  # 772: ARPHRD_LOOPBACK
    return out


def interface_findings(ifaces: list) -> list:
    out = []
    if not ifaces:
        return [_finding("warning", "multinode.no_interfaces", f"no network interfaces found in {SYS_NET}")]
    up = [i for i in ifaces if not i["loopback"] and i["operstate"] in ("up", "unknown")]
    text = (
        ", ".join(
            f"{i['name']} ({i['operstate']}, "
            + (f"{i['speed_mbps']} Mb/s" if i["speed_mbps"] else "speed unreadable")
            + ")"
            for i in ifaces
            if not i["loopback"]
        )
        or "none"
    )
    out.append(_finding("info", "multinode.interfaces", f"network interfaces besides loopback: {text}"))
    if not up:
        out.append(
            _finding(
                "warning",
                "multinode.no_network",
                "no non-loopback interface is up: ranks on other hosts cannot reach this one",
                "bring up the cluster network interface",
            )
        )
        return out
    fast = [i for i in up if i["speed_mbps"] and i["speed_mbps"] >= SLOW_LINK_MBPS]
    known = [i for i in up if i["speed_mbps"]]
    if known and not fast:
        best = max(known, key=lambda i: i["speed_mbps"])
        out.append(
            _finding(
                "warning",
                "multinode.slow_link",
                f"the fastest interface up, {best['name']}, runs at {best['speed_mbps']} Mb/s: "
                f"below {SLOW_LINK_MBPS} Mb/s gradient allreduce across hosts dominates the step "
                "for large models",
                "use the cluster's high-speed network (RoCE/InfiniBand) for the ranks",
            )
        )
    return out


def env_findings(environ: Mapping[str, str], ifaces: list) -> list:
    names = {i["name"] for i in ifaces}
    out = []
    given = {k: environ[k] for k in SETTINGS if environ.get(k)}
    out.append(
        _finding(
            "info",
            "multinode.env",
            "multi-node settings: "
            + (
                ", ".join(f"{k}={v}" for k, v in given.items())
                if given
                else "none set (" + ", ".join(SETTINGS[:5]) + ")"
            ),
            None
            if given
            else "on hosts with several interfaces, set GLOO_SOCKET_IFNAME / "
            "NCCL_SOCKET_IFNAME (HCCL_SOCKET_IFNAME or HCCL_IF_IP on Ascend) to the cluster network",
        )
    )
    for key in IFNAME_SETTINGS:
        value = environ.get(key)
        if not value or not names:
            continue
        # NCCL accepts prefixes and ^exclusions; gloo and HCCL take comma lists of names.
        wanted = [v.strip() for v in value.split(",") if v.strip()]
        if any(v.startswith(("^", "=")) for v in wanted):
            continue
        missing = [
            v for v in wanted if not any(n == v or (key == "NCCL_SOCKET_IFNAME" and n.startswith(v)) for n in names)
        ]
        if missing:
            out.append(
                _finding(
                    "error",
                    "multinode.ifname_missing",
                    f"{key}={value}: no interface {', '.join(missing)} on this host "
                    f"(present: {', '.join(sorted(names))})",
                    f"set {key} to this host's cluster interface, or unset it",
                )
            )
    timeout = environ.get("HCCL_CONNECT_TIMEOUT")
    if timeout is not None:
        try:
            seconds = int(timeout)
            if seconds < 120:
                out.append(
                    _finding(
                        "warning",
                        "multinode.hccl_timeout_short",
                        f"HCCL_CONNECT_TIMEOUT={seconds}: HCCL gives up linking the hosts after "
                        f"{seconds} s (default 120); a slow-starting node fails the whole job",
                        "raise it (e.g. 600) for multi-node jobs",
                    )
                )
        except ValueError:
            out.append(
                _finding(
                    "error",
                    "multinode.hccl_timeout_bad",
                    f"HCCL_CONNECT_TIMEOUT={timeout!r}: expected whole seconds",
                    "set HCCL_CONNECT_TIMEOUT=600 or unset it",
                )
            )
    return out


def port_findings(port: int, is_free: Callable[[int], bool]) -> list:
    if is_free(port):
        return [_finding("info", "multinode.port_free", f"rendezvous port {port} is free on this host")]
    return [
        _finding(
            "warning",
            "multinode.port_in_use",
            f"rendezvous port {port} is in use on this host: as the master, a multi-node run on it fails",
            f"pass another port: advisor probe --scaling --master HOST:PORT (default {DEFAULT_PORT})",
        )
    ]


def rank_table_problems(doc) -> list:
    """What is wrong with a parsed RANK_TABLE_FILE (HCCL's static networking): the
    {version, server_count, server_list: [{server_id, device: [{device_id, device_ip, rank_id}]}],
    status} shape; rank ids 0..N-1 each once."""
    if not isinstance(doc, dict):
        return ["the top level is not a JSON object"]
    problems = []
    servers = doc.get("server_list")
    if not isinstance(servers, list) or not servers:
        return ["server_list: missing or empty (expected a list of servers)"]
    count = doc.get("server_count")
    if count is not None and str(count) != str(len(servers)):
        problems.append(f"server_count {count} but server_list has {len(servers)} server(s)")
    ranks = []
    for i, server in enumerate(servers):
        if not isinstance(server, dict) or not server.get("server_id"):
            problems.append(f"server_list[{i}]: no server_id")
            continue
        devices = server.get("device")
        if not isinstance(devices, list) or not devices:
            problems.append(f"server_list[{i}] ({server['server_id']}): device missing or empty")
            continue
        for j, dev in enumerate(devices):
            where = f"server_list[{i}].device[{j}]"
            if not isinstance(dev, dict):
                problems.append(f"{where}: not an object")
                continue
            for key in ("device_id", "device_ip", "rank_id"):
                if key not in dev:
                    problems.append(f"{where}: no {key}")
            try:
                ranks.append(int(dev["rank_id"]))
            except (KeyError, TypeError, ValueError):
                if "rank_id" in dev:
                    problems.append(f"{where}: rank_id {dev['rank_id']!r} is not an integer")
    if ranks and sorted(ranks) != list(range(len(ranks))):
        dup = sorted({r for r in ranks if ranks.count(r) > 1})
        problems.append(
            "rank_id: "
            + (f"duplicated {dup}" if dup else f"expected 0..{len(ranks) - 1} each once, got {sorted(ranks)}")
        )
    if doc.get("status") not in (None, "completed"):
        problems.append(f'status {doc.get("status")!r}: expected "completed"')
    return problems


def rank_table_findings(environ: Mapping[str, str], npus: int) -> list:
    path = environ.get("RANK_TABLE_FILE")
    if not path:
        return (
            [
                _finding(
                    "info",
                    "multinode.rank_table",
                    "RANK_TABLE_FILE not set: msrun networks the hosts dynamically (its scheduler on --master_addr)",
                )
            ]
            if npus
            else []
        )
    p = Path(path)
    try:
        if p.stat().st_size > 4 * 1024 * 1024:
            return [
                _finding("error", "multinode.rank_table_bad", f"RANK_TABLE_FILE={path}: over 4 MB, not a rank table")
            ]
        doc = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [
            _finding(
                "error",
                "multinode.rank_table_missing",
                f"RANK_TABLE_FILE={path} does not exist",
                "unset it (msrun networks dynamically) or point it at the hccl_*.json",
            )
        ]
    except (OSError, UnicodeError) as exc:
        return [_finding("error", "multinode.rank_table_bad", f"RANK_TABLE_FILE={path}: unreadable ({exc})")]
    except ValueError as exc:
        return [
            _finding(
                "error",
                "multinode.rank_table_bad",
                f"RANK_TABLE_FILE={path}: not JSON ({exc})",
                "regenerate it with hccl_tools.py",
            )
        ]
    problems = rank_table_problems(doc)
    if problems:
        return [
            _finding(
                "error",
                "multinode.rank_table_bad",
                f"RANK_TABLE_FILE={path}: " + "; ".join(problems[:5]),
                "regenerate it with hccl_tools.py, or unset it for msrun's dynamic networking",
            )
        ]
    servers = doc["server_list"]
    n = sum(len(s["device"]) for s in servers)
    return [
        _finding(
            "info",
            "multinode.rank_table",
            f"RANK_TABLE_FILE={path}: {len(servers)} server(s), {n} device(s), rank ids 0..{n - 1}",
        )
    ]


def findings(
    environ: Mapping[str, str],
    sys_net: str = SYS_NET,
    port: int = DEFAULT_PORT,
    is_free: Optional[Callable[[int], bool]] = None,
    npus: int = 0,
) -> list:
    """Every multi-node readiness finding, over injected environment, sysfs root and port check."""
    ifaces = interfaces(sys_net)
    out = interface_findings(ifaces) + env_findings(environ, ifaces)
    if is_free is not None:
        out += port_findings(port, is_free)
    return out + rank_table_findings(environ, npus)


def multinode_findings() -> list:
    """This host, now (for advisor/check.py)."""
    from probes.hostfacts import ascend_npu_count
    from probes.scaling.multinode import port_free

    return findings(os.environ, is_free=lambda p: port_free("0.0.0.0", p), npus=ascend_npu_count())
