"""User overrides: merged by id over the bundled files (--kb / ADVISOR_KB_DIR), validated the same way;
bad files give one line naming file, entry and field."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import knowledge
from knowledge.loader import check

OVERRIDES = Path(__file__).parent / "fixtures" / "knowledge" / "overrides"


def test_override_merges_fields_by_id():
    base = knowledge.load()
    kb = knowledge.load([OVERRIDES / "prices"])
    cost = kb.get("ascend-910b-hour")
    assert cost.usd.value == 1.9 and cost.usd.confidence == "vendor"
    assert str(cost.as_of) == "2026-03-01"
    # fields the override does not name are kept from the bundled entry
    bundled = base.get("ascend-910b-hour")
    assert (cost.kind, cost.accelerator, cost.unit) == (bundled.kind, bundled.accelerator, bundled.unit)
    assert kb.get("engineer-day").usd.value == 640
    assert len(kb.costs) == len(base.costs)  # replaced, not appended
    assert kb.version != base.version
    assert base.get("ascend-910b-hour").usd.confidence == "assumption"  # the cached bundled KB is untouched


def test_override_adds_new_entries_that_reference_each_other():
    kb = knowledge.load([OVERRIDES / "new-hardware"])
    acc = kb.find_accelerator("910B9X")
    assert acc is not None and acc.id == "lab-npu"
    assert kb.costs_for("accelerator_hour", "lab-npu")[0].usd.value == 0.9
    assert any(s.endswith("lab.yaml") for s in kb.sources)


def test_environment_variable_and_order(monkeypatch, tmp_path):
    later = tmp_path / "later"
    later.mkdir()
    (later / "costs.yaml").write_text(
        "- id: engineer-day\n  usd: {value: 800, source: later rate card, confidence: vendor}\n"
    )
    monkeypatch.setenv("ADVISOR_KB_DIR", os.pathsep.join([str(OVERRIDES / "prices"), str(OVERRIDES / "new-hardware")]))
    kb = knowledge.load()
    assert kb.get("ascend-910b-hour").usd.value == 1.9 and kb.get("lab-npu") is not None
    assert kb.get("engineer-day").usd.value == 640
    assert knowledge.load([later]).get("engineer-day").usd.value == 800  # explicit dirs after the env var


def test_cache_notices_edited_override(tmp_path):
    (tmp_path / "costs.yaml").write_text("- id: pue\n  usd: {low: 1.1, high: 1.3, source: ours, confidence: vendor}\n")
    assert knowledge.load([tmp_path]).get("pue").usd.high == 1.3
    (tmp_path / "costs.yaml").write_text("- id: pue\n  usd: {low: 1.1, high: 1.45, source: ours, confidence: vendor}\n")
    assert knowledge.load([tmp_path]).get("pue").usd.high == 1.45


@pytest.mark.parametrize(
    "folder, fragments",
    [
        (
            "bad-field",
            ["bad-field/costs.yaml", "entry 'ascend-910b-hour'", "field 'usd.confidence'", "bad value 'sure'"],
        ),
        ("bad-yaml", ["bad-yaml/costs.yaml", "not valid YAML", "line"]),
        (
            "broken-ref",
            [
                "broken-ref/refs.yaml",
                "entry 'my-op'",
                "field 'pitfall'",
                "broken cross-reference",
                "no-such-pitfall",
                "1 more problem;",
            ],
        ),
        ("dup-id", ["dup-id/a.yaml", "entry 'our-pitfall'", "field 'id'", "duplicate id"]),
        (
            "missing-source",
            ["missing-source/derating.yaml", "entry 'our-derating'", "field 'loss.source'", "missing source"],
        ),
    ],
)
def test_bad_override_gives_one_clear_line(folder, fragments):
    with pytest.raises(knowledge.KnowledgeError) as info:
        knowledge.load([OVERRIDES / folder])
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


def test_check_lists_every_problem():
    problems = check([OVERRIDES / "broken-ref"], use_env=False)
    assert [(p.entry, p.field) for p in problems] == [("my-op", "pitfall"), ("our-run", "accelerator")] or sorted(
        (p.entry, p.field) for p in problems
    ) == [("my-op", "pitfall"), ("our-run", "accelerator")]
    assert all(p.file.endswith("refs.yaml") for p in problems)


def test_unknown_section_and_field(tmp_path):
    (tmp_path / "x.yaml").write_text("gpus:\n  - id: a\nworkflows:\n  - id: hybrid\n    nickname: h\n")
    problems = check([tmp_path], use_env=False)
    messages = {(p.entry, p.field, p.message.split(";")[0]) for p in problems}
    assert ("-", "gpus", "unknown section") in messages
    assert ("hybrid", "nickname", "unknown field") in messages


def test_missing_directory_is_an_error(tmp_path):
    with pytest.raises(knowledge.KnowledgeError, match="does not exist"):
        knowledge.load([tmp_path / "nope"])


def test_scan_kind_coverage_survives_overrides(tmp_path):
    # a user override that drops the effort figure of the only 'normalize' pitfall is reported
    (tmp_path / "pitfalls.yaml").write_text("- id: normalize-range\n  effort_hours: null\n")
    problems = check([tmp_path], use_env=False)
    assert [(p.entry, p.field) for p in problems] == [("normalize-range", "effort_hours")]
    assert problems[0].file == str(tmp_path / "pitfalls.yaml") and "'normalize'" in problems[0].message


def test_misspelt_id_says_it_is_new(tmp_path):
    (tmp_path / "costs.yaml").write_text("- id: ascend-910b-hours\n  usd: {value: 2, source: x, confidence: vendor}\n")
    with pytest.raises(knowledge.KnowledgeError, match="is new: there is no bundled costs entry"):
        knowledge.load([tmp_path])
