"""The scaling probe across hosts, on the engines' own multi-node launch.

`advisor probe --scaling --nnodes N --node-rank R --master HOST[:PORT] [--ranks-per-node K]`, the same
command line on every host but the node rank. torchrun joins a c10d rendezvous (`--nnodes --node-rank
--rdzv-backend=c10d --rdzv-endpoint`, `join_timeout` = the rendezvous timeout); msrun starts its
scheduler on the master host and workers everywhere (`--worker_num --local_worker_num --master_addr
--master_port --node_rank --cluster_time_out`). Nothing here starts a rank itself.

Bounded failure: before each launch a pre-flight (node 0: the master address is this host's and the
port is free; other nodes: the master port accepts a connection, polled up to the rendezvous timeout),
then the engines' own timeouts bound the rendezvous by the same figure. A failure names the likely
cause and the settings to check (GLOO_SOCKET_IFNAME, NCCL_SOCKET_IFNAME, HCCL_IF_IP /
HCCL_SOCKET_IFNAME, HCCL_CONNECT_TIMEOUT). Every node runs the same launches in the same order (each
launch is its own rendezvous, so the nodes stay in step); node 0's collector gathers the ranks' files
(probes/scaling/rank_gather.py) and node 0 writes the result; then node 0 alone runs the same rank
count on one host, for the intra-host vs inter-host comparison.
"""

from __future__ import annotations

import dataclasses
import errno
import ipaddress
import os
import shutil
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from probes.scaling import rank_gather

if TYPE_CHECKING:
    from probes.scaling.launch import LaunchSpec

DEFAULT_PORT = 29500  # torchrun's usual MASTER_PORT; msrun accepts 1024-65535
DEFAULT_RENDEZVOUS_TIMEOUT = 60.0
SYS_NET = "/sys/class/net"
SIOCGIFADDR = 0x8915  # Linux ioctl: an interface's IPv4 address
SETTINGS = {  # what decides which interface and how long each engine's collectives wait
    ("pytorch", "cpu"): ("GLOO_SOCKET_IFNAME",),
    ("pytorch", "cuda"): ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME"),
    ("mindspore", "cpu"): ("the master address and port (msrun's scheduler)",),
    ("mindspore", "gpu"): ("NCCL_SOCKET_IFNAME",),
    ("mindspore", "ascend"): ("HCCL_IF_IP", "HCCL_SOCKET_IFNAME", "HCCL_CONNECT_TIMEOUT"),
}


class BadRendezvous(ValueError):
    """Bad flags: one line naming the flag and what is expected (the CLI makes it exit 2)."""


@dataclass(frozen=True)
class Rendezvous:
    nnodes: int
    node_rank: int
    master_addr: str
    master_port: int = DEFAULT_PORT
    ranks_per_node: int = 1
    timeout: float = DEFAULT_RENDEZVOUS_TIMEOUT
    run_id: str = "advisor-scaling"  # torchrun --rdzv-id: the same on every node for one launch

    @property
    def world(self) -> int:
        return self.nnodes * self.ranks_per_node

    @property
    def endpoint(self) -> str:
        host = f"[{self.master_addr}]" if ":" in self.master_addr else self.master_addr
        return f"{host}:{self.master_port}"

    # launch.CrossHost: what a launch across hosts adds (launch.py calls these, never this module)
    def build_command(self, spec: LaunchSpec, workdir: Path) -> tuple:
        return build_command(spec, workdir)

    def environment(self, spec: LaunchSpec) -> dict[str, str]:
        return environment(spec)


def parse_master(text: str) -> tuple:
    """HOST[:PORT] (IPv6 as [ADDR]:PORT) -> (host, port)."""
    text = (text or "").strip()
    host, port = text, None
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else (None if not rest else "bad")
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    if not host or port == "bad" or (port is not None and not port.isdigit()):
        raise BadRendezvous(f"--master: {text!r}; expected HOST or HOST:PORT, e.g. 10.0.0.1:29500")
    port = int(port) if port is not None else DEFAULT_PORT
    if not 1024 <= port <= 65535:
        raise BadRendezvous(f"--master: port {port}; expected 1024 to 65535 (msrun refuses lower ports)")
    return host, port


