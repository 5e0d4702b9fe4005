"""The bad-input catalogue: every file under tests/fixtures/bad-input, fed to every command that
reads a file, is refused with exit 2, one line on stderr naming the file, no traceback, and nothing
written. Add a file to the folder and every command is tried on it."""

from __future__ import annotations

import dataclasses
import os
import resource
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parents[1]
BAD = sorted(
    p for p in (ROOT / "tests" / "fixtures" / "bad-input").iterdir() if p.is_file()
)  # data/: test_hardening_data
EXAMPLE = str(ROOT / "examples" / "prototype-then-ascend.yaml")


def _advisor(argv, capsys):
    from advisor.cli import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def good_report(tmp_path_factory):
    from advisor.cli import main

    path = tmp_path_factory.mktemp("good") / "report.json"
    assert main(["report", EXAMPLE, "--json", "--no-cache", "-o", str(path)]) == 0
    return str(path)


COMMANDS = {
    "report": lambda f, good: ["report", f],
    "report --probes": lambda f, good: ["report", EXAMPLE, "--no-cache", "--probes", f],
    "report --scaling": lambda f, good: ["report", EXAMPLE, "--no-cache", "--scaling", f],
    "compare old": lambda f, good: ["compare", f, good],
    "compare new": lambda f, good: ["compare", good, f],
}


def _applies(command: str, path: Path) -> bool:
    # The requirements reader takes YAML (JSON is YAML too); the JSON readers take JSON.
    return command == "report" or path.suffix == ".json"


CASES = [(c, p) for c in sorted(COMMANDS) for p in BAD if _applies(c, p)]


