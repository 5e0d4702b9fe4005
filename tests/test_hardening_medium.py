"""The hardening review's medium and low items: each a real input or fault, the rule the README states (one line
naming file and field, exit 2, no output file, bounded time)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "prototype-then-ascend.yaml")


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line(code, err):
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("advisor: error: "), err
    assert "Traceback" not in err
    return err


def sub(*argv, shell_suffix="", env=None, timeout=60):
    """The CLI in a real process (closed descriptors need one)."""
    cmd = " ".join([sys.executable, "-m", "advisor", *argv]) + shell_suffix
    return subprocess.run(
        ["/bin/sh", "-c", cmd],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )


# --- the TUI's export and -o onto a FIFO ------------------------------------------------------------


def test_export_onto_an_existing_fifo_is_refused_at_once(tmp_path, monkeypatch):
    from advisor.output import export_file

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    opened = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda path, *a, **k: opened.append(str(path)) or real_open(path, *a, **k))
    with pytest.raises(UsageError, match="not a regular file"):
        export_file(fifo, "# report\n")
    assert str(fifo) not in opened  # refused before any open: no reader awaited


def test_o_onto_a_fifo_without_a_reader_is_one_line_not_a_hang(tmp_path, monkeypatch, capsys):
    import advisor.output as output

    monkeypatch.setattr(output, "FIFO_READER_WAIT_S", 0.3)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = run(["report", EXAMPLE, "--no-cache", "--json", "-o", str(fifo)], capsys)
    assert "no reader after 0.3 s" in one_line(code, err)  # the bounded wait ended it, not a reader


# --- config.toml --------------------------------------------------------------------------------------


def test_a_fifo_as_config_file_never_hangs_version_or_commands(tmp_path):
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    env = {"ADVISOR_CONFIG": str(fifo)}
    proc = sub("-V", env=env, timeout=30)
    assert proc.returncode == 0 and "advisor" in proc.stdout
    proc = sub("config", env=env, timeout=30)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr and proc.stderr.count("\n") == 1


def test_home_a_regular_file_still_gives_version_and_help(tmp_path):
    home = tmp_path / "home"
    home.write_text("not a folder")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": "", "XDG_CACHE_HOME": str(tmp_path / "c")}
    assert sub("-V", env=env).returncode == 0
    assert sub("--help", env=env).returncode == 0
    assert sub("config", env=env).returncode == 0


@pytest.mark.parametrize(
    "text, needle",
    [
        ("a = " + "[" * 500 + "]" * 500 + "\n", "nested too deeply|a: unknown setting"),
        ("[probe]\nbudget = " + "9" * 5000 + "\n", "invalid value"),
        ("[probe]\n\x1b]0;owned\x07budget = 1\n", "not valid TOML"),
        ('["\x1b[2Jprobe"]\nbudget = 1\n', "not valid TOML"),
        ('["p\\u001b[2Jrobe"]\nbudget = 1\n', "unknown setting"),
    ],
    ids=["500-deep", "5000-digit-int", "escape-in-key", "escape-in-section", "escaped-escape-in-section"],
)
def test_hostile_config_files_are_one_clean_line(tmp_path, monkeypatch, capsys, text, needle):
    cfg = tmp_path / "config.toml"
    cfg.write_text(text)
    monkeypatch.setenv("ADVISOR_CONFIG", str(cfg))
    code, _, err = run(["config"], capsys)
    line = one_line(code, err)
    # 500-deep: tomllib's recursion limit depends on the stack it starts from; either refusal is one line
    assert any(n in line for n in needle.split("|")) and "\x1b" not in line and len(line) < 600


def test_a_zero_device_as_config_is_refused_without_reading_it(monkeypatch, capsys):
    monkeypatch.setenv("ADVISOR_CONFIG", "/dev/zero")
    code, _, err = run(["config"], capsys)
    assert "not a regular file" in one_line(code, err)


# --- JSON output: no NaN or infinity by construction --------------------------------------------------


def test_to_json_refuses_non_finite_numbers_naming_the_field():
    from advisor.output import to_json

    with pytest.raises(UsageError, match=r"runs\[1\]\.images_per_second: not a finite number"):
        to_json({"runs": [{"images_per_second": 1.0}, {"images_per_second": float("inf")}]})
    assert to_json({"a": 1e308}) == '{\n  "a": 1e+308\n}\n'


@pytest.mark.parametrize(
    "override, needle",
    [
        ("fp16_tflops: {value: .inf, source: x, confidence: blog}", "expected a finite number"),
        ("fp16_tflops: {value: 1e308, source: x, confidence: blog}", "0.001 to 100000 TFLOPS"),
        ("usable_memory_gb: {value: 0, source: x, confidence: assumption}", "more than 0"),
        ("memory_gb: {value: -100, source: x, confidence: assumption}", "more than 0"),
    ],
)
def test_out_of_range_kb_overrides_are_bad_input(tmp_path, capsys, override, needle):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "accelerators.yaml").write_text(f"accelerators:\n  - id: ascend-910b\n    {override}\n")
    out = tmp_path / "out.json"
    code, _, err = run(["report", EXAMPLE, "--no-cache", "--kb", str(kb), "--json", "-o", str(out)], capsys)
    line = one_line(code, err)
    assert needle in line and "accelerators.yaml" in line and "ascend-910b" in line
    assert not out.exists()


def test_a_duplicate_key_in_a_kb_override_is_bad_input(tmp_path, capsys):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "prices.yaml").write_text(
        "accelerators:\n  - id: ascend-910b\n    tdp_w: {value: 300, source: x, confidence: blog}\n"
        "    tdp_w: {value: 310, source: x, confidence: blog}\n"
    )
    code, _, err = run(["report", EXAMPLE, "--no-cache", "--kb", str(kb), "--json"], capsys)
    assert "duplicate key 'tdp_w'" in one_line(code, err)


# --- YAML 1.2 scalars in every YAML file ---------------------------------------------------------------


def test_yaml_1_1_coercions_are_gone():
    from advisor.safe_yaml import load_yaml

    doc = load_yaml("a: 1:30\nb: 010\nc: no\nd: true\ne: 0o10\nf: 1e3\ng: 0x10\nh: 2026-12-01\n", "t.yaml")
    assert doc["a"] == "1:30" and doc["b"] == 10 and doc["c"] == "no" and doc["d"] is True
    assert doc["e"] == 8 and doc["f"] == 1000.0 and doc["g"] == 16
    assert str(doc["h"]) == "2026-12-01"


def test_devices_1_30_is_refused_not_read_as_90(tmp_path, capsys):
    req = tmp_path / "req.yaml"
    req.write_text(Path(EXAMPLE).read_text().replace("devices: 8", "devices: 1:30"))
    code, _, err = run(["report", str(req), "--no-cache", "--json"], capsys)
    assert "devices" in one_line(code, err)


def test_a_nul_byte_in_yaml_is_one_line(tmp_path, capsys):
    req = tmp_path / "req.yaml"
    req.write_bytes(b"name: a\x00b\n")
    code, _, err = run(["report", str(req), "--no-cache", "--json"], capsys)
    line = one_line(code, err)
    assert "\x00" not in line and "req.yaml" in line


# --- result files: ranges, nesting, escaping at load ---------------------------------------------------


def _probe_file(tmp_path, mutate) -> Path:
    import json

    data = json.loads((ROOT / "tests" / "fixtures" / "report" / "probes-cpu.json").read_text())
    mutate(data)
    path = tmp_path / "probes.json"
    path.write_text(json.dumps(data))
    return path


def _nest(depth: int) -> dict:
    node: dict = {"x": 1}
    for _ in range(depth):
        node = {"x": node}
    return node


@pytest.mark.parametrize(
    "mutate, needle",
    [
        (lambda d: d["runs"][0].update(ci95=[1.0]), "expected ci95 [low, high]"),
        (lambda d: d["runs"][0].update(ci95=[1e6, 1]), "low <= high"),
        (lambda d: d["runs"][0].update(images_per_second=1e300), "0 to 1e+09 images/s"),
        (lambda d: d["runs"][0].update(peak_memory_mb=-100), "-100.0 is negative: expected 0 to 1e+08 MB"),
        (lambda d: d["runs"][0].update(extra=_nest(900)), "nested deeper"),
    ],
    ids=["ci95-one-number", "ci95-reversed", "throughput-1e300", "memory-negative", "900-deep-extra"],
)
def test_absurd_probe_files_are_one_line(tmp_path, capsys, mutate, needle):
    path = _probe_file(tmp_path, mutate)
    code, _, err = run(["report", EXAMPLE, "--no-cache", "--probes", str(path), "--json"], capsys)
    line = one_line(code, err)
    assert needle in line and "probes.json" in line


def test_a_lone_surrogate_in_a_probe_file_never_crashes_o(tmp_path, capsys):
    path = tmp_path / "probes.json"
    text = (ROOT / "tests" / "fixtures" / "report" / "probes-cpu.json").read_text()
    path.write_text(text.replace('"warnings": []', '"warnings": ["bad \\ud800 text"]', 1))
    out = tmp_path / "report.md"
    code, _, err = run(["report", EXAMPLE, "--no-cache", "--probes", str(path), "--markdown", "-o", str(out)], capsys)
    assert code == 0, err
    out.read_text(encoding="utf-8")  # valid UTF-8


def test_result_file_text_is_one_line_once_loaded(tmp_path):
    from advisor.commands.report import load_probe_file

    path = _probe_file(tmp_path, lambda d: d.update(warnings=["line\n# heading\x1b[2J"]))
    suite = load_probe_file(str(path))
    assert suite.warnings == ["line # heading"]


# --- missing extras, closed descriptors -----------------------------------------------------------------


def test_a_missing_extra_names_the_extra_and_how_to_install_it(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "sklearn" else real(name, *a))
    code, _, err = run(["probe", "--accuracy", "--frameworks", "pytorch"], capsys)
    line = one_line(code, err)
    assert "needs the 'accuracy' extra" in line and "pip install -c constraints.txt -e '.[accuracy]'" in line


def test_an_import_error_of_an_extra_module_is_one_line_not_internal(monkeypatch, capsys):
    import advisor.commands.config as config_cmd

    def boom(args):
        raise ModuleNotFoundError("No module named 'onnxruntime'", name="onnxruntime")

    monkeypatch.setattr(config_cmd, "run", boom)
    code, _, err = run(["config"], capsys)
    assert "the 'deploy' extra" in one_line(code, err)


def test_extras_lists_every_pyproject_extra_but_test_and_dev():
    import tomllib

    from advisor.extras import EXTRAS, check_line, present

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert sorted(e.name for e in EXTRAS) == sorted(set(declared) - {"test", "dev"})
    state = present()
    assert state["pytorch"] is True  # this venv has torch (the suite's own machine kind)
    assert check_line().startswith("extras: ") and "pytorch" in check_line()


@pytest.mark.parametrize("argv", [["config"], ["config", "--path"], ["completion", "bash"]])
def test_a_closed_stdout_is_an_error_not_exit_0(argv):
    proc = sub(*argv, shell_suffix=" >&-")
    assert proc.returncode == 2, proc.stderr
    assert "stdout" in proc.stderr and "Traceback" not in proc.stderr


def test_tui_with_stdin_closed_is_one_line():
    proc = sub("tui", shell_suffix=" <&-")
    assert proc.returncode == 2, proc.stderr
    assert "needs a terminal" in proc.stderr and "Traceback" not in proc.stderr


def test_error_lines_carry_no_terminal_escapes(tmp_path, capsys):
    req = tmp_path / "req.yaml"
    req.write_text(Path(EXAMPLE).read_text() + '"\\e]0;owned\\a\\e[2Jbogus": 1\n')
    code, _, err = run(["report", str(req), "--no-cache", "--json"], capsys)
    line = one_line(code, err)
    assert "\x1b" not in line and "\x07" not in line


# --- requirements ranges, long names, thread caps -------------------------------------------------------


@pytest.mark.parametrize(
    "old, new, needle",
    [
        ("dataset_samples: 500000", "dataset_samples: " + "9" * 4000, "integer of 4000 digits"),
        ("  epochs: 60", "  epochs: 60\n  gflops_per_sample: 1e300", "gflops_per_sample"),
    ],
    ids=["4000-digit-samples", "gflops-1e300"],
)
def test_absurd_requirements_are_one_line(tmp_path, capsys, old, new, needle):
    req = tmp_path / "req.yaml"
    req.write_text(Path(EXAMPLE).read_text().replace(old, new))
    code, _, err = run(["report", str(req), "--no-cache", "--json"], capsys)
    line = one_line(code, err)
    assert needle in line and "req.yaml" in line


@pytest.mark.parametrize("where", ["-o", "--kb", "scan"])
def test_a_300_character_path_component_is_one_line(tmp_path, capsys, where):
    long = str(tmp_path / ("x" * 300))
    argv = {
        "-o": ["report", EXAMPLE, "--no-cache", "--json", "-o", long + "/out.json"],
        "--kb": ["report", EXAMPLE, "--no-cache", "--kb", long, "--json"],
        "scan": ["scan", long],
    }[where]
    code, _, err = run(argv, capsys)
    assert "File name too long" in one_line(code, err)


def test_a_legal_250_character_output_name_is_written(tmp_path, capsys):
    out = tmp_path / ("y" * 250)
    code, _, err = run(["report", EXAMPLE, "--no-cache", "--json", "-o", str(out)], capsys)
    assert code == 0, err
    assert out.read_text().startswith("{") and sorted(p.name for p in tmp_path.iterdir()) == [out.name]


@pytest.mark.parametrize("extra", [[], ["--scaling"]])
def test_threads_beyond_the_cap_are_refused(capsys, extra):
    code, _, err = run(["probe", *extra, "--frameworks", "pytorch", "--threads", "100000"], capsys)
    assert "--threads: expected 1 to 1024" in one_line(code, err)


def test_with_stderr_closed_nothing_lands_in_the_json_on_stdout(tmp_path):
    proc = sub("report", EXAMPLE, "--no-cache", "--json", shell_suffix=" 2>&-")
    assert proc.returncode == 0
    import json

    assert json.loads(proc.stdout)["schema_version"]


@pytest.mark.parametrize("version", ["9.0", "99.0", 2])
def test_a_report_of_an_unknown_schema_version_is_refused_by_compare(tmp_path, capsys, version):
    import json

    good = tmp_path / "good.json"
    assert main(["report", EXAMPLE, "--no-cache", "--json", "-o", str(good)]) == 0
    capsys.readouterr()
    data = json.loads(good.read_text())
    data["schema_version"] = version
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code, _, err = run(["compare", str(good), str(bad)], capsys)
    assert "schema_version" in one_line(code, err) and "bad.json" in err
