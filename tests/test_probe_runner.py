"""The probe runner, CLI, cache and schema without a framework: failing workers are simulated by
tests/fixtures/probe/fake_worker.py (crash, hang, garbage), which speaks the real channel."""

import json
import sys
from pathlib import Path

import pytest

from advisor import cache, cli
from advisor.schemas import FOLDER, schema_text
from probes.training import runner
from probes.launcher import Cancel
from probes.training.models import SCHEMA_VERSION, ProbeConfig, ProbeRun, ProbeSuite

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "probe"))
from minischema import validate  # noqa: E402

FAKE = "tests.fixtures.probe.fake_worker"
SCHEMA = json.loads((FOLDER / "probe.schema.json").read_text())


@pytest.fixture
def fake_workers(monkeypatch):
    monkeypatch.setattr(runner, "WORKER", {"pytorch": FAKE, "mindspore": FAKE})
    # The fake children send no load window, so the runner would read this host's load around each one;
    # on a busy test machine the GEMM child and the run then differ by more than the MFU's load match and
    # the MFU is withheld. The load rule has its own test; here every child ran on a quiet host.
    monkeypatch.setattr(runner, "run_load", lambda *a, **k: {"steal": 0.0, "foreign_cores": 0.0, "contention": 0.0})

    def use(behaviour):
        monkeypatch.setenv("ADVISOR_FAKE_WORKER", behaviour)

    return use


def _config(**kw):
    base = dict(
        frameworks=["pytorch"],
        models=["lenet"],
        modes=["eager"],
        parity=False,
        budget=1.0,
        batch_size=8,
        repeat=1,
        max_repeat=None,
    )
    base.update(kw)
    return ProbeConfig(**base)


def test_mindspore_env_caps_onednn_only_when_tuned_on_avx512_cpu():
    env, notes = runner.mindspore_env(avx512=True, tune=True, device="auto")
    assert env == {"GLOG_v": "3", "ONEDNN_MAX_CPU_ISA": "AVX2"} and "AVX-512" in notes[0]
    env, notes = runner.mindspore_env(avx512=True, tune=False, device="cpu")
    assert "ONEDNN_MAX_CPU_ISA" not in env and "untuned" in notes[0]
    assert "ONEDNN_MAX_CPU_ISA" not in runner.mindspore_env(False, True, "cpu")[0]
    assert "ONEDNN_MAX_CPU_ISA" not in runner.mindspore_env(True, True, "npu")[0]


def test_torch_children_never_get_the_onednn_cap():
    ms_env, _ = runner.mindspore_env(True, True, "auto")
    cfg = _config(threads=3)
    torch_env = runner._child_env("pytorch", cfg, ms_env, "/tmp/x")
    assert torch_env["ONEDNN_MAX_CPU_ISA"] is None  # None = removed from the child's environment
    assert torch_env["OMP_NUM_THREADS"] == "3" and torch_env["TORCHINDUCTOR_CACHE_DIR"] == "/tmp/x"
    ms = runner._child_env("mindspore", cfg, ms_env, "/tmp/x")
    assert ms["ONEDNN_MAX_CPU_ISA"] == "AVX2" and ms["OMP_NUM_THREADS"] == "3"


def test_jobs_interleave_frameworks_per_repeat():
    cfg = ProbeConfig(models=["lenet"], modes=["eager", "graph"], repeat=2)
    ids = [j.id for j in runner.plan_jobs(cfg)]
    assert ids == ["pytorch-eager-lenet-bs32", "mindspore-graph-lenet-bs32"] * 2


def test_ok_worker_result_is_validated_with_mfu(fake_workers):
    fake_workers("ok")
    events = []
    suite = runner.run_suite(_config(), on_event=events.append)
    (run,) = suite.runs
    assert run.status == "ok" and run.id == "pytorch-eager-lenet-bs8"
    assert suite.gemm_peak == {"pytorch": 100.0}
    assert run.mfu == pytest.approx(8000 * 2263920 / 1e9 / 100.0)
    kinds = [e.kind for e in events if e.run_id == run.id]
    assert kinds[0] == "start" and "progress" in kinds and kinds[-1] == "done"
    assert events[-1].run.status == "ok"


def test_crashing_worker_is_a_failed_run(fake_workers):
    fake_workers("crash")
    suite = runner.run_suite(_config())
    (run,) = suite.runs
    assert run.status == "failed" and run.images_per_second is None
    assert "SIGABRT" in run.error and "simulated worker crash" in run.error


