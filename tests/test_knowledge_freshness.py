"""Per-entry freshness (`last_checked`, `advisor kb stale`) and old-price warnings in `advisor kb
validate`. "Today" is always injected (--today, ADVISOR_TODAY or a parameter): nothing depends on the
machine's clock."""

from __future__ import annotations

import datetime as dt
import json

import pytest

import knowledge
from advisor.cli import main
from knowledge.freshness import old_prices, stale_entries, today
from knowledge.models import SECTIONS

D = dt.date


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


def test_every_bundled_entry_says_when_it_was_last_checked(kb):
    for section in SECTIONS:
        if section == "api-mappings":  # the migration scan's table; it carries no dates yet
            continue
        missing = [e.id for e in kb.section(section) if e.last_checked is None]
        assert not missing, f"{section}: {missing}"


def test_stale_entries_by_age(kb):
    on = D(2026, 12, 1)
    ids = {(s.section, s.entry_id) for s in stale_entries(kb, 12, on) if s.last_checked}
    # the field reports' ecosystem statements are from mid-2024: more than 12 months before
    assert ("ecosystem", "pytorch-model-hub") in ids
    assert not any(section == "accelerators" for section, _ in ids)
    # a year later everything checked on 2026-12-01 is due as well
    later = {(s.section, s.entry_id) for s in stale_entries(kb, 12, D(2028, 1, 1))}
    assert ("accelerators", "h100") in later
    # --months 0 lists everything not checked on the day itself
    today = D(2026, 12, 3)
    not_today = [e for s in SECTIONS for e in kb.section(s) if e.last_checked != today]
    assert len(stale_entries(kb, 0, today)) == len(not_today)


def test_never_checked_entries_come_last(kb):
    found = stale_entries(kb, 12, D(2026, 12, 1))
    flags = [s.last_checked is None for s in found]
    assert flags == sorted(flags)


def test_old_prices_are_warned_about_by_date(kb):
    warnings = old_prices(kb, 12, D(2026, 12, 1))
    text = "\n".join(warnings)
    assert "costs:v100-hour" in text and "2024-12-31" in text  # the p3dn price, 23 months old
    assert "costs:h100-hour" not in text  # observed 2026-05
    assert "costs:h100-hour" in "\n".join(old_prices(kb, 12, D(2027, 7, 1)))
    assert not [w for w in old_prices(kb, 12, D(2025, 1, 1)) if w.startswith("costs:")]  # all recent then


def test_today_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("ADVISOR_TODAY", "2030-02-03")
    assert today() == D(2030, 2, 3)
    monkeypatch.setenv("ADVISOR_TODAY", "soon")
    with pytest.raises(ValueError, match="ADVISOR_TODAY"):
        today()


def test_kb_stale_cli(capsys):
    assert main(["kb", "stale", "--today", "2026-12-01", "--section", "ecosystem"]) == 0
    out = capsys.readouterr().out
    assert "ecosystem:pytorch-model-hub: last checked 2024-06-30 (29 months ago)" in out
    assert out.rstrip().endswith("(18 last checked more than 12 months before 2026-12-01, 0 never checked)")
    assert main(["kb", "stale", "--today", "2026-12-01", "--months", "36", "--section", "ecosystem", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["entries"] == [] and doc["months"] == 36 and doc["today"] == "2026-12-01"


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["kb", "stale", "--today", "12/01/2026"], "expected a date YYYY-MM-DD"),
        (["kb", "stale", "--months", "many"], "expected a number of months"),
        (["kb", "stale", "--section", "gpus"], "unknown section 'gpus'"),
    ],
)
def test_kb_stale_bad_input_is_one_line(capsys, argv, fragment):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


def test_kb_validate_warns_about_old_prices_but_stays_valid(capsys):
    assert main(["kb", "validate", "--today", "2026-12-01"]) == 0
    out = capsys.readouterr().out
    assert "warning: costs:v100-hour" in out and "price warnings" in out.splitlines()[-1]
    assert main(["kb", "validate", "--today", "2026-12-01", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["valid"] is True and doc["today"] == "2026-12-01"
    assert any(w.startswith("costs:v100-hour") for w in doc["warnings"])


def test_kb_list_shows_last_checked(capsys):
    assert main(["kb", "list", "accelerators"]) == 0
    out = capsys.readouterr().out
    assert "NVIDIA H100 PCIe 80GB, 80 GB, FP16 756 TFLOPS [checked 2026-12-01]" in out
    assert "inference only" in out
