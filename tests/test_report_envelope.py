"""The report envelope carries what the decision model judged, whole: the mandate's two readings and
the flip between them, and a timestamp a reproducible build can fix (SOURCE_DATE_EPOCH)."""

from __future__ import annotations

from pathlib import Path

import pytest

import knowledge
from advisor.measurements import Measurements
from advisor.report import build_report, source_date
from advisor.requirements import load_requirements

TEAMS = Path(__file__).parent / "fixtures" / "teams"


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


def test_the_mandate_readings_and_flip_reach_the_json(kb):
    report = build_report(load_requirements(TEAMS / "government-tender.yaml"), Measurements(), kb=kb, created_at="x")
    doc = report.model_dump(mode="json")
    readings = {r["reading"]: r for r in doc["mandate_readings"]}
    assert set(readings) == {"hardware-and-framework", "hardware-only"}
    assert readings["hardware-and-framework"]["workflow"] != readings["hardware-only"]["workflow"]
    assert doc["mandate_flip"] and "domestic_substitution=required" in doc["mandate_flip"]


@pytest.mark.parametrize(
    "value, expected",
    [("1764547200", "2025-12-01T00:00:00Z"), ("", None), ("12abc", None), ("-5", None), ("9" * 13, None)],
)
def test_source_date_epoch(monkeypatch, value, expected):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    assert source_date() == expected


def test_the_same_inputs_give_the_same_timestamp_under_source_date_epoch(monkeypatch, kb):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764547200")
    req = load_requirements(Path(__file__).parents[1] / "examples" / "nvidia-research-team.yaml")
    first = build_report(req, Measurements(), kb=kb)
    assert first.created_at == "2025-12-01T00:00:00Z"
    assert build_report(req, Measurements(), kb=kb).model_dump_json() == first.model_dump_json()
