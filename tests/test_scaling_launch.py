"""Fast tests of the scaling probe's plumbing: command lines, environment, the kill sweep, the
failure-message parser and the result arithmetic. No framework is started here (see
test_scaling_engines.py for the real launchers)."""

from __future__ import annotations

import re

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from probes import launcher
from probes.scaling import launch, rank_common, runner
from probes.scaling.models import ScalingConfig, ScalingRun, Startup

FIXTURES = Path(__file__).parent / "fixtures" / "scaling"


def _spec(fw="pytorch", ranks=2, **kw):
    return launch.LaunchSpec(framework=fw, ranks=ranks, **kw)


def test_torchrun_command_uses_standalone_and_no_restarts(tmp_path):
    cmd = launch.torchrun_command(_spec(ranks=4, steps=7, threads=3), tmp_path / "r")
    assert Path(cmd[0]).name == "torchrun" or cmd[1:3] == ["-m", "torch.distributed.run"]
    assert "--standalone" in cmd and "--nproc_per_node=4" in cmd and "--max-restarts=0" in cmd
    script = cmd.index(str(launch.RANK_SCRIPTS["pytorch"]))
    assert all(a.startswith("--") for a in cmd[1:script] if a not in ("-m", "torch.distributed.run"))
    tail = cmd[script + 1 :]
    assert tail[tail.index("--steps") + 1] == "7" and tail[tail.index("--threads") + 1] == "3"
    assert tail[tail.index("--result-dir") + 1] == str(tmp_path / "r")


def test_msrun_command_has_every_flag_measured_necessary(tmp_path):
    cmd = launch.msrun_command(_spec("mindspore", 2, timeout=90), tmp_path / "r", tmp_path / "l", 29123)
    for flag in (
        "--worker_num=2",
        "--local_worker_num=2",
        "--master_addr=127.0.0.1",
        "--master_port=29123",
        "--join=True",
        "--cluster_time_out=90",
        f"--log_dir={tmp_path / 'l'}",
    ):
        assert flag in cmd, flag
    assert cmd.index(str(launch.RANK_SCRIPTS["mindspore"])) > cmd.index("--join=True")


def test_build_command_gives_msrun_a_fresh_free_port(tmp_path):
    ports = set()
    for i in range(3):
        cmd, result_dir, log_dir = launch.build_command(_spec("mindspore"), tmp_path / str(i))
        assert result_dir.is_dir() and log_dir.is_dir()
        ports.add(next(a for a in cmd if a.startswith("--master_port=")))
    assert len(ports) >= 2  # per run, never a fixed port


def test_launcher_prefix_falls_back_to_the_module(tmp_path):
    fake_python = tmp_path / "bin" / "python"
    fake_python.parent.mkdir()
    fake_python.write_text("")
    assert launch.launcher_prefix("pytorch", str(fake_python)) == [str(fake_python), "-m", "torch.distributed.run"]
    assert launch.launcher_prefix("mindspore", str(fake_python))[:2] == [str(fake_python), "-c"]
    exe = fake_python.parent / "msrun"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    assert launch.launcher_prefix("mindspore", str(fake_python)) == [str(exe)]


def test_environment_per_engine(monkeypatch):
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX512_CORE")
    monkeypatch.delenv("GLOO_SOCKET_IFNAME", raising=False)
    monkeypatch.setenv("SECRET_TOKEN", "x")
    env_t = launch.launch_environment(_spec("pytorch", threads=2), "m1")
    assert "ONEDNN_MAX_CPU_ISA" not in env_t  # torch gets slower under the cap
    assert env_t["GLOO_SOCKET_IFNAME"] == "lo" and env_t["OMP_NUM_THREADS"] == "2"
    assert env_t[launch.MARKER_ENV] == "m1" and "SECRET_TOKEN" not in env_t
    env_m = launch.launch_environment(_spec("mindspore"), "m2")
    if launch._is_x86():
        assert env_m["ONEDNN_MAX_CPU_ISA"] == "AVX512_CORE"  # the user's explicit choice wins
    assert env_m["GLOG_v"] and env_m[launch.MARKER_ENV] == "m2"
    # msrun starts `python` from PATH: the chosen interpreter's bin/ comes first.
    assert env_m["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)
    other = launch.launch_environment(_spec("mindspore", python="/opt/venv/bin/python"), "m3")
    assert other["PATH"].split(os.pathsep)[0] == "/opt/venv/bin"
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA")
    if launch._is_x86():
        assert launch.launch_environment(_spec("mindspore"), "m4")["ONEDNN_MAX_CPU_ISA"] == "AVX2"
    fault = launch.launch_environment(_spec(extra_env=((rank_common.FAULT_ENV, "crash@1"),)), "m5")
    assert fault[rank_common.FAULT_ENV] == "crash@1"


def test_kill_sweep_reaches_ranks_in_their_own_session(tmp_path):
    """Like torchrun/msrun: the launcher's child lives in a new session, out of the group kill."""
    marker = "test-" + str(os.getpid())
    env = dict(os.environ, **{launch.MARKER_ENV: marker})
    pidfile = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys, time; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True); "
        f"open({str(pidfile)!r}, 'w').write(str(p.pid)); time.sleep(60)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, start_new_session=True)
    deadline = time.monotonic() + 20
    while not pidfile.exists() or not pidfile.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    grandchild = int(pidfile.read_text())
    assert grandchild in launcher.marked_pids(marker)
    os.kill(proc.pid, 0)
    launch.kill_launch(proc, marker)
    proc.wait(timeout=10)
    deadline = time.monotonic() + 10
    while launcher.marked_pids(marker):
        assert time.monotonic() < deadline, "a marked process survived the sweep"
        time.sleep(0.05)


