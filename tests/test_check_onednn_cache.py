"""`advisor check` confirms MindSpore's oneDNN reference-kernel trap with a third child (the same
convolution under ONEDNN_MAX_CPU_ISA=AVX2); the confirmation is cached per host fingerprint and
MindSpore version (advisor.cache), so only the first check on a host pays for it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

SLOW = {"shape": "s", "conv_ms": 400.0, "gemm_ms": 10.0, "ratio": 40.0, "slow": True}
CAPPED = {**SLOW, "conv_ms": 12.0, "ratio": 1.2, "slow": False}


@pytest.fixture
def host(monkeypatch, tmp_path):
    """run_check with MindSpore 2.10.0 'installed' and its smoke children replaced; counts the reruns."""
    import probes.check.frameworks as frameworks
    from probes.check.models import ConvCheck, FrameworkInfo, SmokeResult

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    state = {"version": "2.10.0", "reruns": 0, "args": []}

    def detect():
        return [FrameworkInfo(name="mindspore", installed=True, version=state["version"])]

    def fake_run_smoke(name, timeout, env_extra=None, on_message=None, extra_args=(), cancel=None):
        if "--conv-only" in extra_args:
            state["reruns"] += 1
            return SmokeResult(status="ok", ok=True, conv_check=ConvCheck(**CAPPED)), {}
        hint = _hint_when_written(extra_args)
        state["args"].append(hint)
        if hint == "conv-skip":  # as the real child: no timing, the parent reports the cached one
            return SmokeResult(status="ok", ok=True, seconds=0.1), {}
        if on_message:
            on_message({"kind": "progress", "stage": "conv", **SLOW})
        return SmokeResult(status="ok", ok=True, seconds=0.1, conv_check=ConvCheck(**SLOW)), {}

    monkeypatch.setattr(frameworks, "detect_frameworks", detect)
    monkeypatch.setattr(frameworks, "installed_names", lambda: ["mindspore"])
    monkeypatch.setattr(frameworks, "run_smoke", fake_run_smoke)
    return state


def _hint_when_written(extra_args: tuple) -> str:
    """What the parent tells the MindSpore child about its convolution, read as the real child does,
    where it reaches the convolution (the parent writes it after starting the child)."""
    hints = Path(extra_args[extra_args.index("--hints") + 1])
    for _ in range(500):  # the parent plans within milliseconds here; 5 s for a loaded machine
        if hints.exists():
            return hints.read_text()
        time.sleep(0.01)
    return "no hint"


def _check():
    from advisor.check.host import run_check

    report = run_check(smoke=True, timeout=30, use_kb=False)
    ms = next(fw for fw in report.frameworks if fw.name == "mindspore")
    finding = next(f for f in report.findings if f.code == "mindspore_onednn_reference_conv")
    return ms.smoke.conv_check, finding.message


def test_only_the_first_check_on_a_host_reruns_the_convolution(host):
    first, message = _check()
    assert host["reruns"] == 1 and first.capped_conv_ms == 12.0 and first.capped_measured is None
    assert "rerun with ONEDNN_MAX_CPU_ISA=AVX2: 12.0 ms (33x faster)" in message
    second, message = _check()
    assert host["reruns"] == 1  # no third child: the verdict came from the cache
    assert (second.capped_conv_ms, second.capped_ratio) == (12.0, 1.2) and second.capped_measured
    assert "(33x faster) (the AVX2 rerun measured on this host, " in message
    # the confirmed slow conv is not timed again: the cached timing, dated, says so
    assert host["args"] == ["conv-twice", "conv-skip"]
    assert (second.conv_ms, second.gemm_ms, second.ratio, second.slow) == (400.0, 10.0, 40.0, True)
    assert second.measured == second.capped_measured and first.measured is None
    assert "the convolution timed by an earlier check on this host and MindSpore install" in message


def _record(tmp_path) -> tuple[Path, dict]:
    path = next((tmp_path / "framework-advisor").glob("onednn-*.json"))
    return path, json.loads(path.read_text())


def test_an_older_record_without_the_timing_is_timed_once_and_completed(host, tmp_path):
    _check()
    path, data = _record(tmp_path)
    del data["2.10.0"]["conv"]  # as a check before this one wrote it
    path.write_text(json.dumps(data))
    again, _ = _check()
    assert host["args"][-1] == "conv-once" and again.measured is None
    assert _record(tmp_path)[1]["2.10.0"]["conv"]["conv_ms"] == 400.0
    _check()
    assert host["args"][-1] == "conv-skip"


@pytest.mark.parametrize("change", ["env", "install"])
def test_a_onednn_setting_or_another_install_times_it_live(host, tmp_path, monkeypatch, change):
    _check()
    if change == "env":
        monkeypatch.setenv("DNNL_VERBOSE", "0")  # any oneDNN variable may change the kernels
    else:
        path, data = _record(tmp_path)
        data["2.10.0"]["conv"]["install"] = "/elsewhere/mindspore:1"
        path.write_text(json.dumps(data))
    again, _ = _check()
    assert host["args"][-1] == "conv-once" and again.measured is None and host["reruns"] == 1


def test_another_mindspore_version_measures_again(host):
    _check()
    host["version"] = "2.11.0"
    again, _ = _check()
    assert host["reruns"] == 2 and again.capped_measured is None


def test_a_set_cap_or_a_damaged_entry_is_not_trusted(host, monkeypatch, tmp_path):
    from advisor import cache

    _check()
    path = next((tmp_path / "framework-advisor").glob("onednn-*.json"))
    assert cache.load_onednn_confirm("2.10.0")["capped_conv_ms"] == 12.0
    path.write_text(json.dumps({"2.10.0": {"capped_conv_ms": "fast", "capped_ratio": 1.2}}))
    assert cache.load_onednn_confirm("2.10.0") is None
    path.write_text("{not json")
    _check()
    assert host["reruns"] == 2
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX2")  # the smoke test measures the capped kernels itself
    from advisor.check.host import _cached_onednn_confirm
    from probes.check.models import FrameworkInfo

    assert _cached_onednn_confirm([FrameworkInfo(name="mindspore", installed=True, version="2.10.0")]) is None


def test_clear_cache_removes_the_confirmation(host, tmp_path):
    from advisor import cache

    _check()
    removed = cache.clear()
    assert any(p.name.startswith("onednn-") for p in removed)
    assert cache.load_onednn_confirm("2.10.0") is None


def test_the_check_command_builds_only_its_own_options():
    """`advisor check` does not build the probe command's options (pydantic models) before its
    smoke children start; every command still parses as before."""
    from advisor.cli import build_parser, command_word

    assert command_word(["--debug", "check", "--json"]) == "check"
    assert command_word(["--help", "check"]) is None and command_word([]) is None
    lean = build_parser(None, "check")
    full = build_parser(None)
    assert lean.parse_args(["check", "--json"]) == full.parse_args(["check", "--json"])
    sub = next(a for a in lean._actions if a.dest == "command")
    assert [a.dest for a in sub.choices["probe"]._actions] == ["help"]  # a bare name
    assert lean.parse_args(["probe"]).command == "probe"
