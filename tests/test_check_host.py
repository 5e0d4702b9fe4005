"""Host probe: /proc/cpuinfo layouts, cgroup v1/v2 limits (fixture trees), container-aware counts."""

from __future__ import annotations

from pathlib import Path

import pytest

import probes.check.host as host
from probes.check.models import CgroupLimits

FIX = Path(__file__).parent / "fixtures" / "check"


def test_cpuinfo_x86_flags_and_physical_cores():
    info = host.parse_cpuinfo((FIX / "cpuinfo-x86-sapphire-rapids.txt").read_text())
    assert info["model"] == "Intel(R) Xeon(R) Platinum 8480+"
    assert info["vendor"] == "GenuineIntel"
    assert info["logical_cores"] == 8
    assert info["physical_cores"] == 4  # 2 sockets x 2 cores, hyper-threads not counted
    for flag in ("avx2", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16", "amx_int8", "avx_vnni"):
        assert flag in info["flags"]
    assert "sse2" not in info["flags"]  # only the flags that decide ML kernels
    assert info["frequency_mhz"] == 2000.0


def test_cpuinfo_arm_neon_and_sve():
    info = host.parse_cpuinfo((FIX / "cpuinfo-arm-kunpeng.txt").read_text())
    assert info["vendor"] == "HiSilicon"
    assert info["logical_cores"] == 4
    assert {"neon", "asimd", "sve", "sve2", "bf16", "i8mm"} <= set(info["flags"])
    assert "avx2" not in info["flags"]


@pytest.mark.parametrize("text,count", [("0-3,8-11", 8), ("5", 1), ("0-63\n", 64), ("", None), ("x", None)])
def test_cpu_list(text, count):
    assert host.parse_cpu_list(text) == count


def test_cgroup_v2_nested_limits_take_the_smallest_ancestor():
    limits = host.read_cgroup_limits(FIX / "cgroup-v2", FIX / "proc-cgroup-v2.txt")
    assert limits.version == 2
    assert limits.cpu_quota == 2.0  # ctr 2 CPUs under kubepods' 4
    assert limits.memory_limit_mb == 8192  # the pod's 8 GiB applies to the container
    assert limits.memory_usage_mb == 1024
    assert limits.cpuset_cpus == 64


def test_cgroup_v2_container_sees_its_cgroup_as_root(tmp_path):
    # With a cgroup namespace the process sees "0::/" and the limits at the mount itself.
    (tmp_path / "cgroup.controllers").write_text("cpu memory\n")
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    (tmp_path / "memory.max").write_text("2147483648\n")
    proc = tmp_path / "self-cgroup"
    proc.write_text("0::/\n")
    limits = host.read_cgroup_limits(tmp_path, proc)
    assert (limits.cpu_quota, limits.memory_limit_mb) == (1.5, 2048)


def test_cgroup_v1_quota_memory_cpuset():
    limits = host.read_cgroup_limits(FIX / "cgroup-v1", FIX / "proc-cgroup-v1.txt")
    assert limits.version == 1
    assert limits.cpu_quota == 1.5
    assert limits.memory_limit_mb == 4096  # the root's "unlimited" 9223372036854771712 is ignored
    assert limits.memory_usage_mb == 512
    assert limits.cpuset_cpus == 8


def test_cgroup_missing_tree_is_empty_not_an_error(tmp_path):
    limits = host.read_cgroup_limits(tmp_path / "nothing", tmp_path / "nothing-either")
    assert limits == CgroupLimits()


def test_container_limited_to_two_cpus_does_not_report_64(monkeypatch):
    monkeypatch.setattr(
        host,
        "read_cgroup_limits",
        lambda *a, **k: CgroupLimits(version=2, cpu_quota=2.0, memory_limit_mb=4096, memory_usage_mb=1024),
    )
    monkeypatch.setattr(host.os, "cpu_count", lambda: 64)
    monkeypatch.setattr(host.os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    monkeypatch.setattr(host, "parse_meminfo", lambda text: {"total_mb": 257_000, "available_mb": 250_000})
    info = host.collect_host()
    assert info.cpu.logical_cores == 2
    assert info.cpu.host_logical_cores == 64
    assert info.cpu.physical_cores <= 2
    assert "quota" in info.cpu.limited_by
    assert info.memory.total_mb == 4096 and info.memory.available_mb == 3072
    assert info.memory.host_total_mb == 257_000
    assert info.container.detected


def test_collect_host_on_this_machine_is_consistent():
    info = host.collect_host()
    assert info.python and info.kernel
    assert 1 <= info.cpu.logical_cores <= info.cpu.host_logical_cores
    assert info.memory.total_mb > 0 and 0 <= info.memory.available_mb <= info.memory.total_mb
    assert info.disk is not None and info.disk.free_mb is not None
