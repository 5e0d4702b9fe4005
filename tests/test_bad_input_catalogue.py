"""The bad-input catalogue: every file under tests/fixtures/bad-input, fed to every command that
reads a file, is refused with exit 2, one line on stderr naming the file, no traceback, and nothing
written. Add a file to the folder and every command is tried on it."""

from __future__ import annotations

import shutil
from pathlib import Path

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