def test_torchrun_failure_summary_names_the_rank():
    text = (FIXTURES / "torchrun_crash.txt").read_text()
    assert launch._error_line(text) == "rank 1 failed first (exit code 17)"
    exc = "Traceback...\n  File \"x\", line 1\nValueError: unknown model 'foo'\n" + text
    assert launch._error_line(exc) == "rank 1 failed first (exit code 17): ValueError: unknown model 'foo'"
    assert (
        launch._error_line("RuntimeError: worker 1 is the first one timed out\n")
        == "RuntimeError: worker 1 is the first one timed out"
    )


def test_run_launch_reports_an_unstartable_launcher(tmp_path):
    out = launch.run_launch(_spec(python=str(tmp_path / "nope" / "python"), timeout=5))
    assert out.status == "failed" and "could not start" in out.error


def test_rank_shard_gives_each_rank_its_own_batches():
    import numpy as np

    class B:
        images = np.arange(8)[:, None]
        labels = np.arange(8)[:, None]

        def __len__(self):
            return 8

    shards = [rank_common.rank_shard(B(), r, 2) for r in range(2)]
    assert [int(x[0]) for x, _ in shards[0]] == [0, 2, 4, 6]
    assert [int(x[0]) for x, _ in shards[1]] == [1, 3, 5, 7]
    assert rank_common.n_batches(2) == 8 and rank_common.n_batches(8) == 16


def _outcome(ranks, step, nosync, sync_diff=0.0, nosync_diff=0.2, world=None, status="ok"):
    ranks_doc = [
        {
            "sync_step_s": [step] * 5,
            "nosync_step_s": [nosync] * 5,
            "init_seconds": 0.5,
            "launcher_seconds": 1.0,
            "first_step_seconds": 0.1,
            "loss_first": 2.3,
            "loss_last": 2.1,
        }
        for _ in range(ranks)
    ]
    doc = {
        "world_size": world or ranks,
        "backend": "gloo",
        "ranks": ranks_doc,
        "gate": {"sync_max_abs_diff": sync_diff, "nosync_max_abs_diff": nosync_diff, "param_count": 10},
    }
    return launch.LaunchOutcome(status=status, command=["torchrun"], result=doc, seconds=6.0)


def test_to_run_computes_throughput_share_and_gate():
    run = runner.to_run(_spec(ranks=2, batch_size=32), 1, _outcome(2, 0.010, 0.006))
    assert run.status == "ok" and run.gate.ok
    assert run.images_per_second == pytest.approx(2 * 32 / 0.010)
    assert run.allreduce_share == pytest.approx(0.4)
    assert run.step_ms == pytest.approx(10.0) and run.startup.init_seconds == 0.5


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"sync_diff": 0.01}, "differ across ranks"),
        ({"nosync_diff": 0.0}, "did not diverge"),
        ({"world": 1}, "world size 1"),
    ],
)
def test_to_run_fails_a_run_that_does_not_really_sync(kw, words):
    run = runner.to_run(_spec(ranks=2), 1, _outcome(2, 0.01, 0.006, **kw))
    assert run.status == "failed" and words in run.error


