"""QA regressions found by exercising the CLI as a new user would (fast; no real probes)."""

from __future__ import annotations

import pytest


def test_avx2_rerun_cancel_works_with_the_real_launcher(monkeypatch):
    """`advisor check` said 'could not confirm the fix ('_ConfirmCancel' object has no attribute
    'add_waker')': the rerun's cancel must be something the real launcher can wait on."""
    import probes.check.frameworks as frameworks
    from probes import launcher
    from probes.check.models import ConvCheck, FrameworkInfo, SmokeResult

    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    slow = {"shape": "s", "conv_ms": 100.0, "gemm_ms": 5.0, "ratio": 20.0, "slow": True}

    def fake_run_smoke(name, timeout, env_extra=None, on_message=None, extra_args=(), cancel=None):
        if "--conv-only" in extra_args:  # the rerun: a real (trivial) child under the given cancel
            outcome = launcher.run_child(["-c", "pass"], timeout=20, cancel=cancel)
            assert outcome.returncode == 0, outcome.error
            fast = {**slow, "conv_ms": 8.0, "ratio": 1.6, "slow": False}
            return SmokeResult(status="ok", ok=True, conv_check=ConvCheck(**fast)), {}
        on_message({"kind": "progress", "stage": "conv", **slow})
        return SmokeResult(status="ok", ok=True, seconds=0.1, conv_check=ConvCheck(**slow)), {}

    monkeypatch.setattr(frameworks, "run_smoke", fake_run_smoke)
    cancel = launcher.Cancel()
    results = frameworks.smoke_all([FrameworkInfo(name="mindspore", installed=True)], timeout=30, cancel=cancel)
    check = results["mindspore"]["smoke"].conv_check
    assert check.capped_error is None
    assert check.capped_conv_ms == 8.0 and check.capped_ratio == 1.6
    assert not cancel._wakers  # the caller's cancel is left as it was given


def _advisor(argv, capsys):
    from advisor.cli import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["--scaling-repeat", "0"], "--scaling-repeat:"),
        (["--repeat", "30"], "--repeat:"),
    ],
)
def test_scaling_repeat_error_names_the_flag_given(argv, flag, capsys, tmp_path):
    """`--scaling --scaling-repeat 0` blamed --repeat, a flag the user never typed."""
    out_file = tmp_path / "s.json"
    code, out, err = _advisor(["probe", "--scaling", *argv, "-o", str(out_file)], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"advisor: error: {flag}"), err
    assert not out_file.exists()


@pytest.mark.parametrize(
    "name, content, reason",
    [
        ("blob.py", b"\x00\x01\x02binary", "binary file"),
        ("broken.py", b"def f(:\n    pass\n", "does not parse: invalid syntax (line 1)"),
    ],
)
def test_scan_of_one_unreadable_file_is_bad_input(name, content, reason, capsys, tmp_path):
    """`advisor scan blob.py` printed 'Effort: 0-0 h, Risk: low, Route: manual rewrite' and exit 0
    for a named file it could not read at all."""
    target = tmp_path / name
    target.write_bytes(content)
    out_file = tmp_path / "scan.json"
    code, out, err = _advisor(["scan", str(target), "--json", "-o", str(out_file)], capsys)
    assert code == 2 and out == "" and not out_file.exists()
    assert err.count("\n") == 1 and name in err and reason in err, err


def test_scan_of_a_folder_with_a_broken_file_still_reports(capsys, tmp_path):
    (tmp_path / "ok.py").write_text("import torch\nx = torch.zeros(3)\n")
    (tmp_path / "broken.py").write_text("def f(:\n")
    code, out, err = _advisor(["scan", str(tmp_path), "--json"], capsys)
    import json

    doc = json.loads(out)
    assert code == 0 and doc["python_files"] == 1
    assert [s["file"] for s in doc["skipped"]] == ["broken.py"]


