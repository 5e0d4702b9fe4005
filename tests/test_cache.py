"""One cache module (advisor/cache.py) for both probes: saving merges by run id, and a run that is
not ok never replaces one that is."""

from __future__ import annotations

import json
from pathlib import Path

from advisor import cache
from probes.training.models import ProbeConfig, ProbeSuite
from probes.scaling.models import ScalingResult

FIXTURES = Path(__file__).parent / "fixtures"


def _suite() -> ProbeSuite:
    s = ProbeSuite.model_validate(json.loads((FIXTURES / "report" / "probes-cpu.json").read_text()))
    s.config = ProbeConfig()  # lenet and resnet18
    return s


def _lenet_only(status: str = "ok") -> ProbeSuite:
    s = _suite()
    s.created = "2026-12-01T10:00:00Z"
    s.runs = [r for r in s.runs if r.model == "lenet"]
    for r in s.runs:
        r.status = status
        if status != "ok":
            r.images_per_second, r.error = None, "import failed"
    s.config = ProbeConfig(models=["lenet"])
    return s


def test_a_lenet_only_probe_keeps_the_cached_resnet_runs():
    full = _suite()
    cache.save_probes(full, "fp")
    new = _lenet_only()
    new.runs[0].images_per_second = 1234.5
    cache.save_probes(new, "fp")
    back = cache.load_cached_probes("fp")
    ids = [r.id for r in back.runs]
    assert sorted(ids) == sorted(r.id for r in full.runs)
    assert back.run("pytorch", "eager", "lenet").images_per_second == 1234.5  # the new one
    kept = back.run("pytorch", "eager", "resnet18")
    assert kept.status == "ok" and any("measured earlier" in w for w in kept.warnings)
    assert back.config.models == ["lenet", "resnet18"]
    assert any("kept from the cached probe of 2026-11-30" in w for w in back.warnings)


def test_an_all_failed_probe_never_replaces_ok_runs():
    cache.save_probes(_suite(), "fp")
    cache.save_probes(_lenet_only("failed"), "fp")
    back = cache.load_cached_probes("fp")
    lenet = [r for r in back.runs if r.model == "lenet"]
    assert lenet and all(r.status == "ok" for r in lenet)


def test_an_ok_run_replaces_a_failed_one_and_parity_merges_by_model():
    cache.save_probes(_lenet_only("failed"), "fp")
    ok = _suite()
    ok.parity[0].status, ok.parity[0].ok = "ok", True
    cache.save_probes(ok, "fp")
    back = cache.load_cached_probes("fp")
    assert all(r.status == "ok" for r in back.runs if r.model == "lenet")
    assert [p.model for p in back.parity] == ["lenet"]


def test_the_cache_key_needs_no_full_host_collection(monkeypatch):
    import probes.check.host

    def boom(*a, **kw):
        raise AssertionError("host_fingerprint ran a full host collection")

    monkeypatch.setattr(probes.check.host, "collect_host", boom)
    assert len(cache.host_fingerprint()) == 16


def test_a_scaling_result_without_ok_runs_keeps_the_cached_one():
    good = ScalingResult.model_validate_json((FIXTURES / "scaling" / "scaling-2vcpu-lenet.json").read_text())
    cache.save_scaling(good, "fp")
    bad = good.model_copy(deep=True)
    for r in bad.runs:
        r.status = "failed"
    cache.save_scaling(bad, "fp")
    back = cache.load_cached_scaling("fp")
    assert all(r.status == "ok" for r in back.runs)
    assert any("had no successful run" in w for w in back.warnings)


def test_unreadable_or_foreign_cache_is_not_used():
    path = cache.cache_dir() / "probes-fp.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json")
    assert cache.load_cached_probes("fp") is None
    path.write_text(json.dumps({"schema_version": "0.1"}))
    assert cache.load_cached_probes("fp") is None
    path.write_text(json.dumps({"schema_version": _suite().schema_version, "runs": "nope"}))
    assert cache.load_cached_probes("fp") is None
    cache.save_probes(_suite(), "fp")  # a broken cached file is replaced, not merged
    assert cache.load_cached_probes("fp") is not None


# ---- which cached runs were used, from when, which host, which command -----------


def test_used_runs_names_every_cached_run_with_its_date_host_and_command():
    full = _suite()
    full.created = "2026-11-30T08:00:00Z"
    cache.save_probes(full, "fp", command="advisor probe --budget 60")
    new = _lenet_only()  # created 2026-12-01T10:00:00Z
    cache.save_probes(new, "fp", command="advisor tui")
    back = cache.load_cached_probes("fp")
    back.host.fingerprint = "fp"
    used = {u.id: u for u in cache.used_runs({"training": back})}
    assert set(used) == {r.id for r in back.runs}  # every run the cached suite holds, none left out
    lenet = {r.id for r in new.runs}
    for run_id, u in used.items():
        assert u.kind == "probes" and u.host == "fp" and u.file.endswith("probes-fp.json")
        if run_id in lenet:
            assert (u.date, u.command) == ("2026-12-01T10:00:00Z", "advisor tui")
        else:  # kept from the first probe: its own date and command, not the later one's
            assert (u.date, u.command) == ("2026-11-30T08:00:00Z", "advisor probe --budget 60")
    # the suite as its JSON (the TUI's Probes screen holds it so) is validated once and reads the same