def validate(nnodes, node_rank, master, ranks_per_node=None, timeout=None) -> Rendezvous:
    """The flags as one Rendezvous, or BadRendezvous naming the flag."""
    if nnodes is None:
        raise BadRendezvous("--nnodes: required with --node-rank/--master/--ranks-per-node (hosts taking part)")
    if not 1 <= nnodes <= 1024:
        raise BadRendezvous(f"--nnodes: {nnodes}; expected 1 to 1024 hosts")
    if node_rank is None:
        raise BadRendezvous("--node-rank: required with --nnodes (0 on the master host, 1..N-1 on the others)")
    if not 0 <= node_rank < nnodes:
        raise BadRendezvous(f"--node-rank: {node_rank}; expected 0 to {nnodes - 1} (below --nnodes {nnodes})")
    if master is None:
        if nnodes > 1:
            raise BadRendezvous("--master: required with --nnodes > 1; the master host's address HOST[:PORT]")
        master = "127.0.0.1"
    host, port = parse_master(master)
    k = 1 if ranks_per_node is None else ranks_per_node
    if not 1 <= k <= 64:
        raise BadRendezvous(f"--ranks-per-node: {k}; expected 1 to 64")
    t = DEFAULT_RENDEZVOUS_TIMEOUT if timeout is None else float(timeout)
    if not 5 <= t <= 3600:
        raise BadRendezvous(f"--rendezvous-timeout: {t:g}; expected 5 to 3600 seconds")
    return Rendezvous(nnodes, node_rank, host, port, k, t)


def refuse_ranks(ranks) -> None:
    """--ranks (one host's rank list) does not combine with --nnodes: BadRendezvous if given."""
    if ranks is not None:
        raise BadRendezvous("--ranks: not with --nnodes; the rank count is --nnodes x --ranks-per-node")


def check_ports(rdzv: Rendezvous, config) -> None:
    """Each launch of the run takes the next port from --master's (one per repeat, model and
    framework): BadRendezvous when the last one would pass 65535. The CLI and the TUI both call it."""
    launches = config.repeat * len(config.models) * len(config.frameworks)
    if rdzv.master_port + launches - 1 > 65535:
        raise BadRendezvous(
            f"--master: port {rdzv.master_port}; {launches} launches use ports {rdzv.master_port}"
            f"-{rdzv.master_port + launches - 1}, expected at most 65535"
        )


# ---------------------------------------------------------------------------- the link it runs over


def _ipv4_of(iface: str) -> Optional[str]:
    import fcntl
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            packed = fcntl.ioctl(s.fileno(), SIOCGIFADDR, struct.pack("256s", iface[:15].encode()))
        except OSError:
            return None
    return socket.inet_ntoa(packed[20:24])


def source_address(master_addr: str) -> Optional[str]:
    """This host's address toward the master (a UDP connect sends nothing; the kernel picks the route)."""
    try:
        infos = socket.getaddrinfo(master_addr, DEFAULT_PORT, type=socket.SOCK_DGRAM)
    except (socket.gaierror, UnicodeError):
        return None
    for family, _, _, _, addr in infos:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            try:
                s.connect(addr)
                return s.getsockname()[0]
            except OSError:
                continue
    return None


def route_interface(
    master_addr: str, addresses: Optional[Callable[[str], Optional[str]]] = None, names: Optional[list] = None
) -> tuple:
    """(interface, source address) the master address routes through; (None, address) when unknown."""
    src = source_address(master_addr)
    if src is None:
        return None, None
    if names is None:
        try:
            names = [n for _, n in socket.if_nameindex()]
        except OSError:
            names = []
    addresses = addresses or _ipv4_of
    for name in names:
        if addresses(name) == src:
            return name, src
    return None, src


