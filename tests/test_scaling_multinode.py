"""The scaling probe across hosts (probes/scaling/multinode.py), the allreduce share judged
against the control's noise (probes/scaling/share.py) and multi-node readiness (advisor/check_multinode.py).
Fast tests on fabricated data first; the real two-"host" runs on loopback are marked slow."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from advisor.check import multinode as cm
from probes.scaling import launch, multinode, runner, share
from probes.scaling.multinode import BadRendezvous, Rendezvous


def _spec(fw="pytorch", ranks=2, **kw):
    return launch.LaunchSpec(framework=fw, ranks=ranks, **kw)


def _outcome(ranks, sync, nosync, gate=True):
    """Rank docs with per-step lists (seconds) as the rank scripts write them."""
    docs = [{"sync_step_s": list(sync), "nosync_step_s": list(nosync), "init_seconds": 0.5} for _ in range(ranks)]
    doc = {"world_size": ranks, "backend": "gloo", "ranks": docs}
    if gate and ranks > 1:
        doc["gate"] = {"sync_max_abs_diff": 0.0, "nosync_max_abs_diff": 0.2, "param_count": 10}
    return launch.LaunchOutcome(status="ok", command=["torchrun"], result=doc, seconds=5.0)


# ---------------------------------------------------------------- 1. the allreduce share and noise


def test_one_rank_share_is_not_applicable_even_when_the_control_is_slower():
    # The measured symptom: the no-sync control slower than the synced step at 1 rank.
    run = runner.to_run(_spec(ranks=1), 1, _outcome(1, [0.010] * 6, [0.0118] * 6))
    assert run.allreduce_share is None
    assert run.allreduce_share_note == share.NOT_APPLICABLE
    assert run.sync_nosync_difference == pytest.approx(-0.18)  # kept as the raw noise floor
    fw = runner.summarise("pytorch", "lenet", [run], [1], "cpu", 32, 1)
    one = fw.rank_counts[0]
    assert one.allreduce_share is None and "nothing to allreduce" in one.allreduce_share_note
    assert share.cell(one) == "n/a (1 rank)"
    assert fw.allreduce_share is None
    warn = runner.noise_warnings([fw], {}, 2)  # the noise-floor warning still reads the raw figure
    assert any("noise floor" in w and "-18%" in w for w in warn)


def test_a_difference_inside_the_controls_noise_is_below_the_noise_with_its_spread():
    sync = [0.0100] * 8
    nosync = [0.0090, 0.0095, 0.0100, 0.0105, 0.0110, 0.0115, 0.0085, 0.0120]  # median 0.01025
    run = runner.to_run(_spec(ranks=2), 1, _outcome(2, sync, nosync))
    assert run.status == "ok" and run.allreduce_share is None
    note = run.allreduce_share_note
    assert note.startswith("below the noise") and "25-75% spread" in note and "8 steps" in note
    # the noise is derived from the IQR: 2 x sqrt(pi/2) x IQR/1.349 / sqrt(8), over the synced step
    lo, hi = share._quartiles(sorted(nosync))
    expected = 2 * share.MEDIAN_SE_FACTOR * (hi - lo) / 1.349 / 8**0.5 / 0.0100
    assert run.allreduce_noise == pytest.approx(expected)
    assert run.sync_nosync_difference == pytest.approx((0.0100 - 0.01025) / 0.0100)


def test_a_small_positive_difference_inside_the_noise_is_not_a_share():
    nosync = [0.006, 0.008, 0.010, 0.012, 0.014, 0.009, 0.011, 0.007]  # median 0.0095, wide
    run = runner.to_run(_spec(ranks=2), 1, _outcome(2, [0.0100] * 8, nosync))
    assert run.sync_nosync_difference == pytest.approx(0.05)
    assert run.allreduce_noise > 0.05 and run.allreduce_share is None


def test_a_difference_beyond_the_noise_is_the_share():
    nosync = [0.0059, 0.0060, 0.0061, 0.0060, 0.0062, 0.0058]
    run = runner.to_run(_spec(ranks=2), 1, _outcome(2, [0.0100] * 6, nosync))
    assert run.allreduce_share == pytest.approx(0.4) and run.allreduce_share_note is None
    assert run.allreduce_noise < 0.02


def test_a_control_slower_beyond_its_noise_is_never_a_negative_share():
    run = runner.to_run(_spec(ranks=2), 1, _outcome(2, [0.0100] * 6, [0.0130] * 6))
    assert run.allreduce_share is None and run.allreduce_share_note.startswith("below the noise")
    assert run.sync_nosync_difference == pytest.approx(-0.3)


def test_summary_counts_the_runs_below_the_noise():
    runs = [
        runner.to_run(_spec(ranks=1), 1, _outcome(1, [0.004] * 6, [0.004] * 6)),
        runner.to_run(_spec(ranks=2), 1, _outcome(2, [0.010] * 6, [0.006] * 6)),
        runner.to_run(_spec(ranks=1), 2, _outcome(1, [0.004] * 6, [0.004] * 6)),
        runner.to_run(_spec(ranks=2), 2, _outcome(2, [0.010] * 6, [0.011] * 6)),
    ]
    for i, r in enumerate(runs):
        r.repetition = i // 2 + 1
    fw = runner.summarise("pytorch", "lenet", runs, [1, 2], "cpu", 32, 1)
    two = fw.rank_counts[1]
    assert two.allreduce_share.n == 1 and two.allreduce_share.median == pytest.approx(0.4)
    assert two.allreduce_share_note.startswith("below the noise in 1 of 2 run(s)")
    assert share.cell(two) is None  # a share exists: the table prints it
    assert fw.allreduce_share == pytest.approx(0.4)


# ------------------------------------------------------------ 2. flags, command lines, pre-flight


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"nnodes": 2, "node_rank": 2, "master": "10.0.0.1"}, "--node-rank: 2; expected 0 to 1"),
        ({"nnodes": 2, "node_rank": -1, "master": "10.0.0.1"}, "--node-rank"),
        ({"nnodes": 2, "node_rank": 0, "master": None}, "--master: required"),
        ({"nnodes": 2, "node_rank": 0, "master": "h:80"}, "port 80; expected 1024 to 65535"),
        ({"nnodes": 2, "node_rank": 0, "master": "h:99999"}, "expected 1024 to 65535"),
        ({"nnodes": 2, "node_rank": 0, "master": "h:x"}, "expected HOST or HOST:PORT"),
        ({"nnodes": None, "node_rank": 1, "master": "h"}, "--nnodes: required"),
        ({"nnodes": 0, "node_rank": 0, "master": "h"}, "--nnodes: 0"),
        ({"nnodes": 2, "node_rank": None, "master": "h"}, "--node-rank: required"),
        ({"nnodes": 2, "node_rank": 0, "master": "h", "ranks_per_node": 0}, "--ranks-per-node"),
        ({"nnodes": 2, "node_rank": 0, "master": "h", "timeout": 1}, "--rendezvous-timeout"),
    ],
)
def test_bad_flags_name_the_flag(kw, words):
    with pytest.raises(BadRendezvous, match=None) as exc:
        multinode.validate(**kw)
    assert words in str(exc.value)


def test_master_forms():
    assert multinode.parse_master("10.1.2.3") == ("10.1.2.3", multinode.DEFAULT_PORT)
    assert multinode.parse_master("node0:29555") == ("node0", 29555)
    assert multinode.parse_master("[fe80::1]:29555") == ("fe80::1", 29555)
    r = multinode.validate(2, 1, "[::1]:29555", 4, 20)
    assert r.world == 8 and r.endpoint == "[::1]:29555" and r.timeout == 20


@pytest.mark.parametrize(
    "argv",
    [
        ["--nnodes", "2", "--node-rank", "2", "--master", "127.0.0.1"],
        ["--nnodes", "2", "--node-rank", "0"],
        ["--node-rank", "1", "--master", "127.0.0.1"],
        ["--nnodes", "2", "--node-rank", "0", "--master", "127.0.0.1:70000"],
        ["--nnodes", "2", "--node-rank", "0", "--master", "127.0.0.1", "--ranks", "1,2"],
    ],
)
def test_cli_bad_flags_exit_2_with_one_line(argv):
    p = subprocess.run(
        [sys.executable, "-m", "advisor", "probe", "--scaling", *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert p.returncode == 2, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "error:" in lines[0] and "Traceback" not in p.stderr


def _mspec(fw, node_rank=0, nnodes=2, k=1, port=29500):
    r = Rendezvous(nnodes, node_rank, "10.0.0.1", port, k, 45.0, run_id="advisor-x-1")
    return launch.LaunchSpec(framework=fw, ranks=r.world, rendezvous=r, steps=4)


def test_torchrun_multinode_command_uses_its_own_c10d_rendezvous(tmp_path):
    cmd, result_dir, _ = launch.build_command(_mspec("pytorch", node_rank=1, k=2), tmp_path)
    for flag in (
        "--nnodes=2",
        "--node-rank=1",
        "--nproc_per_node=2",
        "--rdzv-backend=c10d",
        "--rdzv-endpoint=10.0.0.1:29500",
        "--rdzv-id=advisor-x-1",
        "--max-restarts=0",
        "--rdzv-conf=join_timeout=45,read_timeout=45,is_host=false",
    ):
        assert flag in cmd, flag
    assert "--standalone" not in cmd and result_dir.is_dir()
    # node 0 hosts the rendezvous store whatever its hostname resolves to (a second NIC as --master)
    node0, _, _ = launch.build_command(_mspec("pytorch", node_rank=0, k=2), tmp_path / "n0")
    assert "--rdzv-conf=join_timeout=45,read_timeout=45,is_host=true" in node0


def test_msrun_multinode_command(tmp_path):
    cmd, _, log_dir = launch.build_command(_mspec("mindspore", node_rank=1, nnodes=3, k=2, port=30001), tmp_path)
    for flag in (
        "--worker_num=6",
        "--local_worker_num=2",
        "--master_addr=10.0.0.1",
        "--master_port=30001",
        "--node_rank=1",
        "--join=True",
        "--cluster_time_out=45",
        f"--log_dir={log_dir}",
    ):
        assert flag in cmd, flag


def test_multinode_environment_names_node_and_interface(monkeypatch):
    monkeypatch.delenv("GLOO_SOCKET_IFNAME", raising=False)
    monkeypatch.setattr(multinode, "route_interface", lambda addr: ("eth7", "10.0.0.2"))
    env = launch.launch_environment(_mspec("pytorch", node_rank=1), "m")
    assert env["GLOO_SOCKET_IFNAME"] == "eth7"  # not lo: the ranks talk across hosts
    assert env["ADVISOR_SCALING_NNODES"] == "2" and env["ADVISOR_SCALING_NODE_RANK"] == "1"
    monkeypatch.setenv("GLOO_SOCKET_IFNAME", "ib0")
    assert launch.launch_environment(_mspec("pytorch"), "m")["GLOO_SOCKET_IFNAME"] == "ib0"  # the user's


def test_preflight_node0_port_in_use_and_foreign_address():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        why = multinode.preflight(Rendezvous(2, 0, "127.0.0.1", port, 1, 5.0), "pytorch")
    assert f"port {port}" in why and "in use" in why
    # 192.0.2.1 (TEST-NET-1, RFC 5737) is never this host's; bind only, nothing is sent
    why = multinode.preflight(Rendezvous(2, 0, "192.0.2.1", 29500, 1, 5.0), "pytorch")
    assert "not an address of this host" in why
    assert multinode.preflight(Rendezvous(2, 0, "127.0.0.1", launch.free_port(), 1, 5.0), "pytorch") is None


def test_preflight_missing_master_fails_within_its_bound(monkeypatch):
    monkeypatch.setenv("GLOO_SOCKET_IFNAME", "lo")
    why = multinode.preflight(Rendezvous(2, 1, "127.0.0.1", launch.free_port(), 1, 2.0), "pytorch", poll=0.2)
    assert "within 2 s" in why and "refused" in why and "GLOO_SOCKET_IFNAME=lo" in why
    why = multinode.preflight(
        Rendezvous(2, 1, "127.0.0.1", launch.free_port(), 1, 0.5), "mindspore", "Ascend", poll=0.2
    )
    assert "HCCL_IF_IP" in why and "HCCL_SOCKET_IFNAME" in why and "HCCL_CONNECT_TIMEOUT" in why


def test_diagnose_names_cause_and_settings(monkeypatch):
    monkeypatch.delenv("NCCL_SOCKET_IFNAME", raising=False)
    r = Rendezvous(2, 0, "10.0.0.1", 29500, 8, 60.0)
    text = multinode.diagnose("pytorch", "cuda", r, "torchrun exit code 1", "RendezvousTimeoutError", 61)
    assert "did not all join within the rendezvous timeout 60 s" in text and "NCCL_SOCKET_IFNAME" in text
    text = multinode.diagnose("pytorch", "cpu", r, "x", "OSError: [Errno 98] Address already in use", 1)
    assert "port 29500" in text and "GLOO_SOCKET_IFNAME" in text


# ------------------------------------------------------------------------------ 3. the link


def test_link_speed_from_sysfs_fixture(tmp_path):
    (tmp_path / "eth0").mkdir()
    (tmp_path / "eth0" / "speed").write_text("25000\n")
    (tmp_path / "wg0").mkdir()
    (tmp_path / "wg0" / "speed").write_text("-1\n")
    assert multinode.link_speed("eth0", str(tmp_path)) == (25000, f"read from {tmp_path / 'eth0' / 'speed'}")
    assert multinode.link_speed("wg0", str(tmp_path))[0] is None
    assert multinode.link_speed("lo", str(tmp_path))[0] is None
    assert multinode.link_speed(None, str(tmp_path)) == (None, "interface unknown")


def test_route_interface_maps_the_source_address():
    assert multinode.route_interface(
        "127.0.0.1", addresses=lambda n: {"lo": "127.0.0.1"}.get(n), names=["eth0", "lo"]
    ) == ("lo", "127.0.0.1")
    assert multinode.route_interface("127.0.0.1")[1] == "127.0.0.1"  # the real one on loopback


# ------------------------------------------------------------- 4. advisor check: multi-node readiness


MN = Path(__file__).parent / "fixtures" / "multinode"


def _codes(found):
    assert all(set(f) == {"severity", "code", "message", "fix"} for f in found)
    assert all(f["severity"] in ("info", "warning", "error") for f in found)
    return {f["code"]: f for f in found}


def test_interfaces_and_speeds_from_a_sysfs_fixture():
    ifaces = {i["name"]: i for i in cm.interfaces(str(MN / "net"))}
    assert ifaces["lo"]["loopback"] and ifaces["eth0"]["speed_mbps"] == 1000
    assert ifaces["eth1"]["speed_mbps"] is None and ifaces["docker0"]["speed_mbps"] is None
    codes = _codes(cm.findings({}, str(MN / "net")))
    msg = codes["multinode.interfaces"]["message"]
    assert "eth0 (up, 1000 Mb/s)" in msg and "eth1 (down, speed unreadable)" in msg and "lo (" not in msg
    assert codes["multinode.slow_link"]["severity"] == "warning" and "eth0" in codes["multinode.slow_link"]["message"]
    assert "none set" in codes["multinode.env"]["message"]
    assert cm.findings({}, str(MN / "absent"))[0]["code"] == "multinode.no_interfaces"


def test_env_settings_are_shown_and_a_missing_interface_is_an_error():
    env = {
        "GLOO_SOCKET_IFNAME": "eth0",
        "NCCL_SOCKET_IFNAME": "ib",
        "HCCL_SOCKET_IFNAME": "eth9",
        "HCCL_CONNECT_TIMEOUT": "60",
    }
    codes = _codes(cm.findings(env, str(MN / "net")))
    assert "GLOO_SOCKET_IFNAME=eth0" in codes["multinode.env"]["message"]
    bad = codes["multinode.ifname_missing"]
    assert bad["severity"] == "error" and "HCCL_SOCKET_IFNAME=eth9" in bad["message"]
    # no ib* interface in the fixture (docker0, eth0, eth1, lo): NCCL's prefix "ib" matches none
    missing = [f["message"] for f in cm.findings(env, str(MN / "net")) if f["code"] == "multinode.ifname_missing"]
    assert any(m.startswith("NCCL_SOCKET_IFNAME=ib: no interface ib") for m in missing), missing
    # ...while the prefix "eth" matches eth0/eth1 and is not flagged
    assert "multinode.ifname_missing" not in _codes(cm.findings({"NCCL_SOCKET_IFNAME": "eth"}, str(MN / "net")))
    assert "HCCL_CONNECT_TIMEOUT=60" in codes["multinode.hccl_timeout_short"]["message"]
    assert (
        _codes(cm.findings({"HCCL_CONNECT_TIMEOUT": "soon"}, str(MN / "net")))["multinode.hccl_timeout_bad"]["severity"]
        == "error"
    )


def test_port_free_or_in_use():
    assert _codes(cm.port_findings(29500, lambda p: True))["multinode.port_free"]["severity"] == "info"
    used = _codes(cm.port_findings(29500, lambda p: False))["multinode.port_in_use"]
    assert used["severity"] == "warning" and "--master HOST:PORT" in used["fix"]
    with socket.socket() as s:  # the real check against a port that is really in use
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        assert not multinode.port_free("127.0.0.1", port)
    assert multinode.port_free("127.0.0.1", launch.free_port())


@pytest.mark.parametrize(
    "name, severity, words",
    [
        ("rank_table_ok.json", "info", "2 server(s), 4 device(s), rank ids 0..3"),
        ("rank_table_dup_rank.json", "error", "rank_id"),
        ("rank_table_no_servers.json", "error", "server_list: missing or empty"),
        ("rank_table_truncated.json", "error", "not JSON"),
        ("nope.json", "error", "does not exist"),
    ],
)
def test_rank_table_file_validity(name, severity, words):
    found = cm.rank_table_findings({"RANK_TABLE_FILE": str(MN / name)}, npus=8)
    assert len(found) == 1 and found[0]["severity"] == severity and words in found[0]["message"]


def test_rank_table_problems_name_each_field():
    doc = {
        "server_count": "3",
        "server_list": [{"server_id": "a", "device": [{"device_id": "0", "rank_id": "1"}]}, {"device": []}],
        "status": "x",
    }
    problems = " | ".join(cm.rank_table_problems(doc))
    for words in (
        "server_count 3 but server_list has 2",
        "no device_ip",
        "server_list[1]: no server_id",
        "expected 0..0 each once",
        "status 'x'",
    ):
        assert words in problems, words
    assert cm.rank_table_findings({}, npus=0) == []  # not an Ascend host and nothing set: nothing to say


def test_multinode_findings_on_this_host_are_well_formed():
    _codes(cm.multinode_findings())


# --------------------------------------- 5. two "hosts" on one machine (loopback only), real engines

ROOT = Path(__file__).resolve().parents[1]


def _node(tmp_path, fw, rank, port, timeout=60, extra=()):
    d = tmp_path / f"node{rank}"
    d.mkdir(exist_ok=True)
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
        f"127.0.0.1:{port}",
        "--frameworks",
        fw,
        "--repeat",
        "1",
        "--scaling-steps",
        "4",
        "--batch-size",
        "8",
        "--threads",
        "1",
        "--no-intra-host",
        "--rendezvous-timeout",
        str(timeout),
        "-o",
        str(d / "out.json"),
        *extra,
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(argv, cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), d


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("fw", ["pytorch", "mindspore"])
def test_two_hosts_on_loopback_really_sync_and_node0_writes_once(tmp_path, fw):
    pytest.importorskip("torch" if fw == "pytorch" else "mindspore")
    from probes.scaling.models import ScalingResult

    port = launch.free_port()
    p0, d0 = _node(tmp_path, fw, 0, port)
    time.sleep(1.0)
    p1, d1 = _node(tmp_path, fw, 1, port)
    _, err1 = p1.communicate(timeout=200)
    _, err0 = p0.communicate(timeout=200)
    assert p0.returncode == 0, err0[-3000:]
    assert p1.returncode == 0, err1[-3000:]
    assert "node 0 (127.0.0.1) gathers and writes the result" in err1
    assert (d0 / "out.json").exists() and not (d1 / "out.json").exists()  # written once, by node 0
    res = ScalingResult.model_validate_json((d0 / "out.json").read_text())
    run = res.runs[0]
    assert len(res.runs) == 1 and run.nnodes == 2 and run.world_size == 2 and run.status == "ok"
    assert run.gate.params_identical and run.gate.sync_max_abs_diff <= runner.SYNC_TOLERANCE
    assert run.gate.control_diverged  # the check can fail: unsynced ranks did move apart
    block = res.inter_host
    assert block.nnodes == 2 and block.world_size == 2 and block.link.interface == "lo" and block.link.loopback
    assert block.frameworks[0].status == "ok" and block.frameworks[0].gate_ok
    assert any("loopback" in w for w in res.warnings)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_missing_peer_fails_within_its_stated_bound(tmp_path):
    pytest.importorskip("torch")
    bound = 8
    p0, d0 = _node(tmp_path, "pytorch", 0, launch.free_port(), timeout=bound)
    p0.communicate(timeout=100)
    # Ended by its own rendezvous bound (named below), not by the test's timeout or a peer.
    assert p0.returncode == 1
    res = (d0 / "out.json").read_text()
    assert "did not all join within the rendezvous timeout 8 s" in res and "GLOO_SOCKET_IFNAME" in res


def test_inter_host_block_pairs_inter_and_intra_by_repetition():
    from probes.scaling.models import InterHost

    r = Rendezvous(2, 0, "127.0.0.1", 29500, 1, 30.0)
    spec_inter = launch.LaunchSpec(framework="pytorch", ranks=2, rendezvous=r, batch_size=32)
    inter, intra = [], []
    for rep, (s_inter, s_intra, s_one) in enumerate([(0.020, 0.010, 0.005), (0.024, 0.012, 0.006)], 1):
        run = runner.to_run(spec_inter, rep, _outcome(2, [s_inter] * 6, [0.006] * 6))
        run.nnodes = 2
        inter.append(run)
        intra.append(runner.to_run(_spec(ranks=2, batch_size=32), rep, _outcome(2, [s_intra] * 6, [0.006] * 6)))
        intra.append(runner.to_run(_spec(ranks=1, batch_size=32), rep, _outcome(1, [s_one] * 6, [s_one] * 6)))
    link = {
        "interface": "eth0",
        "source_address": "10.0.0.1",
        "speed_mbps": 25000,
        "speed_source": "read from /sys/class/net/eth0/speed",
        "loopback": False,
    }
    block = InterHost.model_validate(multinode.inter_host_block(r, link, inter, intra, ["pytorch"], ["lenet"]))
    fw = block.frameworks[0]
    assert fw.status == "ok" and fw.gate_ok and fw.world_size == 2 and block.link.speed_mbps == 25000
    assert fw.inter_over_intra_step.median == pytest.approx(2.0) and fw.inter_over_intra_step.n == 2
    # efficiency = img/s across hosts / (2 x img/s of 1 rank): 0.005/0.020 and 0.006/0.024
    assert fw.efficiency.median == pytest.approx(0.25)
    assert fw.inter.allreduce_share.median == pytest.approx(1 - 0.006 / 0.022, rel=0.1)
    assert fw.intra.step_ms.median == pytest.approx(11.0)
    from advisor.render.tables.scaling import summary_lines

    lines = summary_lines(block)
    assert "eth0" in lines[0] and "25000 Mb/s" in lines[0] and "gate ok" in lines[1]


def test_the_first_rendezvous_timeout_ends_the_run(monkeypatch):
    """A missing peer: one rendezvous timeout, not one per repetition (3 x 60 s before).
    launch_one is replaced by the outcome a real timeout produces (the text diagnose() writes)."""
    from probes.scaling import launch, runner
    from probes.scaling.models import ScalingConfig

    calls = []

    def timed_out(spec, cancel=None, on_line=None):
        calls.append(spec.framework)
        r = spec.rendezvous
        error = multinode.diagnose(
            spec.framework, "cpu", r, "the cluster did not form within the rendezvous timeout 60 s", "", 60.0
        )
        return launch.LaunchOutcome(status="failed", command=["torchrun"], error=error, seconds=60.0)

    monkeypatch.setattr(multinode, "launch_one", timed_out)
    monkeypatch.setattr(runner, "framework_available", lambda fw: None)
    rdzv = multinode.validate(2, 1, "127.0.0.1:29400", 1, 60)
    lines: list[str] = []
    ok, runs = multinode.run_multinode(
        ScalingConfig(frameworks=["pytorch", "mindspore"], repeat=3), rdzv, on_line=lines.append
    )
    assert not ok and len(calls) == 1 and len(runs) == 1
    assert any("stopping: a node did not join; 5 launch(es) not started" in line for line in lines)


def test_a_failed_rank_does_not_end_the_run(monkeypatch):
    from probes.scaling import launch, runner
    from probes.scaling.models import ScalingConfig

    calls = []

    def crashed(spec, cancel=None, on_line=None):
        calls.append(spec.framework)
        error = multinode.diagnose(spec.framework, "cpu", spec.rendezvous, "exit 1", "ZeroDivisionError", 2.0)
        return launch.LaunchOutcome(status="failed", command=["torchrun"], error=error, seconds=2.0)

    monkeypatch.setattr(multinode, "launch_one", crashed)
    monkeypatch.setattr(runner, "framework_available", lambda fw: None)
    rdzv = multinode.validate(2, 1, "127.0.0.1:29400", 1, 60)
    multinode.run_multinode(ScalingConfig(frameworks=["pytorch"], repeat=3), rdzv, on_line=lambda line: None)
    assert len(calls) == 3