def test_a_failed_rerun_keeps_the_record_of_the_run_it_did_not_replace():
    cache.save_probes(_lenet_only(), "fp", command="advisor probe --models lenet")
    failed = _lenet_only("failed")
    failed.created = "2026-12-02T00:00:00Z"
    cache.save_probes(failed, "fp", command="advisor probe --again")
    back = cache.load_cached_probes("fp")
    back.host.fingerprint = "fp"
    assert {u.command for u in cache.used_runs({"training": back})} == {"advisor probe --models lenet"}


def test_used_runs_of_a_scaling_result_and_of_a_cache_without_records():
    good = ScalingResult.model_validate_json((FIXTURES / "scaling" / "scaling-2vcpu-lenet.json").read_text())
    cache.save_scaling(good, "fp", command="advisor probe --scaling")
    used = cache.used_runs({"scaling": cache.load_cached_scaling("fp")}, fingerprint="fp")
    assert [u.id for u in used] == [r.id for r in good.runs]
    assert {(u.kind, u.date, u.host, u.command) for u in used} == {
        ("scaling", good.created, "fp", "advisor probe --scaling")
    }
    (cache.cache_dir() / "probes-scaling-fp.runs.json").unlink()  # a cache from before the records
    old = cache.used_runs({"scaling": good}, fingerprint="fp")
    assert {(u.date, u.command) for u in old} == {(good.created, cache.NOT_RECORDED)}


def test_the_default_command_is_this_process_as_typed(monkeypatch):
    monkeypatch.setattr("sys.argv", ["/venv/bin/advisor", "report", "my file.yaml", "--no-cache"])
    assert cache.command_line() == "advisor report 'my file.yaml' --no-cache"


def test_the_cached_kinds_are_registered_kinds_and_round_trip_through_one_loader(tmp_path, monkeypatch):
    """advisor.cache loops over probes.base.KINDS: a cached kind's model and schema come from the
    registry, its file from CACHED."""
    from advisor import cache
    from probes.base import KINDS
    from probes.scaling.models import ScalingConfig, ScalingResult

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert set(cache.CACHED) <= set(KINDS)
    result = ScalingResult(
        created="2026-01-01T00:00:00+00:00", label="cpu-contention", label_text="t", config=ScalingConfig()
    )
    path = cache.save_result("scaling", result, fingerprint="fp")
    assert path.name == "probes-scaling-fp.json"
    assert cache.load_cached("scaling", "fp") == cache.load_cached_scaling("fp") == result
    assert cache.load_cached("training", "fp") is None


def test_the_cache_is_written_atomically_a_write_that_fails_half_way_keeps_the_last_measurement(tmp_path):
    """A write that fails half-way (a full disk, a file-size limit, a kill) must leave the last good
    measurement whole: written in place, the cache file would be truncated and then half written.
    The write is made to fail at the size of the file already there (RLIMIT_FSIZE, in a child process),
    so any write of the larger result into that file fails part-way."""
    import os
    import resource
    import subprocess
    import sys

    cache_home = tmp_path / "cache"
    os.environ["XDG_CACHE_HOME"] = str(cache_home)  # the autouse fixture restores it
    small = _lenet_only()
    cache.save_probes(small, "fp")
    path = cache._path("probes", "fp")
    before = path.read_bytes()
    bigger = tmp_path / "bigger.json"
    bigger.write_text(_suite().model_dump_json())
    limit = len(before)

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    script = (
        "import json, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"  # the write fails with EFBIG instead of a kill
        "from advisor import cache\n"
        "from probes.training.models import ProbeSuite\n"
        "try:\n"
        "    cache.save_probes(ProbeSuite.model_validate_json(open(sys.argv[1]).read()), 'fp')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
        "else:\n"
        "    print('saved')\n"
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run(
        [sys.executable, "-c", script, str(bigger)], capture_output=True, text=True, env=env, preexec_fn=small_files
    )
    assert proc.stdout.startswith("UsageError") and "cannot write" in proc.stdout, (proc.stdout, proc.stderr)
    assert path.read_bytes() == before  # the last measurement, whole
    assert [r.id for r in cache.load_cached_probes("fp").runs] == [r.id for r in small.runs]
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([path.name, path.with_suffix(".runs.json").name])
