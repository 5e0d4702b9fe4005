"""Ascend probe: every npu-smi layout in facts.md (fixtures in real formats: this machine has no NPU),
a fake npu-smi on PATH, CANN/driver version files with both toolkit layouts and env variables."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import probes.check.ascend as ascend

FIX = Path(__file__).parent / "fixtures" / "check"


def parse(name):
    return ascend.parse_npu_smi_info((FIX / name).read_text())


def test_910b_hbm_layout_npu_id_not_zero():
    out = parse("npu-smi-910b3-single.txt")
    assert out["version"] == "23.0.1"
    [chip] = out["chips"]
    assert (chip["npu_id"], chip["chip_id"], chip["name"], chip["health"]) == (4, 0, "910B3", "OK")
    assert (chip["memory_used_mb"], chip["memory_total_mb"]) == (3161, 65536)  # HBM, not Memory-Usage 0/0
    assert (chip["power_w"], chip["temperature_c"], chip["bus_id"]) == (93.6, 40, "0000:01:00.0")
    [acc] = ascend.chips_to_accelerators(out["chips"])
    assert (acc.vendor, acc.index, acc.npu_id) == ("huawei", 0, 4)


def test_910b4_no_space_before_slash_and_process_rows():
    out = parse("npu-smi-910b4-busy.txt")
    accs = ascend.chips_to_accelerators(out["chips"])
    assert [a.npu_id for a in accs] == [12, 13] and [a.index for a in accs] == [0, 1]
    assert (accs[1].memory_used_mb, accs[1].memory_total_mb) == (29811, 32768)  # "29811/ 32768"
    assert [(p.pid, p.name, p.memory_mb) for p in accs[1].processes] == [(208113, "python3", 26410)]
    assert accs[0].processes == []


def test_old_memory_usage_only_layout_with_na_cells():
    out = parse("npu-smi-310p3-old.txt")
    chips = out["chips"]
    assert out["version"] == "22.0.4" and len(chips) == 3
    assert [(c["npu_id"], c["chip_id"], c["device_id"]) for c in chips] == [(1792, 0, 0), (1792, 1, 1), (7, 0, None)]
    assert (chips[0]["memory_used_mb"], chips[0]["memory_total_mb"]) == (1821, 44280)
    assert chips[0]["power_w"] is None  # "NA"
    assert (chips[2]["memory_used_mb"], chips[2]["memory_total_mb"]) == (41697, 65536)  # "41697/ 65536"
    assert chips[2]["health"] == "Alarm"
    assert [p["pid"] for p in chips[2]["processes"]] == [3321]
    # Device ids incomplete (NA): indices fall back to positions, still unique
    assert [a.index for a in ascend.chips_to_accelerators(chips)] == [0, 1, 2]


def test_atlas_a3_two_chips_per_npu():
    out = parse("npu-smi-910c-a3-16chips.txt")
    accs = ascend.chips_to_accelerators(out["chips"])
    assert len(accs) == 16
    assert [a.index for a in accs] == list(range(16))  # Phy-ID column
    assert [(a.npu_id, a.chip_id) for a in accs[:4]] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert accs[0].power_w == 170.0 and accs[1].power_w is None  # "-" on the second chip
    assert all(a.name == "Ascend910" and a.memory_total_mb == 65536 for a in accs)
    assert accs[6].memory_used_mb == 59807  # "59807/ 65536"
    busy = [(a.npu_id, a.chip_id, [p.pid for p in a.processes]) for a in accs if a.processes]
    assert busy == [(3, 0, [1774110]), (3, 1, [1777209])]


def test_garbage_and_empty_input():
    assert ascend.parse_npu_smi_info("")["chips"] == []
    assert ascend.parse_npu_smi_info("| 3  910B3 | OK |\nrandom\n")["chips"] == []


@pytest.fixture
def fake_npu(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(FIX / "fakebin-ascend") + os.pathsep + os.environ["PATH"])
    dev = tmp_path / "dev"
    dev.mkdir()
    for i in range(16):
        (dev / f"davinci{i}").touch()
    for name in ("davinci_manager", "devmm_svm", "hisi_hdc"):
        (dev / name).touch()
    for var in ("ASCEND_RT_VISIBLE_DEVICES", "ASCEND_DEVICE_ID", "ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"):
        monkeypatch.delenv(var, raising=False)
    return dev


def test_fake_npu_smi_detects_sixteen_chips(fake_npu):
    info, accs = ascend.collect_ascend(dev_root=str(fake_npu))
    assert info.status == "ok" and info.chip_count == 16 and len(accs) == 16
    assert info.smi_version == "24.1.rc3.3"
    assert len([n for n in info.device_nodes if n.rsplit("/", 1)[1].startswith("davinci")]) == 17
    assert info.device_nodes[:3] == [str(fake_npu / f"davinci{i}") for i in (0, 1, 2)]  # numeric order
    assert info.visible_devices is None


def test_fake_npu_smi_other_layout(fake_npu, monkeypatch):
    monkeypatch.setenv("FAKE_NPU_SMI_FIXTURE", "npu-smi-910b4-busy.txt")
    monkeypatch.setenv("ASCEND_DEVICE_ID", "1")
    info, accs = ascend.collect_ascend(dev_root=str(fake_npu))
    assert [a.npu_id for a in accs] == [12, 13] and info.visible_devices == "1"


def test_failing_npu_smi_is_failed_not_raised(monkeypatch, tmp_path):
    smi = tmp_path / "npu-smi"
    smi.write_text(
        "#!/bin/sh\necho 'dcmi model initialized failed, because the device is used. ret is -8020' >&2\nexit 255\n"
    )
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    info, accs = ascend.collect_ascend(dev_root=str(tmp_path))
    assert info.status == "failed" and "-8020" in info.reason and accs == []


def test_no_ascend_at_all(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    info, accs = ascend.collect_ascend(dev_root=str(tmp_path))
    assert (info.status, accs) == ("absent", [])


@pytest.mark.parametrize(
    "text,version",
    [
        ("runtime_running_version=[7.3.0.1.231:8.0.RC2]\n", "8.0.RC2"),
        ("package_name=Ascend-cann-toolkit\nversion=8.0.RC3\n", "8.0.RC3"),
        ("Version=24.1.rc3\nascendhal_version=7.35.23\n", "24.1.rc3"),
        ("nothing here\n", None),
    ],
)
def test_version_files(text, version):
    assert ascend.parse_version_file(text) == version


def test_cann_old_layout_from_toolkit_home():
    root = FIX / "cann-old" / "ascend-toolkit" / "latest"
    env = {"ASCEND_TOOLKIT_HOME": str(root), "LD_LIBRARY_PATH": f"{root}/lib64:{root}/lib64/plugin/opskernel"}
    info = ascend.find_cann(env, default_roots=[])
    assert info.version == "8.0.RC2" and info.path == str(root) and info.version_file.endswith("version.cfg")
    assert info.env_home == str(root) and info.lib_on_ld_path is True


def test_cann_85_layout_from_home_path_not_sourced():
    root = FIX / "cann-85" / "cann"
    info = ascend.find_cann({"ASCEND_HOME_PATH": str(root), "LD_LIBRARY_PATH": "/usr/lib"}, default_roots=[])
    assert info.version == "8.5.0" and info.version_file.endswith("aarch64-linux/ascend_toolkit_install.info")
    assert info.lib_on_ld_path is False


def test_cann_found_in_default_place_without_env():
    info = ascend.find_cann({}, default_roots=[str(FIX / "nope"), str(FIX / "cann-85" / "cann")])
    assert info.version == "8.5.0" and info.env_home is None


def test_driver_version():
    assert ascend.find_driver_version([str(FIX / "nope"), str(FIX / "driver")]) == "24.1.rc3"
    assert ascend.find_driver_version([str(FIX / "nope")]) is None


def test_npu_id_column_layout_of_newer_tools():
    out = parse("npu-smi-950-npu-id-column.txt")
    accs = ascend.chips_to_accelerators(out["chips"])
    assert [(a.npu_id, a.name, a.health) for a in accs] == [
        (0, "Ascend950DT", "OK"),
        (1, "Ascend950DT", "OK"),
        (7, "Ascend950DT", "Warning"),
    ]
    assert [a.index for a in accs] == [0, 1, 2] and accs[0].bus_id is None
    assert (accs[2].memory_used_mb, accs[2].memory_total_mb, accs[2].utilization_pct) == (91000, 98304, 42)
    assert accs[0].power_w == 398.6 and accs[0].temperature_c == 46
