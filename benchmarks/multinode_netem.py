"""Scaling across two "hosts" over an emulated slower link (a benchmark, not CI): two network
namespaces joined by a veth pair, the link shaped with `tc` (bandwidth with tbf, or bandwidth and
latency with netem), and in each namespace the real command
`advisor probe --scaling --nnodes 2 --node-rank R --master 10.77.0.1:PORT` (torchrun's c10d rendezvous,
DDP on gloo, one rank per "host"). Printed per link setting: data-parallel efficiency (2-rank images/s
over 2 x 1-rank, node 0's own runs), the synced step across hosts over the same 2 ranks on one host
(the link's cost), and the allreduce share across hosts.

Needs: root or CAP_NET_ADMIN (`ip netns add`), `ip` and `tc`, veth, and the kernel's tbf qdisc
(bandwidth) or netem (bandwidth + latency). Where the namespaces cannot be made, it says exactly what is
missing and runs the fallback: the 2 x 1 multi-node probe once on loopback, printing its inter-host
share, and says that no link was emulated. Exit 0 either way; 1 only if a probe run fails.
Run by hand: `.venv/bin/python benchmarks/multinode_netem.py [--settings none,1gbit,100mbit,10mbit]
[--frameworks pytorch] [--steps 20] [--repeat 1]`; a setting is RATE or RATE/DELAY (DELAY needs netem).

Measured here, 2026-12-01 (torch 2.13.0 CPU, gloo, LeNet-5, batch 32 per rank, 20 steps, 1 thread per
rank), on a shared 2-core container with 4 other helpers running: load average 3.3-4.3 (`uptime`) through
the runs. Root in the container: namespaces and veth work, tbf works, but this kernel has no netem
("Specified qdisc kind is unknown"), so bandwidth only, no latency. `--repeat 3`, medians:
    link        efficiency  inter/intra step  step across hosts  allreduce share
    unshaped       0.36          1.06              13.5 ms             0.36
    1gbit          0.30          0.98              12.1 ms             0.36
    100mbit        0.25          2.29              22.1 ms             0.61
    10mbit         0.02         14.04             211.5 ms             0.96
At 10 Mbit/s the step is what the arithmetic says: LeNet's 61.7k fp32 gradients are 247 KB, 0.20 s at
10 Mbit/s, and the step went from ~14 ms to 212 ms; at 100 Mbit/s (20 ms of transfer) it doubles. Up to
1 Gbit/s the link is not the limit. The efficiency figures (2-rank images/s over 2 x 1 rank on node 0) are
low even unshaped because the two ranks and the other helpers share 2 cores: read the link's effect from
the inter/intra step ratio, which pairs each cross-"host" run with the same 2 ranks on one host.
An earlier single repetition gave 0.65/0.33/0.16/0.04 efficiency and 0.91/1.21/1.52/18.1 inter/intra.
MindSpore (msrun, 10 steps, one repetition, load average 1.3 -> 0.8): unshaped efficiency 0.37, inter/intra
step 1.18, step 24.0 ms (no allreduce share in the result for it); 10mbit efficiency 0.02, inter/intra
13.2, step 424.8 ms, share 0.98: about twice PyTorch's 212 ms for the same 247 KB, i.e. about twice the
bytes on the wire per step (not investigated further).
`--loopback` (the fallback, 2 x 1 on 127.0.0.1, once): efficiency 0.55, inter/intra step 0.99, step
12.1 ms, allreduce share 0.27 (load average 2.9).
Two set-up facts the namespaces showed: torchrun's c10d decides which node hosts the store by resolving
the machine's hostname, so a master address on a NIC the hostname does not resolve to makes node 0 a
client too and the rendezvous fails (torchrun's `--rdzv-conf is_host=true` on node 0 avoids it); and
the workers reach the master by the hostname node 0 advertises, so two "hosts" with one hostname
connect to themselves. Here each namespace gets its own hostname (a UTS namespace) and hosts file.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ADDR = ("10.77.0.1", "10.77.0.2")
HOSTNAMES = ("advnode0", "advnode1")
PORT = 29500
DEFAULT_SETTINGS = "none,1gbit,100mbit,10mbit"


def sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, check=check)


def _try(cmd: list[str]) -> str | None:
    """None when the command works, else its error (first line)."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return None if out.returncode == 0 else ((out.stderr or out.stdout).strip().splitlines() or ["failed"])[0]


