"""NVIDIA probe: nvidia-smi CSV parsers on fixtures, a fake nvidia-smi on PATH (this machine has no
NVIDIA GPU, so its outputs are recorded-format fixtures), and the NVML path with a stand-in module."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

import probes.check.nvidia as nvidia

FIX = Path(__file__).parent / "fixtures" / "check"


def test_parse_query_gpu_eight_h100():
    gpus, driver = nvidia.parse_query_gpu((FIX / "nvidia-smi-query-gpu-8x-h100.csv").read_text())
    assert driver == "550.54.15"
    assert [g.index for g in gpus] == list(range(8))
    g2 = gpus[2]
    assert g2.name == "NVIDIA H100 80GB HBM3"
    assert (g2.memory_total_mb, g2.memory_used_mb, g2.utilization_pct) == (81559, 71234, 97)
    assert g2.compute_capability == "9.0" and g2.bus_id == "00000000:38:00.0"
    assert gpus[7].power_w is None  # "[N/A]"
    assert gpus[0].power_w == pytest.approx(69.5)


def test_parse_compute_apps_and_cuda_version():
    apps = nvidia.parse_compute_apps((FIX / "nvidia-smi-compute-apps.csv").read_text())
    five = apps["GPU-51b2c3d4-5e6f-7081-92a3-b4c5d6e7f805"]
    assert [(p.pid, p.memory_mb) for p in five] == [(48212, 71220), (50990, None)]
    assert nvidia.parse_compute_apps("") == {}
    assert nvidia.parse_cuda_version((FIX / "nvidia-smi-plain.txt").read_text()) == "12.4"


@pytest.fixture
def fake_smi_path(monkeypatch):
    monkeypatch.setenv("PATH", str(FIX / "fakebin-nvidia") + os.pathsep + os.environ["PATH"])
    monkeypatch.setattr(nvidia, "_load_nvml", lambda: (None, "NVML Shared Library Not Found"))


def test_fake_nvidia_smi_detects_eight_gpus_with_processes(fake_smi_path):
    info, gpus = nvidia.collect_nvidia()
    assert info.status == "ok" and info.source == "nvidia-smi"
    assert info.gpu_count == 8 and len(gpus) == 8
    assert info.driver_version == "550.54.15" and info.cuda_driver_version == "12.4"
    assert "NVML unavailable" in info.notes[0]
    busy = {g.index: len(g.processes) for g in gpus if g.processes}
    assert busy == {2: 1, 5: 2}


def test_old_driver_without_compute_cap_field(fake_smi_path, monkeypatch):
    monkeypatch.setenv("FAKE_SMI_OLD_DRIVER", "1")
    info, gpus = nvidia.collect_nvidia()
    assert info.status == "ok" and len(gpus) == 8
    assert all(g.compute_capability is None for g in gpus)
    assert gpus[2].memory_used_mb == 71234


def test_no_driver_at_all_is_absent(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(nvidia, "_load_nvml", lambda: (None, "NVML Shared Library Not Found"))
    info, gpus = nvidia.collect_nvidia()
    assert (info.status, gpus) == ("absent", [])
    assert "nvidia-smi not on PATH" in info.reason


def test_broken_nvidia_smi_is_failed_not_raised(monkeypatch, tmp_path):
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'Failed to initialize NVML: Driver/library version mismatch'\nexit 18\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(nvidia, "_load_nvml", lambda: (None, "Driver/library version mismatch"))
    info, gpus = nvidia.collect_nvidia()
    assert info.status == "failed" and "version mismatch" in info.reason and gpus == []


class _FakeNvml:
    """Stand-in for pynvml with two GPUs (no NVIDIA driver on this machine)."""

    NVML_TEMPERATURE_GPU = 0

    class NVMLError(Exception):  # pynvml's base class: every NVMLError_* derives from it
        pass

    def nvmlSystemGetDriverVersion(self):
        return "550.54.15"

    def nvmlSystemGetCudaDriverVersion(self):
        return 12040

    def nvmlDeviceGetCount(self):
        return 2

    def nvmlDeviceGetHandleByIndex(self, i):
        return i

    def nvmlDeviceGetName(self, h):
        return b"NVIDIA A100-SXM4-80GB"

    def nvmlDeviceGetMemoryInfo(self, h):
        return SimpleNamespace(total=80 * 2**30, used=(40 if h else 1) * 2**30)

    def nvmlDeviceGetCudaComputeCapability(self, h):
        return (8, 0)

    def nvmlDeviceGetPciInfo(self, h):
        return SimpleNamespace(busId=f"00000000:{h + 7:02X}:00.0")

    def nvmlDeviceGetUtilizationRates(self, h):
        return SimpleNamespace(gpu=50 * h)

    def nvmlDeviceGetTemperature(self, h, sensor):
        return 40

    def nvmlDeviceGetPowerUsage(self, h):
        raise self.NVMLError("Not Supported")  # one failing attribute loses only that value

    def nvmlDeviceGetUUID(self, h):
        return f"GPU-{h}"

    def nvmlDeviceGetComputeRunningProcesses(self, h):
        return [SimpleNamespace(pid=999, usedGpuMemory=39 * 2**30)] if h == 1 else []

    def nvmlSystemGetProcessName(self, pid):
        return b"python"

    def nvmlShutdown(self):
        pass


def test_nvml_path(monkeypatch):
    monkeypatch.setattr(nvidia, "_load_nvml", lambda: (_FakeNvml(), None))
    info, gpus = nvidia.collect_nvidia()
    assert info.source == "nvml" and info.cuda_driver_version == "12.4" and info.gpu_count == 2
    assert gpus[1].memory_used_mb == 40 * 1024 and gpus[1].compute_capability == "8.0"
    assert gpus[1].power_w is None and gpus[1].temperature_c == 40
    assert [(p.pid, p.name, p.memory_mb) for p in gpus[1].processes] == [(999, "python", 39 * 1024)]


def test_real_nvml_without_a_driver_is_a_reason_not_a_crash():
    # The real nvidia-ml-py on a host without the NVIDIA driver raises NVMLError_LibraryNotFound,
    # which the narrowed handler must still catch (skipped where a driver is present).
    pynvml = pytest.importorskip("pynvml")
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        module, reason = nvidia._load_nvml()
        assert module is None and reason
    else:
        pynvml.nvmlShutdown()
        pytest.skip("an NVIDIA driver is present here")


def test_parse_real_h200_outputs():
    """Recorded on a lent one-GPU H200 host (driver 580.159.04, 2026-12-04): the query row, the plain
    header and an empty compute-apps answer (no process on the GPU)."""
    gpus, driver = nvidia.parse_query_gpu((FIX / "nvidia-smi-query-gpu-1x-h200.csv").read_text())
    assert driver == "580.159.04"
    (gpu,) = gpus
    assert (gpu.index, gpu.name, gpu.compute_capability, gpu.bus_id) == (0, "NVIDIA H200", "9.0", "00000000:00:06.0")
    assert (gpu.memory_total_mb, gpu.memory_used_mb, gpu.utilization_pct) == (143771, 0, 0)
    assert gpu.power_w == pytest.approx(78.18)
    assert nvidia.parse_cuda_version((FIX / "nvidia-smi-plain-h200.txt").read_text()) == "13.0"
    assert nvidia.parse_compute_apps("") == {}


def test_a_check_recorded_on_an_h200_reads_and_renders_in_binary_units():
    """`advisor check --json` as it ran there (NVML path, torch 2.11 CUDA 13.0, no MindSpore): the
    document validates and the summary names its 143,771 MiB as 140.4 GiB."""
    from advisor.render.tables.check import CheckTable
    from probes.check.models import CheckReport

    report = CheckReport.model_validate_json((FIX / "check-1x-h200.json").read_text())
    assert report.verdict == "pass" and report.nvidia.source == "nvml" and report.nvidia.cuda_driver_version == "13.0"
    text = CheckTable(width=100).format(report)
    assert "NVIDIA H200" in text and "615 MiB / 140.4 GiB" in text
    assert " GB" not in text and " MB " not in text
