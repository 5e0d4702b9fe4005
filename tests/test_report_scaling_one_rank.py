"""A scaling result that holds one rank per framework (recorded on a lent one-GPU H200 host: torchrun,
NCCL, the 2-rank count skipped as more ranks than devices) gives no communication figure: the report
says so and does not call it used; a multi-rank result is used."""

import json
from pathlib import Path

from advisor.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "nvidia-research-team.yaml"  # asks for distributed training on 4 GPUs
ONE_RANK = ROOT / "tests" / "fixtures" / "scaling" / "scaling-1x-h200-lenet.json"
TWO_RANKS = ROOT / "tests" / "fixtures" / "scaling" / "scaling-2vcpu-lenet.json"


def _scaling(tmp_path, scaling: Path) -> dict:
    out = tmp_path / f"{scaling.stem}.json"
    assert main(["report", str(EXAMPLE), "--scaling", str(scaling), "--no-cache", "--json", "-o", str(out)]) == 0
    return json.loads(out.read_text())["scaling"]


def test_a_one_rank_result_is_shown_not_used_and_says_why(tmp_path):
    info = _scaling(tmp_path, ONE_RANK)
    assert info["label"] == "device-scaling" and info["measurements"] == []
    assert info["used"] is False
    assert "one rank per framework" in info["note"] and "knowledge-base communication derating" in info["note"]


def test_a_multi_rank_result_is_used(tmp_path):
    info = _scaling(tmp_path, TWO_RANKS)
    assert info["used"] is True and {m["ranks"] for m in info["measurements"]} == {2}
    assert "one rank" not in (info["note"] or "")