@pytest.mark.parametrize("command, bad", CASES, ids=[f"{c}:{p.name}" for c, p in CASES])
def test_every_bad_file_is_refused_by_every_reader(command, bad, good_report, capsys, tmp_path):
    out_file = tmp_path / "out.json"
    argv = COMMANDS[command](str(bad), good_report) + ["-o", str(out_file)]
    code, out, err = _advisor(argv, capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("advisor: error: "), err
    assert "Traceback" not in err and bad.name in err
    assert len(err) < 600
    assert not out_file.exists()


# An empty override file adds nothing and is accepted; every other bad YAML file is refused.
KB_BAD = [p for p in BAD if p.suffix == ".yaml" and p.name != "empty.yaml"]


@pytest.mark.parametrize("bad", KB_BAD, ids=lambda p: p.name)
def test_every_bad_yaml_file_is_refused_as_a_knowledge_base_override(bad, capsys, tmp_path):
    folder = tmp_path / "kb"
    folder.mkdir()
    shutil.copy(bad, folder / "accelerators.yaml")
    out_file = tmp_path / "out.json"
    code, out, err = _advisor(["report", EXAMPLE, "--no-cache", "--kb", str(folder), "-o", str(out_file)], capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("advisor: error: "), err
    assert "Traceback" not in err and "accelerators.yaml" in err
    assert len(err) < 600
    assert not out_file.exists()


def test_a_broken_link_or_a_huge_file_in_a_kb_folder_is_bad_input(capsys, tmp_path):
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "broken.yaml").symlink_to(tmp_path / "nowhere.yaml")
    code, out, err = _advisor(["report", EXAMPLE, "--no-cache", "--kb", str(folder)], capsys)
    assert code == 2 and "broken.yaml" in err and err.count("\n") == 1, err
    (folder / "broken.yaml").unlink()
    with open(folder / "huge.yaml", "wb") as fh:
        fh.truncate(5 * 1024 * 1024)  # sparse: no 5 MB written
    code, out, err = _advisor(["report", EXAMPLE, "--no-cache", "--kb", str(folder)], capsys)
    assert code == 2 and "huge.yaml" in err and "bytes" in err, err


@pytest.mark.parametrize(
    "text, needle",
    [
        ('{"schema_version": "9.0", "runs": []}', "schema_version"),
        (
            '{"runs": [{"id": "x", "framework": "pytorch", "mode": "eager", "model": "lenet", "batch_size": 32, '
            '"status": "ok", "images_per_second": -5}]}',
            "runs[0].images_per_second",
        ),
    ],
)
def test_probe_files_with_an_unknown_version_or_negative_throughput_are_bad_input(text, needle, capsys, tmp_path):
    probes = tmp_path / "probes.json"
    probes.write_text(text)
    code, out, err = _advisor(["report", EXAMPLE, "--no-cache", "--probes", str(probes)], capsys)
    assert code == 2 and needle in err and err.count("\n") == 1, err


def test_the_same_probe_file_twice_is_bad_input(capsys, tmp_path):
    probes = tmp_path / "probes.json"
    probes.write_text('{"runs": []}')
    code, out, err = _advisor(["report", EXAMPLE, "--no-cache", "--probes", str(probes), str(probes)], capsys)
    assert code == 2 and "twice" in err, err


def test_every_problem_of_a_requirements_file_is_listed_on_its_one_line(capsys, tmp_path):
    path = tmp_path / "req.yaml"
    path.write_text("name: x\nteam:\n  size: 0\n  pytorch: wizard\ncolour: blue\n")
    code, out, err = _advisor(["report", str(path)], capsys)
    assert code == 2 and err.count("\n") == 1, err
    for field in ("team.size", "team.pytorch", "hardware", "deployment", "colour"):
        assert f"{field}: " in err, field


# --- the fourth round: inputs that are not files of the folder above ------------------------------------
#
# Each case builds its inputs in a work folder and runs the CLI; a case that could hang or eat memory if
# its defect came back runs in a real process under a timeout and a memory cap. The rule is the same:
# exit 2 with one line naming the input (or the exit the case names), no traceback, no "internal error",
# nothing written half-way, no temp file left.

PROBES = ROOT / "tests" / "fixtures" / "report" / "probes-cpu.json"
MEMORY_CAP = 3 * 1024**3


@dataclasses.dataclass
class Case:
    id: str
    setup: Callable[[Path], list]  # makes its inputs under the work folder, returns argv
    needle: str = ""  # in the error line
    code: int = 2
    sub: bool = False  # a real process, under a timeout and a memory cap
    env: dict = dataclasses.field(default_factory=dict)
    shell: str = ""  # appended to the command line (a redirection)
    lines: int = 1  # lines on stderr
    timeout: float = 120


def _fingerprint() -> str:
    from probes.hostfacts import fingerprint

    return fingerprint()


def _cache_entry(t: Path, name: str, make: Callable[[Path], None]) -> None:
    folder = t / "cache" / "framework-advisor"
    folder.mkdir(parents=True, exist_ok=True)
    make(folder / name.replace("FP", _fingerprint()))


def _copy(t: Path, src: Path, name: str) -> str:
    shutil.copy(src, t / name)
    return str(t / name)


def _loop(t: Path, name: str) -> str:
    (t / f"{name}.a").symlink_to(t / f"{name}.b")
    (t / f"{name}.b").symlink_to(t / f"{name}.a")
    return str(t / f"{name}.a")


def _req_with(t: Path, old: str, new: str) -> str:
    text = Path(EXAMPLE).read_text()
    assert old in text
    (t / "req.yaml").write_text(text.replace(old, new, 1))
    return str(t / "req.yaml")


def _code_path(t: Path, target: str) -> str:
    return _req_with(t, "  source: new\n", f"  source: pytorch-code\n  code_path: {target}\n")


def _many_runs(t: Path) -> str:
    import json

    doc = json.loads(PROBES.read_text())
    doc["runs"] = [dict(doc["runs"][i % len(doc["runs"])], id=f"r{i}") for i in range(2000)]
    (t / "many.json").write_text(json.dumps(doc))
    return str(t / "many.json")


def _kb_over_budget(t: Path) -> str:
    folder = t / "kb"
    folder.mkdir()
    entries = "".join(f"  - id: x{i}\n    name: y{i}\n" for i in range(25000))
    for i in range(3):
        (folder / f"f{i}.yaml").write_text("accelerators:\n" + entries)
    return str(folder)


def _chart_taken(t: Path) -> list:
    (t / "r.md").write_text("the review of yesterday\n")
    (t / "r.scores.svg").write_text("<svg>yesterday</svg>")
    (t / "r.sensitivity.svg").mkdir()  # a chart's name taken by a folder: its rename fails
    return ["report", EXAMPLE, "--no-cache", "--markdown", "-o", str(t / "r.md")]


def _cached_string_nan(t: Path) -> list:
    import json

    doc = json.loads(PROBES.read_text())
    doc["runs"][0]["images_per_second"] = "NaN"  # pydantic's lax mode reads it as a float
    _cache_entry(t, "probes-FP.json", lambda p: p.write_text(json.dumps(doc)))
    return ["report", EXAMPLE, "--json", "-o", str(t / "r.json")]


ROUND4: list[Case] = [
    # the measurement cache: read like every input, never waited on
    Case(
        "cache-probes-a-fifo",
        lambda t: (
            _cache_entry(t, "probes-FP.json", os.mkfifo) or ["report", EXAMPLE, "--json", "-o", str(t / "r.json")]
        ),
        code=0,
        sub=True,
        timeout=90,
    ),
    Case(
        "cache-scaling-a-link-to-dev-zero",
        lambda t: (
            _cache_entry(t, "probes-scaling-FP.json", lambda p: p.symlink_to("/dev/zero"))
            or ["report", EXAMPLE, "--json", "-o", str(t / "r.json")]
        ),
        code=0,
        sub=True,
        timeout=90,
    ),
    Case(
        "cache-onednn-a-fifo",
        lambda t: (
            _cache_entry(t, "onednn-FP.json", os.mkfifo) or ["check", "--no-smoke", "--json", "-o", str(t / "c.json")]
        ),
        code=0,
        sub=True,
        timeout=90,
    ),
    Case("cache-a-number-written-as-a-string", _cached_string_nan, code=0),
    # numbers, sizes and work
    Case("probes-2000-runs", lambda t: ["report", EXAMPLE, "--no-cache", "--probes", _many_runs(t)], "many.json: runs"),
    Case(
        "kb-folders-over-their-budget",
        lambda t: ["report", EXAMPLE, "--no-cache", "--kb", _kb_over_budget(t)],
        "bytes of YAML",  # refused from the listing, before a file is parsed
    ),
    # -o: one of the inputs, a folder spelled x/., a loop of links, an unknown user's home
    Case(
        "o-is-the-probes-file",
        lambda t: ["report", EXAMPLE, "--no-cache", "--probes", _copy(t, PROBES, "p.json"), "-o", str(t / "p.json")],
        "p.json: -o: is one of this command's inputs",
    ),
    Case(
        "o-is-the-requirements-through-a-link",
        lambda t: (
            (t / "link.yaml").symlink_to(_copy(t, Path(EXAMPLE), "req.yaml"))
            or ["report", str(t / "req.yaml"), "--no-cache", "-o", str(t / "link.yaml")]
        ),
        "link.yaml: -o: is one of this command's inputs",
    ),
    Case(
        "compare-o-is-old",
        lambda t: ["compare", _good(t), _good(t, "new.json"), "-o", str(t / "old.json")],
        "old.json: -o: is one of this command's inputs",
    ),
    Case(
        "o-a-file-spelled-as-a-folder",
        lambda t: ["report", EXAMPLE, "--no-cache", "-o", str(t / "x.json") + "/."],
        "x.json/.: is a folder",
    ),
    Case("o-a-loop-of-links", lambda t: ["report", EXAMPLE, "--no-cache", "-o", _loop(t, "out")], "out.a"),
    Case("probes-a-loop-of-links", lambda t: ["report", EXAMPLE, "--no-cache", "--probes", _loop(t, "p")], "p.a"),
    Case(
        "o-under-an-unknown-users-home",
        lambda t: ["report", EXAMPLE, "--no-cache", "-o", "~nosuchuser/x.json"],
        "~nosuchuser",
    ),
    Case(
        "config-under-an-unknown-users-home-keeps-the-version",
        lambda t: ["-V"],
        code=0,
        lines=0,
        sub=True,
        env={"ADVISOR_CONFIG": "~nosuchuser/config.toml"},
    ),
    Case(
        "kb-dir-under-an-unknown-users-home",
        lambda t: ["kb", "list"],
        "~nosuchuser/kb",
        sub=True,
        env={"ADVISOR_KB_DIR": "~nosuchuser/kb"},
    ),
    # model.code_path: what `advisor scan` refuses, the report refuses too
    Case(
        "code-path-a-fifo",
        lambda t: os.mkfifo(t / "code") or ["report", _code_path(t, str(t / "code")), "--no-cache"],
        "model.code_path",
    ),
    Case("code-path-dev-null", lambda t: ["report", _code_path(t, "/dev/null"), "--no-cache"], "model.code_path"),
    Case(
        "code-path-an-unknown-users-home",
        lambda t: ["report", _code_path(t, "~nosuchuser/code"), "--no-cache"],
        "model.code_path",
    ),
    # the charts: a rename that fails puts back what was there
    Case("chart-name-taken-by-a-folder", _chart_taken, "r.sensitivity.svg"),
    # config.toml and the command line
    Case(
        "config-a-key-set-twice",
        lambda t: ["config"],
        "probe.budget: set twice",
        env={"ADVISOR_CONFIG": "{t}/c.toml", "_file": '"probe.budget" = 1.0\n[probe]\nbudget = 2.0\n'},
    ),
    Case(
        "config-5000-bad-keys",
        lambda t: ["config"],
        "and 4,991 more problems",
        lines=10,
        env={"ADVISOR_CONFIG": "{t}/c.toml", "_file": "".join(f"k{i} = 1\n" for i in range(5000))},
    ),
    Case(
        "a-bad-config-keeps-report-help",
        lambda t: ["report", "--help"],
        code=0,
        lines=0,
        sub=True,
        env={"ADVISOR_CONFIG": "{t}/c.toml", "_file": "[probe]\nbudget = -1\n"},
    ),
    Case("debug-keeps-exit-2", lambda t: ["--debug", "report", str(t / "nowhere.yaml")], "nowhere.yaml", lines=-1),
    # stdout that cannot be written: one line, exit 2, no "Exception ignored"
    *[
        Case(
            f"stdout-full{'-unbuffered' if unbuf else ''}-{'-'.join(argv)}",
            lambda t, a=argv: list(a),
            "stdout",
            sub=True,
            shell=" >/dev/full",
            env={"PYTHONUNBUFFERED": "1"} if unbuf else {},
        )
        for argv in (("-V",), ("--help",), ("config",), ("completion", "bash"), ("check", "--no-smoke", "--json"))
        for unbuf in ((False, True) if argv in (("-V",), ("--help",)) else (False,))
    ],
]


def _good(t: Path, name: str = "old.json") -> str:
    from advisor.cli import main

    if not (t / name).exists():
        assert main(["report", EXAMPLE, "--no-cache", "--json", "-o", str(t / name)]) == 0
    return str(t / name)


def _environment(case: Case, t: Path) -> dict:
    env = {k: v.replace("{t}", str(t)) for k, v in case.env.items() if not k.startswith("_")}
    if "_file" in case.env:
        Path(env["ADVISOR_CONFIG"]).write_text(case.env["_file"])
    return env


def _snapshot(t: Path) -> dict:
    return {
        str(p.relative_to(t)): (p.read_bytes() if p.is_file() and not p.is_symlink() else None)
        for p in t.rglob("*")
        if "cache" not in p.parts
    }


@pytest.mark.parametrize("case", ROUND4, ids=[c.id for c in ROUND4])
def test_round_four(case: Case, tmp_path, monkeypatch, capsys):
    t = tmp_path / "work"
    t.mkdir()
    (tmp_path / "tmp").mkdir()
    argv = case.setup(t)
    env = _environment(case, t)
    before = _snapshot(t)
    if case.sub:
        full = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "XDG_CACHE_HOME": str(t / "cache"),
            "TMPDIR": str(tmp_path / "tmp"),
            **env,
        }

        def cap():
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

        # exec: the timeout kills the advisor itself, not only the shell that started it
        line = "exec " + " ".join(shlex.quote(a) for a in [sys.executable, "-m", "advisor", *argv]) + case.shell
        proc = subprocess.run(
            ["/bin/sh", "-c", line],
            capture_output=True,
            text=True,
            timeout=case.timeout,
            cwd=t,
            env=full,
            preexec_fn=cap,
        )
        code, err = proc.returncode, proc.stderr
    else:
        from advisor.cli import main

        monkeypatch.chdir(t)
        monkeypatch.setenv("XDG_CACHE_HOME", str(t / "cache"))
        monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        capsys.readouterr()
        code = main(argv)
        err = capsys.readouterr().err
    assert code == case.code, err
    assert "Traceback" not in err or case.lines == -1, err
    assert "internal error" not in err and "Exception ignored" not in err, err
    if case.code == 2:
        errors = [line for line in err.splitlines() if line.startswith("advisor: error: ")]
        assert errors and case.needle in (errors[0] if case.lines == 1 else err), err
        if case.lines > 0:
            assert len(err.splitlines()) == case.lines, err
        assert _snapshot(t) == before  # nothing written, nothing replaced, every earlier file as it was
    elif case.lines == 0:
        assert err == "", err
    assert os.listdir(tmp_path / "tmp") == [], os.listdir(tmp_path / "tmp")
    assert not [p.name for p in t.iterdir() if p.name.startswith(".advisor-")]