def test_summary_pairs_repetitions_for_efficiency():
    runs = []
    for rep, (s1, s2, n2) in enumerate([(0.004, 0.010, 0.006), (0.005, 0.012, 0.007), (0.004, 0.008, 0.006)], 1):
        runs.append(runner.to_run(_spec(ranks=1), rep, _outcome(1, s1, s1)))
        runs.append(runner.to_run(_spec(ranks=2), rep, _outcome(2, s2, n2)))
    fw = runner.summarise("pytorch", "lenet", runs, [1, 2], "cpu", 32, 1)
    assert fw.status == "ok"
    two = fw.rank_counts[1]
    effs = sorted([0.004 / 0.010, 0.005 / 0.012, 0.004 / 0.008])  # img/s(2) / (2 x img/s(1))
    assert two.efficiency.median == pytest.approx(effs[1])
    assert (two.efficiency.min, two.efficiency.max) == pytest.approx((effs[0], effs[2]))
    assert two.efficiency.n == 3 and two.gate_ok is True
    # efficiency = contention factor x communication factor, per repetition
    assert two.contention_factor.median * two.communication_factor.median == pytest.approx(
        two.efficiency.median, rel=0.2
    )
    assert fw.efficiency == pytest.approx(effs[1]) and fw.allreduce_share == two.allreduce_share.median


def test_summary_status_with_a_failed_repetition():
    runs = [
        runner.to_run(_spec(ranks=1), 1, _outcome(1, 0.004, 0.004)),
        ScalingRun(
            id="x",
            framework="pytorch",
            launcher="torchrun",
            model="lenet",
            ranks=2,
            repetition=1,
            status="timeout",
            error="hung",
            batch_size_per_rank=32,
            threads_per_rank=1,
            startup=Startup(),
        ),
    ]
    fw = runner.summarise("pytorch", "lenet", runs, [1, 2], "cpu", 32, 1)
    assert fw.status == "partial" and "hung" in fw.reason
    assert fw.rank_counts[1].runs_ok == 0 and fw.rank_counts[1].efficiency is None


def test_default_ranks_and_label():
    assert runner.default_ranks(0) == [1, 2] and runner.default_ranks(1) == [1, 2]
    assert runner.default_ranks(8) == [1, 8]
    label, text = runner.label_for({"pytorch": "cpu"}, [1, 2], 2, 1)
    assert label == "cpu-contention" and "not device scaling" in text
    assert runner.label_for({"pytorch": "cuda"}, [1, 4], 16, 4)[0] == "device-scaling"


def test_config_validation():
    assert ScalingConfig(ranks=[2, 1, 2]).ranks == [1, 2]
    with pytest.raises(ValueError):
        ScalingConfig(ranks=[0])
    with pytest.raises(ValueError):
        ScalingConfig(bogus=1)


def test_run_scaling_with_no_framework_installed_is_data(monkeypatch):
    monkeypatch.setattr(runner, "framework_available", lambda fw: f"{fw} is not installed")
    res = runner.run_scaling(ScalingConfig(repeat=1))
    assert res.runs == [] and {f.status for f in res.frameworks} == {"unavailable"}
    assert "not installed" in res.frameworks[0].reason


def test_run_scaling_events_and_cancel(monkeypatch):
    from probes.launcher import Cancel

    cancel = Cancel()
    calls = []

    def fake_launch(spec, cancel=None, on_progress=None):
        calls.append(spec)
        on_progress("warmup", 0.5)
        cancel.set()  # the user cancels during the first launch
        return launch.LaunchOutcome(status="cancelled", command=["torchrun"], error="cancelled by the user")

    monkeypatch.setattr(runner, "framework_available", lambda fw: None)
    monkeypatch.setattr(runner.launch, "run_launch", fake_launch)
    events = []
    res = runner.run_scaling(ScalingConfig(frameworks=["pytorch"], repeat=3), on_event=events.append, cancel=cancel)
    assert len(calls) == 1 and [e.kind for e in events] == ["start", "progress", "done"]
    assert events[1].run_fraction == 0.5 and events[1].fraction == pytest.approx(0.5 / 6)
    assert res.runs[0].status == "cancelled" and res.frameworks[0].status == "cancelled"


