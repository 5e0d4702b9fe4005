"""No measurement lost: a cache or -o failure after a probe never throws the result away.

The probe itself is replaced by a recorded real result (tests/fixtures/report/probes-cpu.json and
tests/fixtures/scaling/scaling-2vcpu-lenet.json, both written by the real probes): what is under test
is what happens after the measurement, and the failures are made at the OS boundary (a file where the
cache folder goes, os.replace raising ENOSPC), never by patching the code under test."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from advisor import cli

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PROBES = FIXTURES / "report" / "probes-cpu.json"
SCALING = FIXTURES / "scaling" / "scaling-2vcpu-lenet.json"


@pytest.fixture
def suite():
    from probes.training.models import ProbeSuite

    return ProbeSuite.model_validate_json(PROBES.read_text())


@pytest.fixture
def scaling_result():
    from probes.scaling.models import ScalingResult

    return ScalingResult.model_validate_json(SCALING.read_text())


@pytest.fixture
def broken_cache(tmp_path, monkeypatch):
    """XDG_CACHE_HOME is a regular file: no cache folder can be made under it."""
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    return tmp_path


def _ids(path: Path) -> list:
    return [r["id"] for r in json.loads(path.read_text())["runs"]]


def _fake_probe(monkeypatch, suite):
    import probes.training.runner as runner

    monkeypatch.setattr(runner, "run_suite", lambda config, on_event=None: suite)


def test_a_broken_cache_still_writes_o_and_says_so(monkeypatch, suite, broken_cache, capsys):
    _fake_probe(monkeypatch, suite)
    out = broken_cache / "probe.json"
    code = cli.main(["probe", "--frameworks", "pytorch", "--models", "lenet", "--json", "-o", str(out)])
    err = capsys.readouterr().err
    assert _ids(out) == _ids(PROBES)
    assert "not cached" in err and str(out) in err
    assert code in (0, 1)  # the fixture's own runs decide; never 2 for a cache problem


def test_enospc_on_the_cache_keeps_o(monkeypatch, suite, tmp_path, capsys):
    """ENOSPC raised by os.replace for the cache file only (the OS call write_atomic ends with)."""
    _fake_probe(monkeypatch, suite)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    real_replace = os.replace

    def replace(src, dst, *a, **k):
        if "framework-advisor" in str(dst):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    out = tmp_path / "probe.json"
    code = cli.main(["probe", "--frameworks", "pytorch", "--models", "lenet", "--json", "-o", str(out)])
    err = capsys.readouterr().err
    assert code != 2, err
    assert json.loads(out.read_text())["runs"]
    assert "No space left on device" in err


def test_a_failed_o_keeps_the_result_in_the_cache_and_names_it(monkeypatch, suite, tmp_path, capsys):
    _fake_probe(monkeypatch, suite)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    real_replace = os.replace
    out = tmp_path / "probe.json"

    def replace(src, dst, *a, **k):
        if str(dst) == str(out):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    code = cli.main(["probe", "--frameworks", "pytorch", "--models", "lenet", "--json", "-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and str(out) in err[0] and "No space left on device" in err[0]
    cached = [
        p for p in (tmp_path / "cache" / "framework-advisor").glob("probes-*.json") if not p.name.endswith(".runs.json")
    ]
    assert len(cached) == 1 and f"kept in {cached[0]}" in err[0]
    assert json.loads(cached[0].read_text())["runs"]
    assert not out.exists()


def test_o_and_cache_both_failing_write_a_named_fallback(monkeypatch, suite, broken_cache, capsys):
    _fake_probe(monkeypatch, suite)
    out = broken_cache / "missing-later.json"
    real_replace = os.replace

    def replace(src, dst, *a, **k):
        if str(dst) == str(out):
            raise OSError(errno.EROFS, "Read-only file system")
        return real_replace(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    code = cli.main(["probe", "--frameworks", "pytorch", "--models", "lenet", "--json", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    fallback = list((broken_cache / "tmp").glob("advisor-probe-*.json"))
    assert len(fallback) == 1, err
    assert f"kept in {fallback[0]}" in err.splitlines()[-1]
    assert _ids(fallback[0]) == _ids(PROBES)


def test_no_o_and_a_broken_cache_write_a_named_fallback(monkeypatch, suite, broken_cache, capsys):
    _fake_probe(monkeypatch, suite)
    code = cli.main(["probe", "--frameworks", "pytorch", "--models", "lenet"])
    err = capsys.readouterr().err
    assert code != 2, err
    fallback = list((broken_cache / "tmp").glob("advisor-probe-*.json"))
    assert len(fallback) == 1 and str(fallback[0]) in err


def test_scaling_with_a_broken_cache_writes_o_first(monkeypatch, scaling_result, broken_cache, capsys):
    import probes.scaling.runner as runner

    monkeypatch.setattr(runner, "run_scaling", lambda config, on_event=None: scaling_result)
    out = broken_cache / "scaling.json"
    code = cli.main(["probe", "--scaling", "--frameworks", "pytorch", "--json", "-o", str(out)])
    err = capsys.readouterr().err
    assert code != 2, err
    assert len(json.loads(out.read_text())["runs"]) == len(json.loads(SCALING.read_text())["runs"])
    assert "not cached" in err


def test_report_run_probes_with_a_broken_cache_keeps_the_runs(monkeypatch, suite, broken_cache, capsys):
    _fake_probe(monkeypatch, suite)
    example = Path(__file__).resolve().parents[1] / "examples" / "prototype-then-ascend.yaml"
    out = broken_cache / "report.json"
    code = cli.main(["report", str(example), "--run-probes", "--json", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert json.loads(out.read_text())["schema_version"]
    fallback = list((broken_cache / "tmp").glob("advisor-probe-*.json"))
    assert len(fallback) == 1 and str(fallback[0]) in err
    assert _ids(fallback[0]) == _ids(PROBES)
