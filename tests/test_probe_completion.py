"""Shell completion offers values and files, not only flags (the old script completed `--models` with
nothing, `kb list` with no sections and `report` with no files): the bash script, run in a real bash."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from advisor.cli import build_parser

shtab = pytest.importorskip("shtab", reason="the completion extra (pip install -e '.[completion]')")
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to run the script in")


def complete(tmp_path, *words: str) -> list[str]:
    """What the generated bash script offers for the last of `words` (an empty string: a new word)."""
    from advisor.commands.completion import script

    (tmp_path / "script.bash").write_text(script("bash", build_parser()))
    line = " ".join(f"'{w}'" for w in words)
    run = f"""
source ./script.bash
COMP_WORDS=({line}); COMP_CWORD=$((${{#COMP_WORDS[@]}}-1)); COMP_LINE="${{COMP_WORDS[*]}}"; COMP_POINT=${{#COMP_LINE}}
_shtab_advisor advisor "${{COMP_WORDS[-1]}}" "${{COMP_WORDS[-2]}}"
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    out = subprocess.run(["bash", "--norc", "-c", run], cwd=tmp_path, capture_output=True, text=True, check=True)
    return sorted(w for w in out.stdout.splitlines() if w)


def test_values_of_the_comma_lists_gpt_included(tmp_path):
    assert complete(tmp_path, "advisor", "probe", "--models", "lenet,res") == ["lenet,resnet18", "lenet,resnet50"]
    assert complete(tmp_path, "advisor", "probe", "--models", "g") == ["gpt"]
    assert complete(tmp_path, "advisor", "probe", "--modes", "eager,") == [
        "eager,compile", "eager,eager", "eager,graph", "eager,pynative"
    ]  # fmt: skip
    assert complete(tmp_path, "advisor", "probe", "--device", "c") == ["cpu", "cuda"]  # choices too


def test_kb_sections_and_files_where_a_command_reads_one(tmp_path):
    from knowledge.models import SECTIONS

    assert complete(tmp_path, "advisor", "kb", "list", "") == sorted(SECTIONS)
    assert complete(tmp_path, "advisor", "kb", "list", "p") == ["pitfalls", "prices"]
    for name in ("team.yaml", "probes.json", "notes.txt"):
        (tmp_path / name).write_text("")
    (tmp_path / "runs").mkdir()
    assert complete(tmp_path, "advisor", "report", "") == ["runs", "team.yaml"]  # YAML and folders
    assert complete(tmp_path, "advisor", "report", "team.yaml", "--probes", "") == ["probes.json", "runs"]
    assert "notes.txt" in complete(tmp_path, "advisor", "report", "team.yaml", "-o", "")  # -o: any file


def test_zsh_script_names_the_same_values():
    from advisor.commands.completion import script

    text = script("zsh", build_parser())
    assert "_sequence compadd - lenet resnet18 resnet50 gpt" in text and "routes" in text
    assert "_files -g '(*.yaml|*.yml)'" in text