def test_run_scaling_interleaves_repetitions(monkeypatch):
    order = []

    def fake_launch(spec, **kw):
        order.append((spec.framework, spec.ranks))
        return _outcome(spec.ranks, 0.01, 0.006)

    monkeypatch.setattr(runner, "framework_available", lambda fw: None)
    monkeypatch.setattr(runner, "device_for", lambda fw, cfg: ("cpu", 0))
    monkeypatch.setattr(runner.launch, "run_launch", fake_launch)
    res = runner.run_scaling(ScalingConfig(repeat=3, ranks=[1, 2]))
    assert order[:4] == [("pytorch", 1), ("pytorch", 2), ("mindspore", 1), ("mindspore", 2)]
    assert order[4:8] == [("pytorch", 2), ("pytorch", 1), ("mindspore", 2), ("mindspore", 1)]
    assert len(order) == 12 and all(f.status == "ok" for f in res.frameworks)
    assert res.frameworks[0].rank_counts[1].images_per_second.n == 3


# ---------------------------------------------------------------------------------------- CLI


def test_add_arguments_reuses_the_probe_parsers_options():
    from advisor.commands import scaling as cli

    p = argparse.ArgumentParser()
    p.add_argument("--models", default="lenet,resnet18")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--json", action="store_true")
    cli.add_arguments(p)  # the scaling options only: the host parser has the shared ones
    args = p.parse_args(["--scaling", "--ranks", "2,1"])
    cfg = cli.config_from_args(args)
    assert args.scaling and cfg.ranks == [1, 2]
    assert cfg.models == ["lenet"] and cfg.repeat == 3  # the probe's defaults do not leak in
    cfg = cli.config_from_args(p.parse_args(["--scaling", "--models", "resnet18", "--repeat", "2"]))
    assert cfg.models == ["resnet18"] and cfg.repeat == 2
    cfg = cli.config_from_args(p.parse_args(["--scaling", "--scaling-repeat", "1", "--repeat", "5"]))
    assert cfg.repeat == 1


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--ranks", "0,2"], "--ranks"),
        (["--ranks", "a"], "--ranks"),
        (["--frameworks", "jax"], "--frameworks"),
        (["--repeat", "0"], "--repeat"),
        (["--scaling-timeout", "1"], "--scaling-timeout"),
    ],
)
def test_cli_bad_input_is_a_usage_error(argv, words):
    from advisor.errors import UsageError
    from advisor.commands import scaling as cli

    p = argparse.ArgumentParser()
    cli.add_arguments(p, shared=True)
    with pytest.raises(UsageError, match=words):
        cli.config_from_args(p.parse_args(argv))