def test_scan_without_pytorch_code_does_not_claim_standard_layers(capsys, tmp_path):
    """A folder without PyTorch code was 'a small code base of standard layers with one-to-one
    mappings' and 'every API has an equivalent'."""
    (tmp_path / "util.py").write_text("import os\nprint(os.getcwd())\n")
    code, out, err = _advisor(["scan", str(tmp_path)], capsys)
    assert code == 0, err
    assert "standard layers" not in out and "every API has an equivalent" not in out
    assert "no PyTorch code found" in out


def test_kb_file_level_problem_has_no_placeholder_entry_or_field(capsys, tmp_path):
    """A YAML syntax error read "x.yaml: entry '-': field '-': not valid YAML ..."."""
    (tmp_path / "broken.yaml").write_text("costs: [ {id: x, usd: {value: 1\n")
    code, out, err = _advisor(["kb", "list", "costs", "--kb", str(tmp_path)], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "broken.yaml: not valid YAML" in err and "'-'" not in err, err
    code, out, err = _advisor(["kb", "validate", str(tmp_path)], capsys)
    assert code == 1 and "broken.yaml: not valid YAML" in out and "'-'" not in out


def test_kb_without_action_is_one_line_on_stderr(capsys):
    code, out, err = _advisor(["kb"], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "list, show or validate" in err


def test_check_table_fits_80_columns():
    """The findings grid was ~150 columns wide whatever the terminal: unreadable at 80."""
    from advisor.check.host import run_check
    from advisor.render import renderer
    from probes.check.models import Finding

    report = run_check(smoke=False, use_kb=False)
    report.findings.append(
        Finding(
            severity="warning",
            code="mindspore_onednn_reference_conv",
            message="MindSpore convolutions fall back to oneDNN reference kernels on this CPU: " * 3,
            fix="set ONEDNN_MAX_CPU_ISA=AVX2 in the environment of MindSpore processes only " * 2,
        )
    )
    narrow = renderer("check", width=80).format(report)
    assert max(len(line) for line in narrow.splitlines()) <= 80, narrow
    assert "WARN  mindspore_onednn_reference_conv" in narrow and "fix: set ONEDNN_MAX_CPU_ISA" in narrow
    wide = renderer("check", width=160).format(report)
    assert max(len(line) for line in wide.splitlines()) <= 160 and "┌" in wide  # room for the grid


@pytest.mark.parametrize("scaling", [[], ["--scaling", "--ranks", "1"]])
@pytest.mark.parametrize("bad", ["missing/p.json", "."])
def test_probe_refuses_a_bad_output_before_measuring(scaling, bad, capsys, tmp_path, monkeypatch):
    """`advisor probe -o missing/p.json` measured for minutes, then failed to write (a folder as -o
    was an internal error)."""
    import probes.training.runner
    import probes.scaling.runner

    def must_not_run(*a, **k):
        raise AssertionError("measured before checking -o")

    monkeypatch.setattr(probes.training.runner, "run_suite", must_not_run)
    monkeypatch.setattr(probes.scaling.runner, "run_scaling", must_not_run)
    code, out, err = _advisor(
        ["probe", *scaling, "--models", "lenet", "--budget", "1", "-o", str(tmp_path / bad)], capsys
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("advisor: error: "), err


@pytest.mark.parametrize(
    "argv", [["scan", "."], ["check", "--no-smoke"], ["kb", "list"], ["kb", "show", "h200"], ["kb", "validate"]]
)
def test_a_folder_as_output_is_bad_input(argv, capsys, tmp_path):
    """`-o SOME_FOLDER` was 'advisor: internal error: IsADirectoryError' with exit 1."""
    code, out, err = _advisor([*argv, "-o", str(tmp_path)], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "is a folder" in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["nan", "inf", "0"])
def test_check_timeout_must_be_a_finite_positive_number(value, capsys):
    code, out, err = _advisor(["check", "--no-smoke", "--timeout", value], capsys)
    assert code == 2 and out == "" and err.startswith("advisor: error: --timeout:"), err


def test_pytorch_only_probe_has_no_mindspore_tuning_note(monkeypatch):
    """`advisor probe --frameworks pytorch` noted 'ONEDNN_MAX_CPU_ISA=AVX2 for MindSpore' though no
    MindSpore run was made. Fake workers (tests/fixtures/probe/fake_worker.py) speak the channel."""
    from probes.training import runner
    from probes.training.models import ProbeConfig

    monkeypatch.setattr(
        runner,
        "WORKER",
        {"pytorch": "tests.fixtures.probe.fake_worker", "mindspore": "tests.fixtures.probe.fake_worker"},
    )
    monkeypatch.setenv("ADVISOR_FAKE_WORKER", "ok")
    monkeypatch.setattr(runner, "mindspore_env", lambda *a: ({"GLOG_v": "3"}, ["MINDSPORE NOTE"]))
    config = dict(models=["lenet"], parity=False, budget=1.0, batch_size=8)
    suite = runner.run_suite(ProbeConfig(frameworks=["pytorch"], modes=["eager"], **config))
    assert "MINDSPORE NOTE" not in suite.warnings
    suite = runner.run_suite(ProbeConfig(frameworks=["mindspore"], modes=["graph"], **config))
    assert "MINDSPORE NOTE" in suite.warnings


@pytest.mark.parametrize(
    "argv", [["--ranks", "1,2"], ["--scaling-steps", "5"], ["--scaling-timeout", "60"], ["--scaling-repeat", "1"]]
)
def test_scaling_options_without_scaling_are_refused(argv, capsys, monkeypatch):
    """`advisor probe --ranks 1,2` silently ran the training probe and ignored --ranks."""
    import probes.training.runner

    monkeypatch.setattr(probes.training.runner, "run_suite", lambda *a, **k: pytest.fail("probe ran"))
    code, out, err = _advisor(["probe", *argv], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"advisor: error: {argv[0]}:") and "--scaling" in err


def test_scaling_steps_zero_is_refused_not_defaulted(capsys, monkeypatch):
    import probes.scaling.runner

    monkeypatch.setattr(probes.scaling.runner, "run_scaling", lambda *a, **k: pytest.fail("probe ran"))
    code, out, err = _advisor(["probe", "--scaling", "--scaling-steps", "0"], capsys)
    assert code == 2 and err.startswith("advisor: error: --scaling-steps:"), err


def test_scan_text_fits_80_columns(tmp_path):
    """The API table was ~170 columns wide (hazards ~125) whatever the terminal."""
    from pathlib import Path

    from advisor.scan import scan_path
    from advisor.render import renderer

    for src in (Path(__file__).parent / "fixtures" / "scan").glob("*.txt"):
        (tmp_path / src.name[: -len(".txt")]).write_bytes(src.read_bytes())
    text = renderer("scan", width=80).format(scan_path(tmp_path))
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert "custom_extension x3" in text and "torch.nn.BatchNorm2d x2 -> mindspore.nn.BatchNorm2d" in text
    assert "fix: Replace each kernel" in text


def test_probe_table_fits_80_columns():
    """The probe table was ~150 columns wide and notes ran to ~160 whatever the terminal."""
    from advisor.render import renderer
    from probes.training.models import ProbeConfig, ProbeRun, ProbeSuite

    run = ProbeRun(
        id="mindspore-pynative-resnet18-bs32",
        framework="mindspore",
        mode="pynative",
        model="resnet18",
        batch_size=32,
        status="unavailable",
        error="mindspore cannot use an NVIDIA GPU (CUDA) on this host " * 2,
    )
    suite = ProbeSuite(config=ProbeConfig(), runs=[run], warnings=["a long note " * 12])
    text = renderer("probe", width=80).format(suite)
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert "mindspore-pynative-resnet18-bs32  unavailable" in text and "NVIDIA GPU (CUDA)" in text


def test_scaling_table_fits_80_columns(monkeypatch):
    """The scaling table was ~200 columns wide whatever the terminal. Synthetic launches (as in
    tests/test_scaling_launch.py): no rank is started."""
    from advisor.render import renderer
    from probes.scaling import runner
    from probes.scaling.models import ScalingConfig

    def outcome(spec, **kw):  # synced step 10 ms, no-sync 6 ms: allreduce share 40%
        ranks = [
            {
                "sync_step_s": [0.01] * 5,
                "nosync_step_s": [0.006] * 5,
                "init_seconds": 0.5,
                "launcher_seconds": 1.0,
                "first_step_seconds": 0.1,
                "loss_first": 2.3,
                "loss_last": 2.1,
            }
            for _ in range(spec.ranks)
        ]
        doc = {
            "world_size": spec.ranks,
            "backend": "gloo",
            "ranks": ranks,
            "gate": {"sync_max_abs_diff": 0.0, "nosync_max_abs_diff": 0.2, "param_count": 10},
        }
        return runner.launch.LaunchOutcome(status="ok", command=["torchrun"], result=doc, seconds=6.0)

    monkeypatch.setattr(runner, "framework_available", lambda fw: None if fw == "pytorch" else "absent")
    monkeypatch.setattr(runner, "device_for", lambda fw, cfg: ("cpu", 0))
    monkeypatch.setattr(runner.launch, "run_launch", outcome)
    text = renderer("scaling", width=80).format(runner.run_scaling(ScalingConfig(repeat=3)))
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert "pytorch torchrun (gloo) lenet, 2 rank(s):" in text and "allreduce 40%" in text
    assert "mindspore msrun lenet: unavailable: absent" in text
    wide = renderer("scaling", width=400).format(runner.run_scaling(ScalingConfig(repeat=3)))
    lines = wide.splitlines()
    header = next(line for line in lines if line.startswith("framework"))
    row = next(line for line in lines if line.startswith("mindspore"))
    assert row.index("unavailable: absent") == header.index("gate / runs")  # it sat under 'launch s'


def test_kb_show_in_the_wrong_section_names_the_section(capsys):
    code, out, err = _advisor(["kb", "show", "h200", "--section", "costs"], capsys)
    assert code == 2 and out == "" and "no entry with id 'h200' in costs" in err
    assert "advisor kb list costs" in err


def test_probe_help_states_the_defaults_it_uses(capsys):
    """--models, --modes, --repeat and --device had no default in --help."""
    from advisor.cli import main
    from probes.training.models import ProbeConfig

    with pytest.raises(SystemExit):
        main(["probe", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    config = ProbeConfig()
    assert f"(default {','.join(config.models)};" in text and f"(default {config.repeat};" in text
    assert "(default: all four)" in text and len(config.modes) == 4
    assert "(default auto:" in text


@pytest.mark.parametrize("argv", [["--data", "."], ["--budget", "3"], ["--no-parity"], ["--modes", "eager"]])
def test_training_options_with_scaling_are_refused(argv, capsys, monkeypatch):
    """`advisor probe --scaling --data DIR` measured synthetic data and said nothing of --data."""
    import probes.scaling.runner

    monkeypatch.setattr(probes.scaling.runner, "run_scaling", lambda *a, **k: pytest.fail("probe ran"))
    code, out, err = _advisor(["probe", "--scaling", *argv], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"advisor: error: {argv[0]}:") and "--scaling" in err


def test_scan_worst_case_is_not_rounded_below_the_range(capsys, tmp_path):
    """One nn.Linear: 'Effort: 0.05-0.25 h, worst case 0 h' (the worst case printed with .0f)."""
    (tmp_path / "m.py").write_text("import torch\nlayer = torch.nn.Linear(2, 2)\n")
    code, out, err = _advisor(["scan", str(tmp_path)], capsys)
    assert code == 0 and "worst case 0 h" not in out
    assert "worst case 0.29 h" in out, out


def test_kb_list_fits_80_columns(capsys, monkeypatch):
    """`advisor kb list` padded every id to the longest id of any section: 239 lines over 80."""
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = _advisor(["kb", "list"], capsys)
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "  h200            NVIDIA H200" in out  # the accelerators' own id column (14: v100-pcie-32gb)


def test_probe_batch_size_has_an_upper_bound(capsys):
    from advisor.cli import main

    assert main(["probe", "--batch-size", "1000000", "--models", "lenet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--batch-size" in err[0] and "4096" in err[0]
