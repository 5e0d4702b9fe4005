"""Values so small they are typos, not plans: a deadline of 5e-324 weeks was blamed on the knowledge
base and 1e-300 printed as a 300-digit percentage; an override peak of 5e-324 TFLOPS underflowed a
projected rate to zero and divided by it. Each is refused where it is read, naming the field."""

from __future__ import annotations

import pytest

from advisor.errors import UsageError
from advisor.requirements import parse_requirements


def _req(deadline):
    return {
        "name": "t",
        "hardware": {"available": ["nvidia"]},
        "deployment": {"targets": ["nvidia-server"]},
        "constraints": {"deadline_weeks": deadline},
    }


@pytest.mark.parametrize("deadline", [5e-324, 1e-300, 0.1])
def test_a_deadline_under_a_day_is_refused(deadline):
    with pytest.raises(UsageError, match="constraints.deadline_weeks"):
        parse_requirements(_req(deadline))


def test_a_day_is_a_deadline():
    assert parse_requirements(_req(1 / 7)).constraints.deadline_weeks == pytest.approx(1 / 7)


def test_an_override_peak_of_5e_324_tflops_is_refused(tmp_path):
    from knowledge.loader import KnowledgeError, load

    (tmp_path / "accelerators.yaml").write_text(
        "accelerators:\n"
        "  - id: ascend-910b\n"
        "    fp16_tflops: {value: 5.0e-324, source: typo, confidence: assumption}\n",
        encoding="utf-8",
    )
    with pytest.raises(KnowledgeError, match="fp16_tflops"):
        load([tmp_path])