def capabilities() -> tuple[list[str], bool]:
    """What is missing for the namespaces (empty: they work) and whether netem (latency) is available.
    Probed in a throwaway namespace pair, removed afterwards."""
    missing = [f"`{tool}` on PATH (iproute2)" for tool in ("ip", "tc") if shutil.which(tool) is None]
    if missing:
        return missing, False
    ns = f"advprobe{os.getpid()}"
    why = _try(["ip", "netns", "add", ns])
    if why:
        return [f"`ip netns add` (root or CAP_NET_ADMIN; uid {os.getuid()}): {why}"], False
    try:
        why = _try(["ip", "-n", ns, "link", "add", "t0", "type", "veth", "peer", "name", "t1"])
        if why:
            return [f"a veth pair (`ip link add ... type veth`): {why}"], False
        tbf = _try(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "t0", "root", "tbf"] + _tbf("100mbit"))
        _try(["ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", "t0", "root"])
        netem = _try(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "t0", "root", "netem", "delay", "1ms"])
        if tbf and netem:
            return [f"a shaping qdisc: tbf ({tbf}) and netem ({netem}) both refused"], False
        return [], netem is None
    finally:
        _try(["ip", "netns", "del", ns])


def _bits(rate: str) -> float:
    units = {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "bit": 1.0}
    for unit, k in units.items():
        if rate.endswith(unit):
            return float(rate[: -len(unit)]) * k
    raise SystemExit(f"--settings: rate {rate!r} is not N kbit|mbit|gbit (e.g. 100mbit)")


def _tbf(rate: str) -> list[str]:
    """tbf arguments: a bucket of 10 ms at the rate (at least 32 KB), a queue of up to 200 ms."""
    burst = max(32 * 1024, int(_bits(rate) / 8 / 100))
    return ["rate", rate, "burst", str(burst), "latency", "200ms"]