def test_standalone_cli_exit_2_on_bad_ranks(capsys):
    from advisor.commands import scaling as cli

    assert cli.main(["--ranks", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--ranks" in err


def test_render_table_and_exit_code(monkeypatch):
    from advisor.commands import scaling as cli
    from advisor.render import renderer

    monkeypatch.setattr(runner, "framework_available", lambda fw: None if fw == "pytorch" else "absent")
    monkeypatch.setattr(runner, "device_for", lambda fw, cfg: ("cpu", 0))
    monkeypatch.setattr(runner.launch, "run_launch", lambda spec, **kw: _outcome(spec.ranks, 0.01, 0.006))
    res = runner.run_scaling(ScalingConfig(repeat=3))
    text = renderer("scaling").format(res)
    assert "not device scaling" in text and "torchrun (gloo)" in text and "unavailable: absent" in text
    assert "40%" in text  # allreduce share of the synthetic runs
    assert cli.exit_code(res) == 0
    res.runs[1].gate.ok = False
    assert cli.exit_code(res) == 1


def test_launcher_facts_are_framework_free_and_judged_in_advisor():
    code = (
        "import sys, json; from probes.scaling.facts import launcher_facts; f = launcher_facts(); "
        "assert 'torch' not in sys.modules and 'mindspore' not in sys.modules; "
        "assert 'advisor' not in sys.modules; print(json.dumps(f))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert out.returncode == 0, out.stderr
    import json

    from advisor.check.scaling import findings

    result = findings(json.loads(out.stdout))
    assert result
    for f in result:
        assert f.severity in ("info", "warning", "error") and f.code.startswith("scaling.")
        assert f.evidence == "launcher readiness"


FACTS = {
    "bindir": "/venv/bin",
    "bindir_has_python": True,
    "torch": False,
    "mindspore": True,
    "torchrun": None,
    "msrun": "/venv/bin/msrun",
    "nvidia_gpus": 0,
    "ascend_npus": 8,
    "usable_cores": 2,
    "nccl": None,
    "hccl": None,
    "rank_table_file": None,
    "rank_table_exists": False,
    "hccl_env": {},
    "loopback": True,
}


@pytest.mark.parametrize(
    "change, code, severity",
    [
        ({"rank_table_file": "/x/missing.json"}, "scaling.rank_table_missing", "error"),
        ({}, "scaling.hccl_missing", "error"),
        ({"hccl": "/usr/local/Ascend/lib64/libhccl.so"}, "scaling.hccl", "info"),
        ({"ascend_npus": 0, "usable_cores": 1}, "scaling.one_core", "warning"),
        ({"ascend_npus": 0, "loopback": False}, "scaling.no_loopback", "warning"),
        ({"bindir_has_python": False}, "scaling.msrun_python", "warning"),
        ({"torch": True, "nvidia_gpus": 2}, "scaling.nccl_missing", "warning"),
        ({"torch": True, "torchrun": None}, "scaling.torchrun_missing", "warning"),
    ],
)
def test_launcher_findings_table(change, code, severity):
    from advisor.check.scaling import findings

    codes = {f.code: f for f in findings({**FACTS, **change})}
    assert codes[code].severity == severity


def test_readiness_ascend_hccl_settings(monkeypatch):
    from advisor.check.scaling import findings

    codes = {f.code: f for f in findings({**FACTS, "hccl_env": {"HCCL_CONNECT_TIMEOUT": "600"}})}
    assert "HCCL_CONNECT_TIMEOUT=600" in codes["scaling.hccl_env"].message


def test_noise_warnings_name_a_busy_host_and_the_one_rank_floor():
    runs = [runner.to_run(_spec(ranks=1), 1, _outcome(1, 0.010, 0.013))]
    fw = runner.summarise("pytorch", "lenet", runs, [1], "cpu", 32, 1)
    warn = runner.noise_warnings([fw], {"loadavg_start": 6.1, "loadavg_end": 1.0}, 2)
    assert any("busy" in w and "6.1" in w for w in warn)
    assert any("noise floor" in w and "-30%" in w for w in warn)
    assert runner.noise_warnings([], {"loadavg_start": 0.5}, 2) == []


def test_cache_round_trip_and_clear(monkeypatch):
    from advisor import cache

    monkeypatch.setattr(runner, "framework_available", lambda fw: None)
    monkeypatch.setattr(runner, "device_for", lambda fw, cfg: ("cpu", 0))
    monkeypatch.setattr(runner.launch, "run_launch", lambda spec, **kw: _outcome(spec.ranks, 0.01, 0.006))
    res = runner.run_scaling(ScalingConfig(repeat=1, frameworks=["pytorch"]))
    assert cache.load_cached_scaling("fp1") is None
    path = cache.save_scaling(res, "fp1")
    back = cache.load_cached_scaling("fp1")
    assert back is not None and back.frameworks[0].efficiency == res.frameworks[0].efficiency
    assert path in cache.clear() and cache.load_cached_scaling("fp1") is None


def test_run_from_args_writes_json_and_caches(monkeypatch, tmp_path, capsys):
    import json

    from advisor import cache as store
    from advisor.commands import scaling as cli

    monkeypatch.setattr(runner, "framework_available", lambda fw: None)
    monkeypatch.setattr(runner, "device_for", lambda fw, cfg: ("cpu", 0))
    monkeypatch.setattr(runner.launch, "run_launch", lambda spec, **kw: _outcome(spec.ranks, 0.01, 0.006))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(store, "host_fingerprint", lambda: "x")
    p = argparse.ArgumentParser()
    cli.add_arguments(p, shared=True)
    out = tmp_path / "scaling.json"
    assert cli.run_from_args(p.parse_args(["--scaling", "-o", str(out), "--repeat", "1"])) == 0
    doc = json.loads(out.read_text())
    assert doc["schema_version"] and doc["kind"] == "scaling" and doc["label"] == "cpu-contention"
    assert {f["framework"] for f in doc["frameworks"]} == {"pytorch", "mindspore"}
    assert (tmp_path / "cache" / "framework-advisor" / "probes-scaling-x.json").exists()
    err = capsys.readouterr().err.splitlines()  # progress on stderr: the plan, then a line per launch
    assert re.match(
        r"advisor: scaling: 4 launches planned, .+ to .+ \(estimate: a first run here", err[0]
    )  # planned before the first starts
    assert err[-2].startswith("advisor: mindspore-lenet-r2-rep1: ") and err[-2].endswith("(4 of 4 launches finished)")
    assert err[-1].startswith("advisor: scaling: finished in ")  # the time it took, which the estimates learn from


def test_hooks_fit_the_real_probe_command():
    probe = pytest.importorskip("advisor.commands.probe")
    from advisor.commands import scaling as cli

    root = argparse.ArgumentParser()
    sub = root.add_subparsers()
    probe.register(sub)
    assert "--ranks" in sub.choices["probe"].format_help()  # the scaling options are on the probe command
    args = root.parse_args(["probe", "--scaling", "--ranks", "1,2", "--frameworks", "pytorch"])
    cfg = cli.config_from_args(args)
    assert cfg.ranks == [1, 2] and cfg.frameworks == ["pytorch"] and cfg.models == ["lenet"]
    assert cfg.repeat == 3


def test_parent_side_modules_load_no_framework_and_no_ui():
    mods = [
        "probes.scaling",
        "advisor.commands.scaling",
        "probes.scaling.runner",
        "probes.scaling.launch",
        "probes.scaling.models",
        "advisor.cache",
        "probes.scaling.facts",
        "advisor.check.scaling",
    ]
    code = (
        "import importlib, sys; [importlib.import_module(m) for m in %r];"
        "print(','.join(m for m in ('textual', 'torch', 'mindspore') if m in sys.modules))" % mods
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


@pytest.mark.parametrize(
    "script, forbidden",
    [
        ("rank_torch.py", "mindspore"),
        ("rank_mindspore.py", "torch"),
        ("rank_common.py", "torch"),
        ("rank_common.py", "mindspore"),
    ],
)
def test_rank_scripts_import_one_framework(script, forbidden):
    import ast

    tree = ast.parse((Path(launch.__file__).parent / script).read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    assert forbidden not in names
    assert names <= {
        "__future__",
        "time",
        "gc",
        "os",
        "sys",
        "contextlib",
        "datetime",
        "argparse",
        "json",
        "statistics",
        "pathlib",
        "numpy",
        "probes",
        "torch",
        "mindspore",
    }


def test_measured_fixture_still_validates():
    """A real result measured on a 2-vCPU host (3 interleaved repetitions, both engines): other
    parts (report, TUI) may use it as their fixture, so the model must keep reading it."""
    from probes.scaling.models import ScalingResult

    res = ScalingResult.model_validate_json((FIXTURES / "scaling-2vcpu-lenet.json").read_text())
    assert res.label == "cpu-contention" and len(res.runs) == 12
    assert all(r.status == "ok" for r in res.runs)
    for fw in res.frameworks:
        two = next(c for c in fw.rank_counts if c.ranks == 2)
        assert two.gate_ok and two.efficiency.n == 3 and 0 < fw.efficiency < 1.5


def test_worker_watch_names_the_rank_that_died_first(monkeypatch, tmp_path):
    states = iter([{0, 1}, {0, 1}, {0}, {0}, set(), set(), set(), set(), set()])
    monkeypatch.setattr(launch, "_runs_rank_script", lambda pid: True)
    monkeypatch.setattr(
        launch,
        "marked_processes",
        lambda marker: {100 + r: {"MS_ROLE": "MS_WORKER", "RANK_ID": str(r)} for r in next(states)},
    )
    watch = launch.WorkerWatch("m", tmp_path)
    results = [watch.dead_ranks() for _ in range(7)]
    assert results[:4] == [None] * 4
    assert results[5] == [1]  # rank 1 vanished one check before rank 0 (killed by msrun)


def test_worker_watch_ignores_ranks_that_finished(monkeypatch, tmp_path):
    (tmp_path / "rank1.json").write_text("{}")
    states = iter([{0, 1}] + [{0}] * 8)
    monkeypatch.setattr(launch, "_runs_rank_script", lambda pid: True)
    monkeypatch.setattr(
        launch,
        "marked_processes",
        lambda marker: {100 + r: {"MS_ROLE": "MS_WORKER", "RANK_ID": str(r)} for r in next(states)},
    )
    watch = launch.WorkerWatch("m", tmp_path)
    assert all(watch.dead_ranks() is None for _ in range(8))


def test_dead_rank_error_blames_the_rank_with_an_error_in_its_log(tmp_path):
    (tmp_path / "worker_0.log").write_text("[INFO] fine\n")
    (tmp_path / "worker_1.log").write_text("Traceback...\nRuntimeError: injected fault in rank 1\n")
    msg = launch._dead_rank_error([0, 1], tmp_path)
    assert msg.startswith("rank 1 exited") and "injected fault in rank 1" in msg
    (tmp_path / "worker_1.log").write_text("")
    assert "ranks 0, 1 (which went first is unknown)" in launch._dead_rank_error([0, 1], tmp_path)
    assert launch._dead_rank_error([1], tmp_path).startswith("rank 1 exited")