def link_speed(iface: Optional[str], sys_net: str = SYS_NET) -> tuple:
    """(Mb/s or None, how it was obtained). Loopback and virtual links have no readable speed."""
    if not iface:
        return None, "interface unknown"
    path = Path(sys_net) / iface / "speed"
    try:
        value = int(path.read_text().strip())
    except (OSError, ValueError):
        return None, f"{path} unreadable (loopback or a virtual link has no speed)"
    if value <= 0:
        return None, f"{path} reads {value} (link down or unknown)"
    return value, f"read from {path}"


def link_facts(rdzv: Rendezvous, sys_net: str = SYS_NET) -> dict:
    iface, src = route_interface(rdzv.master_addr)
    speed, how = link_speed(iface, sys_net)
    loopback = False
    try:
        loopback = src is not None and ipaddress.ip_address(src.split("%")[0]).is_loopback
    except ValueError:
        pass
    return {"interface": iface, "source_address": src, "speed_mbps": speed, "speed_source": how, "loopback": loopback}


# ---------------------------------------------------------------------------------- pre-flight


def is_local_address(host: str) -> Optional[bool]:
    """Can this host bind the address (it is one of its own)? None when the name does not resolve."""
    try:
        infos = socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return None
    for family, _, _, _, addr in infos:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            try:
                s.bind((addr[0], 0))
                return True
            except OSError:
                continue
    return False