class Link:
    """Two namespaces and a veth pair between them; removed on exit."""

    def __init__(self) -> None:
        tag = os.getpid()
        self.ns = (f"advnode0-{tag}", f"advnode1-{tag}")
        self.dev = ("veth0", "veth1")

    def __enter__(self) -> Link:
        for ns in self.ns:
            sh("ip", "netns", "add", ns)
        sh("ip", "-n", self.ns[0], "link", "add", self.dev[0], "type", "veth", "peer", "name", self.dev[1])
        sh("ip", "-n", self.ns[0], "link", "set", self.dev[1], "netns", self.ns[1])
        for ns, dev, addr in zip(self.ns, self.dev, ADDR):
            # torchrun finds the store host and tells the workers the master by hostname: each "host" gets
            # its own (a UTS namespace, see wrap) resolving to its end of the pair (`ip netns exec` mounts
            # /etc/netns/NS/hosts on /etc/hosts)
            etc = Path("/etc/netns") / ns
            etc.mkdir(parents=True, exist_ok=True)
            names = "".join(f"{a} {n}\n" for a, n in zip(ADDR, HOSTNAMES))
            (etc / "hosts").write_text(f"127.0.0.1 localhost\n{names}")
            sh("ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
            sh("ip", "-n", ns, "link", "set", dev, "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        return self

    def __exit__(self, *exc) -> None:
        for ns in self.ns:
            sh("ip", "netns", "del", ns, check=False)
            shutil.rmtree(Path("/etc/netns") / ns, ignore_errors=True)

    def wrap(self, rank: int, argv: list[str]) -> list[str]:
        """argv run in that node's network namespace under its own hostname."""
        script = f'hostname {HOSTNAMES[rank]} && exec "$@"'
        return ["ip", "netns", "exec", self.ns[rank], "unshare", "--uts", "sh", "-c", script, "sh", *argv]

    def shape(self, setting: str, netem: bool) -> None:
        """Both directions the same: egress of each end of the pair."""
        rate, _, delay = setting.partition("/")
        for ns, dev in zip(self.ns, self.dev):
            sh("ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", dev, "root", check=False)
            if setting == "none":
                continue
            if netem:
                args = ["netem"] + (["delay", delay] if delay else []) + ([] if rate == "none" else ["rate", rate])
            else:
                args = ["tbf"] + _tbf(rate)
            sh("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", *args)


def _probe_argv(rank: int, master: str, a, out: Path | None) -> list[str]:
    argv = [
        sys.executable,
        "-m",
        "advisor",
        "probe",
        "--scaling",
        "--nnodes",
        "2",
        "--node-rank",
        str(rank),
        "--master",
        master,
        "--frameworks",
        a.frameworks,
        "--repeat",
        str(a.repeat),
        "--scaling-steps",
        str(a.steps),
        "--batch-size",
        str(a.batch_size),
        "--threads",
        "1",
        "--rendezvous-timeout",
        "60",
        "--no-cache",
    ]
    return argv + (["-o", str(out)] if out else [])


def two_nodes(master: str, a, tmp: Path, wrap=lambda rank, argv: argv, env_for=lambda rank: {}) -> dict:
    """Node 0 and node 1 of one probe; node 0's result document."""
    out = tmp / "node0.json"
    out.unlink(missing_ok=True)
    procs = []
    for rank in (0, 1):
        env = {**os.environ, "PYTHONPATH": str(ROOT), **env_for(rank)}
        argv = wrap(rank, _probe_argv(rank, master, a, out if rank == 0 else None))
        procs.append(
            subprocess.Popen(argv, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        )
        time.sleep(1.0 if rank == 0 else 0)
    errs = [p.communicate(timeout=900)[1] for p in procs]
    if not out.exists():
        tail = "\n".join(e.strip().splitlines()[-1] if e.strip() else "(no output)" for e in errs)
        raise RuntimeError(f"node 0 wrote no result; last lines:\n{tail}")
    return json.loads(out.read_text())


def _m(spread, fmt: str) -> str:
    """median, and [min-max] over repetitions when there are several."""
    if not spread:
        return "-"
    text = format(spread["median"], fmt)
    return text + (f" [{spread['min']:{fmt}}-{spread['max']:{fmt}}]" if spread.get("n", 1) > 1 else "")


def report(setting: str, doc: dict) -> list[str]:
    rows = []
    for fw in (doc.get("inter_host") or {}).get("frameworks", []):
        inter = fw.get("inter") or {}
        rows.append(
            f"{setting:>14}  {fw['framework']:<9} {fw['status']:<7} efficiency {_m(fw.get('efficiency'), '.2f')}  "
            f"inter/intra step {_m(fw.get('inter_over_intra_step'), '.2f')}  "
            f"step {_m(inter.get('step_ms'), '.1f')} ms  allreduce share {_m(inter.get('allreduce_share'), '.2f')}"
            + (f"  ({fw['reason']})" if fw.get("reason") else "")
        )
    return rows or [f"{setting:>14}  no inter-host block in the result"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--settings", default=DEFAULT_SETTINGS, help=f"comma list of RATE or RATE/DELAY (default {DEFAULT_SETTINGS})"
    )
    ap.add_argument("--frameworks", default="pytorch")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--loopback", action="store_true", help="skip the namespaces: the loopback fallback only")
    a = ap.parse_args()
    settings = [s.strip() for s in a.settings.split(",") if s.strip()]
    for s in settings:
        rate = s.partition("/")[0]
        if rate != "none":
            _bits(rate)
    missing, netem = ([], False) if a.loopback else capabilities()
    print(f"host load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (shared machine)", flush=True)
    with tempfile.TemporaryDirectory(prefix="advisor-netem-") as tmpdir:
        tmp = Path(tmpdir)
        if missing or a.loopback:
            print(
                "--loopback: no namespaces"
                if a.loopback
                else "netem benchmark not possible here; it needs: " + "; ".join(missing)
            )
            print("fallback: the 2 x 1 multi-node probe once on loopback (no link emulated)", flush=True)
            from probes.scaling.launch import free_port

            doc = two_nodes(f"127.0.0.1:{free_port()}", a, tmp)
            print("\n".join(report("loopback", doc)))
            return 0
        if not netem:
            dropped = [s for s in settings if "/" in s]
            settings = [s for s in settings if "/" not in s]
            print(
                "tc netem is not available in this kernel (`tc qdisc add ... netem`: unknown qdisc): "
                "bandwidth only, with tbf; no latency emulated" + (f"; skipped {', '.join(dropped)}" if dropped else "")
            )
        print(
            f"two namespaces, veth {ADDR[0]} <-> {ADDR[1]}, one rank each, {a.frameworks}, {a.steps} steps, batch {a.batch_size}"
        )
        failed = False
        with Link() as link:
            for i, setting in enumerate(settings):
                link.shape(setting, netem)
                env_for = lambda rank: {"GLOO_SOCKET_IFNAME": link.dev[rank]}  # noqa: E731
                try:
                    doc = two_nodes(f"{ADDR[0]}:{PORT + 10 * i}", a, tmp, link.wrap, env_for)
                except RuntimeError as exc:
                    print(f"{setting:>14}  failed: {exc}")
                    failed = True
                    continue
                print("\n".join(report(setting, doc)), flush=True)
        print(f"host load average: {os.getloadavg()[0]:.2f} at the end")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
