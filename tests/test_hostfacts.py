"""Host facts have one home (probes/hostfacts.py): every user reads the same numbers."""

from probes import hostfacts
from probes.check import host
from probes.training import runner
from probes.check.models import CgroupLimits
from probes.scaling import runner as scaling_runner


def test_cpu_limit_takes_the_smallest_of_affinity_cpuset_and_quota():
    assert hostfacts.cpu_limit(64, 64, CgroupLimits()) == (64, None)
    assert hostfacts.cpu_limit(64, 8, CgroupLimits()) == (8, "cpu affinity / cpuset")
    assert hostfacts.cpu_limit(64, 64, CgroupLimits(cpuset_cpus=4)) == (4, "cgroup cpuset")
    assert hostfacts.cpu_limit(64, 64, CgroupLimits(cpu_quota=1.5)) == (2, "cgroup CPU quota 1.5")
    assert hostfacts.cpu_limit(None, 3, CgroupLimits()) == (3, None)


def test_every_user_counts_the_same_cores():
    cores = hostfacts.usable_cores()
    assert cores >= 1
    assert runner.usable_cores() == scaling_runner.usable_cores() == cores
    assert host.collect_host().cpu.logical_cores == cores


def test_davinci_nodes_are_the_numbered_ones_in_order(tmp_path):
    for name in ("davinci10", "davinci2", "davinci_manager", "devmm_svm", "davinciX"):
        (tmp_path / name).write_text("")
    assert hostfacts.davinci_nodes(str(tmp_path)) == [str(tmp_path / "davinci2"), str(tmp_path / "davinci10")]
    assert hostfacts.davinci_nodes(str(tmp_path / "missing")) == []


def test_installed_locates_without_importing():
    assert hostfacts.installed("json") and not hostfacts.installed("no_such_module_here_x")
    assert not hostfacts.installed("")  # an odd name is "not installed", not an error
    fws = hostfacts.installed_frameworks()
    assert set(fws) == {"pytorch", "mindspore"} and all("version" in v for v in fws.values())


def test_fingerprint_is_cheap_and_matches_the_probe_summary():
    summary = runner.host_summary()
    assert summary.fingerprint == hostfacts.fingerprint() == runner.fingerprint(summary)
    assert hostfacts.fingerprint(cores=summary.logical_cores + 1) != summary.fingerprint


def test_cpu_times_and_steal():
    before = hostfacts.cpu_times("cpu 10 0 10 70 5 0 0 5\n")
    after = hostfacts.cpu_times("cpu 20 0 20 140 10 0 0 10\n")
    assert before == {"idle": 75, "steal": 5, "total": 100, "busy": 20}
    assert hostfacts.steal_fraction(before, after) == 0.05
    assert hostfacts.cpu_times("garbage") is None