def test_hanging_worker_times_out_and_others_still_run(fake_workers, monkeypatch):
    fake_workers("hang")
    calls = []
    real = runner._run_job

    def flip(job, *a, **kw):  # the second run is healthy: a hang must not stop the suite
        calls.append(job.id)
        if len(calls) == 2:
            monkeypatch.setenv("ADVISOR_FAKE_WORKER", "ok")
        return real(job, *a, **kw)

    monkeypatch.setattr(runner, "_run_job", flip)
    suite = runner.run_suite(_config(models=["lenet", "resnet18"], timeout=2.0))
    first, second = suite.runs
    assert first.status == "timeout" and "timeout" in first.error and first.images_per_second is None
    assert second.status == "ok"


def test_garbage_result_is_failed_not_a_measurement(fake_workers):
    fake_workers("garbage")
    (run,) = runner.run_suite(_config()).runs
    assert run.status == "failed" and "invalid result" in run.error


def test_cancel_marks_remaining_runs(fake_workers):
    fake_workers("ok")
    cancel = Cancel()
    cancel.set()
    suite = runner.run_suite(_config(models=["lenet", "resnet18"]), cancel=cancel)
    assert [r.status for r in suite.runs] == ["cancelled", "cancelled"]


def test_uninstalled_framework_is_unavailable(fake_workers, monkeypatch):
    fake_workers("ok")
    monkeypatch.setattr(
        runner,
        "installed_frameworks",
        lambda: {"pytorch": {"installed": True, "version": "x"}, "mindspore": {"installed": False, "version": None}},
    )
    suite = runner.run_suite(_config(frameworks=["pytorch", "mindspore"], modes=["eager", "graph"], parity=True))
    ms = suite.run("mindspore", "graph", "lenet")
    assert ms.status == "unavailable" and "not installed" in ms.error
    assert suite.parity[0].status == "unavailable"


def test_repeats_merge_to_median():
    runs = [
        ProbeRun(
            id="a", framework="pytorch", mode="eager", model="lenet", batch_size=8, status="ok", images_per_second=v
        )
        for v in (100.0, 130.0, 110.0)
    ]
    (merged,) = runner._merge_repeats(runs)
    assert merged.images_per_second == 110.0 and sorted(merged.repeats) == [100.0, 110.0, 130.0]
    assert merged.id == "a" and merged.status == "ok"  # the spread between repeats is the grade's to judge


def test_schema_file_matches_the_models():
    assert (FOLDER / "probe.schema.json").read_text() == schema_text("probes.training.models:ProbeSuite"), (
        "probe.schema.json is stale: run `make schemas` (python -m advisor.schemas)"
    )


def test_cache_round_trip_and_clear(fake_workers):
    fake_workers("ok")
    assert cache.load_cached_probes() is None
    suite = runner.run_suite(_config())
    path = cache.save_probes(suite)
    assert str(path).startswith(str(cache.cache_dir())) and suite.host.fingerprint in path.name
    loaded = cache.load_cached_probes()
    assert loaded is not None and loaded.runs[0].images_per_second == 8000.0
    data = json.loads(path.read_text())
    data["schema_version"] = "0.0"
    path.write_text(json.dumps(data))
    assert cache.load_cached_probes() is None
    assert path in cache.clear() and not path.exists()


def test_cli_json_validates_against_committed_schema(fake_workers, capsys):
    fake_workers("ok")
    rc = cli.main(
        [
            "probe",
            "--frameworks",
            "pytorch",
            "--models",
            "lenet",
            "--modes",
            "eager",
            "--budget",
            "1",
            "--batch-size",
            "8",
            "--no-parity",
            "--json",
        ]
    )
    out = capsys.readouterr()
    assert rc == 0 and out.err == ""
    doc = json.loads(out.out)
    assert doc["schema_version"] == SCHEMA_VERSION
    assert validate(doc, SCHEMA) == []
    # Every field the fake worker sent, with its value (a key that is present with a dropped value fails),
    # and what the runner derives: MFU from the GEMM peak, the interval from the raw samples.
    run = doc["runs"][0]
    sent = {
        "framework": "pytorch",
        "mode": "eager",
        "model": "lenet",
        "batch_size": 8,
        "device": "cpu",
        "status": "ok",
        "error": None,
        "images_per_second": 8000.0,
        "first_step_seconds": 0.01,
        "compile_seconds": None,
        "peak_memory_mb": 180.0,
        "train_flops_per_image": 2263920,
        "loss_first": 2.3,
        "loss_last": 1.0,
        "stop_reason": "converged",
        "warnings": [],
    }
    assert {key: run[key] for key in sent} == sent
    assert run["step_time_ms"]["n"] == 30 and run["step_time_ms"]["median"] == 1.0
    assert run["mfu"] == pytest.approx(8000 * 2263920 / 1e9 / 100.0)
    low, high = run["ci95"]  # samples of 1 ms +-1%: an interval inside 8000 +-1% around the mean
    assert 8000 * 0.99 < low < 8000.0 < high < 8000 * 1.01
    doc["runs"][0]["status"] = "great"
    assert validate(doc, SCHEMA)  # the validator does reject a bad document
    assert cache.load_cached_probes() is not None  # cached for the report and the TUI