def port_free(host: str, port: int) -> bool:
    """Nothing listens on host:port (SO_REUSEADDR as the engines' servers: TIME_WAIT is not 'in use')."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return False
    family, _, _, _, addr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
            return True
        except OSError:
            return False


def settings_hint(framework: str, device: str) -> str:
    names = SETTINGS.get((framework, device.lower()), SETTINGS[(framework, "cpu")])
    return ", ".join(f"{n}={os.environ[n]}" if n in os.environ else n for n in names)


def preflight(rdzv: Rendezvous, framework: str, device: str = "cpu", cancel=None, poll: float = 0.5) -> Optional[str]:
    """None when the launch may start, else why not (one line, with the cause and what to check).
    Node 0 checks at once; the others wait for the master port up to the rendezvous timeout."""
    ep, t = rdzv.endpoint, rdzv.timeout
    hint = settings_hint(framework, device)
    if rdzv.node_rank == 0:
        local = is_local_address(rdzv.master_addr)
        if local is None:
            return f"--master {rdzv.master_addr}: the name does not resolve on this host (wrong address?)"
        if not local:
            return (
                f"--master {rdzv.master_addr} is not an address of this host, and node 0 runs the master: "
                "run --node-rank 0 on the host that owns it, or give its own address"
            )
        if not port_free(rdzv.master_addr, rdzv.master_port):
            return (
                f"port {rdzv.master_port} on {rdzv.master_addr} is in use (another job, or a previous run "
                f"still exiting): choose another --master {rdzv.master_addr}:PORT on every node"
            )
        return None
    deadline = time.monotonic() + t
    last = ""
    while True:
        try:
            with socket.create_connection(
                (rdzv.master_addr, rdzv.master_port), timeout=max(0.2, min(2.0, deadline - time.monotonic()))
            ):
                return None
        except socket.gaierror:
            return f"--master {rdzv.master_addr}: the name does not resolve on this host (wrong address?)"
        except ConnectionRefusedError:
            last = "refused (nothing listens there: node 0 not started yet, or a wrong address or port)"
        except socket.timeout:
            last = "timed out (a firewall dropping the port, or an unroutable address)"
        except OSError as exc:
            last = (
                f"failed: {os.strerror(exc.errno)} (no route: a wrong address or a firewall)"
                if exc.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH)
                else f"failed: {exc}"
            )
        if cancel is not None and cancel.is_set():
            return "cancelled by the user"
        if time.monotonic() >= deadline:
            return (
                f"node {rdzv.node_rank}: the master {ep} did not accept a connection within {t:.0f} s; "
                f"the last attempt {last}; check that node 0 runs the same command with --node-rank 0, "
                f"the address, that TCP port {rdzv.master_port} is open between the hosts, and {hint}"
            )
        time.sleep(poll)


# ------------------------------------------------------------------------------- command lines


def torchrun_command(spec, result_dir: Path) -> list:
    from probes.scaling import launch

    r: Rendezvous = spec.rendezvous
    return [
        *launch.launcher_prefix("pytorch", spec.python),
        f"--nnodes={r.nnodes}",
        f"--node-rank={r.node_rank}",
        f"--nproc_per_node={r.ranks_per_node}",
        "--rdzv-backend=c10d",
        f"--rdzv-endpoint={r.endpoint}",
        f"--rdzv-id={r.run_id}",
        # join_timeout: how long the rendezvous waits for the other nodes (torch's default: 600 s).
        # is_host: node 0 hosts the store; left to torch, it guesses by matching the hostname to the
        # endpoint, which fails when --master is an address the hostname does not resolve to (a second NIC).
        f"--rdzv-conf=join_timeout={int(r.timeout)},read_timeout={int(r.timeout)},"
        f"is_host={'true' if r.node_rank == 0 else 'false'}",
        "--max-restarts=0",
        str(launch.RANK_SCRIPTS["pytorch"]),
        *launch.rank_arguments(spec, result_dir),
    ]


def msrun_command(spec, result_dir: Path, log_dir: Path) -> list:
    from probes.scaling import launch

    r: Rendezvous = spec.rendezvous
    return [
        *launch.launcher_prefix("mindspore", spec.python),
        f"--worker_num={r.world}",
        f"--local_worker_num={r.ranks_per_node}",
        f"--master_addr={r.master_addr}",
        f"--master_port={r.master_port}",
        f"--node_rank={r.node_rank}",
        "--join=True",
        # cluster_time_out: how long the scheduler and workers wait for the missing workers
        f"--cluster_time_out={int(r.timeout)}",
        f"--log_dir={log_dir}",
        str(launch.RANK_SCRIPTS["mindspore"]),
        *launch.rank_arguments(spec, result_dir),
    ]


def build_command(spec, workdir: Path) -> tuple:
    """launch.build_command for a spec with a rendezvous: (argv, result_dir, log_dir)."""
    result_dir, log_dir = workdir / "result", workdir / "logs"
    result_dir.mkdir(parents=True, exist_ok=True)
    log_dir.mkdir(parents=True, exist_ok=True)
    if spec.framework == "pytorch":
        return torchrun_command(spec, result_dir), result_dir, log_dir
    return msrun_command(spec, result_dir, log_dir), result_dir, log_dir


def environment(spec) -> dict:
    """What the ranks of a multi-node launch need on top of launch_environment."""
    r: Rendezvous = spec.rendezvous
    env = {rank_gather.NNODES_ENV: str(r.nnodes), rank_gather.NODE_RANK_ENV: str(r.node_rank)}
    if spec.framework == "pytorch" and not os.environ.get("GLOO_SOCKET_IFNAME"):
        iface, _ = route_interface(r.master_addr)
        if iface:  # gloo's ranks must talk over the interface that reaches the master, not lo
            env["GLOO_SOCKET_IFNAME"] = iface
    return env


# ------------------------------------------------------------------------------------ failures

RENDEZVOUS_SIGNS = (
    "RendezvousTimeoutError",
    "RendezvousError",
    "join_timeout",
    "timed out",
    "Timed out",
    "cluster_time_out",
    "Cluster is not ready",
    "cluster building",
    "Topology",
    "timeout",
    "TimeoutError",
)


def peer_missing(outcome) -> bool:
    """The launch failed because the cluster never formed (a peer not started, a wrong --master,
    a firewall): the pre-flight could not reach the master, or the rendezvous timed out."""
    error = getattr(outcome, "error", None) or ""
    return getattr(outcome, "status", "ok") not in ("ok", "cancelled") and (
        "pre-flight:" in error or "rendezvous timeout" in error
    )


def diagnose(framework: str, device: str, rdzv: Rendezvous, error: str, tail: str, seconds: float) -> str:
    """One line: what failed, the likely cause, and what to check."""
    text = f"{error or ''}\n{tail or ''}"
    hint = settings_hint(framework, device)
    launcher = "torchrun" if framework == "pytorch" else "msrun"
    if "Address already in use" in text or "EADDRINUSE" in text:
        cause = f"port {rdzv.master_port} (or a rank's port) was in use"
    elif "Connection refused" in text or "ECONNREFUSED" in text:
        cause = "a rank could not connect (refused): a wrong address, or a peer on another interface"
    elif any(s in text for s in RENDEZVOUS_SIGNS):
        cause = (
            f"the {rdzv.nnodes} nodes did not all join within the rendezvous timeout "
            f"{rdzv.timeout:.0f} s: a node not started, a different --nnodes/--master on it, or a firewall"
        )
    else:
        cause = "a rank failed"
    return (
        f"{launcher} across {rdzv.nnodes} hosts ({rdzv.endpoint}) failed after {seconds:.0f} s: {cause}"
        f" [{(error or '').strip()[:200]}]; check {hint}, and that the master port and the ranks' ports "
        "are open between the hosts"
    )


# ------------------------------------------------------------------------------------- the run


def _progress_line(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def launch_one(spec, cancel=None, on_line: Callable[[str], None] = _progress_line):
    """Pre-flight, then the engine's launch. Returns a LaunchOutcome; a failure carries the diagnosis.
    On nodes other than 0 no result.json is expected (node 0's collector writes it): exit 0 is ok."""
    from probes.scaling import launch

    r: Rendezvous = spec.rendezvous
    start = time.monotonic()
    why = preflight(r, spec.framework, spec.device, cancel=cancel)
    if why:
        return launch.LaunchOutcome(
            status="failed", command=[], error=f"pre-flight: {why}", seconds=time.monotonic() - start
        )
    from probes import launcher as _launcher

    workdir = _launcher.make_temp_dir("advisor-scaling-")
    watch = RendezvousWatch(spec, workdir / "result", cancel)
    try:
        out = launch.run_launch(spec, cancel=watch, workdir=workdir)
        if watch.expired:
            out.status = "failed"
            out.error = (
                f"the cluster did not form within the rendezvous timeout {r.timeout:.0f} s "
                f"(+{STARTUP_ALLOWANCE:.0f} s start-up allowance): every process was killed"
            )
        if r.node_rank != 0 and out.status not in ("cancelled", "timeout") and out.result is None:
            if out.returncode == 0:
                out.status, out.error = "ok", None
            elif _loopback_msrun_done(spec, workdir / "result"):
                out.status, out.error = "ok", None
                on_line(
                    f"[node {r.node_rank}/{r.nnodes}] note: msrun exit {out.returncode} ignored: on a "
                    "loopback master every node's msrun starts a scheduler (msrun starts one wherever the "
                    "master address is local) and this one lost the port to node 0's; every local rank "
                    "finished"
                )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if out.status != "ok" and out.status != "cancelled":
        out.error = diagnose(spec.framework, spec.device, r, out.error, out.output_tail, out.seconds)
    return out


# assumption: interpreter start, framework import and network build before rank 0's first progress
# report (5-8 s measured here for MindSpore LeNet on a loaded 2-vCPU host).
STARTUP_ALLOWANCE = 30.0


class RendezvousWatch:
    """A cancel flag for run_launch that also trips when rank 0 (on this node) has not reported its
    first progress (written after init) within the rendezvous timeout plus the start-up allowance.
    msrun alone overshoots: cluster_time_out=10 took 45 s to fail (its scheduler's heartbeat).
    Only where rank 0 runs here (msrun: node 0); torchrun's join_timeout holds by itself (14 s for 10)."""

    def __init__(self, spec, result_dir: Path, cancel=None) -> None:
        from probes.scaling import rank_common

        r: Rendezvous = spec.rendezvous
        self.cancel, self.expired = cancel, False
        self.progress = result_dir / rank_common.PROGRESS_NAME
        self.active = spec.framework == "mindspore" and r.node_rank == 0
        self.deadline = time.monotonic() + r.timeout + STARTUP_ALLOWANCE

    def is_set(self) -> bool:
        if self.cancel is not None and self.cancel.is_set():
            return True
        if self.active and not self.expired and time.monotonic() > self.deadline:
            self.expired = not self.progress.exists()
            self.active = False
        return self.expired

    # The supervisor sleeps until a waker fires; the caller's own cancel wakes it, and the scaling
    # launch's progress tick (every 0.5 s) reads is_set(), which is when the deadline is seen.
    def add_waker(self, wake) -> None:
        if self.cancel is not None:
            self.cancel.add_waker(wake)

    def remove_waker(self, wake) -> None:
        if self.cancel is not None:
            self.cancel.remove_waker(wake)


def _loopback_msrun_done(spec, result_dir: Path) -> bool:
    """Loopback emulation of several hosts only: msrun on node R > 0 failed, yet every local rank
    wrote its file (and took part in the exchange, which needs every rank)."""
    r: Rendezvous = spec.rendezvous
    if spec.framework != "mindspore" or not link_is_loopback(r.master_addr):
        return False
    first = r.node_rank * r.ranks_per_node
    return all((result_dir / f"rank{k}.json").exists() for k in range(first, first + r.ranks_per_node))


def link_is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(socket.gethostbyname(host)).is_loopback
    except (OSError, ValueError, UnicodeError):
        return False


def _side(runs: list) -> Optional[dict]:
    from probes.scaling.runner import spread

    if not runs:
        return None
    notes = [r.allreduce_share_note for r in runs if r.allreduce_share_note]
    return {
        "runs": len(runs),
        "step_ms": spread([r.step_ms for r in runs]),
        "nosync_step_ms": spread([r.nosync_step_ms for r in runs]),
        "images_per_second": spread([r.images_per_second for r in runs]),
        "allreduce_share": spread([r.allreduce_share for r in runs]),
        "allreduce_share_note": notes[0] if notes else None,
    }


def inter_host_block(
    rdzv: Rendezvous, link: dict, inter_runs: list, intra_runs: list, frameworks: list, models: list
) -> dict:
    """The result's `inter_host` block: per framework and model, the same rank count across hosts
    (inter) and on node 0 alone (intra), and the link the inter-host runs went over."""
    from probes.scaling import launch
    from probes.scaling.runner import spread

    out = []
    for model in models:
        for fw in frameworks:
            mine = [r for r in inter_runs if r.framework == fw and r.model == model]
            ok = [r for r in mine if r.status == "ok"]
            local = [r for r in intra_runs if r.framework == fw and r.model == model and r.status == "ok"]
            same = [r for r in local if r.ranks == rdzv.world]
            one = {r.repetition: r for r in local if r.ranks == 1}
            pairs = {r.repetition: r for r in same}
            out.append(
                {
                    "framework": fw,
                    "launcher": launch.LAUNCHERS[fw],
                    "model": model,
                    "backend": next((r.backend for r in ok if r.backend), None),
                    "world_size": rdzv.world,
                    "runs_ok": len(ok),
                    "runs_total": len(mine),
                    "status": "ok" if mine and len(ok) == len(mine) else ("partial" if ok else "failed"),
                    "reason": next((r.error for r in mine if r.status != "ok"), None),
                    "gate_ok": all(r.gate is not None and r.gate.ok for r in ok) if ok else None,
                    "inter": _side(ok),
                    "intra": _side(same),
                    # > 1: the same ranks step slower across hosts than on one (the link's cost)
                    "inter_over_intra_step": spread(
                        [
                            r.step_ms / pairs[r.repetition].step_ms
                            for r in ok
                            if r.repetition in pairs and r.step_ms and pairs[r.repetition].step_ms
                        ]
                    ),
                    "efficiency": spread(
                        [
                            r.images_per_second / (rdzv.world * one[r.repetition].images_per_second)
                            for r in ok
                            if r.repetition in one and r.images_per_second and one[r.repetition].images_per_second
                        ]
                    ),
                }
            )
    return {
        "nnodes": rdzv.nnodes,
        "ranks_per_node": rdzv.ranks_per_node,
        "world_size": rdzv.world,
        "master": rdzv.endpoint,
        "rendezvous_timeout_s": rdzv.timeout,
        "link": link,
        "frameworks": out,
    }


def run_multinode(
    config,
    rdzv: Rendezvous,
    intra_host: bool = True,
    on_event=None,
    cancel=None,
    on_line: Callable[[str], None] = _progress_line,
):
    """Every node: the inter-host launches. Node 0 then runs the same rank count on one host and
    returns the ScalingResult (with `inter_host`); other nodes return (ok, lines) only."""
    from datetime import datetime, timezone

    from probes.scaling import launch, runner
    from probes.scaling.models import ScalingConfig, ScalingResult

    start = time.monotonic()
    frameworks = [fw for fw in config.frameworks if runner.framework_available(fw) is None]
    missing = [fw for fw in config.frameworks if fw not in frameworks]
    cores = runner.usable_cores()
    # The same threads per rank across hosts and on one host: the comparison isolates the link.
    threads = config.threads_per_rank or max(1, cores // max(rdzv.world, rdzv.ranks_per_node))
    inter_runs = []
    index = 0
    for rep in range(1, config.repeat + 1):
        for model in config.models:
            for fw in frameworks:
                index += 1
                device, _ = runner.device_for(fw, config)
                # One port per launch (PORT, PORT+1, ...; the same on every node): a node that finished
                # early can never join the previous launch's store or scheduler, still exiting.
                r = dataclasses.replace(
                    rdzv, run_id=f"advisor-{fw}-{model}-{rep}", master_port=rdzv.master_port + index - 1
                )
                spec = launch.LaunchSpec(
                    framework=fw,
                    ranks=rdzv.world,
                    model=model,
                    batch_size=config.batch_size,
                    steps=config.steps,
                    warmup=config.warmup,
                    threads=threads,
                    device=device,
                    timeout=config.timeout + rdzv.timeout,
                    rendezvous=r,
                )
                on_line(
                    f"[node {rdzv.node_rank}/{rdzv.nnodes}] {launch.LAUNCHERS[fw]}: {model}, "
                    f"{rdzv.nnodes} x {rdzv.ranks_per_node} rank(s), repetition {rep}/{config.repeat}"
                )
                outcome = launch_one(spec, cancel=cancel, on_line=on_line)
                run = runner.to_run(spec, rep, outcome)
                run.id = f"{fw}-{model}-r{rdzv.world}-{rdzv.nnodes}x{rdzv.ranks_per_node}-rep{rep}"
                run.nnodes = rdzv.nnodes
                if outcome.command == [] and outcome.error:  # the pre-flight stopped it
                    run.command = []
                inter_runs.append(run)
                on_line(
                    f"[node {rdzv.node_rank}/{rdzv.nnodes}] {run.id}: "
                    + (
                        f"{run.images_per_second:,.0f} img/s total"
                        if run.status == "ok" and run.images_per_second
                        else ("done" if run.status == "ok" else f"{run.status}: {run.error}")
                    )
                )
                if peer_missing(outcome):
                    # A node that did not join this launch will not join the next: one rendezvous
                    # timeout ends the run (three repetitions waited 3 x 60 s before).
                    left = config.repeat * len(config.models) * len(frameworks) - index
                    on_line(
                        f"[node {rdzv.node_rank}/{rdzv.nnodes}] stopping: a node did not join"
                        + (f"; {left} launch(es) not started" if left else "")
                    )
                    break
            else:
                continue
            break
        else:
            continue
        break
    if rdzv.node_rank != 0:
        return all(r.status == "ok" for r in inter_runs), inter_runs
    link = link_facts(rdzv)
    local = None
    if intra_host and frameworks and any(r.status == "ok" for r in inter_runs):
        on_line(f"[node 0/{rdzv.nnodes}] the same {rdzv.world} rank(s) on this host alone (intra-host)")
        local = runner.run_scaling(
            ScalingConfig(
                **{
                    **config.model_dump(),
                    "frameworks": frameworks,
                    "ranks": sorted({1, rdzv.world}),
                    "threads_per_rank": threads,
                }
            ),
            on_event=on_event,
            cancel=cancel,
        )
    block = inter_host_block(rdzv, link, inter_runs, local.runs if local else [], frameworks, config.models)
    label, text = runner.label_for(
        {fw: runner.device_for(fw, config)[0] for fw in frameworks}, [1, rdzv.world], cores, threads
    )
    warnings = list(local.warnings) if local else []
    warnings += [f"{fw}: {runner.framework_available(fw)}" for fw in missing]
    if link["loopback"]:
        warnings.append(
            "the master address is a loopback address: every 'host' ran on this one machine; "
            "the inter-host figures measure loopback, not a network"
        )
    host = local.host if local else runner.host_summary()
    return ScalingResult(
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        host=host,
        label=label,
        label_text=text,
        config=config,
        frameworks=local.frameworks if local else [],
        runs=inter_runs + (local.runs if local else []),
        warnings=warnings,
        seconds=round(time.monotonic() - start, 2),
        inter_host=block,
    )


# ------------------------------------------------------------------------------------------ CLI

OPTION_DESTS = ("nnodes", "node_rank", "master", "ranks_per_node", "rendezvous_timeout", "no_intra_host")


def add_arguments(parser) -> None:
    if parser.get_default("_multinode_options"):  # already added (cli.add_arguments may run twice)
        return
    parser.set_defaults(_multinode_options=True)
    g = parser.add_argument_group("scaling across hosts (run the same command on every host, but --node-rank)")
    g.add_argument(
        "--nnodes",
        type=int,
        metavar="N",
        help="scaling: hosts taking part (torchrun --nnodes, msrun --worker_num = N x ranks per node)",
    )
    g.add_argument("--node-rank", type=int, metavar="R", help="scaling: this host's rank, 0 on the master host")
    g.add_argument(
        "--master",
        metavar="HOST[:PORT]",
        help=f"scaling: the master host's address and rendezvous "
        f"port (default port {DEFAULT_PORT}; torchrun --rdzv-endpoint, msrun --master_addr/--master_port); "
        "the k-th launch uses PORT+k-1, so open PORT up to PORT + launches - 1",
    )
    g.add_argument("--ranks-per-node", type=int, metavar="K", help="scaling: ranks on each host (default 1)")
    g.add_argument(
        "--rendezvous-timeout",
        type=float,
        metavar="SECONDS",
        help=f"scaling: how long the hosts wait for each other before the run fails "
        f"(default {DEFAULT_RENDEZVOUS_TIMEOUT:.0f})",
    )
    g.add_argument(
        "--no-intra-host",
        action="store_true",
        help="scaling: skip node 0's same-rank-count run on one host (the intra-host comparison)",
    )


def requested(args) -> bool:
    # `is not False`, not `not in (None, False)`: 0 == False, and --nnodes 0 is a request to refuse
    return any((v := getattr(args, n, None)) is not None and v is not False for n in OPTION_DESTS)


def argparse_copy(args):
    """The args without the multi-node options, for the one-host probe."""
    import argparse

    ns = argparse.Namespace(**vars(args))
    for n in OPTION_DESTS:
        setattr(ns, n, None)
    return ns