def test_cli_bad_flags_are_one_line_errors(capsys):
    assert cli.main(["probe", "--models", "vgg"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("advisor: error: --models: unknown vgg") and err.count("\n") == 1
    assert err.rstrip().endswith("or gpt alone (the transformer probe)")  # every choice named, gpt too
    assert cli.main(["probe", "--frameworks", "mindspore", "--modes", "eager"]) == 2
    assert "none of eager belongs to mindspore" in capsys.readouterr().err
    assert cli.main(["probe", "--data", "/nonexistent/cifar"]) == 2
    assert "--data: /nonexistent/cifar: no such file" in capsys.readouterr().err


def test_cli_clear_cache(capsys):
    assert cli.main(["probe", "--clear-cache"]) == 0
    assert "removed" in capsys.readouterr().err


def test_mfu_above_one_is_withheld_with_a_warning():
    suite = ProbeSuite(gemm_peak={"pytorch": 30.0}, gemm_details={"pytorch": {"device": "cpu"}})
    fast = ProbeRun(
        id="a",
        framework="pytorch",
        mode="eager",
        model="resnet18",
        batch_size=8,
        device="cpu",
        status="ok",
        images_per_second=20.0,
        train_flops_per_image=3_328_997_376,
    )
    slow = fast.model_copy(update={"id": "b", "images_per_second": 4.0})
    suite.runs = [fast, slow]
    runner._add_efficiency(suite)
    assert fast.mfu is None and "MFU not reported" in fast.warnings[0]
    assert slow.mfu == pytest.approx(4.0 * 3.328997376 / 30.0)


def test_steal_time_from_proc_stat_text():
    before = runner.cpu_times("cpu  100 0 50 800 10 0 0 40 0 0\ncpu0 1 2 3\n")
    after = runner.cpu_times("cpu  200 0 100 900 10 0 0 140 0 0\n")
    assert before["steal"] == 40 and before["total"] == 1000
    assert runner.steal_fraction(before, after) == pytest.approx(100 / 350)
    assert runner.steal_fraction(None, after) is None and runner.cpu_times("garbage") is None


def test_each_workload_gets_its_own_compile_cache_folder(monkeypatch):
    seen = []

    def fake_run_child(args, *, env_extra, **kw):
        seen.append(env_extra["TORCHINDUCTOR_CACHE_DIR"])
        return runner.launcher.ChildOutcome(status="failed", error="not run")

    monkeypatch.setattr(runner.launcher, "run_child", fake_run_child)
    cfg = _config(modes=["compile"], models=["lenet", "resnet18"])
    env = runner._child_env("pytorch", cfg, {}, "/tmp/inductor")
    for model in ("lenet", "resnet18"):
        runner._run_job(runner.Job("pytorch", "compile", model, 8), cfg, env, None, None, 1, 2)
    assert seen == ["/tmp/inductor/lenet-bs8-auto", "/tmp/inductor/resnet18-bs8-auto"]
    assert env["TORCHINDUCTOR_CACHE_DIR"] == "/tmp/inductor"  # the shared env is not mutated


# ------------------------------------------------------------------ busy host: rounds, threads, quality


@pytest.fixture
def quiet_host(monkeypatch):
    """The host facts made deterministic: 2 idle cores, and each run's load as set by the test."""
    load = {"steal": 0.0, "foreign_cores": 0.0, "contention": 0.0}
    monkeypatch.setattr(runner, "idle_cores", lambda: 2.0)
    monkeypatch.setattr(runner, "run_load", lambda *a, **k: dict(load))
    return load


def test_rounds_stop_when_the_comparison_is_decided(fake_workers, quiet_host):
    fake_workers("ok")  # the fake's compile mode runs twice as fast as its eager mode
    suite = runner.run_suite(_config(modes=["eager", "compile"], repeat=1, max_repeat=4))
    (c,) = suite.comparisons
    assert (c.a, c.b) == ("pytorch-eager-lenet-bs8", "pytorch-compile-lenet-bs8")
    assert c.pairs == 2 and c.decidable and c.quality == "stable" and c.ratio == pytest.approx(0.5)
    (log,) = suite.adaptation
    assert log["rounds"] == 2 and log["stopped"] == "stop rule held after 2 round(s)"
    assert log["budgets"] == [1.0, 1.0] and log["threads"] == [2, 2]
    assert [r.quality for r in suite.runs] == ["stable", "stable"]
    assert all(r.settings["threads_reason"].startswith("idle cores") for r in suite.runs)


def test_noisy_runs_get_more_rounds_at_a_longer_budget_up_to_the_cap(fake_workers, quiet_host):
    fake_workers("ok")
    quiet_host["contention"] = 0.3  # other processes took 30% of the run's threads: noisy
    suite = runner.run_suite(_config(repeat=1, max_repeat=4))
    (log,) = suite.adaptation
    assert log["rounds"] == 4 and log["budgets"] == [1.0, 2.0, 4.0, 4.0] and log["budget_cap"] == 4.0
    assert log["stopped"].startswith("cap reached (4 rounds, budget up to 4 s)")
    (r,) = suite.runs
    assert r.quality == "noisy" and len(r.repeats) == 4
    assert any("contention" in reason for reason in r.quality_reasons)


def test_an_unusable_run_is_kept_but_never_decides(fake_workers, quiet_host, capsys):
    fake_workers("ok")
    quiet_host["contention"] = 0.6
    rc = cli.main(
        [
            "probe",
            "--frameworks",
            "pytorch",
            "--models",
            "lenet",
            "--modes",
            "eager,compile",
            "--budget",
            "1",
            "--batch-size",
            "8",
            "--no-parity",
            "--no-cache",
            "--max-repeat",
            "2",
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0
    flat = " ".join(out.split())  # the notes are wrapped to the terminal's width
    assert "pytorch-eager-lenet-bs8 unusable 8,000 img/s (95% CI 7,980-8,020)" in flat
    assert "not decidable here (unusable)" in flat
    assert "quiet the host" in flat and "--budget" in flat and "--threads" in flat
    assert "unusable (shown, never scored)" in flat and "2 round(s) as asked" in flat


def test_max_repeat_is_checked(capsys):
    assert cli.main(["probe", "--max-repeat", "0"]) == 2
    assert capsys.readouterr().err.startswith("advisor: error: --max-repeat: expected 1 to 20")


def test_threads_follow_the_idle_cores(monkeypatch):
    monkeypatch.setattr(runner, "usable_cores", lambda: 4)
    cfg = _config()
    assert runner.round_threads(cfg, 1.2)[0] == 1
    assert runner.round_threads(cfg, 3.6)[0] == 4
    assert runner.round_threads(cfg, 0.1)[0] == 1  # at least one thread
    assert runner.round_threads(cfg, None) == (4, "usable cores (idle cores not readable)")
    threads, why = runner.round_threads(_config(threads=3), 0.4)
    assert threads == 3 and "only 0.4 of 4 cores were idle" in why


def test_idle_cores_and_run_load_from_proc_stat(monkeypatch):
    texts = iter(["cpu  100 0 0 100 0 0 0 0\n", "cpu  150 0 0 250 0 0 0 0\n"])  # 150 of 200 jiffies idle
    monkeypatch.setattr(runner, "cpu_times", lambda: REAL_CPU_TIMES(next(texts)))
    monkeypatch.setattr(runner, "usable_cores", lambda: 2)
    monkeypatch.setattr(runner.os, "cpu_count", lambda: 2)
    assert runner.idle_cores(window=0) == 1.5
    hz = runner.os.sysconf("SC_CLK_TCK")
    before = {"busy": 0, "idle": 0, "steal": 0, "total": 0}
    after = {"busy": 3 * hz, "idle": hz, "steal": 0, "total": 4 * hz}  # 3 CPU-seconds busy in 2 s
    load = runner.run_load(before, after, child_cpu_s=1.0, wall_s=2.0, threads=2)
    # others: (3 - 1) / 2 = 1 core; with 2 threads on 2 cores they took (1 + 2 - 2) / 2 = 50%
    assert load == {
        "steal": 0.0,
        "foreign_cores": 1.0,
        "contention": 0.5,
        "load_measured_over": "the whole child process (start-up included)",
    }


def test_load_over_the_timed_window_comes_from_the_workers_snapshots():
    a = {"busy_s": 100.0, "steal_s": 1.0, "total_s": 400.0, "self_cpu_s": 5.0, "wall_s": 10.0, "cpus": 2}
    # 4 s timed: the host was busy 7.2 CPU-s, 4.0 of them this run's: others held 0.8 cores.
    b = {"busy_s": 107.2, "steal_s": 1.4, "total_s": 408.0, "self_cpu_s": 9.0, "wall_s": 14.0, "cpus": 2}
    load = runner.window_load([a, b], threads=2)
    assert load["foreign_cores"] == 0.8 and load["contention"] == 0.4 and load["steal"] == 0.05
    assert load["load_measured_over"] == "the timed measurement"
    assert runner.window_load(None, 2) is None and runner.window_load([a, {}], 2) is None


REAL_CPU_TIMES = runner.cpu_times


def test_merged_repeats_keep_the_first_rounds_start_up():
    def rep(ips, compile_s, cache, q="stable"):
        return ProbeRun(
            id="c",
            framework="pytorch",
            mode="compile",
            model="lenet",
            batch_size=8,
            status="ok",
            images_per_second=ips,
            compile_seconds=compile_s,
            first_step_seconds=compile_s + 0.1,
            quality=q,
            settings={"compile_cache": cache},
        )

    (merged,) = runner._merge_repeats(
        [rep(100.0, 12.0, "cold"), rep(120.0, 2.0, "warm"), rep(110.0, 2.1, "warm"), rep(10.0, 2.0, "warm", "unusable")]
    )
    assert merged.images_per_second == 110.0  # the median of the three usable repeats
    assert merged.compile_seconds == 12.0 and merged.settings["compile_cache"] == "cold"
    assert merged.settings["compile_seconds_repeats"] == [12.0, 2.0, 2.1, 2.0]
    assert merged.repeats == [100.0, 120.0, 110.0, 10.0]
    assert merged.quality == "noisy" and "1 of 4 repeats unusable, left out" in merged.quality_reasons


def test_mfu_only_against_a_peak_measured_under_comparable_load():
    """A GEMM peak measured while 1.4 cores were busy with other work is no basis for a run measured on a
    quiet host (it read 97% for PyTorch while MindSpore's was withheld): the same rule for every framework,
    one note for all the runs it concerns."""
    suite = ProbeSuite(
        gemm_peak={"pytorch": 131.0, "mindspore": 30.0},
        gemm_details={
            "pytorch": {"device": "cpu", "foreign_cores": 1.4},
            "mindspore": {"device": "cpu", "foreign_cores": 0.1},
        },
    )
    base = dict(model="resnet18", batch_size=32, device="cpu", status="ok", train_flops_per_image=3_328_997_376)
    quiet_pt = ProbeRun(
        id="a", framework="pytorch", mode="eager", images_per_second=20.0, settings={"foreign_cores": 0.1}, **base
    )
    busy_pt = ProbeRun(
        id="b", framework="pytorch", mode="compile", images_per_second=10.0, settings={"foreign_cores": 1.2}, **base
    )
    quiet_ms = ProbeRun(
        id="c", framework="mindspore", mode="graph", images_per_second=4.0, settings={"foreign_cores": 0.3}, **base
    )
    suite.runs = [quiet_pt, busy_pt, quiet_ms]
    runner._add_efficiency(suite)
    assert quiet_pt.mfu is None and quiet_pt.warnings == [runner.MFU_NOT_COMPARABLE]  # 1.4 vs 0.1 cores
    assert busy_pt.mfu == pytest.approx(10.0 * 3.328997376 / 131.0)  # 1.4 vs 1.2: comparable
    assert quiet_ms.mfu == pytest.approx(4.0 * 3.328997376 / 30.0)  # 0.1 vs 0.3: comparable
